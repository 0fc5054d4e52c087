/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: simulated time, advanced by the replayer. */
#ifndef HARNESS_JIFFIES_H
#define HARNESS_JIFFIES_H

#ifndef HZ
#define HZ 250
#endif

extern unsigned long jiffies;

#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)

#endif
