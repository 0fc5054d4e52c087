// SPDX-License-Identifier: GPL-2.0
/*
 * blkreplay: replay a trace exported by the harness (replay --export) on a
 * block device, one request at a time, with O_DIRECT.
 *
 *   blkreplay DEV TRACE BLOCK_BYTES [RATE [START]]   replay TRACE on DEV
 *   blkreplay --origin TRACE      print the blocks the origin needs
 *   blkreplay --now               print CLOCK_MONOTONIC, in ns
 *
 * Block b of the trace is bytes [b * BLOCK_BYTES, (b + 1) * BLOCK_BYTES)
 * of DEV.  A request covering its blocks whole reads or writes them in one
 * go (in pieces of at most 1 MiB); one that does not, as the harness
 * models a partial request, reads or writes the first 4 KiB of each of its
 * blocks.  Either way the cache target looks each block up once per
 * request, as the harness's policies see it.  With RATE, request i is
 * issued no earlier than i / RATE seconds after the first, as the harness
 * times a trace without timestamps (its --rate), and the first no earlier
 * than START (CLOCK_MONOTONIC, in ns): started a fixed lead after the
 * cache was created, the replay keeps the harness's --lead-us, which sets
 * where the policies' periods in seconds fall.  Prints "blkreplay: N
 * requests, M block accesses, at most L ms late" when done: L is how far
 * the replay fell behind its schedule.
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
	const char *why = NULL;
	uint64_t head[3];
	FILE *f = fopen(path, "rb");

	t->words = NULL;
	if (!f) {
		fprintf(stderr, "blkreplay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(head, sizeof(head[0]), 3, f) != 3 || memcmp(head, "LABTRACE", 8)) {
		why = "not an exported trace";
		goto out;
	}
	t->nr_reqs = le64toh(head[1]);
	t->origin_blocks = le64toh(head[2]);
	if (t->nr_reqs > SIZE_MAX / 16) {
		why = "too many requests";
		goto out;
	}
	/* one byte for none: malloc(0) may return NULL */
	t->words = malloc(t->nr_reqs ? t->nr_reqs * 16 : 1);
	if (!t->words || fread(t->words, 16, t->nr_reqs, f) != t->nr_reqs) {
		why = t->words ? "truncated" : "out of memory";
		free(t->words);
		t->words = NULL;
	}
out:
	fclose(f);
	if (why)
		fprintf(stderr, "blkreplay: %s: %s\n", path, why);
	return why ? -1 : 0;
}

/*
 * Does @fd hold the trace's origin?  The requests are checked against the
 * origin's size; a header that overstates it must not let an offset wrap
 * or a request land beyond the device.
 */
static int check_room(int fd, const char *dev, const struct trace *t, uint64_t bs)
{
	off_t size = lseek(fd, 0, SEEK_END);

	if (size < 0) {
		fprintf(stderr, "blkreplay: %s: %s\n", dev, strerror(errno));
		return -1;
	}
	if (t->origin_blocks > (uint64_t)size / bs) {
		fprintf(stderr, "blkreplay: %s: %jd bytes, the trace's origin needs %" PRIu64
			" blocks of %" PRIu64 "\n", dev, (intmax_t)size, t->origin_blocks, bs);
		return -1;
	}
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

#define NSEC 1000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* Sleep until @at, in CLOCK_MONOTONIC ns; returns how late it is then. */
static uint64_t sleep_until(uint64_t at)
{
	struct timespec ts = { at / NSEC, at % NSEC };
	uint64_t now;

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	now = now_ns();
	return now > at ? now - at : 0;
}

static int replay(int fd, const struct trace *t, uint64_t bs, uint64_t rate, uint64_t start,
		  uint64_t *accesses, uint64_t *late)
{
	char *buf;
	uint64_t i, b, l;
	int r = -1;

	if (posix_memalign((void **)&buf, 4096, MAX_IO)) {
		fprintf(stderr, "blkreplay: out of memory\n");
		return -1;
	}
	memset(buf, 0x5a, MAX_IO);
	if (!start)
		start = now_ns();
	for (i = 0; i < t->nr_reqs; i++) {
		uint64_t block = le64toh(t->words[2 * i]);
		uint64_t w = le64toh(t->words[2 * i + 1]);
		uint64_t nr = (uint32_t)w, off = block * bs, len = nr * bs, chunk;
		bool write = w & REQ_WRITE;

		if (block >= t->origin_blocks || nr > t->origin_blocks - block) {
			fprintf(stderr, "blkreplay: request %" PRIu64 " beyond the origin\n", i);
			goto out;
		}
		*accesses += nr;
		if (rate) {
			l = sleep_until(start + i * NSEC / rate);
			*late = l > *late ? l : *late;
		}
		if (!(w & REQ_WHOLE)) {
			for (b = 0; b < nr; b++)
				if (do_io(fd, buf, write, off + b * bs, PARTIAL))
					goto out;
			continue;
		}
		for (; len; off += chunk, len -= chunk) {
			chunk = len < MAX_IO ? len : MAX_IO;
			if (do_io(fd, buf, write, off, chunk))
				goto out;
		}
	}
	r = 0;
out:
	free(buf);
	return r;
}

int main(int argc, char **argv)
{
	uint64_t bs, rate = 0, start = 0, accesses = 0, late = 0;
	struct trace t;
	int fd, r;

	if (argc == 3 && !strcmp(argv[1], "--origin")) {
		if (load(argv[2], &t))
			return 1;
		printf("%" PRIu64 "\n", t.origin_blocks);
		free(t.words);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--now")) {
		printf("%" PRIu64 "\n", now_ns());
		return 0;
	}
	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: blkreplay DEV TRACE BLOCK_BYTES [RATE [START]] | "
			"--origin TRACE | --now\n");
		return 2;
	}
	if (argc > 4)
		rate = strtoull(argv[4], NULL, 10);
	if (argc > 5)
		start = strtoull(argv[5], NULL, 10);
	bs = strtoull(argv[3], NULL, 10);
	if (bs <= PARTIAL || bs % PARTIAL || MAX_IO % bs) {
		fprintf(stderr, "blkreplay: block size %s: a multiple of 4 KiB above it, "
			"dividing 1 MiB\n",
			argv[3]);
		return 2;
	}
	if (load(argv[2], &t))
		return 1;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "blkreplay: %s: %s\n", argv[1], strerror(errno));
		free(t.words);
		return 1;
	}
	r = check_room(fd, argv[1], &t, bs);
	if (!r)
		r = replay(fd, &t, bs, rate, start, &accesses, &late);
	close(fd);
	free(t.words);
	if (r)
		return 1;
	printf("blkreplay: %" PRIu64 " requests, %" PRIu64 " block accesses, at most %" PRIu64
	       " ms late\n", t.nr_reqs, accesses, late / 1000000);
	return 0;
}
