/* SPDX-License-Identifier: GPL-2.0 */
/* Reading traces and generating synthetic ones (trace.c). */
#ifndef HARNESS_TRACE_H
#define HARNESS_TRACE_H

#include "sim.h"

struct load_opts {
	const char *format;	/* NULL: guessed from the name and first line */
	uint64_t block_bytes;	/* cache block size for byte-addressed traces */
	double rate;		/* requests per second where a trace has no time */
	int64_t volume;		/* Tencent CBS: the volume to replay, -1: the first */
	uint64_t max_reqs;	/* 0: all */
	uint64_t seed;		/* generators */
	uint64_t gen_requests;
	uint64_t gen_blocks;
};

char *trace_name(const char *path);
/* Both leave nothing in @t to free when they fail, and say why in @err. */
int trace_load(struct trace *t, const char *path, const struct load_opts *o, char *err,
	       size_t len);
int trace_generate(struct trace *t, const char *spec, const struct load_opts *o, char *err,
		   size_t len);
/*
 * Write @t's requests to @path for the guest's blkreplay
 * (guest/tools/blkreplay.c); 0 or -errno.
 */
int trace_export(const struct trace *t, const char *path);

#endif
