/* arena.c - chunked bump allocator.
 *
 * Small arenas live in malloc'd chunks that double from 256 KiB. From 2 MiB
 * on, chunks are 2 MiB-aligned anonymous mappings of whole 2 MiB pages,
 * advised as transparent huge pages, that double with the arena: on a
 * virtual machine the first touch of a 4 KiB page costs a fault of 10-20 us
 * (docs/performance.md), and a large module touches tens of MiB.
 * arena_reserve() maps a chunk of an expected size up front. All chunks are
 * zero when obtained (calloc or mmap), so allocations are not cleared. */
#include "arena.h"
#include "diag.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	size_t map_len;   /* > 0: an mmap'd chunk of that many bytes (zero-filled) */
	_Alignas(16) unsigned char data[];
};

#define ARENA_MIN_CHUNK (256u * 1024u)
#define ARENA_HUGE ((size_t)2 << 20)

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *n;
	for (; c; c = n) {
		n = c->next;
		if (c->map_len)
			munmap(c, c->map_len);
		else
			free(c);
	}
	memset(a, 0, sizeof(*a));
}

/* A 2 MiB-aligned mapping of len bytes (a multiple of 2 MiB), or NULL. */
static void *map_huge(size_t len, int flags)
{
	size_t over = len + ARENA_HUGE;
	if (over < len)
		return NULL;
	char *p = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *q = (char *)(((uintptr_t)p + ARENA_HUGE - 1) & ~(uintptr_t)(ARENA_HUGE - 1));
	if (q > p)
		munmap(p, (size_t)(q - p));
	if (p + over > q + len)
		munmap(q + len, (size_t)(p + over - (q + len)));
#ifdef MADV_HUGEPAGE
	madvise(q, len, MADV_HUGEPAGE);
#endif
	return q;
}

/* A mapped chunk with room for need bytes; NULL only when `reserve` (then
 * the mapping is address space only, and failing to get it is no error). */
static struct arena_chunk *map_chunk(struct arena *a, size_t need, int reserve)
{
	struct arena_chunk *c;
	size_t hdr = sizeof(*c);
	size_t len = (hdr + need + ARENA_HUGE - 1) & ~(ARENA_HUGE - 1);
	if (!(c = map_huge(len, reserve ? MAP_NORESERVE : 0))) {
		if (reserve)
			return NULL;
		die("out of memory (arena chunk of %zu bytes)", len);
	}
	c->map_len = len;
	c->size = len - hdr;
	c->used = 0;
	c->next = a->head;
	a->head = c;
	a->reserved += len;
	return c;
}

void arena_reserve(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	if (n < ARENA_HUGE || n > SIZE_MAX / 2 || (c && c->size - c->used >= n))
		return;
	map_chunk(a, n, 1);
}

static struct arena_chunk *new_chunk(struct arena *a, size_t need)
{
	struct arena_chunk *c;
	size_t hdr = sizeof(*c);
	if (need > SIZE_MAX - hdr - ARENA_HUGE)
		die("arena: allocation of %zu bytes overflows", need);
	/* malloc'd chunks double from 256 KiB while the arena is under 2 MiB;
	 * after that every chunk is a whole number of 2 MiB huge pages */
	size_t sz = a->reserved ? a->reserved : a->first_chunk ? a->first_chunk : ARENA_MIN_CHUNK;
	if (sz < need)
		sz = need;
	if (a->reserved + hdr + sz < ARENA_HUGE) {
		/* calloc: a fresh chunk comes zeroed from mmap without a memset,
		 * so pages the arena never uses are never touched */
		if (!(c = calloc(1, hdr + sz)))
			die("out of memory (arena chunk of %zu bytes)", sz);
		c->map_len = 0;
		c->size = sz;
		a->reserved += hdr + sz;
	} else {
		return map_chunk(a, sz, 0);
	}
	c->used = 0;
	c->next = a->head;
	a->head = c;
	return c;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t need = (n + 15) & ~(size_t)15;
	if (need < n)
		die("arena: allocation of %zu bytes overflows", n);
	if (!c || c->size - c->used < need)
		c = new_chunk(a, need);
	void *p = c->data + c->used;
	c->used += need;
	a->total += need;
	return p;
}

void *arena_array(struct arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return arena_alloc(a, n && size ? n * size : 1);
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

/* madvise the whole 2 MiB pages inside [p, p + n), if there are any (an
 * address, not a pointer: the block's contents are not read) */
static void advise_whole_pages(uintptr_t p, size_t n, int advice)
{
	uintptr_t q = (p + ARENA_HUGE - 1) & ~(uintptr_t)(ARENA_HUGE - 1);
	uintptr_t end = (p + n) & ~(uintptr_t)(ARENA_HUGE - 1);
	if (end > q)
		madvise((void *)q, (size_t)(end - q), advice);
}

static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n >= 2 * ARENA_HUGE)
		advise_whole_pages((uintptr_t)p, n, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void arena_discard(struct arena *a, const void *p, size_t n)
{
	(void)a; /* the pages stay the arena's: it never hands them out again */
	advise_whole_pages((uintptr_t)p, n, MADV_DONTNEED);
}

void *heap_calloc_huge(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("allocation of %zu x %zu bytes overflows", n, size);
	size_t bytes = n * size;
	if (bytes < 2 * ARENA_HUGE) {
		void *p = calloc(1, bytes ? bytes : 1);
		if (!p)
			die("out of memory (%zu bytes)", bytes);
		return p;
	}
	/* not calloc: a block from the heap is cleared before it can be advised */
	void *p = malloc(bytes);
	if (!p)
		die("out of memory (%zu bytes)", bytes);
	advise_huge(p, bytes);
	memset(p, 0, bytes);
	return p;
}

void *heap_realloc_huge(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("allocation of %zu x %zu bytes overflows", n, size);
	size_t bytes = n * size;
	if (bytes < 2 * ARENA_HUGE) {
		p = realloc(p, bytes ? bytes : 1);
		if (!p)
			die("out of memory (%zu bytes)", bytes);
		return p;
	}
	/* not realloc: it copies into the new block before it can be advised */
	size_t old = p ? malloc_usable_size(p) : 0;
	if (old >= bytes)
		return p;
	void *q = malloc(bytes);
	if (!q)
		die("out of memory (%zu bytes)", bytes);
	advise_huge(q, bytes);
	if (old)
		memcpy(q, p, old);
	free(p);
	return q;
}

void arena_heap_huge_pages(size_t pad)
{
	/* The analyses' malloc'd scratch (value tables, hazard views, Z3) is
	 * grown and dropped many times: keep it in the main heap (no mmap per
	 * large block, no trimming), extend the heap by pad at a time, and advise
	 * the extension as huge pages like the arenas. A hint: nothing fails. */
	if (pad < ARENA_HUGE || pad > ((size_t)32 << 20)) /* glibc caps the mmap threshold at 32 MiB */
		return;
	if (!mallopt(M_MMAP_THRESHOLD, (int)pad) || !mallopt(M_TRIM_THRESHOLD, (int)(2 * pad)) ||
	    !mallopt(M_TOP_PAD, (int)pad))
		return;
	/* --jobs: one heap for every thread. A thread's own glibc arena is a
	 * 64 MiB mapping of 4 KiB pages that nothing advises: measured on 8
	 * modules with --jobs 2, 8,800 page faults and +30% CPU against 1,200
	 * faults with the shared heap; the lock costs less than the faults. */
	mallopt(M_ARENA_MAX, 1);
	/* a block from the heap's top: the heap now extends about pad past it */
	char *p = malloc(ARENA_HUGE);
	if (!p)
		return;
#ifdef MADV_HUGEPAGE
	advise_whole_pages((uintptr_t)p, pad, MADV_HUGEPAGE);
#endif
	free(p);
}
