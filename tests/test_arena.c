/* test_arena.c - the allocators under the IR and the analyses (arena.h):
 * the module arena, and the C heap's large blocks on huge pages. */
#include "testutil.h"
#include "arena.h"
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)

/* Arena memory is zeroed, 16-byte aligned, and survives later allocations. */
static void test_arena_zeroed_aligned(void **state)
{
	(void)state;
	struct arena a;
	arena_init(&a);
	unsigned char *first = arena_alloc(&a, 100);
	memset(first, 0xab, 100);
	for (size_t n = 1; n < 5 * MIB; n = n * 3 + 1) {
		unsigned char *p = arena_alloc(&a, n);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n; i += 4093)
			assert_int_equal(p[i], 0);
		assert_int_equal(p[n - 1], 0);
		memset(p, 0xcd, n);
	}
	for (int i = 0; i < 100; i++)
		assert_int_equal(first[i], 0xab);
	assert_null(arena_array(&a, SIZE_MAX / 8 + 1, 16)); /* n * size overflows */
	arena_free(&a);
}

/* heap_realloc_huge keeps the contents through growth past the sizes where
 * it stops calling realloc (4 MiB), and a request for less keeps the block. */
static void test_heap_realloc_huge_keeps_contents(void **state)
{
	(void)state;
	uint32_t *v = NULL;
	size_t cap = 0, n = 0;
	while (n < 6 * MIB) { /* 24 MiB of uint32_t, doubling from 16 */
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = heap_realloc_huge(v, cap, sizeof(*v));
		}
		v[n] = (uint32_t)(n * 2654435761u);
		n++;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] != (uint32_t)(i * 2654435761u))
			fail_msg("element %zu lost in growth", i);
	uint32_t *same = heap_realloc_huge(v, n / 2, sizeof(*v));
	assert_ptr_equal(same, v);
	assert_int_equal(same[n / 2 - 1], (uint32_t)((n / 2 - 1) * 2654435761u));
	free(same);
}

/* heap_calloc_huge is zero even where the heap hands back dirty memory. */
static void test_heap_calloc_huge_zeroed(void **state)
{
	(void)state;
	/* as check does: blocks under 32 MiB from the heap, which reuses them */
	arena_heap_huge_pages(32 * MIB);
	for (size_t size = MIB; size <= 40 * MIB; size *= 3) {
		unsigned char *dirty = malloc(size);
		assert_non_null(dirty);
		memset(dirty, 0x5a, size);
		/* read back: a store only followed by free() may be dropped */
		assert_int_equal(((volatile unsigned char *)dirty)[size / 2], 0x5a);
		free(dirty);
		unsigned char *p = heap_calloc_huge(size, 1);
		for (size_t i = 0; i < size; i += 509)
			if (p[i])
				fail_msg("byte %zu of a %zu-byte block is not zero", i, size);
		assert_int_equal(p[size - 1], 0);
		free(p);
	}
	uint64_t *w = heap_calloc_huge(3 * MIB, sizeof(uint64_t));
	assert_int_equal(w[3 * MIB - 1], 0);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena_zeroed_aligned),
		cmocka_unit_test(test_heap_realloc_huge_keeps_contents),
		cmocka_unit_test(test_heap_calloc_huge_zeroed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
