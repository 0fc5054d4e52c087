// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the smq cache policy's internals.  Included at the end
 * of dm-cache-policy-smq.c, so the static functions are in scope.
 */

#include <kunit/test.h>

#define TEST_BLOCK_SECTORS 64u	/* 32 KiB, dm-cache's smallest block */
#define TEST_HASH_MULT GOLDEN_RATIO_64	/* for hashes that collide the same on every run */

static void destroy_policy_action(void *p)
{
	smq_destroy(p);
}

static int load(struct smq_policy *mq, u64 oblock, u32 cblock, bool dirty, u32 hint,
		bool hint_valid)
{
	return smq_load_mapping(&mq->policy, to_oblock(oblock), to_cblock(cblock), dirty, hint,
				hint_valid);
}

static int set_config(struct smq_policy *mq, const char *key, const char *value)
{
	return mq->policy.set_config_value(&mq->policy, key, value);
}

static void add_destroy_action(struct kunit *test, struct smq_policy *mq)
{
	int r = kunit_add_action_or_reset(test, destroy_policy_action, &mq->policy);

	KUNIT_ASSERT_EQ(test, r, 0);
}

static struct smq_policy *make_policy(struct kunit *test, unsigned int nr_cblocks,
				      u64 nr_oblocks, bool cleaner)
{
	struct smq_policy *mq;

	mq = __smq_create(to_cblock(nr_cblocks), nr_oblocks * TEST_BLOCK_SECTORS,
			  TEST_BLOCK_SECTORS, false, !cleaner, cleaner);
	KUNIT_ASSERT_NOT_NULL(test, mq);
	add_destroy_action(test, mq);
	/* before the first lookup: the tests' blocks must not meet new collisions each run */
	mq->sketch.mult = TEST_HASH_MULT;
	mq->ghosts.mult = TEST_HASH_MULT;
	return mq;
}

static int lookup(struct smq_policy *mq, u64 oblock, int dir, dm_cblock_t *cblock)
{
	bool queued;

	return smq_lookup(&mq->policy, to_oblock(oblock), cblock, dir, false, &queued);
}

static unsigned int residency(struct smq_policy *mq)
{
	return from_cblock(smq_residency(&mq->policy));
}

/* Run every queued piece of work to completion, counting them by kind. */
static unsigned int run_background_work(struct smq_policy *mq, bool idle, bool success,
					unsigned int counts[3])
{
	struct policy_work *work;
	unsigned int n = 0;

	while (!smq_get_background_work(&mq->policy, idle, &work)) {
		if (counts)
			counts[work->op]++;
		if (work->op == POLICY_WRITEBACK && success)
			smq_clear_dirty(&mq->policy, work->cblock);
		smq_complete_background_work(&mq->policy, work, success);
		n++;
	}

	return n;
}

/* Load @n clean (or dirty) mappings, oblock = base + cblock. */
static void load_mappings(struct kunit *test, struct smq_policy *mq, unsigned int n,
			  u64 base, bool dirty, unsigned int level)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, load(mq, base + i, i, dirty, level, true), 0);
}

/*----------------------------------------------------------------*/

static void smq_test_list(struct kunit *test)
{
	struct smq_space es;
	struct smq_list l;
	struct smq_entry *e;
	unsigned int order[7], i = 0;

	KUNIT_ASSERT_EQ(test, 0, space_init(&es, 8, false));
	l_init(&l);
	es.sentinels_end = to_entry(&es, 1);	/* entry 0 is a sentinel */
	l_add_tail(&es, &l, to_entry(&es, 1));
	l_add_tail(&es, &l, to_entry(&es, 0));
	l_add_tail(&es, &l, to_entry(&es, 2));
	l_add_head(&es, &l, to_entry(&es, 3));
	l_add_head(&es, &l, to_entry(&es, 4));
	KUNIT_EXPECT_EQ(test, l.nr_elts, 4u);	/* the sentinel does not count */

	for (e = l_head(&es, &l); e && i < ARRAY_SIZE(order); e = l_next(&es, e))
		order[i++] = to_index(&es, e);
	KUNIT_EXPECT_EQ(test, i, 5u);
	KUNIT_EXPECT_EQ(test, order[0], 4u);
	KUNIT_EXPECT_EQ(test, order[1], 3u);
	KUNIT_EXPECT_EQ(test, order[2], 1u);
	KUNIT_EXPECT_EQ(test, order[3], 0u);
	KUNIT_EXPECT_EQ(test, order[4], 2u);

	/* inserted ahead of an entry, the head one too */
	l_add_before(&es, &l, to_entry(&es, 0), to_entry(&es, 5));
	l_add_before(&es, &l, to_entry(&es, 4), to_entry(&es, 6));
	KUNIT_EXPECT_EQ(test, l.nr_elts, 6u);
	for (i = 0, e = l_head(&es, &l); e && i < ARRAY_SIZE(order); e = l_next(&es, e))
		order[i++] = to_index(&es, e);
	KUNIT_EXPECT_EQ(test, i, 7u);
	KUNIT_EXPECT_EQ(test, order[0], 6u);
	KUNIT_EXPECT_EQ(test, order[4], 5u);
	KUNIT_EXPECT_EQ(test, order[5], 0u);
	KUNIT_EXPECT_EQ(test, (unsigned int)to_entry(&es, 5)->prev, 1u);
	KUNIT_EXPECT_EQ(test, (unsigned int)to_entry(&es, 4)->prev, 6u);

	for (i = 0; i < 7; i++)
		l_del(&es, &l, to_entry(&es, i));
	KUNIT_EXPECT_EQ(test, l.nr_elts, 0u);
	KUNIT_EXPECT_EQ(test, l.head, SMQ_NULL);
	KUNIT_EXPECT_EQ(test, l.tail, SMQ_NULL);
	space_exit(&es);
}

static unsigned int level_size(struct smq_queue *q, unsigned int level)
{
	struct smq_entry *e;
	unsigned int n = 0;

	for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e))
		if (!e_is_sentinel(q->es, e)) {
			n++;
			if (e->level != level)
				return UINT_MAX;
		}

	return n;
}

/* Levels bottom up, each oldest first, hold entries 0 to @nr - 1 in order. */
static void expect_in_order(struct kunit *test, struct smq_queue *q, unsigned int nr)
{
	unsigned int level, next = 0;
	struct smq_entry *e;

	for (level = 0; level < q->nr_levels; level++)
		for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e)) {
			KUNIT_EXPECT_EQ(test, to_index(q->es, e), next);
			KUNIT_EXPECT_EQ(test, (unsigned int)e->level, level);
			next++;
		}
	KUNIT_EXPECT_EQ(test, next, nr);
}

/* A queue of 64 levels (8 top levels sharing 16 entries) with entries 0 to @nr - 1 at @level. */
static void fill_queue(struct smq_queue *q, struct smq_space *es, unsigned int nr,
		       unsigned int level)
{
	unsigned int i;

	q_init(q, es, NR_LEVELS);
	q->nr_top_levels = 8;
	q->nr_in_top_levels = 16;
	for (i = 0; i < nr; i++) {
		to_entry(es, i)->level = level;
		q_push(q, to_entry(es, i));
	}
}

static void smq_test_queue_redistribute(struct kunit *test)
{
	struct smq_space es;
	struct smq_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	unsigned int level, total = 0, nr = 1000;

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, 0, space_init(&es, nr, false));
	fill_queue(q, &es, nr, 0);

	q_redistribute(q);
	for (level = 0; level < NR_LEVELS; level++) {
		unsigned int n = level_size(q, level);

		KUNIT_EXPECT_EQ(test, n, q->target_count[level]);
		KUNIT_EXPECT_EQ(test, n, q->qs[level].nr_elts);
		total += n;
	}
	KUNIT_EXPECT_EQ(test, total, nr);
	/* 16 entries over the top 8 levels, 984 evenly over the other 56 */
	for (level = 0; level < NR_LEVELS; level++) {
		if (level >= NR_LEVELS - 8)
			KUNIT_EXPECT_EQ(test, q->target_count[level], 2u);
		else
			KUNIT_EXPECT_EQ(test, q->target_count[level] - 17,
					q->target_count[level] > 17);
	}

	/* The oldest entry stays at the bottom, the youngest climbs. */
	KUNIT_EXPECT_PTR_EQ(test, l_head(&es, q->qs), to_entry(&es, 0));
	KUNIT_EXPECT_EQ(test, (unsigned int)to_entry(&es, nr - 1)->level, NR_LEVELS - 1);
	expect_in_order(test, q, nr);

	/* All in the top level: they come down, still in order. */
	fill_queue(q, &es, nr, NR_LEVELS - 1);
	q_redistribute(q);
	for (level = 0; level < NR_LEVELS; level++)
		KUNIT_EXPECT_EQ(test, q->qs[level].nr_elts, q->target_count[level]);
	expect_in_order(test, q, nr);

	/* Popping takes the oldest of the lowest level. */
	KUNIT_EXPECT_PTR_EQ(test, q_pop(q), to_entry(&es, 0));
	KUNIT_EXPECT_EQ(test, q->nr_elts, nr - 1);
	space_exit(&es);
}

/*
 * A redistribution with too much to move stops after its moves, every
 * entry still in a level, and later ones finish it; a tick goes on with
 * one that stopped.
 */
static void smq_test_redistribute_bounded(struct kunit *test)
{
	struct smq_space es;
	struct smq_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	unsigned int level, total, passes = 1, nr = 1000;
	struct smq_policy *mq;

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, 0, space_init(&es, nr, false));
	fill_queue(q, &es, nr, 0);

	KUNIT_EXPECT_FALSE(test, __q_redistribute(q, 100));
	/* the 100 youngest of the bottom level went up, in one piece */
	KUNIT_EXPECT_EQ(test, level_size(q, 0), nr - 100);
	KUNIT_EXPECT_EQ(test, level_size(q, NR_LEVELS - 1), 100u);
	while (!__q_redistribute(q, 100) && passes < 100) {
		passes++;
		for (level = 0, total = 0; level < NR_LEVELS; level++)
			total += level_size(q, level);
		KUNIT_EXPECT_EQ(test, total, nr);
	}
	passes++;
	/* each entry moved once or twice: about 1,900 moves */
	KUNIT_EXPECT_LE(test, passes, 20u);
	for (level = 0; level < NR_LEVELS; level++)
		KUNIT_EXPECT_EQ(test, level_size(q, level), q->target_count[level]);
	space_exit(&es);

	mq = make_policy(test, 16, 4096, false);
	load_mappings(test, mq, 16, 0, false, 0);
	KUNIT_EXPECT_EQ(test, mq->clean.qs[0].nr_elts, 16u);
	mq->clean.unbalanced = true;
	__smq_tick(mq, jiffies);
	KUNIT_EXPECT_FALSE(test, mq->clean.unbalanced);
	for (level = 0; level < NR_LEVELS; level++)
		KUNIT_EXPECT_EQ(test, level_size(&mq->clean, level),
				mq->clean.target_count[level]);
}

/*
 * A queue over @es of entry 0 at level 3, then 1 and 2 at level 4, in
 * that order (1 the oldest of level 4).
 */
static struct smq_queue *three_entry_queue(struct kunit *test, struct smq_space *es)
{
	static const unsigned int levels[] = { 3, 4, 4 };
	struct smq_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, 0, space_init(es, 4, false));
	q_init(q, es, NR_LEVELS);
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		to_entry(es, i)->level = levels[i];
		q_push(q, to_entry(es, i));
	}
	return q;
}

static void smq_test_requeue(struct kunit *test)
{
	struct smq_space es;
	struct smq_queue *q = three_entry_queue(test, &es);
	struct smq_entry *a = to_entry(&es, 0), *b = to_entry(&es, 1), *c = to_entry(&es, 2);

	/* a swaps with b, the oldest of level 4: sizes are kept */
	q_requeue(q, a, 1);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->level, 4u);
	KUNIT_EXPECT_EQ(test, (unsigned int)b->level, 3u);
	KUNIT_EXPECT_EQ(test, q->qs[3].nr_elts, 1u);
	KUNIT_EXPECT_EQ(test, q->qs[4].nr_elts, 2u);
	/* a is the youngest of level 4 now */
	KUNIT_EXPECT_PTR_EQ(test, l_head(&es, q->qs + 4), c);

	/* at the top level a requeue only makes the entry the youngest */
	a->level = NR_LEVELS - 1;
	q_del(q, c);
	c->level = NR_LEVELS - 1;
	q_push(q, c);
	q_requeue(q, c, 4);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->level, NR_LEVELS - 1);
	KUNIT_EXPECT_EQ(test, q->nr_elts, 3u);
	space_exit(&es);
}

/*
 * The block of entry @i: in a wide space, odd entries hold the blocks
 * 2^32 above their even neighbours', which the low halves cannot tell apart.
 */
static u64 hash_case_block(unsigned int i, bool wide)
{
	return wide ? (u64)(i & 1) << 32 | (i / 2u) * 7919u : i * 7919u;
}

static void hash_case(struct kunit *test, bool wide)
{
	struct smq_space es;
	struct smq_hash_table ht;
	unsigned int i, nr = 200;

	KUNIT_ASSERT_EQ(test, 0, space_init(&es, nr, wide));
	KUNIT_ASSERT_EQ(test, 0, h_init(&ht, &es, 16));	/* 16 buckets: long chains */
	for (i = 0; i < nr; i++) {
		e_set_block(&es, to_entry(&es, i), hash_case_block(i, wide));
		h_insert(&ht, to_entry(&es, i));
	}

	for (i = 0; i < nr; i++) {
		u64 b = hash_case_block(i, wide);

		KUNIT_EXPECT_EQ(test, e_block(&es, to_entry(&es, i)), b);
		KUNIT_EXPECT_PTR_EQ(test, h_lookup(&ht, b), to_entry(&es, i));
	}
	KUNIT_EXPECT_NULL(test, h_lookup(&ht, 1));
	/* only a wide space is asked about blocks beyond 2^32 */
	if (wide)
		KUNIT_EXPECT_NULL(test, h_lookup(&ht, (u64)2 << 32));

	/* a hit moves to the front of its chain */
	h_lookup(&ht, hash_case_block(5, wide));
	KUNIT_EXPECT_EQ(test, ht.buckets[h_bucket(&ht, hash_case_block(5, wide))], 5u);

	for (i = 0; i < nr; i += 2)
		h_remove(&ht, to_entry(&es, i));
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, !!h_lookup(&ht, hash_case_block(i, wide)), i & 1);
		KUNIT_EXPECT_EQ(test, (unsigned int)to_entry(&es, i)->hashed, i & 1);
	}
	h_exit(&ht);
	space_exit(&es);
}

/*
 * A climbing entry swaps with the oldest of its new level not hit in this
 * period itself, so that entries hit alike cannot push each other down.
 */
static void smq_test_swap_partner(struct kunit *test)
{
	struct smq_space es;
	struct smq_queue *q = three_entry_queue(test, &es);
	struct smq_entry *a = to_entry(&es, 0), *b = to_entry(&es, 1), *c = to_entry(&es, 2);
	struct smq_hit_bits hits;

	KUNIT_ASSERT_EQ(test, 0, hit_bits_init(&hits, 4));
	q->hits = &hits;
	hit_bits_test_and_set(&hits, to_index(&es, b));
	q_requeue(q, a, 1);
	KUNIT_EXPECT_EQ(test, (unsigned int)b->level, 4u);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->level, 3u);
	KUNIT_EXPECT_EQ(test, q->qs[4].nr_elts, 2u);
	hit_bits_exit(&hits);
	space_exit(&es);
}

/*
 * A hotspot block climbs the level jump at its first miss in a period
 * and not at the others; the period's end lets it climb again.
 */
static void smq_test_hotspot_climb(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 16, false);
	struct smq_entry *e;

	mq->hotspot_level_jump = 4;
	e = update_hotspot_queue(mq, to_oblock(0));
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 0u);
	KUNIT_ASSERT_PTR_EQ(test, update_hotspot_queue(mq, to_oblock(0)), e);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 4u);
	update_hotspot_queue(mq, to_oblock(0));
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 4u);

	/* not yet the end of the longer period that rebalances the levels */
	mq->hotspot_period_end = mq->lookups + hotspot_period(mq);
	end_hotspot_period(mq);
	mq->hotspot_level_jump = 2;
	update_hotspot_queue(mq, to_oblock(0));
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 6u);
}

static void smq_test_hash(struct kunit *test)
{
	hash_case(test, false);
	hash_case(test, true);
}

static void smq_test_allocator(struct kunit *test)
{
	struct smq_space es;
	struct smq_alloc ea;
	struct smq_entry *e, *first = NULL;
	unsigned int n = 0;

	KUNIT_ASSERT_EQ(test, 0, space_init(&es, 20, false));
	init_allocator(&ea, &es, 4, 10);
	KUNIT_EXPECT_FALSE(test, allocator_empty(&ea));
	while ((e = alloc_entry(&ea))) {
		KUNIT_EXPECT_TRUE(test, (bool)e->allocated);
		KUNIT_EXPECT_LT(test, get_index(&ea, e), 10u);
		if (!first)
			first = e;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 10u);
	KUNIT_EXPECT_TRUE(test, allocator_empty(&ea));
	KUNIT_EXPECT_NULL(test, alloc_particular_entry(&ea, 3));

	free_entry(&ea, first);
	KUNIT_EXPECT_EQ(test, ea.nr_allocated, 9u);
	KUNIT_EXPECT_PTR_EQ(test, alloc_entry(&ea), first);
	KUNIT_EXPECT_PTR_EQ(test, get_entry(&ea, get_index(&ea, first)), first);
	space_exit(&es);
}

static void smq_test_hit_bits(struct kunit *test)
{
	struct smq_hit_bits h;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, 0, hit_bits_init(&h, 1000));
	KUNIT_EXPECT_FALSE(test, hit_bits_test_and_set(&h, 7));
	KUNIT_EXPECT_TRUE(test, hit_bits_test_and_set(&h, 7));
	hit_bits_clear_all(&h);
	KUNIT_EXPECT_FALSE(test, hit_bits_test_and_set(&h, 7));

	/* more than the log holds: cleared all the same */
	for (i = 0; i < 1000; i += 3)
		hit_bits_test_and_set(&h, i);
	hit_bits_clear_all(&h);
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_FALSE(test, test_bit(i, h.bits));
	hit_bits_exit(&h);
}

/*
 * The promote level follows the cache's hit rate once the cache is full
 * and is cut by low confidence in the hotspot queue (the tree's max()
 * clamp made this table dead).
 */
static void smq_test_promote_levels(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 4096, false);

	update_promote_levels(mq);
	KUNIT_EXPECT_EQ(test, mq->promote_level, NR_LEVELS / 2);

	load_mappings(test, mq, 64, 0, false, 0);
	mq->cache_stats.hits = 8;	/* a hit rate of 8/16 */
	mq->cache_stats.misses = 8;
	mq->hotspot_stats.hits = 1;	/* well: 1/4 of hotspot lookups on top */
	mq->hotspot_stats.misses = 3;
	update_promote_levels(mq);
	KUNIT_EXPECT_EQ(test, mq->promote_level, NR_LEVELS - 7);

	mq->hotspot_stats.misses = 10;	/* fair: 1/11 */
	update_promote_levels(mq);
	KUNIT_EXPECT_EQ(test, mq->promote_level, NR_LEVELS - 3);

	mq->hotspot_stats.misses = 100;	/* poor */
	update_promote_levels(mq);
	KUNIT_EXPECT_EQ(test, mq->promote_level, NR_LEVELS - 1);
	update_level_jump(mq);
	KUNIT_EXPECT_EQ(test, mq->hotspot_level_jump, 4u);

	mq->cache_stats.hits = 16;	/* hitting well: promote little */
	mq->cache_stats.misses = 0;
	mq->hotspot_stats.misses = 0;
	mq->promote_level = 0;		/* not where the last update left it */
	update_promote_levels(mq);
	KUNIT_EXPECT_EQ(test, mq->promote_level, NR_LEVELS - 1);
}

/* Counts saturate at 15, a missing block reads (almost always) 0, halving ages. */
static void smq_test_sketch(struct kunit *test)
{
	struct smq_sketch s;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sketch_init(&s, 32u * 1024u, SKETCH_MIN_PERIOD), 0);
	s.mult = TEST_HASH_MULT;
	for (i = 1; i <= 20; i++)
		KUNIT_EXPECT_EQ(test, sketch_add(&s, 7), min(i, 15u));
	KUNIT_EXPECT_EQ(test, sketch_estimate(&s, 7), 15u);
	for (i = 0; i < 3; i++)
		sketch_add(&s, 1000);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&s, 1000), 3u);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&s, 123456), 0u);

	/* one period of other lookups halves every count, a few words at a time */
	for (i = 0; i < s.period + (1u << s.word_bits); i++)
		sketch_add(&s, 2000000 + i % 4096);
	KUNIT_EXPECT_EQ(test, s.sweep, ~0u);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&s, 7), 7u);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&s, 1000), 1u);
	sketch_exit(&s);

	/* a period too short for a sweep is stretched to fit one */
	KUNIT_ASSERT_EQ(test, sketch_init(&s, SKETCH_MIN_COUNTERS, 1), 0);
	KUNIT_EXPECT_GE(test, s.period, 2u * (1u << s.word_bits) / SKETCH_SWEEP);
	sketch_exit(&s);
}

static bool counters_distinct(const struct sketch_slot *slot)
{
	unsigned int i, j;

	for (i = 0; i < SKETCH_DEPTH; i++)
		for (j = 0; j < i; j++)
			if (slot->shift[i] == slot->shift[j])
				return false;
	return true;
}

/* A block whose four counters are four different nibbles. */
static u64 block_with_distinct_counters(struct smq_sketch *s, struct sketch_slot *slot)
{
	u64 b;

	for (b = 1;; b++) {
		sketch_locate(s, b, slot);
		if (counters_distinct(slot))
			return b;
	}
}

/*
 * Halving keeps each counter to its own nibble (no bit of one leaks into
 * the next), and a lookup raises only the counters at the block's
 * minimum.
 */
static void smq_test_sketch_exact(struct kunit *test)
{
	struct sketch_slot slot;
	struct smq_sketch s;
	u64 b, w;

	KUNIT_ASSERT_EQ(test, sketch_init(&s, 1024, SKETCH_MIN_PERIOD), 0);
	s.mult = TEST_HASH_MULT;
	s.words[0] = 0xf1f1f1f1f1f1f1f1ull;
	s.words[1] = 0x0123456789abcdefull;
	sketch_halve_some(&s);
	KUNIT_EXPECT_EQ(test, s.words[0], 0x7070707070707070ull);
	KUNIT_EXPECT_EQ(test, s.words[1], 0x0011223344556677ull);
	/*
	 * The sweep begun goes on at the next lookup, a few words further:
	 * end it, or it may halve the word of the block below first.
	 */
	s.sweep = ~0u;
	s.countdown = s.period;

	b = block_with_distinct_counters(&s, &slot);
	w = (3ull << slot.shift[0]) | (5ull << slot.shift[1]) | (5ull << slot.shift[2]) |
	    (9ull << slot.shift[3]);
	*slot.word = w;
	KUNIT_EXPECT_EQ(test, sketch_add(&s, b), 4u);
	KUNIT_EXPECT_EQ(test, *slot.word, w + (1ull << slot.shift[0]));
	sketch_exit(&s);
}

/*
 * Each sketch draws an odd multiplier of its own.  Blocks that differ only
 * in their high bits (here all multiples of 16) still spread over the
 * nibbles of a word: fields taken from a product's low bits gave them all
 * the same first counter, whatever the multiplier.  How far they spread
 * depends on it: with the tests' fixed one, over all 16 nibbles; 1.3 %
 * of drawn ones put them on fewer than 8, which failed this case on one
 * boot in about 80.
 */
static void smq_test_sketch_hash(struct kunit *test)
{
	unsigned int k, nibbles = 0;
	struct sketch_slot slot;
	struct smq_sketch s, t;

	KUNIT_ASSERT_EQ(test, sketch_init(&s, 32u * 1024u, SKETCH_MIN_PERIOD), 0);
	KUNIT_ASSERT_EQ(test, sketch_init(&t, 32u * 1024u, SKETCH_MIN_PERIOD), 0);
	KUNIT_EXPECT_TRUE(test, s.mult & 1);
	KUNIT_EXPECT_TRUE(test, t.mult & 1);
	/* 2^-63 odds of a false failure */
	KUNIT_EXPECT_NE(test, s.mult, t.mult);

	s.mult = TEST_HASH_MULT;
	for (k = 0; k < 256; k++) {
		sketch_locate(&s, 16ull * k, &slot);
		nibbles |= BIT(slot.shift[0] / 4);
	}
	KUNIT_EXPECT_GE(test, hweight32(nibbles), 8);
	sketch_exit(&t);
	sketch_exit(&s);
}

/* Drawn multipliers spread short strides; ones that crowd them are told. */
static void smq_test_hash_spread(struct kunit *test)
{
	unsigned int i;
	u64 mult;

	KUNIT_EXPECT_TRUE(test, hash_mult_spreads(GOLDEN_RATIO_64));
	/* blocks 1 apart share a word; blocks 59 apart, nearly so */
	KUNIT_EXPECT_FALSE(test, hash_mult_spreads(1));
	KUNIT_EXPECT_FALSE(test, hash_mult_spreads((U64_MAX / 59u) | 1u));
	KUNIT_EXPECT_FALSE(test, hash_mult_spreads(-((U64_MAX / 59u) | 1u)));

	/* a random odd multiplier fails one time in three: 64 would all pass 2^-37 of the time */
	for (i = 0; i < 64; i++) {
		mult = draw_hash_mult();
		KUNIT_EXPECT_TRUE(test, mult & 1);
		KUNIT_EXPECT_TRUE(test, hash_mult_spreads(mult));
	}
}

/* Two counters per cache block; more for a large origin, never more than it needs. */
static void smq_test_sketch_counters(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sketch_counters(1u << 20, 16ull << 20), 2u << 20);
	KUNIT_EXPECT_EQ(test, sketch_counters(1024, 1ull << 32), SKETCH_MIN_COUNTERS);
	KUNIT_EXPECT_EQ(test, sketch_counters(16, 4096), 4096u * SKETCH_ORIGIN_COUNTERS);
	KUNIT_EXPECT_EQ(test, sketch_counters(100, 10), 200u);
	/* no overflow for an origin of 2^60 blocks or more */
	KUNIT_EXPECT_EQ(test, sketch_counters(1024, 1ull << 60), SKETCH_MIN_COUNTERS);
	KUNIT_EXPECT_EQ(test, sketch_counters(1024, U64_MAX), SKETCH_MIN_COUNTERS);
}

static void smq_test_should_promote(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct smq_entry hs = { .level = 0 }, *victim, *stale;
	unsigned int i, j;

	mq->promote_level = 41;
	/* with room: every miss, on first sight too */
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 1, &victim));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, WRITE, false, 1, &victim));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, WRITE, true, 0, &victim));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, READ, false, 2, &victim));
	KUNIT_EXPECT_NULL(test, victim);

	/*
	 * "Clearly more often" rounds up: a tie plus one step of bias does
	 * not win, not even against a victim counted too little for a quarter
	 * of its count to be a whole lookup.  In a hot region two lookups
	 * more win, but not one (under a loop, the candidate just looked up
	 * is one ahead of the victim); at the ceiling one does.
	 */
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, 2 + 1, 2, NULL));
	KUNIT_EXPECT_TRUE(test, beats_victim(mq, 2 + 2, 2, NULL));
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, 5 + 2, 5, &hs));
	KUNIT_EXPECT_TRUE(test, beats_victim(mq, 5 + 3, 5, &hs));
	hs.level = 41;
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, 5 + 1, 5, &hs));
	KUNIT_EXPECT_TRUE(test, beats_victim(mq, 5 + 2, 5, &hs));
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, SKETCH_MAX_COUNT, SKETCH_MAX_COUNT - 1, &hs));
	KUNIT_EXPECT_TRUE(test, beats_victim(mq, SKETCH_MAX_COUNT + 1, SKETCH_MAX_COUNT - 1, &hs));
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, SKETCH_MAX_COUNT, SKETCH_MAX_COUNT, &hs));
	KUNIT_EXPECT_TRUE(test, beats_victim(mq, SKETCH_MAX_COUNT + 1, SKETCH_MAX_COUNT, &hs));
	hs.level = 0;
	KUNIT_EXPECT_FALSE(test, beats_victim(mq, SKETCH_MAX_COUNT + 1, SKETCH_MAX_COUNT, &hs));

	/* full: a block must be looked up more often than the one it replaces */
	load_mappings(test, mq, 16, 0, false, 0);
	for (i = 0; i < 16; i++)
		for (j = 0; j < 5; j++)
			sketch_add(&mq->sketch, i);
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 1, &victim));
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, WRITE, true, 0, &victim));
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 4, &victim));
	KUNIT_ASSERT_NOT_NULL(test, victim);
	KUNIT_EXPECT_LT(test, from_cblock(infer_cblock(mq, victim)), 16u);
	/*
	 * Against a victim counted 5, two lookups more are enough only in a
	 * hot region.  Losing to the victim kept from the last miss uses it
	 * up a little; a demotion drops it.
	 */
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 7, &victim));
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 1u);
	hs.level = 41;
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 6, &victim));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 7, &victim));
	KUNIT_ASSERT_NOT_NULL(test, victim);
	KUNIT_EXPECT_EQ(test, mq->victim, from_cblock(infer_cblock(mq, victim)));
	demote(mq, victim);
	KUNIT_EXPECT_EQ(test, mq->victim, SMQ_NULL);
	hs.level = 0;
	/*
	 * A write miss into a full cache competes only if its count is near
	 * the ceiling, hot region or whole-block write or not.
	 */
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), NULL, WRITE, false,
						WRITE_PROMOTE_FREQ - 1, &victim));
	KUNIT_EXPECT_NULL(test, victim);
	hs.level = 41;
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, WRITE, true,
						WRITE_PROMOTE_FREQ - 1, &victim));
	hs.level = 0;
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, WRITE, false,
					       WRITE_PROMOTE_FREQ, &victim));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 8, &victim));

	/*
	 * A kept victim that changed behind the pick's back (moved to the top
	 * level, as a redistribution may) still refuses, by its count alone,
	 * and stays the pick; a win looks again and gets a low-level block.
	 */
	KUNIT_ASSERT_NOT_NULL(test, victim);
	stale = victim;
	q_del(&mq->clean, stale);
	stale->level = NR_LEVELS - 1;
	q_push(&mq->clean, stale);
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 4, &victim));
	KUNIT_EXPECT_EQ(test, mq->victim, from_cblock(infer_cblock(mq, stale)));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 9, &victim));
	KUNIT_ASSERT_NOT_NULL(test, victim);
	KUNIT_EXPECT_PTR_NE(test, victim, stale);
	KUNIT_EXPECT_LT(test, (unsigned int)victim->level, NR_LEVELS / 2);
}

/* @n refused candidates come back, each matched by a remembered victim. */
static void refusals_come_back(struct smq_ghosts *g, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ghost_remember(g, 2000 + i, true);
		ghost_remember(g, 5000 + i, false);
		ghost_check(g, 5000 + i);
	}
}

/*
 * Victims that come back make admission stricter, rejected candidates
 * that come back make it more eager; rejections are remembered only as
 * often as victims.
 */
static void smq_test_ghosts(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct smq_ghosts *g = &mq->ghosts;
	struct smq_entry hs = { .level = 0 }, *victim;
	unsigned int i, j;

	/* no victim remembered yet: a rejection is not either */
	ghost_remember(g, 7, false);
	ghost_check(g, 7);
	KUNIT_EXPECT_EQ(test, g->bias, 0);

	ghost_remember(g, 8, true);
	ghost_remember(g, 9, false);
	ghost_check(g, 9);
	KUNIT_EXPECT_EQ(test, g->bias, 1);
	ghost_check(g, 9);	/* a regret counts once */
	KUNIT_EXPECT_EQ(test, g->bias, 1);
	ghost_check(g, 8);
	ghost_check(g, 8);
	KUNIT_EXPECT_EQ(test, g->bias, 0);

	for (i = 0; i < 1000; i++) {
		ghost_remember(g, 20 + i, true);
		ghost_check(g, 20 + i);
	}
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MIN);

	/* enough rejected candidates coming back let a block seen as often in */
	load_mappings(test, mq, 16, 0, false, 0);
	for (i = 0; i < 16; i++)
		for (j = 0; j < 4; j++)
			sketch_add(&mq->sketch, i);
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 4,
						&victim));
	refusals_come_back(g, 1000);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX);
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), &hs, READ, false, 4,
					       &victim));
}

/* Remember a victim whose ghost goes into @slot. */
static void remember_victim_in_slot(struct smq_ghosts *g, unsigned int slot)
{
	u32 oblock = 1000000u * (slot + 1u);
	u16 tag;

	while (ghost_slot(g, oblock, &tag) != g->tags + slot)
		oblock++;
	ghost_remember(g, oblock, true);
}

/*
 * A small cache's ghosts reach back about as far as the cache does: it
 * has no more slots than about its blocks, and once as many victims as
 * it has slots are remembered after a rejection, the rejected block
 * coming back is no regret.  A large cache has a slot per GHOST_RATIO
 * blocks.
 */
static void smq_test_ghost_reach(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 24, 4096, false);
	struct smq_ghosts *g = &mq->ghosts;
	unsigned int i, nr = 1u << g->bits;
	u16 tag, *slot;

	KUNIT_EXPECT_EQ(test, nr, GHOST_MIN_SLOTS);
	KUNIT_EXPECT_LE(test, nr, 2u * 24u);

	/* every other slot taken: the rejection is still remembered */
	ghost_remember(g, 7, true);
	ghost_remember(g, 9, false);
	slot = ghost_slot(g, 9, &tag);
	for (i = 0; i < nr; i++)
		if (g->tags + i != slot)
			remember_victim_in_slot(g, i);
	ghost_check(g, 9);
	KUNIT_EXPECT_EQ(test, g->bias, 1);

	/* every slot taken */
	ghost_remember(g, 9, false);
	for (i = 0; i < nr; i++)
		remember_victim_in_slot(g, i);
	ghost_check(g, 9);
	KUNIT_EXPECT_EQ(test, g->bias, 1);

	mq = make_policy(test, 1024 * GHOST_RATIO, 1u << 20, false);
	KUNIT_EXPECT_EQ(test, 1u << mq->ghosts.bits, 1024u);
}

/*
 * Look @oblock up @n times, each after a block never seen before (the
 * count of lookups so far, above 2^19, is a new block every time), so
 * that each counts and nothing else is counted twice.
 */
static void look_up_counted(struct smq_policy *mq, u64 oblock, unsigned int n)
{
	dm_cblock_t cblock;

	while (n--) {
		lookup(mq, (1u << 19) + mq->lookups, READ, &cblock);
		lookup(mq, oblock, READ, &cblock);
	}
}

/*
 * The regrets are learnt from real lookups: a candidate that lost to the
 * victim and misses again raises the bias a step; a victim that was
 * demoted and misses again lowers it a step.
 */
static void smq_test_regrets(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 1u << 20, false);
	struct smq_ghosts *g = &mq->ghosts;
	struct policy_work *work;
	unsigned int i;
	u64 victim;

	load_mappings(test, mq, 16, 0, false, 0);
	for (i = 0; i < 16; i++)
		look_up_counted(mq, i, 4);
	KUNIT_ASSERT_EQ(test, g->bias, 0);

	/* the winner demotes a victim: remembered, which lets a refusal be */
	look_up_counted(mq, 300, 8);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_ASSERT_EQ(test, work->op, POLICY_DEMOTE);
	victim = from_cblock(work->cblock);
	KUNIT_EXPECT_EQ(test, g->credit, 1u);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_ASSERT_EQ(test, work->op, POLICY_PROMOTE);
	smq_complete_background_work(&mq->policy, work, true);

	/* counted twice, it loses to a victim counted four times */
	look_up_counted(mq, 100, 2);
	KUNIT_EXPECT_EQ(test, g->credit, 0u);
	KUNIT_EXPECT_EQ(test, g->bias, 0);
	look_up_counted(mq, 100, 1);
	KUNIT_EXPECT_EQ(test, g->bias, 1);

	/* the victim misses: a step back */
	look_up_counted(mq, victim, 1);
	KUNIT_EXPECT_EQ(test, g->bias, 0);
}

/*
 * While promotions into a full cache are each followed by a few hits, the
 * rejected candidates that come back may push admission further towards
 * recency; once promotions stop paying, the bias falls back.
 */
static void smq_test_payoff(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct smq_ghosts *g = &mq->ghosts;
	dm_cblock_t cblock;
	unsigned int i;

	load_mappings(test, mq, 16, 0, false, 0);
	for (i = 0; i < PAYOFF_WINDOW * PAYOFF_HITS; i++)
		KUNIT_EXPECT_EQ(test, lookup(mq, i % 16, READ, &cblock), 0);
	/* as many hits as pay for the promotions: not yet paying well */
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, BIAS_MAX);

	for (i = 0; i < 100000; i++)
		KUNIT_EXPECT_EQ(test, lookup(mq, i % 16, READ, &cblock), 0);
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, BIAS_MAX_PAYING);

	refusals_come_back(g, 1000);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX_PAYING);

	/* no hits over the next window: back to the usual ceiling */
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, BIAS_MAX);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX);

	/* 2^32 hits in one window (half a day at 100k IOPS) pay too */
	mq->payoff_hits = U32_MAX;
	KUNIT_EXPECT_EQ(test, lookup(mq, 0, READ, &cblock), 0);
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, BIAS_MAX_PAYING);
}

/* @n demotions of blocks that won their place, the first @hit of them hit. */
static void demote_contested(struct smq_policy *mq, unsigned int n, unsigned int hit)
{
	struct smq_entry e = { .contested = true };
	unsigned int i;

	for (i = 0; i < n; i++) {
		e.hit = i < hit;
		note_demotion(mq, &e);
	}
}

/*
 * Promotions into a full cache whose blocks leave unhit, CHURN_RUNS
 * windows in a row, cap the ghosts' bias at none; one window or blocks
 * that only filled the cache do not.  CHURN_RUNS windows with hits in a
 * row let the next look at the payoff lift the cap.  The block that wins
 * its place from a victim is marked so, a hit on it is seen, and its
 * demotion counted once it succeeds; the entry its cache block gets next
 * starts afresh.
 */
static void smq_test_churn(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct smq_entry uncontested = { .contested = false };
	struct smq_ghosts *g = &mq->ghosts;
	unsigned int i, counts[3] = {};
	unsigned int at_most = CHURN_WINDOW * CHURN_UNHIT / 16u;
	dm_cblock_t cblock;
	struct smq_entry *e;

	refusals_come_back(g, 1000);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX);

	for (i = 0; i < 100 * CHURN_WINDOW - 1; i++)
		note_demotion(mq, &uncontested);
	KUNIT_EXPECT_EQ(test, mq->churn_demoted, 0u);

	/* windows just short of churn, then one of churn between them */
	demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW - at_most);
	demote_contested(mq, (CHURN_RUNS - 1u) * CHURN_WINDOW, 0);
	demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW - at_most);
	demote_contested(mq, (CHURN_RUNS - 1u) * CHURN_WINDOW, 0);
	KUNIT_EXPECT_FALSE(test, churning(mq));
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX);

	/* one more unhit than a near miss is churn */
	demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW - at_most - 1);
	KUNIT_EXPECT_TRUE(test, churning(mq));
	KUNIT_EXPECT_EQ(test, ghost_bias(g), 0);
	refusals_come_back(g, 1000);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), 0);
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, 0);

	/*
	 * Windows with hits lift the cap only CHURN_RUNS in a row, and then
	 * at the next payoff look: one of churn among them starts the count
	 * again.
	 */
	for (i = 0; i + 1u < CHURN_RUNS; i++)
		demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW / 2u);
	demote_contested(mq, CHURN_WINDOW, 0);
	for (i = 0; i + 1u < CHURN_RUNS; i++)
		demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW / 2u);
	KUNIT_EXPECT_TRUE(test, churning(mq));
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, 0);
	demote_contested(mq, CHURN_WINDOW, CHURN_WINDOW / 2u);
	KUNIT_EXPECT_FALSE(test, churning(mq));
	KUNIT_EXPECT_EQ(test, g->ceiling, 0);
	for (i = 0; i < PAYOFF_WINDOW; i++)
		note_payoff(mq);
	KUNIT_EXPECT_EQ(test, g->ceiling, BIAS_MAX);
	refusals_come_back(g, 1000);
	KUNIT_EXPECT_EQ(test, ghost_bias(g), BIAS_MAX);

	/* a full cache: the block that wins a place is contested, then hit */
	mq = make_policy(test, 16, 4096, false);
	load_mappings(test, mq, 16, 0, false, 0);
	for (i = 0; i < 40 && !counts[POLICY_PROMOTE]; i++) {
		KUNIT_EXPECT_NE(test, lookup(mq, 50000, READ, &cblock), 0);
		lookup(mq, 60000 + i, READ, &cblock);	/* so that 50000 counts again */
		run_background_work(mq, false, true, counts);
	}
	KUNIT_ASSERT_EQ(test, counts[POLICY_PROMOTE], 1u);
	e = h_lookup(&mq->table, 50000);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, e->contested);
	KUNIT_EXPECT_FALSE(test, e->hit);
	KUNIT_EXPECT_EQ(test, lookup(mq, 50000, READ, &cblock), 0);
	KUNIT_EXPECT_TRUE(test, e->hit);

	/* a failed demotion counts nothing, a successful one the block */
	memset(counts, 0, sizeof(counts));
	queue_background_work(mq, e, POLICY_DEMOTE);
	run_background_work(mq, false, false, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 1u);
	KUNIT_EXPECT_EQ(test, mq->churn_demoted, 0u);
	queue_background_work(mq, e, POLICY_DEMOTE);
	run_background_work(mq, false, true, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 2u);
	KUNIT_EXPECT_EQ(test, mq->churn_demoted, 1u);
	KUNIT_EXPECT_EQ(test, mq->churn_unhit, 0u);
	KUNIT_EXPECT_NULL(test, h_lookup(&mq->table, 50000));

	/* the freed block, loaded again, is neither contested nor hit */
	KUNIT_ASSERT_EQ(test, load(mq, 60000, from_cblock(cblock), false, 0, true), 0);
	e = h_lookup(&mq->table, 60000);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_FALSE(test, e->contested);
	KUNIT_EXPECT_FALSE(test, e->hit);
}

/*
 * A full cache of blocks in use: a scan through many more blocks, each
 * counted twice, moves nothing; a block looked up again and again does
 * get in.
 */
static void smq_test_admission(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 16, false);
	unsigned int round, i, counts[3] = {};
	unsigned long now = jiffies;
	dm_cblock_t cblock;

	load_mappings(test, mq, 64, 0, false, 0);
	for (round = 0; round < 8; round++)
		for (i = 0; i < 64; i++)
			KUNIT_EXPECT_EQ(test, lookup(mq, i, READ, &cblock), 0);

	for (i = 0; i < 2000; i++) {
		lookup(mq, 10000 + i, READ, &cblock);
		forget_recent_lookups(mq);	/* so that the second lookup counts */
		lookup(mq, 10000 + i, READ, &cblock);
		KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 10000 + i), 2u);
		if (i % 64 == 0) {
			now += HZ / 4;
			__smq_tick(mq, now);
			run_background_work(mq, false, true, counts);
		}
	}
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 0u);

	/* another block in between: each lookup of 50000 counts */
	for (i = 0; i < 40 && lookup(mq, 50000, READ, &cblock); i++) {
		lookup(mq, 60000 + i, READ, &cblock);
		run_background_work(mq, false, true, counts);
	}
	KUNIT_EXPECT_EQ(test, lookup(mq, 50000, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 1u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 1u);
	KUNIT_EXPECT_EQ(test, residency(mq), 64u);
}

/*
 * Several bios for one block, nothing in between, are one access: blocks
 * each read once in small bios stay out of a full cache, even one whose
 * blocks were never looked up (had each bio counted, they would have
 * replaced every one of them).  Scattered, the blocks make no stream to
 * read ahead.  Looked up again a second later, or after another block,
 * the block counts again.
 */
static void smq_test_repeated_lookups(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 20, false);
	unsigned int i, k, counts[3] = {};
	dm_cblock_t cblock;
	u64 b;

	load_mappings(test, mq, 64, 0, false, 0);
	for (i = 0; i < 2000; i++) {
		b = 100000 + (i * 7919u) % 500000u;
		for (k = 0; k < 16; k++)
			lookup(mq, b, READ, &cblock);
		run_background_work(mq, false, true, counts);
	}
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, b), 1u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), 64u);

	for (k = 0; k < 16; k++)
		KUNIT_EXPECT_EQ(test, lookup(mq, 5000, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 5000), 1u);
	forget_recent_lookups(mq);
	KUNIT_EXPECT_EQ(test, lookup(mq, 5000, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 5000), 2u);
	KUNIT_EXPECT_EQ(test, lookup(mq, 5001, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, lookup(mq, 5000, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 5000), 3u);

	/* a repeat still gets the mapping */
	KUNIT_EXPECT_EQ(test, lookup(mq, 7, READ, &cblock), 0);
	cblock = to_cblock(~0u);
	KUNIT_EXPECT_EQ(test, lookup(mq, 7, READ, &cblock), 0);
	KUNIT_EXPECT_PTR_EQ(test, cblock_entry(mq, cblock), h_lookup(&mq->table, 7));
}

/*
 * Two scans in bios of a quarter block, their bios interleaved with each
 * other and with lookups of another block: once a scan has run STREAM_RUN
 * blocks, each of its blocks counts once, whatever came between its bios,
 * and so do those of a scan with two bios in flight.
 * The other block, looked up again and again with others in between,
 * counts every time; so does a scan's block in a hot region, and any
 * block once the scan has moved on.
 */
static void smq_test_interleaved_streams(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 20, false);
	const u32 scans[2] = { 100000, 200000 };
	struct smq_entry *hs_e;
	dm_cblock_t cblock;
	unsigned int i, k, s;

	load_mappings(test, mq, 64, 0, false, 0);
	for (i = 0; i < 32; i++)
		for (k = 0; k < 4; k++)
			for (s = 0; s < 2; s++) {
				lookup(mq, scans[s] + i, READ, &cblock);
				lookup(mq, 5000, READ, &cblock);
			}
	for (s = 0; s < 2; s++) {
		KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, scans[s]), 4u);
		for (i = STREAM_RUN; i < 32; i++)
			KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, scans[s] + i), 1u);
	}
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 5000), SKETCH_MAX_COUNT);
	for (k = 0; k < 3; k++) {
		lookup(mq, 6000, READ, &cblock);
		lookup(mq, 7000 + 2 * k, READ, &cblock);
	}
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 6000), 3u);

	/*
	 * A third scan with two bios in flight: every other bio is already
	 * for the next block.  Once its run is long enough, each block
	 * still counts once.
	 */
	for (i = 0; i < 32; i++)
		for (k = 0; k < 4; k++) {
			lookup(mq, 300000 + i + (k & 1), READ, &cblock);
			lookup(mq, 5000, READ, &cblock);
		}
	for (i = 2 * STREAM_RUN; i < 32; i++)
		KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, 300000 + i), 1u);

	/* a block the scan has moved on from counts again */
	lookup(mq, scans[0] + 29, READ, &cblock);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, scans[0] + 29), 2u);

	/* in a hot region, a stream's block counts every time */
	lookup(mq, scans[1] + 32, READ, &cblock);
	hs_e = h_lookup(&mq->hotspot_table, to_hblock(mq, to_oblock(scans[1] + 32)));
	KUNIT_ASSERT_NOT_NULL(test, hs_e);
	q_requeue(&mq->hotspot, hs_e, NR_LEVELS);
	lookup(mq, 5000, READ, &cblock);
	lookup(mq, scans[1] + 32, READ, &cblock);
	KUNIT_EXPECT_EQ(test, sketch_estimate(&mq->sketch, scans[1] + 32), 2u);
}

/* Look up @oblock in @bios bios, running the work each queues at once. */
static unsigned int read_in_bios(struct smq_policy *mq, u64 oblock, int dir,
				 unsigned int bios, unsigned int counts[3])
{
	unsigned int hits = 0;
	dm_cblock_t cblock;

	while (bios--) {
		hits += !lookup(mq, oblock, dir, &cblock);
		run_background_work(mq, false, true, counts);
	}
	__smq_tick(mq, jiffies);
	return hits;
}

/* A full cache of 64 blocks at random levels, each looked up @count times. */
static struct smq_policy *full_cache(struct kunit *test, unsigned int count)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 20, false);
	unsigned int i, k;

	for (i = 0; i < 64; i++) {
		KUNIT_ASSERT_EQ(test, load(mq, i, i, false, 0, false), 0);
		for (k = 0; k < count; k++)
			sketch_add(&mq->sketch, i);
	}
	return mq;
}

/*
 * What is not read ahead, even into a cache whose blocks were never looked
 * up: a stream in two bios a block, a stream of writes, runs of blocks in
 * small bios too short to be a stream.
 */
static void smq_test_read_ahead_refused(struct kunit *test)
{
	struct smq_policy *mq = full_cache(test, 0);
	unsigned int i, j, counts[3] = {};

	for (i = 0; i < 500; i++)
		read_in_bios(mq, 100000 + i, READ, 2, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	for (i = 0; i < 500; i++)
		read_in_bios(mq, 200000 + i, WRITE, 16, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	for (j = 0; j < 100; j++)
		for (i = 0; i < STREAM_RUN; i++)
			read_in_bios(mq, 300000 + 10 * j + i, READ, 16, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), 64u);
}

/*
 * A full cache whose blocks were each looked up 8 times.  A stream in 4
 * bios a block does not replace them (its blocks count 4); one in 16 is
 * read ahead once its run is long enough: each block is promoted at its
 * first bio, into the bottom level, and its other 15 bios hit; the stream
 * cycles through the blocks it took, and the working set keeps all but
 * one or two.  A stream in whole blocks after it is not read ahead.
 */
static void smq_test_read_ahead(struct kunit *test)
{
	struct smq_policy *mq = full_cache(test, 8);
	unsigned int i, hits = 0, kept = 0, counts[3] = {};
	struct smq_entry *e;

	for (i = 0; i < 500; i++)
		read_in_bios(mq, 100000 + i, READ, 4, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);

	for (i = 0; i < 2000; i++)
		hits += read_in_bios(mq, 300000 + i, READ, 16, counts);
	for (i = 0; i < 64; i++)
		kept += !!h_lookup(&mq->table, i);
	KUNIT_EXPECT_GE(test, counts[POLICY_PROMOTE], 2000u - 2 * STREAM_RUN);
	KUNIT_EXPECT_GE(test, hits, (2000u - 2 * STREAM_RUN) * 15u);
	KUNIT_EXPECT_GE(test, kept, 62u);
	e = h_lookup(&mq->table, 300000 + 1999);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), 64u);

	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 500; i++)
		read_in_bios(mq, 400000 + i, READ, 1, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
}

/*
 * A stream in 3 bios a block with two bios in flight: each block's last
 * bio comes after the next block's first, so the block before it tells
 * how many bios the stream reads a block in.  It is read ahead.
 */
static void smq_test_read_ahead_in_flight(struct kunit *test)
{
	struct smq_policy *mq = full_cache(test, 0);
	unsigned int i, k, hits = 0, counts[3] = {};
	dm_cblock_t cblock;

	for (i = 0; i < 500; i++)
		for (k = 0; k < 3; k++) {
			hits += !lookup(mq, 500000 + i + (k & 1), READ, &cblock);
			run_background_work(mq, false, true, counts);
		}
	KUNIT_EXPECT_GE(test, counts[POLICY_PROMOTE], 500u - 2 * STREAM_RUN);
	KUNIT_EXPECT_GE(test, hits, (500u - 2 * STREAM_RUN) * 2u);
}

/*
 * A one-block cache, its block in the top level: there is still a victim.
 * A victim whose cache block now holds another origin block is picked
 * anew, not judged by the old block's count.
 */
static void smq_test_victims(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 1, 4096, false);
	unsigned int i, freq, counts[3] = {};
	struct smq_entry *v;
	dm_cblock_t cblock;

	load_mappings(test, mq, 1, 0, false, NR_LEVELS - 1);
	for (i = 0; i < 10 && lookup(mq, 100, READ, &cblock); i++) {
		lookup(mq, 200 + i, READ, &cblock);	/* so that 100 counts again */
		run_background_work(mq, false, true, counts);
	}
	KUNIT_EXPECT_EQ(test, lookup(mq, 100, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 1u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 1u);

	mq = make_policy(test, 16, 4096, false);
	load_mappings(test, mq, 16, 0, false, 0);
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	current_victim(mq, &freq);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 1u);
	e_set_block(&mq->es, v, 9999);	/* as if freed and given to another block */
	current_victim(mq, &freq);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 0u);

	/*
	 * A kept pick made dirty, or invalidated, is picked no more; nor is
	 * one whose writeback has copied it (the target marks it clean
	 * before it completes the work, and lookups may come in between).
	 */
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	smq_set_dirty(&mq->policy, infer_cblock(mq, v));
	KUNIT_EXPECT_PTR_NE(test, current_victim(mq, &freq), v);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 0u);
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	smq_set_dirty(&mq->policy, infer_cblock(mq, v));
	KUNIT_ASSERT_TRUE(test, queue_background_work(mq, v, POLICY_WRITEBACK));
	smq_clear_dirty(&mq->policy, infer_cblock(mq, v));
	KUNIT_EXPECT_PTR_NE(test, current_victim(mq, &freq), v);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 0u);
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, infer_cblock(mq, v)));
	KUNIT_EXPECT_PTR_NE(test, current_victim(mq, &freq), v);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 0u);

	/*
	 * No clean block: a miss asks for a writeback, unless no dirty
	 * block has been idle long enough since the sentinels last moved.
	 */
	mq = make_policy(test, 16, 4096, false);
	load_mappings(test, mq, 16, 0, true, 0);
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, READ, false, 9, &v));
	KUNIT_EXPECT_NULL(test, v);
	mq->no_idle_dirty = true;
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(101), NULL, READ, false, 9, &v));
	update_sentinels(mq, jiffies + 2 * WRITEBACK_PERIOD + 1);
	KUNIT_EXPECT_FALSE(test, mq->no_idle_dirty);
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(102), NULL, READ, false, 9, &v));
}

/* The @n-th oldest block of @level, sentinels skipped. */
static struct smq_entry *oldest_block(struct smq_queue *q, unsigned int level, unsigned int n)
{
	struct smq_entry *e;

	for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e))
		if (!e_is_sentinel(q->es, e) && !n--)
			return e;
	return NULL;
}

/*
 * A victim hit since it came in counts one lookup more: of two sampled
 * blocks counted the same, the unhit one goes; with both hit, a
 * candidate counted 2 no longer clears the margin over the victim.  At
 * the sketch's ceiling the count stays at the ceiling.  A hit on the
 * kept victim, or its invalidation, drops it, so that no stale count is
 * weighed against.
 */
static void smq_test_victim_hit(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct smq_entry *first, *second, *v;
	unsigned int i, freq;
	dm_cblock_t cblock;

	load_mappings(test, mq, 16, 0, false, 0);
	first = oldest_block(&mq->clean, 0, 0);
	second = oldest_block(&mq->clean, 0, 1);
	KUNIT_ASSERT_NOT_NULL(test, second);
	first->hit = true;
	KUNIT_EXPECT_PTR_EQ(test, current_victim(mq, &freq), second);
	KUNIT_EXPECT_EQ(test, freq, 0u);
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(100), NULL, READ, false, 2, &v));
	KUNIT_EXPECT_PTR_EQ(test, v, second);

	second->hit = true;
	mq->victim = SMQ_NULL;	/* as its hit would, without lifting it */
	KUNIT_EXPECT_PTR_EQ(test, current_victim(mq, &freq), first);
	KUNIT_EXPECT_EQ(test, freq, 1u);
	KUNIT_EXPECT_FALSE(test, should_promote(mq, to_oblock(101), NULL, READ, false, 2, &v));
	KUNIT_EXPECT_TRUE(test, should_promote(mq, to_oblock(102), NULL, READ, false, 3, &v));
	KUNIT_EXPECT_PTR_EQ(test, v, first);

	for (i = 0; i <= SKETCH_MAX_COUNT; i++) {
		sketch_add(&mq->sketch, e_block(&mq->es, first));
		sketch_add(&mq->sketch, e_block(&mq->es, second));
	}
	mq->victim = SMQ_NULL;
	v = current_victim(mq, &freq);
	KUNIT_EXPECT_EQ(test, freq, SKETCH_MAX_COUNT);

	/* a hit would change the count kept with the pick: it drops the pick */
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, lookup(mq, e_block(&mq->es, v), READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, mq->victim, SMQ_NULL);

	/*
	 * So does an invalidation: promoted back into the same block, the
	 * origin block would pass for the pick, its hit long gone.
	 */
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, infer_cblock(mq, v)));
	KUNIT_EXPECT_EQ(test, mq->victim, SMQ_NULL);
}

static struct smq_entry *youngest(struct smq_queue *q, unsigned int level)
{
	return to_entry(q->es, q->qs[level].tail);
}

/*
 * Every hit lifts a block HIT_LIFT levels, as the youngest there: once
 * out of the lower half it is no victim, and hit again it stays on top.
 * A cache whose lower half the hits emptied has no victim until the
 * levels are spread again.
 */
static void smq_test_hit_lift(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, NR_LEVELS + 1, 4096, false);
	struct smq_entry *e, *v;
	dm_cblock_t cblock;
	unsigned int i, freq;

	/* keep redistribution out of this test */
	mq->cache_period_end = mq->lookups + (1u << 30);
	load_mappings(test, mq, NR_LEVELS + 1, 0, false, 0);
	e = cblock_entry(mq, to_cblock(5));

	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 5, READ, &cblock));
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, HIT_LIFT);
	KUNIT_EXPECT_EQ(test, mq->clean.qs[HIT_LIFT].nr_elts, 1u);
	/* another bio of the same access (nothing in between) does not lift */
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 5, READ, &cblock));
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, HIT_LIFT);
	/* the second hit in the same period, after another lookup, lifts it too */
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 1000, READ, &cblock));
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 5, READ, &cblock));
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, NR_LEVELS - 1);
	KUNIT_EXPECT_EQ(test, mq->clean.qs[HIT_LIFT].nr_elts, 0u);

	/* at the top a hit makes it the youngest again */
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 6, READ, &cblock));
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 1001, READ, &cblock));
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 6, READ, &cblock));
	KUNIT_EXPECT_PTR_EQ(test, youngest(&mq->clean, NR_LEVELS - 1),
			    cblock_entry(mq, to_cblock(6)));
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 5, READ, &cblock));
	KUNIT_EXPECT_PTR_EQ(test, youngest(&mq->clean, NR_LEVELS - 1), e);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, NR_LEVELS + 1);

	/* a dirty block is lifted within the dirty queue */
	smq_set_dirty(&mq->policy, to_cblock(7));
	KUNIT_ASSERT_EQ(test, 0, lookup(mq, 7, WRITE, &cblock));
	KUNIT_EXPECT_EQ(test, (unsigned int)cblock_entry(mq, cblock)->level, HIT_LIFT);
	KUNIT_EXPECT_EQ(test, mq->dirty.qs[HIT_LIFT].nr_elts, 1u);

	/* no block hit is a victim while any block is not */
	for (i = 0; i <= NR_LEVELS; i++) {
		v = current_victim(mq, &freq);
		KUNIT_ASSERT_NOT_NULL(test, v);
		KUNIT_EXPECT_FALSE(test, v->hit);
		if (i != 7)
			KUNIT_ASSERT_EQ(test, 0, lookup(mq, i, READ, &cblock));
	}

	/*
	 * Every clean block was hit: none is left in the lower half, and
	 * with more clean blocks than levels the upper half is not searched.
	 */
	KUNIT_EXPECT_NULL(test, current_victim(mq, &freq));
	q_redistribute(&mq->clean);
	/* finding none holds for the rest of the lookup */
	KUNIT_EXPECT_NULL(test, current_victim(mq, &freq));
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 1000, READ, &cblock));
	KUNIT_EXPECT_NOT_NULL(test, current_victim(mq, &freq));
}

/* Promote the block @oblock's lookup queued; returns its entry. */
static struct smq_entry *promote_queued(struct kunit *test, struct smq_policy *mq, u64 oblock,
					bool success)
{
	struct policy_work *work = NULL;
	dm_cblock_t cblock;

	KUNIT_EXPECT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	if (!work)
		return NULL;
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), oblock);
	cblock = work->cblock;
	smq_complete_background_work(&mq->policy, work, success);
	return cblock_entry(mq, cblock);
}

/*
 * Until the cache is first full, a block seen for the first time is
 * promoted into the bottom level, one seen before into the top.  From
 * then on a first sight is not promoted, not even into a block freed
 * again, unless it is a write covering the whole block.
 */
static void smq_test_first_sight(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 4, 4096, false);
	struct policy_work *work = NULL;
	struct smq_entry *e, *failed;
	dm_cblock_t cblock;

	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 7, READ, &cblock));
	e = promote_queued(test, mq, 7, true);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, 0u);

	sketch_add(&mq->sketch, 8);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 8, READ, &cblock));
	e = promote_queued(test, mq, 8, true);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, NR_LEVELS - 1);

	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 11, READ, &cblock));
	promote_queued(test, mq, 11, true);

	/*
	 * A failed first-sight promotion of the last free block: the block
	 * seen before that gets the same entry next enters at the top.
	 */
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 9, READ, &cblock));
	failed = promote_queued(test, mq, 9, false);
	KUNIT_EXPECT_EQ(test, residency(mq), 3u);
	sketch_add(&mq->sketch, 10);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 10, READ, &cblock));
	e = promote_queued(test, mq, 10, true);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_PTR_EQ(test, e, failed);
	KUNIT_EXPECT_EQ(test, (unsigned int)e->level, NR_LEVELS - 1);

	/* full: a first sight is not promoted */
	KUNIT_EXPECT_EQ(test, residency(mq), 4u);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 12, READ, &cblock));
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_get_background_work(&mq->policy, false, &work));

	/* nor once a block is free again, but for a whole-block write */
	KUNIT_ASSERT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, to_cblock(0)));
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 13, READ, &cblock));
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, -ENOENT, smq_lookup_with_work(&mq->policy, to_oblock(14), &cblock,
							    WRITE, true, &work));
	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), 14ull);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 14, READ, &cblock));
}

/* A hot set that fits is promoted and then hits. */
static void smq_test_hot_set_promoted(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 64, 1u << 16, false);
	unsigned long now = jiffies;
	unsigned int round, i, hits = 0, counts[3] = {};
	dm_cblock_t cblock;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < 32; i++) {
			int r = lookup(mq, 1000 + i * 16, READ, &cblock);

			if (round >= 50)
				hits += !r;
		}
		now += HZ / 2;
		__smq_tick(mq, now);
		run_background_work(mq, true, true, counts);
	}

	KUNIT_EXPECT_EQ(test, residency(mq), 32u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 32u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 0u);
	/* warm after 50 rounds */
	KUNIT_EXPECT_EQ(test, hits, 32u * 150u);
}

/* Promotion, demotion and writeback, completed and failed. */
static void smq_test_background_work(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 8, 4096, false);
	struct policy_work *work, *second;
	dm_cblock_t cblock, promoted;
	unsigned int i;

	/* a whole-block write is promoted at once */
	KUNIT_EXPECT_EQ(test, -ENOENT, smq_lookup_with_work(&mq->policy, to_oblock(100),
							    &cblock, WRITE, true, &work));
	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), 100ull);
	KUNIT_EXPECT_EQ(test, residency(mq), 1u);	/* the block is reserved */

	/* the same block is not queued twice */
	smq_lookup_with_work(&mq->policy, to_oblock(100), &cblock, WRITE, true, &second);
	KUNIT_EXPECT_NULL(test, second);

	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, residency(mq), 0u);
	/* a second later (not on first sight), it is queued once more */
	forget_recent_lookups(mq);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 100, READ, &cblock));
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), 100ull);
	promoted = work->cblock;	/* the work is freed once complete */
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 100, READ, &cblock));
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), from_cblock(promoted));
	/* it entered at the top, and the hit kept it there */
	KUNIT_EXPECT_EQ(test, (unsigned int)cblock_entry(mq, cblock)->level, NR_LEVELS - 1);

	/* dirty blocks are written back when idle, not when busy */
	for (i = 1; i < 8; i++) {
		smq_lookup_with_work(&mq->policy, to_oblock(100 + i), &cblock, WRITE, true, &work);
		KUNIT_ASSERT_NOT_NULL(test, work);
		promoted = work->cblock;
		smq_complete_background_work(&mq->policy, work, true);
		smq_set_dirty(&mq->policy, promoted);
	}
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 7u);
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_get_background_work(&mq->policy, false, &work));

	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, true, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_WRITEBACK);
	/* a failed writeback leaves the block dirty */
	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 7u);
	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, NULL), 7u);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 0u);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 8u);

	/*
	 * A full cache demotes to make room, from the lower levels, where
	 * the blocks written on first sight entered.
	 */
	KUNIT_EXPECT_TRUE(test, allocator_empty(&mq->cache_alloc));
	__smq_tick(mq, jiffies + 1);	/* the first tick ends a cache period */
	queue_promotion(mq, to_oblock(999), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_DEMOTE);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 7u);
	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 8u);
	KUNIT_EXPECT_EQ(test, residency(mq), 8u);

	queue_promotion(mq, to_oblock(999), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	i = from_oblock(work->oblock);
	promoted = work->cblock;
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, i, READ, &cblock));
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), 0u);

	/* the freed block goes to the block that won it, not to the next miss */
	KUNIT_EXPECT_EQ(test, residency(mq), 8u);
	KUNIT_EXPECT_PTR_EQ(test, promote_queued(test, mq, 999, true), cblock_entry(mq, promoted));
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 999, READ, &cblock));
}

/* Queue dummy promotions into @mq's tracker until it refuses more. */
static void fill_tracker(struct kunit *test, struct smq_policy *mq)
{
	struct policy_work work = { .op = POLICY_PROMOTE };
	unsigned int i;

	for (i = 0; i <= MAX_BACKGROUND_WORK; i++) {
		work.oblock = to_oblock(1000 + i);
		work.cblock = to_cblock(i % 16);
		if (btracker_queue(mq->bg_work, &work, NULL))
			break;
	}
	KUNIT_ASSERT_LE(test, i, MAX_BACKGROUND_WORK);
}

/*
 * With the tracker full, a winner's demotion cannot be queued: the winner
 * is not made heir to a block nobody frees, and the victim, still cached,
 * is not remembered as demoted.
 */
static void smq_test_demotion_refused(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	bool queued;

	load_mappings(test, mq, 16, 0, false, 0);
	fill_tracker(test, mq);

	KUNIT_EXPECT_NULL(test, queue_promotion(mq, to_oblock(999), NR_LEVELS - 1, NULL, NULL,
						&queued));
	KUNIT_EXPECT_FALSE(test, queued);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 0u);
	KUNIT_EXPECT_EQ(test, mq->ghosts.credit, 0u);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 16u);
	KUNIT_EXPECT_EQ(test, residency(mq), 16u);
}

/*
 * Winners whose demotions are in flight together each get a block: the
 * first demotion to end promotes the first winner, the next the second.
 * A winner still waiting, or being promoted, queues no second demotion;
 * with MAX_HEIRS winners waiting no more demotions are queued, and a
 * failed demotion leaves the oldest winner without a block.  Only the
 * demotions queued count as promotions into a full cache.
 */
static void smq_test_heirs(struct kunit *test)
{
	/* room for MAX_HEIRS demotions under the free target */
	const unsigned int nr = 4 * MAX_HEIRS + 64;
	struct smq_policy *mq = make_policy(test, nr, 8 * nr, false);
	struct policy_work *first, *second, *work;
	unsigned int i;

	load_mappings(test, mq, nr, 0, false, 0);
	__smq_tick(mq, jiffies + 1);
	queue_promotion(mq, to_oblock(nr + 1), NR_LEVELS - 1, NULL, NULL, NULL);
	queue_promotion(mq, to_oblock(nr + 2), NR_LEVELS - 1, NULL, NULL, NULL);
	queue_promotion(mq, to_oblock(nr + 1), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), 2u);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 2u);
	/* only a demotion queued counts towards the look at the payoff */
	KUNIT_EXPECT_EQ(test, mq->payoff_swaps, 2u);

	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &first));
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &second));
	KUNIT_EXPECT_EQ(test, first->op, POLICY_DEMOTE);
	KUNIT_EXPECT_EQ(test, second->op, POLICY_DEMOTE);
	for (i = 1; i <= 2; i++) {
		/* whichever demotion ends, the oldest winner has its block */
		smq_complete_background_work(&mq->policy, i == 1 ? second : first, true);
		KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
		KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
		KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), (u64)nr + i);
		if (i == 1) {
			/*
			 * The first is being promoted: no second demotion (the
			 * one counted is the other winner's, still running).
			 */
			queue_promotion(mq, to_oblock(nr + 1), NR_LEVELS - 1, NULL, NULL, NULL);
			KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), 1u);
		}
		smq_complete_background_work(&mq->policy, work, true);
	}
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), nr);

	for (i = 0; i <= MAX_HEIRS; i++)
		queue_promotion(mq, to_oblock(2 * nr + i), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, MAX_HEIRS);
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), MAX_HEIRS);
	KUNIT_EXPECT_EQ(test, mq->payoff_swaps, (2u + MAX_HEIRS) % PAYOFF_WINDOW);
	KUNIT_EXPECT_FALSE(test, free_target_met(mq));
	/* the ring wrapped: the last winner sits in its second slot */
	KUNIT_EXPECT_EQ(test, mq->first_heir, 2u);
	KUNIT_EXPECT_TRUE(test, is_heir(mq, to_oblock(2 * nr + MAX_HEIRS - 1)));
	KUNIT_EXPECT_FALSE(test, is_heir(mq, to_oblock(2 * nr + MAX_HEIRS)));

	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_DEMOTE);
	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, MAX_HEIRS - 1);
	KUNIT_EXPECT_FALSE(test, is_heir(mq, to_oblock(2 * nr)));
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), MAX_HEIRS - 1);
	KUNIT_EXPECT_EQ(test, residency(mq), nr);
}

/*
 * A full cache of 16 clean blocks in which block 100 won one: returns
 * the demotion it queued, issued.
 */
static struct policy_work *winner_waiting(struct kunit *test, struct smq_policy *mq)
{
	struct policy_work *work;

	load_mappings(test, mq, 16, 0, false, 0);
	__smq_tick(mq, jiffies + 1);
	queue_promotion(mq, to_oblock(100), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_ASSERT_EQ(test, mq->nr_heirs, 1u);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_ASSERT_EQ(test, work->op, POLICY_DEMOTE);
	return work;
}

/*
 * A block invalidated while its demotion runs was discarded: it leaves
 * when the demotion ends, even a failed one, and the winner waiting for
 * a block gets that one.
 */
static void smq_test_invalidate_demotion(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct policy_work *work;
	dm_cblock_t cblock, freed;

	work = winner_waiting(test, mq);
	freed = work->cblock;
	KUNIT_EXPECT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, freed));
	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 0u);

	KUNIT_EXPECT_PTR_EQ(test, promote_queued(test, mq, 100, true), cblock_entry(mq, freed));
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 100, READ, &cblock));
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), from_cblock(freed));
	KUNIT_EXPECT_EQ(test, residency(mq), 16u);
}

/*
 * Demotions for winners stop once the blocks free and those being freed
 * make up FREE_TARGET percent of the cache.
 */
static void smq_test_free_target(struct kunit *test)
{
	const unsigned int nr = 64, target = nr * FREE_TARGET / 100u;
	struct smq_policy *mq = make_policy(test, nr, 4096, false);
	unsigned int i;
	bool queued;

	load_mappings(test, mq, nr, 0, false, 0);
	__smq_tick(mq, jiffies + 1);
	for (i = 0; i < target; i++) {
		queue_promotion(mq, to_oblock(1000 + i), NR_LEVELS - 1, NULL, NULL, &queued);
		KUNIT_EXPECT_TRUE(test, queued);
	}
	KUNIT_EXPECT_TRUE(test, free_target_met(mq));
	queue_promotion(mq, to_oblock(2000), NR_LEVELS - 1, NULL, NULL, &queued);
	KUNIT_EXPECT_FALSE(test, queued);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, target);
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), target);
	KUNIT_EXPECT_EQ(test, run_background_work(mq, false, true, NULL), 2u * target);
	KUNIT_EXPECT_EQ(test, residency(mq), nr);
}

/*
 * A winner cached by other means while it waits (a whole-block write
 * into a block an invalidation freed) is not promoted a second time
 * when its demotion ends.
 */
static void smq_test_heir_cached_meanwhile(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct policy_work *demotion, *work;
	dm_cblock_t cblock, other;

	demotion = winner_waiting(test, mq);
	other = to_cblock((from_cblock(demotion->cblock) + 1) % 16);
	KUNIT_ASSERT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, other));

	smq_lookup_with_work(&mq->policy, to_oblock(100), &cblock, WRITE, true, &work);
	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	smq_complete_background_work(&mq->policy, work, true);

	smq_complete_background_work(&mq->policy, demotion, true);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 0u);
	KUNIT_EXPECT_NE(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 100, READ, &cblock));
	KUNIT_EXPECT_EQ(test, residency(mq), 15u);
}

/*
 * A demotion that ends while the tracker is full has made room for its
 * winner's promotion: it is retired before that promotion is queued.
 */
static void smq_test_heir_tracker_full(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	struct policy_work *demotion;

	demotion = winner_waiting(test, mq);
	fill_tracker(test, mq);

	smq_complete_background_work(&mq->policy, demotion, true);
	KUNIT_EXPECT_EQ(test, mq->nr_heirs, 0u);
	KUNIT_EXPECT_TRUE(test, btracker_promotion_already_present(mq->bg_work, to_oblock(100)));
}

/*
 * Sentinels split each level into blocks not requeued for a period and
 * younger ones; a busy cache writes back only the older.
 */
static void smq_test_sentinels(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 4, 4096, false);
	unsigned long now = jiffies;
	dm_cblock_t cblock;
	unsigned int i;

	/* keep redistribution out of this test */
	mq->cache_period_end = mq->lookups + (1u << 30);
	load_mappings(test, mq, 4, 0, true, 0);
	/* loaded blocks are ahead of the sentinels: old */
	KUNIT_EXPECT_PTR_EQ(test, q_peek(&mq->dirty, NR_LEVELS, false),
			    cblock_entry(mq, to_cblock(3)));

	/* a write moves a block behind the sentinels of its new level */
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, WRITE, &cblock));
		KUNIT_EXPECT_EQ(test, (unsigned int)cblock_entry(mq, cblock)->level, HIT_LIFT);
	}
	KUNIT_EXPECT_NULL(test, q_peek(&mq->dirty, NR_LEVELS, false));
	KUNIT_EXPECT_NOT_NULL(test, q_peek(&mq->dirty, NR_LEVELS, true));

	/* two writeback periods later they are old again */
	now += WRITEBACK_PERIOD + 1;
	__smq_tick(mq, now);
	KUNIT_EXPECT_NULL(test, q_peek(&mq->dirty, NR_LEVELS, false));
	now += WRITEBACK_PERIOD + 1;
	__smq_tick(mq, now);
	KUNIT_EXPECT_NOT_NULL(test, q_peek(&mq->dirty, NR_LEVELS, false));

	/* the same for demote sentinels in the clean queue */
	for (i = 0; i < 4; i++)
		smq_clear_dirty(&mq->policy, to_cblock(i));
	KUNIT_EXPECT_NULL(test, q_peek(&mq->clean, NR_LEVELS, false));
	now += DEMOTE_PERIOD + 1;
	__smq_tick(mq, now);
	now += DEMOTE_PERIOD + 1;
	__smq_tick(mq, now);
	KUNIT_EXPECT_NOT_NULL(test, q_peek(&mq->clean, NR_LEVELS, false));

	/*
	 * A period ends within its length: a deadline further ahead is one
	 * that ended so long ago that jiffies wrapped past it (a 32-bit
	 * kernel's, in a long suspend without ticks).
	 */
	mq->no_idle_dirty = true;
	mq->next_writeback_period = now + WRITEBACK_PERIOD / 2;
	update_sentinels(mq, now);
	KUNIT_EXPECT_TRUE(test, mq->no_idle_dirty);
	mq->next_writeback_period = now + 3 * WRITEBACK_PERIOD;
	mq->next_demote_period = now + 3 * DEMOTE_PERIOD;
	update_sentinels(mq, now);
	KUNIT_EXPECT_FALSE(test, mq->no_idle_dirty);
	KUNIT_EXPECT_EQ(test, mq->next_writeback_period, now + WRITEBACK_PERIOD);
	KUNIT_EXPECT_EQ(test, mq->next_demote_period, now + DEMOTE_PERIOD);
}

/* End a cache period of @mq that saw @hits hits and @swaps swaps. */
static void end_period_with(struct smq_policy *mq, unsigned int hits, unsigned int swaps)
{
	mq->period_hits = hits;
	mq->period_swaps = swaps;
	note_cache_period(mq);
}

/*
 * Hits falling to under an eighth, for two cache periods in a row and
 * with no swap, start the sketch's halving at the next lookup; one
 * period of it, a swap, or hits that were few before do not.
 */
static void smq_test_drop_halves_sketch(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 256, 4096, false);
	unsigned int period = cache_period(mq), countdown;

	mq->filled = true;
	countdown = mq->sketch.countdown;
	KUNIT_ASSERT_GT(test, countdown, 1u);

	end_period_with(mq, period / 2, 0);
	end_period_with(mq, period / 32, 0);
	KUNIT_EXPECT_EQ(test, mq->sketch.countdown, countdown);
	/* a swap: the cache adapts, the counts do not hold it back */
	end_period_with(mq, period / 32, 1);
	KUNIT_EXPECT_EQ(test, mq->sketch.countdown, countdown);
	/* hits were few: a drop from them is noise */
	end_period_with(mq, period / 16, 0);
	end_period_with(mq, 0, 0);
	end_period_with(mq, 0, 0);
	KUNIT_EXPECT_EQ(test, mq->sketch.countdown, countdown);

	end_period_with(mq, period / 2, 0);
	end_period_with(mq, period / 32, 0);
	end_period_with(mq, period / 32, 0);
	KUNIT_EXPECT_EQ(test, mq->sketch.countdown, 1u);
	/* once per drop: the next lookup starts the sweep, the drop goes on */
	look_up_counted(mq, 1, 1);
	KUNIT_EXPECT_NE(test, mq->sketch.sweep, ~0u);
	mq->sketch.countdown = countdown;
	mq->sketch.sweep = ~0u;
	end_period_with(mq, 0, 0);
	KUNIT_EXPECT_EQ(test, mq->sketch.countdown, countdown);
}

/* How many sentinels of its level @e is behind: 0 if idle for a period at least. */
static unsigned int sentinels_ahead(struct smq_queue *q, struct smq_entry *e)
{
	struct smq_entry *x;
	unsigned int n = 0;

	for (x = l_head(q->es, q->qs + e->level); x && x != e; x = l_next(q->es, x))
		n += e_is_sentinel(q->es, x);
	return n;
}

/*
 * A redistribution keeps the dirty blocks it moves as idle as they were:
 * ahead of both writeback sentinels, between them, or behind both.
 * Moved to the back of their new level, idle blocks looked busy for two
 * more periods and were not written back while the cache was busy.
 */
static void smq_test_redistribute_keeps_idleness(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 8, 4096, false);
	unsigned long now = jiffies;
	unsigned int i, moved = 0, band[8] = { 0, 0, 0, 2, 1, 1, 1, 1 };
	dm_cblock_t cblock;
	struct smq_entry *e;

	/* keep the lookups' redistributions out of this test */
	mq->cache_period_end = mq->lookups + (1u << 30);
	load_mappings(test, mq, 8, 0, true, NR_LEVELS - 1);
	/* 4 to 7 written, then the sentinels move: between them */
	for (i = 4; i < 8; i++)
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, WRITE, &cblock));
	now += WRITEBACK_PERIOD + 1;
	__smq_tick(mq, now);
	/* 3 written since: behind both */
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 3, WRITE, &cblock));
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, sentinels_ahead(&mq->dirty, cblock_entry(mq, to_cblock(i))),
				band[i]);

	q_redistribute(&mq->dirty);
	for (i = 0; i < 8; i++) {
		e = cblock_entry(mq, to_cblock(i));
		moved += e->level != NR_LEVELS - 1;
		KUNIT_EXPECT_EQ_MSG(test, sentinels_ahead(&mq->dirty, e), band[i],
				    "block %u, level %u", i, (unsigned int)e->level);
	}
	KUNIT_EXPECT_EQ(test, moved, 7u);
	/* the idle blocks moved into the lower half may be written back busy */
	e = q_peek(&mq->dirty, NR_LEVELS / 2u, false);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_LT(test, from_cblock(infer_cblock(mq, e)), 3u);
}

/* The same going up: blocks loaded into the bottom level stay idle. */
static void smq_test_redistribute_up_keeps_idleness(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 8, 4096, false);
	unsigned int i, moved = 0;
	struct smq_entry *e;

	mq->cache_period_end = mq->lookups + (1u << 30);
	load_mappings(test, mq, 8, 0, true, 0);
	q_redistribute(&mq->dirty);
	for (i = 0; i < 8; i++) {
		e = cblock_entry(mq, to_cblock(i));
		moved += e->level != 0;
		KUNIT_EXPECT_EQ_MSG(test, sentinels_ahead(&mq->dirty, e), 0u,
				    "block %u, level %u", i, (unsigned int)e->level);
	}
	KUNIT_EXPECT_EQ(test, moved, 8u);
	KUNIT_EXPECT_NOT_NULL(test, q_peek(&mq->dirty, NR_LEVELS / 2u, false));
}

/*
 * Busy, a writeback is queued only for a dirty block of the lower half
 * idle for a writeback period (ahead of the sentinels); finding none, the
 * policy says so until the sentinels move.  Idle, any dirty block goes.
 */
static void smq_test_busy_writeback(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 4, 4096, false);

	/* keep redistribution out of this test */
	mq->cache_period_end = mq->lookups + (1u << 30);
	/* idle, but in the upper half */
	load_mappings(test, mq, 2, 0, true, NR_LEVELS - 1);
	KUNIT_EXPECT_FALSE(test, queue_writeback(mq, false));
	KUNIT_EXPECT_TRUE(test, mq->no_idle_dirty);

	/* in the lower half, but dirtied just now: behind the sentinels */
	KUNIT_ASSERT_EQ(test, load(mq, 2, 2, false, 0, true), 0);
	smq_set_dirty(&mq->policy, to_cblock(2));
	mq->no_idle_dirty = false;
	KUNIT_EXPECT_FALSE(test, queue_writeback(mq, false));
	KUNIT_EXPECT_TRUE(test, mq->no_idle_dirty);
	KUNIT_EXPECT_EQ(test, btracker_nr_writebacks_queued(mq->bg_work), 0u);

	KUNIT_EXPECT_TRUE(test, queue_writeback(mq, true));
	KUNIT_EXPECT_EQ(test, btracker_nr_writebacks_queued(mq->bg_work), 1u);
}

/*
 * A full cache of dirty blocks and one clean block, lately hit, in the
 * upper half of its queue: a busy cache still adapts.  A candidate that
 * loses to the clean block but beats an idle dirty block of the lower
 * half has that block written back, one at a time, and then wins it.
 */
static void smq_test_writeback_for_victim(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, false);
	unsigned int counts[3] = {};
	dm_cblock_t cblock;

	load_mappings(test, mq, 15, 0, true, 0);
	KUNIT_ASSERT_EQ(test, load(mq, 15, 15, false, NR_LEVELS - 1, true), 0);
	look_up_counted(mq, 15, 12);
	KUNIT_ASSERT_GE(test, (unsigned int)cblock_entry(mq, to_cblock(15))->level,
			NR_LEVELS / 2u);

	look_up_counted(mq, 100, 4);
	KUNIT_EXPECT_EQ(test, btracker_nr_writebacks_queued(mq->bg_work), 1u);
	KUNIT_EXPECT_EQ(test, btracker_nr_demotions_queued(mq->bg_work), 0u);
	run_background_work(mq, false, true, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_WRITEBACK], 1u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 0u);

	look_up_counted(mq, 100, 1);
	run_background_work(mq, false, true, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 1u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 1u);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 100, READ, &cblock));
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 15, READ, &cblock));
}

/*
 * Idle, the dirty blocks of the lower half are written back at once, the
 * others only once no lookup came for a writeback period.  (A queue with
 * fewer blocks than levels is cleaned whole at once: see
 * smq_test_background_work.)
 */
static void smq_test_idle_writeback(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 2 * NR_LEVELS, 4096, false);
	unsigned int i, counts[3] = {};
	unsigned long before;
	dm_cblock_t cblock;

	/* keep redistribution out of this test */
	mq->cache_period_end = mq->lookups + (1u << 30);
	for (i = 0; i < 2 * NR_LEVELS; i++)
		KUNIT_ASSERT_EQ(test, load(mq, i, i, true, i < NR_LEVELS ? 0 : NR_LEVELS - 1, true),
				0);
	/* the upper half hit lately: behind the sentinels */
	for (i = NR_LEVELS; i < 2 * NR_LEVELS; i++)
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, READ, &cblock));
	/* a miss of a full cache, seen once: no promotion, but a lookup */
	before = jiffies;
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 5000, READ, &cblock));
	KUNIT_EXPECT_LE(test, (u32)jiffies - mq->last_counted->at, (u32)(jiffies - before));

	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, counts), NR_LEVELS);
	KUNIT_EXPECT_EQ(test, counts[POLICY_WRITEBACK], NR_LEVELS);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, NR_LEVELS);
	KUNIT_EXPECT_EQ(test, q_populated(&mq->dirty, 0, NR_LEVELS / 2u), 0ull);
	/* busy, none of the upper half either */
	KUNIT_EXPECT_FALSE(test, queue_writeback(mq, false));

	mq->last_counted->at = (u32)jiffies - WRITEBACK_PERIOD - 1;
	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, NULL), NR_LEVELS);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 0u);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 2u * NR_LEVELS);
}

/*
 * Idle, a dirty block of the upper half idle for a writeback period is
 * written back too, however lately something else was looked up: a cache
 * idle between lookups a few seconds apart does not stay dirty for good.
 * A block only read waits for one sentinel move, one written for two,
 * whether read after the write or before it (the write of a
 * read-modify-write repeats the read's lookup): see requeue().
 */
static void smq_test_idle_writeback_ages(struct kunit *test)
{
	const unsigned int read_only = NR_LEVELS, written = 3 * NR_LEVELS / 2, n = 2 * NR_LEVELS;
	struct smq_policy *mq = make_policy(test, n, 4096, false);
	unsigned int i, lookups, counts[3] = {};
	unsigned long now = jiffies;
	dm_cblock_t cblock;

	mq->cache_period_end = mq->lookups + (1u << 30);
	load_mappings(test, mq, n, 0, true, NR_LEVELS - 1);
	lookups = mq->lookups;
	for (i = 0; i < read_only; i++)
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, READ, &cblock));
	for (i = read_only; i < written; i++)
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, WRITE, &cblock));
	/* each read counted, each write repeating it */
	for (i = written; i < n; i++) {
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, READ, &cblock));
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, WRITE, &cblock));
	}
	KUNIT_EXPECT_EQ(test, mq->lookups - lookups, n);
	/* the blocks written, read again: counted, not taken for a stream's bios */
	forget_recent_lookups(mq);
	for (i = read_only; i < written; i++)
		KUNIT_EXPECT_EQ(test, 0, lookup(mq, i, READ, &cblock));
	KUNIT_EXPECT_EQ(test, mq->lookups - lookups, n + written - read_only);
	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, NULL), 0u);

	/* one period later the blocks only read are ahead of the sentinels */
	now += WRITEBACK_PERIOD + 1;
	__smq_tick(mq, now);
	KUNIT_EXPECT_EQ(test, lookup(mq, 5000, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, counts), read_only);
	KUNIT_EXPECT_EQ(test, counts[POLICY_WRITEBACK], read_only);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, (bool)cblock_entry(mq, to_cblock(i))->dirty,
				    i >= read_only, "block %u", i);

	/* two later, the blocks written; busy, still none: they are in the upper half */
	now += WRITEBACK_PERIOD + 1;
	__smq_tick(mq, now);
	KUNIT_EXPECT_EQ(test, lookup(mq, 5001, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_FALSE(test, queue_writeback(mq, false));
	KUNIT_EXPECT_EQ(test, run_background_work(mq, true, true, NULL), n - read_only);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 0u);
}

static void smq_test_hints(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 70, 4096, false);
	/* a level block 65 would not take without a hint */
	u32 not_valid = random_level(to_cblock(65)) ^ 1u;
	unsigned int i;
	u64 levels;

	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_EQ(test, load(mq, 500 + i, i, i & 1, i, true), 0);
	KUNIT_ASSERT_EQ(test, load(mq, 600, 64, false, 1000, true), 0);
	KUNIT_ASSERT_EQ(test, load(mq, 601, 65, false, not_valid, false), 0);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, smq_get_hint(&mq->policy, to_cblock(i)), i);
	KUNIT_EXPECT_EQ(test, smq_get_hint(&mq->policy, to_cblock(64)), NR_LEVELS - 1);
	/* a hint not marked valid is not used */
	KUNIT_EXPECT_NE(test, smq_get_hint(&mq->policy, to_cblock(65)), not_valid);
	KUNIT_EXPECT_EQ(test, smq_get_hint(&mq->policy, to_cblock(66)), 0u);
	KUNIT_EXPECT_EQ(test, smq_get_hint(&mq->policy, to_cblock(1000)), 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), 66u);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 32u);
	KUNIT_EXPECT_EQ(test, mq->clean.nr_elts, 34u);

	/* blocks loaded without a hint are spread over the levels */
	mq = make_policy(test, 256, 4096, false);
	for (i = 0; i < 256; i++)
		KUNIT_ASSERT_EQ(test, load(mq, i, i, false, 0, false), 0);
	for (i = 0, levels = 0; i < 256; i++)
		levels |= BIT_ULL(smq_get_hint(&mq->policy, to_cblock(i)));
	KUNIT_EXPECT_GE(test, hweight64(levels), 32u);
}

static void smq_test_invalidate(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 8, 4096, false);
	struct policy_work *work;
	dm_cblock_t cblock;

	load_mappings(test, mq, 4, 10, true, 0);
	KUNIT_EXPECT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, to_cblock(0)));
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_invalidate_mapping(&mq->policy, to_cblock(0)));
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_invalidate_mapping(&mq->policy, to_cblock(7)));
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_invalidate_mapping(&mq->policy, to_cblock(9999)));
	KUNIT_EXPECT_EQ(test, residency(mq), 3u);
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 10, READ, &cblock));
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 3u);
	/* the cache has room again: the miss queued a promotion; fail it */
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), 10ull);
	smq_complete_background_work(&mq->policy, work, false);
	KUNIT_EXPECT_EQ(test, residency(mq), 3u);

	/* invalidated while its writeback runs: freed when the work completes */
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, true, &work));
	KUNIT_EXPECT_EQ(test, 0, smq_invalidate_mapping(&mq->policy, work->cblock));
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, from_oblock(work->oblock), READ, &cblock));
	KUNIT_EXPECT_EQ(test, residency(mq), 3u);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, residency(mq), 2u);

	/* a pending promotion is not a mapping yet */
	smq_lookup_with_work(&mq->policy, to_oblock(77), &cblock, WRITE, true, &work);
	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_EXPECT_EQ(test, -ENODATA, smq_invalidate_mapping(&mq->policy, work->cblock));
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, 77, READ, &cblock));
	KUNIT_EXPECT_EQ(test, residency(mq), 3u);
}

static void smq_test_bad_input(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 8, 4096, false);
	struct smq_policy *mq_alias;
	char buf[128];
	ssize_t sz = 0;

	KUNIT_EXPECT_EQ(test, load(mq, 1, 8, false, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, load(mq, 1, 2, false, 0, false), 0);
	KUNIT_EXPECT_EQ(test, load(mq, 2, 2, false, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, load(mq, 1, 3, false, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, residency(mq), 1u);
	/* nor the same mapping twice: the target loads each cache block once */
	KUNIT_EXPECT_EQ(test, load(mq, 1, 2, true, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, residency(mq), 1u);

	KUNIT_EXPECT_EQ(test, set_config(mq, "foo", "1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, 0, mq->policy.emit_config_values(&mq->policy, buf, sizeof(buf), &sz));
	KUNIT_EXPECT_STREQ(test, buf, "0 ");

	mq_alias = __smq_create(to_cblock(8), 4096 * TEST_BLOCK_SECTORS, TEST_BLOCK_SECTORS,
				true, true, false);
	KUNIT_ASSERT_NOT_NULL(test, mq_alias);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "random_threshold", "4"), 0);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "WRITE_PROMOTE_ADJUSTMENT", "0"), 0);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "random_threshold", "-1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "random_threshold", "x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "random_threshold",
					 "999999999999999999999999"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_config(mq_alias, "migration", "1"), -EINVAL);
	sz = 0;
	mq_alias->policy.emit_config_values(&mq_alias->policy, buf, sizeof(buf), &sz);
	KUNIT_EXPECT_STREQ(test, buf,
			   "10 random_threshold 0 sequential_threshold 0 discard_promote_adjustment 0 read_promote_adjustment 0 write_promote_adjustment 0 ");
	smq_destroy(&mq_alias->policy);
}

/*
 * Exercise a policy of odd proportions through fill, hit and eviction,
 * each lookup 7 blocks after the last; returns the hits.
 */
static unsigned int churn(struct kunit *test, struct smq_policy *mq, u64 nr_oblocks)
{
	unsigned long now = jiffies;
	unsigned int i, hits = 0;
	dm_cblock_t cblock;

	for (i = 0; i < 4000; i++) {
		hits += !lookup(mq, (i * 7u) % nr_oblocks, i & 1 ? WRITE : READ, &cblock);
		if (!(i % 50)) {
			now += HZ;
			__smq_tick(mq, now);
		}
		run_background_work(mq, true, true, NULL);
	}
	KUNIT_EXPECT_LE(test, residency(mq), from_cblock(mq->cache_size));
	KUNIT_EXPECT_LE(test, (u64)residency(mq), nr_oblocks);
	return hits;
}

static void smq_test_odd_sizes(struct kunit *test)
{
	struct smq_policy *mq, *sizes = kunit_kzalloc(test, sizeof(*sizes), GFP_KERNEL);
	dm_cblock_t cblock;

	/* one cache block, 4,000 blocks each looked up once */
	KUNIT_EXPECT_EQ(test, churn(test, make_policy(test, 1, 4096, false), 4096), 0u);
	/* an origin smaller than one hotspot block: all but first sights hit */
	mq = make_policy(test, 16, 3, false);
	KUNIT_EXPECT_EQ(test, mq->hotspot_block_shift, 0u);
	KUNIT_EXPECT_EQ(test, churn(test, mq, 3), 4000u - 3u);
	/* a cache larger than the origin */
	mq = make_policy(test, 1024, 100, false);
	KUNIT_EXPECT_EQ(test, churn(test, mq, 100), 4000u - 100u);
	KUNIT_EXPECT_LE(test, mq->nr_hotspot_blocks, 100u);
	/* no cache at all */
	KUNIT_EXPECT_EQ(test, churn(test, make_policy(test, 0, 4096, false), 4096), 0u);

	mq = __smq_create(to_cblock(SMQ_MAX_CACHE_BLOCKS + 1), (u64)SMQ_MAX_CACHE_BLOCKS * 128,
			  64, false, true, false);
	KUNIT_EXPECT_NULL(test, mq);
	/* only an origin of more than 2^32 blocks pays for their high halves */
	mq = make_policy(test, 16, 1ull << 32, false);
	KUNIT_EXPECT_NULL(test, mq->es.high);
	KUNIT_EXPECT_EQ(test, lookup(mq, 1ull << 32, READ, &cblock), -EINVAL);
	KUNIT_EXPECT_EQ(test, load(mq, 1ull << 32, 0, false, 0, false), -EINVAL);

	/* the largest origin: counting its hotspot blocks must not wrap */
	KUNIT_ASSERT_NOT_NULL(test, sizes);
	calc_hotspot_params(sizes, U64_MAX, 1024);
	KUNIT_EXPECT_EQ(test, sizes->hotspot_block_shift, 4u);
	KUNIT_EXPECT_EQ(test, sizes->nr_hotspot_blocks, 1024u);
	calc_hotspot_params(sizes, 16 * 1024 + 1, 1024);
	KUNIT_EXPECT_EQ(test, sizes->hotspot_block_shift, 4u);
	KUNIT_EXPECT_EQ(test, sizes->nr_hotspot_blocks, 1024u);
	calc_hotspot_params(sizes, 17, 1024);
	KUNIT_EXPECT_EQ(test, sizes->hotspot_block_shift, 0u);
	KUNIT_EXPECT_EQ(test, sizes->nr_hotspot_blocks, 17u);
}

/*
 * An origin of more than 2^32 blocks (128 TiB of 32 KiB blocks): blocks
 * 2^32 apart are different blocks, from lookup to background work, and
 * hotspot blocks beyond 2^32 are told apart too.
 */
static void smq_test_wide_origin(struct kunit *test)
{
	const u64 high = 1ull << 32, nr_oblocks = 1ull << 40;
	struct smq_policy *mq = make_policy(test, 64, nr_oblocks, false);
	struct policy_work *work;
	dm_cblock_t cblock;
	u64 hb;

	KUNIT_ASSERT_NOT_NULL(test, mq->es.high);
	KUNIT_EXPECT_EQ(test, load(mq, 7, 0, false, 10, true), 0);
	KUNIT_EXPECT_EQ(test, load(mq, high + 7, 1, true, 10, true), 0);
	KUNIT_EXPECT_EQ(test, load(mq, nr_oblocks - 1, 63, false, 10, true), 0);
	KUNIT_EXPECT_EQ(test, load(mq, high + 7, 2, false, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, lookup(mq, high + 7, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), 1u);
	KUNIT_EXPECT_EQ(test, lookup(mq, 7, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), 0u);
	KUNIT_EXPECT_EQ(test, lookup(mq, nr_oblocks - 1, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), 63u);

	/* the writeback is of the high block */
	KUNIT_ASSERT_EQ(test, smq_get_background_work(&mq->policy, true, &work), 0);
	KUNIT_EXPECT_EQ(test, work->op, POLICY_WRITEBACK);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), high + 7);
	KUNIT_EXPECT_EQ(test, from_cblock(work->cblock), 1u);
	smq_clear_dirty(&mq->policy, work->cblock);
	smq_complete_background_work(&mq->policy, work, true);

	/* a miss in a cache with room is promoted, high half and all */
	KUNIT_EXPECT_EQ(test, lookup(mq, 3 * high + 9, READ, &cblock), -ENOENT);
	KUNIT_ASSERT_EQ(test, smq_get_background_work(&mq->policy, true, &work), 0);
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), 3 * high + 9);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, lookup(mq, 3 * high + 9, READ, &cblock), 0);
	KUNIT_EXPECT_EQ(test, lookup(mq, 9, READ, &cblock), -ENOENT);
	run_background_work(mq, true, true, NULL);

	/* hotspot blocks 2^32 apart */
	hb = to_hblock(mq, to_oblock(high << mq->hotspot_block_shift));
	KUNIT_EXPECT_EQ(test, hb, high);
	KUNIT_EXPECT_NOT_NULL(test, h_lookup(&mq->hotspot_table, 0));
	KUNIT_EXPECT_NULL(test, h_lookup(&mq->hotspot_table, high));
	lookup(mq, high << mq->hotspot_block_shift, READ, &cblock);
	KUNIT_EXPECT_NOT_NULL(test, h_lookup(&mq->hotspot_table, high));
	KUNIT_EXPECT_PTR_NE(test, h_lookup(&mq->hotspot_table, high),
			    h_lookup(&mq->hotspot_table, 0));

	smq_invalidate_mapping(&mq->policy, to_cblock(1));
	KUNIT_EXPECT_EQ(test, lookup(mq, high + 7, READ, &cblock), -ENOENT);
	KUNIT_EXPECT_EQ(test, lookup(mq, 7, READ, &cblock), 0);
}

/* Blocks 2^32 apart are remembered apart, even by a table of 16 tags. */
static void smq_test_wide_ghosts(struct kunit *test)
{
	struct smq_ghosts g;
	unsigned int i, k, same = 0;
	u16 tag_a, tag_b;

	KUNIT_ASSERT_EQ(test, 0, ghosts_init(&g, 16));
	g.mult = TEST_HASH_MULT;
	for (k = 1; k <= 4; k++)
		for (i = 0; i < 1000; i++) {
			u16 *a = ghost_slot(&g, i, &tag_a);
			u16 *b = ghost_slot(&g, i + ((u64)k << 32), &tag_b);

			same += a == b && tag_a == tag_b;
		}
	ghosts_exit(&g);
	KUNIT_EXPECT_LE(test, same, 4u);
}

/*
 * In a full cache over a wide origin, the victim kept between misses is
 * known by its whole block, and the block freed for a winner goes to the
 * winner itself, not to the block 2^32 below it.
 */
static void smq_test_wide_heir(struct kunit *test)
{
	const u64 high = 1ull << 32;
	struct smq_policy *mq = make_policy(test, 16, 1ull << 40, false);
	struct policy_work *work;
	struct smq_entry *v;
	unsigned int freq;
	dm_cblock_t cblock;

	load_mappings(test, mq, 16, high, false, 0);
	v = current_victim(mq, &freq);
	KUNIT_ASSERT_NOT_NULL(test, v);
	current_victim(mq, &freq);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 1u);
	/* as if its cache block were given to the block 2^32 below */
	e_set_block(&mq->es, v, e_block(&mq->es, v) - high);
	current_victim(mq, &freq);
	KUNIT_EXPECT_EQ(test, mq->victim_uses, 0u);
	e_set_block(&mq->es, v, e_block(&mq->es, v) + high);

	__smq_tick(mq, jiffies + 1);
	queue_promotion(mq, to_oblock(high + 999), NR_LEVELS - 1, NULL, NULL, NULL);
	KUNIT_ASSERT_EQ(test, mq->nr_heirs, 1u);
	KUNIT_EXPECT_EQ(test, from_oblock(mq->heirs[mq->first_heir]), high + 999);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_DEMOTE);
	KUNIT_EXPECT_GE(test, from_oblock(work->oblock), high);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_ASSERT_EQ(test, 0, smq_get_background_work(&mq->policy, false, &work));
	KUNIT_EXPECT_EQ(test, work->op, POLICY_PROMOTE);
	KUNIT_EXPECT_EQ(test, from_oblock(work->oblock), high + 999);
	smq_complete_background_work(&mq->policy, work, true);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, high + 999, READ, &cblock));
	KUNIT_EXPECT_EQ(test, -ENOENT, lookup(mq, 999, READ, &cblock));
}

static void smq_test_large_cache(struct kunit *test)
{
	struct smq_policy *mq = __smq_create(to_cblock(1u << 24), (1ull << 26) * 64, 64,
					     false, true, false);
	dm_cblock_t cblock;

	if (!mq) {
		kunit_skip(test, "no memory for 2^24 cache blocks here");
		return;
	}
	add_destroy_action(test, mq);
	KUNIT_EXPECT_EQ(test, mq->nr_hotspot_blocks, 1u << 20);
	KUNIT_EXPECT_EQ(test, load(mq, (1ull << 26) - 1, (1u << 24) - 1, true, 63, true), 0);
	KUNIT_EXPECT_EQ(test, 0, lookup(mq, (1ull << 26) - 1, READ, &cblock));
	KUNIT_EXPECT_EQ(test, from_cblock(cblock), (1u << 24) - 1);
}

static void smq_test_cleaner(struct kunit *test)
{
	struct smq_policy *mq = make_policy(test, 16, 4096, true);
	unsigned int i, counts[3] = {};
	unsigned long now = jiffies;
	dm_cblock_t cblock;

	load_mappings(test, mq, 8, 0, true, 10);
	for (i = 0; i < 200; i++) {
		lookup(mq, 1000 + i % 4, READ, &cblock);
		now += HZ;
		__smq_tick(mq, now);
	}
	/* busy, yet everything is written back; nothing moves in or out */
	run_background_work(mq, false, true, counts);
	KUNIT_EXPECT_EQ(test, counts[POLICY_WRITEBACK], 8u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_PROMOTE], 0u);
	KUNIT_EXPECT_EQ(test, counts[POLICY_DEMOTE], 0u);
	KUNIT_EXPECT_EQ(test, mq->dirty.nr_elts, 0u);
	KUNIT_EXPECT_EQ(test, residency(mq), 8u);
}

/* The names lvm2 and dmsetup use all reach this implementation. */
static void smq_test_registration(struct kunit *test)
{
	static const char * const names[][2] = {
		{ "smq", "smq" }, { "mq", "mq" }, { "cleaner", "cleaner" }, { "default", "smq" },
	};
	struct dm_cache_policy *p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		p = dm_cache_policy_create(names[i][0], to_cblock(16), 4096 * 64, 64);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
		KUNIT_EXPECT_STREQ(test, dm_cache_policy_get_name(p), names[i][1]);
		KUNIT_EXPECT_EQ(test, dm_cache_policy_get_version(p)[0], 2u);
		KUNIT_EXPECT_EQ(test, dm_cache_policy_get_hint_size(p), (size_t)4);
		KUNIT_EXPECT_PTR_EQ(test, (void *)p->lookup, (void *)smq_lookup);
		dm_cache_policy_destroy(p);
	}
}

/* Memory per cache block at 1M blocks, from the sizes really allocated. */
static void smq_test_memory(struct kunit *test)
{
	unsigned int nr = 1u << 20;
	struct smq_policy *mq = make_policy(test, nr, 16ull * nr, false);
	size_t bytes = smq_memory_bytes(mq);
	unsigned int centi = div_u64((u64)bytes * 100u + nr / 2u, nr);	/* rounded */

	kunit_info(test, "%zu bytes for %u cache blocks", bytes, nr);
	pr_info("RESULT smq_bytes_per_block %u.%02u\n", centi / 100, centi % 100);
	KUNIT_EXPECT_EQ(test, sizeof(struct smq_entry), (size_t)16);
	KUNIT_EXPECT_LE(test, centi, 2000u);
}

static struct kunit_case smq_test_cases[] = {
	KUNIT_CASE(smq_test_list),
	KUNIT_CASE(smq_test_queue_redistribute),
	KUNIT_CASE(smq_test_redistribute_bounded),
	KUNIT_CASE(smq_test_requeue),
	KUNIT_CASE(smq_test_swap_partner),
	KUNIT_CASE(smq_test_hotspot_climb),
	KUNIT_CASE(smq_test_hash),
	KUNIT_CASE(smq_test_allocator),
	KUNIT_CASE(smq_test_hit_bits),
	KUNIT_CASE(smq_test_promote_levels),
	KUNIT_CASE(smq_test_sketch),
	KUNIT_CASE(smq_test_sketch_exact),
	KUNIT_CASE(smq_test_sketch_hash),
	KUNIT_CASE(smq_test_hash_spread),
	KUNIT_CASE(smq_test_sketch_counters),
	KUNIT_CASE(smq_test_should_promote),
	KUNIT_CASE(smq_test_ghosts),
	KUNIT_CASE(smq_test_ghost_reach),
	KUNIT_CASE(smq_test_regrets),
	KUNIT_CASE(smq_test_payoff),
	KUNIT_CASE(smq_test_churn),
	KUNIT_CASE(smq_test_admission),
	KUNIT_CASE(smq_test_repeated_lookups),
	KUNIT_CASE(smq_test_interleaved_streams),
	KUNIT_CASE(smq_test_read_ahead_refused),
	KUNIT_CASE(smq_test_read_ahead),
	KUNIT_CASE(smq_test_read_ahead_in_flight),
	KUNIT_CASE(smq_test_victims),
	KUNIT_CASE(smq_test_victim_hit),
	KUNIT_CASE(smq_test_hit_lift),
	KUNIT_CASE(smq_test_first_sight),
	KUNIT_CASE(smq_test_hot_set_promoted),
	KUNIT_CASE(smq_test_background_work),
	KUNIT_CASE(smq_test_demotion_refused),
	KUNIT_CASE(smq_test_sentinels),
	KUNIT_CASE(smq_test_redistribute_keeps_idleness),
	KUNIT_CASE(smq_test_redistribute_up_keeps_idleness),
	KUNIT_CASE(smq_test_drop_halves_sketch),
	KUNIT_CASE(smq_test_busy_writeback),
	KUNIT_CASE(smq_test_writeback_for_victim),
	KUNIT_CASE(smq_test_idle_writeback),
	KUNIT_CASE(smq_test_idle_writeback_ages),
	KUNIT_CASE(smq_test_hints),
	KUNIT_CASE(smq_test_invalidate),
	KUNIT_CASE(smq_test_bad_input),
	KUNIT_CASE(smq_test_odd_sizes),
	KUNIT_CASE(smq_test_wide_origin),
	KUNIT_CASE(smq_test_wide_heir),
	KUNIT_CASE(smq_test_heirs),
	KUNIT_CASE(smq_test_invalidate_demotion),
	KUNIT_CASE(smq_test_free_target),
	KUNIT_CASE(smq_test_heir_cached_meanwhile),
	KUNIT_CASE(smq_test_heir_tracker_full),
	KUNIT_CASE(smq_test_wide_ghosts),
	KUNIT_CASE_SLOW(smq_test_large_cache),
	KUNIT_CASE(smq_test_cleaner),
	KUNIT_CASE(smq_test_registration),
	KUNIT_CASE(smq_test_memory),
	{}
};

static struct kunit_suite smq_test_suite = {
	.name = "dm_cache_smq",
	.test_cases = smq_test_cases,
};

kunit_test_suite(smq_test_suite);
