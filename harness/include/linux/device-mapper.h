/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: the parts of device-mapper.h a cache policy uses. */
#ifndef HARNESS_DEVICE_MAPPER_H
#define HARNESS_DEVICE_MAPPER_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/math64.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/kconfig.h>
#include <linux/rbtree.h>
#include <asm/bug.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <strings.h>

#include <linux/atomic.h>

struct block_device;

/* Single threaded: the atomic bitops are the plain ones. */
#define test_and_set_bit(nr, addr) __test_and_set_bit(nr, addr)
#define test_and_clear_bit(nr, addr) __test_and_clear_bit(nr, addr)

#ifndef U8_MAX
#define U8_MAX ((u8)~0U)
#endif
#ifndef U16_MAX
#define U16_MAX ((u16)~0U)
#endif
#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif
#ifndef UINT_MAX
#define UINT_MAX (~0U)
#endif
#ifndef lower_32_bits
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#endif
#ifndef clamp_t
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#endif
#ifndef max_t
#define max_t(type, x, y) max((type)(x), (type)(y))
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* As the kernel's: digits only, one trailing newline allowed, no overflow. */
static inline int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE || v > ~0UL)
		return -ERANGE;
	if (end == s || (*end && !(*end == '\n' && !end[1])))
		return -EINVAL;
	*res = v;
	return 0;
}

typedef u64 sector_t;

#ifndef READ
#define READ 0
#define WRITE 1
#endif

extern int harness_verbose;
void harness_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define DM_NAME "device-mapper"
#define DM_FMT(fmt) DM_NAME ": " DM_MSG_PREFIX ": " fmt "\n"
#define DMERR(fmt, ...) harness_log("err", DM_FMT(fmt), ##__VA_ARGS__)
#define DMERR_LIMIT(fmt, ...) harness_log("err", DM_FMT(fmt), ##__VA_ARGS__)
#define DMWARN(fmt, ...) harness_log("warn", DM_FMT(fmt), ##__VA_ARGS__)
#define DMWARN_LIMIT(fmt, ...) harness_log("warn", DM_FMT(fmt), ##__VA_ARGS__)
#define DMINFO(fmt, ...) harness_log("info", DM_FMT(fmt), ##__VA_ARGS__)
#define DMDEBUG(fmt, ...) do { } while (0)

#define DMEMIT(x...) (sz += ((sz >= maxlen) ? 0 : scnprintf(result + sz, maxlen - sz, x)))

#define dm_div_up(n, sz) (((n) + (sz) - 1) / (sz))

#define sector_div(a, b) ({ u64 __r = (a) % (b); (a) /= (b); __r; })

#endif
