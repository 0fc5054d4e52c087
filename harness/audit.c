// SPDX-License-Identifier: GPL-2.0
/*
 * What each promotion into a full cache bought, judged afterwards against
 * the trace.  The model pairs every promotion with the oldest demotion not
 * yet paired (the block it freed): a swap.  The promoted block (the
 * winner) then serves a hit at each access until its own demotion; had
 * the demoted block (the victim) stayed instead, each of its accesses over
 * the same span would have been one.  A swap pays when the winner's hits
 * exceed the victim's by more than the copy it cost.  The victim's hits
 * are an estimate: had it stayed, another block might have left in its
 * place, later.  Only the policies the model runs (ours and the tree's)
 * are audited.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "hashmap.h"

int swap_log_init(struct swap_log *log, uint64_t cache_blocks)
{
	memset(log, 0, sizeof(*log));
	/* an open swap's winner holds a cache block: no more are open */
	log->room = cache_blocks;
	if (hashmap_init(&log->open, cache_blocks + 1)) {
		hashmap_free(&log->open);
		return -ENOMEM;
	}
	return 0;
}

void swap_log_free(struct swap_log *log)
{
	free(log->swaps);
	free(log->freed);
	hashmap_free(&log->open);
	memset(log, 0, sizeof(*log));
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* @oblock left the cache after @now accesses: a swap it won ends there. */
int swap_log_demoted(struct swap_log *log, uint64_t oblock, uint64_t now)
{
	uint32_t *i = hashmap_find(&log->open, oblock);

	if (i) {
		log->swaps[*i].until = now;
		hashmap_remove(&log->open, oblock);
	}
	if (log->freed_head == log->nr_freed) {
		log->freed_head = 0;
		log->nr_freed = 0;
	}
	if (grow((void **)&log->freed, &log->freed_cap, log->nr_freed + 1, sizeof(*log->freed)))
		return -ENOMEM;
	log->freed[log->nr_freed++] = oblock;
	return 0;
}

/*
 * @oblock entered the cache after @now accesses, by a copy unless a
 * whole-block write filled it: a swap if a demotion freed a block for it.
 */
int swap_log_promoted(struct swap_log *log, uint64_t oblock, uint64_t now, bool copied)
{
	struct swap *s;

	if (log->freed_head == log->nr_freed)
		return 0;
	hashmap_remove(&log->open, oblock);
	/* more winners cached than cache blocks: a block left unannounced */
	if (log->open.count >= log->room)
		return -ENOSPC;
	if (grow((void **)&log->swaps, &log->cap, log->nr + 1, sizeof(*log->swaps)) ||
	    log->nr >= UINT32_MAX)
		return -ENOMEM;
	s = log->swaps + log->nr;
	*s = (struct swap){ .winner = oblock, .victim = log->freed[log->freed_head++],
			    .from = now, .until = UINT64_MAX, .copied = copied };
	hashmap_insert(&log->open, oblock, log->nr++);
	return 0;
}

/* The first of @pos (@n positions, ascending) at or after @at, as an index. */
static uint64_t first_from(const uint64_t *pos, uint64_t n, uint64_t at)
{
	uint64_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pos[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Accesses to the block of @pos (@n of them, ascending) in [@from, @until). */
static uint64_t accesses_between(const uint64_t *pos, uint64_t n, uint64_t from, uint64_t until)
{
	return first_from(pos, n, until) - first_from(pos, n, from);
}

static void note_block(struct hashmap *ids, uint64_t block, uint32_t *nr)
{
	if (!hashmap_find(ids, block))
		hashmap_insert(ids, block, (*nr)++);
}

/*
 * Settle every swap of @log against @t's accesses, into @a.  Only the
 * blocks that took part are indexed: their access positions, grouped by
 * block in one array.
 */
int swap_log_settle(const struct swap_log *log, const struct trace *t, struct swap_audit *a)
{
	uint64_t *start = NULL, *fill = NULL, *pos = NULL, k = 0;
	uint32_t nr_ids = 0, *id, b;
	struct hashmap ids;
	size_t i, r;
	int err = -ENOMEM;

	memset(a, 0, sizeof(*a));
	if (!log->nr)
		return 0;
	if (hashmap_init(&ids, 2 * (uint64_t)log->nr))
		goto out;
	for (i = 0; i < log->nr; i++) {
		note_block(&ids, log->swaps[i].winner, &nr_ids);
		note_block(&ids, log->swaps[i].victim, &nr_ids);
	}

	/* count each block's accesses, then place their positions */
	start = calloc(nr_ids + 1, sizeof(*start));
	fill = calloc(nr_ids, sizeof(*fill));
	if (!start || !fill)
		goto out;
	for (r = 0; r < t->nr_reqs; r++)
		for (b = 0; b < t->reqs[r].nr_blocks; b++) {
			id = hashmap_find(&ids, t->reqs[r].block + b);
			if (id)
				start[*id + 1]++;
		}
	for (i = 0; i < nr_ids; i++)
		start[i + 1] += start[i];
	pos = malloc((start[nr_ids] ? start[nr_ids] : 1) * sizeof(*pos));
	if (!pos)
		goto out;
	for (r = 0; r < t->nr_reqs; r++)
		for (b = 0; b < t->reqs[r].nr_blocks; b++, k++) {
			id = hashmap_find(&ids, t->reqs[r].block + b);
			if (id)
				pos[start[*id] + fill[*id]++] = k;
		}

	for (i = 0; i < log->nr; i++) {
		const struct swap *s = log->swaps + i;
		uint32_t w = *hashmap_find(&ids, s->winner), v = *hashmap_find(&ids, s->victim);
		uint64_t won = accesses_between(pos + start[w], start[w + 1] - start[w],
						s->from, s->until);
		uint64_t lost = accesses_between(pos + start[v], start[v + 1] - start[v],
						 s->from, s->until);

		a->swaps++;
		a->winner_hits += won;
		a->victim_hits += lost;
		a->copies += s->copied;
		a->paid += won > lost + s->copied;
	}
	err = 0;
out:
	hashmap_free(&ids);
	free(start);
	free(fill);
	free(pos);
	return err;
}
