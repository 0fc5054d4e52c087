/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HARNESS_MATH64_H
#define HARNESS_MATH64_H

#include_next <linux/math64.h>

static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline u64 div_u64_rem(u64 a, u32 b, u32 *rem) { *rem = a % b; return a / b; }

#endif
