/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HARNESS_MUTEX_H
#define HARNESS_MUTEX_H
struct mutex { int unused; };
#endif
