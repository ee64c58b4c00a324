/* regions.c - boxes read and written by dynamic-update-slice, dynamic-slice,
 * slice and fusions rooted at one (docs/hazards.md section 5), each in the
 * view (shape and layout) through which the access sees the buffer. */
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

/* ---- views ---- */

static int64_t elem_bits(const struct shape *s)
{
	return s->layout.element_size_bits > 0 ? s->layout.element_size_bits : ptype_bits(s->type);
}

/* One view: same dims, memory order and element size, so equal
 * coordinates are equal bytes. */
static int views_equal(const struct shape *a, const struct shape *b)
{
	if (a == b)
		return 1;
	if (!shape_is_array(a) || !shape_is_array(b) || a->rank != b->rank ||
	    elem_bits(a) != elem_bits(b))
		return 0;
	for (int32_t d = 0; d < a->rank; d++) {
		int ka = a->dim_kinds ? a->dim_kinds[d] : 0, kb = b->dim_kinds ? b->dim_kinds[d] : 0;
		if (a->dims[d] != b->dims[d] || ka != kb)
			return 0;
		if (shape_minor_to_major(a, d) != shape_minor_to_major(b, d))
			return 0;
	}
	if (!a->layout.ext != !b->layout.ext)
		return 0;
	return !a->layout.ext || !strcmp(a->layout.ext, b->layout.ext);
}

/* A layout whose memory order is minor_to_major alone: after ':' only
 * E(n) and S(n) (tiles and dim level types reorder bytes). */
static int plain_layout(const struct shape *s)
{
	const char *e = s->layout.ext;
	while (e && *e) {
		if ((*e != 'E' && *e != 'S') || e[1] != '(')
			return 0;
		e += 2;
		while (*e >= '0' && *e <= '9')
			e++;
		if (*e != ')')
			return 0;
		e++;
	}
	return 1;
}

/* Element strides of each dimension in memory order; 0 when the view's
 * layout is not modelled or its size overflows. */
static int view_strides(const struct shape *s, int64_t *stride)
{
	if (!shape_is_array(s) || s->rank > REGION_MAX_RANK || !plain_layout(s) || elem_bits(s) <= 0)
		return 0;
	int seen[REGION_MAX_RANK] = {0};
	int64_t st = 1;
	for (int32_t i = 0; i < s->rank; i++) {
		int32_t d = shape_minor_to_major(s, i);
		if (d < 0 || d >= s->rank || seen[d] || s->dims[d] < 0)
			return 0;
		seen[d] = 1;
		stride[d] = st;
		if (__builtin_mul_overflow(st, s->dims[d], &st))
			return 0;
	}
	int64_t bits;
	return !__builtin_mul_overflow(st, elem_bits(s), &bits);
}

/* The runs of bits a box covers, in increasing order: the minor dimensions
 * the box spans fully, and the first it does not, make one run; the others
 * are stepped through, major first. */
struct runs {
	int64_t stride[REGION_MAX_RANK], idx[REGION_MAX_RANK];
	int32_t outer[REGION_MAX_RANK], n_outer; /* dims stepped, major first */
	const struct region *r;
	int64_t base, len, bits; /* base, len in elements */
	int64_t start, end;      /* the current run, in bits */
	int done;
};

static void runs_at(struct runs *it)
{
	int64_t off = it->base;
	for (int32_t j = 0; j < it->n_outer; j++)
		off += it->idx[j] * it->stride[it->outer[j]];
	it->start = off * it->bits;
	it->end = (off + it->len) * it->bits;
}

static int runs_init(struct runs *it, const struct region *r)
{
	memset(it, 0, sizeof(*it));
	const struct shape *s = r->view;
	if (!s || s->rank != r->rank || !view_strides(s, it->stride))
		return 0;
	it->r = r;
	it->bits = elem_bits(s);
	it->len = 1;
	int32_t i = 0;
	for (; i < r->rank; i++) {
		int32_t d = shape_minor_to_major(s, i);
		if (r->hi[d] <= r->lo[d]) {
			it->done = 1; /* an empty box covers nothing */
			return 1;
		}
		it->len *= r->hi[d] - r->lo[d];
		it->base += r->lo[d] * it->stride[d];
		if (r->lo[d] != 0 || r->hi[d] != s->dims[d])
			break;
	}
	for (int32_t k = r->rank - 1; k > i; k--) {
		int32_t d = shape_minor_to_major(s, k);
		if (r->hi[d] <= r->lo[d]) {
			it->done = 1;
			return 1;
		}
		it->outer[it->n_outer] = d;
		it->idx[it->n_outer++] = 0; /* relative to lo, which base holds */
		it->base += r->lo[d] * it->stride[d];
	}
	runs_at(it);
	return 1;
}

static void runs_next(struct runs *it)
{
	for (int32_t j = it->n_outer - 1; j >= 0; j--) {
		int32_t d = it->outer[j];
		if (++it->idx[j] < it->r->hi[d] - it->r->lo[d]) {
			runs_at(it);
			return;
		}
		it->idx[j] = 0;
	}
	it->done = 1;
}

/* The first and past-the-last bit a box covers. */
static int box_bits(const struct region *r, int64_t *first, int64_t *end)
{
	struct runs it;
	if (!runs_init(&it, r))
		return 0;
	if (it.done) {
		*first = *end = 0;
		return 1;
	}
	*first = it.start;
	int64_t last = it.base;
	for (int32_t j = 0; j < it.n_outer; j++)
		last += (r->hi[it.outer[j]] - r->lo[it.outer[j]] - 1) * it.stride[it.outer[j]];
	*end = (last + it.len) * it.bits;
	return 1;
}

/* Past this many runs compared, two views' boxes are taken to overlap. */
#define RUNS_MAX_STEPS 65536

static int bits_overlap(const struct region *a, const struct region *b)
{
	struct runs x, y;
	if (!runs_init(&x, a) || !runs_init(&y, b))
		return 1;
	int64_t xa, xb, ya, yb;
	box_bits(a, &xa, &xb);
	box_bits(b, &ya, &yb);
	if (x.done || y.done || xb <= ya || yb <= xa)
		return 0;
	for (int64_t steps = 0; !x.done && !y.done; steps++) {
		if (steps > RUNS_MAX_STEPS)
			return 1;
		if (x.start < y.end && y.start < x.end)
			return 1;
		if (x.end <= y.start)
			runs_next(&x);
		else
			runs_next(&y);
	}
	return 0;
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

/* The box, measured in `base`, in the view `view` through which the
 * buffer is accessed: the same coordinates only if base is that view. */
static void in_view(struct region *r, const struct shape *base, const struct shape *view)
{
	if (r->whole)
		return;
	if (!view || !views_equal(base, view)) {
		whole(r);
		return;
	}
	r->view = view;
}

/* A DUS writes its output's buffer, seen as its output (a fused one: as
 * the fusion's output). */
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
	in_view(r, base, f ? f->shape : op->shape);
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

/* The shape operand k of `user` has where `user` reads it: the buffer as
 * that access sees it (a bitcast's users see the bitcast's shape). */
static const struct shape *read_view(const struct hlo_instruction *user, int32_t k)
{
	return k >= 0 && k < user->n_operands ? user->operands[k]->shape : NULL;
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
	if (!out->whole)
		in_view(out, op->operands[0]->shape, read_view(user, k));
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

int region_same_view(const struct region *a, const struct region *b)
{
	return !a->whole && !b->whole && a->view && b->view && a->rank == b->rank &&
	       views_equal(a->view, b->view);
}

int region_overlap(const struct region *a, const struct region *b)
{
	if (a->whole || b->whole)
		return 1;
	if (!region_same_view(a, b))
		return bits_overlap(a, b);
	for (int32_t d = 0; d < a->rank; d++)
		if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d])
			return 0;
	return 1;
}

const char *region_format_bytes(const struct region *r, char *buf, size_t cap)
{
	int64_t first, end;
	if (r->whole || !box_bits(r, &first, &end)) {
		snprintf(buf, cap, "whole");
		return buf;
	}
	if (first % 8 == 0 && end % 8 == 0)
		snprintf(buf, cap, "bytes [%lld,%lld)", (long long)(first / 8), (long long)(end / 8));
	else
		snprintf(buf, cap, "bits [%lld,%lld)", (long long)first, (long long)end);
	return buf;
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
