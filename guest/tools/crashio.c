// SPDX-License-Identifier: GPL-2.0
/*
 * crashio: writes that can be checked after a power cut.
 *
 *   crashio write DEV LOG SEED BLOCKS   write until killed
 *   crashio verify DEV LOG              check every acknowledged block
 *
 * The writer writes batches of 4 KiB blocks chosen at random among the
 * first BLOCKS of DEV with O_DIRECT, then fdatasync()s DEV; only then is
 * the batch acknowledged, by one record appended to LOG with O_DIRECT and
 * O_DSYNC.  Every block carries its number, a generation and a checksum.
 *
 * The verifier replays LOG up to its first invalid record and checks that
 * every acknowledged block holds its acknowledged generation or a later
 * one, intact.  It prints "crashio: lost N of M" and fails if N > 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096
#define BATCH 16
#define MAGIC_DATA 0x43524153484441ull	/* "CRASHDA" */
#define MAGIC_LOG 0x435241534c4f47ull	/* "CRASLOG" */

struct block_head {
	uint64_t magic;
	uint64_t block;
	uint64_t gen;
	uint64_t sum;		/* of the payload that follows */
};

struct log_rec {
	uint64_t magic;
	uint64_t seq;
	uint64_t count;
	uint64_t sum;		/* of entries[] */
	struct {
		uint64_t block;
		uint64_t gen;
	} entries[BATCH];
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t checksum(const void *p, size_t n)
{
	const uint64_t *w = p;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < n / 8; i++)
		s = mix(s ^ w[i]);
	return s;
}

static void fill(unsigned char *buf, uint64_t block, uint64_t gen)
{
	struct block_head *h = (struct block_head *)buf;
	uint64_t *w = (uint64_t *)(buf + sizeof(*h));
	size_t i;

	for (i = 0; i < (BLOCK - sizeof(*h)) / 8; i++)
		w[i] = mix(block * 1000003 + gen * 7919 + i);
	h->magic = MAGIC_DATA;
	h->block = block;
	h->gen = gen;
	h->sum = checksum(buf + sizeof(*h), BLOCK - sizeof(*h));
}

static void *aligned(size_t n)
{
	void *p;

	if (posix_memalign(&p, BLOCK, n)) {
		perror("crashio: posix_memalign");
		exit(2);
	}
	memset(p, 0, n);
	return p;
}

static int do_write(const char *dev, const char *log, uint64_t seed, uint64_t nblocks)
{
	int fd = open(dev, O_RDWR | O_DIRECT), lfd = open(log, O_RDWR | O_DIRECT | O_DSYNC);
	uint64_t *gen = calloc(nblocks, sizeof(*gen)), seq = 0, rnd = seed | 1;
	unsigned char *buf = aligned(BLOCK);
	struct log_rec *rec = aligned(BLOCK);
	unsigned int i;

	if (fd < 0 || lfd < 0 || !gen) {
		perror("crashio: open");
		return 2;
	}
	printf("crashio: writing, seed %" PRIu64 "\n", seed);
	fflush(stdout);
	for (;;) {
		memset(rec, 0, BLOCK);
		for (i = 0; i < BATCH; i++) {
			uint64_t b;

			rnd = mix(rnd);
			b = rnd % nblocks;
			fill(buf, b, ++gen[b]);
			if (pwrite(fd, buf, BLOCK, b * BLOCK) != BLOCK) {
				perror("crashio: write");
				return 2;
			}
			rec->entries[i].block = b;
			rec->entries[i].gen = gen[b];
		}
		if (fdatasync(fd)) {
			perror("crashio: fdatasync");
			return 2;
		}
		rec->magic = MAGIC_LOG;
		rec->seq = seq;
		rec->count = BATCH;
		rec->sum = checksum(rec->entries, sizeof(rec->entries));
		if (pwrite(lfd, rec, BLOCK, (seq + 1) * BLOCK) != BLOCK) {
			perror("crashio: log");
			return 2;
		}
		if (++seq % 256 == 0) {
			printf("crashio: %" PRIu64 " batches acknowledged\n", seq);
			fflush(stdout);
		}
	}
}

static int do_verify(const char *dev, const char *log)
{
	int fd = open(dev, O_RDONLY | O_DIRECT), lfd = open(log, O_RDONLY | O_DIRECT);
	unsigned char *buf = aligned(BLOCK);
	struct block_head *h = (struct block_head *)buf;
	struct log_rec *rec = aligned(BLOCK);
	uint64_t nb = 1 << 16, seq, lost = 0, checked = 0, b, i;
	uint64_t *acked = calloc(nb, sizeof(*acked));	/* last acknowledged generation */

	if (fd < 0 || lfd < 0 || !acked) {
		perror("crashio: open");
		return 2;
	}
	for (seq = 0;; seq++) {
		if (pread(lfd, rec, BLOCK, (seq + 1) * BLOCK) != BLOCK || rec->magic != MAGIC_LOG ||
		    rec->seq != seq || rec->count != BATCH ||
		    rec->sum != checksum(rec->entries, sizeof(rec->entries)))
			break;
		for (i = 0; i < BATCH; i++) {
			b = rec->entries[i].block;
			while (b >= nb) {
				acked = realloc(acked, 2 * nb * sizeof(*acked));
				memset(acked + nb, 0, nb * sizeof(*acked));
				nb *= 2;
			}
			if (rec->entries[i].gen > acked[b])
				acked[b] = rec->entries[i].gen;
		}
	}

	for (b = 0; b < nb; b++) {
		if (!acked[b])
			continue;
		checked++;
		if (pread(fd, buf, BLOCK, b * BLOCK) != BLOCK || h->magic != MAGIC_DATA ||
		    h->block != b || h->gen < acked[b] ||
		    h->sum != checksum(buf + sizeof(*h), BLOCK - sizeof(*h))) {
			if (lost < 10)
				printf("crashio: block %" PRIu64 " acknowledged at generation %" PRIu64
				       ", holds %" PRIu64 "\n", b, acked[b],
				       h->magic == MAGIC_DATA ? h->gen : 0);
			lost++;
		}
	}
	printf("crashio: %" PRIu64 " batches acknowledged, lost %" PRIu64 " of %" PRIu64 " blocks\n",
	       seq, lost, checked);
	return lost ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3], strtoull(argv[4], NULL, 0),
				strtoull(argv[5], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "verify"))
		return do_verify(argv[2], argv[3]);
	fprintf(stderr, "usage: crashio write DEV LOG SEED BLOCKS | crashio verify DEV LOG\n");
	return 2;
}
