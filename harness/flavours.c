// SPDX-License-Identifier: GPL-2.0
/* Register both compiled policies, ours and the tree's, under a prefix. */
#include "shim.h"

extern const char *registering_flavour;

int harness_init_flavours(void)
{
	int r;

	btracker_work_cache = KMEM_CACHE(bt_work, 0);
	registering_flavour = "ours";
	r = ours_init();
	if (r)
		return r;
	registering_flavour = "tree";
	r = tree_init();
	registering_flavour = "";
	return r;
}

