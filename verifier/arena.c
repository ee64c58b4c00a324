/* arena.c - chunked bump allocator. */
#include "arena.h"
#include "diag.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

#define ARENA_MIN_CHUNK (256u * 1024u)

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *n;
	for (; c; c = n) {
		n = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t need = (n + 15) & ~(size_t)15;
	if (need < n)
		die("arena: allocation of %zu bytes overflows", n);
	if (!c || c->size - c->used < need) {
		size_t sz = need > ARENA_MIN_CHUNK ? need : ARENA_MIN_CHUNK;
		/* grow chunks with the arena so big modules do few mallocs */
		if (a->reserved / 8 > sz)
			sz = a->reserved / 8;
		c = malloc(sizeof(*c) + sz);
		if (!c)
			die("out of memory (arena chunk of %zu bytes)", sz);
		c->size = sz;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->reserved += sz;
		/* fresh chunks from malloc are not zeroed; zero lazily per allocation */
	}
	void *p = c->data + c->used;
	c->used += need;
	a->total += need;
	memset(p, 0, n);
	return p;
}

void *arena_array(struct arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return arena_alloc(a, n * size ? n * size : 1);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}
