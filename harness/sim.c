// SPDX-License-Identifier: GPL-2.0
/*
 * dm-cache's core, as far as a policy can tell: the target's map path,
 * dirty bitset, migration worker, waker and tick bios, played against a
 * kernel policy (ours or the tree's smq), or against LRU and Belady's OPT.
 *
 * Migrations complete before the next request, or, given a migration
 * time (sim_config.migration_us), that long after the worker started them.
 * Device time is not modelled otherwise, except for writebacks in idle
 * gaps, which are limited by migration_threshold and the copy time as
 * the target limits them.  Unlike the target, which holds back I/O to a
 * block while it migrates, the model lets it through: a read of a block
 * being promoted misses, a write to a block being demoted dirties it; and
 * a whole-block write that promotes its block ends its migration at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"
#include "dm-cache-policy-internal.h"
#include "audit.h"
#include "hashmap.h"
#include "sim.h"

#define JIFFIES_BASE 1000ul
#define US_PER_S 1000000ull

double sim_miss_ratio(const struct sim_stats *s)
{
	return s->accesses ? (double)sim_misses(s) / s->accesses : 0.0;
}

double sim_slow_io_per_access(const struct sim_stats *s)
{
	return s->accesses ?
		(double)(sim_misses(s) + s->promotions + s->writebacks) / s->accesses : 0.0;
}

/*
 * Blocks still dirty when the trace ends reach the origin some day, a
 * writeback each: charged at the end, so that no policy gains by leaving
 * its writebacks for after the trace.  (The generators, never idle, end
 * with up to 2 % of their accesses' worth of dirty blocks; not charged,
 * zipf 1.2 at 25 % counted 1.007 times the tree's smq's slow-device I/O
 * for ours where it is 0.969 with them, over eight draws.)
 */
static void charge_dirty_left(struct sim_stats *st, const unsigned char *dirty, size_t n)
{
	uint64_t left = 0;
	size_t i;

	for (i = 0; i < n; i++)
		left += dirty[i];
	st->dirty_left = left;
	st->writebacks += left;
}

/*----------------------------------------------------------------*/

/* A migration the worker started, and when it ends. */
struct flight {
	struct policy_work *op;
	uint64_t end_us;
};

/*
 * The target's state around a kernel policy.  Migrations in flight end in
 * the order they started: all take the same time.
 */
struct core {
	const struct sim_config *cfg;
	struct dm_cache_policy *p;
	unsigned char *dirty;		/* the target's dirty bitset, a byte each */
	unsigned char *unhit;		/* promoted and not hit since, a byte each */
	uint64_t now_us;
	uint64_t last_io_us;
	uint64_t next_waker_us;
	unsigned int reqs_since_tick;
	struct flight *flights;		/* [first, last) in flight */
	size_t first, last, room;
	int error;			/* no room for a migration in flight or a swap */
	struct sim_stats *st;
	struct swap_log *swaps;		/* with sim_config.audit */
};


/* Accesses to the hot set, for the cost a scan inflicts on it. */
static void count_hot(const struct sim_config *cfg, struct sim_stats *st, uint64_t block,
		      bool hit)
{
	if (block < cfg->hot_below) {
		st->hot_accesses++;
		st->hot_hits += hit;
	}
}
static void set_time(uint64_t us)
{
	jiffies = JIFFIES_BASE + (unsigned long)(us * HZ / US_PER_S);
}

static void force_set_dirty(struct core *c, dm_cblock_t cb)
{
	c->dirty[from_cblock(cb)] = 1;
	policy_set_dirty(c->p, cb);
}

static void force_clear_dirty(struct core *c, dm_cblock_t cb)
{
	c->dirty[from_cblock(cb)] = 0;
	policy_clear_dirty(c->p, cb);
}

/* mg_complete(), for a migration that copied its block successfully. */
static void complete_work(struct core *c, struct policy_work *op, bool overwrite)
{
	dm_cblock_t cb = op->cblock;
	uint64_t ob = from_oblock(op->oblock);

	switch (op->op) {
	case POLICY_PROMOTE:
		policy_complete_background_work(c->p, op, true);
		if (c->swaps && !c->error)
			c->error = swap_log_promoted(c->swaps, ob, c->st->accesses, !overwrite);
		/* A write that fills the block cost no copy: nothing to repay. */
		c->unhit[from_cblock(cb)] = !overwrite;
		if (overwrite) {
			force_set_dirty(c, cb);
		} else {
			c->st->promotions++;
			force_clear_dirty(c, cb);
		}
		break;
	case POLICY_DEMOTE:
		c->st->demotions++;
		c->st->unused_promotions += c->unhit[from_cblock(cb)];
		c->unhit[from_cblock(cb)] = 0;
		/* A dirty block is written back as it is demoted. */
		if (c->dirty[from_cblock(cb)])
			c->st->writebacks++;
		force_clear_dirty(c, cb);
		policy_complete_background_work(c->p, op, true);
		if (c->swaps && !c->error)
			c->error = swap_log_demoted(c->swaps, ob, c->st->accesses);
		break;
	case POLICY_WRITEBACK:
		c->st->writebacks++;
		force_clear_dirty(c, cb);
		policy_complete_background_work(c->p, op, true);
		break;
	}
}

/* Keep @op in flight until the migration time has passed; -ENOMEM if no room. */
static int start_flight(struct core *c, struct policy_work *op)
{
	struct flight *f;

	if (c->last == c->room && c->first) {
		memmove(c->flights, c->flights + c->first,
			(c->last - c->first) * sizeof(*c->flights));
		c->last -= c->first;
		c->first = 0;
	}
	if (c->last == c->room) {
		size_t room = c->room ? 2 * c->room : 64;

		f = realloc(c->flights, room * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->flights = f;
		c->room = room;
	}
	c->flights[c->last++] = (struct flight){ op, c->now_us + c->cfg->migration_us };
	return 0;
}

/*
 * check_migrations(): start work until the policy has none, at most @max;
 * without a migration time each ends at once.  One that cannot be kept in
 * flight ends at once too (the tracker must be emptied), and fails the run.
 */
static unsigned int run_migrations(struct core *c, bool idle, unsigned int max)
{
	struct policy_work *op;
	unsigned int n = 0;

	while (n < max && !policy_get_background_work(c->p, idle, &op)) {
		if (!c->cfg->migration_us)
			complete_work(c, op, false);
		else if (start_flight(c, op)) {
			c->error = -ENOMEM;
			complete_work(c, op, false);
		}
		n++;
	}

	return n;
}

/* Move the model's clock, and the policy's jiffies with it, to @us. */
static void set_clock(struct core *c, uint64_t us)
{
	c->now_us = us;
	set_time(us);
}

/*
 * End the migrations due by @until_us, the clock at each one's end.  Each
 * end wakes the worker (mg_complete()), which starts whatever the policy
 * queued meanwhile; as busy, so that idle writebacks stay at the rate
 * run_waker_until() allows.  Callers move the clock on themselves.
 */
static void land_migrations(struct core *c, uint64_t until_us)
{
	struct flight f;

	while (c->first < c->last && c->flights[c->first].end_us <= until_us) {
		f = c->flights[c->first++];
		set_clock(c, f.end_us);
		complete_work(c, f.op, false);
		run_migrations(c, false, ~0u);
	}
}

/*
 * The waker runs every second: it ticks the policy and wakes the
 * migration worker (do_waker()).  Busy, the worker starts the work the
 * policy queued meanwhile: a whole-block write is looked up with
 * policy_lookup_with_work(), which reports only a promotion, so a
 * demotion or writeback queued for it waits for this wakeup (or for a
 * migration to end).  Once the device has seen no I/O for a second, the
 * worker lets the policy write back as fast as migration_threshold
 * allows (that many sectors of copies in flight).
 */
static void run_waker_until(struct core *c, uint64_t now_us)
{
	uint64_t conc = c->cfg->migration_threshold / c->cfg->block_sectors;
	uint64_t per_second = conc * (US_PER_S / (c->cfg->copy_us ? c->cfg->copy_us : 1));

	while (c->next_waker_us <= now_us) {
		land_migrations(c, c->next_waker_us);
		set_clock(c, c->next_waker_us);
		policy_tick(c->p, true);
		if (c->next_waker_us >= c->last_io_us + US_PER_S) {
			if (per_second)
				run_migrations(c, true, per_second);
		} else {
			run_migrations(c, false, ~0u);
		}
		c->next_waker_us += US_PER_S;
	}
	land_migrations(c, now_us);
	set_clock(c, now_us);
}

static void map_block(struct core *c, dm_oblock_t ob, bool write, bool whole)
{
	struct policy_work *op = NULL;
	dm_cblock_t cb;
	bool queued = false;
	int r;

	c->st->accesses++;
	c->st->lookups++;
	if (c->cfg->mode == MODE_WRITEBACK && write && whole) {
		r = policy_lookup_with_work(c->p, ob, &cb, WRITE, true, &op);
		if (r == -ENOENT && op) {
			/* The write itself fills the new cache block. */
			complete_work(c, op, true);
			c->st->write_hits++;
			count_hot(c->cfg, c->st, from_oblock(ob), true);
			return;
		}
	} else {
		r = policy_lookup(c->p, ob, &cb, write ? WRITE : READ, false, &queued);
	}

	count_hot(c->cfg, c->st, from_oblock(ob), r == 0);
	if (r == -ENOENT) {
		if (write)
			c->st->write_misses++;
		else
			c->st->read_misses++;
	} else if (r == 0) {
		c->unhit[from_cblock(cb)] = 0;
		if (write) {
			c->st->write_hits++;
			if (c->cfg->mode == MODE_WRITEBACK && !c->dirty[from_cblock(cb)]) {
				c->dirty[from_cblock(cb)] = 1;
				policy_set_dirty(c->p, cb);
			}
		} else {
			c->st->read_hits++;
		}
	} else {
		c->st->failed_work++;
	}

	if (queued)
		run_migrations(c, false, ~0u);
}

static int run_policy(const struct trace *t, const struct sim_config *cfg,
		      struct sim_stats *st, uint64_t window, double *hr, size_t nr_windows)
{
	const char *flavour = !strcmp(cfg->policy, "tree") ? "tree" : "ours";
	size_t before = harness_bytes_live;
	uint64_t origin_blocks = t->max_block + 1;
	struct core c = { .cfg = cfg, .st = st };
	struct swap_log swaps;
	uint64_t w_hits = 0, w_acc = 0;
	size_t i, w = 0;
	uint32_t b;
	int r = 0;

	set_time(0);
	c.p = harness_policy_create(flavour, "smq", to_cblock(cfg->cache_blocks),
				    origin_blocks * cfg->block_sectors, cfg->block_sectors);
	if (!c.p)
		return -ENOMEM;
	st->policy_bytes = harness_bytes_live - before;
	c.dirty = calloc(cfg->cache_blocks + 1, 1);
	c.unhit = calloc(cfg->cache_blocks + 1, 1);
	if (cfg->audit && !swap_log_init(&swaps, cfg->cache_blocks))
		c.swaps = &swaps;
	if (!c.dirty || !c.unhit || (cfg->audit && !c.swaps)) {
		r = -ENOMEM;
		goto out;
	}
	c.next_waker_us = US_PER_S;

	for (i = 0; i < t->nr_reqs; i++) {
		const struct request *rq = &t->reqs[i];
		uint64_t hits_before = st->read_hits + st->write_hits;
		uint64_t now_us = cfg->lead_us + rq->time_us;

		run_waker_until(&c, now_us);
		c.last_io_us = now_us;
		for (b = 0; b < rq->nr_blocks; b++)
			map_block(&c, to_oblock(rq->block + b), rq->write, rq->whole);

		if (++c.reqs_since_tick >= cfg->tick_every) {
			policy_tick(c.p, false);
			c.reqs_since_tick = 0;
		}

		if (hr) {
			w_hits += st->read_hits + st->write_hits - hits_before;
			w_acc += rq->nr_blocks;
			while (w_acc >= window && w < nr_windows) {
				hr[w++] = (double)w_hits / w_acc;
				w_hits = 0;
				w_acc = 0;
			}
		}
	}

	/* Migrations still in flight end: the tracker must be empty when the policy goes. */
	land_migrations(&c, UINT64_MAX);
	charge_dirty_left(st, c.dirty, cfg->cache_blocks);
	r = c.error;
	/*
	 * The target fails a bio whose lookup failed: an I/O error for the
	 * application, not an access that cost nothing.  No comparison holds.
	 */
	if (!r && st->failed_work)
		r = -EIO;
	if (!r && c.swaps)
		r = swap_log_settle(c.swaps, t, &st->audit);
out:
	dm_cache_policy_destroy(c.p);
	if (c.swaps)
		swap_log_free(c.swaps);
	free(c.flights);
	free(c.dirty);
	free(c.unhit);
	return r;
}

/*----------------------------------------------------------------*/

/* LRU: every miss is admitted (a promotion), the least recent block leaves. */
static int run_lru(const struct trace *t, const struct sim_config *cfg, struct sim_stats *st,
		   uint64_t window, double *hr, size_t nr_windows)
{
	struct hashmap map;
	uint32_t *prev, *next, head = UINT32_MAX, tail = UINT32_MAX, n = 0, slot;
	uint64_t *blk, w_hits = 0, w_acc = 0;
	uint64_t cap = cfg->cache_blocks;
	unsigned char *dirty, *unhit;
	size_t i, w = 0;
	uint32_t b;

	if (hashmap_init(&map, cap + 1))
		return -ENOMEM;
	prev = calloc(cap + 1, sizeof(*prev));
	next = calloc(cap + 1, sizeof(*next));
	blk = calloc(cap + 1, sizeof(*blk));
	dirty = calloc(cap + 1, 1);
	unhit = calloc(cap + 1, 1);
	if (!prev || !next || !blk || !dirty || !unhit)
		return -ENOMEM;

	for (i = 0; i < t->nr_reqs; i++) {
		const struct request *rq = &t->reqs[i];

		for (b = 0; b < rq->nr_blocks; b++) {
			uint64_t block = rq->block + b;
			uint32_t *v = hashmap_find(&map, block);
			bool hit = v != NULL;

			st->accesses++;
			w_acc++;
			count_hot(cfg, st, block, hit);
			if (hit) {
				slot = *v;
				/* unlink */
				if (prev[slot] != UINT32_MAX)
					next[prev[slot]] = next[slot];
				else
					head = next[slot];
				if (next[slot] != UINT32_MAX)
					prev[next[slot]] = prev[slot];
				else
					tail = prev[slot];
				unhit[slot] = 0;
				w_hits++;
				if (rq->write)
					st->write_hits++;
				else
					st->read_hits++;
			} else {
				if (rq->write)
					st->write_misses++;
				else
					st->read_misses++;
				if (!cap)
					continue;
				st->promotions++;
				if (n < cap) {
					slot = n++;
				} else {
					slot = head;
					head = next[slot];
					if (head != UINT32_MAX)
						prev[head] = UINT32_MAX;
					else
						tail = UINT32_MAX;
					hashmap_remove(&map, blk[slot]);
					st->demotions++;
					st->unused_promotions += unhit[slot];
					if (dirty[slot])
						st->writebacks++;
				}
				blk[slot] = block;
				dirty[slot] = 0;
				unhit[slot] = 1;
				hashmap_insert(&map, block, slot);
			}
			if (rq->write && cfg->mode == MODE_WRITEBACK)
				dirty[slot] = 1;
			/* append as most recent */
			prev[slot] = tail;
			next[slot] = UINT32_MAX;
			if (tail != UINT32_MAX)
				next[tail] = slot;
			else
				head = slot;
			tail = slot;
		}
		if (hr)
			while (w_acc >= window && w < nr_windows) {
				hr[w++] = (double)w_hits / w_acc;
				w_hits = 0;
				w_acc = 0;
			}
	}

	charge_dirty_left(st, dirty, n);
	hashmap_free(&map);
	free(prev);
	free(next);
	free(blk);
	free(dirty);
	free(unhit);
	return 0;
}

/*----------------------------------------------------------------*/

/*
 * Belady's OPT with bypass: on a miss with the cache full, the block whose
 * next use is farthest leaves, and that may be the missed block itself
 * (not admitted).  Admissions count as promotions.  A max-heap of next
 * uses with lazy deletion finds the farthest.
 */
struct heap_item {
	uint64_t next_use;
	uint32_t id;
};

static void heap_push(struct heap_item *h, size_t *n, struct heap_item it)
{
	size_t i = (*n)++;

	while (i) {
		size_t parent = (i - 1) / 2;

		if (h[parent].next_use >= it.next_use)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = it;
}

static struct heap_item heap_pop(struct heap_item *h, size_t *n)
{
	struct heap_item top = h[0], last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint64_t mv = last.next_use;

		if (l < *n && h[l].next_use > mv) {
			m = l;
			mv = h[l].next_use;
		}
		if (r < *n && h[r].next_use > mv)
			m = r;
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n)
		h[i] = last;
	return top;
}

static int run_opt(const struct trace *t, const struct sim_config *cfg, struct sim_stats *st,
		   uint64_t window, double *hr, size_t nr_windows)
{
	uint64_t n = t->nr_accesses, k = 0, cap = cfg->cache_blocks, in_cache = 0;
	uint64_t never = UINT64_MAX, w_hits = 0, w_acc = 0;
	uint32_t *ids = malloc(n * sizeof(*ids));
	uint64_t *next_use = malloc(n * sizeof(*next_use));
	uint64_t *cached_next;		/* per id: next use while cached, 0 if not */
	uint64_t *last_seen;
	struct heap_item *heap;
	size_t heap_n = 0, i, w = 0;
	struct hashmap map;
	uint32_t nr_ids = 0, b;
	unsigned char *dirty, *unhit;

	if (!ids || !next_use || hashmap_init(&map, t->footprint + 1))
		return -ENOMEM;

	for (i = 0; i < t->nr_reqs; i++)
		for (b = 0; b < t->reqs[i].nr_blocks; b++) {
			uint64_t block = t->reqs[i].block + b;
			uint32_t *v = hashmap_find(&map, block);

			if (!v) {
				hashmap_insert(&map, block, nr_ids);
				ids[k++] = nr_ids++;
			} else {
				ids[k++] = *v;
			}
		}
	hashmap_free(&map);

	last_seen = malloc(nr_ids * sizeof(*last_seen));
	cached_next = calloc(nr_ids, sizeof(*cached_next));
	dirty = calloc(nr_ids, 1);
	unhit = calloc(nr_ids, 1);
	heap = malloc((n + 1) * sizeof(*heap));
	if (!last_seen || !cached_next || !heap || !dirty || !unhit)
		return -ENOMEM;
	for (i = 0; i < nr_ids; i++)
		last_seen[i] = never;
	for (k = n; k-- > 0;) {
		next_use[k] = last_seen[ids[k]];
		last_seen[ids[k]] = k;
	}

	k = 0;
	for (i = 0; i < t->nr_reqs; i++) {
		const struct request *rq = &t->reqs[i];

		for (b = 0; b < rq->nr_blocks; b++, k++) {
			uint32_t id = ids[k];
			uint64_t nu = next_use[k] == never ? never - 1 : next_use[k];

			st->accesses++;
			w_acc++;
			count_hot(cfg, st, rq->block + b, cached_next[id]);
			if (cached_next[id]) {
				unhit[id] = 0;
				w_hits++;
				if (rq->write)
					st->write_hits++;
				else
					st->read_hits++;
				cached_next[id] = nu + 1;
				heap_push(heap, &heap_n, (struct heap_item){ nu + 1, id });
			} else {
				if (rq->write)
					st->write_misses++;
				else
					st->read_misses++;
				if (!cap || next_use[k] == never)
					continue;	/* never used again: bypass */
				if (in_cache == cap) {
					struct heap_item top;

					/* drop stale heap items */
					while (heap_n && cached_next[heap[0].id] != heap[0].next_use)
						heap_pop(heap, &heap_n);
					if (!heap_n || heap[0].next_use <= nu + 1)
						continue;	/* bypass */
					top = heap_pop(heap, &heap_n);
					cached_next[top.id] = 0;
					st->demotions++;
					st->unused_promotions += unhit[top.id];
					if (dirty[top.id])
						st->writebacks++;
					dirty[top.id] = 0;
					in_cache--;
				}
				st->promotions++;
				unhit[id] = 1;
				in_cache++;
				cached_next[id] = nu + 1;
				heap_push(heap, &heap_n, (struct heap_item){ nu + 1, id });
			}
			if (rq->write && cfg->mode == MODE_WRITEBACK && cached_next[id])
				dirty[id] = 1;
		}
		if (hr)
			while (w_acc >= window && w < nr_windows) {
				hr[w++] = (double)w_hits / w_acc;
				w_hits = 0;
				w_acc = 0;
			}
	}

	charge_dirty_left(st, dirty, nr_ids);
	free(ids);
	free(next_use);
	free(last_seen);
	free(cached_next);
	free(heap);
	free(dirty);
	free(unhit);
	return 0;
}

/*----------------------------------------------------------------*/

int sim_run_windows(const struct trace *t, const struct sim_config *cfg, uint64_t window,
		    double *hit_ratios, size_t nr_windows, struct sim_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(cfg->policy, "lru"))
		return run_lru(t, cfg, out, window, hit_ratios, nr_windows);
	if (!strcmp(cfg->policy, "opt"))
		return run_opt(t, cfg, out, window, hit_ratios, nr_windows);
	if (!strcmp(cfg->policy, "ours") || !strcmp(cfg->policy, "tree"))
		return run_policy(t, cfg, out, window, hit_ratios, nr_windows);
	return -EINVAL;
}

int sim_run(const struct trace *t, const struct sim_config *cfg, struct sim_stats *out)
{
	return sim_run_windows(t, cfg, 1, NULL, 0, out);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Read blocks @first to @first + @n - 1 once each, every promotion or
 * demotion completed at once, a jiffy passing every 64 lookups and a tick
 * every 4,096; returns the longest tick, in ms.
 */
static double read_ticking(struct dm_cache_policy *p, uint64_t first, uint64_t n)
{
	struct policy_work *w;
	double t, longest = 0;
	dm_cblock_t cb;
	uint64_t b;
	bool queued;

	for (b = first; b < first + n; b++) {
		if (b % 64 == 0)
			jiffies++;
		policy_lookup(p, to_oblock(b), &cb, READ, false, &queued);
		while (!policy_get_background_work(p, false, &w))
			policy_complete_background_work(p, w, true);
		if (b % 4096 == 0) {
			t = now_ms();
			policy_tick(p, false);
			t = now_ms() - t;
			longest = t > longest ? t : longest;
		}
	}
	return longest;
}

/*
 * The longest tick of the @flavour smq with a cache of @nr blocks, which
 * rebalances its queues under its lock (interrupts off in the kernel),
 * over two runs of 3 * @nr reads of distinct blocks, long enough for the
 * periods of either policy to end: into an empty cache, which fills; and
 * into one activated with every block mapped, each with a hint of level
 * 0, where all of them are out of place.
 */
int sim_longest_tick(const char *flavour, uint64_t nr, double *ms)
{
	struct dm_cache_policy *p;
	uint64_t b, first;
	double t;
	bool full;

	*ms = 0;
	for (full = false; ; full = true) {
		set_time(0);
		p = harness_policy_create(flavour, "smq", to_cblock(nr), 8 * nr * 8, 8);
		if (!p)
			return -ENOMEM;
		first = full ? nr : 0;
		for (b = 0; b < first; b++)
			if (policy_load_mapping(p, to_oblock(b), to_cblock(b), false, 0, true)) {
				dm_cache_policy_destroy(p);
				return -EINVAL;
			}
		t = read_ticking(p, first, 3 * nr);
		*ms = t > *ms ? t : *ms;
		dm_cache_policy_destroy(p);
		if (full)
			return 0;
	}
}
