/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: vmalloc family, counted by the harness. */
#ifndef HARNESS_VMALLOC_H
#define HARNESS_VMALLOC_H

#include <linux/types.h>

void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void vfree(const void *p);

#endif
