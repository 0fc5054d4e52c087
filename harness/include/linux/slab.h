/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: kmalloc family and slab caches, counted by the harness. */
#ifndef HARNESS_SLAB_H
#define HARNESS_SLAB_H

#include <linux/types.h>
#include <linux/gfp.h>

struct kmem_cache;

void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void kfree(const void *p);
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *c, void *p);

#define KMEM_CACHE(s, f) kmem_cache_create(#s, sizeof(struct s), __alignof__(struct s), f, NULL)

#endif
