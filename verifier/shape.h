/* shape.h - HLO shapes: element types, dims, layouts, byte sizes. */
#ifndef HLOPROOF_SHAPE_H
#define HLOPROOF_SHAPE_H
#include <stdint.h>
#include <stddef.h>

struct arena;

enum ptype {
	PT_INVALID = 0,
	PT_PRED,
	PT_S1, PT_S2, PT_S4, PT_S8, PT_S16, PT_S32, PT_S64,
	PT_U1, PT_U2, PT_U4, PT_U8, PT_U16, PT_U32, PT_U64,
	PT_F16, PT_BF16, PT_F32, PT_F64,
	PT_F8E5M2, PT_F8E4M3, PT_F8E4M3FN, PT_F8E4M3B11FNUZ, PT_F8E5M2FNUZ,
	PT_F8E4M3FNUZ, PT_F8E3M4, PT_F8E8M0FNU, PT_F4E2M1FN,
	PT_C64, PT_C128,
	PT_TOKEN, PT_OPAQUE,
	PT_TUPLE,  /* never spelled; tuples use parentheses */
	PT_COUNT
};

/* Name as printed ("f32"), or NULL. */
const char *ptype_name(enum ptype t);
/* Lookup by text; PT_INVALID when not a primitive type name. */
enum ptype ptype_from_name(const char *s, size_t n);
/* Bits per element as stored without an E(n) layout override (pred: 8, s4: 8 unpacked). */
int ptype_bits(enum ptype t);

enum dim_kind { DIM_STATIC = 0, DIM_BOUNDED = 1 /* <=N */, DIM_UNBOUNDED = 2 /* ? */ };

#define SHAPE_MAX_RANK 64       /* XLA itself has no limit; real shapes stay < 10 */
#define SHAPE_MAX_DEPTH 64      /* nesting bound for tuples: deeper input is rejected */
#define SHAPE_MAX_TUPLE 1000000 /* elements in one tuple */

struct layout {
	int16_t n_m2m;          /* -1: no layout printed ({} is 0 for scalars) */
	int16_t memory_space;   /* S(n); 0 default */
	int32_t element_size_bits; /* E(n); 0 = not set */
	int32_t *minor_to_major;
	/* The whole layout text after ':' (tiles, D(), L(), E(), S(), ...),
	 * verbatim; E and S are also parsed into the fields above. */
	const char *ext;        /* NULL when nothing follows the minor_to_major list */
};

struct shape {
	uint8_t type;           /* enum ptype */
	uint8_t rank;
	uint16_t flags;
	int32_t n_elems;        /* tuple elements */
	int64_t *dims;          /* rank entries; bound for DIM_BOUNDED, -1 for '?' */
	uint8_t *dim_kinds;     /* NULL when every dim is static */
	struct shape *elems;    /* tuple elements (array of n_elems) */
	struct layout layout;
	uint64_t bytes;         /* array: element bytes; tuple: 8 per element (pointer table) */
	uint64_t elements;      /* array: product of dims */
};

#define SHAPE_HAS_LAYOUT 1u   /* a layout was printed (or defaulted) */
#define SHAPE_BUFFER 2u       /* b(...) buffer shape */

static inline int shape_is_tuple(const struct shape *s) { return s->type == PT_TUPLE; }
static inline int shape_is_array(const struct shape *s)
{
	return s->type != PT_TUPLE && s->type != PT_TOKEN && s->type != PT_OPAQUE &&
	       s->type != PT_INVALID;
}

/* A path into a nested tuple shape: {} is the whole value. */
struct shape_index {
	int32_t n;
	int32_t *idx;
};

/* Effective minor_to_major entry i of an array shape: the printed layout, or
 * XLA's default descending layout {rank-1,...,0} when none was printed. */
int32_t shape_minor_to_major(const struct shape *s, int i);

/* Subshape at an index, or NULL when the index is not valid for the shape. */
const struct shape *shape_subshape(const struct shape *s, const struct shape_index *ix);
/* Number of leaves and of all sub-shapes (incl. the top), for value counting. */
size_t shape_count_subshapes(const struct shape *s);
/* Same element type and dims (layout ignored): the operand-shape consistency check. */
int shape_compatible(const struct shape *a, const struct shape *b);
/* Equal including layout, tiles and memory space. */
int shape_equal(const struct shape *a, const struct shape *b);
/* Same except the layout (minor_to_major / tiles / element size / memory space). */
int shape_equal_ignoring_layout(const struct shape *a, const struct shape *b);
/* Compute bytes/elements with checked arithmetic; -1 on overflow. */
int shape_compute_sizes(struct shape *s);
/* Print as HLO text into buf (always NUL-terminated); returns the length it needed. */
size_t shape_to_string(const struct shape *s, char *buf, size_t cap);
int shape_index_equal(const struct shape_index *a, const struct shape_index *b);
size_t shape_index_to_string(const struct shape_index *ix, char *buf, size_t cap);

#endif
