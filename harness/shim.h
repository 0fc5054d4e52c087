/* SPDX-License-Identifier: GPL-2.0 */
/* What the harness's own code uses of the shim. */
#ifndef HARNESS_SHIM_H
#define HARNESS_SHIM_H

#include <linux/device-mapper.h>
#include "dm-cache-policy.h"
#include "dm-cache-background-tracker.h"

extern size_t harness_bytes_live;
extern size_t harness_bytes_peak;
extern unsigned int harness_log_errors;
extern unsigned int harness_btracker_max_work;
extern u64 harness_random_seed;

int ours_init(void);
int tree_init(void);
int harness_init_flavours(void);
struct dm_cache_policy *harness_policy_create(const char *flavour, const char *name,
					      dm_cblock_t cache_size, sector_t origin_size,
					      sector_t block_size);
void dm_cache_policy_destroy(struct dm_cache_policy *p);
const char *harness_policy_name(struct dm_cache_policy *p);
const unsigned int *harness_policy_version(struct dm_cache_policy *p);

#endif
