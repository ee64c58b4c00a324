/* satmath.h - byte counts that saturate instead of wrapping.
 *
 * A copy's cost per step is its bytes times the trip counts of the loops
 * around it; nested loops multiply (32 KiB x 3^33 passes 2^64), so products
 * and sums of costs stop at the type's maximum. */
#ifndef HLOPROOF_SATMATH_H
#define HLOPROOF_SATMATH_H

#include <stdint.h>

static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* the same for a signed count of bytes (JSON integers): stops at INT64_MAX */
static inline int64_t sat_mul_i64(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

#endif
