// SPDX-License-Identifier: GPL-2.0
/*
 * The little of the kernel a cache policy needs, in userspace: counted
 * allocations, slab caches, simulated jiffies, log output and the policy
 * registry of dm-cache-policy.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

unsigned long jiffies = 1000;
int harness_verbose;
size_t harness_bytes_live;
size_t harness_bytes_peak;
unsigned int harness_log_errors;
u64 harness_random_seed;
static u64 random_state;

void harness_log(const char *level, const char *fmt, ...)
{
	va_list ap;

	if (!strcmp(level, "err"))
		harness_log_errors++;
	if (!harness_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "[%s] ", level);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

/* Every allocation carries its size, so that frees are counted too. */
struct alloc_header {
	size_t size;
	size_t pad;
};

static void *counted_alloc(size_t size, bool zero)
{
	struct alloc_header *h = zero ? calloc(1, sizeof(*h) + size) : malloc(sizeof(*h) + size);

	if (!h)
		return NULL;
	h->size = size;
	harness_bytes_live += size;
	if (harness_bytes_live > harness_bytes_peak)
		harness_bytes_peak = harness_bytes_live;
	return h + 1;
}

static void counted_free(const void *p)
{
	struct alloc_header *h;

	if (!p)
		return;
	h = (struct alloc_header *)p - 1;
	harness_bytes_live -= h->size;
	free(h);
}

void *vmalloc(unsigned long size) { return counted_alloc(size, false); }
void *vzalloc(unsigned long size) { return counted_alloc(size, true); }
void vfree(const void *p) { counted_free(p); }
void *kmalloc(size_t size, gfp_t gfp) { return counted_alloc(size, gfp & __GFP_ZERO); }
void *kzalloc(size_t size, gfp_t gfp) { return counted_alloc(size, true); }
void kfree(const void *p) { counted_free(p); }

struct kmem_cache {
	size_t size;
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *c = malloc(sizeof(*c));

	if (c)
		c->size = size;
	return c;
}

void kmem_cache_destroy(struct kmem_cache *c) { free(c); }
void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp) { return counted_alloc(c->size, false); }
void kmem_cache_free(struct kmem_cache *c, void *p) { counted_free(p); }

/* The registry, as dm-cache-policy.c keeps it, with a flavour prefix. */
#define MAX_TYPES 16
static struct {
	char flavour[16];
	struct dm_cache_policy_type *type;
} registry[MAX_TYPES];
static unsigned int nr_registered;
const char *registering_flavour = "";

int dm_cache_policy_register(struct dm_cache_policy_type *type)
{
	if (nr_registered == MAX_TYPES)
		return -ENOMEM;
	snprintf(registry[nr_registered].flavour, sizeof(registry[0].flavour), "%s",
		 registering_flavour);
	registry[nr_registered++].type = type;
	return 0;
}

void dm_cache_policy_unregister(struct dm_cache_policy_type *type)
{
	unsigned int i;

	for (i = 0; i < nr_registered; i++)
		if (registry[i].type == type) {
			registry[i] = registry[--nr_registered];
			return;
		}
}

static struct dm_cache_policy_type *find_type(const char *flavour, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_registered; i++)
		if (!strcmp(registry[i].flavour, flavour) && !strcmp(registry[i].type->name, name))
			return registry[i].type;
	return NULL;
}

/*
 * splitmix64: a policy replayed with one seed draws the same numbers every
 * time, and one replayed with several seeds shows how much of a result is
 * owed to the draws (see replay's --policy-seed).
 */
u64 get_random_u64(void)
{
	u64 z = random_state += 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct dm_cache_policy *harness_policy_create(const char *flavour, const char *name,
					      dm_cblock_t cache_size, sector_t origin_size,
					      sector_t block_size)
{
	struct dm_cache_policy_type *t = find_type(flavour, name);
	struct dm_cache_policy *p;

	if (!t)
		return NULL;
	/* each policy draws the same numbers, whatever was created before it */
	random_state = harness_random_seed;
	p = t->create(cache_size, origin_size, block_size);
	if (p)
		p->private = t;
	return p;
}

/*
 * The tracker allocates its work items as needed, up to the limit the
 * policy gives it: remember that limit, so that memory use can be counted
 * at its worst for every policy alike.  (Linked with --wrap.)
 */
unsigned int harness_btracker_max_work;
struct background_tracker *__real_btracker_create(unsigned int max_work);

struct background_tracker *__wrap_btracker_create(unsigned int max_work)
{
	harness_btracker_max_work = max_work;
	return __real_btracker_create(max_work);
}

void dm_cache_policy_destroy(struct dm_cache_policy *p)
{
	p->destroy(p);
}

const char *harness_policy_name(struct dm_cache_policy *p)
{
	struct dm_cache_policy_type *t = p->private;

	return t->real ? t->real->name : t->name;
}

const unsigned int *harness_policy_version(struct dm_cache_policy *p)
{
	return ((struct dm_cache_policy_type *)p->private)->version;
}
