// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stochastic multi-queue (smq) cache policy for dm-cache.
 *
 * Which origin blocks deserve a place on the fast device is decided from
 * three structures:
 *
 * - The hotspot queue tracks recently missed regions of the origin in
 *   blocks of up to 16 cache blocks.  It is a 64-level multiqueue: a hit
 *   moves an entry up by swapping it with the oldest entry of a higher
 *   level, a miss replaces the oldest entry of the lowest level.  The level
 *   of a region is therefore a stochastic measure of how hot it is.
 *
 * - A count-min sketch counts how often each block was looked up lately
 *   (several bios for one block in a row count once).
 *   Until the cache is first full every missed block is promoted, one
 *   seen for the first time into the bottom level, first in line to
 *   leave.  From then on a block is never promoted on first sight,
 *   unless a stream reading each block in several bios reaches it: such a
 *   stream is read ahead through a few bottom-level blocks, so that all
 *   but the first bio of each block hit.  Into a full cache only a block
 *   looked up more often than the clean block it would replace (by two
 *   lookups if its region is hot, by a quarter and one otherwise), and
 *   only on a read, or on a write to a block looked up very often.  Scans
 *   stay out; a new working set gets in.  How much weight recency gets
 *   against frequency is learnt from the mistakes: rejected candidates
 *   and demoted victims that come back soon; how far it may go, from the
 *   hits that promotions have been buying.  The block freed for a winner
 *   goes to that block (and into the level it won), not to the next miss.
 *
 * - The cache proper is a pair of 64-level multiqueues, one of clean and
 *   one of dirty blocks, ordered the same way: new blocks enter at the
 *   top (at the bottom if seen once), every hit lifts a block half the
 *   levels.  Demotions take the least looked-up of the oldest clean
 *   blocks of the lower half; writebacks the oldest dirty block.
 *   Sentinel entries, re-queued at the back of every level each period,
 *   split each level into older and younger blocks without timestamps.
 *
 * Levels hold target numbers of entries that are restored periodically,
 * so the levels stay balanced whatever the access pattern.  How often
 * lookups land in the top levels of each queue measures how well the
 * queues predict the workload; that confidence steers how eagerly we
 * promote and how fast entries climb the hotspot queue.
 *
 * Memory: every entry is 16 bytes (indexes instead of pointers, the low
 * half of the origin block; the high halves, where an origin needs them,
 * in an array of their own), cache entries and hotspot entries (a
 * sixteenth as many) live in one array, the hash tables hold one 32-bit
 * index per four entries, the hotspot's hit bits are a bitset, the sketch
 * has two 4-bit counters per cache block (but 128 KiB at least for a
 * small cache in front of a large origin) and the ghost table a 16-bit
 * tag per 16: about 19.5 bytes per cache block in all for a large cache.
 * Memory spent on the sketch buys more than on the hotspot queue: fewer
 * blocks share counters, so fewer win their place by the counts of
 * others.
 */

#include "dm-cache-background-tracker.h"
#include "dm-cache-policy-internal.h"
#include "dm-cache-policy.h"
#include "dm.h"

#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/vmalloc.h>

#define DM_MSG_PREFIX "cache-policy-smq"

/*----------------------------------------------------------------*/

#define SMQ_INDEX_BITS 28u
#define SMQ_NULL ((1u << SMQ_INDEX_BITS) - 1u)

/* With a sixteenth as many hotspot entries and the sentinels, 255M entries. */
#define SMQ_MAX_CACHE_BLOCKS (240u << 20)

/*
 * struct smq_entry - a cache block, a hotspot block or a sentinel.
 * @hash_next: next entry in the same hash bucket, or SMQ_NULL.
 * @level: the multiqueue level the entry sits in; while its promotion is
 *	pending, the level it will enter (the bottom one for a block promoted
 *	on first sight, the top one otherwise).
 * @dirty: the cache block differs from the origin.
 * @allocated: the entry is in use.
 * @prev: previous entry of its level list, or SMQ_NULL.
 * @next: next entry of its level list (or of the free list), or SMQ_NULL.
 * @pending_work: background work on the block is queued or running; the
 *	entry is off its queue meanwhile.
 * @hashed: the entry is in its hash table.  A cache block with a
 *	demotion or writeback pending is, unless its mapping was invalidated
 *	meanwhile: the work's completion then frees it.
 * @contested: the block won its cache block from a victim (it was
 *	promoted into a full cache).
 * @hit: the block was looked up since its entry was allocated (by a
 *	promotion or a load).  Sampled for a victim, it counts one lookup
 *	more, up to the sketch's ceiling (see sample_victims()).  A hit
 *	drops a kept victim, so that its count stays right.
 * @block_low: the low 32 bits of the origin block, or of the hotspot
 *	block for a hotspot entry (see e_block()).
 *
 * Entries are addressed by their index in one array, so that a link costs
 * 28 bits instead of a pointer and the index of a cache entry within its
 * allocator is its cache block.  Two links and the level fill a 64-bit
 * word.  Sentinels are told by their place in the array (see
 * e_is_sentinel()), not by a flag: three links, the level and the flags
 * fill the 96 bits beside the block.
 */
struct smq_entry {
	u64 hash_next:SMQ_INDEX_BITS;
	u64 level:6;
	u64 dirty:1;
	u64 allocated:1;
	u64 prev:SMQ_INDEX_BITS;
	u32 next:SMQ_INDEX_BITS;
	u32 pending_work:1;
	u32 hashed:1;
	u32 contested:1;
	u32 hit:1;
	u32 block_low;
};

static_assert(sizeof(struct smq_entry) == 16);

/*
 * struct smq_space - the array every entry of a policy lives in.
 * @begin: the entries.
 * @sentinels_end: the entries below it are sentinels (none but a
 *	policy's, the first of its space).
 * @high: the high 32 bits of every entry's block, for an origin of more
 *	than 2^32 blocks; NULL otherwise.  Only the policies that need them
 *	pay the 4 bytes per entry.
 * @nr_entries: entries in @begin (and @high).
 */
struct smq_space {
	struct smq_entry *begin;
	struct smq_entry *sentinels_end;
	u32 *high;
	unsigned int nr_entries;
};

static int space_init(struct smq_space *es, unsigned int nr_entries, bool wide)
{
	es->nr_entries = nr_entries;
	es->begin = vzalloc(array_size(nr_entries, sizeof(struct smq_entry)));
	es->high = NULL;
	if (es->begin && wide) {
		es->high = vzalloc(array_size(nr_entries, sizeof(*es->high)));
		if (!es->high) {
			vfree(es->begin);
			es->begin = NULL;
		}
	}
	es->sentinels_end = es->begin;

	return es->begin ? 0 : -ENOMEM;
}

static void space_exit(struct smq_space *es)
{
	vfree(es->high);
	vfree(es->begin);
}

/* Does @e only mark a position in a level list? */
static bool e_is_sentinel(const struct smq_space *es, const struct smq_entry *e)
{
	return e < es->sentinels_end;
}

/* The origin block of a cache entry; the hotspot block of a hotspot entry. */
static u64 e_block(const struct smq_space *es, const struct smq_entry *e)
{
	u64 b = e->block_low;

	if (unlikely(es->high))
		b |= (u64)es->high[e - es->begin] << 32;
	return b;
}

static void e_set_block(struct smq_space *es, struct smq_entry *e, u64 b)
{
	e->block_low = lower_32_bits(b);
	if (unlikely(es->high))
		es->high[e - es->begin] = upper_32_bits(b);
}

/* Does @e hold block @b?  The low halves tell most entries apart. */
static bool e_holds(const struct smq_space *es, const struct smq_entry *e, u64 b)
{
	return e->block_low == lower_32_bits(b) &&
	       (likely(!es->high) || es->high[e - es->begin] == upper_32_bits(b));
}

static struct smq_entry *to_entry(struct smq_space *es, unsigned int index)
{
	if (index == SMQ_NULL)
		return NULL;

	return es->begin + index;
}

static unsigned int to_index(struct smq_space *es, struct smq_entry *e)
{
	return e - es->begin;
}

/*----------------------------------------------------------------*/

/*
 * struct smq_list - a doubly linked list of entries, by index.
 * @nr_elts: number of entries in the list, sentinels excluded.
 */
struct smq_list {
	unsigned int nr_elts;
	unsigned int head, tail;
};

static void l_init(struct smq_list *l)
{
	l->nr_elts = 0;
	l->head = SMQ_NULL;
	l->tail = SMQ_NULL;
}

static struct smq_entry *l_head(struct smq_space *es, struct smq_list *l)
{
	return to_entry(es, l->head);
}

static struct smq_entry *l_next(struct smq_space *es, struct smq_entry *e)
{
	return to_entry(es, e->next);
}

static void l_count(struct smq_space *es, struct smq_list *l, struct smq_entry *e, int delta)
{
	if (!e_is_sentinel(es, e))
		l->nr_elts += delta;
}

static void l_add_tail(struct smq_space *es, struct smq_list *l, struct smq_entry *e)
{
	struct smq_entry *tail = to_entry(es, l->tail);

	e->next = SMQ_NULL;
	e->prev = l->tail;
	if (tail)
		tail->next = to_index(es, e);
	else
		l->head = to_index(es, e);
	l->tail = to_index(es, e);
	l_count(es, l, e, 1);
}

static void l_del(struct smq_space *es, struct smq_list *l, struct smq_entry *e)
{
	struct smq_entry *prev = to_entry(es, e->prev);
	struct smq_entry *next = to_entry(es, e->next);

	if (prev)
		prev->next = e->next;
	else
		l->head = e->next;

	if (next)
		next->prev = e->prev;
	else
		l->tail = e->prev;
	l_count(es, l, e, -1);
}

/* Insert @e into @l just ahead of @pos, an entry of @l. */
static void l_add_before(struct smq_space *es, struct smq_list *l, struct smq_entry *pos,
			 struct smq_entry *e)
{
	struct smq_entry *prev = to_entry(es, pos->prev);

	e->next = to_index(es, pos);
	e->prev = pos->prev;
	if (prev)
		prev->next = to_index(es, e);
	else
		l->head = to_index(es, e);
	pos->prev = to_index(es, e);
	l_count(es, l, e, 1);
}

static void l_add_head(struct smq_space *es, struct smq_list *l, struct smq_entry *e)
{
	struct smq_entry *head = l_head(es, l);

	if (head)
		l_add_before(es, l, head, e);
	else
		l_add_tail(es, l, e);
}

/*----------------------------------------------------------------*/

#define HIT_LOG_SIZE 32u

/*
 * struct smq_hit_bits - one bit per entry: hit since the bits were last
 * cleared.  The first HIT_LOG_SIZE bits set are remembered, so that
 * clearing after a quiet period touches only those instead of the whole
 * bitset.
 */
struct smq_hit_bits {
	unsigned long *bits;
	unsigned int nr_bits;
	unsigned int nr_set;
	u32 log[HIT_LOG_SIZE];
};

static int hit_bits_init(struct smq_hit_bits *h, unsigned int nr_bits)
{
	h->nr_bits = nr_bits;
	h->nr_set = 0;
	h->bits = alloc_bitset(max(nr_bits, 1u));

	return h->bits ? 0 : -ENOMEM;
}

static void hit_bits_exit(struct smq_hit_bits *h)
{
	free_bitset(h->bits);
}

/* Set bit @i; true if it already was. */
static bool hit_bits_test_and_set(struct smq_hit_bits *h, unsigned int i)
{
	if (__test_and_set_bit(i, h->bits))
		return true;

	if (h->nr_set < HIT_LOG_SIZE)
		h->log[h->nr_set] = i;
	h->nr_set++;

	return false;
}

static bool hit_bits_test(struct smq_hit_bits *h, unsigned int i)
{
	return test_bit(i, h->bits);
}

static void hit_bits_clear(struct smq_hit_bits *h, unsigned int i)
{
	__clear_bit(i, h->bits);
}

static void hit_bits_clear_all(struct smq_hit_bits *h)
{
	unsigned int i;

	if (h->nr_set > HIT_LOG_SIZE)
		clear_bitset(h->bits, h->nr_bits);
	else
		for (i = 0; i < h->nr_set; i++)
			__clear_bit(h->log[i], h->bits);
	h->nr_set = 0;
}

/*----------------------------------------------------------------*/

#define SKETCH_DEPTH 4u
#define SKETCH_PERIOD 4u	/* lookups per cache block between halvings */
#define SKETCH_MIN_PERIOD (64u * 1024u)
#define SKETCH_SWEEP 4u		/* words halved per lookup while halving */
#define SKETCH_CACHE_COUNTERS 2u	/* counters per cache block */
#define SKETCH_ORIGIN_COUNTERS 16u	/* no more counters per origin block */
#define SKETCH_MIN_COUNTERS (256u * 1024u)	/* 128 KiB, if the origin needs them */
#define SKETCH_MAX_COUNT 15u	/* a 4-bit counter's ceiling */

/*
 * struct smq_sketch - how often each origin block was looked up lately: a
 * count-min sketch of 4-bit counters.  A block's SKETCH_DEPTH counters sit
 * in one 64-bit word, so an update touches one cache line.  Every
 * period every counter is halved, a few words per lookup, so that the
 * counts follow the load.
 * @words: the counters, sixteen per word
 * @mult: the odd multiplier of the blocks' hash, drawn at creation (see
 *	sketch_locate())
 * @word_bits: log2 of the number of words
 * @period: lookups from the start of one halving sweep to the next
 * @countdown: lookups until the next words are halved
 * @sweep: next word to halve, or ~0 when not halving
 */
struct smq_sketch {
	u64 *words;
	u64 mult;
	unsigned int word_bits;
	unsigned int period;
	unsigned int countdown;
	unsigned int sweep;
};

#define HASH_STRIDES 4096u	/* strides a multiplier must spread (see hash_mult_spreads()) */
#define HASH_SPREAD_SHIFT 5	/* s * mult at least 2^(64 - 5) / s from a whole turn */
#define HASH_DRAWS 16u		/* draws before falling back to GOLDEN_RATIO_64 */

/*
 * Does multiply-shift hashing by @mult spread blocks a short stride apart?
 * Block b + s hashes to b's product plus s * @mult, modulo 2^64.  If that
 * offset is close to a whole turn for some short stride s, blocks s apart,
 * as a strided load or a loop over a region looks them up, fall into one
 * word of the sketch or one ghost slot, or neighbouring ones, stride after
 * stride.  "Close" is within 2^64 / (32 s) here: a random multiplier is
 * that close for some s below HASH_STRIDES one time in three, while
 * GOLDEN_RATIO_64, the best there is, stays 12 times as far.  One draw
 * had 59 * mult within 2^49.6 of a whole turn: with it, the LIRS set's ps
 * at 5 % cost 1.059 times the tree's slow-device I/O, and 0.948 with each
 * of seven other draws.
 */
static bool hash_mult_spreads(u64 mult)
{
	u64 off;
	u32 s;

	for (s = 1; s < HASH_STRIDES; s++) {
		off = mult * s;
		/* the distance of s * mult to the nearest whole turn */
		if ((s64)off < 0)
			off = -off;
		/* div_u64(): a 32-bit kernel has no plain 64-bit division */
		if (off < div_u64(BIT_ULL(64 - HASH_SPREAD_SHIFT), s))
			return false;
	}
	return true;
}

/*
 * The multiplier of a multiply-shift hash (see sketch_locate()), drawn for
 * each table so that no load meets the same collisions on every cache;
 * odd, so that distinct blocks have distinct products, and spreading
 * short strides (see hash_mult_spreads()).
 */
static u64 draw_hash_mult(void)
{
	unsigned int i;
	u64 mult;

	for (i = 0; i < HASH_DRAWS; i++) {
		mult = get_random_u64() | 1u;
		if (hash_mult_spreads(mult))
			return mult;
	}
	return GOLDEN_RATIO_64;
}

/*
 * @period is in lookups; a sweep, a few words per lookup, must end well
 * within it.
 */
static int sketch_init(struct smq_sketch *s, unsigned int nr_counters, unsigned int period)
{
	unsigned int nr_words = roundup_pow_of_two(max(nr_counters / 16u, 16u));

	s->word_bits = __ffs(nr_words);
	s->mult = draw_hash_mult();
	s->period = max(period, 2u * nr_words / SKETCH_SWEEP);
	s->countdown = s->period;
	s->sweep = ~0u;
	s->words = vzalloc(array_size(nr_words, sizeof(u64)));

	return s->words ? 0 : -ENOMEM;
}

static void sketch_exit(struct smq_sketch *s)
{
	vfree(s->words);
}

/*
 * struct sketch_slot - where a block's counters are: four nibbles of one
 * word, picked by four 4-bit fields of its hash.  Two fields may pick the
 * same nibble; the block then simply has fewer distinct counters.
 * @word: the word
 * @shift: bit offset of each counter in @word
 */
struct sketch_slot {
	u64 *word;
	unsigned int shift[SKETCH_DEPTH];
};

/*
 * Multiply-shift hashing: the top bits of the block times @s->mult pick
 * the word, the 16 bits below them the nibbles.  A product's low bits
 * depend on the block's low bits alone, so fields taken there made blocks
 * congruent modulo 16 share a counter wherever they shared a word.
 */
static __always_inline void sketch_locate(struct smq_sketch *s, u64 oblock,
					  struct sketch_slot *slot)
{
	u64 h = oblock * s->mult;
	u32 fields = h >> (64 - 16 - s->word_bits);

	BUILD_BUG_ON(SKETCH_DEPTH != 4);
	slot->word = s->words + (h >> (64 - s->word_bits));
	slot->shift[0] = (fields << 2) & 60;
	slot->shift[1] = (fields >> 2) & 60;
	slot->shift[2] = (fields >> 6) & 60;
	slot->shift[3] = (fields >> 10) & 60;
}

static __always_inline unsigned int sketch_count(u64 w, const struct sketch_slot *slot,
						 unsigned int i)
{
	return (w >> slot->shift[i]) & SKETCH_MAX_COUNT;
}

static __always_inline unsigned int sketch_min(u64 w, const struct sketch_slot *slot)
{
	return min(min(sketch_count(w, slot, 0), sketch_count(w, slot, 1)),
		   min(sketch_count(w, slot, 2), sketch_count(w, slot, 3)));
}

static unsigned int sketch_estimate(struct smq_sketch *s, u64 oblock)
{
	struct sketch_slot slot;

	sketch_locate(s, oblock, &slot);
	return sketch_min(*slot.word, &slot);
}

/* The counters of @slot that equal @est, as an increment of the word. */
static __always_inline u64 sketch_inc_at(u64 w, const struct sketch_slot *slot,
					 unsigned int est, unsigned int i)
{
	return (u64)(sketch_count(w, slot, i) == est) << slot->shift[i];
}

/*
 * Halve the next few words, starting a sweep if none is running.  One
 * countdown serves both: it is 1 while sweeping, so that the common path
 * tests a single counter, and the rest of the period once the sweep ends.
 */
static void sketch_halve_some(struct smq_sketch *s)
{
	unsigned int i, nr_words = 1u << s->word_bits;

	/* a sweep ends on a lookup's last word: nr_words is a power of two >= 16 */
	BUILD_BUG_ON(16u % SKETCH_SWEEP);
	if (s->sweep == ~0u)
		s->sweep = 0;
	for (i = 0; i < SKETCH_SWEEP && s->sweep < nr_words; i++, s->sweep++)
		s->words[s->sweep] = (s->words[s->sweep] >> 1) & 0x7777777777777777ULL;
	if (s->sweep < nr_words) {
		s->countdown = 1;
		return;
	}
	/* the next sweep starts a period after this one began, this many lookups ago */
	s->sweep = ~0u;
	s->countdown = s->period - (nr_words / SKETCH_SWEEP - 1u);
}

/* Start halving at the next lookup, a period early, unless a sweep is on. */
static void sketch_halve_soon(struct smq_sketch *s)
{
	if (s->sweep == ~0u)
		s->countdown = 1;
}

/*
 * Count a lookup of @oblock, raising only the counters at the block's
 * minimum (conservative update, fewer overestimates); returns the new
 * estimate.
 */
static unsigned int sketch_add(struct smq_sketch *s, u64 oblock)
{
	struct sketch_slot slot;
	unsigned int est;
	u64 w;

	if (unlikely(!--s->countdown))
		sketch_halve_some(s);

	sketch_locate(s, oblock, &slot);
	w = *slot.word;
	est = sketch_min(w, &slot);
	if (est == SKETCH_MAX_COUNT)
		return est;
	/* OR, not add: two fields picking one nibble raise it once */
	*slot.word = w + (sketch_inc_at(w, &slot, est, 0) | sketch_inc_at(w, &slot, est, 1) |
			  sketch_inc_at(w, &slot, est, 2) | sketch_inc_at(w, &slot, est, 3));
	return est + 1;
}

/*----------------------------------------------------------------*/

#define NR_LEVELS 64u

/*
 * A queue's 2 * NR_LEVELS sentinels, from index @first of the space: one
 * per level in each of two sets, which move to the back of every level
 * in turn, a period apart (see update_sentinels()).
 */
static unsigned int sentinel_index(unsigned int first, unsigned int level, bool which)
{
	return first + (which ? level : NR_LEVELS + level);
}

/*
 * struct smq_queue - a multiqueue: entries in levels, oldest first.
 * @nr_elts: entries in all levels, sentinels excluded.
 * @nr_top_levels: how many top levels get the special share below.
 * @nr_in_top_levels: entries the top levels should hold together, which
 *	keeps them small and so makes reaching them meaningful.
 * @last_target_nr_elts: @nr_elts when @target_count was computed.
 * @target_count: entries each level should hold after redistribution.
 * @hits: if set, the hit bits of the entries, indexed from @hits_base: an
 *	entry hit in this tick is not pushed down by another's hit.
 * @unbalanced: the last redistribution ran out of moves; every tick goes
 *	on with it until the levels hold their targets.
 * @aged_by: index of the first of the sentinels whose bands a
 *	redistribution keeps entries in (see q_place_in_band()), or SMQ_NULL.
 * @newer_sentinels: the set of those sentinels moved back last.
 */
struct smq_queue {
	struct smq_space *es;
	unsigned int nr_elts;
	unsigned int nr_levels;
	u64 populated;
	struct smq_list qs[NR_LEVELS];

	unsigned int nr_top_levels;
	unsigned int nr_in_top_levels;
	unsigned int last_target_nr_elts;
	unsigned int target_count[NR_LEVELS];

	struct smq_hit_bits *hits;
	unsigned int hits_base;
	bool unbalanced;
	unsigned int aged_by;
	bool newer_sentinels;
};

static void q_init(struct smq_queue *q, struct smq_space *es, unsigned int nr_levels)
{
	unsigned int level;

	memset(q, 0, sizeof(*q));
	q->es = es;
	q->nr_levels = nr_levels;
	q->aged_by = SMQ_NULL;
	for (level = 0; level < nr_levels; level++)
		l_init(q->qs + level);
}

/* Record whether @level holds entries other than sentinels. */
static void q_note_level(struct smq_queue *q, unsigned int level)
{
	if (q->qs[level].nr_elts)
		q->populated |= BIT_ULL(level);
	else
		q->populated &= ~BIT_ULL(level);
}

static void q_note_all_levels(struct smq_queue *q)
{
	unsigned int level;

	for (level = 0; level < q->nr_levels; level++)
		q_note_level(q, level);
}

/* The populated levels in [@from, @to). */
static u64 q_populated(struct smq_queue *q, unsigned int from, unsigned int to)
{
	if (from >= to)
		return 0;
	return q->populated & GENMASK_ULL(to - 1, from);
}

static void q_push(struct smq_queue *q, struct smq_entry *e)
{
	if (!e_is_sentinel(q->es, e))
		q->nr_elts++;
	l_add_tail(q->es, q->qs + e->level, e);
	q_note_level(q, e->level);
}

static void q_push_front(struct smq_queue *q, struct smq_entry *e)
{
	if (!e_is_sentinel(q->es, e))
		q->nr_elts++;
	l_add_head(q->es, q->qs + e->level, e);
	q_note_level(q, e->level);
}

static void q_del(struct smq_queue *q, struct smq_entry *e)
{
	l_del(q->es, q->qs + e->level, e);
	if (!e_is_sentinel(q->es, e))
		q->nr_elts--;
	q_note_level(q, e->level);
}

/*
 * The oldest entry of the lowest populated level below @max_level.  With
 * @can_cross_sentinel false, only entries ahead of the first sentinel of
 * their level qualify: those not requeued for a whole period.
 */
static struct smq_entry *q_peek(struct smq_queue *q, unsigned int max_level,
				bool can_cross_sentinel)
{
	u64 levels = q_populated(q, 0, min(max_level, q->nr_levels));
	unsigned int level;
	struct smq_entry *e;

	for (; levels; levels &= levels - 1) {
		level = __ffs64(levels);
		for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e)) {
			if (!e_is_sentinel(q->es, e))
				return e;
			if (!can_cross_sentinel)
				break;
		}
	}

	return NULL;
}

static struct smq_entry *q_pop(struct smq_queue *q)
{
	struct smq_entry *e = q_peek(q, q->nr_levels, true);

	if (e)
		q_del(q, e);

	return e;
}

/*
 * Spread @nr_elts evenly over levels [@lbegin, @lend), so that a level
 * marks the same fraction of the entries whether the queue is full or
 * not: with fewer entries than levels, every other level holds one
 * rather than the bottom levels one each.
 */
static void q_set_targets_range(struct smq_queue *q, unsigned int nr_elts,
				unsigned int lbegin, unsigned int lend)
{
	unsigned int i, nr_levels = lend - lbegin;
	u64 below = 0, through;

	for (i = 0; i < nr_levels; i++) {
		through = div_u64((u64)(i + 1) * nr_elts, nr_levels);
		q->target_count[lbegin + i] = through - below;
		below = through;
	}
}

static void q_set_targets(struct smq_queue *q)
{
	unsigned int nr_top, nr_in_top;

	if (q->last_target_nr_elts == q->nr_elts)
		return;
	q->last_target_nr_elts = q->nr_elts;

	nr_top = min(q->nr_top_levels, q->nr_levels - 1);
	nr_in_top = nr_top ? min(q->nr_in_top_levels, q->nr_elts) : 0;
	if (nr_top)
		q_set_targets_range(q, nr_in_top, q->nr_levels - nr_top, q->nr_levels);
	q_set_targets_range(q, q->nr_elts - nr_in_top, 0, q->nr_levels - nr_top);
}

/*
 * Remove the oldest non-sentinel entry of the first populated level at or
 * above @level, without touching the queue's total.  *@band counts the
 * sentinels it was behind: 0 if idle for a period at least, 2 if requeued
 * since the sentinels last moved.
 */
static struct smq_entry *q_take_from_above(struct smq_queue *q, unsigned int level,
					   unsigned int *band)
{
	struct smq_entry *e;

	for (; level < q->nr_levels; level++) {
		if (!q->qs[level].nr_elts)
			continue;

		*band = 0;
		for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e)) {
			if (!e_is_sentinel(q->es, e)) {
				l_del(q->es, q->qs + level, e);
				return e;
			}
			++*band;
		}
	}

	return NULL;
}

/*
 * Remove the youngest non-sentinel entry of @l, a level of @q.  *@band
 * counts the sentinels ahead of it, as q_take_from_above()'s does, if @q
 * keeps bands (see q_place_in_band()); 2 otherwise.
 */
static struct smq_entry *q_pop_youngest(struct smq_queue *q, struct smq_list *l,
					unsigned int *band)
{
	unsigned int after = 0;
	struct smq_entry *e;

	for (e = to_entry(q->es, l->tail); e; e = to_entry(q->es, e->prev)) {
		if (!e_is_sentinel(q->es, e)) {
			l_del(q->es, l, e);
			*band = q->aged_by == SMQ_NULL ? 2 : 2 - min(after, 2u);
			return e;
		}
		after++;
	}

	return NULL;
}

/*
 * Put @e, moved by a redistribution, into @level as the youngest entry of
 * @band: ahead of the level's sentinels if it was ahead of its old
 * level's.  At the back of the level, an idle dirty block moved lost its
 * age: busy, only blocks of the lower half idle for a writeback period
 * are written back (see queue_writeback()), and a cache whose lower half
 * hits or writebacks kept draining had each period's redistribution
 * refill it with blocks that looked busy, so a cache that writes had made
 * dirty was slow to let in the blocks the load went on to.  The clean
 * queue's order decides victims, not writebacks: there, keeping bands let
 * idle blocks moved down go before the ones their new level held, and
 * cost hits.
 */
static void q_place_in_band(struct smq_queue *q, unsigned int level, struct smq_entry *e,
			    unsigned int band)
{
	bool which;

	if (q->aged_by == SMQ_NULL || band >= 2) {
		l_add_tail(q->es, q->qs + level, e);
		return;
	}
	/* band 0 goes ahead of the older set's sentinel, band 1 of the newer's */
	which = band ? q->newer_sentinels : !q->newer_sentinels;
	l_add_before(q->es, q->qs + level,
		     to_entry(q->es, sentinel_index(q->aged_by, level, which)), e);
}

/* Push @e into its level as the youngest entry of @band (see q_place_in_band()). */
static void q_push_in_band(struct smq_queue *q, struct smq_entry *e, unsigned int band)
{
	q->nr_elts++;
	q_place_in_band(q, e->level, e, band);
	q_note_level(q, e->level);
}

/* Entries carried, in the bands of q_place_in_band(), the idlest first. */
#define NR_BANDS 3u

static unsigned int nr_carried(const struct smq_list *carry)
{
	return carry[0].nr_elts + carry[1].nr_elts + carry[2].nr_elts;
}

/* Move the oldest entry carried, of the idlest band carried, into @level. */
static void q_place_carried(struct smq_queue *q, struct smq_list *carry, unsigned int level)
{
	unsigned int band = 0;
	struct smq_entry *e;

	while (!carry[band].nr_elts)
		band++;
	e = l_head(q->es, carry + band);
	l_del(q->es, carry + band, e);
	e->level = level;
	q_place_in_band(q, level, e, band);
}

/*
 * Entries one redistribution may move: it runs under the policy lock,
 * interrupts off.  A queue with more to move goes on at the next tick.
 * In the userspace harness (replay --longest-tick), the longest tick of
 * a cache of 16M blocks takes 5 to 7 ms; 18 ms with four times the
 * moves, and 2 to 5 s in the implementation this one replaced, which
 * rebalanced every entry at once.  A quarter as many moves left the
 * levels of a large cache unbalanced for long enough to cost it hits.
 */
#define REDISTRIBUTE_MOVES BIT(16)

/*
 * Restore the target count of every level, bottom up, moving at most
 * @moves entries (and what is out of every level when they run out): a
 * level short of entries takes the oldest from above; a level with too
 * many hands its youngest to the level above, in their order, where they
 * are the youngest (of their band, see q_place_in_band()).  Only
 * misplaced entries move, each once if the moves last: handed on, they
 * wait in lists of their own, one per band, out of any level, until a
 * level keeps them.  If the moves run out first, what is carried
 * goes to the top level, and the next ticks bring it down again, oldest
 * first.  Handed from level to level instead, entries promoted into
 * the bottom level while a new cache filled climbed through all of them
 * one by one, moving each block 31 times on average in one tick,
 * interrupts off.  Returns whether every level holds its target.
 */
static bool __q_redistribute(struct smq_queue *q, unsigned int moves)
{
	struct smq_list carry[NR_BANDS], *l;
	unsigned int level, target, keep, band;
	struct smq_entry *e;
	bool done = false;

	for (band = 0; band < NR_BANDS; band++)
		l_init(carry + band);
	q_set_targets(q);
	for (level = 0; level + 1 < q->nr_levels; level++) {
		l = q->qs + level;
		target = q->target_count[level];

		/* its own surplus, its youngest, goes on ahead of what came from below */
		for (; l->nr_elts > target && moves; moves--) {
			e = q_pop_youngest(q, l, &band);
			if (WARN_ON_ONCE(!e))
				goto out;
			l_add_head(q->es, carry + band, e);
		}

		/* what came from below fills it, oldest first, then what is above */
		keep = l->nr_elts < target ? min(target - l->nr_elts, nr_carried(carry)) : 0;
		while (keep--)
			q_place_carried(q, carry, level);
		for (; l->nr_elts < target && moves; moves--) {
			e = q_take_from_above(q, level + 1, &band);
			if (WARN_ON_ONCE(!e))
				goto out;
			e->level = level;
			q_place_in_band(q, level, e, band);
		}
		if (l->nr_elts != target)
			goto out;
	}
	done = true;
out:
	/* the top level keeps the rest; nothing may stay out of every level */
	while (nr_carried(carry))
		q_place_carried(q, carry, q->nr_levels - 1);
	return done;
}

/* Moving entries between lists directly, it notes their levels at the end. */
static void q_redistribute(struct smq_queue *q)
{
	q->unbalanced = !__q_redistribute(q, REDISTRIBUTE_MOVES);
	q_note_all_levels(q);
}

/* A period's redistribution: one still going on is left to the ticks. */
static void q_start_redistribution(struct smq_queue *q)
{
	if (!q->unbalanced)
		q_redistribute(q);
}

#define SWAP_SEARCH 4u

/*
 * The entry to swap with one climbing into @level: the oldest there not
 * hit in this tick itself, among the first few, so that entries hit
 * equally often cannot keep pushing each other back down.
 */
static struct smq_entry *q_swap_partner(struct smq_queue *q, unsigned int level)
{
	struct smq_entry *e;
	unsigned int tried = 0;

	for (e = l_head(q->es, q->qs + level); e; e = l_next(q->es, e)) {
		if (e_is_sentinel(q->es, e))
			continue;
		if (!q->hits || !hit_bits_test(q->hits, to_index(q->es, e) - q->hits_base))
			return e;
		if (++tried == SWAP_SEARCH)
			break;
	}

	return NULL;
}

/*
 * Move @e up @extra_levels levels.  To keep the levels' sizes, an old
 * entry of the destination level takes @e's place in the old level.
 */
static void q_requeue(struct smq_queue *q, struct smq_entry *e, unsigned int extra_levels)
{
	struct smq_entry *de;
	unsigned int new_level = min(q->nr_levels - 1u, e->level + extra_levels);

	if (new_level != e->level) {
		de = q_swap_partner(q, new_level);
		if (de) {
			q_del(q, de);
			de->level = e->level;
			q_push(q, de);
		}
	}

	q_del(q, e);
	e->level = new_level;
	q_push(q, e);
}

/*----------------------------------------------------------------*/

/*
 * struct smq_stats - how often lookups land in the top quarter of a
 * queue's levels, the measure of how well the queue predicts the load.
 */
struct smq_stats {
	unsigned int hit_threshold;
	unsigned int hits;
	unsigned int misses;
};

enum smq_confidence {
	Q_POOR,
	Q_FAIR,
	Q_WELL
};

static void stats_init(struct smq_stats *s, unsigned int nr_levels)
{
	s->hit_threshold = nr_levels * 3u / 4u;
	s->hits = 0;
	s->misses = 0;
}

static void stats_reset(struct smq_stats *s)
{
	s->hits = 0;
	s->misses = 0;
}

static void stats_level_accessed(struct smq_stats *s, unsigned int level)
{
	if (level >= s->hit_threshold)
		s->hits++;
	else
		s->misses++;
}

static void stats_miss(struct smq_stats *s)
{
	s->misses++;
}

/* Top-level hits per 16 lookups, 0 when nothing was looked up. */
static unsigned int stats_sixteenths(struct smq_stats *s)
{
	u64 total = (u64)s->hits + s->misses;

	return total ? div64_u64((u64)s->hits * 16u, total) : 0;
}

/*
 * Poor below 1/16 of lookups in the top levels, fair below 1/8: a new
 * cache, whose blocks are spread over all levels, or a load that changed.
 */
static enum smq_confidence stats_assess(struct smq_stats *s)
{
	u64 total = (u64)s->hits + s->misses;
	u64 top = (u64)s->hits * 16u;

	if (top < total)
		return Q_POOR;
	if (top < 2u * total)
		return Q_FAIR;
	return Q_WELL;
}

/*----------------------------------------------------------------*/

/*
 * struct smq_hash_table - chained hash of entries by origin block; the
 * chains are linked through the entries' @hash_next.
 */
struct smq_hash_table {
	struct smq_space *es;
	unsigned int hash_bits;
	u32 *buckets;
};

static unsigned int h_nr_buckets(unsigned int nr_entries)
{
	return roundup_pow_of_two(max(nr_entries / 4u, 16u));
}

static int h_init(struct smq_hash_table *ht, struct smq_space *es, unsigned int nr_entries)
{
	unsigned int i, nr_buckets = h_nr_buckets(nr_entries);

	ht->es = es;
	ht->hash_bits = __ffs(nr_buckets);
	ht->buckets = vmalloc(array_size(nr_buckets, sizeof(*ht->buckets)));
	if (!ht->buckets)
		return -ENOMEM;

	for (i = 0; i < nr_buckets; i++)
		ht->buckets[i] = SMQ_NULL;

	return 0;
}

static void h_exit(struct smq_hash_table *ht)
{
	vfree(ht->buckets);
}

static unsigned int h_bucket(struct smq_hash_table *ht, u64 b)
{
	return hash_64(b, ht->hash_bits);
}

static void h_insert(struct smq_hash_table *ht, struct smq_entry *e)
{
	unsigned int b = h_bucket(ht, e_block(ht->es, e));

	e->hash_next = ht->buckets[b];
	ht->buckets[b] = to_index(ht->es, e);
	e->hashed = true;
}

static void h_unlink(struct smq_hash_table *ht, unsigned int b,
		     struct smq_entry *prev, struct smq_entry *e)
{
	if (prev)
		prev->hash_next = e->hash_next;
	else
		ht->buckets[b] = e->hash_next;
}

/*
 * Find the entry for @oblock and move it to the front of its chain, where
 * the next lookup of a hot block finds it first.
 */
static struct smq_entry *h_lookup(struct smq_hash_table *ht, u64 oblock)
{
	unsigned int b = h_bucket(ht, oblock);
	struct smq_entry *e, *prev = NULL;

	for (e = to_entry(ht->es, ht->buckets[b]); e;
	     prev = e, e = to_entry(ht->es, e->hash_next)) {
		if (!e_holds(ht->es, e, oblock))
			continue;

		if (prev) {
			h_unlink(ht, b, prev, e);
			e->hash_next = ht->buckets[b];
			ht->buckets[b] = to_index(ht->es, e);
		}
		return e;
	}

	return NULL;
}

static void h_remove(struct smq_hash_table *ht, struct smq_entry *e)
{
	unsigned int b = h_bucket(ht, e_block(ht->es, e));
	struct smq_entry *p, *prev = NULL;

	for (p = to_entry(ht->es, ht->buckets[b]); p; prev = p, p = to_entry(ht->es, p->hash_next))
		if (p == e) {
			h_unlink(ht, b, prev, e);
			e->hashed = false;
			return;
		}

	WARN_ON_ONCE(1);
}

/*----------------------------------------------------------------*/

/*
 * struct smq_alloc - hands out the entries of a slice of the space,
 * keeping the free ones on a list linked through @next.
 */
struct smq_alloc {
	struct smq_space *es;
	unsigned int begin;
	unsigned int nr_entries;
	unsigned int nr_allocated;
	struct smq_list free;
};

static void init_allocator(struct smq_alloc *ea, struct smq_space *es,
			   unsigned int begin, unsigned int nr_entries)
{
	unsigned int i;

	ea->es = es;
	ea->begin = begin;
	ea->nr_entries = nr_entries;
	ea->nr_allocated = 0;
	l_init(&ea->free);
	for (i = begin; i < begin + nr_entries; i++)
		l_add_tail(es, &ea->free, to_entry(es, i));
}

static void init_entry(struct smq_entry *e)
{
	e->hash_next = SMQ_NULL;
	e->prev = SMQ_NULL;
	e->next = SMQ_NULL;
	e->level = 0;
	e->dirty = false;
	e->pending_work = false;
	e->hashed = false;
	e->contested = false;
	e->hit = false;
	e->allocated = true;
}

static struct smq_entry *alloc_entry(struct smq_alloc *ea)
{
	struct smq_entry *e = l_head(ea->es, &ea->free);

	if (!e)
		return NULL;

	l_del(ea->es, &ea->free, e);
	init_entry(e);
	ea->nr_allocated++;

	return e;
}

/* Only for loading mappings, before any entry is handed out by order. */
static struct smq_entry *alloc_particular_entry(struct smq_alloc *ea, unsigned int i)
{
	struct smq_entry *e = to_entry(ea->es, ea->begin + i);

	if (e->allocated)
		return NULL;

	l_del(ea->es, &ea->free, e);
	init_entry(e);
	ea->nr_allocated++;

	return e;
}

static void free_entry(struct smq_alloc *ea, struct smq_entry *e)
{
	if (WARN_ON_ONCE(!ea->nr_allocated || !e->allocated))
		return;

	ea->nr_allocated--;
	e->allocated = false;
	l_add_tail(ea->es, &ea->free, e);
}

static bool allocator_empty(struct smq_alloc *ea)
{
	return ea->nr_allocated == ea->nr_entries;
}

static unsigned int get_index(struct smq_alloc *ea, struct smq_entry *e)
{
	return to_index(ea->es, e) - ea->begin;
}

static struct smq_entry *get_entry(struct smq_alloc *ea, unsigned int index)
{
	return to_entry(ea->es, ea->begin + index);
}

/*----------------------------------------------------------------*/

#define NR_SENTINELS_PER_QUEUE (2u * NR_LEVELS)

#define WRITEBACK_PERIOD (10ul * HZ)
#define DEMOTE_PERIOD (60ul * HZ)

/* Percentages of the cache. */
#define FREE_TARGET 25u

/* Cap on queued background work; the tracker allocates it on demand. */
#define MAX_BACKGROUND_WORK 4096u

#define GHOST_RATIO 16u		/* cache blocks per ghost slot */
/*
 * A ghost lasts about as many demotions and rejections as there are
 * slots.  A small cache's should reach back no further than the cache
 * does: with 256 slots, a cache of 25 blocks counted as regrets
 * candidates that came back ten cache-fulls of demotions later, long
 * after admitting them would have been any use.
 */
#define GHOST_MIN_SLOTS 16u
#define GHOST_VICTIM 0x8000u	/* the tag is a demoted victim's */
#define GHOST_TAG_BITS 15
#define GHOST_TAG_MASK ((1u << GHOST_TAG_BITS) - 1u)
#define GHOST_MAX_CREDIT 64u
#define BIAS_SHIFT 4		/* regrets per step of the bias */
#define BIAS_MIN (-2)
#define BIAS_MAX 4
#define BIAS_MAX_PAYING 16	/* while promotions into a full cache pay well */
#define PAYOFF_WINDOW 64u	/* such promotions per look at what they bought */
#define PAYOFF_HITS 2u		/* hits per promotion that count as paying well */
#define CHURN_WINDOW 128u	/* demotions of contested blocks per look */
#define CHURN_UNHIT 14u		/* sixteenths of them left unhit that is churn */
#define CHURN_RUNS 3u		/* windows in a row that set the cap, or lift it */

/*
 * struct smq_ghosts - the regrets of a full cache's admission test.
 * Whether a block seen a few times lately should replace an older one
 * depends on the load: under a bursty or shifting one recency pays,
 * under a stable skewed one frequency does.  A small direct-mapped table
 * of 16-bit tags remembers demoted victims and, as many of them,
 * candidates that lost to a victim.  One looked up again while still
 * remembered is a decision that cost a miss: a rejected candidate says
 * admit more eagerly, a demoted victim less (ARC's adaptation, sampled).
 * How eager is bounded by what promotions buy: a cache whose promotions
 * are each followed by a few hits may lean further towards recency than
 * one whose promotions mostly churn, and one whose promoted blocks leave
 * again without a hit, window after window, may not lean at all.
 * @tags: a tag, with GHOST_VICTIM for a victim; 0 for an empty slot
 * @mult: the odd multiplier of the blocks' hash, drawn at creation
 * @bits: log2 of the number of slots
 * @bias: added to a candidate's count before it is weighed against the
 *	victim's, in 1/2^BIAS_SHIFT
 * @ceiling: the highest @bias allowed, in whole steps
 * @credit: victims remembered and not yet matched by a rejection; keeps
 *	the two kinds equally many, so that their regrets compare
 */
struct smq_ghosts {
	u16 *tags;
	u64 mult;
	unsigned int bits;
	int bias;
	int ceiling;
	unsigned int credit;
};

/* ghost_slot() shifts a 64-bit hash right by 64 less the bits of the index. */
static_assert(GHOST_MIN_SLOTS >= 2);
static_assert(GHOST_TAG_MASK < GHOST_VICTIM);

static int ghosts_init(struct smq_ghosts *g, unsigned int nr_cache)
{
	unsigned int nr = roundup_pow_of_two(max(nr_cache / GHOST_RATIO, GHOST_MIN_SLOTS));

	g->bits = __ffs(nr);
	g->mult = draw_hash_mult();
	g->bias = 0;
	g->ceiling = BIAS_MAX;
	g->credit = 0;
	g->tags = vzalloc(array_size(nr, sizeof(u16)));
	return g->tags ? 0 : -ENOMEM;
}

static void ghosts_exit(struct smq_ghosts *g)
{
	vfree(g->tags);
}

/*
 * The slot and tag of @oblock: multiply-shift hashing as the sketch's (see
 * sketch_locate()), with a multiplier of its own; the top bits pick the
 * slot, the GHOST_TAG_BITS below them make the tag.
 */
static u16 *ghost_slot(struct smq_ghosts *g, u64 oblock, u16 *tag)
{
	u64 h = oblock * g->mult;

	*tag = ((h >> (64 - GHOST_TAG_BITS - g->bits)) & GHOST_TAG_MASK) | 1u;
	return g->tags + (h >> (64 - g->bits));
}

/* Remember a demoted victim, or a rejected candidate if a victim is owed one. */
static void ghost_remember(struct smq_ghosts *g, u64 oblock, bool victim)
{
	u16 tag, *slot;

	if (victim) {
		g->credit = min(g->credit + 1u, GHOST_MAX_CREDIT);
	} else {
		if (!g->credit)
			return;
		g->credit--;
	}
	slot = ghost_slot(g, oblock, &tag);
	*slot = tag | (victim ? GHOST_VICTIM : 0);
}

/* A miss on @oblock: if it is remembered, that decision was a mistake. */
static void ghost_check(struct smq_ghosts *g, u64 oblock)
{
	u16 tag, *slot = ghost_slot(g, oblock, &tag);

	if ((*slot & GHOST_TAG_MASK) != tag)
		return;
	if (*slot & GHOST_VICTIM)
		g->bias = max(g->bias - 1, BIAS_MIN * (1 << BIAS_SHIFT));
	else
		g->bias = min(g->bias + 1, g->ceiling * (1 << BIAS_SHIFT));
	*slot = 0;
}

/*
 * Whole steps of the bias, rounded down: from zero, one regret of a
 * demoted victim is a step towards frequency, where a step towards
 * recency takes 1 << BIAS_SHIFT regrets of rejected candidates more than
 * of victims.  Rounded towards zero instead, the real traces'
 * slow-device I/O went from 0.88692 to 0.88711 times the tree's smq, and
 * P3 at 5 % above it (1.0017).
 */
static int ghost_bias(struct smq_ghosts *g)
{
	return g->bias >> BIAS_SHIFT;
}

static void ghosts_set_ceiling(struct smq_ghosts *g, int ceiling)
{
	g->ceiling = ceiling;
	g->bias = min(g->bias, ceiling * (1 << BIAS_SHIFT));
}

#define RECENT_BITS 10		/* log2 of the blocks remembered as looked up lately */
#define STREAM_RUN 4u		/* blocks before a stream's first, in ascending order */
#define SMALL_BIOS 3u		/* bios per block that make reading ahead pay */

/*
 * struct smq_recent - a block looked up lately, in a direct-mapped table
 * indexed by a hash of the block: enough to tell a stream's bios apart
 * from accesses (see repeats_stream_head()).
 * @oblock: the origin block.
 * @at: the low 32 bits of jiffies at its last lookup that counted.
 * @run: the blocks before it looked up in ascending order, each within a
 *	second of the next, as far as the table remembers (saturating).
 * @head: no lookup of the block after it has counted since.
 * @bios: lookups of the block since its last that counted, that one
 *	included (saturating): the bios one access to it was split into.
 */
struct smq_recent {
	u64 oblock;
	u32 at;
	u16 run;
	bool head;
	u8 bios;
};

/*
 * A demotion takes time (the target commits its metadata first), and so
 * does the promotion that follows it; meanwhile more blocks may win a
 * block each, several at once when a bio spans several cache blocks.
 * Each winner waits for a demotion of its own, so that the block freed
 * goes to a winner and not to whichever block misses next.  With one
 * winner kept at a time, P3 at 5 % with migrations of 1 ms promoted
 * 226,580 blocks, and 177,226 with each kept, for as many misses (140,602
 * with migrations that end at once).  The block traces gain
 * nothing from more than 128 waiting, and each win scans the ones
 * waiting under the policy lock; below 512 cache blocks the free target
 * binds first.
 */
#define MAX_HEIRS 128u

/*
 * struct smq_policy - an smq, mq or cleaner policy instance.
 * @lock: protects everything below but @migrations_allowed.
 * @hotspot_block_shift: log2 of the cache blocks per hotspot block.
 * @hotspot_level_jump: levels a hotspot entry climbs on a hit.
 * @es: the space of every entry: sentinels, hotspot, cache, in that order.
 * @hotspot: hotspot blocks, by recent misses.
 * @clean: clean cache blocks, by recent hits.
 * @dirty: dirty cache blocks, by recent hits.
 * @hotspot_stats: top-level hits of the hotspot queue, per hotspot period.
 * @cache_stats: top-level hits of the cache, per cache period.
 * @no_idle_dirty: no dirty block was idle for a writeback period when
 *	last looked for, since the writeback sentinels last moved or the
 *	dirty queue was last redistributed.
 * @write_periods: one bit per cache block, the dirty queue's
 *	@newer_sentinels when the block was last written: whether it was
 *	written since the writeback sentinels last moved (or an even number
 *	of moves before, which holds its writeback back a period more at
 *	worst).  See requeue().
 * @promote_level: a miss in a hotspot block of this level or above is
 *	in a hot region: two lookups more than the victim's count are
 *	enough to replace it (one more at the counters' ceiling), however
 *	high that count; see beats_victim().  (A write miss may not compete
 *	at all; see should_promote().)
 * @sketch: recent lookups per origin block, for admission.
 * @lookups: lookups since the policy was created.
 * @hotspot_period_end: @lookups at which the hotspot period ends.
 * @cache_period_end: the same for the cache period.
 * @victim: the cache block a promotion would replace, or SMQ_NULL.
 * @victim_oblock: the origin block @victim held when it was picked: its
 *	cache block may have been freed and given to another since.
 * @victim_freq: the count of @victim when it was picked, its hit included.
 * @victim_uses: misses @victim has been weighed against.
 * @victim_none: no clean victim is to be used for the rest of the lookup:
 *	a pick found none, or a writeback is to make one (see should_promote()).
 * @filled: the cache has been full since the policy was created: blocks
 *	seen once are no longer promoted.
 * @period_hits: hits in this cache period
 * @period_swaps: promotions into the full cache queued in this cache period
 * @hits_before_drop: hits in the last cache period before they dropped
 *	(see note_cache_period())
 * @dropped_periods: cache periods in a row since they dropped
 * @payoff_swaps: demotions queued since the last look at what promotions
 *	bought to make room for a winner.
 * @payoff_hits: hits since then; 64 bits, as a cache that stops swapping
 *	may serve 2^32 hits before the next look, which must not find they do
 *	not pay.
 * @churn_demoted: contested blocks demoted since the last look at how
 *	many of them left unhit.
 * @churn_unhit: those of them never hit.
 * @churn_runs: looks in a row that found churn, up to CHURN_RUNS; at
 *	CHURN_RUNS the bias may not be positive.
 * @calm_runs: while churning, the looks in a row since that found none;
 *	at CHURN_RUNS the churn is over.
 * @heirs: the blocks that won a full cache's block and wait for the
 *	demotions they queued, oldest first from @first_heir; @nr_heirs of
 *	them.  Each demotion that ends promotes the oldest.
 * @heir_levels: the level each of @heirs enters (see queue_promotion()'s
 *	callers).
 * @recent: 1 << RECENT_BITS blocks looked up lately, for telling a
 *	block's bios from accesses to it; all a second old at creation.
 * @last_counted: the slot of @recent the last lookup that counted went to.
 * @bg_work: queued and running background work.
 * @migrations_allowed: promotions and demotions may be queued.
 * @cleaner: write back every dirty block, even when the device is busy.
 */
struct smq_policy {
	struct dm_cache_policy policy;

	spinlock_t lock;	/* see above */
	dm_cblock_t cache_size;
	sector_t cache_block_size;

	unsigned int nr_hotspot_blocks;
	unsigned int hotspot_block_shift;
	unsigned int hotspot_level_jump;

	struct smq_space es;
	struct smq_alloc writeback_sentinel_alloc;
	struct smq_alloc demote_sentinel_alloc;
	struct smq_alloc hotspot_alloc;
	struct smq_alloc cache_alloc;

	struct smq_hit_bits hotspot_hits;

	struct smq_queue hotspot;
	struct smq_queue clean;
	struct smq_queue dirty;

	struct smq_stats hotspot_stats;
	struct smq_stats cache_stats;

	struct smq_hash_table table;
	struct smq_hash_table hotspot_table;

	unsigned long next_writeback_period;

	bool no_idle_dirty;
	unsigned long *write_periods;
	unsigned long next_demote_period;

	unsigned int promote_level;

	struct smq_sketch sketch;
	unsigned int lookups;
	unsigned int hotspot_period_end;
	unsigned int cache_period_end;
	unsigned int victim;
	u64 victim_oblock;
	unsigned int victim_freq;
	unsigned int victim_uses;
	bool victim_none;
	bool filled;
	unsigned int period_hits;
	unsigned int period_swaps;
	unsigned int hits_before_drop;
	unsigned int dropped_periods;
	unsigned int payoff_swaps;
	u64 payoff_hits;
	unsigned int churn_demoted;
	unsigned int churn_unhit;
	unsigned int churn_runs;
	unsigned int calm_runs;
	dm_oblock_t heirs[MAX_HEIRS];
	u8 heir_levels[MAX_HEIRS];
	unsigned int first_heir;
	unsigned int nr_heirs;
	struct smq_recent *recent;
	struct smq_recent *last_counted;
	struct smq_ghosts ghosts;
	struct background_tracker *bg_work;

	bool migrations_allowed;
	bool cleaner;
};

/*----------------------------------------------------------------*/

static struct smq_entry *get_sentinel(struct smq_alloc *ea, unsigned int level, bool which)
{
	return to_entry(ea->es, sentinel_index(ea->begin, level, which));
}

/* Move the older set of @q's sentinels to the back of every level. */
static void requeue_sentinels(struct smq_queue *q, struct smq_alloc *ea)
{
	unsigned int level;
	struct smq_entry *s;

	q->newer_sentinels = !q->newer_sentinels;
	for (level = 0; level < q->nr_levels; level++) {
		s = get_sentinel(ea, level, q->newer_sentinels);
		q_del(q, s);
		q_push(q, s);
	}
}

/*
 * Is the period ending at @next over at @now?  A period never ends more
 * than @len ahead; one that seems to has ended, so long ago that
 * @now - @next wrapped past LONG_MAX: on a 32-bit kernel, after 25 to 50
 * days of a suspended device (HZ=1000), to which the target sends no
 * ticks.
 */
static bool sentinel_period_over(unsigned long now, unsigned long next, unsigned long len)
{
	return time_after(now, next) || time_after(next, now + len);
}

static void update_sentinels(struct smq_policy *mq, unsigned long now)
{
	if (sentinel_period_over(now, mq->next_writeback_period, WRITEBACK_PERIOD)) {
		mq->next_writeback_period = now + WRITEBACK_PERIOD;
		requeue_sentinels(&mq->dirty, &mq->writeback_sentinel_alloc);
		mq->no_idle_dirty = false;
	}

	if (sentinel_period_over(now, mq->next_demote_period, DEMOTE_PERIOD)) {
		mq->next_demote_period = now + DEMOTE_PERIOD;
		requeue_sentinels(&mq->clean, &mq->demote_sentinel_alloc);
	}
}

static void sentinels_init(struct smq_policy *mq, unsigned long now)
{
	unsigned int level, which;
	struct smq_entry *s;

	for (which = 0; which < 2; which++)
		for (level = 0; level < NR_LEVELS; level++) {
			s = get_sentinel(&mq->writeback_sentinel_alloc, level, which);
			s->level = level;
			q_push(&mq->dirty, s);

			s = get_sentinel(&mq->demote_sentinel_alloc, level, which);
			s->level = level;
			q_push(&mq->clean, s);
		}

	/* set 1 went in last; the sets' places matter, not which is which */
	mq->dirty.newer_sentinels = true;
	mq->clean.newer_sentinels = true;
	mq->dirty.aged_by = mq->writeback_sentinel_alloc.begin;
	mq->next_writeback_period = now + WRITEBACK_PERIOD;
	mq->next_demote_period = now + DEMOTE_PERIOD;
}

/*----------------------------------------------------------------*/

static struct smq_queue *cache_queue(struct smq_policy *mq, struct smq_entry *e)
{
	return e->dirty ? &mq->dirty : &mq->clean;
}

static dm_cblock_t infer_cblock(struct smq_policy *mq, struct smq_entry *e)
{
	return to_cblock(get_index(&mq->cache_alloc, e));
}

static struct smq_entry *cblock_entry(struct smq_policy *mq, dm_cblock_t cblock)
{
	if (from_cblock(cblock) >= from_cblock(mq->cache_size))
		return NULL;

	return get_entry(&mq->cache_alloc, from_cblock(cblock));
}

/*
 * Note that @e was last written in this writeback period or, with
 * @this_period false, in the one before: the bit holds only the period's
 * parity, which the sets of sentinels take turns to give.
 */
static void note_write_period(struct smq_policy *mq, struct smq_entry *e, bool this_period)
{
	__assign_bit(from_cblock(infer_cblock(mq, e)), mq->write_periods,
		     mq->dirty.newer_sentinels == this_period);
}

static void note_write(struct smq_policy *mq, struct smq_entry *e)
{
	note_write_period(mq, e, true);
}

/* Was @e written since the writeback sentinels last moved? */
static bool written_this_period(struct smq_policy *mq, struct smq_entry *e)
{
	return test_bit(from_cblock(infer_cblock(mq, e)), mq->write_periods) ==
	       mq->dirty.newer_sentinels;
}

/* Levels a hit lifts a cache block: from the lower half, out of it. */
#define HIT_LIFT (NR_LEVELS / 2u)

/*
 * A hit lifts a cache block HIT_LIFT levels, as the youngest of its new
 * level, at every hit.  Victims are picked in the lower half, so a block
 * hit once is safe until it sinks back, and one hit again soon stays on
 * top: the order within the queue follows recency as much as frequency.
 * Lifting one level per period instead lets a block hit a few times in a
 * burst sink as fast as one never hit: on w106 at 10 % the policy then
 * missed 13.3 % of lookups instead of 11.3 %.  Levels grow uneven until
 * the next redistribution; a cache whose lower half empties meanwhile
 * promotes nothing until then, which keeps a burst of hits from turning
 * into a burst of promotions.  Blocks with work pending are off the
 * queues until the work completes.
 *
 * A dirty block read, and not written since the writeback sentinels
 * last moved, goes between its new level's sentinels rather than behind
 * both, as if hit a period ago: the sentinels hold back the writeback of
 * blocks that may be written again soon, which a read does not tell.
 * Behind both, a dirty block read every few seconds was never written
 * back, however idle the device between the reads.  Between them, it
 * waits for the end of the period at most, and then idle writeback takes
 * it (see writeback_levels()); busy writeback does not, as the hit lifted
 * it out of the lower half.  A block written lately stays behind both:
 * a read after a write does not cut short the wait the write started.
 */
static void requeue(struct smq_policy *mq, struct smq_entry *e, int data_dir)
{
	struct smq_queue *q = cache_queue(mq, e);
	bool written = data_dir == WRITE;

	/* a clean block written is noted when the target sets it dirty */
	if (written && e->dirty)
		note_write(mq, e);
	if (e->pending_work)
		return;

	if (!written && e->dirty)
		written = written_this_period(mq, e);
	q_del(q, e);
	e->level = min(e->level + HIT_LIFT, q->nr_levels - 1u);
	/* the clean queue keeps no bands: there every hit goes to the back */
	q_push_in_band(q, e, written ? 2 : 1);
}

/*
 * A write that repeats a lookup just counted (another bio of the block,
 * or the write of a read-modify-write) lifts nothing, but a dirty block
 * read and then written was written lately: it goes behind its level's
 * writeback sentinels, as a write hit would put it.
 */
static void note_repeated_write(struct smq_policy *mq, struct smq_entry *e)
{
	if (!e->dirty || e->pending_work || written_this_period(mq, e))
		return;

	note_write(mq, e);
	q_del(&mq->dirty, e);
	q_push(&mq->dirty, e);
}

/*
 * How many top hotspot levels are promotable once the cache is full, by
 * the cache's hit rate in sixteenths.  A cache hitting poorly cannot
 * afford many promotions, one hitting well needs few; one in between
 * gains the most from promoting.
 */
static const u8 promote_levels_by_hit_rate[17] = {
	1, 1, 1, 2, 4, 6, 7, 8, 7, 6, 4, 4, 3, 3, 2, 2, 1
};

static void update_promote_levels(struct smq_policy *mq)
{
	unsigned int nr_levels;

	/* While the cache has free blocks, fill it eagerly. */
	if (allocator_empty(&mq->cache_alloc))
		nr_levels = promote_levels_by_hit_rate[stats_sixteenths(&mq->cache_stats)];
	else
		nr_levels = NR_LEVELS / 2u;

	/*
	 * With little confidence in the hotspot queue we do not know what
	 * to promote, so promote less.
	 */
	switch (stats_assess(&mq->hotspot_stats)) {
	case Q_POOR:
		nr_levels /= 4u;
		break;
	case Q_FAIR:
		nr_levels /= 2u;
		break;
	case Q_WELL:
		break;
	}

	mq->promote_level = NR_LEVELS - min(nr_levels, NR_LEVELS);
}

/* A hotspot queue that predicts poorly is reshuffled faster. */
static void update_level_jump(struct smq_policy *mq)
{
	switch (stats_assess(&mq->hotspot_stats)) {
	case Q_POOR:
		mq->hotspot_level_jump = 4u;
		break;
	case Q_FAIR:
		mq->hotspot_level_jump = 2u;
		break;
	case Q_WELL:
		mq->hotspot_level_jump = 1u;
		break;
	}
}

/* Has @mq->lookups passed @end (wrapping)?  Then the next period ends @len later. */
static bool period_over(struct smq_policy *mq, unsigned int *end, unsigned int len)
{
	if ((int)(mq->lookups - *end) < 0)
		return false;
	*end = mq->lookups + len;
	return true;
}

/*
 * The hotspot and cache periods count lookups, not time, so that the
 * queues learn at the same pace whatever the I/O rate.
 */
static unsigned int hotspot_period(struct smq_policy *mq)
{
	return max(mq->nr_hotspot_blocks / 2u, 1024u);
}

static unsigned int cache_period(struct smq_policy *mq)
{
	return max(from_cblock(mq->cache_size) * 2u, 4096u);
}

static void end_hotspot_period(struct smq_policy *mq)
{
	hit_bits_clear_all(&mq->hotspot_hits);
	update_promote_levels(mq);

	if (period_over(mq, &mq->hotspot_period_end, hotspot_period(mq))) {
		update_level_jump(mq);
		q_start_redistribution(&mq->hotspot);
		stats_reset(&mq->hotspot_stats);
	}
}

#define DROP_FACTOR 8u	/* hits fell to under this fraction of what they were */
#define DROP_PERIODS 2u	/* cache periods in a row the drop lasts */

/*
 * Has the load moved on while the counts still rank the blocks it left
 * first?  The cache's hits fell to under an eighth of what they were,
 * from an eighth of the lookups at least, for DROP_PERIODS cache periods
 * in a row, and no candidate won a place meanwhile.  Then the sketch is
 * halved now rather than at the end of its period, at least 64K lookups:
 * counts that reached the ceiling under the old load kept every new
 * block out until then.  In the harness, 256 cache blocks written at
 * random for 40 s, then a new set of 200 read and written: the new set
 * first hit half its lookups in the 4 s window from 32 s after the
 * shift, and from 16 s with the early halving (the tree's smq: 20 s).
 * The drop must last: on cloudPhysicsIO, where hits drop and recover
 * within a period, halving at the first cost up to 1.7 % more
 * slow-device I/O.  Nor may hits have been few, where a drop is noise:
 * without that floor cloudPhysicsIO at 5 % cost 0.4 % more.
 */
static void note_cache_period(struct smq_policy *mq)
{
	bool dropped = mq->filled && !mq->period_swaps &&
		       (u64)mq->period_hits * DROP_FACTOR < mq->hits_before_drop &&
		       (u64)mq->hits_before_drop * DROP_FACTOR >= cache_period(mq);

	if (!dropped) {
		mq->dropped_periods = 0;
		mq->hits_before_drop = mq->period_hits;
	} else if (mq->dropped_periods < DROP_PERIODS &&
		   ++mq->dropped_periods == DROP_PERIODS) {
		sketch_halve_soon(&mq->sketch);
	}
	mq->period_hits = 0;
	mq->period_swaps = 0;
}

static void end_cache_period(struct smq_policy *mq)
{
	if (period_over(mq, &mq->cache_period_end, cache_period(mq))) {
		note_cache_period(mq);
		q_start_redistribution(&mq->dirty);
		/* idle blocks moved down may qualify now (see q_place_in_band()) */
		mq->no_idle_dirty = false;
		q_start_redistribution(&mq->clean);
		stats_reset(&mq->cache_stats);
	}
}

/*----------------------------------------------------------------*/

static bool clean_target_met(struct smq_policy *mq, bool idle)
{
	/* Idle or a cleaner, clean what may be (see writeback_levels()); busy, nothing. */
	if (idle || mq->cleaner)
		return !mq->dirty.nr_elts;

	return true;
}

static bool free_target_met(struct smq_policy *mq)
{
	unsigned int nr_free = mq->cache_alloc.nr_entries - mq->cache_alloc.nr_allocated;

	return (u64)(nr_free + btracker_nr_demotions_queued(mq->bg_work)) * 100u >=
		(u64)from_cblock(mq->cache_size) * FREE_TARGET;
}

/* Take @e off its queue and hand it to the tracker as @op; false if full. */
static bool queue_background_work(struct smq_policy *mq, struct smq_entry *e,
				  enum policy_operation op)
{
	struct smq_queue *q = cache_queue(mq, e);
	struct policy_work work = {
		.op = op,
		.oblock = to_oblock(e_block(&mq->es, e)),
		.cblock = infer_cblock(mq, e),
	};

	q_del(q, e);
	e->pending_work = true;
	if (btracker_queue(mq->bg_work, &work, NULL)) {
		e->pending_work = false;
		q_push_front(q, e);
		return false;
	}
	return true;
}

/*
 * Could a promotion into a full cache without a clean block queue a
 * writeback (and so make one clean), busy as the device is?
 */
static bool writeback_possible(struct smq_policy *mq)
{
	return mq->dirty.nr_elts && (mq->cleaner || !mq->no_idle_dirty);
}

/*
 * The levels of the dirty queue a writeback may take any block from.
 * Busy, the lower half, where blocks cleaned are victims soon.  Idle, the
 * lower half too: a pause between bursts is no reason to write back what
 * was written or hit lately, as the next burst would mostly dirty it
 * again (the blocks of the upper half idle for a writeback period go
 * too, see queue_writeback()).  Every level once nothing was looked up
 * for a writeback period, and while the queue holds fewer blocks than
 * levels, as its lower half may then be empty with blocks above (see
 * pick_victim()).
 */
static unsigned int writeback_levels(struct smq_policy *mq, bool idle)
{
	struct smq_queue *q = &mq->dirty;

	/* @last_counted holds the time of the last lookup that counted */
	if (mq->cleaner ||
	    (idle && (q->nr_elts < q->nr_levels ||
		      (u32)jiffies - mq->last_counted->at > WRITEBACK_PERIOD)))
		return q->nr_levels;
	return q->nr_levels / 2u;
}

/*
 * While busy, a writeback is only queued to make a clean block to
 * replace, and only dirty blocks of the lower half idle for a writeback
 * period (those ahead of the sentinels) qualify: cleaned, they stay in
 * the lower half, where victims are picked.  Once none does, none will
 * until the writeback sentinels move or a redistribution moves idle
 * blocks down, so the walk is not repeated on every miss until then.
 * Idle, any block of the levels writeback_levels() allows, then any
 * block idle for a writeback period: a cache is left dirty only with
 * what was written lately, or read since the sentinels last moved.  With
 * the lower half alone, a device idle between lookups less than a
 * writeback period apart (a journal's commit every 5 s) kept the blocks
 * of the upper half dirty for good: in the harness, 256 blocks written
 * three times each, then a read every 5 s for 10 minutes, wrote none of
 * them back (the tree's smq wrote back all).  Returns whether a
 * writeback was queued.
 */
static bool queue_writeback(struct smq_policy *mq, bool idle)
{
	bool any = idle || mq->cleaner;
	struct smq_entry *e;

	if (!any && mq->no_idle_dirty)
		return false;

	e = q_peek(&mq->dirty, writeback_levels(mq, idle), any);
	if (!e && idle)
		e = q_peek(&mq->dirty, mq->dirty.nr_levels, false);
	if (e)
		return queue_background_work(mq, e, POLICY_WRITEBACK);
	if (!any)
		mq->no_idle_dirty = true;
	return false;
}

#define VICTIM_SAMPLE 2u
#define VICTIM_REUSE 16u

/*
 * The clean block to demote: of the oldest VICTIM_SAMPLE blocks of the
 * lowest levels in [@from, @to) (those not hit for a demote period come
 * first, ahead of the sentinels), the one looked up least lately.
 * Sampling more finds better victims on paper, but costs a walk past
 * sentinels and a counter read each, and measured no better.
 *
 * A block hit since it came in counts one lookup more, both to pick it
 * and against the candidate: a hit in the cache is what its copy was
 * paid for, and the bit is certain where the sketch's counts, which
 * collide, are not; nor does it halve with them, so a block hit once
 * since it came in still counts above one never hit.  Where every block
 * of a pool is read at one rate, small counts differ by chance, and a
 * candidate counted 3 beat a victim counted 1 that the cache was hitting:
 * on a model of the guest's 2_pools replay, swaps then cost more copies
 * than they saved misses.  Counting the hit only in the pick changed
 * nothing; only against the candidate, the sample's unhit block was
 * passed over for a hit one, and P3 at 5 % went above the tree's smq
 * (1.0075 times its slow-device I/O).  A count at the sketch's ceiling
 * stays there: it tells nothing more, hit or not (see beats_victim()).
 * Counted above it, a hit victim took sprite at 1 % from 0.864 to 0.886
 * times the tree's slow-device I/O.
 */
static struct smq_entry *sample_victims(struct smq_policy *mq, unsigned int from,
					unsigned int to, unsigned int *freq)
{
	struct smq_queue *q = &mq->clean;
	u64 levels = q_populated(q, from, to);
	struct smq_entry *e, *best = NULL;
	unsigned int level, seen = 0, f, best_f = ~0u;

	for (; levels && seen < VICTIM_SAMPLE; levels &= levels - 1) {
		level = __ffs64(levels);
		for (e = l_head(q->es, q->qs + level); e && seen < VICTIM_SAMPLE;
		     e = l_next(q->es, e)) {
			if (e_is_sentinel(q->es, e))
				continue;
			seen++;
			f = min(sketch_estimate(&mq->sketch, e_block(&mq->es, e)) + e->hit,
				SKETCH_MAX_COUNT);
			if (f < best_f) {
				best = e;
				best_f = f;
			}
		}
	}

	*freq = best_f;
	return best;
}

/*
 * A cache with fewer clean blocks than levels may have them all in the
 * upper half (the block of a one-block cache sits in the top level): it
 * still needs a victim.  A larger one whose lower half is empty only for
 * now (hits lift blocks out of it, promoted blocks enter at the top)
 * waits for the levels to be spread again rather than demote what was
 * promoted or hit last; busy, it may write back an idle dirty block of
 * its lower half to get a clean one there (see queue_writeback()).
 * The victim's count goes to *@freq, ~0u with no victim.
 */
static struct smq_entry *pick_victim(struct smq_policy *mq, unsigned int *freq)
{
	struct smq_queue *q = &mq->clean;
	unsigned int half = q->nr_levels / 2u;
	struct smq_entry *e = NULL;

	*freq = ~0u;

	/*
	 * Tested here, not only in the sampling: in a mostly dirty cache
	 * most picks find the lower half empty (9 instructions a lookup).
	 */
	if (q_populated(q, 0, half))
		e = sample_victims(mq, 0, half, freq);
	if (!e && q->nr_elts < q->nr_levels)
		e = sample_victims(mq, half, q->nr_levels, freq);
	return e;
}

/* A pick to weigh the next miss against, not yet used up. */
static bool victim_kept(struct smq_policy *mq)
{
	return mq->victim != SMQ_NULL && mq->victim_uses < VICTIM_REUSE;
}

/* @cblock's count or state is about to change: it is no longer the pick. */
static void drop_victim(struct smq_policy *mq, dm_cblock_t cblock)
{
	if (from_cblock(cblock) == mq->victim)
		mq->victim = SMQ_NULL;
}

/*
 * Picking a victim walks the queue and reads several counters, too much
 * for every miss of a full cache: the pick is kept for VICTIM_REUSE misses
 * while it is still a clean, idle, low-level block.  Finding none is kept
 * for the rest of the lookup.
 */
static struct smq_entry *current_victim(struct smq_policy *mq, unsigned int *freq)
{
	struct smq_entry *e = NULL;

	if (mq->victim_none) {
		*freq = ~0u;
		return NULL;
	}

	if (victim_kept(mq)) {
		e = get_entry(&mq->cache_alloc, mq->victim);
		if (!e->allocated || e_block(&mq->es, e) != mq->victim_oblock || e->dirty ||
		    e->pending_work || e->level >= mq->clean.nr_levels / 2u)
			e = NULL;
	}

	if (e) {
		mq->victim_uses++;
		*freq = mq->victim_freq;
		return e;
	}

	e = pick_victim(mq, freq);
	if (!e)
		mq->victim_none = true;
	mq->victim = e ? from_cblock(infer_cblock(mq, e)) : SMQ_NULL;
	mq->victim_oblock = e ? e_block(&mq->es, e) : 0;
	mq->victim_freq = *freq;
	mq->victim_uses = 0;
	return e;
}

/*
 * Demote @victim; with none, write back so that there will be one.
 * Returns whether work was queued.  Only queue_promotion() calls it,
 * having found migrations allowed: the flag is not under the lock, so
 * reading it again here would close no window.
 */
static bool demote(struct smq_policy *mq, struct smq_entry *victim)
{
	if (!victim)
		return !clean_target_met(mq, true) && queue_writeback(mq, false);

	drop_victim(mq, infer_cblock(mq, victim));
	if (!queue_background_work(mq, victim, POLICY_DEMOTE))
		return false;
	ghost_remember(&mq->ghosts, e_block(&mq->es, victim), true);
	return true;
}

/*
 * CHURN_RUNS looks at contested demotions in a row found churn, and fewer
 * than CHURN_RUNS in a row have found none since.
 */
static bool churning(const struct smq_policy *mq)
{
	return mq->churn_runs == CHURN_RUNS;
}

/*
 * What the last PAYOFF_WINDOW promotions into a full cache bought: if the
 * cache served PAYOFF_HITS hits per promotion meanwhile, they pay well and
 * the ghosts' regrets may push admission further towards recency.  Where
 * promotions mostly churn, the usual ceiling stays: rejected candidates
 * come back there too, but admitting them would cost a copy for each hit
 * it saved.  While contested blocks churn (see assess_churn()), no lean
 * at all.  Out of line: inlined, it took a register of the lookup path.
 */
static noinline void assess_payoff(struct smq_policy *mq)
{
	bool paying = mq->payoff_hits > PAYOFF_WINDOW * PAYOFF_HITS;

	if (churning(mq))
		ghosts_set_ceiling(&mq->ghosts, 0);
	else
		ghosts_set_ceiling(&mq->ghosts, paying ? BIAS_MAX_PAYING : BIAS_MAX);
	mq->payoff_swaps = 0;
	mq->payoff_hits = 0;
}

static void note_payoff(struct smq_policy *mq)
{
	if (++mq->payoff_swaps == PAYOFF_WINDOW)
		assess_payoff(mq);
}

/* Is @oblock waiting for the block a demotion will free? */
static bool is_heir(struct smq_policy *mq, dm_oblock_t oblock)
{
	unsigned int i;

	for (i = 0; i < mq->nr_heirs; i++)
		if (from_oblock(mq->heirs[(mq->first_heir + i) % MAX_HEIRS]) ==
		    from_oblock(oblock))
			return true;
	return false;
}

/* The caller has checked that fewer than MAX_HEIRS wait. */
static void add_heir(struct smq_policy *mq, dm_oblock_t oblock, unsigned int level)
{
	unsigned int i = (mq->first_heir + mq->nr_heirs++) % MAX_HEIRS;

	mq->heirs[i] = oblock;
	mq->heir_levels[i] = level;
}

/* Take the oldest block waiting, if any, and the level it enters. */
static bool take_heir(struct smq_policy *mq, dm_oblock_t *oblock, unsigned int *level)
{
	if (!mq->nr_heirs)
		return false;
	*oblock = mq->heirs[mq->first_heir];
	*level = mq->heir_levels[mq->first_heir];
	mq->first_heir = (mq->first_heir + 1) % MAX_HEIRS;
	mq->nr_heirs--;
	return true;
}

/*
 * Reserve a cache block for @oblock now, to enter @level once promoted;
 * it is freed again if the promotion fails.  A full cache first makes
 * room, and the block freed goes to @oblock with @level.  Returns the
 * entry reserved, or NULL; *@queued (if given) says whether any work was
 * queued, so that the target wakes its worker only when there is some.
 */
static struct smq_entry *queue_promotion(struct smq_policy *mq, dm_oblock_t oblock,
					 unsigned int level, struct policy_work **workp,
					 struct smq_entry *victim, bool *queued)
{
	struct policy_work work;
	unsigned int freq;
	struct smq_entry *e;
	bool dummy;

	queued = queued ?: &dummy;
	*queued = false;
	if (!READ_ONCE(mq->migrations_allowed))
		return NULL;

	/*
	 * A winner still waiting for its block, or already being promoted
	 * into it, needs no second.
	 */
	if (btracker_promotion_already_present(mq->bg_work, oblock))
		return NULL;

	if (allocator_empty(&mq->cache_alloc)) {
		/* With MAX_HEIRS waiting, the block freed would go to no winner. */
		if (free_target_met(mq) || is_heir(mq, oblock) || mq->nr_heirs == MAX_HEIRS)
			return NULL;
		victim = victim ?: current_victim(mq, &freq);
		*queued = demote(mq, victim);
		if (*queued && victim) {
			mq->period_swaps++;
			add_heir(mq, oblock, level);
			note_payoff(mq);
		}
		return NULL;
	}

	e = alloc_entry(&mq->cache_alloc);
	e->pending_work = true;
	e->level = level;
	work.op = POLICY_PROMOTE;
	work.oblock = oblock;
	work.cblock = infer_cblock(mq, e);
	if (btracker_queue(mq->bg_work, &work, workp)) {
		free_entry(&mq->cache_alloc, e);
		return NULL;
	}
	*queued = true;
	return e;
}

/*----------------------------------------------------------------*/

/*
 * Is a candidate counted @freq worth more than a victim counted @vf?
 * Clearly more often looked up: by a quarter of the victim's count,
 * rounded up, and one.  Rounded up because counts are small, a quarter
 * of them would often round to nothing, and then one step of the
 * ghosts' bias would let a tie win: under a loop every block is counted
 * the same, and each such swap costs a copy and evicts a block about to
 * be hit.  In a hot region, two lookups more are enough however high the
 * victim's count, but not one: under a loop, the block just looked up
 * is one ahead of the victim, the oldest block and the next to be hit.
 * At the counters' ceiling, though, both may have been looked up any
 * number of times more: there the counts tell nothing, and one step of
 * the bias decides.
 */
static bool beats_victim(const struct smq_policy *mq, unsigned int freq, unsigned int vf,
			 const struct smq_entry *hs_e)
{
	unsigned int hot_lead = vf < SKETCH_MAX_COUNT ? 2u : 1u;

	if (freq > vf + DIV_ROUND_UP(vf, 4))
		return true;

	return freq >= vf + hot_lead && hs_e && hs_e->level >= mq->promote_level;
}

/*
 * Of the last CHURN_WINDOW blocks that won their place from a victim and
 * have left again, how many were never hit?  Where nearly all, window
 * after window, the ghosts' regrets mislead: a rejected candidate that
 * comes back would have been demoted unhit too had it been admitted.
 * The bias then may not lean towards recency at all until CHURN_RUNS
 * windows in a row find otherwise and the next look at the payoff lifts
 * the ceiling again.  Lifted after one such window instead, the cap came
 * and went with the windows: P3 at 25 % then cost between 0.53 and 0.60
 * slow-device I/Os per lookup as ticks came after every request, every
 * other one or every thousandth, and 0.53 with the cap held.
 * Only contested blocks count: the ones that filled the cache were not
 * chosen by the admission test, and under a load that moves on, leaving
 * unhit is what they do while the cache fills with the next working set.
 * One window alone does not count either: the last blocks promoted
 * before a working-set shift leave unhit, and the shift needs the bias.
 */
static void assess_churn(struct smq_policy *mq)
{
	bool churn = mq->churn_unhit * 16u > CHURN_UNHIT * CHURN_WINDOW;

	if (churn) {
		mq->churn_runs = min(mq->churn_runs + 1u, CHURN_RUNS);
		mq->calm_runs = 0;
	} else if (!churning(mq) || ++mq->calm_runs == CHURN_RUNS) {
		mq->churn_runs = 0;
		mq->calm_runs = 0;
	}
	if (churning(mq))
		ghosts_set_ceiling(&mq->ghosts, 0);
	mq->churn_demoted = 0;
	mq->churn_unhit = 0;
}

/* @e is demoted: if it won its place, did it pay? */
static void note_demotion(struct smq_policy *mq, struct smq_entry *e)
{
	if (!e->contested)
		return;
	mq->churn_unhit += !e->hit;
	if (++mq->churn_demoted == CHURN_WINDOW)
		assess_churn(mq);
}

#define WRITE_PROMOTE_FREQ 12u	/* count a write miss needs to compete in a full cache */

/*
 * The clean queue holds fewer blocks than levels, none in its lower half,
 * and the victim picked comes from its upper half: a block promoted or
 * hit lately (see pick_victim()).  Is a candidate counted @freq worth more
 * than the idle dirty block a busy writeback would take instead?  Then
 * that block is to be written back, and demoted once clean.  Weighed
 * against the few clean blocks alone, in a cache that writes had made
 * dirty and reads went on to, every candidate lost and nothing was written
 * back while I/O kept coming: the cache stopped adapting for good (in the
 * harness, a 256-block cache hit 0.8 % of a hot set of 128 blocks that the
 * tree's smq hit every time).  One writeback at a time: the block it
 * cleans is the victim the next misses are weighed against.  The dirty
 * block is weighed by its lookups alone, without the hit a clean victim
 * counts (see sample_victims()): with it, the generators' misses went
 * from 0.8993 to 0.9002 times the tree's smq's, their slow-device I/O
 * from 0.8266 to 0.8273.
 */
static bool prefer_writeback(struct smq_policy *mq, unsigned int freq,
			     const struct smq_entry *hs_e)
{
	struct smq_entry *e;

	if (!writeback_possible(mq) || btracker_nr_writebacks_queued(mq->bg_work))
		return false;
	e = q_peek(&mq->dirty, writeback_levels(mq, false), false);
	if (!e) {
		/* as queue_writeback() notes, none will for a while */
		mq->no_idle_dirty = true;
		return false;
	}
	return beats_victim(mq, freq, sketch_estimate(&mq->sketch, e_block(&mq->es, e)), hs_e);
}

/*
 * Promote a missed block?  Until the cache is first full, yes: a free
 * cache block earns nothing, and one seen for the first time enters the
 * bottom level (see __lookup()), where it is the first to go once the
 * cache is full, so a scan that fills a new cache gives way to the next
 * working set.  From then on never on first sight (unless a stream in
 * small bios reads it, see read_ahead_weight()), so that scans and
 * one-off reads stay out, not even into a block that a demotion freed
 * and no winner took; but a write covering a whole block, which costs no
 * read from the origin, still goes into a free block at once.  In a full
 * cache, only a block missed by a read and looked up clearly more often
 * lately than the one it would replace, @*victim, or, in a hot region of
 * the hotspot queue, a little more often (see beats_victim()).  A write miss mostly gains nothing
 * from a promotion there: it costs a copy from the origin, a victim, and
 * later a writeback, where writing to the origin costs one write; if the
 * block is read again, the read can promote it.  Only a block looked up
 * so often that its count nears the sketch's ceiling may absorb enough
 * writes to pay.  Refusing the other writes took smq's slow-device I/O
 * from 0.8928 to 0.8913 times the tree's on the real traces, and from
 * 0.8397 to 0.8378 on the generators (refusing all writes: 0.8914 and
 * 0.8387).
 */
static bool should_promote(struct smq_policy *mq, dm_oblock_t oblock, struct smq_entry *hs_e,
			   int data_dir, bool fast_copy, unsigned int freq,
			   struct smq_entry **victim)
{
	bool full = allocator_empty(&mq->cache_alloc);
	unsigned int vf;

	*victim = NULL;
	if (!full)
		return !mq->filled || freq >= 2 || (data_dir == WRITE && fast_copy);
	mq->filled = true;
	if (freq < 2 || (data_dir == WRITE && freq < WRITE_PROMOTE_FREQ))
		return false;

	freq = max((int)freq + ghost_bias(&mq->ghosts), 0);
	/*
	 * Most misses of a full cache lose to the victim kept from an earlier
	 * one, and losing needs only its count.  The block may have changed
	 * since (a hit or its demotion drop the pick; an invalidation or a
	 * redistribution do not): a refusal is still safe, a win looks again.
	 */
	if (victim_kept(mq) &&
	    !beats_victim(mq, freq, mq->victim_freq, hs_e)) {
		mq->victim_uses++;
		goto refuse;
	}

	*victim = current_victim(mq, &vf);
	if (!*victim)
		return writeback_possible(mq);
	if ((*victim)->level >= mq->clean.nr_levels / 2u && prefer_writeback(mq, freq, hs_e)) {
		/* no clean victim for the rest of the lookup: demote() writes back */
		mq->victim = SMQ_NULL;
		mq->victim_none = true;
		*victim = NULL;
		return true;
	}
	if (beats_victim(mq, freq, vf, hs_e))
		return true;
refuse:
	ghost_remember(&mq->ghosts, from_oblock(oblock), false);
	return false;
}

/*
 * Can @b be stored?  Only a policy for an origin of more than 2^32 blocks
 * keeps their high halves; the target asks no other about such blocks.
 */
static bool block_fits(struct smq_policy *mq, dm_oblock_t b)
{
	return mq->es.high || from_oblock(b) <= U32_MAX;
}

static u64 to_hblock(struct smq_policy *mq, dm_oblock_t b)
{
	return from_oblock(b) >> mq->hotspot_block_shift;
}

/*
 * Account a cache miss to its hotspot block: climb on a hit, the first
 * in this tick; take the coldest hotspot entry on a miss.
 */
static struct smq_entry *update_hotspot_queue(struct smq_policy *mq, dm_oblock_t b)
{
	u64 hb = to_hblock(mq, b);
	struct smq_entry *e = h_lookup(&mq->hotspot_table, hb);
	unsigned int hi;

	if (e) {
		stats_level_accessed(&mq->hotspot_stats, e->level);
		hi = get_index(&mq->hotspot_alloc, e);
		/*
		 * A block moves up once per tick; later misses in the
		 * same tick would only reorder it within its level.
		 */
		if (!hit_bits_test_and_set(&mq->hotspot_hits, hi))
			q_requeue(&mq->hotspot, e, mq->hotspot_level_jump);
		return e;
	}

	stats_miss(&mq->hotspot_stats);
	e = alloc_entry(&mq->hotspot_alloc);
	if (!e) {
		e = q_pop(&mq->hotspot);
		if (!e)
			return NULL;
		h_remove(&mq->hotspot_table, e);
		hit_bits_clear(&mq->hotspot_hits, get_index(&mq->hotspot_alloc, e));
	}

	e_set_block(&mq->es, e, hb);
	e->level = 0;
	q_push(&mq->hotspot, e);
	h_insert(&mq->hotspot_table, e);

	return e;
}

/*----------------------------------------------------------------*/

static struct smq_policy *to_smq_policy(struct dm_cache_policy *p)
{
	return container_of(p, struct smq_policy, policy);
}

static void smq_destroy(struct dm_cache_policy *p)
{
	struct smq_policy *mq = to_smq_policy(p);

	btracker_destroy(mq->bg_work);
	free_bitset(mq->write_periods);
	vfree(mq->recent);
	sketch_exit(&mq->sketch);
	ghosts_exit(&mq->ghosts);
	h_exit(&mq->hotspot_table);
	h_exit(&mq->table);
	hit_bits_exit(&mq->hotspot_hits);
	space_exit(&mq->es);
	kfree(mq);
}

/* Make every block of the table look long forgotten. */
static void forget_recent_lookups(struct smq_policy *mq)
{
	u32 then = (u32)jiffies - HZ;
	unsigned int i;

	for (i = 0; i < 1u << RECENT_BITS; i++)
		mq->recent[i].at = then;
}

static struct smq_recent *recent_slot(struct smq_policy *mq, u64 oblock)
{
	/* blocks 2^32 apart share a slot, as other pairs do: a slot holds either */
	return mq->recent + hash_32(lower_32_bits(oblock), RECENT_BITS);
}

/* Does @r hold @oblock, counted within the last second? */
static bool recently_counted(const struct smq_recent *r, u64 oblock, u32 now)
{
	return r->oblock == oblock && now - r->at < HZ;
}

/*
 * Is this lookup another bio for a block a stream has reached?  A stream
 * is a block looked up after at least STREAM_RUN others, in ascending
 * order, each within a second of the next.  A lookup of the last block
 * it reached, or of the one before (a reader with two bios in flight
 * reads into the next block before the last bio of the block before
 * it), is one of that block's bios, however many lookups of other
 * blocks came in between: two scans in small bios whose bios
 * interleave, or one with other I/O, would otherwise count each block
 * once per bio and evict a working set.  Not in a hot region (the upper
 * half of the hotspot queue): there a block read in several bios tends
 * to be read that way again, and each of those bios misses while it is
 * not cached, so each counts.  @r is @oblock's slot.
 */
static bool repeats_stream_head(struct smq_policy *mq, struct smq_recent *r, u64 oblock,
				u32 now)
{
	struct smq_entry *hs_e;

	if (!recently_counted(r, oblock, now) || r->run < STREAM_RUN)
		return false;
	if (!r->head) {
		struct smq_recent *next = recent_slot(mq, oblock + 1);

		if (!recently_counted(next, oblock + 1, now) || !next->head)
			return false;
	}
	hs_e = h_lookup(&mq->hotspot_table, to_hblock(mq, to_oblock(oblock)));
	return !hs_e || hs_e->level < NR_LEVELS / 2u;
}

/*
 * The bios the stream that reached @oblock reads its blocks in, from the
 * block before, @prev, or 0 if fewer than SMALL_BIOS.  With two bios in
 * flight the last bio of @prev may not have come yet: the block before
 * it, read to the end, counts too.
 */
static unsigned int bios_per_block(struct smq_policy *mq, struct smq_recent *prev, u64 oblock,
				   u32 now)
{
	unsigned int bios = prev->bios;
	struct smq_recent *before;

	if (bios > 1) {
		before = recent_slot(mq, oblock - 2);
		if (recently_counted(before, oblock - 2, now))
			bios = max_t(unsigned int, bios, before->bios);
	}
	return bios >= SMALL_BIOS ? bios : 0;
}

/*
 * A lookup of @oblock, whose slot is @r, counted: it extends a run, ends
 * one, or starts one.  Returns the bios a stream that reached @oblock
 * reads its blocks in, if SMALL_BIOS or more, else 0 (see
 * read_ahead_weight()).
 */
static unsigned int note_counted_lookup(struct smq_policy *mq, struct smq_recent *r,
					u64 oblock, u32 now)
{
	struct smq_recent *prev = recent_slot(mq, oblock - 1);
	struct smq_recent *next = recent_slot(mq, oblock + 1);
	unsigned int run = 0, bios = 0;

	if (recently_counted(prev, oblock - 1, now)) {
		run = prev->run + 1u;
		prev->head = false;
		if (run >= STREAM_RUN)
			bios = bios_per_block(mq, prev, oblock, now);
	}
	if (recently_counted(r, oblock, now))
		run = max_t(unsigned int, run, r->run);
	/* A step back: what ran up to the next block was no scan. */
	if (recently_counted(next, oblock + 1, now))
		next->run = 0;

	r->oblock = oblock;
	r->at = now;
	r->run = min_t(unsigned int, run, U16_MAX);
	r->head = true;
	r->bios = 1;
	mq->last_counted = r;
	return bios;
}

/* One more bio of the access to @r's block that last counted. */
static void note_repeated_lookup(struct smq_recent *r)
{
	if (r->bios < U8_MAX)
		r->bios++;
}

/*
 * Is this lookup another bio for a block looked up already, within a
 * second?  The target looks up every bio, and a bio smaller than a cache
 * block is one of several for it: together they are one access and count
 * once (the policy interface asks for a hit to count once per tick), or a
 * scan in small bios would look as hot as a working set and evict it.
 * Such a bio is either a repeat of the last lookup, whatever the block,
 * or of the block a stream has reached (see repeats_stream_head()).  Any
 * other block looked up again counts again: remembering more blocks, or
 * other streams' blocks, forgot accesses that really repeat, and measured
 * worse on the block traces.  A block looked up over and over still
 * counts once a second.  A lookup that counts sets *@stream_bios (see
 * note_counted_lookup()).
 */
static bool repeats_recent_lookup(struct smq_policy *mq, u64 oblock, unsigned int *stream_bios)
{
	struct smq_recent *r = recent_slot(mq, oblock);
	u32 now = jiffies;

	if ((r == mq->last_counted && recently_counted(r, oblock, now)) ||
	    repeats_stream_head(mq, r, oblock, now)) {
		note_repeated_lookup(r);
		return true;
	}

	*stream_bios = note_counted_lookup(mq, r, oblock, now);
	return false;
}

/*
 * The count a missed block competes with for promotion, @freq unless a
 * stream reads it.  A stream that read its last block in k bios, k at
 * least SMALL_BIOS, will most likely read this one the same way, and each
 * of those bios misses while the block is not cached: k reads from the
 * origin, where promoting the block at its first bio costs that read and
 * one copy, and the other bios hit.  Such a block counts as looked up k
 * times (at most the sketch's ceiling).  Seen once, as a stream's blocks
 * mostly are, it still enters the bottom level, so the stream's next
 * blocks take its place once the stream has moved on: a long stream
 * cycles through a few cache blocks rather than evicting the working set.
 * (The tree's smq counts every bio of such a stream, and promotes its
 * blocks into the top level.)  Its bios are not counted as hits: demoted,
 * a block won in a full cache counts as churn (see assess_churn()), which
 * keeps admission cautious while a stream is read ahead; left out of that
 * count, w106 at 25 % went from 0.840 to 0.942 times the tree's
 * slow-device I/O.  A write miss is not promoted to be hit (see
 * should_promote()).
 */
static unsigned int read_ahead_weight(unsigned int freq, int data_dir,
				      unsigned int stream_bios)
{
	if (data_dir != READ || !stream_bios)
		return freq;
	return max(freq, min(stream_bios, SKETCH_MAX_COUNT));
}

static int __lookup(struct smq_policy *mq, dm_oblock_t oblock, dm_cblock_t *cblock,
		    int data_dir, bool fast_copy, struct policy_work **work,
		    bool *background_queued)
{
	struct smq_entry *e, *hs_e, *victim;
	unsigned int freq, stream_bios;

	*background_queued = false;
	if (unlikely(!block_fits(mq, oblock)))
		return -EINVAL;

	/* Counted already: only the mapping is wanted. */
	if (repeats_recent_lookup(mq, from_oblock(oblock), &stream_bios)) {
		e = h_lookup(&mq->table, from_oblock(oblock));
		if (!e)
			return -ENOENT;
		if (data_dir == WRITE)
			note_repeated_write(mq, e);
		*cblock = infer_cblock(mq, e);
		return 0;
	}

	mq->lookups++;
	mq->victim_none = false;
	freq = sketch_add(&mq->sketch, from_oblock(oblock));
	e = h_lookup(&mq->table, from_oblock(oblock));
	if (e) {
		stats_level_accessed(&mq->cache_stats, e->level);
		mq->payoff_hits++;
		mq->period_hits++;
		e->hit = true;
		requeue(mq, e, data_dir);
		*cblock = infer_cblock(mq, e);
		drop_victim(mq, *cblock);
		return 0;
	}

	/* The hotspot queue learns from misses only. */
	stats_miss(&mq->cache_stats);
	ghost_check(&mq->ghosts, from_oblock(oblock));
	hs_e = update_hotspot_queue(mq, oblock);
	if (should_promote(mq, oblock, hs_e, data_dir, fast_copy,
			   read_ahead_weight(freq, data_dir, stream_bios), &victim))
		queue_promotion(mq, oblock, freq < 2 ? 0 : NR_LEVELS - 1, work, victim,
				background_queued);

	return -ENOENT;
}

static int smq_lookup(struct dm_cache_policy *p, dm_oblock_t oblock, dm_cblock_t *cblock,
		      int data_dir, bool fast_copy, bool *background_queued)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;
	bool queued;
	int r;

	spin_lock_irqsave(&mq->lock, flags);
	r = __lookup(mq, oblock, cblock, data_dir, fast_copy, NULL, &queued);
	spin_unlock_irqrestore(&mq->lock, flags);
	if (background_queued)
		*background_queued = queued;

	return r;
}

static int smq_lookup_with_work(struct dm_cache_policy *p, dm_oblock_t oblock,
				dm_cblock_t *cblock, int data_dir, bool fast_copy,
				struct policy_work **work)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;
	bool queued;
	int r;

	*work = NULL;
	spin_lock_irqsave(&mq->lock, flags);
	r = __lookup(mq, oblock, cblock, data_dir, fast_copy, work, &queued);
	spin_unlock_irqrestore(&mq->lock, flags);

	return r;
}

static int smq_get_background_work(struct dm_cache_policy *p, bool idle,
				   struct policy_work **result)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;
	int r;

	spin_lock_irqsave(&mq->lock, flags);
	r = btracker_issue(mq->bg_work, result);
	if (r == -ENODATA && !clean_target_met(mq, idle)) {
		queue_writeback(mq, idle);
		r = btracker_issue(mq->bg_work, result);
	}
	spin_unlock_irqrestore(&mq->lock, flags);

	return r;
}

static void forget_entry(struct smq_policy *mq, struct smq_entry *e)
{
	if (e->hashed)
		h_remove(&mq->table, e);
	free_entry(&mq->cache_alloc, e);
}

/*
 * A demotion has finished: queue the promotion of the oldest block
 * waiting for one into the cache block it freed, unless that block is
 * cached meanwhile (a write may have promoted it) or nothing was freed.
 */
static void promote_heir(struct smq_policy *mq, bool freed)
{
	struct smq_entry *e;
	unsigned int level;
	dm_oblock_t b;

	if (!take_heir(mq, &b, &level))
		return;
	if (freed && !h_lookup(&mq->table, from_oblock(b))) {
		e = queue_promotion(mq, b, level, NULL, NULL, NULL);
		if (e)
			e->contested = true;
	}
}

/*
 * Put the entry of finished work back where it belongs: promoted blocks
 * enter at the top level (the bottom one if promoted on first sight),
 * failed demotions and finished writebacks go back to their level as its
 * youngest entry.
 */
static void __complete_background_work(struct smq_policy *mq, struct policy_work *work,
				       bool success)
{
	struct smq_entry *e = cblock_entry(mq, work->cblock);
	bool freed;

	/* Still retire the work: the tracker BUG()s on any left at destroy. */
	if (WARN_ON_ONCE(!e || !e->pending_work))
		goto retire;

	e->pending_work = false;
	switch (work->op) {
	case POLICY_PROMOTE:
		if (!success) {
			forget_entry(mq, e);
			break;
		}
		e_set_block(&mq->es, e, from_oblock(work->oblock));
		h_insert(&mq->table, e);
		q_push(cache_queue(mq, e), e);
		break;

	case POLICY_DEMOTE:
		/* an invalidated block (unhashed) left because it was discarded */
		freed = success || !e->hashed;
		if (success && e->hashed)
			note_demotion(mq, e);
		if (freed)
			forget_entry(mq, e);
		else
			q_push(cache_queue(mq, e), e);
		/*
		 * Retired first: with the tracker full, the heir's promotion
		 * would be refused for the very work that made room for it.
		 */
		btracker_complete(mq->bg_work, work);
		promote_heir(mq, freed);
		return;

	case POLICY_WRITEBACK:
		if (!e->hashed) {
			forget_entry(mq, e);
			break;
		}
		q_push(cache_queue(mq, e), e);
		/* a clean block to weigh misses against, maybe the one asked for */
		if (!e->dirty)
			mq->victim = SMQ_NULL;
		break;
	}

retire:
	btracker_complete(mq->bg_work, work);
}

static void smq_complete_background_work(struct dm_cache_policy *p,
					 struct policy_work *work, bool success)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;

	spin_lock_irqsave(&mq->lock, flags);
	__complete_background_work(mq, work, success);
	spin_unlock_irqrestore(&mq->lock, flags);
}

/* An entry with work pending is off the queues: just note the state. */
static void __smq_set_clear_dirty(struct smq_policy *mq, dm_cblock_t cblock, bool set)
{
	struct smq_entry *e = cblock_entry(mq, cblock);

	if (WARN_ON_ONCE(!e || !e->allocated) || e->dirty == set)
		return;

	if (set)
		note_write(mq, e);
	if (e->pending_work) {
		e->dirty = set;
		return;
	}

	q_del(cache_queue(mq, e), e);
	e->dirty = set;
	q_push(cache_queue(mq, e), e);
}

static void smq_set_dirty(struct dm_cache_policy *p, dm_cblock_t cblock)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;

	spin_lock_irqsave(&mq->lock, flags);
	__smq_set_clear_dirty(mq, cblock, true);
	spin_unlock_irqrestore(&mq->lock, flags);
}

static void smq_clear_dirty(struct dm_cache_policy *p, dm_cblock_t cblock)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;

	spin_lock_irqsave(&mq->lock, flags);
	__smq_set_clear_dirty(mq, cblock, false);
	spin_unlock_irqrestore(&mq->lock, flags);
}

/* Mappings loaded without a hint are spread evenly over the levels. */
static unsigned int random_level(dm_cblock_t cblock)
{
	return hash_32(from_cblock(cblock), 9) & (NR_LEVELS - 1);
}

/*
 * Called single threaded while the target loads its metadata.  Loaded
 * blocks go ahead of both sentinels, so that they may be demoted or
 * written back at once.  Corrupt metadata (a block out of range or
 * mapped twice) is refused rather than trusted.
 */
static int smq_load_mapping(struct dm_cache_policy *p, dm_oblock_t oblock,
			    dm_cblock_t cblock, bool dirty, u32 hint, bool hint_valid)
{
	struct smq_policy *mq = to_smq_policy(p);
	struct smq_entry *e = cblock_entry(mq, cblock);

	if (!e) {
		DMERR("mapping of cache block %u beyond the cache's %u blocks",
		      from_cblock(cblock), from_cblock(mq->cache_size));
		return -EINVAL;
	}
	if (!block_fits(mq, oblock) || h_lookup(&mq->table, from_oblock(oblock))) {
		DMERR("origin block %llu mapped twice or out of range",
		      (unsigned long long)from_oblock(oblock));
		return -EINVAL;
	}

	e = alloc_particular_entry(&mq->cache_alloc, from_cblock(cblock));
	if (!e) {
		DMERR("cache block %u mapped twice", from_cblock(cblock));
		return -EINVAL;
	}

	e_set_block(&mq->es, e, from_oblock(oblock));
	e->dirty = dirty;
	e->level = hint_valid ? min_t(u32, hint, NR_LEVELS - 1) : random_level(cblock);
	h_insert(&mq->table, e);
	/* written before the table was loaded: long ago, as its place says */
	note_write_period(mq, e, false);
	q_push_front(cache_queue(mq, e), e);

	return 0;
}

/*
 * Drop a mapping.  An entry whose work is pending stays allocated until
 * the work completes, so that the tracker never holds a freed block.
 */
static int smq_invalidate_mapping(struct dm_cache_policy *p, dm_cblock_t cblock)
{
	struct smq_policy *mq = to_smq_policy(p);
	struct smq_entry *e = cblock_entry(mq, cblock);
	unsigned long flags;
	int r = 0;

	if (!e)
		return -ENODATA;

	spin_lock_irqsave(&mq->lock, flags);
	/*
	 * Promoted again into the same block, the origin block would pass
	 * for the kept pick with the hit it had before.
	 */
	drop_victim(mq, cblock);
	if (!e->allocated || !e->hashed) {
		/* Free, invalidated already, or a promotion not done yet. */
		r = -ENODATA;
	} else if (e->pending_work) {
		/* unhashed, it is freed when the work completes */
		h_remove(&mq->table, e);
	} else {
		q_del(cache_queue(mq, e), e);
		forget_entry(mq, e);
	}
	spin_unlock_irqrestore(&mq->lock, flags);

	return r;
}

static u32 smq_get_hint(struct dm_cache_policy *p, dm_cblock_t cblock)
{
	struct smq_policy *mq = to_smq_policy(p);
	struct smq_entry *e = cblock_entry(mq, cblock);

	return e && e->allocated ? e->level : 0;
}

static dm_cblock_t smq_residency(struct dm_cache_policy *p)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;
	dm_cblock_t r;

	spin_lock_irqsave(&mq->lock, flags);
	r = to_cblock(mq->cache_alloc.nr_allocated);
	spin_unlock_irqrestore(&mq->lock, flags);

	return r;
}

/* Go on with redistributions that ran out of moves. */
static void continue_redistributions(struct smq_policy *mq)
{
	if (mq->hotspot.unbalanced)
		q_redistribute(&mq->hotspot);
	if (mq->dirty.unbalanced) {
		q_redistribute(&mq->dirty);
		mq->no_idle_dirty = false;
	}
	if (mq->clean.unbalanced)
		q_redistribute(&mq->clean);
}

static void __smq_tick(struct smq_policy *mq, unsigned long now)
{
	update_sentinels(mq, now);
	continue_redistributions(mq);
	end_hotspot_period(mq);
	end_cache_period(mq);
}

/* The core's clock: at least once a second, and after each tick bio. */
static void smq_tick(struct dm_cache_policy *p, bool can_block)
{
	struct smq_policy *mq = to_smq_policy(p);
	unsigned long flags;

	spin_lock_irqsave(&mq->lock, flags);
	__smq_tick(mq, jiffies);
	spin_unlock_irqrestore(&mq->lock, flags);
}

static void smq_allow_migrations(struct dm_cache_policy *p, bool allow)
{
	WRITE_ONCE(to_smq_policy(p)->migrations_allowed, allow);
}

/*----------------------------------------------------------------*/

/* smq and cleaner have no tunables: say which key was wrong, not just fail. */
static int smq_set_config_value(struct dm_cache_policy *p, const char *key,
				const char *value)
{
	DMERR("unknown tunable '%s' (%s takes none)", key,
	      to_smq_policy(p)->cleaner ? "cleaner" : "smq");
	return -EINVAL;
}

static int smq_emit_config_values(struct dm_cache_policy *p, char *result,
				  unsigned int maxlen, ssize_t *sz_ptr)
{
	ssize_t sz = *sz_ptr;

	DMEMIT("0 ");
	*sz_ptr = sz;
	return 0;
}

/*
 * mq is an alias of smq.  Its old tunables are still accepted, so that
 * existing tables load, but they do nothing.
 */
static const char * const mq_tunables[] = {
	"random_threshold",
	"sequential_threshold",
	"discard_promote_adjustment",
	"read_promote_adjustment",
	"write_promote_adjustment",
};

static int mq_set_config_value(struct dm_cache_policy *p, const char *key,
			       const char *value)
{
	unsigned long tmp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mq_tunables); i++)
		if (!strcasecmp(key, mq_tunables[i]))
			break;

	if (i == ARRAY_SIZE(mq_tunables)) {
		DMERR("unknown tunable '%s' for mq", key);
		return -EINVAL;
	}
	if (kstrtoul(value, 10, &tmp)) {
		DMERR("mq tunable '%s' needs an unsigned number, not '%s'", key, value);
		return -EINVAL;
	}

	DMWARN("tunable '%s' no longer has any effect, mq policy is now an alias for smq", key);
	return 0;
}

static int mq_emit_config_values(struct dm_cache_policy *p, char *result,
				 unsigned int maxlen, ssize_t *sz_ptr)
{
	ssize_t sz = *sz_ptr;
	unsigned int i;

	DMEMIT("%zu ", 2 * ARRAY_SIZE(mq_tunables));
	for (i = 0; i < ARRAY_SIZE(mq_tunables); i++)
		DMEMIT("%s 0 ", mq_tunables[i]);
	*sz_ptr = sz;
	return 0;
}

static void init_policy_functions(struct smq_policy *mq, bool mimic_mq)
{
	mq->policy.destroy = smq_destroy;
	mq->policy.lookup = smq_lookup;
	mq->policy.lookup_with_work = smq_lookup_with_work;
	mq->policy.get_background_work = smq_get_background_work;
	mq->policy.complete_background_work = smq_complete_background_work;
	mq->policy.set_dirty = smq_set_dirty;
	mq->policy.clear_dirty = smq_clear_dirty;
	mq->policy.load_mapping = smq_load_mapping;
	mq->policy.invalidate_mapping = smq_invalidate_mapping;
	mq->policy.get_hint = smq_get_hint;
	mq->policy.residency = smq_residency;
	mq->policy.tick = smq_tick;
	mq->policy.allow_migrations = smq_allow_migrations;
	mq->policy.set_config_value = mimic_mq ? mq_set_config_value : smq_set_config_value;
	mq->policy.emit_config_values = mimic_mq ? mq_emit_config_values : smq_emit_config_values;
}

/*----------------------------------------------------------------*/

/*
 * Hotspot blocks cover 16 cache blocks, halved until the hotspot entries
 * no longer cover more than the origin.  There are a sixteenth as many as
 * cache blocks, at least 1024, but no more than the origin has.
 */
static_assert(SMQ_MAX_CACHE_BLOCKS + SMQ_MAX_CACHE_BLOCKS / 16u + 2u * NR_SENTINELS_PER_QUEUE <
	      SMQ_NULL);

static void calc_hotspot_params(struct smq_policy *mq, u64 origin_blocks,
				unsigned int nr_cache_blocks)
{
	unsigned int nr = max(nr_cache_blocks / 16u, 1024u);
	unsigned int shift = 4u;

	/* a power of two: a miss finds its hotspot block by a shift */
	while (shift && ((u64)nr << shift) > origin_blocks)
		shift--;

	mq->hotspot_block_shift = shift;
	/*
	 * With a shift, the origin has nr or more hotspot blocks: no need to
	 * round up, which could wrap an origin of up to 2^64 - 1 blocks.
	 */
	mq->nr_hotspot_blocks = clamp_t(u64, origin_blocks >> shift, 1u, nr);
}

static unsigned int nr_background_work(unsigned int nr_cache_blocks)
{
	return clamp(nr_cache_blocks, 64u, MAX_BACKGROUND_WORK);
}

static bool check_sizes(dm_cblock_t cache_size, sector_t cache_block_size)
{
	if (!cache_block_size) {
		DMERR("cache block size of 0 sectors");
		return false;
	}

	if (from_cblock(cache_size) > SMQ_MAX_CACHE_BLOCKS) {
		DMERR("cache of %u blocks is too large, smq handles up to %u",
		      from_cblock(cache_size), SMQ_MAX_CACHE_BLOCKS);
		return false;
	}

	return true;
}

/* Blocks of an origin of more than 2^32 need the high half of each entry's block. */
static bool origin_is_wide(u64 origin_blocks)
{
	return origin_blocks > (u64)U32_MAX + 1;
}

/*
 * Counters of the sketch: two per cache block, and for a small cache in
 * front of a large origin more, so that the blocks it weighs against one
 * another do not share counters too often; but never many more than the
 * origin has blocks.  Sized by the cache alone (at least 32768), caches
 * of 1 to 25 % of the harness's generated 200,000-block loads had 2.6 %
 * more slow-device I/O and 1.9 % more misses (geometric means).  A
 * block's four counters share one word of sixteen with other blocks'.
 * Each of the 2,001 blocks of an origin looked up once, 4.4 % of them
 * read 2 or more with eight counters per origin block, and 1.7 % with
 * sixteen (64 draws of the hash); one read 3 after two lookups replaces
 * a block looked up once.  Sixteen cost at most the floor's 128 KiB, and
 * an origin of 16384 blocks or more gets that floor anyway.
 */
static unsigned int sketch_counters(unsigned int nr_cache, u64 origin_blocks)
{
	u64 for_origin = min_t(u64, origin_blocks, SKETCH_MIN_COUNTERS) * SKETCH_ORIGIN_COUNTERS;

	for_origin = min_t(u64, for_origin, SKETCH_MIN_COUNTERS);

	return max_t(u64, (u64)nr_cache * SKETCH_CACHE_COUNTERS, for_origin);
}

static int smq_alloc_structures(struct smq_policy *mq, u64 origin_blocks)
{
	unsigned int nr_cache = from_cblock(mq->cache_size);
	unsigned int nr_sentinels = 2u * NR_SENTINELS_PER_QUEUE;
	unsigned int i;

	if (space_init(&mq->es, nr_sentinels + mq->nr_hotspot_blocks + nr_cache,
		       origin_is_wide(origin_blocks)))
		return -ENOMEM;

	i = 0;
	init_allocator(&mq->writeback_sentinel_alloc, &mq->es, i, NR_SENTINELS_PER_QUEUE);
	i += NR_SENTINELS_PER_QUEUE;
	init_allocator(&mq->demote_sentinel_alloc, &mq->es, i, NR_SENTINELS_PER_QUEUE);
	i += NR_SENTINELS_PER_QUEUE;
	mq->es.sentinels_end = to_entry(&mq->es, i);
	init_allocator(&mq->hotspot_alloc, &mq->es, i, mq->nr_hotspot_blocks);
	i += mq->nr_hotspot_blocks;
	init_allocator(&mq->cache_alloc, &mq->es, i, nr_cache);

	if (hit_bits_init(&mq->hotspot_hits, mq->nr_hotspot_blocks))
		goto bad_hotspot_hits;
	if (h_init(&mq->table, &mq->es, nr_cache))
		goto bad_table;
	if (h_init(&mq->hotspot_table, &mq->es, mq->nr_hotspot_blocks))
		goto bad_hotspot_table;
	if (sketch_init(&mq->sketch, sketch_counters(nr_cache, origin_blocks),
			max(nr_cache * SKETCH_PERIOD, SKETCH_MIN_PERIOD)))
		goto bad_sketch;
	if (ghosts_init(&mq->ghosts, nr_cache))
		goto bad_ghosts;
	mq->recent = vzalloc(array_size(1u << RECENT_BITS, sizeof(*mq->recent)));
	if (!mq->recent)
		goto bad_recent;
	mq->write_periods = alloc_bitset(max(nr_cache, 1u));
	if (!mq->write_periods)
		goto bad_write_periods;
	mq->bg_work = btracker_create(nr_background_work(nr_cache));
	if (!mq->bg_work)
		goto bad_btracker;

	return 0;

bad_btracker:
	free_bitset(mq->write_periods);
bad_write_periods:
	vfree(mq->recent);
bad_recent:
	ghosts_exit(&mq->ghosts);
bad_ghosts:
	sketch_exit(&mq->sketch);
bad_sketch:
	h_exit(&mq->hotspot_table);
bad_hotspot_table:
	h_exit(&mq->table);
bad_table:
	hit_bits_exit(&mq->hotspot_hits);
bad_hotspot_hits:
	space_exit(&mq->es);
	return -ENOMEM;
}

static struct smq_policy *__smq_create(dm_cblock_t cache_size, sector_t origin_size,
				       sector_t cache_block_size, bool mimic_mq,
				       bool migrations_allowed, bool cleaner)
{
	struct smq_policy *mq;
	unsigned long now = jiffies;
	u64 origin_blocks;

	if (!check_sizes(cache_size, cache_block_size))
		return NULL;
	origin_blocks = div64_u64(origin_size, cache_block_size);

	mq = kzalloc(sizeof(*mq), GFP_KERNEL);
	if (!mq)
		return NULL;

	init_policy_functions(mq, mimic_mq);
	spin_lock_init(&mq->lock);
	mq->cache_size = cache_size;
	mq->cache_block_size = cache_block_size;
	calc_hotspot_params(mq, origin_blocks, from_cblock(cache_size));
	mq->hotspot_level_jump = 1u;

	if (smq_alloc_structures(mq, origin_blocks)) {
		DMERR("couldn't allocate the policy's structures for %u cache blocks",
		      from_cblock(cache_size));
		kfree(mq);
		return NULL;
	}

	q_init(&mq->hotspot, &mq->es, NR_LEVELS);
	mq->hotspot.hits = &mq->hotspot_hits;
	mq->hotspot.hits_base = mq->hotspot_alloc.begin;
	mq->hotspot.nr_top_levels = 8;
	mq->hotspot.nr_in_top_levels = min(mq->nr_hotspot_blocks / NR_LEVELS,
					   from_cblock(cache_size) >>
					   mq->hotspot_block_shift);
	q_init(&mq->clean, &mq->es, NR_LEVELS);
	q_init(&mq->dirty, &mq->es, NR_LEVELS);

	stats_init(&mq->hotspot_stats, NR_LEVELS);
	stats_init(&mq->cache_stats, NR_LEVELS);

	sentinels_init(mq, now);
	forget_recent_lookups(mq);
	mq->last_counted = mq->recent;
	mq->promote_level = NR_LEVELS;
	mq->migrations_allowed = migrations_allowed;
	mq->cleaner = cleaner;
	mq->victim = SMQ_NULL;

	return mq;
}

#if IS_ENABLED(CONFIG_DM_CACHE_SMQ_KUNIT_TEST)
/*
 * Bytes the policy allocated, as the allocations were sized: the entry
 * space, bitsets, hash buckets, the policy itself and the most background
 * work the tracker may hold.  Only the tests ask.
 */
static size_t smq_memory_bytes(struct smq_policy *mq)
{
	size_t bytes = sizeof(*mq);

	bytes += array_size(mq->es.nr_entries, sizeof(struct smq_entry));
	if (mq->es.high)
		bytes += array_size(mq->es.nr_entries, sizeof(*mq->es.high));
	bytes += bitset_size_in_bytes(max(mq->hotspot_hits.nr_bits, 1u));
	bytes += sizeof(u32) << mq->table.hash_bits;
	bytes += sizeof(u32) << mq->hotspot_table.hash_bits;
	bytes += sizeof(u64) << mq->sketch.word_bits;
	bytes += sizeof(u16) << mq->ghosts.bits;
	bytes += sizeof(struct smq_recent) << RECENT_BITS;
	bytes += bitset_size_in_bytes(max(from_cblock(mq->cache_size), 1u));
	bytes += (size_t)nr_background_work(from_cblock(mq->cache_size)) *
		sizeof(struct bt_work);

	return bytes;
}
#endif

static struct dm_cache_policy *smq_create(dm_cblock_t cache_size, sector_t origin_size,
					  sector_t cache_block_size)
{
	struct smq_policy *mq = __smq_create(cache_size, origin_size, cache_block_size,
					     false, true, false);

	return mq ? &mq->policy : NULL;
}

static struct dm_cache_policy *mq_create(dm_cblock_t cache_size, sector_t origin_size,
					 sector_t cache_block_size)
{
	struct smq_policy *mq = __smq_create(cache_size, origin_size, cache_block_size,
					     true, true, false);

	return mq ? &mq->policy : NULL;
}

static struct dm_cache_policy *cleaner_create(dm_cblock_t cache_size, sector_t origin_size,
					      sector_t cache_block_size)
{
	struct smq_policy *mq = __smq_create(cache_size, origin_size, cache_block_size,
					     false, false, true);

	return mq ? &mq->policy : NULL;
}

/*----------------------------------------------------------------*/

/*
 * Version 2 as before: hints are still levels 0-63 of the cache queues,
 * so hints written by either implementation load into the other.
 */
#define SMQ_VERSION {2, 1, 0}

static struct dm_cache_policy_type smq_policy_type = {
	.name = "smq",
	.version = SMQ_VERSION,
	.hint_size = 4,
	.owner = THIS_MODULE,
	.create = smq_create
};

static struct dm_cache_policy_type mq_policy_type = {
	.name = "mq",
	.version = SMQ_VERSION,
	.hint_size = 4,
	.owner = THIS_MODULE,
	.create = mq_create,
};

static struct dm_cache_policy_type cleaner_policy_type = {
	.name = "cleaner",
	.version = SMQ_VERSION,
	.hint_size = 4,
	.owner = THIS_MODULE,
	.create = cleaner_create,
};

static struct dm_cache_policy_type default_policy_type = {
	.name = "default",
	.version = SMQ_VERSION,
	.hint_size = 4,
	.owner = THIS_MODULE,
	.create = smq_create,
	.real = &smq_policy_type
};

static struct dm_cache_policy_type *const smq_policy_types[] = {
	&smq_policy_type,
	&mq_policy_type,
	&cleaner_policy_type,
	&default_policy_type,
};

static void smq_unregister(unsigned int nr)
{
	while (nr--)
		dm_cache_policy_unregister(smq_policy_types[nr]);
}

static int __init smq_init(void)
{
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(smq_policy_types); i++) {
		r = dm_cache_policy_register(smq_policy_types[i]);
		if (r) {
			DMERR("register failed (as %s) %d", smq_policy_types[i]->name, r);
			smq_unregister(i);
			return r;
		}
	}

	return 0;
}

static void __exit smq_exit(void)
{
	smq_unregister(ARRAY_SIZE(smq_policy_types));
}

module_init(smq_init);
module_exit(smq_exit);

#if IS_ENABLED(CONFIG_DM_CACHE_SMQ_KUNIT_TEST)
#include "tests/dm_cache_smq_kunit.c"
#endif

MODULE_AUTHOR("Seed 0c82c0b9 maintainers <maintainers@users.noreply.a-seed-0c82c0b9.example>");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("smq cache policy");

MODULE_ALIAS("dm-cache-default");
MODULE_ALIAS("dm-cache-mq");
MODULE_ALIAS("dm-cache-cleaner");
