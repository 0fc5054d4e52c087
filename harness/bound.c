// SPDX-License-Identifier: GPL-2.0
/*
 * A floor under the slow-device I/O of any policy, even one that knows
 * the whole trace, and a plan that knows it and stays above that floor:
 * the offline optimum lies between the two.
 *
 * The model is the one sim.c counts in.  An access to a block the cache
 * does not hold is a miss, unless the block is promoted by it.  A block
 * enters the cache only on an access to it (the promotion of the block
 * just looked up, as both smqs work): a read costs a miss and a copy, a
 * write covering the whole block costs nothing, as it fills the cache
 * block itself (writeback mode).  A block is held from that access
 * through its last hit, both included, and at no access are more than C
 * blocks held.  Writebacks only add, so they are left out.
 *
 * Minimising misses + promotions under these rules is a min-cost flow,
 * too large to solve at millions of accesses.  Its Lagrangian relaxation
 * is cheap: charge a price for each access a block is held at, and drop
 * the capacity.  Then every block is planned on its own, by a two-state
 * recurrence along its accesses, and
 *
 *	sum over blocks of (its misses + promotions + prices charged)
 *	- C * (sum of the prices over all accesses)
 *
 * is at most the cost of any plan that respects the capacity, for any
 * non-negative prices.  We search one price for the whole trace by
 * bisection, then a price per window of the trace by a subgradient
 * method, and keep the best value met on the way.  With a price per
 * access, the best value would be the optimum itself, as the linear
 * relaxation of a network flow has integral optima; windows and a
 * bounded search leave a gap, so the result is a floor, not the optimum.
 *
 * Each relaxed plan also yields a real one: follow it in trace order and,
 * where it would hold more than C blocks, drop the held block accessed
 * again last, or skip the promotion if that is the block promoted
 * (Belady's choice).  The cheapest such plan is an upper bound on the
 * optimum, reached by a policy that knows the future.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "sim.h"

#define NO_PREV UINT64_MAX
#define NO_NEXT UINT64_MAX
#define BISECT_STEPS 24
#define NR_WINDOWS 64
#define SUBGRADIENT_STEPS 48

/* What the recurrence chose at an access, for walking a plan back. */
#define IN_BY_HIT	0x1	/* held after it: was held before, a hit */
#define OUT_BY_HIT	0x2	/* not held after it: a hit, then dropped */
#define CAME_IN		0x4	/* before a miss, the cheaper state was "held" */
#define FILLS_BLOCK	0x8	/* a whole-block write: promoting it costs nothing */
#define KEEP		0x10	/* the plan holds the block after it */

/**
 * struct bound_ctx - a trace flattened for planning its blocks alone
 * @n: block accesses
 * @nr_ids: distinct blocks
 * @id: per access, a dense number for its block
 * @prev: per access, the previous access to the same block, or NO_PREV
 * @flags: per access, IN_BY_HIT ... FILLS_BLOCK
 * @held: per block, the cheapest cost so far ending with it held
 * @out: per block, the same ending with it not held
 * @last: per block, its last access
 * @price: per window, the price of one block held for one access
 * @base: per window, the sum of the prices of every access before it
 * @window: accesses per window
 * @nr_windows: windows
 * @occupancy: per window, the sum over its accesses of the blocks held
 * @cap: the cache's blocks
 * @next: per access, the next access to the same block, or NO_NEXT
 * @heap: the blocks a real plan holds, the one accessed again last first
 * @heap_len: blocks in @heap
 * @pos: per block, its place in @heap + 1, or 0 if not held
 * @key: per block, its next access, while it is held
 * @best_real: the cost of the cheapest real plan found
 */
struct bound_ctx {
	uint64_t n;
	uint32_t nr_ids;
	uint32_t *id;
	uint64_t *prev;
	unsigned char *flags;
	double *held, *out;
	uint64_t *last;
	double *price, *base;
	uint64_t window, nr_windows;
	double *occupancy;
	uint64_t cap;
	uint64_t *next;
	uint32_t *heap;
	uint64_t heap_len;
	uint64_t *pos;
	uint64_t *key;
	uint64_t best_real;
};

/* The sum of the prices of accesses [0, k). */
static double price_before(const struct bound_ctx *c, uint64_t k)
{
	uint64_t w = k / c->window;

	if (w >= c->nr_windows)
		return c->base[c->nr_windows];
	return c->base[w] + c->price[w] * (double)(k - w * c->window);
}

/* Holding a block over accesses [a, b). */
static double prices(const struct bound_ctx *c, uint64_t a, uint64_t b)
{
	return price_before(c, b) - price_before(c, a);
}

static uint64_t window_len(const struct bound_ctx *c, uint64_t w)
{
	uint64_t end = (w + 1) * c->window;

	return (end > c->n ? c->n : end) - w * c->window;
}

/* Charge holding a block over accesses [a, b) to their windows. */
static void add_occupancy(struct bound_ctx *c, uint64_t a, uint64_t b)
{
	while (a < b) {
		uint64_t w = a / c->window, end = (w + 1) * c->window;

		if (end > b)
			end = b;
		c->occupancy[w] += (double)(end - a);
		a = end;
	}
}

/*
 * Plan every block alone at the current prices; returns the relaxation's
 * value, and leaves the plan's occupancy per window.
 */
static double plan(struct bound_ctx *c)
{
	double total = 0;
	uint64_t k, w;
	uint32_t i;

	for (w = 0; w < c->nr_windows; w++)
		c->base[w + 1] = c->base[w] + c->price[w] * (double)window_len(c, w);

	for (k = 0; k < c->n; k++) {
		uint32_t b = c->id[k];
		unsigned char f = c->flags[k] & FILLS_BLOCK;
		/* promoting, over missing: a copy, or no miss for a fill */
		double copy = (f ? -1 : 1) + prices(c, k, k + 1), hit, miss;

		if (c->prev[k] == NO_PREV) {
			c->out[b] = 1;
			c->held[b] = 1 + copy;
			c->flags[k] = f;
			continue;
		}
		hit = c->held[b] + prices(c, c->prev[k] + 1, k + 1);
		if (c->held[b] < c->out[b])
			f |= CAME_IN;
		miss = fmin(c->held[b], c->out[b]) + 1;
		if (hit <= miss + copy) {
			c->held[b] = hit;
			f |= IN_BY_HIT;
		} else {
			c->held[b] = miss + copy;
		}
		if (hit <= miss) {
			c->out[b] = hit;
			f |= OUT_BY_HIT;
		} else {
			c->out[b] = miss;
		}
		c->flags[k] = f;
	}

	/* walk each block's plan back from its last access */
	memset(c->occupancy, 0, c->nr_windows * sizeof(*c->occupancy));
	for (i = 0; i < c->nr_ids; i++) {
		bool held = c->held[i] < c->out[i];

		total += fmin(c->held[i], c->out[i]);
		for (k = c->last[i]; ; k = c->prev[k]) {
			unsigned char f = c->flags[k];
			bool by_hit = held ? f & IN_BY_HIT : f & OUT_BY_HIT;

			if (held)
				c->flags[k] |= KEEP;

			if (c->prev[k] != NO_PREV && by_hit) {
				add_occupancy(c, c->prev[k] + 1, k + 1);
				held = true;
				continue;
			}
			if (held)		/* promoted here */
				add_occupancy(c, k, k + 1);
			if (c->prev[k] == NO_PREV)
				break;
			held = f & CAME_IN;
		}
	}
	return total - (double)c->cap * c->base[c->nr_windows];
}

/*----------------------------------------------------------------*/

/* A max-heap of the held blocks by next access, for Belady's choice. */
static void heap_set(struct bound_ctx *c, uint64_t i, uint32_t b)
{
	c->heap[i] = b;
	c->pos[b] = i + 1;
}

static void heap_up(struct bound_ctx *c, uint64_t i)
{
	uint32_t b = c->heap[i];

	while (i && c->key[c->heap[(i - 1) / 2]] < c->key[b]) {
		heap_set(c, i, c->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(c, i, b);
}

static void heap_down(struct bound_ctx *c, uint64_t i)
{
	uint32_t b = c->heap[i];

	for (;;) {
		uint64_t child = 2 * i + 1;

		if (child >= c->heap_len)
			break;
		if (child + 1 < c->heap_len && c->key[c->heap[child + 1]] > c->key[c->heap[child]])
			child++;
		if (c->key[c->heap[child]] <= c->key[b])
			break;
		heap_set(c, i, c->heap[child]);
		i = child;
	}
	heap_set(c, i, b);
}

static void heap_insert(struct bound_ctx *c, uint32_t b, uint64_t key)
{
	c->key[b] = key;
	c->heap[c->heap_len++] = b;
	heap_up(c, c->heap_len - 1);
}

static void heap_remove(struct bound_ctx *c, uint32_t b)
{
	uint64_t i = c->pos[b] - 1;
	uint32_t last = c->heap[--c->heap_len];

	c->pos[b] = 0;
	if (i == c->heap_len)
		return;
	heap_set(c, i, last);
	heap_up(c, i);
	heap_down(c, c->pos[last] - 1);
}

static void heap_rekey(struct bound_ctx *c, uint32_t b, uint64_t key)
{
	uint64_t old = c->key[b];

	c->key[b] = key;
	if (key > old)
		heap_up(c, c->pos[b] - 1);
	else
		heap_down(c, c->pos[b] - 1);
}

/*
 * The relaxed plan made real: misses + copies of following it in trace
 * order within C blocks.  A promotion into a full cache drops the held
 * block accessed again last, unless that is the one being promoted; a
 * filling write that nothing follows holds its block at that access only.
 */
static uint64_t follow_plan(struct bound_ctx *c)
{
	uint64_t cost = 0, k;

	c->heap_len = 0;
	memset(c->pos, 0, c->nr_ids * sizeof(*c->pos));
	for (k = 0; k < c->n; k++) {
		uint32_t b = c->id[k];
		bool keep = c->flags[k] & KEEP;

		if (c->pos[b]) {
			if (keep && c->next[k] != NO_NEXT)
				heap_rekey(c, b, c->next[k]);
			else
				heap_remove(c, b);
			continue;
		}
		if (!keep) {
			cost++;
			continue;
		}
		if (c->heap_len == c->cap) {
			uint32_t far = c->heap[0];

			if (c->key[far] <= c->next[k]) {
				cost++;
				continue;
			}
			heap_remove(c, far);
		}
		cost += c->flags[k] & FILLS_BLOCK ? 0 : 2;
		if (c->next[k] != NO_NEXT)
			heap_insert(c, b, c->next[k]);
	}
	return cost;
}

/* Plan at the current prices; keep the real plan it yields if cheaper. */
static double plan_both(struct bound_ctx *c)
{
	double value = plan(c);
	uint64_t real = follow_plan(c);

	if (real < c->best_real)
		c->best_real = real;
	return value;
}

/*
 * One price for the whole trace, by bisection on the plan's occupancy;
 * @balance is left where that occupancy meets the cache.  Holding a block
 * saves at most a miss and a copy, so no price above 2 binds.
 */
static double search_one_price(struct bound_ctx *c, double *balance)
{
	double lo = 1e-12, hi = 2, best = 0;
	int step;

	c->nr_windows = 1;
	c->window = c->n;
	for (step = 0; step < BISECT_STEPS; step++) {
		double value;

		c->price[0] = sqrt(lo * hi);
		value = plan_both(c);
		best = fmax(best, value);
		if (c->occupancy[0] > (double)c->cap * (double)c->n)
			lo = c->price[0];
		else
			hi = c->price[0];
	}
	*balance = sqrt(lo * hi);
	return best;
}

/*
 * A price per window, from @balance: raise it where the plan holds more
 * than the cache has room for, lower it where less.  Returns the best
 * value met, @best if none was better.
 */
static double search_window_prices(struct bound_ctx *c, double balance, double best)
{
	/*
	 * The balance is ~0 when the blocks fit on average but not at every
	 * moment.  Step at least at the scale where holding a block for C
	 * accesses costs 0.3 of a copy, or the windows' prices never climb
	 * to where they bind.
	 */
	double start = fmax(balance, 0.3 / (double)c->cap);
	uint64_t w;
	int step;

	c->nr_windows = c->n < NR_WINDOWS ? c->n : NR_WINDOWS;
	c->window = (c->n + c->nr_windows - 1) / c->nr_windows;
	c->nr_windows = (c->n + c->window - 1) / c->window;
	for (w = 0; w < c->nr_windows; w++)
		c->price[w] = start;
	for (step = 0; step < SUBGRADIENT_STEPS; step++) {
		double value = plan_both(c), rate = start / sqrt(1.0 + step);

		best = fmax(best, value);
		for (w = 0; w < c->nr_windows; w++) {
			double excess = c->occupancy[w] / ((double)c->cap * window_len(c, w)) - 1;

			c->price[w] = fmax(0, c->price[w] + rate * excess);
		}
	}
	return best;
}

static void bound_free(struct bound_ctx *c)
{
	free(c->id);
	free(c->prev);
	free(c->flags);
	free(c->held);
	free(c->out);
	free(c->last);
	free(c->price);
	free(c->base);
	free(c->occupancy);
	free(c->next);
	free(c->heap);
	free(c->pos);
	free(c->key);
}

/* Number the blocks densely and link each access to the block's previous one. */
static int flatten(struct bound_ctx *c, const struct trace *t)
{
	struct hashmap map;
	uint64_t k = 0;
	size_t i;
	uint32_t b;

	c->n = t->nr_accesses;
	c->id = malloc(c->n * sizeof(*c->id));
	c->prev = malloc(c->n * sizeof(*c->prev));
	c->flags = malloc(c->n);
	c->last = malloc(t->footprint * sizeof(*c->last));
	c->held = malloc(t->footprint * sizeof(*c->held));
	c->out = malloc(t->footprint * sizeof(*c->out));
	c->price = malloc(NR_WINDOWS * sizeof(*c->price));
	c->base = malloc((NR_WINDOWS + 1) * sizeof(*c->base));
	c->occupancy = malloc(NR_WINDOWS * sizeof(*c->occupancy));
	c->next = malloc(c->n * sizeof(*c->next));
	c->heap = malloc(t->footprint * sizeof(*c->heap));
	c->pos = malloc(t->footprint * sizeof(*c->pos));
	c->key = malloc(t->footprint * sizeof(*c->key));
	if (!c->id || !c->prev || !c->flags || !c->last || !c->held || !c->out || !c->price ||
	    !c->base || !c->occupancy || !c->next || !c->heap || !c->pos || !c->key)
		return -ENOMEM;
	if (hashmap_init(&map, t->footprint + 1)) {
		hashmap_free(&map);
		return -ENOMEM;
	}

	c->base[0] = 0;
	for (i = 0; i < t->nr_reqs; i++) {
		const struct request *rq = &t->reqs[i];

		for (b = 0; b < rq->nr_blocks; b++, k++) {
			uint32_t *v = hashmap_find(&map, rq->block + b);

			if (!v) {
				hashmap_insert(&map, rq->block + b, c->nr_ids);
				c->id[k] = c->nr_ids;
				c->prev[k] = NO_PREV;
				c->nr_ids++;
			} else {
				c->id[k] = *v;
				c->prev[k] = c->last[*v];
				c->next[c->prev[k]] = k;
			}
			c->next[k] = NO_NEXT;
			c->last[c->id[k]] = k;
			c->flags[k] = rq->write && rq->whole ? FILLS_BLOCK : 0;
		}
	}
	hashmap_free(&map);
	return 0;
}

int sim_slow_io_bound(const struct trace *t, uint64_t cache_blocks, double *lower,
		      double *upper)
{
	struct bound_ctx c = { .cap = cache_blocks };
	double best, balance;
	int r;

	*lower = 0;
	*upper = 0;
	if (!t->nr_accesses)
		return 0;
	if (!cache_blocks) {
		*lower = 1;	/* every access misses */
		*upper = 1;
		return 0;
	}
	r = flatten(&c, t);
	if (!r) {
		c.best_real = c.n;	/* promoting nothing: every access a miss */
		best = search_one_price(&c, &balance);
		best = search_window_prices(&c, balance, best);
		*lower = best / (double)c.n;
		*upper = (double)c.best_real / (double)c.n;
	}
	bound_free(&c);
	return r;
}
