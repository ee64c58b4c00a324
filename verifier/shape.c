/* shape.c - primitive types, subshapes, equality, byte sizes, printing. */
#include "shape.h"
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int bits;
} ptypes[PT_COUNT] = {
	[PT_PRED] = {"pred", 8},
	[PT_S1] = {"s1", 8}, [PT_S2] = {"s2", 8}, [PT_S4] = {"s4", 8},
	[PT_S8] = {"s8", 8}, [PT_S16] = {"s16", 16}, [PT_S32] = {"s32", 32},
	[PT_S64] = {"s64", 64},
	[PT_U1] = {"u1", 8}, [PT_U2] = {"u2", 8}, [PT_U4] = {"u4", 8},
	[PT_U8] = {"u8", 8}, [PT_U16] = {"u16", 16}, [PT_U32] = {"u32", 32},
	[PT_U64] = {"u64", 64},
	[PT_F16] = {"f16", 16}, [PT_BF16] = {"bf16", 16}, [PT_F32] = {"f32", 32},
	[PT_F64] = {"f64", 64},
	[PT_F8E5M2] = {"f8e5m2", 8}, [PT_F8E4M3] = {"f8e4m3", 8},
	[PT_F8E4M3FN] = {"f8e4m3fn", 8}, [PT_F8E4M3B11FNUZ] = {"f8e4m3b11fnuz", 8},
	[PT_F8E5M2FNUZ] = {"f8e5m2fnuz", 8}, [PT_F8E4M3FNUZ] = {"f8e4m3fnuz", 8},
	[PT_F8E3M4] = {"f8e3m4", 8}, [PT_F8E8M0FNU] = {"f8e8m0fnu", 8},
	[PT_F4E2M1FN] = {"f4e2m1fn", 8},
	[PT_C64] = {"c64", 64}, [PT_C128] = {"c128", 128},
	[PT_TOKEN] = {"token", 0}, [PT_OPAQUE] = {"opaque", 0},
};

const char *ptype_name(enum ptype t)
{
	return (unsigned)t < PT_COUNT ? ptypes[t].name : NULL;
}

enum ptype ptype_from_name(const char *s, size_t n)
{
	for (int t = 1; t < PT_COUNT; t++) {
		const char *nm = ptypes[t].name;
		if (nm && strlen(nm) == n && memcmp(nm, s, n) == 0)
			return (enum ptype)t;
	}
	return PT_INVALID;
}

int ptype_bits(enum ptype t)
{
	return (unsigned)t < PT_COUNT ? ptypes[t].bits : 0;
}

const struct shape *shape_subshape(const struct shape *s, const struct shape_index *ix)
{
	for (int32_t i = 0; ix && i < ix->n; i++) {
		if (!shape_is_tuple(s) || ix->idx[i] < 0 || ix->idx[i] >= s->n_elems)
			return NULL;
		s = &s->elems[ix->idx[i]];
	}
	return s;
}

size_t shape_count_subshapes(const struct shape *s)
{
	size_t n = 1;
	if (shape_is_tuple(s))
		for (int32_t i = 0; i < s->n_elems; i++)
			n += shape_count_subshapes(&s->elems[i]);
	return n;
}

static int dims_equal(const struct shape *a, const struct shape *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++) {
		if (a->dims[i] != b->dims[i])
			return 0;
		int ka = a->dim_kinds ? a->dim_kinds[i] : 0;
		int kb = b->dim_kinds ? b->dim_kinds[i] : 0;
		if (ka != kb)
			return 0;
	}
	return 1;
}

int shape_compatible(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type)
		return 0;
	if (shape_is_tuple(a)) {
		if (a->n_elems != b->n_elems)
			return 0;
		for (int32_t i = 0; i < a->n_elems; i++)
			if (!shape_compatible(&a->elems[i], &b->elems[i]))
				return 0;
		return 1;
	}
	return dims_equal(a, b);
}

static int layout_equal(const struct shape *a, const struct shape *b)
{
	const struct layout *la = &a->layout, *lb = &b->layout;
	if (la->n_m2m != lb->n_m2m || la->memory_space != lb->memory_space ||
	    la->element_size_bits != lb->element_size_bits)
		return 0;
	for (int i = 0; i < la->n_m2m; i++)
		if (la->minor_to_major[i] != lb->minor_to_major[i])
			return 0;
	if (!la->ext != !lb->ext)
		return 0;
	return !la->ext || strcmp(la->ext, lb->ext) == 0;
}

int shape_equal(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type)
		return 0;
	if (shape_is_tuple(a)) {
		if (a->n_elems != b->n_elems)
			return 0;
		for (int32_t i = 0; i < a->n_elems; i++)
			if (!shape_equal(&a->elems[i], &b->elems[i]))
				return 0;
		return 1;
	}
	return dims_equal(a, b) && layout_equal(a, b);
}

int shape_equal_ignoring_layout(const struct shape *a, const struct shape *b)
{
	return shape_compatible(a, b);
}

static int mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

int shape_compute_sizes(struct shape *s)
{
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++)
			if (shape_compute_sizes(&s->elems[i]) < 0)
				return -1;
		s->elements = 0;
		s->bytes = 8u * (uint64_t)s->n_elems; /* XLA: a pointer per element */
		return 0;
	}
	if (s->type == PT_TOKEN || s->type == PT_OPAQUE) {
		s->elements = 0;
		s->bytes = 0;
		return 0;
	}
	uint64_t n = 1;
	for (int i = 0; i < s->rank; i++) {
		int64_t d = s->dims[i];
		if (d < 0)
			d = 0; /* unbounded '?': size unknown, count as empty */
		if (mul_overflows(n, (uint64_t)d, &n))
			return -1;
	}
	s->elements = n;
	uint64_t bits = s->layout.element_size_bits > 0 ? (uint64_t)s->layout.element_size_bits
						       : (uint64_t)ptype_bits(s->type);
	uint64_t total;
	if (mul_overflows(n, bits, &total))
		return -1;
	s->bytes = (total + 7) / 8;
	/* keep sizes representable in int64 for every later sum */
	if (s->bytes > (uint64_t)INT64_MAX / 4)
		return -1;
	return 0;
}

/* Append helper: writes as much as fits, always counts the full length. */
struct sbuf {
	char *p;
	size_t cap, len;
};

static void sb_puts(struct sbuf *b, const char *s, size_t n)
{
	if (b->len < b->cap) {
		size_t room = b->cap - b->len;
		memcpy(b->p + b->len, s, n < room ? n : room);
	}
	b->len += n;
}

/* v in decimal, as "%lld" prints it (snprintf cost ~700 instructions a
 * number: shapes printed into evidence were 6% of a mixtral check) */
static void sb_put_i64(struct sbuf *b, long long v)
{
	char t[24], *p = t + sizeof(t);
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	sb_puts(b, p, (size_t)(t + sizeof(t) - p));
}

static void shape_print(struct sbuf *b, const struct shape *s)
{
	if (s->flags & SHAPE_BUFFER) {
		struct shape in = *s;
		in.flags &= (uint16_t)~SHAPE_BUFFER;
		sb_puts(b, "b(", 2);
		shape_print(b, &in);
		sb_puts(b, ")", 1);
		return;
	}
	if (shape_is_tuple(s)) {
		sb_puts(b, "(", 1);
		for (int32_t i = 0; i < s->n_elems; i++) {
			if (i)
				sb_puts(b, ", ", 2);
			shape_print(b, &s->elems[i]);
		}
		sb_puts(b, ")", 1);
		return;
	}
	const char *nm = ptype_name((enum ptype)s->type);
	if (!nm)
		nm = "<invalid>";
	sb_puts(b, nm, strlen(nm));
	if (s->type == PT_TOKEN || s->type == PT_OPAQUE) {
		sb_puts(b, "[]", 2); /* as XLA prints them; a bare `token` reads as an opcode */
		return;
	}
	sb_puts(b, "[", 1);
	for (int i = 0; i < s->rank; i++) {
		if (i)
			sb_puts(b, ",", 1);
		int k = s->dim_kinds ? s->dim_kinds[i] : DIM_STATIC;
		if (k == DIM_UNBOUNDED) {
			sb_puts(b, "?", 1);
			continue;
		}
		if (k == DIM_BOUNDED)
			sb_puts(b, "<=", 2);
		sb_put_i64(b, s->dims[i]);
	}
	sb_puts(b, "]", 1);
	if (s->layout.n_m2m < 0)
		return;
	sb_puts(b, "{", 1);
	for (int i = 0; i < s->layout.n_m2m; i++) {
		if (i)
			sb_puts(b, ",", 1);
		sb_put_i64(b, s->layout.minor_to_major[i]);
	}
	/* `ext` is the text after ':' verbatim (XLA's fixed order D T L # * E S
	 * SC P M); E and S are also parsed into fields. Shapes built in code have
	 * no ext, only the fields. */
	if (s->layout.ext) {
		sb_puts(b, ":", 1);
		sb_puts(b, s->layout.ext, strlen(s->layout.ext));
	} else if (s->layout.element_size_bits || s->layout.memory_space) {
		sb_puts(b, ":", 1);
		if (s->layout.element_size_bits) {
			sb_puts(b, "E(", 2);
			sb_put_i64(b, s->layout.element_size_bits);
			sb_puts(b, ")", 1);
		}
		if (s->layout.memory_space) {
			sb_puts(b, "S(", 2);
			sb_put_i64(b, s->layout.memory_space);
			sb_puts(b, ")", 1);
		}
	}
	sb_puts(b, "}", 1);
}

size_t shape_to_string(const struct shape *s, char *buf, size_t cap)
{
	struct sbuf b = {buf, cap ? cap - 1 : 0, 0};
	shape_print(&b, s);
	if (cap)
		buf[b.len < cap - 1 ? b.len : cap - 1] = 0;
	return b.len;
}

int shape_index_equal(const struct shape_index *a, const struct shape_index *b)
{
	if (a->n != b->n)
		return 0;
	for (int32_t i = 0; i < a->n; i++)
		if (a->idx[i] != b->idx[i])
			return 0;
	return 1;
}

size_t shape_index_to_string(const struct shape_index *ix, char *buf, size_t cap)
{
	struct sbuf b = {buf, cap ? cap - 1 : 0, 0};
	sb_puts(&b, "{", 1);
	for (int32_t i = 0; ix && i < ix->n; i++) {
		if (i)
			sb_puts(&b, ",", 1);
		sb_put_i64(&b, ix->idx[i]);
	}
	sb_puts(&b, "}", 1);
	if (cap)
		buf[b.len < cap - 1 ? b.len : cap - 1] = 0;
	return b.len;
}

int32_t shape_minor_to_major(const struct shape *s, int i)
{
	if (s->layout.n_m2m == s->rank && s->layout.minor_to_major)
		return s->layout.minor_to_major[i];
	return s->rank - 1 - i;
}
