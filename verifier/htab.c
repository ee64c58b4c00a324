/* htab.c - the one hash table (htab.h). */
#include "htab.h"
#include "xalloc.h"
#include <string.h>

static void alloc_slots(struct htab *t, size_t cap)
{
	/* keys and values in one block: one malloc (a lock under --jobs) */
	t->key = xcalloc(cap, 2 * sizeof(uint64_t));
	t->val = t->key + cap;
	t->cap = cap;
}

void htab_init(struct htab *t, size_t expected)
{
	memset(t, 0, sizeof(*t));
	if (!expected)
		return;
	size_t cap = 16;
	while (cap < 2 * expected + 2)
		cap *= 2;
	alloc_slots(t, cap);
}

void htab_free(struct htab *t)
{
	free(t->key);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct htab *t, uint64_t key)
{
	size_t mask = t->cap - 1, h = (size_t)htab_mix(key) & mask;
	while (t->key[h] && t->key[h] != key)
		h = (h + 1) & mask;
	return h;
}

uint64_t *htab_get(const struct htab *t, uint64_t key)
{
	if (!key)
		return t->has_zero ? (uint64_t *)&t->zero_val : NULL;
	if (!t->cap)
		return NULL;
	size_t h = slot_of(t, key);
	return t->key[h] ? &t->val[h] : NULL;
}

uint64_t *htab_put(struct htab *t, uint64_t key, int *added)
{
	int dummy;
	if (!added)
		added = &dummy;
	if (!key) {
		*added = !t->has_zero;
		if (*added) {
			t->has_zero = 1;
			t->zero_val = 0;
			t->n++;
		}
		return &t->zero_val;
	}
	if (t->cap) {
		size_t h = slot_of(t, key);
		if (t->key[h]) {
			*added = 0;
			return &t->val[h];
		}
	}
	if (2 * (t->n + 1) > t->cap) {
		struct htab old = *t;
		alloc_slots(t, old.cap ? 2 * old.cap : 16);
		for (size_t i = 0; i < old.cap; i++)
			if (old.key[i]) {
				size_t h = slot_of(t, old.key[i]);
				t->key[h] = old.key[i];
				t->val[h] = old.val[i];
			}
		free(old.key);
	}
	size_t h = slot_of(t, key);
	t->key[h] = key;
	t->val[h] = 0;
	t->n++;
	*added = 1;
	return &t->val[h];
}

int htab_next(const struct htab *t, size_t *i, uint64_t *key, uint64_t *val)
{
	/* *i: 0 is key 0's turn, then slot *i - 1 */
	if (*i == 0) {
		(*i)++;
		if (t->has_zero) {
			*key = 0;
			*val = t->zero_val;
			return 1;
		}
	}
	for (; *i <= t->cap; (*i)++)
		if (t->key[*i - 1]) {
			*key = t->key[*i - 1];
			*val = t->val[*i - 1];
			(*i)++;
			return 1;
		}
	return 0;
}
