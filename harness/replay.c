// SPDX-License-Identifier: GPL-2.0
/*
 * replay: play traces against our smq, the tree's smq, LRU and OPT.
 *
 *   replay [options] TRACE|gen:SPEC ...
 *
 * Prints, per trace, cache size and policy: miss ratio, slow-device I/O
 * per access ((misses + promotions + writebacks) / accesses), promotions,
 * demotions and writebacks; with --data, one machine-readable line each.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "sim.h"
#include "trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: replay [options] TRACE|gen:SPEC ...\n"
		"  --policies LIST       ours,tree,lru,opt (default: all four), and bound:\n"
		"                        a floor under any policy's slow-device I/O, and\n"
		"                        the cost of the best clairvoyant plan found\n"
		"  --sizes LIST          cache sizes in %% of the footprint (default 1,5,10,25)\n"
		"  --cache-blocks N      one cache size in blocks instead\n"
		"  --cache-bytes N[KMGT] one cache size in bytes instead\n"
		"  --block-bytes N[KMG]  cache block size for byte-addressed traces (4096)\n"
		"  --format F            vscsi, u32, arc, lirs, msr, systor, tencent, blkparse\n"
		"  --rate R              requests per second for traces without time (1000)\n"
		"  --volume V            Tencent CBS volume to replay (default: the first)\n"
		"  --max-requests N      read at most N requests of each trace\n"
		"  --tick-every N        requests per tick bio (1)\n"
		"  --mode M              writeback or writethrough (writeback)\n"
		"  --migration-threshold S  sectors, as the cache target's (2048)\n"
		"  --copy-us U           time one block copy takes (1000)\n"
		"  --lead-us U           time from the cache's creation to the first request (0)\n"
		"  --migration-us U      time from a migration's start to its end, at most an\n"
		"                        hour (0: it ends before the next request); ours and\n"
		"                        tree only\n"
		"  --windows N           also print the hit ratio over N windows\n"
		"  --gen-requests N, --gen-blocks N, --seed S   for gen:uniform, gen:zipf:THETA,\n"
		"                        gen:scan:FRACTION[:BIOS], gen:shift\n"
		"  --policy-seed S       seed of the random numbers the policies draw (0)\n"
		"  --data                machine-readable DATA lines\n"
		"  --memory N            print the policies' memory per block at N cache blocks\n"
		"  --longest-tick N      print the longest tick of each policy (ms) while a\n"
		"                        cache of N blocks fills, and reading on from full\n"
		"  --hot-below N         also print the hit ratio of blocks below N (the hot set)\n"
		"  --audit               also print what ours' and tree's promotions into a\n"
		"                        full cache bought (SWAPS: swaps, those that paid,\n"
		"                        the promoted blocks' hits until demoted, the\n"
		"                        demoted blocks' accesses over the same spans, copies)\n"
		"  --export FILE         write the (one) trace's requests to FILE for the\n"
		"                        guest's blkreplay, and replay nothing\n"
		"  -v                    show the policies' kernel messages\n");
}

/* What @policy's swaps bought, as --audit prints it (see audit.c). */
static void print_swaps(const char *trace, const char *label, const char *policy,
			const struct swap_audit *a)
{
	printf("SWAPS %s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       trace, label, policy, a->swaps, a->paid, a->winner_hits, a->victim_hits,
	       a->copies);
}

/*
 * The floor under any policy's slow-device I/O and the cost of the best
 * clairvoyant plan found, in rows of their own.
 */
static int print_bound(const struct trace *t, const char *label, uint64_t cache_blocks,
		       bool data)
{
	double lower, upper;
	int r = sim_slow_io_bound(t, cache_blocks, &lower, &upper);

	if (r) {
		fprintf(stderr, "replay: bound on %s: %s\n", t->name, strerror(-r));
		return r;
	}
	if (data) {
		printf("BOUND %s %s %" PRIu64 " %.6f %.6f\n", t->name, label, cache_blocks, lower,
		       upper);
		return 0;
	}
	printf("%-8s %-6s %10" PRIu64 " %10s %10.4f\n", label, "bound", cache_blocks, "-", lower);
	printf("%-8s %-6s %10" PRIu64 " %10s %10.4f\n", label, "plan", cache_blocks, "-", upper);
	return 0;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case 0: break;
	default:
		fprintf(stderr, "bad size '%s'\n", s);
		exit(2);
	}
	if (*end && strcmp(end, "iB") && strcmp(end, "B")) {
		fprintf(stderr, "bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

/*
 * Memory per cache block of each policy, as allocated at creation, plus the
 * most background work its tracker may hold: origin 16 times the cache,
 * 4 KiB blocks.
 */
static int print_memory(uint64_t nr)
{
	static const char *const flavours[] = { "ours", "tree" };
	unsigned int i;

	if (harness_init_flavours())
		return 1;
	for (i = 0; i < 2; i++) {
		size_t before = harness_bytes_live, bytes;
		struct dm_cache_policy *p = harness_policy_create(flavours[i], "smq", to_cblock(nr),
								  16 * nr * 8, 8);

		if (!p) {
			fprintf(stderr, "replay: cannot create %s with %" PRIu64 " blocks\n",
				flavours[i], nr);
			return 1;
		}
		bytes = harness_bytes_live - before +
			(size_t)harness_btracker_max_work * sizeof(struct bt_work);
		printf("MEMORY %s %" PRIu64 " %zu %.2f\n", flavours[i], nr, bytes, (double)bytes / nr);
		dm_cache_policy_destroy(p);
	}
	return 0;
}

/* The longest tick of each policy with a cache of @nr blocks: see sim_longest_tick(). */
static int print_longest_tick(uint64_t nr)
{
	static const char *const flavours[] = { "ours", "tree" };
	unsigned int i;
	double ms;

	if (harness_init_flavours())
		return 1;
	for (i = 0; i < 2; i++) {
		int r = sim_longest_tick(flavours[i], nr, &ms);

		if (r) {
			fprintf(stderr, "replay: %s with %" PRIu64 " blocks: %s\n", flavours[i], nr,
				strerror(-r));
			return 1;
		}
		printf("TICK %s %" PRIu64 " %.3f\n", flavours[i], nr, ms);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policies", 1, 0, 'p' }, { "sizes", 1, 0, 's' }, { "cache-blocks", 1, 0, 'c' },
		{ "cache-bytes", 1, 0, 'C' }, { "block-bytes", 1, 0, 'b' }, { "format", 1, 0, 'f' },
		{ "rate", 1, 0, 'r' }, { "volume", 1, 0, 'V' }, { "max-requests", 1, 0, 'n' },
		{ "tick-every", 1, 0, 't' }, { "mode", 1, 0, 'm' },
		{ "migration-threshold", 1, 0, 'M' }, { "copy-us", 1, 0, 'u' },
		{ "windows", 1, 0, 'w' }, { "gen-requests", 1, 0, 'R' }, { "gen-blocks", 1, 0, 'B' },
		{ "seed", 1, 0, 'S' }, { "data", 0, 0, 'd' }, { "memory", 1, 0, 'Y' },
		{ "longest-tick", 1, 0, 'K' }, { "hot-below", 1, 0, 'H' }, { "audit", 0, 0, 'A' },
		{ "export", 1, 0, 'E' }, { "lead-us", 1, 0, 'L' }, { "migration-us", 1, 0, 'G' },
		{ "policy-seed", 1, 0, 'P' }, { "help", 0, 0, 'h' }, { 0 }
	};
	struct load_opts lo = { .block_bytes = 4096, .rate = 1000, .volume = -1,
				.gen_requests = 2000000, .gen_blocks = 200000 };
	struct sim_config cfg = { .block_sectors = 8, .mode = MODE_WRITEBACK,
				  .migration_threshold = 2048, .copy_us = 1000, .tick_every = 1 };
	const char *policies = "ours,tree,lru,opt", *sizes = "1,5,10,25", *export = NULL;
	uint64_t cache_blocks = 0, cache_bytes = 0, nr_windows = 0, memory_blocks = 0;
	uint64_t tick_blocks = 0;
	bool data = false;
	int c, i;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': policies = optarg; break;
		case 's': sizes = optarg; break;
		case 'c': cache_blocks = strtoull(optarg, NULL, 10); break;
		case 'C': cache_bytes = parse_size(optarg); break;
		case 'b': lo.block_bytes = parse_size(optarg); break;
		case 'f': lo.format = optarg; break;
		case 'r': lo.rate = strtod(optarg, NULL); break;
		case 'V': lo.volume = strtoll(optarg, NULL, 10); break;
		case 'n': lo.max_reqs = strtoull(optarg, NULL, 10); break;
		case 't': cfg.tick_every = strtoul(optarg, NULL, 10); break;
		case 'm':
			if (!strcmp(optarg, "writeback"))
				cfg.mode = MODE_WRITEBACK;
			else if (!strcmp(optarg, "writethrough"))
				cfg.mode = MODE_WRITETHROUGH;
			else {
				fprintf(stderr, "bad mode '%s'\n", optarg);
				return 2;
			}
			break;
		case 'M': cfg.migration_threshold = strtoull(optarg, NULL, 10); break;
		case 'u': cfg.copy_us = strtoul(optarg, NULL, 10); break;
		case 'L': cfg.lead_us = strtoull(optarg, NULL, 10); break;
		case 'G':
			cfg.migration_us = strtoull(optarg, NULL, 10);
			if (cfg.migration_us > 3600ull * 1000000) {
				fprintf(stderr, "--migration-us %s: more than an hour\n", optarg);
				return 2;
			}
			break;
		case 'w': nr_windows = strtoull(optarg, NULL, 10); break;
		case 'R': lo.gen_requests = strtoull(optarg, NULL, 10); break;
		case 'B': lo.gen_blocks = strtoull(optarg, NULL, 10); break;
		case 'S': lo.seed = strtoull(optarg, NULL, 10); break;
		case 'd': data = true; break;
		case 'Y': memory_blocks = strtoull(optarg, NULL, 10); break;
		case 'K': tick_blocks = strtoull(optarg, NULL, 10); break;
		case 'H': cfg.hot_below = strtoull(optarg, NULL, 10); break;
		case 'A': cfg.audit = true; break;
		case 'E': export = optarg; break;
		case 'P': harness_random_seed = strtoull(optarg, NULL, 0); break;
		case 'v': harness_verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (memory_blocks)
		return print_memory(memory_blocks);
	if (tick_blocks)
		return print_longest_tick(tick_blocks);
	if (optind == argc || (export && optind + 1 != argc) || lo.block_bytes < 512 ||
	    lo.block_bytes % 512 || lo.rate <= 0 || !cfg.tick_every) {
		usage(stderr);
		return 2;
	}
	cfg.block_sectors = lo.block_bytes / 512;
	if (harness_init_flavours()) {
		fprintf(stderr, "policy registration failed\n");
		return 1;
	}

	for (i = optind; i < argc; i++) {
		char err[512], *list, *tok, *save, *plist, *ptok, *psave;
		struct trace t;
		int r = strncmp(argv[i], "gen:", 4) ?
			trace_load(&t, argv[i], &lo, err, sizeof(err)) :
			trace_generate(&t, argv[i] + 4, &lo, err, sizeof(err));

		if (r) {
			fprintf(stderr, "replay: %s\n", err);
			return 1;
		}
		printf("# %s: %zu requests, %" PRIu64 " block accesses, footprint %" PRIu64
		       " blocks, origin %" PRIu64 " blocks%s\n", t.name, t.nr_reqs, t.nr_accesses,
		       t.footprint, t.max_block + 1, t.has_time ? ", timed" : "");
		if (export) {
			r = trace_export(&t, export);
			if (r)
				fprintf(stderr, "replay: %s: %s\n", export, strerror(-r));
			trace_free(&t);
			return r ? 1 : 0;
		}
		if (!data)
			printf("%-8s %-6s %10s %10s %10s %10s %10s %10s %10s\n", "size", "policy",
			       "blocks", "miss", "slow_io", "promote", "demote", "writeback", "unused");

		list = strdup(cache_blocks || cache_bytes ? "x" : sizes);
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char label[32];

			if (cache_blocks) {
				cfg.cache_blocks = cache_blocks;
				snprintf(label, sizeof(label), "%" PRIu64, cache_blocks);
			} else if (cache_bytes) {
				cfg.cache_blocks = cache_bytes / lo.block_bytes;
				snprintf(label, sizeof(label), "%" PRIu64 "B", cache_bytes);
			} else {
				cfg.cache_blocks = t.footprint * strtod(tok, NULL) / 100;
				snprintf(label, sizeof(label), "%spct", tok);
			}
			if (!cfg.cache_blocks)
				cfg.cache_blocks = 1;

			plist = strdup(policies);
			for (ptok = strtok_r(plist, ",", &psave); ptok; ptok = strtok_r(NULL, ",", &psave)) {
				struct sim_stats st;
				uint64_t win = nr_windows ? t.nr_accesses / nr_windows : 1;
				double *hr;

				if (!strcmp(ptok, "bound")) {
					r = print_bound(&t, label, cfg.cache_blocks, data);
					if (r)
						return 1;
					continue;
				}
				hr = nr_windows ? calloc(nr_windows, sizeof(*hr)) : NULL;
				cfg.policy = ptok;
				r = sim_run_windows(&t, &cfg, win ? win : 1, hr, nr_windows, &st);
				if (r) {
					fprintf(stderr, "replay: %s on %s: %s\n", ptok, t.name, strerror(-r));
					return 1;
				}
				if (data)
					printf("DATA %s %s %s %" PRIu64 " %.6f %.6f %" PRIu64 " %" PRIu64
					       " %" PRIu64 " %zu %" PRIu64 " %" PRIu64 "\n", t.name, label,
					       ptok, cfg.cache_blocks, sim_miss_ratio(&st),
					       sim_slow_io_per_access(&st), st.promotions, st.demotions,
					       st.writebacks, st.policy_bytes, st.lookups,
					       st.unused_promotions);
				else
					printf("%-8s %-6s %10" PRIu64 " %10.4f %10.4f %10" PRIu64 " %10" PRIu64
					       " %10" PRIu64 " %10" PRIu64 "\n", label, ptok, cfg.cache_blocks,
					       sim_miss_ratio(&st), sim_slow_io_per_access(&st),
					       st.promotions, st.demotions, st.writebacks,
					       st.unused_promotions);
				if (cfg.audit && (!strcmp(ptok, "ours") || !strcmp(ptok, "tree")))
					print_swaps(t.name, label, ptok, &st.audit);
				if (cfg.hot_below)
					printf("HOT %s %s %s %" PRIu64 " %.6f\n", t.name, label, ptok,
					       st.hot_accesses,
					       st.hot_accesses ? (double)st.hot_hits / st.hot_accesses : 0);
				if (hr) {
					uint64_t w;

					printf("WINDOWS %s %s %s", t.name, label, ptok);
					for (w = 0; w < nr_windows; w++)
						printf(" %.4f", hr[w]);
					printf("\n");
					free(hr);
				}
				fflush(stdout);
			}
			free(plist);
		}
		free(list);
		trace_free(&t);
	}
	return 0;
}
