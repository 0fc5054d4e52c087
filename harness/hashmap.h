/* SPDX-License-Identifier: GPL-2.0 */
/* A u64 -> u32 map: open addressing, linear probing, backward-shift removal. */
#ifndef HARNESS_HASHMAP_H
#define HARNESS_HASHMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct hashmap {
	uint64_t *keys;		/* key + 1; 0 marks an empty slot */
	uint32_t *vals;
	uint64_t mask;
	uint64_t count;
};

static inline uint64_t hashmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* Room for @n keys at a load of at most 1/2. */
static inline int hashmap_init(struct hashmap *m, uint64_t n)
{
	uint64_t size = 16;

	while (size < 2 * n)
		size <<= 1;
	m->keys = calloc(size, sizeof(*m->keys));
	m->vals = malloc(size * sizeof(*m->vals));
	m->mask = size - 1;
	m->count = 0;
	return m->keys && m->vals ? 0 : -1;
}

static inline void hashmap_free(struct hashmap *m)
{
	free(m->keys);
	free(m->vals);
}

static inline uint32_t *hashmap_find(struct hashmap *m, uint64_t key)
{
	uint64_t i = hashmap_hash(key) & m->mask;

	for (; m->keys[i]; i = (i + 1) & m->mask)
		if (m->keys[i] == key + 1)
			return &m->vals[i];
	return NULL;
}

/* The key must not be present and the map must have room. */
static inline void hashmap_insert(struct hashmap *m, uint64_t key, uint32_t val)
{
	uint64_t i = hashmap_hash(key) & m->mask;

	while (m->keys[i])
		i = (i + 1) & m->mask;
	m->keys[i] = key + 1;
	m->vals[i] = val;
	m->count++;
}

static inline void hashmap_remove(struct hashmap *m, uint64_t key)
{
	uint64_t i = hashmap_hash(key) & m->mask, j, home;

	while (m->keys[i] != key + 1) {
		if (!m->keys[i])
			return;
		i = (i + 1) & m->mask;
	}
	m->keys[i] = 0;
	m->count--;
	/* shift back the entries of the cluster that may no longer be found */
	for (j = (i + 1) & m->mask; m->keys[j]; j = (j + 1) & m->mask) {
		home = hashmap_hash(m->keys[j] - 1) & m->mask;
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
}

#endif
