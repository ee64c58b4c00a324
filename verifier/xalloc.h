/* xalloc.h - heap allocation that ends the program when memory runs out.
 *
 * The one place for "allocate or die": the analyses have no way to go on
 * without their tables, and a partial result would be a guess (docs/limits.md:
 * an allocation failure is an internal error). Sizes are checked for overflow
 * before they are multiplied. Arena memory (arena.h) stays the default for
 * whatever lives as long as the module. */
#ifndef HLOPROOF_XALLOC_H
#define HLOPROOF_XALLOC_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

static inline size_t xalloc_bytes(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes overflows)", n, size);
	size_t bytes = n * size;
	return bytes ? bytes : 1;
}

/* n elements of size bytes, uninitialised. */
static inline void *xmalloc(size_t n, size_t size)
{
	size_t bytes = xalloc_bytes(n, size);
	void *p = malloc(bytes);
	if (!p)
		die("out of memory (%zu bytes)", bytes);
	return p;
}

/* n zeroed elements of size bytes. */
static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* p grown (or shrunk) to n elements of size bytes. */
static inline void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes = xalloc_bytes(n, size);
	void *q = realloc(p, bytes);
	if (!q)
		die("out of memory (%zu bytes)", bytes);
	return q;
}

/* a copy of the string s */
static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *c = xmalloc(n, 1);
	memcpy(c, s, n);
	return c;
}

#endif
