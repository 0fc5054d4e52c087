/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness shim: the replayer is single threaded, so locks cost nothing and
 * both policies are measured without them.
 */
#ifndef HARNESS_SPINLOCK_H
#define HARNESS_SPINLOCK_H

typedef struct { int unused; } spinlock_t;

#define spin_lock_init(l)		((void)(l))
#define spin_lock(l)			((void)(l))
#define spin_unlock(l)			((void)(l))
#define spin_lock_irqsave(l, f)		((void)(l), (void)(f))
#define spin_unlock_irqrestore(l, f)	((void)(l), (void)(f))
#define lockdep_assert_held(l)		((void)(l))

#endif
