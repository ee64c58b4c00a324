/* regions.h - the box of a buffer an instruction reads or writes
 * (docs/hazards.md section 5). */
#ifndef HLOPROOF_REGIONS_H
#define HLOPROOF_REGIONS_H
#include <stdint.h>
#include "ir.h"

#define REGION_MAX_RANK 16

/* [lo[d], hi[d]) per dimension of `view`, the shape (dims and layout) in
 * which the access sees the buffer: a bitcast reshapes or transposes the
 * coordinates without moving a byte, so two boxes compare dimension by
 * dimension only in one view, and otherwise by the bytes they cover in
 * memory order. whole = 1 when the region is the whole buffer. */
struct region {
	int whole;
	int32_t rank;
	const struct shape *view; /* the module's; set when !whole */
	int64_t lo[REGION_MAX_RANK], hi[REGION_MAX_RANK];
};

/* What instruction `user` reads of its operand `k` (a DUS reads its operand 0
 * whole: the part not written survives, and reading is harmless there only
 * when nothing else wrote; dynamic-slice and slice read their box). */
void region_read(const struct hlo_instruction *user, int32_t k, struct region *out);
/* What instruction `i` writes into the buffer of its output (at the top
 * level): a DUS writes its update box, with XLA's start clamping. */
void region_write(const struct hlo_instruction *i, struct region *out);
/* Two regions overlap: in one view, when every dimension overlaps; in two
 * views, when they share a byte of the buffer (in memory order through
 * each view's layout); whole, or a view whose layout maps coordinates to
 * memory in a way not modelled (tiles), overlaps everything. */
int region_overlap(const struct region *a, const struct region *b);
/* Both regions are boxes of one view (dims, layout, element size): then
 * region_format of each names comparable coordinates. */
int region_same_view(const struct region *a, const struct region *b);
/* The bytes of the buffer a region covers, as "bytes [a,b)" (the first
 * and past-the-last; the box may skip some between) into buf, or "whole". */
const char *region_format_bytes(const struct region *r, char *buf, size_t cap);
/* "[4,8)x[0,3)" or "whole" into buf. */
const char *region_format(const struct region *r, char *buf, size_t cap);

#endif
