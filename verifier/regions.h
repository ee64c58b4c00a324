/* regions.h - the box of a buffer an instruction reads or writes
 * (docs/hazards.md section 5). */
#ifndef HLOPROOF_REGIONS_H
#define HLOPROOF_REGIONS_H
#include <stdint.h>
#include "ir.h"

#define REGION_MAX_RANK 16

/* [lo[d], hi[d]) per dimension; whole = 1 when the region is the whole buffer. */
struct region {
	int whole;
	int32_t rank;
	int64_t lo[REGION_MAX_RANK], hi[REGION_MAX_RANK];
};

/* What instruction `user` reads of its operand `k` (a DUS reads its operand 0
 * whole: the part not written survives, and reading is harmless there only
 * when nothing else wrote; dynamic-slice and slice read their box). */
void region_read(const struct hlo_instruction *user, int32_t k, struct region *out);
/* What instruction `i` writes into the buffer of its output (at the top
 * level): a DUS writes its update box, with XLA's start clamping. */
void region_write(const struct hlo_instruction *i, struct region *out);
/* Two regions overlap (every dimension overlaps; whole overlaps everything). */
int region_overlap(const struct region *a, const struct region *b);
/* "[4,8)x[0,3)" or "whole" into buf. */
const char *region_format(const struct region *r, char *buf, size_t cap);

#endif
