/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HARNESS_BITOPS_H
#define HARNESS_BITOPS_H

#include_next <linux/bitops.h>

/* The kernel's, which tools/include lacks. */
static inline unsigned int __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

#ifndef __assign_bit
static inline void __assign_bit(unsigned long nr, unsigned long *addr, bool value)
{
	if (value)
		__set_bit(nr, addr);
	else
		__clear_bit(nr, addr);
}
#endif

#ifndef rol64
static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}
#endif

#endif
