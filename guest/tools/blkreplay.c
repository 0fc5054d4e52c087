// SPDX-License-Identifier: GPL-2.0
/*
 * blkreplay: replay a trace exported by the harness (replay --export) on a
 * block device, one request at a time, with O_DIRECT.
 *
 *   blkreplay DEV TRACE BLOCK_BYTES [RATE]   replay TRACE on DEV
 *   blkreplay --origin TRACE                 print the blocks the origin needs
 *
 * Block b of the trace is bytes [b * BLOCK_BYTES, (b + 1) * BLOCK_BYTES)
 * of DEV.  A request covering its blocks whole reads or writes them in one
 * go (in pieces of at most 1 MiB); one that does not, as the harness
 * models a partial request, reads or writes the first 4 KiB of each of its
 * blocks.  Either way the cache target looks each block up once per
 * request, as the harness's policies see it.  With RATE, request i is
 * issued no earlier than i / RATE seconds after the first, as the harness
 * times a trace without timestamps (its --rate): a policy whose periods
 * are in seconds sees the same time pass in both.  Prints "blkreplay: N
 * requests, M block accesses" when done.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PARTIAL 4096u
#define MAX_IO (1u << 20)
#define REQ_WRITE (1ull << 32)
#define REQ_WHOLE (1ull << 33)

struct trace {
	uint64_t nr_reqs;
	uint64_t origin_blocks;
	uint64_t *words;	/* two per request */
};

static int load(const char *path, struct trace *t)
{
	uint64_t head[3];
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "blkreplay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(head, sizeof(head[0]), 3, f) != 3 || memcmp(head, "LABTRACE", 8)) {
		fprintf(stderr, "blkreplay: %s: not an exported trace\n", path);
		return -1;
	}
	t->nr_reqs = le64toh(head[1]);
	t->origin_blocks = le64toh(head[2]);
	if (t->nr_reqs > SIZE_MAX / 16) {
		fprintf(stderr, "blkreplay: %s: too many requests\n", path);
		return -1;
	}
	t->words = malloc(t->nr_reqs * 16);
	if (!t->words || fread(t->words, 16, t->nr_reqs, f) != t->nr_reqs) {
		fprintf(stderr, "blkreplay: %s: truncated\n", path);
		return -1;
	}
	fclose(f);
	return 0;
}

static int do_io(int fd, char *buf, bool write, uint64_t off, size_t len)
{
	ssize_t r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

	if (r != (ssize_t)len) {
		fprintf(stderr, "blkreplay: %s of %zu bytes at %" PRIu64 ": %s\n",
			write ? "write" : "read", len, off, r < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

/* Sleep until request @i of a replay at @rate requests a second begun at @t0. */
static void pace(const struct timespec *t0, uint64_t i, uint64_t rate)
{
	uint64_t ns = i * 1000000000ull / rate;
	struct timespec at = { t0->tv_sec + ns / 1000000000ull, t0->tv_nsec + ns % 1000000000ull };

	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
		;
}

static int replay(int fd, const struct trace *t, uint64_t bs, uint64_t rate,
		  uint64_t *accesses)
{
	struct timespec t0;
	char *buf;
	uint64_t i, b;

	if (posix_memalign((void **)&buf, 4096, MAX_IO))
		return -1;
	memset(buf, 0x5a, MAX_IO);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < t->nr_reqs; i++) {
		uint64_t block = le64toh(t->words[2 * i]);
		uint64_t w = le64toh(t->words[2 * i + 1]);
		uint64_t nr = (uint32_t)w, off = block * bs, len = nr * bs, chunk;
		bool write = w & REQ_WRITE;

		if (block + nr > t->origin_blocks) {
			fprintf(stderr, "blkreplay: request %" PRIu64 " beyond the origin\n", i);
			return -1;
		}
		*accesses += nr;
		if (rate)
			pace(&t0, i, rate);
		if (!(w & REQ_WHOLE)) {
			for (b = 0; b < nr; b++)
				if (do_io(fd, buf, write, off + b * bs, PARTIAL))
					return -1;
			continue;
		}
		for (; len; off += chunk, len -= chunk) {
			chunk = len < MAX_IO ? len : MAX_IO;
			if (do_io(fd, buf, write, off, chunk))
				return -1;
		}
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t bs, rate = 0, accesses = 0;
	struct trace t;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--origin")) {
		if (load(argv[2], &t))
			return 1;
		printf("%" PRIu64 "\n", t.origin_blocks);
		return 0;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: blkreplay DEV TRACE BLOCK_BYTES [RATE] | --origin TRACE\n");
		return 2;
	}
	if (argc == 5)
		rate = strtoull(argv[4], NULL, 10);
	bs = strtoull(argv[3], NULL, 10);
	if (bs < PARTIAL || bs % PARTIAL || MAX_IO % bs) {
		fprintf(stderr, "blkreplay: block size %s: a multiple of 4 KiB dividing 1 MiB\n",
			argv[3]);
		return 2;
	}
	if (load(argv[2], &t))
		return 1;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "blkreplay: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (replay(fd, &t, bs, rate, &accesses))
		return 1;
	close(fd);
	printf("blkreplay: %" PRIu64 " requests, %" PRIu64 " block accesses\n", t.nr_reqs,
	       accesses);
	return 0;
}
