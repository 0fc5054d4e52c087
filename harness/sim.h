/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache-policy lab's model of dm-cache: requests split into cache
 * blocks, looked up in a policy, background work run the way the target
 * runs it, and the I/O each policy leaves to the slow device counted.
 */
#ifndef HARNESS_SIM_H
#define HARNESS_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* One request of a trace, in cache blocks. */
struct request {
	uint64_t block;		/* first cache block */
	uint32_t nr_blocks;
	bool write;
	bool whole;		/* covers its blocks entirely (a whole-block write) */
	uint64_t time_us;	/* since the start of the trace */
};

/* A trace held in memory, requests already in cache blocks. */
struct trace {
	char *name;
	struct request *reqs;
	size_t nr_reqs;
	size_t cap;
	uint64_t nr_accesses;	/* block accesses: sum of nr_blocks */
	uint64_t max_block;
	uint64_t footprint;	/* distinct blocks */
	bool has_time;
};

enum cache_mode {
	MODE_WRITEBACK,
	MODE_WRITETHROUGH,
};

struct sim_config {
	const char *policy;		/* ours, tree, lru, opt */
	uint64_t cache_blocks;
	unsigned int block_sectors;
	enum cache_mode mode;
	uint64_t migration_threshold;	/* sectors, as the target's table argument */
	unsigned int copy_us;		/* time one block copy takes */
	unsigned int tick_every;	/* requests per tick bio completing */
	uint64_t lead_us;		/* from the cache's creation to its first request */
	uint64_t migration_us;		/* from a migration's start to its end; 0: at once */
	uint64_t hot_below;		/* blocks below this are the hot set; 0: none */
	bool audit;			/* settle the swaps of ours or tree (audit.c) */
};

/*
 * What the promotions into a full cache bought (see audit.c): @swaps of
 * them, @paid of which got more hits than their victims would have plus
 * their copy; @winner_hits and @victim_hits summed over all, and @copies.
 */
struct swap_audit {
	uint64_t swaps, paid;
	uint64_t winner_hits, victim_hits;
	uint64_t copies;
};

struct sim_stats {
	uint64_t accesses;
	uint64_t read_hits, read_misses;
	uint64_t write_hits, write_misses;
	uint64_t promotions, demotions;
	uint64_t writebacks;		/* dirty_left included */
	uint64_t dirty_left;		/* dirty at the end, charged a writeback each */
	uint64_t unused_promotions;	/* demoted before a single hit */
	uint64_t failed_work;		/* lookups that failed: sim_run() fails */
	uint64_t lookups;
	uint64_t hot_accesses, hot_hits;	/* of blocks below hot_below */
	size_t policy_bytes;		/* allocated by the policy at creation */
	struct swap_audit audit;	/* with sim_config.audit, ours and tree only */
};

static inline uint64_t sim_misses(const struct sim_stats *s)
{
	return s->read_misses + s->write_misses;
}

double sim_miss_ratio(const struct sim_stats *s);
double sim_slow_io_per_access(const struct sim_stats *s);

/* Replay @t with @cfg; 0 or -errno. */
int sim_run(const struct trace *t, const struct sim_config *cfg, struct sim_stats *out);

/* Replay @t, sampling the hit ratio over windows of @window accesses. */
int sim_run_windows(const struct trace *t, const struct sim_config *cfg, uint64_t window,
		    double *hit_ratios, size_t nr_windows, struct sim_stats *out);

/*
 * The slow-device I/O per access (misses + promotions) of the best policy
 * that promotes a block only when it is accessed, with @cache_blocks
 * blocks, bracketed (bound.c): no policy, however clairvoyant, gets below
 * @lower; one that knows the future gets @upper.  0 or -errno.
 */
int sim_slow_io_bound(const struct trace *t, uint64_t cache_blocks, double *lower,
		      double *upper);

/* Building traces (trace.c). */
void trace_init(struct trace *t, const char *name);
void trace_add(struct trace *t, uint64_t block, uint32_t nr_blocks, bool write, bool whole,
	       uint64_t time_us);
void trace_finish(struct trace *t);
void trace_free(struct trace *t);

/* The longest tick (ms) of the @flavour smq with a cache of @nr blocks. */
int sim_longest_tick(const char *flavour, uint64_t nr, double *ms);

#endif
