// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: random operation sequences against our smq policy,
 * played as the cache target would play them, with the policy's
 * invariants checked after every operation.
 *
 * The kernel file is included, not copied, so that the checks can see
 * its internals; it is compiled unmodified.
 */
#define HARNESS_INIT fuzz_policy_init
#define HARNESS_EXIT fuzz_policy_exit
#include "../kernel/drivers/md/dm-cache-policy-smq.c"

#include <stdio.h>
#include <stdlib.h>

#define MAX_CBLOCKS 64
#define MAX_OBLOCKS 512
#define MAX_WORK 64

struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned int next_byte(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static unsigned int next_u16(struct input *in)
{
	return next_byte(in) | next_byte(in) << 8;
}

#define CHECK(cond, ...) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "invariant broken: %s: ", #cond);		\
		fprintf(stderr, __VA_ARGS__);					\
		fprintf(stderr, "\n");						\
		abort();							\
	}									\
} while (0)

/* What the target knows: its mappings, dirty bits and migrations in flight. */
struct target {
	struct smq_policy *mq;
	int64_t mapped[MAX_CBLOCKS];	/* oblock, or -1 */
	bool dirty[MAX_CBLOCKS];
	struct policy_work *issued[MAX_WORK];
	bool cleaned[MAX_WORK];		/* copied and marked clean, not yet completed */
	unsigned int nr_issued;
	unsigned int nr_cblocks;
	bool wide;
	bool migrations;		/* promotions and demotions allowed */
	bool looked_up[MAX_OBLOCKS];	/* by the input's block number */
};

/* The target of the input being run, for the check on queued work below. */
static const struct target *running;

int __real_btracker_queue(struct background_tracker *b, struct policy_work *work,
			  struct policy_work **pwork);

/*
 * Every piece of work the policy queues passes here (the Makefile links
 * the fuzzer with --wrap=btracker_queue): with migrations off, by any path
 * (lookups with and without work, ticks, background work), only
 * writebacks.
 */
int __wrap_btracker_queue(struct background_tracker *b, struct policy_work *work,
			  struct policy_work **pwork)
{
	CHECK(running && running->mq && b == running->mq->bg_work, "work queued outside a run");
	CHECK(running->migrations || work->op == POLICY_WRITEBACK,
	      "op %d queued with migrations off", work->op);
	return __real_btracker_queue(b, work, pwork);
}

/*
 * The origin block of the input's block @ob.  A wide origin (more than
 * 2^32 blocks) spreads the input's blocks over four stretches 2^36 apart,
 * so that blocks, and hotspot blocks, share their low 32 bits.
 */
static u64 to_origin(const struct target *t, unsigned int ob)
{
	return t->wide ? (u64)(ob % 4u) << 36 | ob / 4u : ob;
}

/* The input's block number of origin block @b; MAX_OBLOCKS or more if none. */
static u64 from_origin(const struct target *t, u64 b)
{
	return t->wide ? (b & ((1ull << 36) - 1)) * 4u + (b >> 36) : b;
}

static unsigned int count_list(struct smq_queue *q, unsigned int level, unsigned char *seen,
			       unsigned int tag)
{
	struct smq_entry *e;
	unsigned int n = 0, steps = 0;

	for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e)) {
		unsigned int i = to_index(q->es, e);

		CHECK(++steps <= q->es->nr_entries, "cycle in level %u", level);
		CHECK(e->level == level, "entry %u in list %u has level %u", i, level, e->level);
		if (e_is_sentinel(q->es, e))
			continue;
		CHECK(!seen[i], "entry %u in two lists", i);
		seen[i] = tag;
		n++;
	}
	return n;
}

static void check_queue(struct smq_queue *q, unsigned char *seen, unsigned int tag)
{
	unsigned int level, total = 0, n;

	for (level = 0; level < q->nr_levels; level++) {
		n = count_list(q, level, seen, tag);
		CHECK(n == q->qs[level].nr_elts, "level %u counts %u, holds %u", level,
		      q->qs[level].nr_elts, n);
		CHECK(!!(q->populated & BIT_ULL(level)) == !!n, "level %u holds %u, populated bit %d",
		      level, n, !!(q->populated & BIT_ULL(level)));
		total += n;
	}
	CHECK(total == q->nr_elts, "queue counts %u, holds %u", q->nr_elts, total);
}

/*
 * Each level of a cache queue holds its own two sentinels and no other,
 * the older set's ahead of the newer's (see requeue_sentinels()): the
 * bands entries are put in by hits and redistributions lie between them.
 */
static void check_sentinels(struct smq_queue *q, struct smq_alloc *ea)
{
	struct smq_entry *e, *older, *newer;
	unsigned int level, pos, older_at, newer_at;

	for (level = 0; level < q->nr_levels; level++) {
		older = get_sentinel(ea, level, !q->newer_sentinels);
		newer = get_sentinel(ea, level, q->newer_sentinels);
		older_at = newer_at = ~0u;
		pos = 0;
		for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e), pos++) {
			if (!e_is_sentinel(q->es, e))
				continue;
			CHECK(e == older || e == newer, "level %u holds a sentinel of another level or queue",
			      level);
			if (e == older)
				older_at = pos;
			else
				newer_at = pos;
		}
		CHECK(older_at != ~0u && newer_at != ~0u, "level %u lacks a sentinel", level);
		CHECK(older_at < newer_at, "level %u: the newer sentinel is ahead of the older", level);
	}
}

static void check_invariants(struct target *t)
{
	struct smq_policy *mq = t->mq;
	unsigned int i, j, allocated = 0, nr = mq->es.nr_entries;
	unsigned char *seen = calloc(nr, 1);

	check_queue(&mq->clean, seen, 1);
	check_queue(&mq->dirty, seen, 2);
	check_queue(&mq->hotspot, seen, 3);
	check_sentinels(&mq->dirty, &mq->writeback_sentinel_alloc);
	check_sentinels(&mq->clean, &mq->demote_sentinel_alloc);

	for (i = 0; i < t->nr_cblocks; i++) {
		struct smq_entry *e = get_entry(&mq->cache_alloc, i);
		unsigned int idx = to_index(&mq->es, e);

		if (!e->allocated) {
			CHECK(!seen[idx], "free cache block %u is queued", i);
			CHECK(t->mapped[i] < 0, "cache block %u mapped by the target, free in the policy", i);
			continue;
		}
		allocated++;
		if (e->pending_work)
			CHECK(!seen[idx], "cache block %u with work pending is queued", i);
		else
			CHECK(seen[idx] == (e->dirty ? 2 : 1), "cache block %u (dirty %d) not in its queue",
			      i, e->dirty);
		if (e->hashed) {
			CHECK(h_lookup(&mq->table, e_block(&mq->es, e)) == e,
			      "cache block %u not found by its oblock", i);
		}
		/* only work in flight holds a block that maps nothing */
		CHECK(e->pending_work || e->hashed, "cache block %u in use, unmapped, no work", i);
		if (t->mapped[i] >= 0) {
			CHECK(e->hashed && e_block(&mq->es, e) == (u64)t->mapped[i],
			      "cache block %u: target maps oblock %lld, policy %llu (hashed %d)", i,
			      (long long)t->mapped[i], (unsigned long long)e_block(&mq->es, e), e->hashed);
			CHECK(e->dirty == t->dirty[i], "cache block %u dirty %d, target says %d", i,
			      e->dirty, t->dirty[i]);
		}
	}
	CHECK(allocated == mq->cache_alloc.nr_allocated, "allocator counts %u, %u allocated",
	      mq->cache_alloc.nr_allocated, allocated);
	CHECK(allocated == from_cblock(smq_residency(&mq->policy)), "residency");

	/* no oblock mapped twice */
	for (i = 0; i < t->nr_cblocks; i++)
		for (j = i + 1; j < t->nr_cblocks; j++)
			if (get_entry(&mq->cache_alloc, i)->hashed && get_entry(&mq->cache_alloc, j)->hashed)
				CHECK(e_block(&mq->es, get_entry(&mq->cache_alloc, i)) !=
				      e_block(&mq->es, get_entry(&mq->cache_alloc, j)),
				      "oblock mapped by cache blocks %u and %u", i, j);

	/* one winner waits for each demotion queued or running, no more */
	CHECK(mq->nr_heirs <= btracker_nr_demotions_queued(mq->bg_work),
	      "%u winners wait for %u demotions", mq->nr_heirs,
	      btracker_nr_demotions_queued(mq->bg_work));

	/* background work never holds a block twice */
	for (i = 0; i < t->nr_issued; i++)
		for (j = i + 1; j < t->nr_issued; j++) {
			CHECK(t->issued[i]->cblock != t->issued[j]->cblock, "cblock issued twice");
			CHECK(t->issued[i]->oblock != t->issued[j]->oblock, "oblock issued twice");
		}

	for (i = 0; i < mq->nr_hotspot_blocks; i++) {
		struct smq_entry *e = get_entry(&mq->hotspot_alloc, i);

		if (e->allocated)
			CHECK(seen[to_index(&mq->es, e)] == 3 && h_lookup(&mq->hotspot_table, e_block(&mq->es, e)) == e,
			      "hotspot entry %u lost", i);
	}
	free(seen);
}

static void issue(struct target *t, struct policy_work *w)
{
	t->cleaned[t->nr_issued] = false;
	t->issued[t->nr_issued++] = w;
}

/*
 * A writeback or demotion has copied its block: the target marks it
 * clean, and other lookups may run before it completes the work.
 */
static void mark_clean(struct target *t, unsigned int k)
{
	unsigned int cb = from_cblock(t->issued[k]->cblock);

	t->dirty[cb] = false;
	smq_clear_dirty(&t->mq->policy, to_cblock(cb));
	t->cleaned[k] = true;
}

/* mg_complete(), success or failure. */
static void complete(struct target *t, unsigned int k, bool success)
{
	struct policy_work *w = t->issued[k], copy = *w;	/* freed on completion */
	unsigned int cb = from_cblock(w->cblock);
	bool was_mapped = t->mapped[cb] >= 0, want, kept, cleaned = t->cleaned[k];
	struct smq_entry *e;

	t->issued[k] = t->issued[--t->nr_issued];
	t->cleaned[k] = t->cleaned[t->nr_issued];
	switch (w->op) {
	case POLICY_PROMOTE:
		CHECK(!was_mapped, "promotion into mapped cache block %u", cb);
		smq_complete_background_work(&t->mq->policy, w, success);
		if (success) {
			t->mapped[cb] = from_oblock(copy.oblock);
			t->dirty[cb] = false;
			smq_clear_dirty(&t->mq->policy, to_cblock(cb));
		}
		break;
	case POLICY_DEMOTE:
		if (success && !cleaned) {
			t->dirty[cb] = false;
			smq_clear_dirty(&t->mq->policy, to_cblock(cb));
		}
		smq_complete_background_work(&t->mq->policy, w, success);
		if (success)
			t->mapped[cb] = -1;
		break;
	case POLICY_WRITEBACK:
		if (success && !cleaned) {
			t->dirty[cb] = false;
			smq_clear_dirty(&t->mq->policy, to_cblock(cb));
		}
		smq_complete_background_work(&t->mq->policy, w, success);
		break;
	}
	/*
	 * The policy keeps a mapping unless the work dropped it or it was
	 * invalidated while the work ran (the target forgot it then).  The
	 * block a demotion freed (done, or failed on a block invalidated
	 * meanwhile) may be taken at once by the promotion of the oldest
	 * winner waiting: not hashed, it maps nothing yet.
	 */
	e = get_entry(&t->mq->cache_alloc, cb);
	if (copy.op == POLICY_PROMOTE)
		want = success;
	else
		want = was_mapped && !(copy.op == POLICY_DEMOTE && success);
	kept = copy.op == POLICY_DEMOTE ? e->hashed : e->allocated;
	CHECK(kept == want, "op %d on cache block %u (success %d, mapped %d): kept %d",
	      copy.op, cb, success, was_mapped, kept);
	/* a block invalidated while its work ran is gone once the work is */
	if (!e->allocated)
		t->mapped[cb] = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "random_threshold", "foo", "sequential_threshold", "" };
	static const char *const vals[] = { "1", "-1", "x", "99999999999999999999" };
	struct input in = { data, size };
	struct target t = { 0 };
	unsigned int i, op, nr_ops = 0;
	bool mimic_mq, cleaner;
	u64 origin_blocks;

	if (!btracker_work_cache)
		btracker_work_cache = KMEM_CACHE(bt_work, 0);

	t.nr_cblocks = next_byte(&in) % MAX_CBLOCKS;
	i = next_byte(&in);
	mimic_mq = i & 1;
	t.wide = i & 2;
	cleaner = next_byte(&in) % 8 == 0;
	origin_blocks = 1 + next_u16(&in) % MAX_OBLOCKS;
	if (t.wide)
		origin_blocks = 4ull << 36;
	t.migrations = !cleaner;
	running = &t;
	t.mq = __smq_create(to_cblock(t.nr_cblocks), origin_blocks * 8, 8, mimic_mq, !cleaner,
			    cleaner);
	if (!t.mq) {
		running = NULL;
		return 0;
	}
	for (i = 0; i < MAX_CBLOCKS; i++)
		t.mapped[i] = -1;

	/* mappings from "metadata", possibly bad */
	for (i = next_byte(&in) % 16; i > 0; i--) {
		unsigned int cb = next_byte(&in) % (MAX_CBLOCKS + 2);
		u64 ob = to_origin(&t, next_u16(&in) % MAX_OBLOCKS);
		bool dirty = next_byte(&in) & 1;
		unsigned int hint = next_byte(&in);

		if (!smq_load_mapping(&t.mq->policy, to_oblock(ob), to_cblock(cb), dirty, hint, hint & 1)) {
			CHECK(cb < t.nr_cblocks && t.mapped[cb] < 0, "bad mapping %u accepted", cb);
			t.mapped[cb] = ob;
			t.dirty[cb] = dirty;
		}
	}
	check_invariants(&t);

	while (in.n && nr_ops++ < 2000) {
		op = next_byte(&in) % 11;
		switch (op) {
		case 0: case 1: case 2: {	/* I/O through the map path */
			unsigned int in_ob = next_u16(&in) % MAX_OBLOCKS, flags = next_byte(&in);
			u64 ob = to_origin(&t, in_ob);
			bool write = flags & 1, whole = flags & 2;
			struct policy_work *w = NULL;
			dm_cblock_t cb;
			bool queued;
			int r;

			t.looked_up[in_ob] = true;
			if (whole && write && !cleaner) {
				r = smq_lookup_with_work(&t.mq->policy, to_oblock(ob), &cb, WRITE, true, &w);
				if (r == -ENOENT && w) {
					CHECK(from_oblock(w->oblock) == ob, "overwrite of another block");
					CHECK(t.nr_issued < MAX_WORK, "too much work");
					issue(&t, w);
					/* the overwrite: promoted, then dirty */
					cb = w->cblock;
					complete(&t, t.nr_issued - 1, !(flags & 4));
					if (!(flags & 4)) {
						t.dirty[from_cblock(cb)] = true;
						smq_set_dirty(&t.mq->policy, cb);
					}
					break;
				}
			} else {
				r = smq_lookup(&t.mq->policy, to_oblock(ob), &cb, write, false, &queued);
			}
			CHECK(r == 0 || r == -ENOENT, "lookup returned %d", r);
			if (!r) {
				CHECK(from_cblock(cb) < t.nr_cblocks &&
				      t.mapped[from_cblock(cb)] == (int64_t)ob,
				      "hit on oblock %llu in cache block %u, mapped to %lld",
				      (unsigned long long)ob, from_cblock(cb),
				      (long long)t.mapped[from_cblock(cb)]);
				if (write && !t.dirty[from_cblock(cb)]) {
					t.dirty[from_cblock(cb)] = true;
					smq_set_dirty(&t.mq->policy, cb);
				}
			} else {
				for (i = 0; i < t.nr_cblocks; i++)
					CHECK(t.mapped[i] != (int64_t)ob, "miss on mapped oblock %llu",
					      (unsigned long long)ob);
			}
			break;
		}
		case 3: case 4: {		/* the migration worker */
			struct policy_work *w;

			if (t.nr_issued < MAX_WORK &&
			    !smq_get_background_work(&t.mq->policy, next_byte(&in) & 1, &w)) {
				if (w->op != POLICY_PROMOTE)
					CHECK(t.mapped[from_cblock(w->cblock)] ==
					      (int64_t)from_oblock(w->oblock) ||
					      !get_entry(&t.mq->cache_alloc, from_cblock(w->cblock))->hashed,
					      "work on an unmapped block");
				if (cleaner)
					CHECK(w->op == POLICY_WRITEBACK, "cleaner migrates");
				if (w->op == POLICY_PROMOTE)
					CHECK(from_origin(&t, from_oblock(w->oblock)) < MAX_OBLOCKS &&
					      t.looked_up[from_origin(&t, from_oblock(w->oblock))],
					      "promotion of oblock %llu, never looked up",
					      (unsigned long long)from_oblock(w->oblock));
				issue(&t, w);
			}
			break;
		}
		case 5: {			/* a migration ends, or has copied its block */
			unsigned int k, how;

			if (!t.nr_issued)
				break;
			k = next_byte(&in) % t.nr_issued;
			how = next_byte(&in) % 8;
			if (how >= 4 && !t.cleaned[k] && t.issued[k]->op != POLICY_PROMOTE)
				mark_clean(&t, k);
			else
				complete(&t, k, t.cleaned[k] || how % 4);
			break;
		}
		case 6: {			/* passthrough write or message: invalidate */
			unsigned int cb = next_byte(&in) % (MAX_CBLOCKS + 1);
			int r = smq_invalidate_mapping(&t.mq->policy, to_cblock(cb));

			if (!r) {
				CHECK(cb < t.nr_cblocks && t.mapped[cb] >= 0, "invalidated unmapped %u", cb);
				t.mapped[cb] = -1;
			} else {
				CHECK(r == -ENODATA, "invalidate returned %d", r);
				CHECK(cb >= t.nr_cblocks || t.mapped[cb] < 0, "could not invalidate %u", cb);
			}
			break;
		}
		case 7:				/* time passes */
			jiffies += next_byte(&in) * (HZ / 4);
			smq_tick(&t.mq->policy, next_byte(&in) & 1);
			break;
		case 8: {			/* a table's policy arguments */
			unsigned int k = next_byte(&in);
			int r = t.mq->policy.set_config_value(&t.mq->policy, keys[k % 4], vals[(k >> 2) % 4]);
			char buf[256];
			ssize_t sz = 0;

			CHECK(r == 0 || r == -EINVAL, "set_config_value returned %d", r);
			t.mq->policy.emit_config_values(&t.mq->policy, buf, sizeof(buf), &sz);
			break;
		}
		case 9:				/* hints are written on suspend */
			for (i = 0; i < t.nr_cblocks; i++)
				CHECK(smq_get_hint(&t.mq->policy, to_cblock(i)) < NR_LEVELS, "hint range");
			break;
		case 10:			/* migrations turned off or on again */
			if (!cleaner) {
				t.migrations = next_byte(&in) & 1;
				smq_allow_migrations(&t.mq->policy, t.migrations);
			}
			break;
		}
		check_invariants(&t);
	}

	while (t.nr_issued)
		complete(&t, 0, true);
	check_invariants(&t);
	smq_destroy(&t.mq->policy);
	running = NULL;
	return 0;
}
