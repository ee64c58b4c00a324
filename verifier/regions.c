/* regions.c - boxes read and written by dynamic-update-slice, dynamic-slice,
 * slice and fusions rooted at one (docs/hazards.md section 5). */
#include "regions.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void whole(struct region *r)
{
	memset(r, 0, sizeof(*r));
	r->whole = 1;
}

static struct hlo_computation *fused(const struct hlo_instruction *f)
{
	if (f->opcode != OP_FUSION)
		return NULL;
	return f->ext->calls ? f->ext->calls : (f->n_called > 0 ? f->called[0] : NULL);
}

/* A scalar integer constant, through a fused parameter to the fusion's
 * operand when `f` is given. */
static int constant_index(const struct hlo_instruction *x, const struct hlo_instruction *f,
			  int64_t *out)
{
	if (x->opcode == OP_PARAMETER && f && x->parameter_number >= 0 &&
	    x->parameter_number < f->n_operands)
		x = f->operands[x->parameter_number];
	if (x->opcode != OP_CONSTANT || !x->literal || !x->shape || x->shape->rank != 0)
		return 0;
	const char *s = x->literal;
	while (*s == ' ')
		s++;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || errno)
		return 0;
	while (*end == ' ')
		end++;
	if (*end)
		return 0;
	*out = v;
	return 1;
}

/* Start indices of a dynamic-update-slice / dynamic-slice `op` from operand
 * `first`, clamped into [0, dim - size]; non-constant starts cover [0, dim). */
static void box_from_starts(const struct hlo_instruction *op, const struct hlo_instruction *f,
			    int32_t first, const int64_t *sizes, const struct shape *base,
			    struct region *r)
{
	int32_t rank = base->rank;
	if (rank > REGION_MAX_RANK || op->n_operands != first + rank) {
		whole(r);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	for (int32_t d = 0; d < rank; d++) {
		int64_t dim = base->dims[d], size = sizes[d], start;
		if (dim < 0 || size < 0 || size > dim) {
			whole(r);
			return;
		}
		if (constant_index(op->operands[first + d], f, &start)) {
			if (start < 0)
				start = 0;
			if (start > dim - size)
				start = dim - size;
			r->lo[d] = start;
			r->hi[d] = start + size;
		} else if (size == 0) {
			r->lo[d] = r->hi[d] = 0;
		} else {
			r->lo[d] = 0; /* every position it could take */
			r->hi[d] = dim;
		}
	}
}

static void dus_write(const struct hlo_instruction *op, const struct hlo_instruction *f,
		      struct region *r)
{
	if (op->n_operands < 2 || !op->operands[0]->shape || !op->operands[1]->shape) {
		whole(r);
		return;
	}
	const struct shape *base = op->operands[0]->shape, *upd = op->operands[1]->shape;
	if (!shape_is_array(base) || !shape_is_array(upd) || upd->rank != base->rank) {
		whole(r);
		return;
	}
	box_from_starts(op, f, 2, upd->dims, base, r);
}

static void ds_read(const struct hlo_instruction *op, const struct hlo_instruction *f,
		    struct region *r)
{
	const struct shape *base = op->n_operands > 0 ? op->operands[0]->shape : NULL;
	if (!base || !shape_is_array(base) || op->ext->n_dynamic_slice_sizes != base->rank) {
		whole(r);
		return;
	}
	box_from_starts(op, f, 1, op->ext->dynamic_slice_sizes, base, r);
}

static void slice_read(const struct hlo_instruction *op, struct region *r)
{
	const struct shape *base = op->n_operands > 0 ? op->operands[0]->shape : NULL;
	if (!base || !shape_is_array(base) || op->ext->n_slice != base->rank ||
	    base->rank > REGION_MAX_RANK) {
		whole(r);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->rank = base->rank;
	for (int32_t d = 0; d < base->rank; d++) {
		int64_t lo = op->ext->slice[d].start, hi = op->ext->slice[d].limit; /* strides ignored */
		if (lo < 0 || hi < lo || hi > base->dims[d]) {
			whole(r);
			return;
		}
		r->lo[d] = lo;
		r->hi[d] = hi;
	}
}

void region_read(const struct hlo_instruction *user, int32_t k, struct region *out)
{
	const struct hlo_instruction *op = user, *f = NULL;
	struct hlo_computation *fc = fused(user);
	if (fc) {
		/* the fused root reads the fused parameter k directly */
		if (!fc->root || k < 0 || k >= fc->n_params || fc->root->n_operands < 1 ||
		    fc->root->operands[0] != fc->params[k]) {
			whole(out);
			return;
		}
		f = user;
		op = fc->root;
	} else if (k != 0) {
		whole(out);
		return;
	}
	if (op->opcode == OP_DYNAMIC_SLICE)
		ds_read(op, f, out);
	else if (op->opcode == OP_SLICE)
		slice_read(op, out);
	else
		whole(out);
}

void region_write(const struct hlo_instruction *i, struct region *out)
{
	struct hlo_computation *fc = fused(i);
	if (fc) {
		const struct hlo_instruction *root = fc->root;
		if (root && root->opcode == OP_DYNAMIC_UPDATE_SLICE && root->n_operands > 0 &&
		    root->operands[0]->opcode == OP_PARAMETER) {
			dus_write(root, i, out);
			return;
		}
		whole(out);
		return;
	}
	if (i->opcode == OP_DYNAMIC_UPDATE_SLICE)
		dus_write(i, NULL, out);
	else
		whole(out);
}

int region_overlap(const struct region *a, const struct region *b)
{
	if (a->whole || b->whole || a->rank != b->rank)
		return 1;
	for (int32_t d = 0; d < a->rank; d++)
		if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d])
			return 0;
	return 1;
}

const char *region_format(const struct region *r, char *buf, size_t cap)
{
	if (r->whole) {
		snprintf(buf, cap, "whole");
		return buf;
	}
	size_t n = 0;
	buf[0] = 0;
	for (int32_t d = 0; d < r->rank && n < cap; d++) {
		int w = snprintf(buf + n, cap - n, "%s[%lld,%lld)", d ? "x" : "", (long long)r->lo[d],
				 (long long)r->hi[d]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (r->rank == 0)
		snprintf(buf, cap, "scalar");
	return buf;
}
