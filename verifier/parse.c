/* parse.c - HLO text to IR (semantics doc section 1).
 *
 * A recursive-descent parser over the lexer in lex.c. Memory: the source is
 * copied once into the module arena; names and raw attribute values are
 * copied into packed arena blocks (no per-string rounding); identical shape
 * texts are parsed once and shared (a hash of the raw span); operand lists
 * are gathered in reusable scratch vectors and copied out at their final size.
 * Scratch (hash tables, vectors) lives in the module arena too, which is
 * huge pages for a large input: on a virtual machine every first touch of a
 * 4 KiB page costs a fault of several microseconds (malloc'd scratch was
 * ~400 such faults on mixtral). An array outgrown by its table or vector
 * becomes a block of the pool (zeroed again), so doubling wastes nothing;
 * the final arrays stay behind in the arena (~1.3 MB on mixtral, 6%).
 *
 * Layouts: a shape printed without a layout keeps layout.n_m2m = -1 and no
 * SHAPE_HAS_LAYOUT flag, so the printer reprints exactly what was there;
 * shape_minor_to_major() gives the effective (default descending) layout.
 *
 * Computation references (to_apply=, calls=, ...) are resolved after the
 * whole file is read: XLA's own test modules (e.g. the conditional tests in
 * copy_insertion_test.cc) call computations defined later in the text. */
#include "ir.h"
#include "irbuild.h"
#include "lex.h"
#include "xalloc.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- packed allocation inside the arena ---------------------------------- */

#define POOL_BLOCK (64u * 1024u)

struct recycled {             /* an outgrown scratch array, reused as a block */
	struct recycled *next;
	size_t size;
};

struct pool {
	struct arena *a;
	char *p, *end;
	struct recycled *spare;
};

static void *pool_refill(struct pool *pl, size_t n);

static inline void *pool_alloc(struct pool *pl, size_t n, size_t align)
{
	uintptr_t q = ((uintptr_t)pl->p + (align - 1)) & ~(uintptr_t)(align - 1);
	if (__builtin_expect(!pl->p || n > (size_t)(pl->end - pl->p) || q + n > (uintptr_t)pl->end, 0))
		return pool_refill(pl, n);
	pl->p = (char *)(q + n);
	return (void *)q;
}

/* A new block (or, for large n, memory of its own); 16-aligned. */
static void *pool_refill(struct pool *pl, size_t n)
{
	if (n > POOL_BLOCK / 4)
		return arena_alloc(pl->a, n); /* zeroed, 16-aligned */
	if (pl->spare) {
		struct recycled *r = pl->spare;
		size_t size = r->size;
		pl->spare = r->next;
		pl->p = memset(r, 0, size);
		pl->end = pl->p + size;
	} else {
		pl->p = arena_alloc(pl->a, POOL_BLOCK);
		pl->end = pl->p + POOL_BLOCK;
	}
	void *q = pl->p;
	pl->p += n;
	return q;
}

/* in's own struct hlo_instr_ext (zeroed, from the pool) */
static struct hlo_instr_ext *ext_of(struct pool *pl, struct hlo_instruction *in)
{
	if (in->ext == HLO_NO_EXT)
		in->ext = pool_alloc(pl, sizeof(*in->ext), 8);
	return in->ext;
}

/* Scratch arrays come from the arena (zeroed, 16-aligned). */
static void *scratch_alloc(struct pool *pl, size_t n, size_t size)
{
	void *p = arena_array(pl->a, n, size);
	if (!p)
		die("out of memory (scratch array of %zu x %zu bytes)", n, size);
	return p;
}

/* p (from scratch_alloc, n bytes) is no longer used: blocks of at least
 * POOL_BLOCK bytes are handed to the pool; smaller ones are left. */
static void scratch_recycle(struct pool *pl, void *p, size_t n)
{
	if (n < POOL_BLOCK)
		return;
	struct recycled *r = p;
	r->size = n & ~(size_t)15;
	r->next = pl->spare;
	pl->spare = r;
}

static void *pool_array(struct pool *pl, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size / 2)
		die("allocation of %zu x %zu bytes overflows", n, size);
	size_t align = size >= 8 ? 8 : size >= 4 ? 4 : 1;
	return pool_alloc(pl, n && size ? n * size : 1, align);
}

static char *pool_strndup(struct pool *pl, const char *s, size_t n)
{
	char *p = pool_alloc(pl, n + 1, 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* ---- scratch vectors (reused) ----------------------------------------- */

struct vec {
	char *v;
	size_t n, cap; /* in elements */
	size_t size;   /* element size */
	struct pool *pl;
};

static void vec_grow(struct vec *x)
{
	size_t cap = x->cap ? x->cap * 2 : 64;
	char *v = scratch_alloc(x->pl, cap, x->size);
	if (x->n)
		memcpy(v, x->v, x->n * x->size);
	if (x->v)
		scratch_recycle(x->pl, x->v, x->cap * x->size);
	x->v = v;
	x->cap = cap;
}

/* Empty x and reuse its array for elements of another size: the capacity is
 * recounted in the new elements (keeping it would overrun the array when
 * the new elements are larger). */
static void vec_reset(struct vec *x, size_t size)
{
	x->cap = x->cap * x->size / size;
	x->size = size;
	x->n = 0;
}

static inline void *vec_push(struct vec *x)
{
	if (__builtin_expect(x->n == x->cap, 0))
		vec_grow(x);
	void *p = x->v + x->n * x->size;
	x->n++;
	return p;
}

#define VEC_AT(x, T, i) (((T *)(x)->v)[i])

/* Elements [base, n) of a scratch vector copied into the pool; NULL if none. */
static void *vec_copy(struct pool *pl, const struct vec *x, size_t base)
{
	size_t n = x->n - base;
	if (!n)
		return NULL;
	void *p = pool_array(pl, n, x->size);
	memcpy(p, x->v + base * x->size, n * x->size);
	return p;
}

/* ---- hash tables with generation stamps (reset in O(1)) ------------------ */

struct hslot {
	const char *k;
	uint32_t len, gen;
	uint64_t h;
	void *v;
};

struct htab {
	struct hslot *s;
	uint32_t mask, n, gen;
	struct pool *pl;
};

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0x100000001b3ull);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	/* the last 0..7 bytes, read without a byte loop or reading past p + n */
	uint64_t w = 0;
	if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		w = a | (uint64_t)b << 32;
	} else if (n) {
		w = (uint64_t)(unsigned char)p[0] | (uint64_t)(unsigned char)p[n / 2] << 8 |
		    (uint64_t)(unsigned char)p[n - 1] << 16;
	}
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

static void ht_init(struct htab *t, struct pool *pl, uint32_t cap)
{
	t->s = scratch_alloc(pl, cap, sizeof(*t->s));
	t->mask = cap - 1;
	t->n = 0;
	t->gen = 1;
	t->pl = pl;
}

static struct hslot *ht_find(const struct htab *t, const char *k, uint32_t len, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		struct hslot *s = &t->s[i];
		if (s->gen != t->gen)
			return s;
		if (s->h == h && s->len == len && memcmp(s->k, k, len) == 0)
			return s;
	}
}

static inline void *ht_get(const struct htab *t, const char *k, uint32_t len, uint64_t h)
{
	struct hslot *s = ht_find(t, k, len, h);
	return s->gen == t->gen ? s->v : NULL;
}

static void ht_put_at(struct htab *t, struct hslot *s, const char *k, uint32_t len, uint64_t h, void *v)
{
	*s = (struct hslot){k, len, t->gen, h, v};
	if (++t->n * 2 <= t->mask + 1)
		return;
	struct htab nt;
	if (t->mask >= (1u << 30))
		die("hash table too large");
	ht_init(&nt, t->pl, (t->mask + 1) * 2);
	nt.gen = t->gen;
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->s[i].gen == t->gen)
			*ht_find(&nt, t->s[i].k, t->s[i].len, t->s[i].h) = t->s[i];
	nt.n = t->n;
	scratch_recycle(t->pl, t->s, (size_t)(t->mask + 1) * sizeof(*t->s));
	*t = nt;
}

/* Fixed words (opcodes, element types, attribute names): a small table
 * keyed by a cheap hash of the length and the first and last bytes, so a
 * lookup costs a few instructions and one compare (~250 words in 512
 * slots). Entries are 1-based
 * indexes into the caller's word list; collisions probe linearly. */
#define KW_BITS 9
struct kwtab {
	const char *word[1u << KW_BITS];
	uint8_t len[1u << KW_BITS];
	uint16_t val[1u << KW_BITS];
};

static inline uint32_t kw_hash(const char *s, size_t n)
{
	uint32_t a, b;
	if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
	} else {
		a = n ? (unsigned char)s[0] | (uint32_t)(unsigned char)s[n / 2] << 8 : 0;
		b = n ? (unsigned char)s[n - 1] : 0;
	}
	uint32_t h = (a * 0x9e3779b1u) ^ (b * 0x85ebca77u) ^ ((uint32_t)n * 0xc2b2ae3du);
	return (h ^ (h >> 15)) >> (32 - KW_BITS);
}

static void kw_put(struct kwtab *t, const char *w, uint16_t val)
{
	size_t n = strlen(w);
	uint32_t i = kw_hash(w, n);
	while (t->word[i])
		i = (i + 1) & ((1u << KW_BITS) - 1);
	t->word[i] = w;
	t->len[i] = (uint8_t)n;
	t->val[i] = val;
}

/* val of word s, or 0 */
static inline unsigned kw_get(const struct kwtab *t, const char *s, size_t n)
{
	for (uint32_t i = kw_hash(s, n);; i = (i + 1) & ((1u << KW_BITS) - 1)) {
		if (!t->word[i])
			return 0;
		if (t->len[i] == n && memcmp(t->word[i], s, n) == 0)
			return t->val[i];
	}
}

/* Instruction names of the computation being parsed. Slots are 8 bytes, a
 * 32-bit hash tag and gid + 1, so big computations stay cache-resident. A
 * slot whose gid is below the computation's first gid belongs to an earlier
 * computation and counts as empty: starting a computation costs nothing. */
struct ntab {
	uint64_t *s;
	uint32_t mask, n;
	int32_t first_gid;
	struct pool *pl;
	/* names only: a computation starts in the small table, which stays in
	 * L1 (most computations have a few dozen instructions), and moves to
	 * the big one, which grows as needed, when it outgrows it */
	uint64_t *small, *big;
	uint32_t big_mask;
};

#define NT_SMALL 256

static void nt_init(struct ntab *t, struct pool *pl, uint32_t cap)
{
	t->s = scratch_alloc(pl, cap, sizeof(*t->s));
	t->mask = cap - 1;
	t->n = 0;
	t->first_gid = 0;
	t->pl = pl;
}

/* ---- attribute names the parser types -------------------------------- */

enum akind {
	A_OTHER = 0,
	A_TO_APPLY, A_CALLS, A_CONDITION, A_BODY, A_BRANCHES, A_TRUE, A_FALSE, A_CALLED,
	A_INDEX, A_DIMENSIONS, A_SLICE, A_DYNAMIC_SLICE_SIZES, A_OUT_ALIASING,
	A_CUSTOM_CALL_TARGET, A_OPERAND_LAYOUT_CONSTRAINTS, A_FRONTEND_ATTRIBUTES,
	A_BACKEND_CONFIG, A_KIND, A_CONTROL_PREDECESSORS, A_METADATA,
	A_NTYPED,
	/* known names, kept raw; listed so attr->name can point at a constant */
	A_RAW_KNOWN = A_NTYPED,
};

static const struct {
	const char *name;
	uint8_t kind;
} attr_table[] = {
	{"to_apply", A_TO_APPLY}, {"calls", A_CALLS}, {"condition", A_CONDITION},
	{"body", A_BODY}, {"branch_computations", A_BRANCHES},
	{"true_computation", A_TRUE}, {"false_computation", A_FALSE},
	{"called_computations", A_CALLED}, {"index", A_INDEX}, {"dimensions", A_DIMENSIONS},
	{"slice", A_SLICE}, {"dynamic_slice_sizes", A_DYNAMIC_SLICE_SIZES},
	{"output_to_operand_aliasing", A_OUT_ALIASING},
	{"custom_call_target", A_CUSTOM_CALL_TARGET},
	{"operand_layout_constraints", A_OPERAND_LAYOUT_CONSTRAINTS},
	{"frontend_attributes", A_FRONTEND_ATTRIBUTES}, {"backend_config", A_BACKEND_CONFIG},
	{"kind", A_KIND}, {"control-predecessors", A_CONTROL_PREDECESSORS},
	{"metadata", A_METADATA},
	{"sharding", A_RAW_KNOWN}, {"direction", A_RAW_KNOWN}, {"replica_groups", A_RAW_KNOWN},
	{"channel_id", A_RAW_KNOWN}, {"use_global_device_ids", A_RAW_KNOWN},
	{"lhs_contracting_dims", A_RAW_KNOWN}, {"rhs_contracting_dims", A_RAW_KNOWN},
	{"lhs_batch_dims", A_RAW_KNOWN}, {"rhs_batch_dims", A_RAW_KNOWN},
	{"index_vector_dim", A_RAW_KNOWN}, {"iota_dimension", A_RAW_KNOWN},
	{"update_window_dims", A_RAW_KNOWN}, {"inserted_window_dims", A_RAW_KNOWN},
	{"scatter_dims_to_operand_dims", A_RAW_KNOWN}, {"window", A_RAW_KNOWN},
	{"dim_labels", A_RAW_KNOWN}, {"api_version", A_RAW_KNOWN}, {"padding", A_RAW_KNOWN},
	{"slice_sizes", A_RAW_KNOWN}, {"start_index_map", A_RAW_KNOWN},
	{"offset_dims", A_RAW_KNOWN}, {"collapsed_slice_dims", A_RAW_KNOWN},
	{"indices_are_sorted", A_RAW_KNOWN}, {"unique_indices", A_RAW_KNOWN},
	{"feature_index", A_RAW_KNOWN}, {"epsilon", A_RAW_KNOWN}, {"is_stable", A_RAW_KNOWN},
	{"strides", A_RAW_KNOWN}, {"limit_indices", A_RAW_KNOWN}, {"start_indices", A_RAW_KNOWN},
	{"feature_group_count", A_RAW_KNOWN}, {"batch_group_count", A_RAW_KNOWN},
	{"operand_precision", A_RAW_KNOWN}, {"custom_call_has_side_effect", A_RAW_KNOWN},
	{"source_target_pairs", A_RAW_KNOWN}, {"async_execution_thread", A_RAW_KNOWN},
	{"async_group_id", A_RAW_KNOWN}, {"is_host_transfer", A_RAW_KNOWN},
	{"distribution", A_RAW_KNOWN}, {"fft_type", A_RAW_KNOWN}, {"fft_lengths", A_RAW_KNOWN},
	{"exponent_bits", A_RAW_KNOWN}, {"mantissa_bits", A_RAW_KNOWN},
	{"split_dimension", A_RAW_KNOWN}, {"constrain_layout", A_RAW_KNOWN},
	{"statistics", A_RAW_KNOWN}, {"origin", A_RAW_KNOWN}, {"parameter_replication", A_RAW_KNOWN},
	{"scatter_indices_batching_dims", A_RAW_KNOWN}, {"input_batching_dims", A_RAW_KNOWN},
	{"largest", A_RAW_KNOWN}, {"k", A_RAW_KNOWN}, {"rng_algorithm", A_RAW_KNOWN},
	{"left_side", A_RAW_KNOWN}, {"lower", A_RAW_KNOWN}, {"unit_diagonal", A_RAW_KNOWN},
	{"transpose_a", A_RAW_KNOWN}, {"schedule", A_RAW_KNOWN}, {"type", A_RAW_KNOWN},
	{"result_accuracy", A_RAW_KNOWN}, {"padding_type", A_RAW_KNOWN},
	{"infeed_config", A_RAW_KNOWN}, {"outfeed_config", A_RAW_KNOWN},
	{"outfeed_shape", A_RAW_KNOWN}, {"algorithm", A_RAW_KNOWN},
};

/* ---- parser state -------------------------------------------------------- */

enum refkind { R_TO_APPLY, R_CALLS, R_CONDITION, R_BODY, R_BRANCH, R_TRUE, R_FALSE, R_CALLED };

/* Computation references keep the name's place in the text, not a srcpos:
 * a position is only needed for an undefined name (pos_in_text). */
struct ref {                /* a computation named by an attribute */
	uint8_t kind;
	const char *name;
	uint32_t len;
};

struct fixup {              /* resolved after the whole file is read */
	struct hlo_instruction *instr;
	const char *name;
	uint32_t len;
	int32_t called_index;
	int32_t branch_index;   /* -1 unless the ref fills a branch */
	uint8_t kind;
};

struct async_refs {         /* where an async op's computation refs are */
	int32_t gid;
	uint32_t first, n;      /* in pctx.fixups */
};

struct pending {            /* an operand read but not yet resolved */
	struct token tok;
	uint64_t h;
	struct shape *shape;
	struct srcpos shape_pos;
};

struct pctx {
	struct hlo_module *m;
	struct diag *d;
	struct pool pool;
	int failed;
	int32_t n_instrs;
	struct ntab names;      /* instruction names of the current computation */
	struct vec callers;     /* struct hlo_instruction * that call computations */
	size_t n_succs;         /* sum of the control successor counts in a computation */
	struct vec uses;        /* struct hlo_use of the current computation */
	struct vec ucount;      /* int32 per instruction of the computation: users */
	struct vec ulast;       /* int32 per instruction: index of its last user */
	struct ntab comps;      /* computation names: tag and index + 1 in comp_list */
	struct htab shapes;     /* shape text -> struct shape * */
	struct htab strs;       /* interned strings (op_name, source_file) */
	struct kwtab *ops, *types, *attrs;
	struct vec instrs;      /* struct hlo_instruction * of the current computation */
	struct vec inames;      /* their names (const char *) */
	struct vec params;      /* its parameter instructions */
	struct pool names_pool; /* instruction names, packed together */
	struct vec comp_list;   /* struct hlo_computation * */
	struct vec ptrs;        /* operand / control-predecessor stack */
	struct vec pending;     /* struct pending */
	struct vec async;       /* struct async_refs, in gid order */
	struct vec shape_stack; /* struct shape, tuple elements under construction */
	struct vec ints;        /* int64_t lists */
	struct vec attr_list;   /* struct hlo_attr of the current instruction */
	struct vec refs;        /* struct ref of the current instruction */
	struct vec fixups;      /* struct fixup */
	struct vec misc;        /* other small lists (slices, aliases, kvs) */
	uint32_t seen_gen;      /* duplicate attribute detection */
	uint32_t seen[A_NTYPED];
};

struct parser {
	struct pctx *c;
	struct lexer lx;
	struct token tok;
	const char *prev_end;   /* end of the previous token */
};

static int perr(struct parser *P, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *P, struct srcpos pos, const char *fmt, ...)
{
	if (P->c->failed)
		return -1;
	P->c->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	verror_at(P->c->d, pos, fmt, ap);
	va_end(ap);
	return -1;
}

static inline struct srcpos here(const struct parser *P)
{
	return tok_pos(&P->lx, &P->tok);
}

static inline void next(struct parser *P)
{
	P->prev_end = P->tok.p + P->tok.len;
	if (lex_next(&P->lx, &P->tok) == TOK_ERROR)
		P->c->failed = 1;
}

/* After a raw scan the lexer is past the raw text: the previous token ends
 * there (shape interning compares the shape's end with prev_end). */
static inline void next_after_raw(struct parser *P)
{
	P->tok.p = P->lx.cur;
	P->tok.len = 0;
	next(P);
}

static int expected(struct parser *P, const char *what)
{
	if (P->tok.kind == TOK_ERROR || P->c->failed)
		return -1;
	char buf[80];
	tok_describe(&P->tok, buf, sizeof(buf));
	return perr(P, here(P), "expected %s but found %s", what, buf);
}

static int expect(struct parser *P, enum tok k, const char *what)
{
	if (P->tok.kind != k)
		return expected(P, what);
	next(P);
	return 0;
}

static inline int is_name_tok(const struct token *t)
{
	return t->kind == TOK_NAME || t->kind == TOK_IDENT;
}

/* A sub-parser over the raw span [vs, ve) that starts at lexer state `at`. */
static void sub_parser(struct parser *S, const struct parser *P, const struct lexer *at, const char *ve)
{
	S->c = P->c;
	S->lx = *at;
	S->lx.end = ve;
	/* next() reads the current token to set prev_end: start from an empty
	 * one at the span's start (an uninitialized one is undefined behaviour) */
	S->tok = (struct token){0};
	S->tok.p = at->cur;
	S->prev_end = at->cur;
	next(S);
}

static int expect_end(struct parser *S, const char *attr)
{
	if (S->tok.kind == TOK_EOF)
		return 0;
	if (S->tok.kind == TOK_ERROR || S->c->failed)
		return -1;
	char buf[80];
	tok_describe(&S->tok, buf, sizeof(buf));
	return perr(S, here(S), "unexpected %s in the value of '%s'", buf, attr);
}

static int parse_int(struct parser *P, int64_t *out)
{
	if (P->tok.kind != TOK_INT)
		return expected(P, "an integer");
	const char *s = P->tok.p, *e = s + P->tok.len;
	int neg = *s == '-';
	uint64_t v = 0;
	for (s += neg; s < e; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			goto range;
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		goto range;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	next(P);
	return 0;
range:
	return perr(P, here(P), "integer '%.*s' is out of range", (int)P->tok.len, P->tok.p);
}

static int parse_int_range(struct parser *P, int64_t lo, int64_t hi, const char *what, int64_t *out)
{
	struct srcpos at = here(P);
	if (parse_int(P, out) < 0)
		return -1;
	if (*out < lo || *out > hi)
		return perr(P, at, "%s %lld is out of range", what, (long long)*out);
	return 0;
}

/* Decode a quoted string token's text (C escapes) into the pool. */
static char *unescape(struct pool *pl, const char *s, size_t n)
{
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	if (!memchr(s, '\\', n))
		return pool_strndup(pl, s, n);
	char *out = pool_alloc(pl, n + 1, 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c != '\\' || i + 1 >= n) {
			*o++ = c;
			continue;
		}
		c = s[++i];
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'a': *o++ = '\a'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'v': *o++ = '\v'; break;
		case 'x': {
			unsigned v = 0;
			int k = 0;
			while (k < 2 && i + 1 < n && strchr("0123456789abcdefABCDEF", s[i + 1]) && s[i + 1]) {
				char h = s[++i];
				v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
				k++;
			}
			*o++ = (char)v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				unsigned v = (unsigned)(c - '0');
				for (int k = 1; k < 3 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; k++)
					v = v * 8 + (unsigned)(s[++i] - '0');
				*o++ = (char)v;
			} else {
				*o++ = c; /* \\ \" \' \? and unknown escapes */
			}
			break;
		}
	}
	*o = 0;
	return out;
}

/* ---- shapes -------------------------------------------------------------- */

static int layout_follows(const struct parser *P)
{
	/* P->tok is '{' after a shape's ']': it opens a layout only if the next
	 * byte starts one (digit, ':' or '}'); otherwise it is a body brace. */
	const char *p = P->lx.cur, *e = P->lx.end;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p < e && ((*p >= '0' && *p <= '9') || *p == ':' || *p == '}');
}

/* Bytes shape_span_end looks at: brackets, and what ends its search. */
enum { SPAN_OPEN = 1, SPAN_CLOSE = 2, SPAN_STOP = 3, SPAN_SLASH = 4 };
static const unsigned char span_class[256] = {
	['('] = SPAN_OPEN, ['['] = SPAN_OPEN, ['{'] = SPAN_OPEN,
	[')'] = SPAN_CLOSE, [']'] = SPAN_CLOSE, ['}'] = SPAN_CLOSE,
	['"'] = SPAN_STOP, ['\''] = SPAN_STOP, ['\n'] = SPAN_STOP, ['\0'] = SPAN_STOP,
	['/'] = SPAN_SLASH,
};

/* The end of the balanced group opening at p (one past its closer), or
 * NULL at a quote, newline or NUL (or '/' with stop_slash), when nested
 * deeper than HLO_MAX_NESTING, or when the outermost closer is not `close`.
 * Tuples keep their comments (XLA prints an index comment every five
 * elements of a long one): a span is only a lookup key, and a text found in
 * the table always parses whole. */
static const char *group_end(const char *p, const char *e, char close, int stop_slash)
{
	int depth = 0;
	for (; p < e; p++) {
		unsigned k = span_class[(unsigned char)*p];
		if (!k)
			continue;
		if (k == SPAN_OPEN) {
			if (++depth > HLO_MAX_NESTING)
				return NULL;
		} else if (k == SPAN_CLOSE) {
			if (--depth == 0)
				return *p == close ? p + 1 : NULL;
		} else if (k == SPAN_STOP || stop_slash) {
			return NULL;
		}
	}
	return NULL;
}

/* Where the shape text starting at s ends, found cheaply so the text can be
 * looked up before parsing; NULL if unsure (the real parse then decides).
 * A span never holds a newline. */
static const char *shape_span_end(const char *s, const char *e)
{
	const char *p = s;
	if (p < e && *p == '(')
		return group_end(p, e, ')', 0);
	while (p < e && lex_is_ident_char((unsigned char)*p))
		p++;
	if (p == s)
		return NULL;
	if (p >= e)
		return p;
	if (*p == '(')
		return NULL; /* b(...) buffer shapes are not shared */
	if (*p != '[')
		return p;
	for (p++; p < e && *p != ']'; p++)
		if (*p == '\n')
			return NULL;
	if (p >= e)
		return NULL;
	p++;
	const char *r = p;
	while (r < e && (*r == ' ' || *r == '\t'))
		r++;
	if (r >= e || *r != '{')
		return p;
	const char *t = r + 1;
	while (t < e && (*t == ' ' || *t == '\t'))
		t++;
	if (!(t < e && ((*t >= '0' && *t <= '9') || *t == ':' || *t == '}')))
		return p;
	return group_end(r, e, '}', 1);
}

static struct shape *parse_shape(struct parser *P, int depth);

/* Layout extensions after ':' (kept verbatim in layout.ext); E(n) and S(n)
 * are also decoded. Items: letters or '#'/'*', then one or more (...) groups. */
static int parse_layout_ext(struct parser *P, struct srcpos at, struct layout *l, const char *s, const char *e)
{
	const char *p = s;
	while (p < e) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p >= e)
			break;
		const char *nm = p;
		if (*p == '#' || *p == '*')
			p++;
		else
			while (p < e && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
				p++;
		size_t nlen = (size_t)(p - nm);
		if (nlen == 0 || p >= e || *p != '(')
			return perr(P, at, "malformed layout '%.*s'", (int)(e - s), s);
		int groups = 0;
		while (p < e && *p == '(') {
			const char *g = p + 1;
			int depth = 0;
			for (; p < e; p++) {
				if (*p == '(')
					depth++;
				else if (*p == ')' && --depth == 0)
					break;
			}
			if (p >= e)
				return perr(P, at, "malformed layout '%.*s'", (int)(e - s), s);
			if (groups++ == 0 && nlen == 1 && (*nm == 'E' || *nm == 'S')) {
				int64_t v = 0;
				const char *q = g;
				if (q == p)
					return perr(P, at, "malformed layout '%.*s'", (int)(e - s), s);
				for (; q < p; q++) {
					if (*q < '0' || *q > '9' || v > 1000000)
						return perr(P, at, "malformed layout '%.*s'", (int)(e - s), s);
					v = v * 10 + (*q - '0');
				}
				if (*nm == 'E') {
					l->element_size_bits = (int32_t)v;
				} else {
					if (v > INT16_MAX)
						return perr(P, at, "memory space %lld is out of range", (long long)v);
					l->memory_space = (int16_t)v;
				}
			}
			p++;
		}
	}
	return 0;
}

static int parse_layout(struct parser *P, struct shape *sh)
{
	struct srcpos at = here(P);
	int32_t m2m[SHAPE_MAX_RANK];
	int n = 0;
	next(P); /* '{' */
	while (P->tok.kind == TOK_INT) {
		int64_t v;
		struct srcpos vp = here(P);
		if (parse_int(P, &v) < 0)
			return -1;
		if (n >= SHAPE_MAX_RANK)
			return perr(P, vp, "layout has more than %d dimensions", SHAPE_MAX_RANK);
		if (v < 0 || v >= sh->rank)
			return perr(P, vp, "layout entry %lld is not a dimension of a rank-%d shape",
				    (long long)v, sh->rank);
		m2m[n++] = (int32_t)v;
		if (P->tok.kind != TOK_COMMA)
			break;
		next(P);
	}
	struct layout *l = &sh->layout;
	if (P->tok.kind == TOK_COLON) {
		const char *vs, *ve;
		if (lex_raw_until(&P->lx, '}', &vs, &ve) < 0) {
			P->c->failed = 1;
			return -1;
		}
		if (parse_layout_ext(P, at, l, vs, ve) < 0)
			return -1;
		if (ve > vs)
			l->ext = pool_strndup(&P->c->pool, vs, (size_t)(ve - vs));
		next_after_raw(P);
	} else if (expect(P, TOK_RBRACE, "'}' to close the layout") < 0) {
		return -1;
	}
	if (n != sh->rank)
		return perr(P, at, "layout has %d dimensions but the shape has rank %d", n, sh->rank);
	uint64_t seen = 0;
	for (int i = 0; i < n; i++) {
		if (seen & (1ull << m2m[i]))
			return perr(P, at, "layout minor_to_major is not a permutation of 0..%d", n - 1);
		seen |= 1ull << m2m[i];
	}
	l->n_m2m = (int16_t)n;
	l->minor_to_major = pool_array(&P->c->pool, (size_t)n, sizeof(int32_t));
	memcpy(l->minor_to_major, m2m, (size_t)n * sizeof(int32_t));
	sh->flags |= SHAPE_HAS_LAYOUT;
	return 0;
}

static int parse_shape_into(struct parser *P, struct shape *out, int depth)
{
	struct pctx *c = P->c;
	struct srcpos at = here(P);
	memset(out, 0, sizeof(*out));
	out->layout.n_m2m = -1;
	if (depth >= SHAPE_MAX_DEPTH || depth >= HLO_MAX_NESTING)
		return perr(P, at, "shape nested deeper than %d", HLO_MAX_NESTING);
	if (P->tok.kind == TOK_LPAREN) {
		next(P);
		size_t base = c->shape_stack.n;
		if (P->tok.kind != TOK_RPAREN) {
			for (;;) {
				struct shape *el = parse_shape(P, depth + 1);
				if (!el)
					return -1;
				*(struct shape *)vec_push(&c->shape_stack) = *el;
				if (c->shape_stack.n - base > SHAPE_MAX_TUPLE)
					return perr(P, at, "tuple has more than %d elements", SHAPE_MAX_TUPLE);
				if (P->tok.kind == TOK_COMMA) {
					next(P);
					continue;
				}
				if (P->tok.kind != TOK_RPAREN)
					return expected(P, "',' or ')' in tuple shape");
				break;
			}
		}
		next(P);
		size_t n = c->shape_stack.n - base;
		out->type = PT_TUPLE;
		out->n_elems = (int32_t)n;
		out->elems = vec_copy(&c->pool, &c->shape_stack, base);
		c->shape_stack.n = base;
		shape_compute_sizes(out);
		return 0;
	}
	if (P->tok.kind != TOK_IDENT)
		return expected(P, "a shape");
	if (TOK_IS(&P->tok, "b") && P->lx.cur < P->lx.end && *P->lx.cur == '(') {
		next(P);
		next(P);
		struct shape *in = parse_shape(P, depth + 1);
		if (!in)
			return -1;
		*out = *in;
		out->flags |= SHAPE_BUFFER;
		return expect(P, TOK_RPAREN, "')' to close the buffer shape");
	}
	enum ptype t = (enum ptype)kw_get(c->types, P->tok.p, P->tok.len);
	if (t == PT_INVALID)
		return perr(P, at, "unknown element type '%.*s'", (int)P->tok.len, P->tok.p);
	out->type = (uint8_t)t;
	next(P);
	if ((t == PT_TOKEN || t == PT_OPAQUE) && P->tok.kind != TOK_LBRACKET)
		return 0;
	if (expect(P, TOK_LBRACKET, "'[' after the element type") < 0)
		return -1;
	int64_t dims[SHAPE_MAX_RANK];
	uint8_t kinds[SHAPE_MAX_RANK];
	int rank = 0, dynamic = 0;
	while (P->tok.kind != TOK_RBRACKET) {
		struct srcpos dp = here(P);
		if (rank >= SHAPE_MAX_RANK)
			return perr(P, dp, "shape has more than %d dimensions", SHAPE_MAX_RANK);
		kinds[rank] = DIM_STATIC;
		if (P->tok.kind == TOK_QUESTION) {
			kinds[rank] = DIM_UNBOUNDED;
			dims[rank] = -1;
			dynamic = 1;
			next(P);
		} else {
			if (P->tok.kind == TOK_LEQ) {
				kinds[rank] = DIM_BOUNDED;
				dynamic = 1;
				next(P);
			}
			if (parse_int_range(P, 0, INT64_MAX, "dimension", &dims[rank]) < 0)
				return -1;
		}
		rank++;
		if (P->tok.kind == TOK_COMMA)
			next(P);
		else if (P->tok.kind != TOK_RBRACKET)
			return expected(P, "',' or ']' in dimensions");
	}
	next(P);
	if (t == PT_TOKEN || t == PT_OPAQUE) {
		if (rank)
			return perr(P, at, "%s shape cannot have dimensions", ptype_name(t));
	}
	out->rank = (uint8_t)rank;
	out->dims = pool_array(&c->pool, (size_t)rank, sizeof(int64_t));
	memcpy(out->dims, dims, (size_t)rank * sizeof(int64_t));
	if (dynamic) {
		out->dim_kinds = pool_array(&c->pool, (size_t)rank, 1);
		memcpy(out->dim_kinds, kinds, (size_t)rank);
	}
	if (P->tok.kind == TOK_LBRACE && layout_follows(P) && parse_layout(P, out) < 0)
		return -1;
	if (shape_compute_sizes(out) < 0)
		return perr(P, at, "shape byte size overflows");
	return 0;
}

/* Parse a shape at P->tok, sharing the struct with earlier identical text. */
static struct shape *parse_shape(struct parser *P, int depth)
{
	struct pctx *c = P->c;
	const char *s = P->tok.p;
	const char *e = (P->tok.kind == TOK_LPAREN || P->tok.kind == TOK_IDENT)
				? shape_span_end(s, P->lx.end) : NULL;
	struct hslot *slot = NULL;
	uint64_t h = 0;
	if (e) {
		h = hash_bytes(s, (size_t)(e - s));
		slot = ht_find(&c->shapes, s, (uint32_t)(e - s), h);
		if (slot->gen == c->shapes.gen) {
			P->lx.cur = e; /* a span holds no newline (shape_span_end) */
			P->tok.p = e;
			P->tok.len = 0;
			next(P);
			return slot->v;
		}
	}
	struct shape tmp;
	if (parse_shape_into(P, &tmp, depth) < 0)
		return NULL;
	struct shape *sh = pool_alloc(&c->pool, sizeof(*sh), 8);
	*sh = tmp;
	if (e && P->prev_end == e)
		ht_put_at(&c->shapes, ht_find(&c->shapes, s, (uint32_t)(e - s), h), s,
			  (uint32_t)(e - s), h, sh);
	return sh;
}

static inline int shape_starts(const struct parser *P)
{
	if (P->tok.kind == TOK_LPAREN)
		return 1;
	if (P->tok.kind != TOK_IDENT || P->lx.cur >= P->lx.end)
		return 0;
	char n = *P->lx.cur;
	return n == '[' || (n == '(' && TOK_IS(&P->tok, "b"));
}

/* ---- small typed attribute values ------------------------------------- */

static int parse_shape_index(struct parser *P, struct shape_index *ix)
{
	struct pctx *c = P->c;
	if (expect(P, TOK_LBRACE, "'{' to start a shape index") < 0)
		return -1;
	size_t base = c->ints.n;
	while (P->tok.kind != TOK_RBRACE) {
		int64_t v;
		if (parse_int_range(P, 0, INT32_MAX, "shape index", &v) < 0)
			return -1;
		*(int64_t *)vec_push(&c->ints) = v;
		if (c->ints.n - base > HLO_MAX_NESTING)
			return perr(P, here(P), "shape index deeper than %d", HLO_MAX_NESTING);
		if (P->tok.kind == TOK_COMMA)
			next(P);
		else if (P->tok.kind != TOK_RBRACE)
			return expected(P, "',' or '}' in shape index");
	}
	next(P);
	ix->n = (int32_t)(c->ints.n - base);
	ix->idx = ix->n ? pool_array(&c->pool, (size_t)ix->n, sizeof(int32_t)) : NULL;
	for (int32_t i = 0; i < ix->n; i++)
		ix->idx[i] = (int32_t)VEC_AT(&c->ints, int64_t, base + (size_t)i);
	c->ints.n = base;
	return 0;
}

/* {a, b, c} of integers into a pool array. */
static int parse_int_list(struct parser *P, int64_t **out, int32_t *n)
{
	struct pctx *c = P->c;
	if (expect(P, TOK_LBRACE, "'{'") < 0)
		return -1;
	size_t base = c->ints.n;
	while (P->tok.kind != TOK_RBRACE) {
		int64_t v;
		if (parse_int(P, &v) < 0)
			return -1;
		*(int64_t *)vec_push(&c->ints) = v;
		if (P->tok.kind == TOK_COMMA)
			next(P);
		else if (P->tok.kind != TOK_RBRACE)
			return expected(P, "',' or '}'");
	}
	next(P);
	size_t k = c->ints.n - base;
	if (k > INT32_MAX)
		return perr(P, here(P), "list too long");
	*n = (int32_t)k;
	*out = vec_copy(&c->pool, &c->ints, base);
	c->ints.n = base;
	return 0;
}

/* ---- module header ------------------------------------------------------ */

static int parse_aliases(struct parser *S)
{
	struct pctx *c = S->c;
	struct hlo_module *m = c->m;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	vec_reset(&c->misc, sizeof(struct io_alias));
	while (S->tok.kind != TOK_RBRACE) {
		struct io_alias a = {.pos = here(S)};
		if (parse_shape_index(S, &a.output) < 0 || expect(S, TOK_COLON, "':'") < 0 ||
		    expect(S, TOK_LPAREN, "'('") < 0)
			return -1;
		int64_t p;
		if (parse_int_range(S, 0, INT32_MAX, "parameter number", &p) < 0)
			return -1;
		a.param = (int32_t)p;
		if (expect(S, TOK_COMMA, "','") < 0 || parse_shape_index(S, &a.param_index) < 0)
			return -1;
		if (S->tok.kind == TOK_COMMA) {
			next(S);
			if (TOK_IS(&S->tok, "must-alias"))
				a.kind = ALIAS_MUST;
			else if (TOK_IS(&S->tok, "may-alias"))
				a.kind = ALIAS_MAY;
			else
				return expected(S, "'may-alias' or 'must-alias'");
			next(S);
		}
		if (expect(S, TOK_RPAREN, "')'") < 0)
			return -1;
		*(struct io_alias *)vec_push(&c->misc) = a;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	m->n_aliases = (int32_t)c->misc.n;
	m->aliases = vec_copy(&c->pool, &c->misc, 0);
	return 0;
}

static int parse_donors(struct parser *S)
{
	struct pctx *c = S->c;
	struct hlo_module *m = c->m;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	vec_reset(&c->misc, sizeof(struct buffer_donor));
	while (S->tok.kind != TOK_RBRACE) {
		struct buffer_donor b = {.pos = here(S)};
		int64_t p;
		if (expect(S, TOK_LPAREN, "'('") < 0 ||
		    parse_int_range(S, 0, INT32_MAX, "parameter number", &p) < 0 ||
		    expect(S, TOK_COMMA, "','") < 0 || parse_shape_index(S, &b.param_index) < 0 ||
		    expect(S, TOK_RPAREN, "')'") < 0)
			return -1;
		b.param = (int32_t)p;
		*(struct buffer_donor *)vec_push(&c->misc) = b;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	m->n_donors = (int32_t)c->misc.n;
	m->donors = vec_copy(&c->pool, &c->misc, 0);
	return 0;
}

static int parse_entry_layout(struct parser *S)
{
	struct pctx *c = S->c;
	struct hlo_module *m = c->m;
	if (expect(S, TOK_LBRACE, "'{'") < 0 || expect(S, TOK_LPAREN, "'('") < 0)
		return -1;
	size_t base = c->ptrs.n;
	while (S->tok.kind != TOK_RPAREN) {
		struct shape *sh = parse_shape(S, 0);
		if (!sh)
			return -1;
		*(struct shape **)vec_push(&c->ptrs) = sh;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RPAREN)
			return expected(S, "',' or ')'");
	}
	next(S);
	size_t n = c->ptrs.n - base;
	m->n_entry_layout_params = (int32_t)n;
	m->entry_layout_params = vec_copy(&c->pool, &c->ptrs, base);
	c->ptrs.n = base;
	if (expect(S, TOK_ARROW, "'->'") < 0)
		return -1;
	if (!(m->entry_layout_result = parse_shape(S, 0)))
		return -1;
	m->has_entry_layout = 1;
	return expect(S, TOK_RBRACE, "'}'");
}

static int parse_bool(struct parser *S, uint8_t *out)
{
	if (TOK_IS(&S->tok, "true"))
		*out = 1;
	else if (TOK_IS(&S->tok, "false"))
		*out = 0;
	else
		return expected(S, "'true' or 'false'");
	next(S);
	return 0;
}

static int parse_header(struct parser *P)
{
	struct pctx *c = P->c;
	struct hlo_module *m = c->m;
	m->has_header = 1;
	m->pos = here(P);
	next(P); /* HloModule */
	if (!is_name_tok(&P->tok))
		return expected(P, "a module name");
	m->name = pool_strndup(&c->pool, P->tok.p, P->tok.len);
	next(P);
	vec_reset(&c->attr_list, sizeof(struct hlo_header_attr));
	while (P->tok.kind == TOK_COMMA) {
		next(P);
		if (P->tok.kind != TOK_ATTR)
			return expected(P, "a module attribute");
		struct token name = P->tok;
		struct lexer at = P->lx;
		const char *vs, *ve;
		if (lex_raw_value(&P->lx, &vs, &ve) < 0) {
			c->failed = 1;
			return -1;
		}
		struct hlo_header_attr *a = vec_push(&c->attr_list);
		a->name = pool_strndup(&c->pool, name.p, name.len);
		a->value = pool_strndup(&c->pool, vs, (size_t)(ve - vs));
		a->pos = tok_pos(&P->lx, &name);
		struct parser S;
		int rc = 0, typed = 1;
		sub_parser(&S, P, &at, ve);
		if (TOK_IS(&name, "is_scheduled"))
			rc = parse_bool(&S, &m->is_scheduled);
		else if (TOK_IS(&name, "input_output_alias")) {
			m->alias_pos = a->pos;
			rc = parse_aliases(&S);
		} else if (TOK_IS(&name, "buffer_donor")) {
			m->donor_pos = a->pos;
			rc = parse_donors(&S);
		} else if (TOK_IS(&name, "entry_computation_layout"))
			rc = parse_entry_layout(&S);
		else
			typed = 0;
		if (rc < 0 || (typed && expect_end(&S, a->name) < 0))
			return -1;
		next_after_raw(P);
	}
	m->n_header_attrs = (int32_t)c->attr_list.n;
	m->header_attrs = vec_copy(&c->pool, &c->attr_list, 0);
	vec_reset(&c->attr_list, sizeof(struct hlo_attr));
	return 0;
}

static int is_stack_table(const struct token *t)
{
	return t->kind == TOK_IDENT && (TOK_IS(t, "FileNames") || TOK_IS(t, "FunctionNames") ||
					TOK_IS(t, "FileLocations") || TOK_IS(t, "StackFrames"));
}

/* ---- stack frame tables ------------------------------------------------ */

static const char *intern(struct pctx *c, const char *vs, size_t n);

enum { ST_FILES, ST_FUNCS, ST_LOCS, ST_FRAMES };
#define ST_FIELDS 6

/* One row as read: its id and its string or its fields (ST_LOCS: the order
 * of loc_keys; ST_FRAMES: frame_keys). */
struct stack_row {
	int64_t id;
	const char *str;
	int64_t f[ST_FIELDS];
};

static const char *const loc_keys[] = {"file_name_id", "function_name_id", "line",
				       "end_line", "column", "end_column"};
static const char *const frame_keys[] = {"file_location_id", "parent_frame_id"};

static int table_of(const struct token *t)
{
	if (TOK_IS(t, "FileNames"))
		return ST_FILES;
	if (TOK_IS(t, "FunctionNames"))
		return ST_FUNCS;
	if (TOK_IS(t, "FileLocations"))
		return ST_LOCS;
	return ST_FRAMES;
}

/* The key=int fields of a braced row, the lexer `at` just after '{' and ve
 * the end of its text. A key not in `keys` is skipped (a later XLA may add
 * one); a value that is not an integer is an error, as for XLA's parser. */
static int parse_row_fields(struct parser *P, const struct lexer *at, const char *ve,
			    const char *const *keys, int nk, int64_t *f)
{
	struct parser S;
	sub_parser(&S, P, at, ve);
	while (S.tok.kind != TOK_EOF) {
		if (S.tok.kind == TOK_COMMA) {
			next(&S);
			continue;
		}
		if (S.tok.kind != TOK_ATTR)
			return expected(&S, "a field 'name=' in the stack frame table");
		struct token key = S.tok;
		next(&S);
		int64_t v;
		if (parse_int(&S, &v) < 0)
			return -1;
		for (int k = 0; k < nk; k++)
			if (tok_is(&key, keys[k], strlen(keys[k])))
				f[k] = v;
	}
	return 0;
}

static int32_t id32(int64_t v)
{
	return v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
}

/* The rows of one table into the module's index: arrays of as many entries
 * as rows, row id k at k - 1; a row whose id is out of 1..rows (XLA prints
 * them 1, 2, ... in order) or repeats one is dropped. */
static void store_table(struct pctx *c, int t, const struct stack_row *rows, size_t n)
{
	struct hlo_stack_index *x = &c->m->stack;
	if (!n)
		return;
	int32_t cnt = (int32_t)n;
	if (t == ST_FILES || t == ST_FUNCS) {
		const char **a = pool_array(&c->pool, n, sizeof(*a));
		memset(a, 0, n * sizeof(*a));
		for (size_t i = 0; i < n; i++)
			if (rows[i].id >= 1 && rows[i].id <= cnt && rows[i].str && !a[rows[i].id - 1])
				a[rows[i].id - 1] = rows[i].str;
		if (t == ST_FILES)
			x->files = a, x->n_files = cnt;
		else
			x->functions = a, x->n_functions = cnt;
	} else if (t == ST_LOCS) {
		struct hlo_file_location *a = pool_array(&c->pool, n, sizeof(*a));
		memset(a, 0, n * sizeof(*a));
		for (size_t i = 0; i < n; i++) {
			const struct stack_row *r = &rows[i];
			if (r->id < 1 || r->id > cnt || a[r->id - 1].file)
				continue;
			a[r->id - 1] = (struct hlo_file_location){id32(r->f[0]), id32(r->f[1]),
				id32(r->f[2]), id32(r->f[3]), id32(r->f[4]), id32(r->f[5])};
		}
		x->locations = a, x->n_locations = cnt;
	} else {
		/* jaxlib prints parent_frame_id one above the proto's (a root frame
		 * shows 1, and frame k called from frame k - 1 shows k); the proto's
		 * builder only ever gives a frame a parent made before it, so a
		 * parent >= the frame's own id means the shifted form: undo it for
		 * the whole table. Otherwise the printed id is the parent, 0 none. */
		int shifted = 0;
		for (size_t i = 0; i < n; i++)
			if (rows[i].f[1] >= rows[i].id && rows[i].id >= 1)
				shifted = 1;
		struct hlo_stack_frame *a = pool_array(&c->pool, n, sizeof(*a));
		memset(a, 0, n * sizeof(*a));
		for (size_t i = 0; i < n; i++) {
			const struct stack_row *r = &rows[i];
			if (r->id < 1 || r->id > cnt || a[r->id - 1].location)
				continue;
			int32_t parent = id32(r->f[1] - shifted);
			a[r->id - 1] = (struct hlo_stack_frame){id32(r->f[0]), parent <= cnt ? parent : 0};
		}
		x->frames = a, x->n_frames = cnt;
	}
}

/* FileNames / FunctionNames / FileLocations / StackFrames: kept raw for the
 * printer, and parsed into m->stack. */
static int parse_stack_tables(struct parser *P)
{
	struct pctx *c = P->c;
	const char *start = P->tok.p;
	while (is_stack_table(&P->tok)) {
		int t = table_of(&P->tok);
		vec_reset(&c->misc, sizeof(struct stack_row));
		next(P);
		while (P->tok.kind == TOK_INT) {
			if (c->misc.n >= HLO_MAX_STACK_ROWS)
				return perr(P, here(P), "more than %d rows in a stack frame table",
					    HLO_MAX_STACK_ROWS);
			struct stack_row *r = vec_push(&c->misc);
			*r = (struct stack_row){0};
			if (parse_int(P, &r->id) < 0)
				return -1;
			if (P->tok.kind == TOK_STRING && (t == ST_FILES || t == ST_FUNCS)) {
				r->str = intern(c, P->tok.p, P->tok.len);
				next(P);
			} else if (P->tok.kind == TOK_LBRACE && (t == ST_LOCS || t == ST_FRAMES)) {
				struct lexer at = P->lx;
				const char *vs, *ve;
				if (lex_raw_until(&P->lx, '}', &vs, &ve) < 0) {
					c->failed = 1;
					return -1;
				}
				if (t == ST_LOCS ? parse_row_fields(P, &at, ve, loc_keys, 6, r->f)
						 : parse_row_fields(P, &at, ve, frame_keys, 2, r->f))
					return -1;
				next_after_raw(P);
			} else {
				return expected(P, t == ST_FILES || t == ST_FUNCS
						       ? "a string in the stack frame table"
						       : "'{' in the stack frame table");
			}
		}
		store_table(c, t, (const struct stack_row *)c->misc.v, c->misc.n);
	}
	P->c->m->stack_frames = pool_strndup(&P->c->pool, start, (size_t)(P->prev_end - start));
	return 0;
}

/* ---- instructions ------------------------------------------------------- */

/* The index in the current computation of the instruction named k, or -1;
 * *slot is where k lives or would be inserted. Names are compared with
 * c->inames, copies packed in their own pool, so a lookup touches neither
 * the instruction nor the cache lines around it. */
static int32_t nt_get(struct pctx *c, const char *k, uint32_t len, uint64_t h, uint64_t **slot)
{
	struct ntab *t = &c->names;
	uint32_t tag = (uint32_t)(h >> 32);
	for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		uint64_t s = t->s[i];
		int32_t gid = (int32_t)(uint32_t)s - 1;
		if (gid < t->first_gid) {
			*slot = &t->s[i];
			return -1;
		}
		if ((uint32_t)(s >> 32) == tag) {
			int32_t x = gid - t->first_gid;
			const char *nm = VEC_AT(&c->inames, const char *, x);
			if (memcmp(nm, k, len) == 0 && nm[len] == 0) {
				*slot = &t->s[i];
				return x;
			}
		}
	}
}

/* Start the table for a computation whose first instruction is first_gid:
 * slots holding smaller gids count as empty, so nothing is cleared. */
static void nt_start(struct ntab *t, int32_t first_gid)
{
	t->s = t->small;
	t->mask = NT_SMALL - 1;
	t->n = 0;
	t->first_gid = first_gid;
}

static void nt_put(struct pctx *c, uint64_t *slot, uint64_t h, const struct hlo_instruction *in)
{
	struct ntab *t = &c->names;
	*slot = (h >> 32 << 32) | (uint32_t)(in->gid + 1);
	if (++t->n * 2 <= t->mask + 1)
		return;
	if (t->mask >= (1u << 30))
		die("hash table too large");
	if (!t->big || t->s != t->small || t->n * 2 > t->big_mask + 1) {
		/* the big table doubles (or more, past the small one) */
		uint32_t cap = t->big_mask + 1;
		while (cap < t->n * 4)
			cap *= 2;
		if (t->big)
			scratch_recycle(t->pl, t->big, (size_t)(t->big_mask + 1) * sizeof(uint64_t));
		t->big = scratch_alloc(t->pl, cap, sizeof(uint64_t));
		t->big_mask = cap - 1;
	}
	/* stale slots of earlier computations in the big table count as empty */
	t->s = t->big;
	t->mask = t->big_mask;
	for (size_t i = 0; i < c->instrs.n; i++) {
		const char *nm = VEC_AT(&c->inames, const char *, i);
		uint32_t len = (uint32_t)strlen(nm);
		uint64_t xh = hash_bytes(nm, len), *sl;
		nt_get(c, nm, len, xh, &sl);
		*sl = (xh >> 32 << 32) | (uint32_t)(t->first_gid + (int32_t)i + 1);
	}
}

/* Name lookups miss the cache on big computations; the parser prefetches a
 * name's slot when it lexes the name and looks it up a few tokens later. */
static inline void nt_prefetch(const struct pctx *c, uint64_t h)
{
	__builtin_prefetch(&c->names.s[(uint32_t)h & c->names.mask]);
}

/* Computations by name, slots as in the instruction table: a 32-bit hash tag
 * and the index + 1 in comp_list. */
static struct hlo_computation *ct_get(struct pctx *c, const char *k, uint32_t len, uint64_t h,
				      uint64_t **slot)
{
	struct ntab *t = &c->comps;
	uint32_t tag = (uint32_t)(h >> 32);
	for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		uint64_t s = t->s[i];
		if (!s) {
			*slot = &t->s[i];
			return NULL;
		}
		struct hlo_computation *comp =
			VEC_AT(&c->comp_list, struct hlo_computation *, (uint32_t)s - 1);
		if ((uint32_t)(s >> 32) == tag && memcmp(comp->name, k, len) == 0 && comp->name[len] == 0) {
			*slot = &t->s[i];
			return comp;
		}
	}
}

/* comp is already in comp_list. */
static void ct_put(struct pctx *c, uint64_t *slot, uint64_t h, const struct hlo_computation *comp)
{
	struct ntab *t = &c->comps;
	*slot = (h >> 32 << 32) | (uint32_t)(comp->index + 1);
	if (++t->n * 2 <= t->mask + 1)
		return;
	if (t->mask >= (1u << 30))
		die("hash table too large");
	struct ntab nt = {.s = scratch_alloc(t->pl, (size_t)(t->mask + 1) * 2, sizeof(uint64_t)),
			  .mask = t->mask * 2 + 1, .n = t->n, .pl = t->pl};
	for (uint32_t i = 0; i <= t->mask; i++) {
		uint64_t s = t->s[i];
		if (!s)
			continue;
		const char *nm = VEC_AT(&c->comp_list, struct hlo_computation *, (uint32_t)s - 1)->name;
		uint32_t j = (uint32_t)hash_bytes(nm, strlen(nm)) & nt.mask;
		while (nt.s[j])
			j = (j + 1) & nt.mask;
		nt.s[j] = s;
	}
	scratch_recycle(t->pl, t->s, (size_t)(t->mask + 1) * sizeof(uint64_t));
	*t = nt;
}

/* Position of p (inside the text) for a message: counts the lines before
 * it. Only errors need it, so positions that are rarely reported are not
 * kept. */
static struct srcpos pos_in_text(const struct pctx *c, const char *p)
{
	const char *ls = c->m->source, *q;
	int line = 1;
	while ((q = memchr(ls, '\n', (size_t)(p - ls)))) {
		line++;
		ls = q + 1;
	}
	return (struct srcpos){c->m->file, line, (int)(p - ls) + 1};
}

static struct hlo_instruction *lookup_instr(struct pctx *c, const struct token *t)
{
	uint64_t *slot;
	int32_t x = nt_get(c, t->p, t->len, hash_bytes(t->p, t->len), &slot);
	return x < 0 ? NULL : VEC_AT(&c->instrs, struct hlo_instruction *, x);
}

static int add_ref(struct parser *S, uint8_t kind)
{
	if (!is_name_tok(&S->tok))
		return expected(S, "a computation name");
	struct ref *r = vec_push(&S->c->refs);
	*r = (struct ref){kind, S->tok.p, S->tok.len};
	next(S);
	return 0;
}

static int parse_ref_list(struct parser *S, uint8_t kind)
{
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	while (S->tok.kind != TOK_RBRACE) {
		if (add_ref(S, kind) < 0)
			return -1;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	return 0;
}

/* The unescaped text of a quoted value, one copy per distinct text: many
 * instructions share their op_name and source_file (hlogen 10^6: 30 MB of
 * op_name copies otherwise). */
static const char *intern(struct pctx *c, const char *vs, size_t n)
{
	uint64_t h = hash_bytes(vs, n);
	struct hslot *sl = ht_find(&c->strs, vs, (uint32_t)n, h);
	if (sl->gen != c->strs.gen)
		ht_put_at(&c->strs, sl, vs, (uint32_t)n, h, unescape(&c->pool, vs, n));
	return ht_get(&c->strs, vs, (uint32_t)n, h);
}

/* [*p, e) starts with the n bytes of s: step over them. */
static int eat(const char **p, const char *e, const char *s, size_t n)
{
	if ((size_t)(e - *p) < n || memcmp(*p, s, n))
		return 0;
	*p += n;
	return 1;
}

/* Is the raw metadata text [p, e) byte for byte what its fields print as
 * (hlo_print_metadata)? Then it is not stored: JAX prints most metadata
 * that way, and on hlogen 10^6 the copies were 65 MB. */
static int metadata_prints_as(const struct hlo_instruction *in, const char *p, const char *e)
{
	char line[16];
	int sep = 0;
	if (!eat(&p, e, "{", 1))
		return 0;
	if (in->op_name && !(eat(&p, e, "op_name=\"", 9) && eat(&p, e, in->op_name, strlen(in->op_name)) &&
			     eat(&p, e, "\"", 1) && (sep = 1)))
		return 0;
	if (in->source_file && !((!sep || eat(&p, e, " ", 1)) && eat(&p, e, "source_file=\"", 13) &&
				 eat(&p, e, in->source_file, strlen(in->source_file)) &&
				 eat(&p, e, "\"", 1) && (sep = 1)))
		return 0;
	if (in->source_line > 0) {
		int n = snprintf(line, sizeof(line), "%d", (int)in->source_line);
		if (!((!sep || eat(&p, e, " ", 1)) && eat(&p, e, "source_line=", 12) &&
		      eat(&p, e, line, (size_t)n)))
			return 0;
	}
	return eat(&p, e, "}", 1) && p == e;
}

static int parse_metadata(struct parser *S, struct hlo_instruction *in)
{
	struct pctx *c = S->c;
	if (S->tok.kind != TOK_LBRACE)
		return expected(S, "'{'");
	/* Not tokenized: values are raw (op_name strings may hold anything). */
	for (;;) {
		next(S);
		if (S->tok.kind == TOK_COMMA)
			continue;
		if (S->tok.kind == TOK_RBRACE)
			break;
		if (S->tok.kind != TOK_ATTR)
			return expected(S, "a metadata field");
		struct token key = S->tok;
		const char *vs, *ve;
		if (lex_raw_value(&S->lx, &vs, &ve) < 0) {
			c->failed = 1;
			return -1;
		}
		size_t n = (size_t)(ve - vs);
		if (TOK_IS(&key, "op_name")) {
			in->op_name = intern(c, vs, n);
		} else if (TOK_IS(&key, "source_file")) {
			in->source_file = intern(c, vs, n);
		} else if (TOK_IS(&key, "source_line") || TOK_IS(&key, "source_column") ||
			   TOK_IS(&key, "stack_frame_id") || TOK_IS(&key, "source_end_line") ||
			   TOK_IS(&key, "source_end_column")) {
			int64_t v = 0;
			for (const char *q = vs; q < ve; q++) {
				if (*q < '0' || *q > '9' || v > INT32_MAX / 10)
					return perr(S, pos_in_text(c, vs), "bad %.*s '%.*s'", (int)key.len, key.p,
						    (int)n, vs);
				v = v * 10 + (*q - '0');
			}
			/* the end line and column are checked, not kept: nothing reads
			 * them (the raw metadata text still has them for the printer) */
			if (TOK_IS(&key, "source_line"))
				in->source_line = (int32_t)v;
			else if (TOK_IS(&key, "source_column"))
				in->source_column = (int32_t)v;
			else if (TOK_IS(&key, "stack_frame_id"))
				in->stack_frame_id = (int32_t)v;
		}
	}
	next(S);
	return 0;
}

static int parse_frontend_attrs(struct parser *S, struct kv **out, int32_t *n_out)
{
	struct pctx *c = S->c;
	if (S->tok.kind != TOK_LBRACE)
		return expected(S, "'{'");
	vec_reset(&c->misc, sizeof(struct kv));
	for (;;) {
		next(S);
		if (S->tok.kind == TOK_COMMA)
			continue;
		if (S->tok.kind == TOK_RBRACE)
			break;
		if (S->tok.kind != TOK_ATTR)
			return expected(S, "a frontend attribute name");
		const char *k = S->tok.p;
		size_t kn = S->tok.len;
		const char *vs, *ve;
		if (lex_raw_value(&S->lx, &vs, &ve) < 0) {
			c->failed = 1;
			return -1;
		}
		struct kv *e = vec_push(&c->misc);
		e->key = unescape(&c->pool, k, kn);
		e->value = (*vs == '"' || *vs == '\'') ? unescape(&c->pool, vs, (size_t)(ve - vs))
						      : pool_strndup(&c->pool, vs, (size_t)(ve - vs));
	}
	next(S);
	*n_out = (int32_t)c->misc.n;
	*out = vec_copy(&c->pool, &c->misc, 0);
	return 0;
}

static int parse_slice(struct parser *S, struct hlo_instruction *in)
{
	struct pctx *c = S->c;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	vec_reset(&c->misc, sizeof(struct slice_dim));
	while (S->tok.kind != TOK_RBRACE) {
		struct slice_dim sd = {0, 0, 1};
		if (expect(S, TOK_LBRACKET, "'['") < 0 || parse_int(S, &sd.start) < 0 ||
		    expect(S, TOK_COLON, "':'") < 0 || parse_int(S, &sd.limit) < 0)
			return -1;
		if (S->tok.kind == TOK_COLON) {
			next(S);
			if (parse_int(S, &sd.stride) < 0)
				return -1;
		}
		if (expect(S, TOK_RBRACKET, "']'") < 0)
			return -1;
		*(struct slice_dim *)vec_push(&c->misc) = sd;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	ext_of(&c->pool, in)->n_slice = (int32_t)c->misc.n;
	in->ext->slice = vec_copy(&c->pool, &c->misc, 0);
	return 0;
}

static int parse_out_aliasing(struct parser *S, struct hlo_instruction *in)
{
	struct pctx *c = S->c;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	vec_reset(&c->misc, sizeof(struct operand_alias));
	while (S->tok.kind != TOK_RBRACE) {
		struct operand_alias oa;
		int64_t k;
		if (parse_shape_index(S, &oa.output) < 0 || expect(S, TOK_COLON, "':'") < 0 ||
		    expect(S, TOK_LPAREN, "'('") < 0 ||
		    parse_int_range(S, 0, INT32_MAX, "operand number", &k) < 0 ||
		    expect(S, TOK_COMMA, "','") < 0 || parse_shape_index(S, &oa.operand_index) < 0 ||
		    expect(S, TOK_RPAREN, "')'") < 0)
			return -1;
		oa.operand = (int32_t)k;
		*(struct operand_alias *)vec_push(&c->misc) = oa;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	ext_of(&c->pool, in)->n_out_aliases = (int32_t)c->misc.n;
	in->ext->out_aliases = vec_copy(&c->pool, &c->misc, 0);
	return 0;
}

static int parse_shape_list(struct parser *S, struct shape ***out, int32_t *n_out)
{
	struct pctx *c = S->c;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	size_t base = c->ptrs.n;
	while (S->tok.kind != TOK_RBRACE) {
		struct shape *sh = parse_shape(S, 0);
		if (!sh)
			return -1;
		*(struct shape **)vec_push(&c->ptrs) = sh;
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	size_t n = c->ptrs.n - base;
	*n_out = (int32_t)n;
	*out = vec_copy(&c->pool, &c->ptrs, base);
	c->ptrs.n = base;
	return 0;
}

static int parse_ctrl_preds(struct parser *S, struct hlo_instruction *in)
{
	struct pctx *c = S->c;
	if (expect(S, TOK_LBRACE, "'{'") < 0)
		return -1;
	size_t base = c->ptrs.n;
	while (S->tok.kind != TOK_RBRACE) {
		if (!is_name_tok(&S->tok))
			return expected(S, "an instruction name");
		struct hlo_instruction *p = lookup_instr(c, &S->tok);
		if (!p)
			return perr(S, here(S), "use of undefined instruction '%.*s' in control-predecessors",
				    (int)S->tok.len, S->tok.p);
		*(struct hlo_instruction **)vec_push(&c->ptrs) = p;
		next(S);
		if (S->tok.kind == TOK_COMMA)
			next(S);
		else if (S->tok.kind != TOK_RBRACE)
			return expected(S, "',' or '}'");
	}
	next(S);
	size_t n = c->ptrs.n - base;
	ext_of(&c->pool, in)->n_ctrl_preds = (int32_t)n;
	in->ext->ctrl_preds = vec_copy(&c->pool, &c->ptrs, base);
	c->ptrs.n = base;
	return 0;
}

/* The typed view of one attribute; S is a sub-parser over its raw value. */
static int parse_typed_attr(struct parser *S, enum akind k, struct hlo_instruction *in,
			    const struct hlo_attr *a)
{
	struct pctx *c = S->c;
	int rc = 0;
	struct hlo_instr_ext *x;
	switch (k) {
	case A_TO_APPLY: rc = add_ref(S, R_TO_APPLY); break;
	case A_CALLS:
		rc = S->tok.kind == TOK_LBRACE ? parse_ref_list(S, R_CALLS) : add_ref(S, R_CALLS);
		break;
	case A_CONDITION: rc = add_ref(S, R_CONDITION); break;
	case A_BODY: rc = add_ref(S, R_BODY); break;
	case A_TRUE: rc = add_ref(S, R_TRUE); break;
	case A_FALSE: rc = add_ref(S, R_FALSE); break;
	case A_BRANCHES: rc = parse_ref_list(S, R_BRANCH); break;
	case A_CALLED: rc = parse_ref_list(S, R_CALLED); break;
	case A_INDEX: {
		/* checked everywhere, kept for a get-tuple-element alone:
		 * tuple_index shares its place with parameter_number (elsewhere
		 * index= is only the raw attribute) */
		int64_t v;
		rc = parse_int_range(S, 0, INT32_MAX, "tuple index", &v);
		if (rc == 0 && in->opcode == OP_GET_TUPLE_ELEMENT)
			in->tuple_index = v;
		break;
	}
	case A_DIMENSIONS: rc = parse_int_list(S, &in->dimensions, &in->n_dimensions); break;
	case A_DYNAMIC_SLICE_SIZES:
		x = ext_of(&c->pool, in);
		rc = parse_int_list(S, &x->dynamic_slice_sizes, &x->n_dynamic_slice_sizes);
		break;
	case A_SLICE: rc = parse_slice(S, in); break;
	case A_OUT_ALIASING: rc = parse_out_aliasing(S, in); break;
	case A_CUSTOM_CALL_TARGET:
		if (S->tok.kind != TOK_STRING)
			return expected(S, "a string");
		ext_of(&c->pool, in)->custom_call_target = unescape(&c->pool, S->tok.p, S->tok.len);
		next(S);
		break;
	case A_OPERAND_LAYOUT_CONSTRAINTS:
		x = ext_of(&c->pool, in);
		rc = parse_shape_list(S, &x->operand_layout_constraints, &x->n_operand_layout_constraints);
		break;
	case A_FRONTEND_ATTRIBUTES:
		x = ext_of(&c->pool, in);
		rc = parse_frontend_attrs(S, &x->frontend_attrs, &x->n_frontend_attrs);
		break;
	case A_CONTROL_PREDECESSORS: rc = parse_ctrl_preds(S, in); break;
	case A_METADATA: rc = parse_metadata(S, in); break;
	default:
		return 0;
	}
	if (rc < 0)
		return -1;
	return expect_end(S, a->name);
}

static int parse_attributes(struct parser *P, struct hlo_instruction *in)
{
	struct pctx *c = P->c;
	c->attr_list.n = 0;
	if (++c->seen_gen == 0) {
		memset(c->seen, 0, sizeof(c->seen));
		c->seen_gen = 1;
	}
	while (P->tok.kind == TOK_COMMA) {
		next(P);
		if (P->tok.kind != TOK_ATTR)
			return expected(P, "an attribute name");
		struct token name = P->tok;
		struct lexer at = P->lx;
		const char *vs, *ve;
		if (lex_raw_value(&P->lx, &vs, &ve) < 0) {
			c->failed = 1;
			return -1;
		}
		unsigned idx = kw_get(c->attrs, name.p, name.len);
		enum akind k = idx ? (enum akind)attr_table[idx - 1].kind : A_OTHER;
		struct hlo_attr *a = vec_push(&c->attr_list);
		a->name = idx ? attr_table[idx - 1].name : pool_strndup(&c->pool, name.p, name.len);
		a->value = k == A_METADATA ? NULL : pool_strndup(&c->pool, vs, (size_t)(ve - vs));
		if (k != A_OTHER && k < A_NTYPED) {
			if (c->seen[k] == c->seen_gen)
				return perr(P, tok_pos(&P->lx, &name), "duplicate attribute '%s'", a->name);
			c->seen[k] = c->seen_gen;
		}
		if (k == A_BACKEND_CONFIG) {
			ext_of(&c->pool, in)->backend_config = a->value;
		} else if (k == A_KIND) {
			ext_of(&c->pool, in)->fusion_kind = a->value;
		} else if (k != A_OTHER && k < A_NTYPED) {
			struct parser S;
			sub_parser(&S, P, &at, ve);
			if (parse_typed_attr(&S, k, in, a) < 0)
				return -1;
		}
		if (k == A_METADATA)
			a->value = metadata_prints_as(in, vs, ve) ? hlo_metadata_from_fields
								 : pool_strndup(&c->pool, vs, (size_t)(ve - vs));
		next_after_raw(P);
	}
	size_t n = c->attr_list.n;
	in->n_attrs = (int32_t)n;
	in->attrs = vec_copy(&c->pool, &c->attr_list, 0);
	return 0;
}

/* Turn the instruction's computation refs into called[] slots and fixups.
 * true_computation and false_computation come as a pair, instead of
 * branch_computations (XLA's parser): otherwise a branch slot stays NULL. */
static int finish_refs(struct parser *P, struct hlo_instruction *in)
{
	struct pctx *c = P->c;
	size_t n = c->refs.n;
	if (!n)
		return 0;
	int32_t n_branch = 0;
	const struct ref *tf[2] = {NULL, NULL}, *br = NULL;
	for (size_t i = 0; i < n; i++) {
		struct ref *r = &VEC_AT(&c->refs, struct ref, i);
		if (r->kind == R_BRANCH)
			n_branch++, br = r;
		else if (r->kind == R_TRUE || r->kind == R_FALSE)
			tf[r->kind == R_FALSE] = r;
	}
	if (!tf[0] != !tf[1])
		return perr(P, pos_in_text(c, (tf[0] ? tf[0] : tf[1])->name), "%s without %s",
			    tf[0] ? "true_computation" : "false_computation",
			    tf[0] ? "false_computation" : "true_computation");
	if (tf[0] && br)
		return perr(P, pos_in_text(c, br->name), "branch_computations together with true_computation");
	if (tf[0])
		n_branch = 2;
	in->n_called = (int32_t)n;
	in->called = pool_array(&c->pool, n, sizeof(void *));
	if (n_branch) {
		ext_of(&c->pool, in)->n_branches = n_branch;
		in->ext->branches = pool_array(&c->pool, (size_t)n_branch, sizeof(void *));
	}
	int32_t next_branch = 0;
	for (size_t i = 0; i < n; i++) {
		struct ref *r = &VEC_AT(&c->refs, struct ref, i);
		int32_t b = -1;
		if (r->kind == R_BRANCH)
			b = next_branch++;
		else if (r->kind == R_TRUE)
			b = 0;
		else if (r->kind == R_FALSE)
			b = 1;
		*(struct fixup *)vec_push(&c->fixups) =
			(struct fixup){in, r->name, r->len, (int32_t)i, b, r->kind};
	}
	c->refs.n = 0;
	return 0;
}

/* async-update / async-done take the previous async op as their only operand
 * and call its wrapped computation; printed without calls=, they inherit it
 * (semantics doc 1.3, item 9). */
static int inherit_calls(struct parser *P, struct hlo_instruction *in, struct srcpos at)
{
	struct pctx *c = P->c;
	if (in->n_operands != 1)
		return perr(P, at, "%s takes one operand, not %d",
			    hlo_opcode_text(in), in->n_operands);
	const struct hlo_instruction *src = in->operands[0];
	if (c->refs.n || (src->opcode != OP_ASYNC_START && src->opcode != OP_ASYNC_UPDATE))
		return 0;
	/* c->async is in gid order: binary search the operand's refs */
	size_t lo = 0, hi = c->async.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct async_refs *a = &VEC_AT(&c->async, struct async_refs, mid);
		if (a->gid == src->gid) {
			for (uint32_t i = 0; i < a->n; i++) {
				const struct fixup *f = &VEC_AT(&c->fixups, struct fixup, a->first + i);
				*(struct ref *)vec_push(&c->refs) =
					(struct ref){f->kind, f->name, f->len};
			}
			return 0;
		}
		if (a->gid < src->gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static enum opcode lookup_opcode(struct pctx *c, const char *s, size_t n)
{
	return (enum opcode)kw_get(c->ops, s, n);
}

/* The result shape XLA infers for tuple and get-tuple-element. */
static struct shape *infer_shape(struct parser *P, struct hlo_instruction *in, struct srcpos at)
{
	struct pctx *c = P->c;
	if (in->opcode == OP_TUPLE) {
		struct shape *sh = pool_alloc(&c->pool, sizeof(*sh), 8);
		sh->type = PT_TUPLE;
		sh->layout.n_m2m = -1;
		sh->n_elems = in->n_operands;
		sh->elems = pool_array(&c->pool, (size_t)in->n_operands, sizeof(struct shape));
		for (int32_t i = 0; i < in->n_operands; i++)
			sh->elems[i] = *in->operands[i]->shape;
		shape_compute_sizes(sh);
		return sh;
	}
	if (in->opcode == OP_GET_TUPLE_ELEMENT) /* operand and index checked */
		return &in->operands[0]->shape->elems[in->tuple_index];
	perr(P, at, "missing result shape for '%s'", in->name);
	return NULL;
}

static int parse_instruction(struct parser *P, struct hlo_computation *comp)
{
	struct pctx *c = P->c;
	int is_root = 0;
	struct srcpos root_pos = here(P);
	if (P->tok.kind == TOK_IDENT && TOK_IS(&P->tok, "ROOT")) {
		is_root = 1;
		next(P);
	}
	struct token name = P->tok;
	if (name.kind == TOK_ATTR) /* also "x=f32[] ...", which XLA rejects too */
		return expected(P, "',' or an instruction");
	if (!is_name_tok(&name))
		return expected(P, "an instruction name");
	next(P);
	if (expect(P, TOK_EQUAL, "'='") < 0)
		return -1;
	struct srcpos npos = tok_pos(&P->lx, &name);
	uint64_t nh = hash_bytes(name.p, name.len), *slot;
	nt_prefetch(c, nh); /* checked for duplicates once the instruction is read */
	if (c->n_instrs >= HLO_MAX_INSTRUCTIONS)
		return perr(P, npos, "more than %d instructions", HLO_MAX_INSTRUCTIONS);

	struct hlo_instruction *in = pool_alloc(&c->pool, sizeof(*in), 8);
	in->name = pool_strndup(&c->names_pool, name.p, name.len);
	in->pos = npos;
	in->parent = comp;
	in->index = (int32_t)c->instrs.n;
	in->gid = c->n_instrs;
	in->is_root = (uint8_t)is_root;
	in->parameter_number = -1; /* and tuple_index */
	in->ext = HLO_NO_EXT;

	struct srcpos shape_pos = here(P);
	if (shape_starts(P)) {
		if (!(in->shape = parse_shape(P, 0)))
			return -1;
		in->has_result_shape = 1;
	}
	if (P->tok.kind != TOK_IDENT)
		return expected(P, "an opcode");
	struct token optok = P->tok;
	struct srcpos oppos = here(P);
	enum opcode op = lookup_opcode(c, optok.p, optok.len);
	if (op == OP_UNKNOWN) {
		static const struct {
			const char *suffix;
			size_t n;
			enum opcode op;
		} sugar[] = {{"-start", 6, OP_ASYNC_START}, {"-update", 7, OP_ASYNC_UPDATE},
			     {"-done", 5, OP_ASYNC_DONE}};
		for (size_t i = 0; i < 3 && op == OP_UNKNOWN; i++) {
			size_t n = sugar[i].n;
			if (optok.len <= n || memcmp(optok.p + optok.len - n, sugar[i].suffix, n))
				continue;
			enum opcode base = lookup_opcode(c, optok.p, optok.len - n);
			if (base != OP_UNKNOWN) {
				op = sugar[i].op;
				in->async_wrapped_opcode = (uint16_t)base;
				ext_of(&c->pool, in)->opcode_text = pool_strndup(&c->pool, optok.p, optok.len);
			}
		}
		if (op == OP_UNKNOWN)
			return perr(P, oppos, "unknown opcode '%.*s'", (int)optok.len, optok.p);
	}
	in->opcode = (uint16_t)op;
	next(P);
	if (P->tok.kind != TOK_LPAREN)
		return expected(P, "'(' after the opcode");

	if (op == OP_CONSTANT) {
		const char *vs, *ve;
		if (lex_raw_until(&P->lx, ')', &vs, &ve) < 0) {
			c->failed = 1;
			return -1;
		}
		if (vs == ve)
			return perr(P, oppos, "constant without a literal");
		in->literal = pool_strndup(&c->pool, vs, (size_t)(ve - vs));
		next_after_raw(P);
	} else if (op == OP_PARAMETER) {
		next(P);
		if (parse_int_range(P, 0, INT32_MAX, "parameter number", &in->parameter_number) < 0 ||
		    expect(P, TOK_RPAREN, "')'") < 0)
			return -1;
	} else {
		next(P);
		/* operands are read first, with their name slots prefetched, and
		 * resolved after the ')' */
		size_t pbase = c->pending.n;
		while (P->tok.kind != TOK_RPAREN) {
			struct pending *pd = vec_push(&c->pending);
			pd->shape = NULL;
			pd->shape_pos = here(P);
			if (shape_starts(P)) {
				if (!(pd->shape = parse_shape(P, 0)))
					return -1;
			}
			if (!is_name_tok(&P->tok))
				return expected(P, "an operand name");
			pd->tok = P->tok;
			if (P->lx.cur < P->lx.end && *P->lx.cur == '(')
				return perr(P, here(P), "nested instruction '%.*s' as an operand is not supported",
					    (int)P->tok.len, P->tok.p);
			pd->h = hash_bytes(P->tok.p, P->tok.len);
			nt_prefetch(c, pd->h);
			next(P);
			if (P->tok.kind == TOK_COMMA)
				next(P);
			else if (P->tok.kind != TOK_RPAREN)
				return expected(P, "',' or ')' in the operand list");
		}
		next(P);
		size_t n = c->pending.n - pbase;
		in->n_operands = (int32_t)n;
		in->operands = n ? pool_array(&c->pool, n, sizeof(void *)) : NULL;
		/* uses for hlo_build_users(), deduped with the index of the last
		 * user of each instruction */
		int32_t *ucount = (int32_t *)c->ucount.v, *ulast = (int32_t *)c->ulast.v;
		for (size_t i = 0; i < n; i++) {
			struct pending *pd = &VEC_AT(&c->pending, struct pending, pbase + i);
			uint64_t *osl;
			int32_t d = nt_get(c, pd->tok.p, pd->tok.len, pd->h, &osl);
			if (d < 0)
				return perr(P, tok_pos(&P->lx, &pd->tok), "use of undefined instruction '%.*s'",
					    (int)pd->tok.len, pd->tok.p);
			struct hlo_instruction *o = VEC_AT(&c->instrs, struct hlo_instruction *, d);
			if (ulast[d] != in->index) {
				ulast[d] = in->index;
				ucount[d]++;
				*(struct hlo_use *)vec_push(&c->uses) = (struct hlo_use){d, in->index};
			}
			if (pd->shape && !shape_compatible(pd->shape, o->shape)) {
				char a[128], b[128];
				shape_to_string(pd->shape, a, sizeof(a));
				shape_to_string(o->shape, b, sizeof(b));
				return perr(P, pd->shape_pos, "operand shape %s does not match the shape %s of '%s'",
					    a, b, o->name);
			}
			in->operands[i] = o;
		}
		c->pending.n = pbase;
	}
	c->refs.n = 0;
	if (parse_attributes(P, in) < 0)
		return -1;
	if ((op == OP_ASYNC_UPDATE || op == OP_ASYNC_DONE) && inherit_calls(P, in, oppos) < 0)
		return -1;
	/* what -update/-done inherit; the sugar's to_apply / calls are the
	 * wrapped op's own (hlo_async_sugar_embeds), not inherited */
	if ((op == OP_ASYNC_START || op == OP_ASYNC_UPDATE) && c->refs.n && !hlo_async_sugar_embeds(in))
		*(struct async_refs *)vec_push(&c->async) =
			(struct async_refs){in->gid, (uint32_t)c->fixups.n, (uint32_t)c->refs.n};
	if (finish_refs(P, in) < 0)
		return -1;
	if (op == OP_GET_TUPLE_ELEMENT) {
		if (in->n_operands != 1)
			return perr(P, oppos, "get-tuple-element takes one operand, not %d", in->n_operands);
		if (in->tuple_index < 0)
			return perr(P, oppos, "get-tuple-element without index=");
		const struct shape *os = in->operands[0]->shape;
		if (!shape_is_tuple(os) || in->tuple_index >= os->n_elems)
			return perr(P, oppos, "tuple index %lld is out of range for operand '%s'",
				    (long long)in->tuple_index, in->operands[0]->name);
	}
	if (!in->shape && !(in->shape = infer_shape(P, in, shape_pos)))
		return -1;
	if (nt_get(c, name.p, name.len, nh, &slot) >= 0)
		return perr(P, npos, "duplicate instruction name '%.*s' in computation '%s'",
			    (int)name.len, name.p, comp->name);
	if (is_root) {
		if (comp->root)
			return perr(P, root_pos, "second ROOT instruction in computation '%s' (first is '%s')",
				    comp->name, comp->root->name);
		comp->root = in;
	}
	/* Control successors are counted in place; until hlo_build_users()
	 * runs, an instruction's ctrl_succs field holds the last successor
	 * counted (a marker, never dereferenced). */
	*(int32_t *)vec_push(&c->ucount) = 0;
	*(int32_t *)vec_push(&c->ulast) = -1;
	for (int32_t k = 0; k < in->ext->n_ctrl_preds; k++) {
		struct hlo_instruction *p = in->ext->ctrl_preds[k];
		struct hlo_instr_ext *px = ext_of(&c->pool, p);
		if (px->ctrl_succs != (struct hlo_instruction **)in) {
			px->ctrl_succs = (struct hlo_instruction **)in;
			px->n_ctrl_succs++;
			c->n_succs++;
		}
	}
	if (in->n_called)
		*(struct hlo_instruction **)vec_push(&c->callers) = in;
	if (op == OP_PARAMETER)
		*(struct hlo_instruction **)vec_push(&c->params) = in;
	*(struct hlo_instruction **)vec_push(&c->instrs) = in;
	*(const char **)vec_push(&c->inames) = in->name;
	nt_put(c, slot, nh, in);
	c->n_instrs++;
	return 0;
}

/* ---- computations -------------------------------------------------------- */

static int finish_params(struct parser *P, struct hlo_computation *comp)
{
	struct pctx *c = P->c;
	/* c->params lists the parameters as read: the other instructions of a
	 * large computation are not visited again */
	int32_t k = (int32_t)c->params.n;
	comp->n_params = k;
	comp->params = pool_array(&c->pool, (size_t)k, sizeof(void *));
	for (int32_t i = 0; i < k; i++) {
		struct hlo_instruction *in = VEC_AT(&c->params, struct hlo_instruction *, i);
		int64_t num = in->parameter_number;
		if (num >= k)
			return perr(P, in->pos, "parameter number %lld is out of range: computation '%s' has %d parameters",
				    (long long)num, comp->name, k);
		if (comp->params[num])
			return perr(P, in->pos, "duplicate parameter number %lld in computation '%s'",
				    (long long)num, comp->name);
		comp->params[num] = in;
	}
	return 0;
}

static int parse_computation(struct parser *P)
{
	struct pctx *c = P->c;
	struct hlo_module *m = c->m;
	int is_entry = 0;
	struct srcpos epos = here(P);
	if (P->tok.kind == TOK_IDENT && TOK_IS(&P->tok, "ENTRY")) {
		is_entry = 1;
		next(P);
	}
	if (!is_name_tok(&P->tok))
		return expected(P, is_entry ? "a computation name" : "a computation");
	struct token name = P->tok;
	struct hlo_computation *comp = pool_alloc(&c->pool, sizeof(*comp), 8);
	comp->name = pool_strndup(&c->pool, name.p, name.len);
	comp->pos = here(P);
	comp->module = m;
	comp->index = (int32_t)c->comp_list.n;
	comp->is_entry = (uint8_t)is_entry;
	uint64_t h = hash_bytes(name.p, name.len), *slot;
	if (ct_get(c, name.p, name.len, h, &slot))
		return perr(P, comp->pos, "duplicate computation name '%s'", comp->name);
	*(struct hlo_computation **)vec_push(&c->comp_list) = comp;
	ct_put(c, slot, h, comp);
	if (is_entry) {
		if (m->entry)
			return perr(P, epos, "second ENTRY computation '%s' (the first is '%s')",
				    comp->name, m->entry->name);
		m->entry = comp;
	}
	next(P);

	int32_t n_sig = -1;
	if (P->tok.kind == TOK_LPAREN) {
		comp->has_signature = 1;
		n_sig = 0;
		next(P);
		while (P->tok.kind != TOK_RPAREN) {
			if (!is_name_tok(&P->tok))
				return expected(P, "a parameter name");
			next(P);
			if (expect(P, TOK_COLON, "':'") < 0 || !parse_shape(P, 0))
				return -1;
			n_sig++;
			if (P->tok.kind == TOK_COMMA)
				next(P);
			else if (P->tok.kind != TOK_RPAREN)
				return expected(P, "',' or ')' in the signature");
		}
		next(P);
		if (expect(P, TOK_ARROW, "'->'") < 0 || !parse_shape(P, 0))
			return -1;
	}
	struct srcpos body_pos = here(P);
	if (expect(P, TOK_LBRACE, "'{' to start the computation body") < 0)
		return -1;
	nt_start(&c->names, c->n_instrs);
	c->n_succs = 0;
	c->uses.n = c->ucount.n = c->ulast.n = 0;
	c->instrs.n = c->inames.n = c->params.n = 0;
	while (P->tok.kind != TOK_RBRACE) {
		if (P->tok.kind == TOK_EOF)
			return expected(P, "'}' to close the computation body");
		if (parse_instruction(P, comp) < 0)
			return -1;
	}
	next(P);
	if (c->instrs.n == 0)
		return perr(P, body_pos, "computation '%s' has no instructions", comp->name);
	comp->n_instrs = (int32_t)c->instrs.n;
	comp->instrs = vec_copy(&c->pool, &c->instrs, 0);
	hlo_build_users(comp, (struct hlo_use *)c->uses.v, c->uses.n, (int32_t *)c->ucount.v,
			pool_array(&c->pool, c->uses.n, sizeof(void *)),
			pool_array(&c->pool, c->n_succs, sizeof(void *)), c->n_succs);
	if (!comp->root)
		comp->root = comp->instrs[comp->n_instrs - 1];
	if (finish_params(P, comp) < 0)
		return -1;
	if (n_sig >= 0 && n_sig != comp->n_params)
		return perr(P, comp->pos, "computation '%s' declares %d parameters but has %d",
			    comp->name, n_sig, comp->n_params);
	if (P->tok.kind == TOK_COMMA) {
		next(P);
		if (P->tok.kind != TOK_ATTR || !TOK_IS(&P->tok, "execution_thread"))
			return expected(P, "'execution_thread='");
		next(P);
		if (P->tok.kind != TOK_STRING)
			return expected(P, "a string");
		const char *t = unescape(&c->pool, P->tok.p, P->tok.len);
		comp->execution_thread = strcmp(t, "main") ? t : NULL;
		next(P);
	}
	return 0;
}

static int resolve_fixups(struct parser *P)
{
	struct pctx *c = P->c;
	for (size_t i = 0; i < c->fixups.n; i++) {
		struct fixup *f = &VEC_AT(&c->fixups, struct fixup, i);
		uint64_t *slot;
		struct hlo_computation *callee = ct_get(c, f->name, f->len, hash_bytes(f->name, f->len), &slot);
		if (!callee)
			return perr(P, pos_in_text(c, f->name), "use of undefined computation '%.*s'",
				    (int)f->len, f->name);
		struct hlo_instruction *in = f->instr;
		in->called[f->called_index] = callee;
		switch (f->kind) {
		case R_TO_APPLY: in->to_apply = callee; break;
		case R_CALLS:
			if (!in->ext->calls)
				ext_of(&c->pool, in)->calls = callee;
			break;
		case R_CONDITION: ext_of(&c->pool, in)->condition = callee; break;
		case R_BODY: ext_of(&c->pool, in)->body = callee; break;
		default: break;
		}
		if (f->branch_index >= 0)
			ext_of(&c->pool, in)->branches[f->branch_index] = callee;
	}
	return 0;
}

/* ---- module -------------------------------------------------------------- */

static void pctx_init(struct pctx *c, struct hlo_module *m, struct diag *d)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->d = d;
	c->pool.a = &m->arena;
	c->names_pool.a = &m->arena;
	struct pool *a = &c->pool;
	nt_init(&c->names, a, NT_SMALL);
	c->names.small = c->names.s;
	c->names.big = NULL; /* on first need */
	c->names.big_mask = 2 * NT_SMALL - 1;
	/* about one computation per KiB of text on the real corpus: sized so it
	 * rarely grows (growing reads every computation's name again) */
	uint32_t nc = 256;
	while (nc < (1u << 24) && nc < m->source_len / 256)
		nc *= 2;
	c->comps = (struct ntab){.s = scratch_alloc(a, nc, sizeof(uint64_t)), .mask = nc - 1, .pl = a};
	ht_init(&c->shapes, a, 256);
	ht_init(&c->strs, a, 64);
	c->ops = scratch_alloc(a, 3, sizeof(struct kwtab));
	c->types = c->ops + 1;
	c->attrs = c->ops + 2;
	for (int i = 1; i < OP_COUNT; i++)
		kw_put(c->ops, opcode_name((enum opcode)i), (uint16_t)i);
	for (int i = 1; i < PT_COUNT; i++)
		if (ptype_name((enum ptype)i))
			kw_put(c->types, ptype_name((enum ptype)i), (uint16_t)i);
	for (size_t i = 0; i < sizeof(attr_table) / sizeof(attr_table[0]); i++)
		kw_put(c->attrs, attr_table[i].name, (uint16_t)(i + 1));
	struct vec *v[] = {&c->params, &c->inames, &c->uses, &c->ucount, &c->ulast, &c->async, &c->pending, &c->callers, &c->instrs, &c->comp_list, &c->ptrs,
			   &c->shape_stack, &c->ints, &c->attr_list, &c->refs, &c->fixups, &c->misc};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i]->pl = a;
	c->instrs.size = sizeof(void *);
	c->inames.size = sizeof(void *);
	c->params.size = sizeof(void *);
	c->uses.size = sizeof(struct hlo_use);
	c->ucount.size = sizeof(int32_t);
	c->ulast.size = sizeof(int32_t);
	c->callers.size = sizeof(void *);
	c->comp_list.size = sizeof(void *);
	c->ptrs.size = sizeof(void *);
	c->pending.size = sizeof(struct pending);
	c->async.size = sizeof(struct async_refs);
	c->shape_stack.size = sizeof(struct shape);
	c->ints.size = sizeof(int64_t);
	c->attr_list.size = sizeof(struct hlo_attr);
	c->refs.size = sizeof(struct ref);
	c->fixups.size = sizeof(struct fixup);
	c->misc.size = 16;
}


static int check_text(struct hlo_module *m, struct diag *d)
{
	const char *s = m->source, *z = memchr(s, 0, m->source_len);
	if (!z)
		return 0;
	int line = 1;
	const char *ls = s;
	for (const char *p = s; p < z; p++)
		if (*p == '\n') {
			line++;
			ls = p + 1;
		}
	error_at(d, (struct srcpos){m->file, line, (int)(z - ls) + 1},
		 "input contains a NUL byte (binary file?)");
	return -1;
}

static int parse_module(struct pctx *c)
{
	struct hlo_module *m = c->m;
	struct parser P0 = {.c = c}, *P = &P0;
	lex_init(&P->lx, m->file, m->source, m->source_len, c->d);
	P->prev_end = m->source;
	P->tok.p = m->source; /* next() reads it: NULL + 0 is undefined behaviour */
	next(P);
	if (P->tok.kind == TOK_ERROR)
		return -1;
	if (P->tok.kind == TOK_EOF)
		return perr(P, (struct srcpos){m->file, 1, 1}, "empty input");
	if (P->tok.kind == TOK_IDENT && TOK_IS(&P->tok, "HloModule") && parse_header(P) < 0)
		return -1;
	if (is_stack_table(&P->tok) && parse_stack_tables(P) < 0)
		return -1;
	if (P->tok.kind == TOK_EOF)
		return perr(P, here(P), "expected a computation but found end of input");
	while (P->tok.kind != TOK_EOF) {
		if (P->tok.kind == TOK_ERROR || parse_computation(P) < 0)
			return -1;
	}
	m->n_comps = (int32_t)c->comp_list.n;
	m->comps = vec_copy(&c->pool, &c->comp_list, 0);
	m->n_instrs = c->n_instrs;
	if (!m->entry) {
		m->entry = m->comps[m->n_comps - 1];
		m->entry->is_entry = 1;
	}
	if (!m->name) {
		size_t n = strlen(m->entry->name);
		char *s = pool_alloc(&c->pool, n + 8, 1);
		memcpy(s, "module_", 7);
		memcpy(s + 7, m->entry->name, n + 1);
		m->name = s;
		m->pos = m->entry->pos;
	}
	if (resolve_fixups(P) < 0)
		return -1;
	hlo_build_call_graph(m, (struct hlo_instruction **)c->callers.v, c->callers.n);
	return 0;
}

/* A module whose arena starts with a buffer for the source text (len bytes
 * and a NUL) followed by the file name, so small inputs need one chunk. */
#define ARENA_PER_TEXT_BYTE 7
static struct hlo_module *module_new(const char *file, size_t len, char **buf)
{
	struct hlo_module *m = xcalloc(1, sizeof(*m));
	arena_init(&m->arena);
	if (!file)
		file = "<input>";
	size_t fl = strlen(file);
	/* The text and its IR (2.5-5 bytes per byte of text on the real corpus)
	 * in one huge-page mapping: a 4 KiB page costs a fault each (~10 us on
	 * a virtual machine), a 2 MiB page one for all of them. Address space
	 * only: pages past what is used are never touched. */
	if (len <= SIZE_MAX / 8)
		arena_reserve(&m->arena, len * ARENA_PER_TEXT_BYTE + fl + 1);
	*buf = arena_alloc(&m->arena, len + 1 + fl + 1);
	memcpy(*buf + len + 1, file, fl + 1);
	m->file = *buf + len + 1;
	return m;
}

/* The parse's scratch (vectors, name tables, outgrown arrays the pool kept)
 * is dead once the module is built: its large arrays' pages go back, so
 * the analyses reuse them instead of touching fresh memory (hlogen 10^6:
 * about 30 MB). */
static void pctx_release(struct pctx *c)
{
	struct arena *a = &c->m->arena;
	const struct vec *v[] = {&c->params, &c->inames, &c->uses, &c->ucount, &c->ulast, &c->async,
				 &c->pending, &c->callers, &c->instrs, &c->comp_list, &c->ptrs,
				 &c->shape_stack, &c->ints, &c->attr_list, &c->refs, &c->fixups, &c->misc};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i]->v)
			arena_discard(a, v[i]->v, v[i]->cap * v[i]->size);
	if (c->names.big)
		arena_discard(a, c->names.big, ((size_t)c->names.big_mask + 1) * sizeof(uint64_t));
	arena_discard(a, c->comps.s, ((size_t)c->comps.mask + 1) * sizeof(uint64_t));
	arena_discard(a, c->shapes.s, ((size_t)c->shapes.mask + 1) * sizeof(*c->shapes.s));
	arena_discard(a, c->strs.s, ((size_t)c->strs.mask + 1) * sizeof(*c->strs.s));
	for (struct recycled *r = c->pool.spare, *next; r; r = next) {
		next = r->next; /* before the pages that hold it read as zero */
		arena_discard(a, r, r->size);
	}
}

/* Parse m->source (already in the arena); frees m on error. */
static struct hlo_module *parse_loaded(struct hlo_module *m, struct diag *d)
{
	if (check_text(m, d) < 0) {
		hlo_module_free(m);
		return NULL;
	}
	struct pctx c;
	pctx_init(&c, m, d);
	int rc = parse_module(&c);
	if (rc == 0 && hlo_validate(m, d) < 0)
		rc = -1;
	if (rc < 0) {
		hlo_module_free(m);
		return NULL;
	}
	pctx_release(&c);
	/* a 10^6-instruction module's text is 156 MB of its 1.1 GB of analysis:
	 * the analyses reuse those pages instead of touching fresh ones */
	if (m->source_len >= HLO_DISCARD_SOURCE_BYTES) {
		arena_discard(&m->arena, m->source, m->source_len);
		m->source = NULL;
	}
	return m;
}

struct hlo_module *hlo_parse(const char *file, const char *text, size_t len, struct diag *d)
{
	if (len > HLO_MAX_FILE_BYTES) {
		error_at(d, (struct srcpos){file, 0, 0}, "input is larger than %zu bytes",
			 (size_t)HLO_MAX_FILE_BYTES);
		return NULL;
	}
	char *src;
	struct hlo_module *m = module_new(file, len, &src);
	memcpy(src, text, len);
	m->source = src;
	m->source_len = len;
	return parse_loaded(m, d);
}

#define HLO_READ_CHUNK ((size_t)1 << 20)

/* Read a stream of unknown size (stdin, pipes) into a malloc'd buffer;
 * stops after the first chunk that holds a NUL byte (binary input). */
static char *read_stream(FILE *f, size_t *len, struct diag *d, struct srcpos at)
{
	size_t cap = 1 << 16, n = 0, r;
	char *buf = xmalloc(cap, 1);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (memchr(buf + n - r, 0, r))
			break; /* binary: check_text reports the NUL; read no further */
		if (n > HLO_MAX_FILE_BYTES) {
			free(buf);
			error_at(d, at, "input is larger than %zu bytes", (size_t)HLO_MAX_FILE_BYTES);
			return NULL;
		}
		if (n == cap) {
			char *b2 = xrealloc(buf, cap *= 2, 1);
			buf = b2;
		}
	}
	if (ferror(f)) {
		free(buf);
		error_at(d, at, "read error: %s", strerror(errno));
		return NULL;
	}
	*len = n;
	return buf;
}

struct hlo_module *hlo_parse_file(const char *path, struct diag *d)
{
	int is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	struct srcpos at = {name, 0, 0};
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		error_at(d, at, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	struct hlo_module *m = NULL;
	if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		/* regular file: read straight into the arena, one copy */
		if ((uint64_t)st.st_size > HLO_MAX_FILE_BYTES) {
			error_at(d, at, "file is larger than %zu bytes", (size_t)HLO_MAX_FILE_BYTES);
			fclose(f);
			return NULL;
		}
		size_t want = (size_t)st.st_size;
		char *buf;
		m = module_new(name, want, &buf);
		/* In chunks: a binary file (a NUL byte) is rejected after its first
		 * chunk, so a huge random or sparse file fails fast, not after reading it. */
		size_t got = 0, r;
		int binary = 0;
		while (got < want && !binary &&
		       (r = fread(buf + got, 1, want - got < HLO_READ_CHUNK ? want - got : HLO_READ_CHUNK, f)) > 0) {
			binary = memchr(buf + got, 0, r) != NULL;
			got += r;
		}
		int bad = (got != want && !binary) || ferror(f);
		fclose(f);
		if (binary)
			want = got;
		if (bad) {
			error_at(d, at, "read error: %s", got != want ? "file changed size" : strerror(errno));
			hlo_module_free(m);
			return NULL;
		}
		m->source = buf;
		m->source_len = want;
	} else {
		size_t len = 0;
		char *tmp = read_stream(f, &len, d, at);
		if (!is_stdin)
			fclose(f);
		if (!tmp)
			return NULL;
		char *buf;
		m = module_new(name, len, &buf);
		memcpy(buf, tmp, len);
		free(tmp);
		m->source = buf;
		m->source_len = len;
	}
	return parse_loaded(m, d);
}

void hlo_module_free(struct hlo_module *m)
{
	if (!m)
		return;
	arena_free(&m->arena);
	free(m);
}
