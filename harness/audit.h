/* SPDX-License-Identifier: GPL-2.0 */
/* What promotions into a full cache bought (audit.c). */
#ifndef HARNESS_AUDIT_H
#define HARNESS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "sim.h"

/*
 * struct swap - a promotion paired with the demotion that freed its block.
 * @winner: the block promoted.
 * @victim: the block demoted.
 * @from: accesses before the promotion ended.
 * @until: accesses before the winner was demoted, UINT64_MAX while cached.
 * @copied: the promotion copied the block (a whole-block write did not).
 */
struct swap {
	uint64_t winner, victim;
	uint64_t from, until;
	bool copied;
};

/*
 * struct swap_log - the swaps of one replay, as they happen.
 * @swaps: @nr of them, room for @cap.
 * @freed: blocks demoted, [@freed_head, @nr_freed) not yet paired with a
 *	promotion; room for @freed_cap.
 * @open: winner -> index in @swaps, while the winner is cached; room for
 *	@room.
 */
struct swap_log {
	struct swap *swaps;
	size_t nr, cap;
	uint64_t *freed;
	size_t freed_head, nr_freed, freed_cap;
	struct hashmap open;
	uint64_t room;
};

int swap_log_init(struct swap_log *log, uint64_t cache_blocks);
void swap_log_free(struct swap_log *log);
int swap_log_demoted(struct swap_log *log, uint64_t oblock, uint64_t now);
int swap_log_promoted(struct swap_log *log, uint64_t oblock, uint64_t now, bool copied);
int swap_log_settle(const struct swap_log *log, const struct trace *t, struct swap_audit *a);

#endif
