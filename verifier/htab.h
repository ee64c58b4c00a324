/* htab.h - the one hash table: 64-bit keys to 64-bit values.
 *
 * Open addressing with linear probing over a power-of-two array, at most
 * half full; the key goes through splitmix64's finalizer (htab_mix) so that
 * every bit of it reaches the slot index (keys that differ only in their
 * high bits, gid pairs, pointers, would share slots otherwise). Every key is
 * a key, 0 included. Ids, pointers, pairs of ids and 64-bit content hashes
 * are all keys: a table of things with a content hash maps the hash to the
 * first thing with it and the caller chains the rest (values.c).
 *
 * Heap memory (xalloc.h: out of memory ends the program); no iteration order
 * is promised, so nothing printed may depend on it.
 *
 * Every table of the analyses and rules is this one. The parser keeps its
 * own (parse.c: names by 32-bit tag and id in 8-byte slots that stay in
 * cache, reset in O(1) per computation by generation, prefetched a few
 * tokens ahead; keywords in a fixed 512-slot table): they are what parses
 * 10^6 instructions a second, and they key on text, not on ids. */
#ifndef HLOPROOF_HTAB_H
#define HLOPROOF_HTAB_H
#include <stddef.h>
#include <stdint.h>

struct htab {
	uint64_t *key;      /* cap slots; 0 = empty (key 0 lives in zero_val) */
	uint64_t *val;
	size_t cap, n;      /* cap: 0 or a power of two; n counts key 0 too */
	int has_zero;
	uint64_t zero_val;
};

/* splitmix64's finalizer: a bijection that spreads every bit of x */
static inline uint64_t htab_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* An empty table with room for `expected` keys before it grows (0: none). */
void htab_init(struct htab *t, size_t expected);
void htab_free(struct htab *t);
/* The value of key, or NULL when the key is absent. */
uint64_t *htab_get(const struct htab *t, uint64_t key);
/* The value of key, added (as 0) when absent; *added (may be NULL) says
 * which. The pointer stays valid until the next htab_put. */
uint64_t *htab_put(struct htab *t, uint64_t key, int *added);
/* Every entry once, in no particular order: for (size_t i = 0;
 * htab_next(t, &i, &k, &v);) ... */
int htab_next(const struct htab *t, size_t *i, uint64_t *key, uint64_t *val);

#endif
