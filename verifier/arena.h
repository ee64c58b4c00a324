/* arena.h - one bump allocator per module; everything the IR holds lives here. */
#ifndef HLOPROOF_ARENA_H
#define HLOPROOF_ARENA_H
#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t total;     /* bytes handed out, for memory reports */
	size_t reserved;  /* bytes obtained from malloc */
	size_t first_chunk; /* the first chunk's size when not 0 (a small arena) */
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
/* Zeroed, 16-byte aligned memory; aborts (die) only when malloc fails. */
void *arena_alloc(struct arena *a, size_t n);
/* Overflow-checked n*size; returns NULL when n*size overflows. */
void *arena_array(struct arena *a, size_t n, size_t size);
/* About n more bytes will be allocated: when n is large, map them now as one
 * chunk (address space only; pages are faulted in as they are used). A hint:
 * when the mapping is refused, the arena grows as usual. */
void arena_reserve(struct arena *a, size_t n);
/* Process-wide, once, before the heavy work starts: the C heap grows pad
 * bytes at a time on transparent huge pages, and every thread allocates from
 * it (see arena.c). main.c calls it with ARENA_HEAP_PAD for every command
 * that runs the analyses (CMD_HEAP_SETUP in its table): their large blocks
 * (Z3's among them, per query) are then reused, not mapped and faulted in
 * again each time. */
void arena_heap_huge_pages(size_t pad);
#define ARENA_HEAP_PAD ((size_t)32 << 20) /* glibc caps its thresholds there */
/* The C heap's large blocks: malloc hands blocks of 32 MiB and more out as
 * their own mappings of 4 KiB pages, which nothing advises as huge pages
 * (synth 10^6: about 13,000 of its 33,000 page faults were the value tables'). These advise the
 * whole 2 MiB pages inside a block of 4 MiB or more before it is touched;
 * like calloc and realloc otherwise, and die() when out of memory. */
void *heap_calloc_huge(size_t n, size_t size);
void *heap_realloc_huge(void *p, size_t n, size_t size);
/* Memory of the arena that nothing reads again: its whole 2 MiB pages
 * inside [p, p + n) go back to the kernel now (they would read as zero),
 * so the next allocations reuse them rather than touch fresh memory. A
 * hint: nothing fails. */
void arena_discard(struct arena *a, const void *p, size_t n);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);

#endif
