/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: single threaded; atomic_t comes from tools' linux/types.h. */
#ifndef HARNESS_ATOMIC_H
#define HARNESS_ATOMIC_H

#include <linux/types.h>

#define atomic_read(v)		((v)->counter)
#define atomic_set(v, i)	((v)->counter = (i))
#define atomic_add(i, v)	((v)->counter += (i))
#define atomic_inc(v)		((v)->counter++)
#define atomic_dec(v)		((v)->counter--)

#endif
