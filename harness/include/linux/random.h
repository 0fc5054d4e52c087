/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: random numbers the replay can repeat (see shim.c). */
#ifndef HARNESS_RANDOM_H
#define HARNESS_RANDOM_H

#include <linux/types.h>

u64 get_random_u64(void);

#endif
