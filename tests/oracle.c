/* oracle.c - brute-force hazard oracle (docs/hazards.md), tests only.
 *
 * Pipeline: alias analysis (values.h, inplace.h, buffers.h: the model's
 * input) -> every schedule (linear extensions of each executed computation's
 * data + control order, root last) -> every trace of each schedule (choice
 * points: iteration count 0/1/2 of each while execution, branch of each
 * conditional execution) -> events (definitions and reads at integer times)
 * -> triples (v, w, u) found by scanning, for each read, the definitions of
 * the read value's buffer since the read instance was defined.
 *
 * A copy removal (oracle_removal) runs this on the rewritten module and on
 * the module as given, schedule by corresponding schedule and trace by trace,
 * and compares the hazards' identities (the "removals" section below).
 *
 * Nothing here is clever on purpose. The only shortcut: parameters and
 * constants are left out of the enumerated orders, since their events do
 * not depend on where they are printed (a parameter's values are defined at
 * its computation's start, constants and entry parameters at time 0); the
 * order constraints through them are kept by projecting the transitive
 * closure. Every linear extension of the projected order extends to one of
 * the full order, so nothing is lost. */
#include "oracle.h"
#include "inplace.h"
#include "liveness.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE_MAX_DEPTH 64  /* nesting of executed computations */
#define OREG_MAX_RANK 16

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("oracle: out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("oracle: allocation overflows");
	size_t bytes = n * size;
	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		die("oracle: out of memory");
	return p;
}

void oracle_default_limits(struct oracle_limits *lim)
{
	lim->max_schedules = 20000;
	lim->max_traces = 4096;
	lim->max_events = 100000;
}

const char *oracle_kind_name(enum oracle_kind k)
{
	switch (k) {
	case OK_OVERWRITE: return "overwrite";
	case OK_SAME_TIME: return "same-time";
	case OK_SAME_INSTRUCTION: return "same-instruction";
	case OK_READ_ONLY_WRITTEN: return "read-only-written";
	case OK_READ_ONLY_OUTPUT: return "read-only-output";
	case OK_OUTPUTS_NOT_DISTINCT: return "outputs-not-distinct";
	}
	return "?";
}

/* ---- regions (hazards.md section 5) -------------------------------------- */

/* A box in the coordinates of `view`, the shape (dims and layout) through
 * which the access sees its buffer (a bitcast's users see the bitcast's). */
struct oregion {
	int whole;
	int rank;
	int64_t lo[OREG_MAX_RANK], hi[OREG_MAX_RANK];
	const struct shape *view;
};

static const struct oregion region_whole = {1, 0, {0}, {0}, NULL};

/* All integers of a constant's literal text ("6", "-1", "{1, 2}"). */
static int literal_ints(const char *lit, int64_t *out, int cap)
{
	int n = 0;
	if (!lit)
		return -1;
	for (const char *p = lit; *p;) {
		if (*p == '-' || isdigit((unsigned char)*p)) {
			char *end;
			long long x = strtoll(p, &end, 10);
			if (end == p) {
				p++;
				continue;
			}
			if (*end == '.' || *end == 'e' || *end == 'E')
				return -1; /* not an integer literal */
			if (n >= cap)
				return -1;
			out[n++] = x;
			p = end;
		} else if (*p == '{' || *p == '}' || *p == ',' || isspace((unsigned char)*p)) {
			p++;
		} else {
			return -1; /* true/false, nan, ... */
		}
	}
	return n;
}

/* A constant integer scalar operand: the instruction is a constant, or (in
 * a fused computation) a fused parameter whose fusion operand is one. */
static int const_scalar(const struct hlo_instruction *i, const struct hlo_instruction *fusion,
			int64_t *out)
{
	if (i->opcode == OP_PARAMETER && fusion && i->parameter_number >= 0 &&
	    i->parameter_number < fusion->n_operands)
		i = fusion->operands[i->parameter_number];
	if (i->opcode != OP_CONSTANT || !i->shape || i->shape->rank != 0)
		return 0;
	int64_t v[2];
	if (literal_ints(i->literal, v, 2) != 1)
		return 0;
	*out = v[0];
	return 1;
}

/* Starts of a dynamic-(update-)slice: operands first.. (scalars) or one
 * rank-1 operand. known[d] = 0 for a non-constant start. */
static int starts_of(const struct hlo_instruction *i, int first, int rank,
		     const struct hlo_instruction *fusion, int64_t *start, int *known)
{
	if (i->n_operands == first + rank) {
		for (int d = 0; d < rank; d++)
			known[d] = const_scalar(i->operands[first + d], fusion, &start[d]);
		return 0;
	}
	if (i->n_operands == first + 1 && i->operands[first]->shape &&
	    i->operands[first]->shape->rank == 1) {
		const struct hlo_instruction *x = i->operands[first];
		if (x->opcode == OP_PARAMETER && fusion && x->parameter_number >= 0 &&
		    x->parameter_number < fusion->n_operands)
			x = fusion->operands[x->parameter_number];
		int64_t v[OREG_MAX_RANK + 1];
		int ok = x->opcode == OP_CONSTANT && literal_ints(x->literal, v, OREG_MAX_RANK + 1) == rank;
		for (int d = 0; d < rank; d++) {
			known[d] = ok;
			start[d] = ok ? v[d] : 0;
		}
		return 0;
	}
	return -1;
}

/* Box [clamp(start), +size) per dimension of an array of `dims`. */
static int make_box(struct oregion *r, const struct shape *full, const int64_t *size,
		    const int64_t *start, const int *known)
{
	if (!full || full->type == PT_TUPLE || full->rank > OREG_MAX_RANK)
		return -1;
	r->whole = 0;
	r->rank = full->rank;
	for (int d = 0; d < full->rank; d++) {
		int64_t dim = full->dims[d], sz = size[d];
		if (dim < 0 || sz < 0 || sz > dim)
			return -1;
		if (!known[d]) {
			r->lo[d] = 0;
			r->hi[d] = dim;
			continue;
		}
		int64_t s = start[d];
		if (s < 0)
			s = 0;
		if (s > dim - sz)
			s = dim - sz;
		r->lo[d] = s;
		r->hi[d] = s + sz;
	}
	return 0;
}

/* Region a dynamic-update-slice writes (in fusion context `fusion`). */
static int dus_box(const struct hlo_instruction *dus, const struct hlo_instruction *fusion,
		   const struct shape *full, struct oregion *r)
{
	if (dus->n_operands < 3 || !full || full->type == PT_TUPLE || full->rank > OREG_MAX_RANK)
		return -1;
	const struct shape *upd = dus->operands[1]->shape;
	if (!upd || upd->type == PT_TUPLE || upd->rank != full->rank)
		return -1;
	int64_t start[OREG_MAX_RANK], size[OREG_MAX_RANK];
	int known[OREG_MAX_RANK];
	if (starts_of(dus, 2, full->rank, fusion, start, known) < 0)
		return -1;
	for (int d = 0; d < full->rank; d++)
		size[d] = upd->dims[d];
	return make_box(r, full, size, start, known);
}

/* Region a dynamic-slice or slice reads of its operand 0. */
static int read_box(const struct hlo_instruction *u, const struct hlo_instruction *fusion,
		    struct oregion *r)
{
	if (u->n_operands < 1)
		return -1;
	const struct shape *full = u->operands[0]->shape;
	if (!full || full->type == PT_TUPLE || full->rank > OREG_MAX_RANK)
		return -1;
	int64_t start[OREG_MAX_RANK], size[OREG_MAX_RANK];
	int known[OREG_MAX_RANK];
	if (u->opcode == OP_SLICE) {
		if (u->ext->n_slice != full->rank)
			return -1;
		r->whole = 0;
		r->rank = full->rank;
		for (int d = 0; d < full->rank; d++) {
			r->lo[d] = u->ext->slice[d].start;
			r->hi[d] = u->ext->slice[d].limit;
		}
		return 0;
	}
	if (u->opcode != OP_DYNAMIC_SLICE || u->ext->n_dynamic_slice_sizes != full->rank)
		return -1;
	if (starts_of(u, 1, full->rank, fusion, start, known) < 0)
		return -1;
	for (int d = 0; d < full->rank; d++)
		size[d] = u->ext->dynamic_slice_sizes[d];
	return make_box(r, full, size, start, known);
}

static struct hlo_computation *fused_comp(const struct hlo_instruction *f)
{
	return f->ext->calls ? f->ext->calls : (f->n_called > 0 ? f->called[0] : NULL);
}

/* Bits one element of an array takes. */
static int64_t oelem_bits(const struct shape *s)
{
	return s->layout.element_size_bits > 0 ? s->layout.element_size_bits : ptype_bits(s->type);
}

/* The layout text names the same memory order: effective minor_to_major,
 * element size and what follows ':' (tiles). */
static int same_layout(const struct shape *a, const struct shape *b)
{
	if (!a || !b || a->type == PT_TUPLE || b->type == PT_TUPLE || a->rank != b->rank ||
	    oelem_bits(a) != oelem_bits(b))
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i] || shape_minor_to_major(a, i) != shape_minor_to_major(b, i))
			return 0;
	const char *ea = a->layout.ext ? a->layout.ext : "", *eb = b->layout.ext ? b->layout.ext : "";
	return !strcmp(ea, eb);
}

/* Memory order given by minor_to_major alone: after ':' nothing but E(n)
 * and S(n) (a tile or a dim level type moves elements). */
static int plain_memory_order(const struct shape *s)
{
	for (const char *p = s->layout.ext; p && *p; p++)
		if (!strchr("ES()0123456789", *p))
			return 0;
	return 1;
}

#define OREG_MAX_BITS ((int64_t)1 << 22)

/* Bits of the buffer a view spans, -1 past OREG_MAX_BITS or unknown. */
static int64_t view_bits(const struct shape *s)
{
	if (!s || s->type == PT_TUPLE || oelem_bits(s) <= 0)
		return -1;
	int64_t n = oelem_bits(s);
	for (int d = 0; d < s->rank; d++) {
		if (s->dims[d] < 0)
			return -1;
		n *= s->dims[d];
		if (n > OREG_MAX_BITS)
			return -1;
	}
	return n;
}

/* Mark (mark = 1) or test (mark = 0) every bit of the buffer that box r
 * covers, element by element, at element offset sum(idx[d] * stride[d])
 * with the strides of r's view's layout. Returns 1 when a tested bit is
 * set, -1 when r cannot be laid out (tiles, too big). */
static int box_bits(const struct oregion *r, uint8_t *bits, int mark)
{
	const struct shape *s = r->view;
	if (!s || s->type == PT_TUPLE || s->rank != r->rank || !plain_memory_order(s))
		return -1;
	int64_t stride[OREG_MAX_RANK], eb = oelem_bits(s), n = 1;
	for (int i = 0; i < s->rank; i++) {
		int d = shape_minor_to_major(s, i);
		if (d < 0 || d >= s->rank || s->dims[d] < 0)
			return -1;
		stride[d] = n;
		n *= s->dims[d];
		if (n * eb > OREG_MAX_BITS)
			return -1;
	}
	if (eb <= 0)
		return -1;
	int64_t idx[OREG_MAX_RANK];
	for (int d = 0; d < r->rank; d++)
		if (r->lo[d] < 0 || r->hi[d] > s->dims[d])
			return -1;
	for (int d = 0; d < r->rank; d++) {
		if (r->hi[d] <= r->lo[d])
			return 0; /* empty */
		idx[d] = r->lo[d];
	}
	for (;;) {
		int64_t off = 0;
		for (int d = 0; d < r->rank; d++)
			off += idx[d] * stride[d];
		for (int64_t b = off * eb; b < (off + 1) * eb; b++) {
			if (mark)
				bits[b] = 1;
			else if (bits[b])
				return 1;
		}
		int d = r->rank - 1;
		while (d >= 0 && ++idx[d] == r->hi[d]) {
			idx[d] = r->lo[d];
			d--;
		}
		if (d < 0)
			return 0;
	}
}

/* What value `v` (defined by i at sub) writes. */
static void write_region(const struct hlo_instruction *i, int32_t sub, struct oregion *r)
{
	*r = region_whole;
	if (sub != 0)
		return;
	if (i->opcode == OP_DYNAMIC_UPDATE_SLICE) {
		if (dus_box(i, NULL, i->shape, r) < 0)
			*r = region_whole;
		r->view = i->shape;
		return;
	}
	if (i->opcode == OP_FUSION) {
		struct hlo_computation *fc = fused_comp(i);
		const struct hlo_instruction *root = fc ? fc->root : NULL;
		if (root && root->opcode == OP_DYNAMIC_UPDATE_SLICE && root->n_operands > 0 &&
		    root->operands[0]->opcode == OP_PARAMETER && dus_box(root, i, i->shape, r) < 0)
			*r = region_whole;
		else if (!root || root->opcode != OP_DYNAMIC_UPDATE_SLICE || root->n_operands == 0 ||
			 root->operands[0]->opcode != OP_PARAMETER)
			*r = region_whole;
		/* the buffer as the fusion's output; the box in its fused root's shape */
		if (!r->whole && root && !same_layout(root->shape, i->shape))
			*r = region_whole;
		r->view = i->shape;
	}
}

/* What use (u, operand k) reads. */
static void read_region(const struct hlo_instruction *u, int32_t k, int32_t sub, struct oregion *r)
{
	*r = region_whole;
	if (sub != 0)
		return;
	if ((u->opcode == OP_DYNAMIC_SLICE || u->opcode == OP_SLICE) && k == 0) {
		if (read_box(u, NULL, r) < 0)
			*r = region_whole;
		r->view = u->operands[0]->shape;
		return;
	}
	if (u->opcode == OP_FUSION) {
		struct hlo_computation *fc = fused_comp(u);
		const struct hlo_instruction *root = fc ? fc->root : NULL;
		if (root && (root->opcode == OP_DYNAMIC_SLICE || root->opcode == OP_SLICE) &&
		    root->n_operands > 0 && root->operands[0]->opcode == OP_PARAMETER &&
		    root->operands[0]->parameter_number == k && read_box(root, u, r) < 0)
			*r = region_whole;
		else if (!(root && (root->opcode == OP_DYNAMIC_SLICE || root->opcode == OP_SLICE) &&
			   root->n_operands > 0 && root->operands[0]->opcode == OP_PARAMETER &&
			   root->operands[0]->parameter_number == k))
			*r = region_whole;
		/* the buffer as the fusion's operand k; the box in the fused parameter's shape */
		if (!r->whole && !same_layout(root->operands[0]->shape, u->operands[k]->shape))
			*r = region_whole;
		r->view = u->operands[k]->shape;
	}
}

/* Overlap in memory: one bit of the buffer both boxes cover. In one view
 * (same dims and layout) the boxes compare dimension by dimension; in two,
 * bit by bit through each view's layout. */
static int region_overlaps(const struct oregion *a, const struct oregion *b)
{
	if (a->whole || b->whole)
		return 1;
	if (a->rank == b->rank && same_layout(a->view, b->view)) {
		for (int d = 0; d < a->rank; d++)
			if (!(a->lo[d] < b->hi[d] && b->lo[d] < a->hi[d]))
				return 0;
		return 1;
	}
	int64_t na = view_bits(a->view), nb = view_bits(b->view);
	if (na < 0 || nb < 0)
		return 1;
	uint8_t small[4096];
	size_t n = (size_t)(na > nb ? na : nb);
	uint8_t *bits = n <= sizeof(small) ? small : xcalloc(n, 1);
	memset(bits, 0, n <= sizeof(small) ? n : 0);
	int got = box_bits(a, bits, 1);
	if (got >= 0)
		got = box_bits(b, bits, 0);
	if (bits != small)
		free(bits);
	return got != 0;
}

static void region_print(FILE *f, const struct oregion *r)
{
	if (r->whole) {
		fputs("whole", f);
		return;
	}
	for (int d = 0; d < r->rank; d++)
		fprintf(f, "%s[%lld,%lld)", d ? "x" : "", (long long)r->lo[d], (long long)r->hi[d]);
}

/* ---- the oracle: per-instruction event tables ----------------------------- */

/* A use that reads: a bitcast only forwards (verdicts.md, "Buffer
 * semantics"); its users read, in its view. A root reads what it returns. */
static int reads_operand(const struct value_use *use)
{
	return use->instr->opcode != OP_BITCAST || use->instr->parent->root == use->instr;
}

struct oread {
	int32_t value;
	const struct value_use *use;
	struct oregion r;
};

struct ilist {
	int32_t n, cap;
	int32_t *v;
};

static void il_push(struct ilist *l, int32_t x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		l->v = xrealloc(l->v, (size_t)l->cap, sizeof(int32_t));
	}
	l->v[l->n++] = x;
}

struct oracle {
	struct hlo_module *m;
	struct arena a;
	struct oracle_limits lim;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct liveness lv;
	int32_t n_values, n_buffers, n_instr;
	/* executed (scheduled) computations */
	int32_t n_sc;
	struct hlo_computation **sc;
	int32_t *sc_of;              /* [comp index] -> sc index, or -1 */
	/* per instruction (gid) */
	struct ilist *defs;          /* values defined at the instruction's tick (phis of while/conditional: at its end) */
	struct ilist *start_defs;    /* [comp index]: values defined by its parameters */
	int32_t *n_reads;
	struct oread **reads;
	struct oregion *wreg;        /* [value] */
	struct ilist time0;          /* constants and entry parameter values */
	uint8_t *read_only;          /* [value] */
	uint8_t *executed_value;     /* [value]: defined in an executed computation */
	uint8_t *static_value;       /* [value]: takes part in the static hazards (not
				      * defined inside an embedded computation) */
	/* static hazards */
	int32_t n_static;
	struct oracle_static *statics;
	uint8_t *static_buf;         /* [buffer] */
};

const struct dataflow *oracle_dataflow(const struct oracle *o) { return o->df; }
const struct buffers *oracle_buffers(const struct oracle *o) { return o->bufs; }

static struct hlo_computation *call_callee(const struct hlo_instruction *i)
{
	return i->to_apply ? i->to_apply : (i->n_called > 0 ? i->called[0] : NULL);
}

static int mark_executed(struct oracle *o, struct hlo_computation *c, int depth)
{
	if (!c)
		return 0;
	if (depth > ORACLE_MAX_DEPTH)
		return -1;
	if (o->sc_of[c->index] >= 0)
		return 0;
	o->sc_of[c->index] = o->n_sc;
	o->sc[o->n_sc++] = c;
	for (int32_t k = 0; k < c->n_instrs; k++) {
		const struct hlo_instruction *i = c->instrs[k];
		int rc = 0;
		switch ((enum opcode)i->opcode) {
		case OP_WHILE:
			rc = mark_executed(o, i->ext->condition, depth + 1) | mark_executed(o, i->ext->body, depth + 1);
			break;
		case OP_CONDITIONAL:
			for (int32_t b = 0; b < i->ext->n_branches; b++)
				rc |= mark_executed(o, i->ext->branches[b], depth + 1);
			break;
		case OP_CALL:
			rc = mark_executed(o, call_callee(i), depth + 1);
			break;
		default:
			break;
		}
		if (rc)
			return -1;
	}
	return 0;
}

static void value_name(const struct oracle *o, int32_t v, FILE *f)
{
	const struct hlo_value *hv = &o->df->values[v];
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = dataflow_value_index(o->df, hv, idx);
	fprintf(f, "%s%s", hv->is_phi ? "phi:" : "", hv->def->name);
	if (n) {
		fputc('{', f);
		for (int32_t k = 0; k < n; k++)
			fprintf(f, "%s%d", k ? "," : "", idx[k]);
		fputc('}', f);
	}
	if (hv->def->parent && !hv->def->parent->is_entry)
		fprintf(f, "@%s", hv->def->parent->name);
}

static int is_read_only(struct oracle *o, const struct hlo_value *hv)
{
	const struct hlo_instruction *d = hv->def;
	if (d->opcode == OP_CONSTANT)
		return 1;
	if (d->opcode != OP_PARAMETER || d->parent != o->m->entry)
		return 0;
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = dataflow_value_index(o->df, hv, idx);
	for (int32_t k = 0; k < o->m->n_aliases; k++) {
		const struct io_alias *al = &o->m->aliases[k];
		if (al->param != d->parameter_number || al->param_index.n != n)
			continue;
		if (n == 0 || !memcmp(al->param_index.idx, idx, (size_t)n * sizeof(int32_t)))
			return 0;
	}
	return 1;
}

static void add_static(struct oracle *o, enum oracle_kind k, int32_t b, int32_t v, int32_t w)
{
	o->statics = xrealloc(o->statics, (size_t)o->n_static + 1, sizeof(*o->statics));
	o->statics[o->n_static++] = (struct oracle_static){k, b, v, w};
	o->static_buf[b] = 1;
}

static void find_statics(struct oracle *o)
{
	const struct dataflow *df = o->df;
	const struct buffers *bf = o->bufs;
	o->static_buf = xcalloc((size_t)o->n_buffers, 1);
	/* read-only written: a read-only value shares its buffer with another
	 * value (of an executed computation) */
	for (int32_t v = 0; v < o->n_values; v++) {
		if (!o->read_only[v] || !o->static_value[v])
			continue;
		int32_t b = bf->buffer_of[v];
		const struct hlo_buffer *hb = &bf->buffers[b];
		for (int32_t k = 0; k < hb->n_values; k++) {
			int32_t w = hb->values[k];
			if (w != v && o->static_value[w]) {
				add_static(o, OK_READ_ONLY_WRITTEN, b, v, w);
				break;
			}
		}
	}
	/* entry output leaves */
	const struct hlo_instruction *root = o->m->entry ? o->m->entry->root : NULL;
	if (!root)
		return;
	const struct shape_tree *t = dataflow_tree(df, root);
	int32_t *leaf_buf = xcalloc((size_t)t->n * 8 + 8, sizeof(int32_t));
	int32_t *leaf_val = xcalloc((size_t)t->n * 8 + 8, sizeof(int32_t));
	int32_t nl = 0;
	for (int32_t s = 0; s < t->n; s++) {
		if (t->nk[s] >= 0)
			continue; /* a tuple: its pointer table is not an output leaf */
		const struct shape *ss = dataflow_subshape(df, root, s);
		if (!ss || !shape_is_array(ss))
			continue;
		const struct value_set *vs = dataflow_set(df, root, s);
		const int32_t *ids = value_set_ids(vs);
		int32_t here0 = nl;
		for (int32_t k = 0; k < vs->n; k++) {
			int32_t v = ids[k];
			int32_t b = bf->buffer_of[v];
			if (o->read_only[v])
				add_static(o, OK_READ_ONLY_OUTPUT, b, v, -1);
			/* distinct buffers of this leaf, then compare with earlier leaves */
			int dup_here = 0;
			for (int32_t q = here0; q < nl; q++)
				if (leaf_buf[q] == b)
					dup_here = 1;
			if (dup_here)
				continue;
			for (int32_t q = 0; q < here0; q++)
				if (leaf_buf[q] == b) {
					add_static(o, OK_OUTPUTS_NOT_DISTINCT, b, leaf_val[q], v);
					break;
				}
			if (nl < t->n * 8 + 8) {
				leaf_buf[nl] = b;
				leaf_val[nl++] = v;
			}
		}
	}
	free(leaf_buf);
	free(leaf_val);
}

struct oracle *oracle_new(struct hlo_module *m, const struct oracle_limits *lim, char *err,
			  size_t cap)
{
	struct oracle *o = xcalloc(1, sizeof(*o));
	o->m = m;
	arena_init(&o->a);
	if (lim)
		o->lim = *lim;
	else
		oracle_default_limits(&o->lim);
	struct diag d;
	diag_init(&d, NULL);
	o->df = m->entry ? dataflow_run(m, &o->a, &d) : NULL;
	if (!o->df) {
		snprintf(err, cap, "dataflow: %s", m->entry ? d.first : "no entry computation");
		oracle_free(o);
		return NULL;
	}
	o->ip = inplace_build(o->df, &o->a);
	o->bufs = buffers_build(o->df, o->ip, &o->a);
	liveness_init(&o->lv, o->df, o->ip, NULL);
	o->n_values = o->df->n_values;
	o->n_buffers = o->bufs->n_buffers;
	o->n_instr = m->n_instrs;

	o->sc = xcalloc((size_t)m->n_comps, sizeof(*o->sc));
	o->sc_of = xcalloc((size_t)m->n_comps, sizeof(int32_t));
	for (int32_t c = 0; c < m->n_comps; c++)
		o->sc_of[c] = -1;
	if (mark_executed(o, m->entry, 0) < 0) {
		snprintf(err, cap, "computations nested deeper than %d", ORACLE_MAX_DEPTH);
		oracle_free(o);
		return NULL;
	}

	o->defs = xcalloc((size_t)o->n_instr, sizeof(struct ilist));
	o->start_defs = xcalloc((size_t)m->n_comps, sizeof(struct ilist));
	o->n_reads = xcalloc((size_t)o->n_instr, sizeof(int32_t));
	o->reads = xcalloc((size_t)o->n_instr, sizeof(struct oread *));
	o->wreg = xcalloc((size_t)o->n_values, sizeof(struct oregion));
	o->read_only = xcalloc((size_t)o->n_values, 1);
	o->executed_value = xcalloc((size_t)o->n_values, 1);
	o->static_value = xcalloc((size_t)o->n_values, 1);
	for (int32_t v = 0; v < o->n_values; v++) {
		const struct hlo_value *hv = &o->df->values[v];
		const struct hlo_instruction *d0 = hv->def;
		write_region(d0, hv->sub, &o->wreg[v]);
		int executed = d0->parent && o->sc_of[d0->parent->index] >= 0;
		o->executed_value[v] = (uint8_t)executed;
		o->static_value[v] = (uint8_t)(d0->parent && !(d0->parent->context & CALL_EMBEDDED));
		o->read_only[v] = (uint8_t)(o->static_value[v] && is_read_only(o, hv));
		if (!executed)
			continue;
		if (d0->opcode == OP_CONSTANT || (d0->opcode == OP_PARAMETER && d0->parent == m->entry))
			il_push(&o->time0, v);
		else if (d0->opcode == OP_PARAMETER)
			il_push(&o->start_defs[d0->parent->index], v);
		else
			il_push(&o->defs[d0->gid], v);
		for (int32_t u = 0; u < hv->n_uses; u++)
			o->n_reads[hv->uses[u].instr->gid] += reads_operand(&hv->uses[u]);
	}
	for (int32_t g = 0; g < o->n_instr; g++) {
		o->reads[g] = xcalloc((size_t)o->n_reads[g], sizeof(struct oread));
		o->n_reads[g] = 0;
	}
	for (int32_t v = 0; v < o->n_values; v++) {
		const struct hlo_value *hv = &o->df->values[v];
		if (!o->executed_value[v])
			continue;
		for (int32_t u = 0; u < hv->n_uses; u++) {
			const struct value_use *use = &hv->uses[u];
			if (!reads_operand(use))
				continue;
			struct oread *r = &o->reads[use->instr->gid][o->n_reads[use->instr->gid]++];
			r->value = v;
			r->use = use;
			read_region(use->instr, use->operand, use->sub, &r->r);
		}
	}
	find_statics(o);
	return o;
}

void oracle_free(struct oracle *o)
{
	if (!o)
		return;
	for (int32_t g = 0; o->defs && g < o->n_instr; g++)
		free(o->defs[g].v);
	for (int32_t c = 0; o->start_defs && c < o->m->n_comps; c++)
		free(o->start_defs[c].v);
	for (int32_t g = 0; o->reads && g < o->n_instr; g++)
		free(o->reads[g]);
	free(o->defs);
	free(o->start_defs);
	free(o->reads);
	free(o->n_reads);
	free(o->wreg);
	free(o->time0.v);
	free(o->read_only);
	free(o->executed_value);
	free(o->static_value);
	free(o->statics);
	free(o->static_buf);
	free(o->sc);
	free(o->sc_of);
	arena_free(&o->a);
	free(o);
}

/* ---- schedules ------------------------------------------------------------ */

/* Control edges added for a repair check. */
struct edge_list {
	int32_t n;
	const struct hlo_instruction *const *from, *const *to;
};

struct comp_space {
	struct hlo_computation *c;
	int32_t n_eff;
	struct hlo_instruction **eff;
	int64_t n_orders;
	int32_t *orders;   /* n_orders rows of n_eff indices into eff */
};

struct space {
	int32_t n;
	struct comp_space *cs;
	int64_t total;
	enum oracle_status status;
	char why[256];
};

static void space_free(struct space *sp)
{
	for (int32_t k = 0; sp->cs && k < sp->n; k++) {
		free(sp->cs[k].eff);
		free(sp->cs[k].orders);
	}
	free(sp->cs);
	memset(sp, 0, sizeof(*sp));
}

static int effective(const struct hlo_instruction *i)
{
	return i->opcode != OP_PARAMETER && i->opcode != OP_CONSTANT;
}

struct enum_state {
	int32_t n;
	uint64_t **succ;     /* bitsets over effective indices */
	int32_t *npred;
	uint8_t *placed;
	int32_t *cur;
	struct comp_space *cs;
	int64_t cap;
	int64_t cap_rows;
};

static void push_order(struct enum_state *es)
{
	struct comp_space *cs = es->cs;
	if (cs->n_orders == es->cap_rows) {
		es->cap_rows = es->cap_rows ? 2 * es->cap_rows : 16;
		cs->orders = xrealloc(cs->orders, (size_t)(es->cap_rows * (cs->n_eff ? cs->n_eff : 1)),
				      sizeof(int32_t));
	}
	memcpy(cs->orders + cs->n_orders * cs->n_eff, es->cur, (size_t)cs->n_eff * sizeof(int32_t));
	cs->n_orders++;
}

static void extend(struct enum_state *es, int32_t depth)
{
	if (es->cs->n_orders > es->cap)
		return;
	if (depth == es->n) {
		push_order(es);
		return;
	}
	int32_t words = (es->n + 63) / 64;
	for (int32_t i = 0; i < es->n && es->cs->n_orders <= es->cap; i++) {
		if (es->placed[i] || es->npred[i])
			continue;
		es->placed[i] = 1;
		es->cur[depth] = i;
		for (int32_t w = 0; w < words; w++)
			for (uint64_t bits = es->succ[i][w]; bits; bits &= bits - 1)
				es->npred[w * 64 + __builtin_ctzll(bits)]--;
		extend(es, depth + 1);
		for (int32_t w = 0; w < words; w++)
			for (uint64_t bits = es->succ[i][w]; bits; bits &= bits - 1)
				es->npred[w * 64 + __builtin_ctzll(bits)]++;
		es->placed[i] = 0;
	}
}

/* Orders of one computation: every linear extension (given_only: the text
 * order) of its effective instructions under data + control edges, the extra
 * edge, and root last. */
static int comp_space_build(struct comp_space *cs, struct hlo_computation *c,
			    const struct edge_list *extra, int given_only, int64_t cap, char *why,
			    size_t wcap)
{
	int32_t n = c->n_instrs, words = (n + 63) / 64;
	const struct hlo_instruction *root = c->root;
	cs->c = c;
	/* adjacency (full), as bitsets of successors */
	uint64_t *adj = xcalloc((size_t)n * (size_t)words, sizeof(uint64_t));
#define ADJ(x) (adj + (size_t)(x) * (size_t)words)
#define SET(bs, y) ((bs)[(y) / 64] |= 1ull << ((y) % 64))
#define HAS(bs, y) (((bs)[(y) / 64] >> ((y) % 64)) & 1)
	for (int32_t k = 0; k < n; k++) {
		const struct hlo_instruction *i = c->instrs[k];
		for (int32_t j = 0; j < i->n_operands; j++)
			if (i->operands[j]->parent == c && i->operands[j] != root)
				SET(ADJ(i->operands[j]->index), k);
		for (int32_t j = 0; j < i->ext->n_ctrl_preds; j++)
			if (i->ext->ctrl_preds[j]->parent == c && i->ext->ctrl_preds[j] != root)
				SET(ADJ(i->ext->ctrl_preds[j]->index), k);
		if (root && i != root)
			SET(ADJ(k), root->index);
	}
	for (int32_t e = 0; extra && e < extra->n; e++) {
		const struct hlo_instruction *xf = extra->from[e], *xt = extra->to[e];
		if (xf->parent == c && xt->parent == c && xf != root)
			SET(ADJ(xf->index), xt->index);
	}
	/* Kahn, then closure in reverse topological order */
	int32_t *indeg = xcalloc((size_t)n, sizeof(int32_t)), *topo = xcalloc((size_t)n, sizeof(int32_t));
	for (int32_t x = 0; x < n; x++)
		for (int32_t y = 0; y < n; y++)
			if (HAS(ADJ(x), y))
				indeg[y]++;
	int32_t nt = 0;
	for (int32_t x = 0; x < n; x++)
		if (!indeg[x])
			topo[nt++] = x;
	for (int32_t h = 0; h < nt; h++)
		for (int32_t y = 0; y < n; y++)
			if (HAS(ADJ(topo[h]), y) && --indeg[y] == 0)
				topo[nt++] = y;
	int rc = 0;
	if (nt != n) {
		snprintf(why, wcap, "computation %s: data and control edges form a cycle", c->name);
		rc = -1;
		goto out;
	}
	for (int32_t h = n - 1; h >= 0; h--) {
		int32_t x = topo[h];
		for (int32_t y = 0; y < n; y++)
			if (HAS(ADJ(x), y))
				for (int32_t w = 0; w < words; w++)
					ADJ(x)[w] |= ADJ(y)[w];
	}
	/* effective instructions */
	int32_t *eidx = xcalloc((size_t)n, sizeof(int32_t));
	cs->eff = xcalloc((size_t)n, sizeof(*cs->eff));
	cs->n_eff = 0;
	for (int32_t k = 0; k < n; k++) {
		eidx[k] = -1;
		if (effective(c->instrs[k])) {
			eidx[k] = cs->n_eff;
			cs->eff[cs->n_eff++] = c->instrs[k];
		}
	}
	int32_t ne = cs->n_eff, ewords = (ne + 63) / 64;
	if (given_only) {
		/* text order, root moved last */
		cs->orders = xcalloc((size_t)(ne ? ne : 1), sizeof(int32_t));
		int32_t p = 0;
		for (int32_t k = 0; k < n; k++)
			if (eidx[k] >= 0 && c->instrs[k] != root)
				cs->orders[p++] = eidx[k];
		if (root && eidx[root->index] >= 0)
			cs->orders[p++] = eidx[root->index];
		for (int32_t a = 0; a < ne && !rc; a++)
			for (int32_t b = a + 1; b < ne; b++)
				if (HAS(ADJ(cs->eff[cs->orders[b]]->index), cs->eff[cs->orders[a]]->index)) {
					snprintf(why, wcap, "computation %s: the given order puts %s before %s",
						 c->name, cs->eff[cs->orders[a]]->name, cs->eff[cs->orders[b]]->name);
					rc = -1;
					break;
				}
		if (rc && extra && extra->n > 0) {
			/* edges added to the module (a repair): its printed order
			 * made to respect them as rewrite.c prints it, the first
			 * printed among the ready instructions, the root last */
			rc = 0;
			uint8_t *done = xcalloc((size_t)n + 1, 1);
			p = 0;
			for (int32_t round = 0; round < n; round++) {
				int32_t pick = -1;
				for (int32_t k = 0; k < n && pick < 0; k++) {
					if (done[k] || eidx[k] < 0 || c->instrs[k] == root)
						continue;
					int ready = 1;
					for (int32_t j = 0; j < n && ready; j++)
						if (j != k && !done[j] && eidx[j] >= 0 && HAS(ADJ(j), k))
							ready = 0;
					if (ready)
						pick = k;
				}
				if (pick < 0)
					break;
				done[pick] = 1;
				cs->orders[p++] = eidx[pick];
			}
			if (root && eidx[root->index] >= 0)
				cs->orders[p++] = eidx[root->index];
			free(done);
		}
		cs->n_orders = 1;
		free(eidx);
		goto out;
	}
	struct enum_state es = {0};
	es.n = ne;
	es.cs = cs;
	es.cap = cap;
	es.succ = xcalloc((size_t)(ne ? ne : 1), sizeof(uint64_t *));
	es.npred = xcalloc((size_t)(ne ? ne : 1), sizeof(int32_t));
	es.placed = xcalloc((size_t)(ne ? ne : 1), 1);
	es.cur = xcalloc((size_t)(ne ? ne : 1), sizeof(int32_t));
	for (int32_t a = 0; a < ne; a++) {
		es.succ[a] = xcalloc((size_t)(ewords ? ewords : 1), sizeof(uint64_t));
		for (int32_t b = 0; b < ne; b++)
			if (a != b && HAS(ADJ(cs->eff[a]->index), cs->eff[b]->index)) {
				SET(es.succ[a], b);
				es.npred[b]++;
			}
	}
	extend(&es, 0);
	for (int32_t a = 0; a < ne; a++)
		free(es.succ[a]);
	free(es.succ);
	free(es.npred);
	free(es.placed);
	free(es.cur);
	free(eidx);
out:
#undef ADJ
#undef SET
#undef HAS
	free(adj);
	free(indeg);
	free(topo);
	return rc;
}

/* The schedule space of the module (given_only: the printed schedule). */
static void space_build(struct oracle *o, struct space *sp, const struct edge_list *extra,
			int given_only)
{
	memset(sp, 0, sizeof(*sp));
	sp->n = o->n_sc;
	sp->cs = xcalloc((size_t)sp->n, sizeof(*sp->cs));
	sp->total = 1;
	int64_t cap = o->lim.max_schedules;
	for (int32_t k = 0; k < sp->n; k++) {
		struct comp_space *cs = &sp->cs[k];
		if (comp_space_build(cs, o->sc[k], extra, given_only, cap, sp->why, sizeof(sp->why)) < 0) {
			sp->status = ORACLE_BAD_INPUT;
			return;
		}
		if (cs->n_orders == 0) { /* cannot happen for an acyclic order; be safe */
			sp->total = 0;
			continue;
		}
		if (cs->n_orders > cap || sp->total > cap / cs->n_orders + 1) {
			sp->total = cap + 1;
			sp->status = ORACLE_TOO_MANY;
			snprintf(sp->why, sizeof(sp->why), "more than %lld schedules",
				 (long long)o->lim.max_schedules);
			return;
		}
		sp->total *= cs->n_orders;
		if (sp->total > cap) {
			sp->status = ORACLE_TOO_MANY;
			snprintf(sp->why, sizeof(sp->why), "more than %lld schedules",
				 (long long)o->lim.max_schedules);
			return;
		}
	}
}

int64_t oracle_count_schedules(struct oracle *o)
{
	struct space sp;
	space_build(o, &sp, NULL, 0);
	int64_t n = sp.status == ORACLE_BAD_INPUT ? -1 : sp.total;
	space_free(&sp);
	return n;
}

static void schedule_print(const struct space *sp, const int64_t *pick, FILE *f)
{
	for (int32_t k = 0; k < sp->n; k++) {
		const struct comp_space *cs = &sp->cs[k];
		fprintf(f, "  %s:", cs->c->name);
		const int32_t *ord = cs->orders + pick[k] * cs->n_eff;
		for (int32_t i = 0; i < cs->n_eff; i++)
			fprintf(f, " %s", cs->eff[ord[i]]->name);
		fputc('\n', f);
	}
}

/* ---- traces ---------------------------------------------------------------- */

struct oev {
	int32_t t;
	uint8_t read, end;
	int32_t value;
	const struct oregion *r;
	const struct value_use *use;
	const struct hlo_instruction *at;
};

struct tracer {
	struct oracle *o;
	const struct space *sp;
	const int64_t *pick;
	int32_t *choice, *nopt;
	const struct hlo_instruction **chooser;
	int32_t n_choice, cap_choice, pos;
	struct oev *ev;
	int64_t n_ev, cap_ev;
	int32_t t;
	int overflow;
};

static void emit(struct tracer *tr, int read, int end, int32_t v, const struct oregion *r,
		 const struct value_use *use, const struct hlo_instruction *at)
{
	if (tr->n_ev >= tr->o->lim.max_events) {
		tr->overflow = 1;
		return;
	}
	if (tr->n_ev == tr->cap_ev) {
		tr->cap_ev = tr->cap_ev ? 2 * tr->cap_ev : 64;
		tr->ev = xrealloc(tr->ev, (size_t)tr->cap_ev, sizeof(struct oev));
	}
	tr->ev[tr->n_ev++] = (struct oev){tr->t, (uint8_t)read, (uint8_t)end, v, r, use, at};
}

static void emit_defs(struct tracer *tr, const struct ilist *l, const struct hlo_instruction *at)
{
	for (int32_t k = 0; k < l->n; k++)
		emit(tr, 0, 0, l->v[k], &tr->o->wreg[l->v[k]], NULL, at);
}

static void emit_reads(struct tracer *tr, const struct hlo_instruction *i)
{
	struct oracle *o = tr->o;
	for (int32_t k = 0; k < o->n_reads[i->gid]; k++) {
		const struct oread *r = &o->reads[i->gid][k];
		emit(tr, 1, 0, r->value, &r->r, r->use, i);
	}
}

/* Every value at the root of c, read at the end (of the program / body). */
static void emit_root_reads(struct tracer *tr, const struct hlo_computation *c)
{
	const struct dataflow *df = tr->o->df;
	const struct hlo_instruction *root = c->root;
	if (!root)
		return;
	const struct shape_tree *t = dataflow_tree(df, root);
	for (int32_t s = 0; s < t->n; s++) {
		const struct value_set *vs = dataflow_set(df, root, s);
		const int32_t *ids = value_set_ids(vs);
		for (int32_t k = 0; k < vs->n; k++)
			emit(tr, 1, 1, ids[k], &region_whole, NULL, root);
	}
}

static int32_t choose(struct tracer *tr, int32_t nopts, const struct hlo_instruction *who)
{
	if (tr->pos == tr->cap_choice) {
		tr->cap_choice = tr->cap_choice ? 2 * tr->cap_choice : 16;
		tr->choice = xrealloc(tr->choice, (size_t)tr->cap_choice, sizeof(int32_t));
		tr->nopt = xrealloc(tr->nopt, (size_t)tr->cap_choice, sizeof(int32_t));
		tr->chooser = xrealloc(tr->chooser, (size_t)tr->cap_choice, sizeof(*tr->chooser));
	}
	if (tr->pos >= tr->n_choice) {
		tr->choice[tr->pos] = 0;
		tr->n_choice = tr->pos + 1;
	}
	tr->nopt[tr->pos] = nopts;
	tr->chooser[tr->pos] = who;
	return tr->choice[tr->pos++];
}

static void run_comp(struct tracer *tr, const struct hlo_computation *c, int is_body, int depth);

static void run_instr(struct tracer *tr, const struct hlo_instruction *i, int depth)
{
	struct oracle *o = tr->o;
	if (tr->overflow)
		return;
	switch ((enum opcode)i->opcode) {
	case OP_WHILE: {
		tr->t++;
		emit_reads(tr, i);
		int32_t iters = choose(tr, 3, i);
		for (int32_t k = 0; k <= iters && !tr->overflow; k++) {
			run_comp(tr, i->ext->condition, 0, depth + 1);
			if (k < iters)
				run_comp(tr, i->ext->body, 1, depth + 1);
		}
		tr->t++;
		emit_defs(tr, &o->defs[i->gid], i);
		break;
	}
	case OP_CONDITIONAL: {
		tr->t++;
		emit_reads(tr, i);
		if (i->ext->n_branches > 0) {
			int32_t b = choose(tr, i->ext->n_branches, i);
			run_comp(tr, i->ext->branches[b], 0, depth + 1);
		}
		tr->t++;
		emit_defs(tr, &o->defs[i->gid], i);
		break;
	}
	case OP_CALL:
		tr->t++;
		emit_defs(tr, &o->defs[i->gid], i);
		emit_reads(tr, i);
		run_comp(tr, call_callee(i), 0, depth + 1);
		break;
	default:
		tr->t++;
		emit_defs(tr, &o->defs[i->gid], i);
		emit_reads(tr, i);
		break;
	}
}

static void run_comp(struct tracer *tr, const struct hlo_computation *c, int is_body, int depth)
{
	struct oracle *o = tr->o;
	if (!c || tr->overflow)
		return;
	int32_t k = o->sc_of[c->index];
	if (k < 0 || depth > ORACLE_MAX_DEPTH) {
		tr->overflow = 1;
		return;
	}
	tr->t++;
	emit_defs(tr, &o->start_defs[c->index], c->n_params ? c->params[0] : c->root);
	const struct comp_space *cs = &tr->sp->cs[k];
	const int32_t *ord = cs->orders + tr->pick[k] * cs->n_eff;
	for (int32_t j = 0; j < cs->n_eff && !tr->overflow; j++)
		run_instr(tr, cs->eff[ord[j]], depth);
	if (is_body) {
		tr->t++;
		emit_root_reads(tr, c);
	}
}

/* One trace of the current choice vector. */
static void run_trace(struct tracer *tr)
{
	struct oracle *o = tr->o;
	tr->n_ev = 0;
	tr->t = 0;
	tr->pos = 0;
	emit_defs(tr, &o->time0, NULL);
	const struct hlo_computation *e = o->m->entry;
	int32_t k = o->sc_of[e->index];
	const struct comp_space *cs = &tr->sp->cs[k];
	const int32_t *ord = cs->orders + tr->pick[k] * cs->n_eff;
	for (int32_t j = 0; j < cs->n_eff && !tr->overflow; j++)
		run_instr(tr, cs->eff[ord[j]], 0);
	tr->t++;
	emit_root_reads(tr, e);
	tr->n_choice = tr->pos; /* choices past pos belong to a longer previous trace */
}

/* Advance the choice vector; 0 when every trace has been run. */
static int next_trace(struct tracer *tr)
{
	for (int32_t p = tr->n_choice - 1; p >= 0; p--)
		if (tr->choice[p] + 1 < tr->nopt[p]) {
			tr->choice[p]++;
			tr->n_choice = p + 1;
			return 1;
		}
	return 0;
}

static void trace_print(const struct tracer *tr, FILE *f)
{
	if (!tr->n_choice) {
		fputs("  trace: no loops or conditionals\n", f);
		return;
	}
	fputs("  trace:", f);
	for (int32_t p = 0; p < tr->n_choice; p++) {
		const struct hlo_instruction *w = tr->chooser[p];
		if (w->opcode == OP_WHILE)
			fprintf(f, " %s:%d-iterations", w->name, tr->choice[p]);
		else
			fprintf(f, " %s:branch-%d", w->name, tr->choice[p]);
	}
	fputc('\n', f);
}

/* ---- hazard detection on a trace ------------------------------------------ */

struct found {
	int32_t v, w;
	const struct hlo_instruction *at;
	int end_read;
	enum oracle_kind kind;
};

/* Scratch of a trace scan: the last definition event of each value, the
 * definition events seen so far. */
struct scan {
	int32_t *last_def;        /* [value] */
	int32_t *defs;            /* indices of definition events */
	int64_t cap_defs;
};

struct eval {
	struct oracle *o;
	const uint8_t *want;      /* [buffer] or NULL for all */
	int need_triples;
	int stop_at_first;        /* stop the trace at the first wanted hazard */
	uint8_t *buf_haz;         /* [buffer], per schedule */
	int any;                  /* per schedule */
	struct found *tri;        /* per schedule, distinct */
	int32_t n_tri, cap_tri;
	char **witness_of;        /* [buffer]: first witness text (global) */
	char *witness_any;
	struct scan sc;
};

static void witness_text(struct eval *ev, const struct tracer *tr, const struct oev *def_v,
			 const struct oev *def_w, const struct oev *rd, enum oracle_kind kind,
			 char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "%s hazard: ", oracle_kind_name(kind));
	value_name(ev->o, def_w->value, f);
	fprintf(f, " (defined at t=%d by %s, writes ", def_w->t, def_w->at ? def_w->at->name : "entry");
	region_print(f, def_w->r);
	fputs(") into the buffer of ", f);
	value_name(ev->o, rd->value, f);
	fprintf(f, " (defined at t=%d by %s), read at t=%d by %s%s (reads ", def_v ? def_v->t : 0,
		def_v && def_v->at ? def_v->at->name : "entry", rd->t, rd->at ? rd->at->name : "?",
		rd->end ? " (end of run)" : "");
	region_print(f, rd->r);
	fputs(")\n  schedule:\n", f);
	schedule_print(tr->sp, tr->pick, f);
	trace_print(tr, f);
	fclose(f);
	*out = buf;
}

static void record(struct eval *ev, const struct tracer *tr, const struct oev *def_v,
		   const struct oev *def_w, const struct oev *rd, enum oracle_kind kind)
{
	struct oracle *o = ev->o;
	int32_t b = o->bufs->buffer_of[rd->value];
	ev->buf_haz[b] = 1;
	ev->any = 1;
	if (!ev->witness_of[b])
		witness_text(ev, tr, def_v, def_w, rd, kind, &ev->witness_of[b]);
	if (!ev->witness_any)
		ev->witness_any = strdup(ev->witness_of[b]);
	if (!ev->need_triples)
		return;
	struct found fd = {rd->value, def_w->value, rd->at, rd->end, kind};
	for (int32_t k = 0; k < ev->n_tri; k++) {
		const struct found *x = &ev->tri[k];
		if (x->v == fd.v && x->w == fd.w && x->at == fd.at && x->end_read == fd.end_read &&
		    x->kind == fd.kind)
			return;
	}
	if (ev->n_tri == ev->cap_tri) {
		ev->cap_tri = ev->cap_tri ? 2 * ev->cap_tri : 8;
		ev->tri = xrealloc(ev->tri, (size_t)ev->cap_tri, sizeof(struct found));
	}
	ev->tri[ev->n_tri++] = fd;
}

/* Tokens hold no data: they are never overwritten nor read (docs/hazards.md 3). */
static int oracle_value_is_token(const struct oracle *o, int32_t v)
{
	const struct hlo_value *hv = &o->df->values[v];
	const struct shape *sh = dataflow_subshape(o->df, hv->def, hv->sub);
	return sh && sh->type == PT_TOKEN;
}

/* May the reading instruction overwrite v's buffer with hw at the same time?
 * docs/hazards.md 3: the in-place exemption holds only for the read at the
 * pair's own operand slot; a value that also sits there but is read at
 * another slot (a scatter reading its indices from the buffer it writes) is
 * not exempt by it, and is judged by XLA's other rules at the slot it is
 * read from (a fusion parameter used elementwise shares). */
static int oracle_can_share(struct oracle *o, const struct value_use *u, const struct hlo_value *hw)
{
	/* XLA refuses a constant operand before it looks at in-place pairs
	 * (HloDataflowAnalysis::CanShareOperandBufferWithUser) */
	if (u->instr->operands[u->operand]->opcode == OP_CONSTANT)
		return 0;
	const struct inplace_pair *pr;
	int32_t np = inplace_pairs(o->ip, u->instr, &pr);
	for (int32_t i = 0; i < np; i++)
		if (pr[i].output_sub == hw->sub && pr[i].operand == u->operand &&
		    pr[i].operand_sub == u->sub)
			return 1;
	return can_share_buffer_at(o->df, o->ip, u->instr->operands[u->operand], u->sub, u->instr,
				   hw->sub, u->operand, NULL);
}

/* What a trace scan calls for each hazard triple found: the definition
 * events of v and w and the read of v. Returns 1 to stop the scan. */
typedef int (*hazard_fn)(void *ctx, const struct tracer *tr, const struct oev *def_v,
			 const struct oev *def_w, const struct oev *rd, enum oracle_kind kind);

/* Scan one trace for hazard triples on the buffers marked in want (NULL:
 * every buffer). Returns 1 when fn stopped it. */
static int scan_trace(struct oracle *o, struct scan *sc, const struct tracer *tr, const uint8_t *want,
		      hazard_fn fn, void *ctx)
{
	const int32_t *buffer_of = o->bufs->buffer_of;
	if (!sc->last_def)
		sc->last_def = xcalloc((size_t)o->n_values + 1, sizeof(int32_t));
	for (int32_t v = 0; v < o->n_values; v++)
		sc->last_def[v] = -1;
	int64_t nd = 0;
	if (sc->cap_defs < tr->n_ev) {
		sc->cap_defs = tr->n_ev;
		sc->defs = xrealloc(sc->defs, (size_t)sc->cap_defs, sizeof(int32_t));
	}
	for (int64_t g = 0; g < tr->n_ev;) {
		int64_t h = g;
		int32_t t = tr->ev[g].t;
		while (h < tr->n_ev && tr->ev[h].t == t)
			h++;
		/* definitions of this tick become visible to its reads ... */
		int64_t nd0 = nd;
		for (int64_t e = g; e < h; e++)
			if (!tr->ev[e].read)
				sc->defs[nd++] = (int32_t)e;
		/* ... which read the instance defined strictly before */
		for (int64_t e = g; e < h; e++) {
			const struct oev *rd = &tr->ev[e];
			if (!rd->read)
				continue;
			int32_t v = rd->value, b = buffer_of[v];
			if (want && !want[b])
				continue;
			if (oracle_value_is_token(o, v))
				continue; /* tokens hold no data (docs/hazards.md 3) */
			int32_t dv = sc->last_def[v];
			if (dv < 0)
				continue; /* not defined yet in this trace: nothing to corrupt */
			const struct oev *def_v = &tr->ev[dv];
			int32_t t1 = def_v->t, t3 = rd->t;
			for (int64_t j = nd - 1; j >= 0; j--) {
				const struct oev *dw = &tr->ev[sc->defs[j]];
				int32_t t2 = dw->t;
				if (t2 < t1)
					break;
				if (dw->value == v || buffer_of[dw->value] != b ||
				    oracle_value_is_token(o, dw->value))
					continue;
				if (!region_overlaps(dw->r, rd->r))
					continue;
				enum oracle_kind kind;
				if (t2 == t1)
					kind = OK_SAME_TIME;
				else if (t2 < t3)
					kind = OK_OVERWRITE;
				else {
					/* t2 == t3: w is defined by the reading instruction */
					const struct value_use *u = rd->use;
					const struct hlo_value *hw = &o->df->values[dw->value];
					if (u && hw->def == u->instr && oracle_can_share(o, u, hw))
						continue;
					kind = OK_SAME_INSTRUCTION;
				}
				if (fn(ctx, tr, def_v, dw, rd, kind))
					return 1;
			}
		}
		for (int64_t j = nd0; j < nd; j++)
			sc->last_def[tr->ev[sc->defs[j]].value] = sc->defs[j];
		g = h;
	}
	return 0;
}

static void scan_free(struct scan *sc)
{
	free(sc->last_def);
	free(sc->defs);
	memset(sc, 0, sizeof(*sc));
}

static int record_fn(void *ctx, const struct tracer *tr, const struct oev *def_v,
		     const struct oev *def_w, const struct oev *rd, enum oracle_kind kind)
{
	struct eval *ev = ctx;
	record(ev, tr, def_v, def_w, rd, kind);
	return ev->stop_at_first;
}

/* Scan one trace. Returns 1 when it stopped at a wanted hazard. */
static int eval_trace(struct eval *ev, const struct tracer *tr)
{
	return scan_trace(ev->o, &ev->sc, tr, ev->want, record_fn, ev);
}

/* Run every trace of one schedule. Returns the status. */
static enum oracle_status eval_schedule(struct eval *ev, struct tracer *tr)
{
	tr->n_choice = 0;
	int64_t n = 0;
	for (;;) {
		tr->overflow = 0;
		run_trace(tr);
		if (tr->overflow)
			return ORACLE_TOO_MANY;
		if (++n > ev->o->lim.max_traces)
			return ORACLE_TOO_MANY;
		if (eval_trace(ev, tr) && ev->stop_at_first)
			return ORACLE_OK;
		if (!next_trace(tr))
			return ORACLE_OK;
	}
}

static void tracer_free(struct tracer *tr)
{
	free(tr->choice);
	free(tr->nopt);
	free(tr->chooser);
	free(tr->ev);
}

static char *schedule_text(const struct space *sp, const int64_t *pick)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("hazard-free schedule:\n", f);
	schedule_print(sp, pick, f);
	fclose(f);
	return buf;
}

/* Odometer over the schedules of a space. */
static int next_pick(const struct space *sp, int64_t *pick)
{
	for (int32_t k = sp->n - 1; k >= 0; k--) {
		if (pick[k] + 1 < sp->cs[k].n_orders) {
			pick[k]++;
			return 1;
		}
		pick[k] = 0;
	}
	return 0;
}

/* ---- the module as given -------------------------------------------------- */

static void eval_init(struct eval *ev, struct oracle *o)
{
	memset(ev, 0, sizeof(*ev));
	ev->o = o;
	ev->buf_haz = xcalloc((size_t)o->n_buffers, 1);
	ev->witness_of = xcalloc((size_t)o->n_buffers, sizeof(char *));
}

static void eval_free(struct eval *ev)
{
	for (int32_t b = 0; b < ev->o->n_buffers; b++)
		free(ev->witness_of[b]);
	free(ev->witness_of);
	free(ev->witness_any);
	free(ev->buf_haz);
	free(ev->tri);
	scan_free(&ev->sc);
}

static char *static_text(const struct oracle *o, const struct oracle_static *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "%s hazard (static): ", oracle_kind_name(s->kind));
	value_name(o, s->v, f);
	if (s->w >= 0) {
		fputs(" and ", f);
		value_name(o, s->w, f);
	}
	fprintf(f, " in buffer %d\n", s->buffer);
	fclose(f);
	return buf;
}

static int find_triple(struct oracle_module_result *r, const struct found *fd)
{
	for (int32_t k = 0; k < r->n_triples; k++) {
		const struct oracle_triple *x = &r->triples[k];
		if (x->v == fd->v && x->w == fd->w && x->at == fd->at && x->end_read == fd->end_read &&
		    x->kind == fd->kind)
			return k;
	}
	r->triples = xrealloc(r->triples, (size_t)r->n_triples + 1, sizeof(*r->triples));
	r->triples[r->n_triples] = (struct oracle_triple){fd->v, fd->w, fd->at, fd->end_read, fd->kind,
							   0, 0, 0};
	return r->n_triples++;
}

int oracle_module(struct oracle *o, struct oracle_module_result *r)
{
	memset(r, 0, sizeof(*r));
	r->n_buffers = o->n_buffers;
	r->buffer = xcalloc((size_t)o->n_buffers, sizeof(*r->buffer));
	r->n_static = o->n_static;
	r->statics = xcalloc((size_t)o->n_static, sizeof(*r->statics));
	if (o->n_static)
		memcpy(r->statics, o->statics, (size_t)o->n_static * sizeof(*r->statics));
	int given = o->m->is_scheduled;
	r->module.given = given ? 0 : -1;
	for (int32_t b = 0; b < o->n_buffers; b++)
		r->buffer[b].given = given ? 0 : -1;

	struct space sp;
	space_build(o, &sp, NULL, 0);
	r->n_schedules = sp.total;
	if (sp.status != ORACLE_OK) {
		r->status = sp.status;
		snprintf(r->why, sizeof(r->why), "%s", sp.why);
		space_free(&sp);
		return 0;
	}
	int64_t *pick = xcalloc((size_t)sp.n + 1, sizeof(int64_t));
	int64_t *count_buf = xcalloc((size_t)o->n_buffers, sizeof(int64_t));
	int64_t *count_tri = NULL;
	int64_t count_any = 0;
	struct eval ev;
	eval_init(&ev, o);
	ev.need_triples = 1;
	struct tracer tr = {0};
	tr.o = o;
	tr.sp = &sp;
	tr.pick = pick;
	int64_t done = 0;
	do {
		memset(ev.buf_haz, 0, (size_t)o->n_buffers);
		ev.any = 0;
		ev.n_tri = 0;
		enum oracle_status st = eval_schedule(&ev, &tr);
		if (st != ORACLE_OK) {
			r->status = st;
			snprintf(r->why, sizeof(r->why), "more than %lld traces (or %lld events) per schedule",
				 (long long)o->lim.max_traces, (long long)o->lim.max_events);
			break;
		}
		done++;
		int any = ev.any || o->n_static > 0;
		count_any += any;
		if (!any && !r->module.clean)
			r->module.clean = schedule_text(&sp, pick);
		for (int32_t b = 0; b < o->n_buffers; b++) {
			int h = ev.buf_haz[b] || o->static_buf[b];
			count_buf[b] += h;
			if (!h && !r->buffer[b].clean)
				r->buffer[b].clean = schedule_text(&sp, pick);
		}
		for (int32_t k = 0; k < ev.n_tri; k++) {
			int32_t n0 = r->n_triples;
			int32_t x = find_triple(r, &ev.tri[k]);
			if (r->n_triples != n0)
				count_tri = xrealloc(count_tri, (size_t)r->n_triples, sizeof(int64_t)),
				count_tri[x] = 0;
			count_tri[x]++;
		}
	} while (next_pick(&sp, pick));
	if (r->status == ORACLE_OK) {
		r->module.some = count_any > 0;
		r->module.every = count_any == done;
		for (int32_t b = 0; b < o->n_buffers; b++) {
			r->buffer[b].some = count_buf[b] > 0;
			r->buffer[b].every = count_buf[b] == done;
			if (ev.witness_of[b]) {
				r->buffer[b].witness = ev.witness_of[b];
				ev.witness_of[b] = NULL;
			}
		}
		for (int32_t k = 0; k < r->n_triples; k++) {
			r->triples[k].some = 1;
			r->triples[k].every = count_tri[k] == done;
		}
		if (ev.witness_any) {
			r->module.witness = ev.witness_any;
			ev.witness_any = NULL;
		}
		/* static hazards: witness text when no trace hazard gave one */
		for (int32_t s = 0; s < o->n_static; s++) {
			int32_t b = o->statics[s].buffer;
			if (!r->buffer[b].witness)
				r->buffer[b].witness = static_text(o, &o->statics[s]);
			if (!r->module.witness)
				r->module.witness = static_text(o, &o->statics[s]);
		}
	}
	free(count_tri);
	eval_free(&ev);
	tracer_free(&tr);
	space_free(&sp);
	free(count_buf);

	/* the given schedule */
	if (given && r->status == ORACLE_OK) {
		space_build(o, &sp, NULL, 1);
		if (sp.status != ORACLE_OK) {
			r->status = sp.status;
			snprintf(r->why, sizeof(r->why), "%s", sp.why);
		} else {
			memset(pick, 0, (size_t)sp.n * sizeof(int64_t));
			eval_init(&ev, o);
			ev.need_triples = 1;
			memset(&tr, 0, sizeof(tr));
			tr.o = o;
			tr.sp = &sp;
			tr.pick = pick;
			if (eval_schedule(&ev, &tr) != ORACLE_OK) {
				r->status = ORACLE_TOO_MANY;
				snprintf(r->why, sizeof(r->why), "too many traces in the given schedule");
			}
			r->module.given = ev.any || o->n_static > 0;
			for (int32_t b = 0; b < o->n_buffers; b++)
				r->buffer[b].given = ev.buf_haz[b] || o->static_buf[b];
			for (int32_t k = 0; k < ev.n_tri; k++) {
				int32_t n0 = r->n_triples;
				int32_t x = find_triple(r, &ev.tri[k]);
				if (r->n_triples != n0) /* impossible: the given schedule is one of them */
					r->triples[x].some = 1;
				r->triples[x].given = 1;
			}
			eval_free(&ev);
			tracer_free(&tr);
		}
		space_free(&sp);
	}
	free(pick);
	return 0;
}

static void answer_free(struct oracle_answer *a)
{
	free(a->witness);
	free(a->clean);
}

void oracle_module_result_free(struct oracle_module_result *r)
{
	answer_free(&r->module);
	for (int32_t b = 0; r->buffer && b < r->n_buffers; b++)
		answer_free(&r->buffer[b]);
	free(r->buffer);
	free(r->statics);
	free(r->triples);
	memset(r, 0, sizeof(*r));
}

int32_t oracle_param_buffer(const struct oracle *o, int32_t param, const struct shape_index *idx)
{
	const struct hlo_computation *e = o->m->entry;
	if (param < 0 || param >= e->n_params || !e->params[param])
		return -1;
	const struct hlo_instruction *p = e->params[param];
	int32_t sub = dataflow_sub(o->df, p, idx->idx, idx->n);
	if (sub < 0)
		return -1;
	int32_t v = dataflow_unique_value(o->df, p, sub);
	return v < 0 ? -1 : o->bufs->buffer_of[v];
}

void oracle_donation(const struct oracle *o, const struct oracle_module_result *r, int32_t alias,
		     enum verdict *given, enum verdict *any)
{
	*given = VERDICT_NONE;
	*any = VERDICT_UNKNOWN;
	if (alias < 0 || alias >= o->m->n_aliases || r->status != ORACLE_OK)
		return;
	const struct io_alias *al = &o->m->aliases[alias];
	int32_t b = oracle_param_buffer(o, al->param, &al->param_index);
	if (b < 0)
		return;
	const struct oracle_answer *a = &r->buffer[b];
	if (a->given >= 0)
		*given = a->given ? VERDICT_UNSAFE : VERDICT_SAFE;
	*any = !a->some ? VERDICT_SAFE : a->every ? VERDICT_UNSAFE : VERDICT_SCHEDULE_DEPENDENT;
}

/* ---- one buffer set, over all schedules (copies, edges) ------------------- */

struct set_answer {
	enum oracle_status status;
	char why[256];
	int64_t n_schedules;
	int given;            /* -1 when unscheduled */
	int some, every;
	char *witness, *clean;
};

/* Hazards on the buffers marked in want. Stops early once the answer is
 * known to be "some but not every". */
static void eval_set(struct oracle *o, const uint8_t *want, const struct edge_list *extra,
		     int given_only, struct set_answer *out)
{
	memset(out, 0, sizeof(*out));
	out->given = -1;
	int stat = 0;
	for (int32_t b = 0; b < o->n_buffers; b++)
		if (want[b] && o->static_buf[b])
			stat = 1;
	struct space sp;
	space_build(o, &sp, extra, given_only);
	out->n_schedules = sp.total;
	if (sp.status != ORACLE_OK) {
		out->status = sp.status;
		snprintf(out->why, sizeof(out->why), "%s", sp.why);
		space_free(&sp);
		return;
	}
	int64_t *pick = xcalloc((size_t)sp.n + 1, sizeof(int64_t));
	struct eval ev;
	eval_init(&ev, o);
	ev.want = want;
	ev.stop_at_first = 1;
	struct tracer tr = {0};
	tr.o = o;
	tr.sp = &sp;
	tr.pick = pick;
	int64_t n_haz = 0, n_clean = 0;
	if (sp.total > 0) {
		do {
			ev.any = 0;
			if (eval_schedule(&ev, &tr) != ORACLE_OK) {
				out->status = ORACLE_TOO_MANY;
				snprintf(out->why, sizeof(out->why), "more than %lld traces per schedule",
					 (long long)o->lim.max_traces);
				break;
			}
			if (ev.any || stat) {
				n_haz++;
			} else {
				n_clean++;
				if (!out->clean)
					out->clean = schedule_text(&sp, pick);
			}
			if (n_haz && n_clean)
				break;
		} while (next_pick(&sp, pick));
	}
	out->some = n_haz > 0;
	out->every = n_clean == 0;
	out->witness = ev.witness_any;
	ev.witness_any = NULL;
	if (stat && !out->witness)
		for (int32_t s = 0; s < o->n_static; s++)
			if (want[o->statics[s].buffer]) {
				out->witness = static_text(o, &o->statics[s]);
				break;
			}
	eval_free(&ev);
	tracer_free(&tr);
	space_free(&sp);
	free(pick);
}

int oracle_buffer_edges_ok(struct oracle *o, int32_t buffer, const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to, int32_t n)
{
	if (buffer < 0 || buffer >= o->n_buffers || n < 1)
		return 0;
	for (int32_t k = 0; k < n; k++)
		if (!from[k] || !to[k] || from[k]->parent != to[k]->parent)
			return 0;
	uint8_t *want = xcalloc((size_t)o->n_buffers, 1);
	want[buffer] = 1;
	struct edge_list el = {n, from, to};
	struct set_answer a;
	eval_set(o, want, &el, 0, &a);
	free(want);
	free(a.witness);
	free(a.clean);
	if (a.status == ORACLE_TOO_MANY)
		return -1;
	if (a.status != ORACLE_OK || a.n_schedules == 0)
		return 0; /* the edges close a cycle */
	return !a.some;
}

int oracle_buffer_edge_ok(struct oracle *o, int32_t buffer, const struct hlo_instruction *from,
			  const struct hlo_instruction *to)
{
	return oracle_buffer_edges_ok(o, buffer, &from, &to, 1);
}

/* ---- copy removal by text ------------------------------------------------- */

static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* Does text at p hold the token %name (whole)? */
static int token_at(const char *p, const char *name, size_t nl)
{
	return p[0] == '%' && !strncmp(p + 1, name, nl) && !name_char((unsigned char)p[1 + nl]);
}

/* Index just past the bracket group opening at s[i] (one of ( [ {). */
static size_t skip_group(const char *s, size_t i, size_t n)
{
	int depth = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return n;
}

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap, 1);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void sb_str(struct sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

/* Rewrite one instruction line of the copy's computation: operand tokens
 * %copy -> %src; %copy dropped from control-predecessors. */
static int rewrite_line(const char *line, size_t n, const char *cn, const char *sn, struct sbuf *out)
{
	size_t cl = strlen(cn);
	const char *eq = strstr(line, " = ");
	if (!eq || (size_t)(eq - line) > n)
		return -1;
	size_t i = (size_t)(eq - line) + 3;
	/* the shape: up to the first space outside brackets */
	while (i < n && line[i] != ' ') {
		if (line[i] == '(' || line[i] == '[' || line[i] == '{')
			i = skip_group(line, i, n);
		else
			i++;
	}
	i++; /* the space */
	while (i < n && line[i] != '(')
		i++;
	if (i >= n)
		return -1;
	size_t ops_end = skip_group(line, i, n);
	sb_add(out, line, i);
	for (size_t k = i; k < ops_end;) {
		if (token_at(line + k, cn, cl)) {
			sb_str(out, "%");
			sb_str(out, sn);
			k += 1 + cl;
		} else {
			sb_add(out, line + k, 1);
			k++;
		}
	}
	/* attributes: drop %copy from control-predecessors */
	const char *cp = NULL;
	for (size_t k = ops_end; k + 22 <= n; k++)
		if (!strncmp(line + k, "control-predecessors={", 22)) {
			cp = line + k;
			break;
		}
	if (!cp) {
		sb_add(out, line + ops_end, n - ops_end);
		return 0;
	}
	size_t cps = (size_t)(cp - line), lb = cps + 21, rb = skip_group(line, lb, n) - 1;
	/* the names inside the braces, without the copy */
	struct sbuf names = {0};
	size_t k = lb + 1;
	int kept = 0;
	while (k < rb) {
		while (k < rb && (line[k] == ' ' || line[k] == ','))
			k++;
		size_t st = k;
		while (k < rb && line[k] != ',' && line[k] != ' ')
			k++;
		if (k > st && !(line[st] == '%' && k - st - 1 == cl && !strncmp(line + st + 1, cn, cl))) {
			if (kept++)
				sb_str(&names, ", ");
			sb_add(&names, line + st, k - st);
		}
	}
	if (kept) {
		sb_add(out, line + ops_end, lb + 1 - ops_end);
		sb_add(out, names.s, names.n);
		sb_add(out, line + rb, n - rb);
	} else {
		/* drop ", control-predecessors={}" entirely */
		size_t cut = cps;
		if (cut >= 2 && line[cut - 2] == ',' && line[cut - 1] == ' ')
			cut -= 2;
		sb_add(out, line + ops_end, cut - ops_end);
		size_t after = rb + 1;
		if (cut == cps && after + 2 <= n && line[after] == ',' && line[after + 1] == ' ')
			after += 2;
		sb_add(out, line + after, n - after);
	}
	free(names.s);
	return 0;
}

/* The name of a computation header line ("%name (" or "ENTRY %name ("). */
static int header_name(const char *line, size_t n, const char **name, size_t *nl)
{
	size_t i = 0;
	if (n >= 6 && !strncmp(line, "ENTRY ", 6))
		i = 6;
	if (i < n && line[i] == '%')
		i++;
	size_t st = i;
	while (i < n && name_char((unsigned char)line[i]))
		i++;
	*name = line + st;
	*nl = i - st;
	return i > st ? 0 : -1;
}

/* "  [ROOT ]%name = ..." -> name */
static int instr_name(const char *line, size_t n, const char **name, size_t *nl, int *is_root)
{
	size_t i = 0;
	while (i < n && line[i] == ' ')
		i++;
	*is_root = 0;
	if (i + 5 <= n && !strncmp(line + i, "ROOT ", 5)) {
		*is_root = 1;
		i += 5;
	}
	if (i < n && line[i] == '%')
		i++;
	size_t st = i;
	while (i < n && name_char((unsigned char)line[i]))
		i++;
	*name = line + st;
	*nl = i - st;
	return i > st ? 0 : -1;
}

/* What removing a copy deletes (verdicts.md, "What counts as a copy"), read
 * here from the IR without copysite.c: a copy; a fusion whose fused root
 * (output >= 0: root tuple element `output`) is a copy of a parameter
 * through bitcasts, deleted with its get-tuple-elements for one output; a
 * copy-start with its one copy-done. Every deleted name reads as src. */
#define REMOVAL_MAX_DROP 16
struct removal {
	const char *drop[REMOVAL_MAX_DROP];
	int ndrop;
	const struct hlo_instruction *src;
	const struct shape *to;
};

static const struct hlo_instruction *no_bitcasts(const struct hlo_instruction *x)
{
	for (int g = 0; g < 64 && x->opcode == OP_BITCAST && x->n_operands == 1; g++)
		x = x->operands[0];
	return x;
}

static int removal_of(const struct hlo_instruction *copy, int32_t output, struct removal *r)
{
	memset(r, 0, sizeof(*r));
	if (copy->opcode == OP_COPY && copy->n_operands == 1 && output < 0) {
		r->drop[r->ndrop++] = copy->name;
		r->src = copy->operands[0];
		r->to = copy->shape;
		return 0;
	}
	if (copy->opcode == OP_COPY_START && copy->n_operands == 1 && output < 0) {
		if (copy->n_users != 1 || copy->users[0]->opcode != OP_COPY_DONE)
			return -1;
		r->drop[r->ndrop++] = copy->name;
		r->drop[r->ndrop++] = copy->users[0]->name;
		r->src = copy->operands[0];
		r->to = copy->users[0]->shape;
		return 0;
	}
	if (copy->opcode != OP_FUSION || !copy->ext->calls || !copy->ext->calls->root)
		return -1;
	const struct hlo_instruction *e = copy->ext->calls->root;
	if (output >= 0) {
		if (e->opcode != OP_TUPLE || output >= e->n_operands || !shape_is_tuple(copy->shape) ||
		    output >= copy->shape->n_elems)
			return -1;
		e = e->operands[output];
	}
	const struct hlo_instruction *c = no_bitcasts(e);
	if (c->opcode != OP_COPY || c->n_operands != 1)
		return -1;
	const struct hlo_instruction *p = no_bitcasts(c->operands[0]);
	if (p->opcode != OP_PARAMETER || p->parameter_number < 0 || p->parameter_number >= copy->n_operands)
		return -1;
	r->src = copy->operands[p->parameter_number];
	if (output < 0) {
		r->drop[r->ndrop++] = copy->name;
		r->to = copy->shape;
		return 0;
	}
	r->to = &copy->shape->elems[output];
	for (int32_t i = 0; i < copy->n_users; i++) {
		const struct hlo_instruction *g = copy->users[i];
		if (g->opcode != OP_GET_TUPLE_ELEMENT || copy->is_root)
			return -1;
		if (g->tuple_index != output)
			continue;
		if (r->ndrop == REMOVAL_MAX_DROP)
			return -1;
		r->drop[r->ndrop++] = g->name;
	}
	return 0;
}

static int dropped(const struct removal *r, const char *nm, size_t nml)
{
	for (int i = 0; i < r->ndrop; i++)
		if (strlen(r->drop[i]) == nml && !strncmp(r->drop[i], nm, nml))
			return 1;
	return 0;
}

static char *remove_text(const struct hlo_module *m, const struct hlo_instruction *copy,
			 const struct removal *rm)
{
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);
	hlo_print_module(f, m);
	fclose(f);
	const char *sn = rm->src->name, *comp = copy->parent->name;
	size_t sl = strlen(sn), compl = strlen(comp);
	struct sbuf out = {0};
	int in_comp = 0, was_root = 0, removed = 0, bad = 0;
	size_t root_fix = (size_t)-1; /* offset in out of the source's line */
	for (size_t p = 0; p < len;) {
		const char *line = txt + p;
		const char *nlp = memchr(line, '\n', len - p);
		size_t n = nlp ? (size_t)(nlp - line) : len - p;
		size_t adv = nlp ? n + 1 : n;
		if (n > 0 && line[0] != ' ' && line[n - 1] == '{' && strncmp(line, "HloModule", 9)) {
			const char *nm;
			size_t nml;
			in_comp = !header_name(line, n, &nm, &nml) && nml == compl && !strncmp(nm, comp, compl);
			sb_add(&out, line, adv);
		} else if (n > 0 && line[0] == '}') {
			in_comp = 0;
			sb_add(&out, line, adv);
		} else if (in_comp && n > 2 && line[0] == ' ') {
			const char *nm;
			size_t nml;
			int is_root;
			if (instr_name(line, n, &nm, &nml, &is_root) < 0) {
				bad = 1;
				break;
			}
			if (dropped(rm, nm, nml)) {
				was_root |= is_root;
				removed++;
			} else {
				if (nml == sl && !strncmp(nm, sn, sl))
					root_fix = out.n;
				/* each deleted name, one after the other, reads as src */
				struct sbuf cur = {0};
				sb_add(&cur, line, n);
				for (int d = 0; d < rm->ndrop && !bad; d++) {
					struct sbuf next = {0};
					if (rewrite_line(cur.s, cur.n, rm->drop[d], sn, &next) < 0)
						bad = 1;
					free(cur.s);
					cur = next;
				}
				if (bad) {
					free(cur.s);
					break;
				}
				sb_add(&out, cur.s, cur.n);
				free(cur.s);
				if (nlp)
					sb_str(&out, "\n");
			}
		} else {
			sb_add(&out, line, adv);
		}
		p += adv;
	}
	free(txt);
	if (bad || removed != rm->ndrop || (was_root && root_fix == (size_t)-1)) {
		free(out.s);
		return NULL;
	}
	if (was_root) {
		/* make the source the root: insert "ROOT " after the indentation */
		size_t ind = root_fix;
		while (ind < out.n && out.s[ind] == ' ')
			ind++;
		struct sbuf fixed = {0};
		sb_add(&fixed, out.s, ind);
		sb_str(&fixed, "ROOT ");
		sb_add(&fixed, out.s + ind, out.n - ind);
		free(out.s);
		out = fixed;
	}
	return out.s;
}

int oracle_copy_outputs(const struct hlo_instruction *x, int32_t *outputs, int cap)
{
	struct removal rm;
	int n = 0;
	if (removal_of(x, -1, &rm) == 0 || (x->opcode == OP_COPY_START && x->n_operands == 1)) {
		if (cap > 0)
			outputs[0] = -1;
		return 1;
	}
	if (x->opcode != OP_FUSION || !x->ext->calls || !x->ext->calls->root ||
	    x->ext->calls->root->opcode != OP_TUPLE)
		return 0;
	for (int32_t i = 0; i < x->ext->calls->root->n_operands; i++) {
		/* a copy output, even one removal_of refuses (a fusion used whole) */
		const struct hlo_instruction *c = no_bitcasts(x->ext->calls->root->operands[i]);
		if (c->opcode != OP_COPY || c->n_operands != 1 ||
		    no_bitcasts(c->operands[0])->opcode != OP_PARAMETER)
			continue;
		if (n < cap)
			outputs[n] = i;
		n++;
	}
	return n;
}

char *oracle_remove_copy_text(const struct hlo_module *m, const struct hlo_instruction *copy)
{
	return oracle_remove_copy_output_text(m, copy, -1);
}

char *oracle_remove_copy_output_text(const struct hlo_module *m, const struct hlo_instruction *copy,
				     int32_t output)
{
	struct removal rm;
	if (removal_of(copy, output, &rm) < 0)
		return NULL;
	return remove_text(m, copy, &rm);
}

static int layout_differs(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type)
		return 1;
	if (shape_is_tuple(a)) {
		if (a->n_elems != b->n_elems)
			return 1;
		for (int32_t k = 0; k < a->n_elems; k++)
			if (layout_differs(&a->elems[k], &b->elems[k]))
				return 1;
		return 0;
	}
	if (!shape_is_array(a))
		return 0;
	if (a->rank != b->rank)
		return 1;
	for (int k = 0; k < a->rank; k++)
		if (shape_minor_to_major(a, k) != shape_minor_to_major(b, k))
			return 1;
	if (a->layout.memory_space != b->layout.memory_space ||
	    a->layout.element_size_bits != b->layout.element_size_bits)
		return 1;
	const char *ea = a->layout.ext ? a->layout.ext : "", *eb = b->layout.ext ? b->layout.ext : "";
	return strcmp(ea, eb) != 0;
}

/* ---- removals, judged by the hazards they introduce -----------------------
 *
 * verdicts.md, "Verdicts for a copy": the rewritten module M' (each removed
 * copy's uses read its operand) is compared with the module as given, M,
 * schedule by schedule and trace by trace. A schedule S' of M' comes from the
 * schedule S of M that is S' with each removed instruction put back right
 * after its operand (at the start of its computation when the operand is a
 * parameter or a constant, which are not scheduled; a copy-done right after
 * its copy-start; the get-tuple-elements of one output of a multi-output
 * fusion right after the fusion); S is simulated as it is, even where it
 * runs against a removed copy's own control edges (the rewrite drops them).
 * A trace of S' (its iteration counts and branch choices) comes from the
 * trace of S with the same choices: the comparison is made per branch
 * outcome and per iteration count. The removal introduces a hazard in
 * (S', trace) when M' has one there that M does not have in (S, trace).
 *
 * Hazards are compared by identity (struct okey), over the whole module:
 * - overwrite, same-instruction: the kind, the value read, the read (its
 *   instruction, or the end of a computation's run);
 * - same-time: the kind, the value read and the other value defined into
 *   its buffer at once;
 * - read-only-written: the read-only value; read-only-output: the value and
 *   the output leaf; outputs-not-distinct: the two output leaves.
 * A value of M is the value of M' defined by the same instruction (by
 * computation and name) at the same index, phi or not alike; a removed
 * copy's value is its operand's ("a read of the copy as a read of its
 * operand", "a write by the removed copy as a write by its operand"). A
 * value of M with no such value in M' (a loop or branch phi that collapses
 * once the copy reads as its operand) has no identity there: its hazards
 * match none of M''s. Comparing the whole module rather than the merged
 * buffer keeps the oracle free of the deciders' claim that only the merged
 * buffer changes: hazards elsewhere are the same in both and cancel. */

struct okey {
	uint8_t kind;
	int32_t a, b;
};

struct okeys {
	int32_t n, cap;
	struct okey *k;
	/* the first key's description, for the witness */
};

static int okeys_has(const struct okeys *s, const struct okey *k)
{
	for (int32_t i = 0; i < s->n; i++)
		if (s->k[i].kind == k->kind && s->k[i].a == k->a && s->k[i].b == k->b)
			return 1;
	return 0;
}

static void okeys_add(struct okeys *s, uint8_t kind, int32_t a, int32_t b)
{
	struct okey k = {kind, a, b};
	if (okeys_has(s, &k))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->k = xrealloc(s->k, (size_t)s->cap, sizeof(*s->k));
	}
	s->k[s->n++] = k;
}

/* The read of a found triple as a key part: the reading instruction's gid,
 * or -(computation index + 1) for the end of a computation's run. */
static int32_t read_site(const struct oev *rd)
{
	return rd->end ? -(rd->at->parent->index + 1) : rd->at->gid;
}

/* Static hazard keys of a module (docs/hazards.md 3), in its own ids. */
static void static_keys(const struct oracle *o, struct okeys *out)
{
	const struct dataflow *df = o->df;
	const struct buffers *bf = o->bufs;
	for (int32_t v = 0; v < o->n_values; v++) {
		if (!o->read_only[v] || !o->static_value[v])
			continue;
		const struct hlo_buffer *hb = &bf->buffers[bf->buffer_of[v]];
		for (int32_t k = 0; k < hb->n_values; k++)
			if (hb->values[k] != v && o->static_value[hb->values[k]]) {
				okeys_add(out, OK_READ_ONLY_WRITTEN, v, -1);
				break;
			}
	}
	const struct hlo_instruction *root = o->m->entry ? o->m->entry->root : NULL;
	if (!root)
		return;
	const struct shape_tree *t = dataflow_tree(df, root);
	for (int32_t s = 0; s < t->n; s++) {
		if (t->nk[s] >= 0)
			continue; /* a tuple's pointer table is not an output leaf */
		const struct shape *ss = dataflow_subshape(df, root, s);
		if (!ss || !shape_is_array(ss))
			continue;
		const struct value_set *vs = dataflow_set(df, root, s);
		for (int32_t k = 0; k < vs->n; k++) {
			int32_t v = value_set_ids(vs)[k];
			if (o->read_only[v])
				okeys_add(out, OK_READ_ONLY_OUTPUT, v, s);
		}
		/* one buffer at an earlier leaf too */
		for (int32_t s0 = 0; s0 < s; s0++) {
			if (t->nk[s0] >= 0)
				continue;
			const struct shape *s0s = dataflow_subshape(df, root, s0);
			if (!s0s || !shape_is_array(s0s))
				continue;
			if (oracle_sets_share_buffer(bf, vs, dataflow_set(df, root, s0)))
				okeys_add(out, OK_OUTPUTS_NOT_DISTINCT, s0, s);
		}
	}
}

/* One removal as the oracle evaluates it. */
struct rplan {
	struct hlo_module *m, *m2;     /* M and M' (m2 owned) */
	char *text;                    /* M''s text (owned) */
	struct oracle *o1, *o2;
	int32_t *vmap;                 /* [M value] -> M' value or -1 */
	int32_t *imap;                 /* [M gid] -> M' gid or -1 (removed) */
	const struct hlo_instruction **rimap; /* [M' gid] -> M instruction */
	int32_t *cmap;                 /* [M computation index] -> M' index or -1 */
	int32_t *leafmap;              /* [M entry root sub] -> M' sub or -1 */
	int32_t n_rm;                  /* removed instructions of M */
	const struct hlo_instruction **rm, **anchor; /* anchor NULL: the start of the computation */
	struct okeys st1, st2;         /* static keys: M's (in M' ids), M''s */
	struct space sp1;              /* M: one order per executed computation */
	int64_t *pick1;
	struct okeys k1, k2;           /* per trace */
	struct scan sc1, sc2;
};

static void rplan_free(struct rplan *p)
{
	oracle_free(p->o1);
	oracle_free(p->o2);
	hlo_module_free(p->m2);
	free(p->text);
	free(p->vmap);
	free(p->imap);
	free(p->rimap);
	free(p->cmap);
	free(p->leafmap);
	free(p->rm);
	free(p->anchor);
	free(p->st1.k);
	free(p->st2.k);
	space_free(&p->sp1);
	free(p->pick1);
	free(p->k1.k);
	free(p->k2.k);
	scan_free(&p->sc1);
	scan_free(&p->sc2);
	memset(p, 0, sizeof(*p));
}

static const struct hlo_instruction *find_named(const struct hlo_module *m, const struct hlo_instruction *x)
{
	const struct hlo_computation *k = hlo_find_computation(m, x->parent->name);
	return k ? hlo_find_instruction(k, x->name) : NULL;
}

/* The value a removed copy defines: the copy's, the fusion's (at output k),
 * the copy-start's destination {0}. */
static int32_t removed_value(const struct dataflow *df, const struct hlo_instruction *copy, int32_t output)
{
	int32_t sub = 0;
	if (copy->opcode == OP_COPY_START || output >= 0) {
		int32_t ix = copy->opcode == OP_COPY_START ? 0 : output;
		sub = dataflow_sub(df, copy, &ix, 1);
		if (sub < 0)
			return -1;
	}
	return dataflow_value_defined_at(df, copy, sub);
}

static void add_removed(struct rplan *p, const struct hlo_instruction *x, const struct hlo_instruction *anchor)
{
	p->rm = xrealloc(p->rm, (size_t)p->n_rm + 1, sizeof(*p->rm));
	p->anchor = xrealloc(p->anchor, (size_t)p->n_rm + 1, sizeof(*p->anchor));
	p->rm[p->n_rm] = x;
	p->anchor[p->n_rm] = anchor && effective(anchor) ? anchor : NULL;
	p->n_rm++;
}

/* M', the maps and the static keys. Returns 0, or -1 with out->status and
 * out->why set. */
static int rplan_build(struct rplan *p, struct hlo_module *m, const struct oracle_site *sites,
		       int32_t n_sites, const struct oracle_limits *lim, struct oracle_copy_result *out)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	const struct hlo_module *cur = m;
	struct hlo_module *owned = NULL;
	int32_t *s_of = xcalloc((size_t)n_sites + 1, sizeof(int32_t)); /* the operand's value, in M */
	int32_t *c_of = xcalloc((size_t)n_sites + 1, sizeof(int32_t)); /* the copy's value, in M */
	for (int32_t i = 0; i < n_sites; i++) {
		const struct oracle_site *st = &sites[i];
		struct removal rm;
		if (!st->copy || removal_of(st->copy, st->output, &rm) < 0) {
			out->status = ORACLE_BAD_INPUT;
			snprintf(out->why, sizeof(out->why), "%s is not a copy", st->copy ? st->copy->name : "(null)");
			goto fail;
		}
		/* the removed instructions of M, each with the instruction it goes back after */
		for (int d = 0; d < rm.ndrop; d++) {
			const struct hlo_instruction *x = hlo_find_instruction(st->copy->parent, rm.drop[d]);
			if (!x)
				continue;
			const struct hlo_instruction *a = rm.src;
			if (x->opcode == OP_GET_TUPLE_ELEMENT || x->opcode == OP_COPY_DONE)
				a = x->operands[0];
			add_removed(p, x, a);
		}
		/* the same removal on the module as rewritten so far */
		const struct hlo_instruction *x = find_named(cur, st->copy);
		struct removal rm2;
		if (!x || removal_of(x, st->output, &rm2) < 0) {
			out->status = ORACLE_BAD_INPUT;
			snprintf(out->why, sizeof(out->why), "%s: removed twice, or no longer a copy", st->copy->name);
			goto fail;
		}
		char *t = remove_text(cur, x, &rm2);
		if (!t) {
			out->status = ORACLE_BAD_INPUT;
			snprintf(out->why, sizeof(out->why), "could not edit the printed text of %s", st->copy->name);
			goto fail;
		}
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *next = hlo_parse("<rewritten>", t, strlen(t), &d);
		if (!next) {
			snprintf(out->why, sizeof(out->why), "rewritten module does not parse: %d:%d: %.180s",
				 d.first_pos.line, d.first_pos.col, d.first);
			out->status = ORACLE_BAD_INPUT;
			free(out->rewritten);
			out->rewritten = t;
			goto fail;
		}
		free(p->text);
		p->text = t;
		hlo_module_free(owned);
		owned = next;
		cur = next;
	}
	p->m2 = owned;
	owned = NULL;
	out->rewritten = strdup(p->text ? p->text : "");
	p->o1 = oracle_new(m, lim, out->why, sizeof(out->why));
	p->o2 = p->o1 ? oracle_new(p->m2, lim, out->why, sizeof(out->why)) : NULL;
	if (!p->o2) {
		out->status = ORACLE_BAD_INPUT;
		goto fail;
	}
	const struct dataflow *df1 = p->o1->df, *df2 = p->o2->df;
	/* instructions and computations by name */
	p->imap = xcalloc((size_t)m->n_instrs + 1, sizeof(int32_t));
	p->rimap = xcalloc((size_t)p->m2->n_instrs + 1, sizeof(*p->rimap));
	p->cmap = xcalloc((size_t)m->n_comps + 1, sizeof(int32_t));
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *c1 = m->comps[k];
		const struct hlo_computation *c2 = hlo_find_computation(p->m2, c1->name);
		p->cmap[k] = c2 ? c2->index : -1;
		for (int32_t i = 0; i < c1->n_instrs; i++) {
			const struct hlo_instruction *x2 = c2 ? hlo_find_instruction(c2, c1->instrs[i]->name) : NULL;
			p->imap[c1->instrs[i]->gid] = x2 ? x2->gid : -1;
			if (x2)
				p->rimap[x2->gid] = c1->instrs[i];
		}
	}
	/* values: the same instruction, index and phi-ness */
	p->vmap = xcalloc((size_t)df1->n_values + 1, sizeof(int32_t));
	for (int32_t v = 0; v < df1->n_values; v++) {
		const struct hlo_value *hv = &df1->values[v];
		int32_t g2 = p->imap[hv->def->gid];
		p->vmap[v] = -1;
		if (g2 < 0)
			continue;
		int32_t w = dataflow_value_defined_at(df2, df2->instr[g2], (int32_t)hv->sub);
		if (w >= 0 && df2->values[w].is_phi == hv->is_phi)
			p->vmap[v] = w;
	}
	/* a removed copy's value is its operand's */
	for (int32_t i = 0; i < n_sites; i++) {
		struct removal rm;
		removal_of(sites[i].copy, sites[i].output, &rm);
		s_of[i] = dataflow_unique_value(df1, rm.src, 0);
		c_of[i] = removed_value(df1, sites[i].copy, sites[i].output);
		if (s_of[i] < 0 || c_of[i] < 0) {
			out->status = ORACLE_BAD_INPUT;
			snprintf(out->why, sizeof(out->why), "%s: no single value at the copy or its operand",
				 sites[i].copy->name);
			goto fail;
		}
	}
	for (int32_t round = 0; round <= n_sites; round++)
		for (int32_t i = 0; i < n_sites; i++)
			p->vmap[c_of[i]] = p->vmap[s_of[i]];
	/* output leaves */
	const struct hlo_instruction *r1 = m->entry->root, *r2 = p->m2->entry->root;
	const struct shape_tree *t1 = dataflow_tree(df1, r1);
	p->leafmap = xcalloc((size_t)t1->n + 1, sizeof(int32_t));
	for (int32_t s = 0; s < t1->n; s++) {
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		int32_t n = shape_tree_index(t1, s, idx);
		p->leafmap[s] = dataflow_sub(df2, r2, idx, n);
	}
	/* static keys */
	static_keys(p->o2, &p->st2);
	struct okeys raw = {0};
	static_keys(p->o1, &raw);
	for (int32_t i = 0; i < raw.n; i++) {
		const struct okey *k = &raw.k[i];
		int32_t a = k->a, b = k->b;
		if (k->kind == OK_OUTPUTS_NOT_DISTINCT) {
			a = p->leafmap[a];
			b = p->leafmap[b];
		} else {
			a = p->vmap[a];
			if (k->kind == OK_READ_ONLY_OUTPUT)
				b = p->leafmap[b];
		}
		if (a >= 0 && (k->kind == OK_READ_ONLY_WRITTEN || b >= 0))
			okeys_add(&p->st1, k->kind, a, b);
	}
	free(raw.k);
	free(s_of);
	free(c_of);
	return 0;
fail:
	hlo_module_free(owned);
	free(s_of);
	free(c_of);
	return -1;
}

/* S for S': M's executed computations in the order of their M' twins, the
 * removed instructions put back right after their anchors. */
static int rplan_schedule(struct rplan *p, const struct space *sp2, const int64_t *pick2, char *why,
			  size_t wcap)
{
	struct oracle *o1 = p->o1, *o2 = p->o2;
	if (!p->sp1.cs) {
		p->sp1.n = o1->n_sc;
		p->sp1.cs = xcalloc((size_t)o1->n_sc + 1, sizeof(*p->sp1.cs));
		p->pick1 = xcalloc((size_t)o1->n_sc + 1, sizeof(int64_t));
		p->sp1.total = 1;
		for (int32_t k = 0; k < o1->n_sc; k++) {
			struct comp_space *cs = &p->sp1.cs[k];
			cs->c = o1->sc[k];
			cs->eff = xcalloc((size_t)cs->c->n_instrs + 1, sizeof(*cs->eff));
			cs->orders = xcalloc((size_t)cs->c->n_instrs + 1, sizeof(int32_t));
			cs->n_orders = 1;
			for (int32_t i = 0; i < cs->c->n_instrs; i++)
				cs->orders[i] = i;
		}
	}
	for (int32_t k = 0; k < o1->n_sc; k++) {
		struct comp_space *cs = &p->sp1.cs[k];
		const struct hlo_computation *c1 = cs->c;
		int32_t c2 = p->cmap[c1->index];
		int32_t k2 = c2 >= 0 ? o2->sc_of[c2] : -1;
		if (k2 < 0) {
			snprintf(why, wcap, "computation %s runs in the module as given, not in the rewritten one",
				 c1->name);
			return -1;
		}
		const struct comp_space *cs2 = &sp2->cs[k2];
		const int32_t *ord = cs2->orders + pick2[k2] * cs2->n_eff;
		int32_t n = 0;
		for (int32_t j = 0; j < cs2->n_eff; j++)
			cs->eff[n++] = (struct hlo_instruction *)p->rimap[cs2->eff[ord[j]]->gid];
		/* put the removed ones back, each right after its anchor (passes
		 * for chains: a copy of a removed copy goes after it) */
		uint8_t placed[256] = {0};
		int32_t left = 0;
		for (int32_t r = 0; r < p->n_rm && r < 256; r++)
			left += p->rm[r]->parent == c1 && effective(p->rm[r]);
		while (left > 0) {
			int progress = 0;
			for (int32_t r = p->n_rm - 1; r >= 0; r--) {
				if (r >= 256 || placed[r] || p->rm[r]->parent != c1 || !effective(p->rm[r]))
					continue;
				int32_t at = -1;
				if (p->anchor[r]) {
					for (int32_t j = 0; j < n && at < 0; j++)
						if (cs->eff[j] == p->anchor[r])
							at = j + 1;
					if (at < 0)
						continue;
				} else {
					at = 0;
				}
				memmove(cs->eff + at + 1, cs->eff + at, (size_t)(n - at) * sizeof(*cs->eff));
				cs->eff[at] = (struct hlo_instruction *)p->rm[r];
				n++;
				placed[r] = 1;
				left--;
				progress = 1;
			}
			if (!progress) {
				snprintf(why, wcap, "cannot put the removed instructions of %s back", c1->name);
				return -1;
			}
		}
		cs->n_eff = n;
	}
	return 0;
}

struct keys_ctx {
	struct rplan *p;
	struct okeys *out;
	int mapped; /* M's keys, mapped into M' ids */
};

static int key_fn(void *ctx, const struct tracer *tr, const struct oev *def_v, const struct oev *def_w,
		  const struct oev *rd, enum oracle_kind kind)
{
	struct keys_ctx *kc = ctx;
	struct rplan *p = kc->p;
	int32_t a = rd->value, b = kind == OK_SAME_TIME ? def_w->value : read_site(rd);
	if (kc->mapped) {
		/* no identity in M': a collapsed phi, or a read by a removed instruction */
		a = p->vmap[a];
		if (a < 0)
			return 0;
		if (kind == OK_SAME_TIME) {
			b = p->vmap[b];
			if (b < 0)
				return 0;
		} else if (b >= 0) {
			b = p->imap[b];
			if (b < 0)
				return 0;
		} else {
			int32_t c2 = p->cmap[-b - 1];
			if (c2 < 0)
				return 0;
			b = -(c2 + 1);
		}
	}
	okeys_add(kc->out, (uint8_t)kind, a, b);
	return 0;
}

static void key_text(const struct rplan *p, const struct okey *k, FILE *f)
{
	fprintf(f, "%s hazard on ", oracle_kind_name((enum oracle_kind)k->kind));
	switch (k->kind) {
	case OK_OUTPUTS_NOT_DISTINCT:
		fprintf(f, "output leaves %d and %d (sub)", k->a, k->b);
		return;
	case OK_READ_ONLY_OUTPUT:
		value_name(p->o2, k->a, f);
		fprintf(f, " at output leaf %d (sub)", k->b);
		return;
	case OK_READ_ONLY_WRITTEN:
		value_name(p->o2, k->a, f);
		return;
	case OK_SAME_TIME:
		value_name(p->o2, k->a, f);
		fputs(" and ", f);
		value_name(p->o2, k->b, f);
		return;
	default:
		value_name(p->o2, k->a, f);
		if (k->b >= 0)
			fprintf(f, " read at %s", p->o2->df->instr[k->b]->name);
		else
			fprintf(f, " read at the end of %s", p->m2->comps[-k->b - 1]->name);
	}
}

/* Make tr1 take tr2's choices. */
static void copy_choices(struct tracer *tr1, const struct tracer *tr2)
{
	if (tr1->cap_choice < tr2->n_choice + 1) {
		tr1->cap_choice = tr2->n_choice + 16;
		tr1->choice = xrealloc(tr1->choice, (size_t)tr1->cap_choice, sizeof(int32_t));
		tr1->nopt = xrealloc(tr1->nopt, (size_t)tr1->cap_choice, sizeof(int32_t));
		tr1->chooser = xrealloc(tr1->chooser, (size_t)tr1->cap_choice, sizeof(*tr1->chooser));
	}
	if (tr2->n_choice)
		memcpy(tr1->choice, tr2->choice, (size_t)tr2->n_choice * sizeof(int32_t));
	tr1->n_choice = tr2->n_choice;
}

/* Every trace of schedule S' (pick2 in sp2): does one have a hazard that
 * the same trace of S does not? *intro = 1 and the witness (first time)
 * when so. Returns the status. */
static enum oracle_status rplan_eval(struct rplan *p, const struct space *sp2, const int64_t *pick2,
				     int *intro, char **witness, char *why, size_t wcap)
{
	*intro = 0;
	if (rplan_schedule(p, sp2, pick2, why, wcap) < 0)
		return ORACLE_BAD_INPUT;
	struct tracer tr2 = {0}, tr1 = {0};
	tr2.o = p->o2;
	tr2.sp = sp2;
	tr2.pick = pick2;
	tr1.o = p->o1;
	tr1.sp = &p->sp1;
	tr1.pick = p->pick1;
	enum oracle_status st = ORACLE_OK;
	int64_t n = 0;
	for (;;) {
		tr2.overflow = 0;
		run_trace(&tr2);
		if (tr2.overflow || ++n > p->o2->lim.max_traces) {
			st = ORACLE_TOO_MANY;
			snprintf(why, wcap, "more than %lld traces (or %lld events) per schedule",
				 (long long)p->o2->lim.max_traces, (long long)p->o2->lim.max_events);
			break;
		}
		copy_choices(&tr1, &tr2);
		tr1.overflow = 0;
		run_trace(&tr1);
		if (tr1.overflow) {
			st = ORACLE_TOO_MANY;
			snprintf(why, wcap, "too many events in a trace of the module as given");
			break;
		}
		int same = tr1.n_choice == tr2.n_choice;
		for (int32_t i = 0; same && i < tr2.n_choice; i++)
			same = tr1.nopt[i] == tr2.nopt[i] && !strcmp(tr1.chooser[i]->name, tr2.chooser[i]->name);
		if (!same) {
			st = ORACLE_BAD_INPUT;
			snprintf(why, wcap, "the traces of the two modules take different choices");
			break;
		}
		p->k2.n = p->k1.n = 0;
		struct keys_ctx c2 = {p, &p->k2, 0}, c1 = {p, &p->k1, 1};
		scan_trace(p->o2, &p->sc2, &tr2, NULL, key_fn, &c2);
		scan_trace(p->o1, &p->sc1, &tr1, NULL, key_fn, &c1);
		for (int32_t i = 0; i < p->st2.n; i++)
			okeys_add(&p->k2, p->st2.k[i].kind, p->st2.k[i].a, p->st2.k[i].b);
		for (int32_t i = 0; i < p->st1.n; i++)
			okeys_add(&p->k1, p->st1.k[i].kind, p->st1.k[i].a, p->st1.k[i].b);
		const struct okey *got = NULL;
		for (int32_t i = 0; i < p->k2.n && !got; i++)
			if (!okeys_has(&p->k1, &p->k2.k[i]))
				got = &p->k2.k[i];
		if (got) {
			*intro = 1;
			if (witness && !*witness) {
				char *buf = NULL;
				size_t len = 0;
				FILE *f = open_memstream(&buf, &len);
				fputs("introduced: ", f);
				key_text(p, got, f);
				fputs("\n  schedule (rewritten module):\n", f);
				schedule_print(sp2, pick2, f);
				trace_print(&tr2, f);
				fclose(f);
				*witness = buf;
			}
			break;
		}
		if (!next_trace(&tr2))
			break;
	}
	tracer_free(&tr1);
	tracer_free(&tr2);
	return st;
}

/* The removal over the schedules of sp2 (every one, or the given one):
 * some / every schedule has an introduced hazard. Stops once both kinds
 * of schedule were seen. */
static enum oracle_status rplan_space(struct rplan *p, const struct space *sp2, int *some, int *every,
				      char **witness, char **clean, char *why, size_t wcap)
{
	int64_t *pick = xcalloc((size_t)sp2->n + 1, sizeof(int64_t));
	int64_t n_haz = 0, n_clean = 0;
	enum oracle_status st = ORACLE_OK;
	if (sp2->total > 0) {
		do {
			int intro = 0;
			st = rplan_eval(p, sp2, pick, &intro, witness, why, wcap);
			if (st != ORACLE_OK)
				break;
			if (intro) {
				n_haz++;
			} else {
				n_clean++;
				if (clean && !*clean)
					*clean = schedule_text(sp2, pick);
			}
			if (n_haz && n_clean)
				break;
		} while (next_pick(sp2, pick));
	}
	free(pick);
	*some = n_haz > 0;
	*every = n_clean == 0;
	return st;
}

/* any (every schedule of M' with the edges) and given (its printed one) */
static void removal_verdicts(struct rplan *p, const struct hlo_instruction **f,
			     const struct hlo_instruction **t, int32_t n_edges, struct oracle_copy_result *out)
{
	struct edge_list el = {n_edges, f, t};
	struct space sp;
	space_build(p->o2, &sp, n_edges ? &el : NULL, 0);
	out->n_schedules = sp.total;
	if (sp.status != ORACLE_OK) {
		out->status = sp.status;
		snprintf(out->why, sizeof(out->why), "%s", sp.why);
		space_free(&sp);
		return;
	}
	int some = 0, every = 0;
	out->status = rplan_space(p, &sp, &some, &every, &out->witness, &out->clean, out->why,
				  sizeof(out->why));
	space_free(&sp);
	if (out->status != ORACLE_OK)
		return;
	out->any = !some ? VERDICT_REMOVABLE : every ? VERDICT_NECESSARY : VERDICT_SCHEDULE_DEPENDENT;
	if (!p->m2->is_scheduled)
		return;
	space_build(p->o2, &sp, n_edges ? &el : NULL, 1);
	if (sp.status != ORACLE_OK) {
		out->status = sp.status;
		snprintf(out->why, sizeof(out->why), "given schedule: %.200s", sp.why);
		out->any = VERDICT_UNKNOWN;
	} else {
		out->status = rplan_space(p, &sp, &some, &every, &out->witness, NULL, out->why,
					  sizeof(out->why));
		if (out->status == ORACLE_OK)
			out->given = some ? VERDICT_NECESSARY : VERDICT_REMOVABLE;
		else
			out->any = VERDICT_UNKNOWN;
	}
	space_free(&sp);
}

int oracle_removal(struct hlo_module *m, const struct oracle_site *sites, int32_t n_sites,
		   const struct hlo_instruction *const *edges_from,
		   const struct hlo_instruction *const *edges_to, int32_t n_edges,
		   const struct oracle_limits *lim, struct oracle_copy_result *out)
{
	memset(out, 0, sizeof(*out));
	out->given = VERDICT_NONE;
	out->any = VERDICT_UNKNOWN;
	if (n_sites < 1 || !m || !m->entry) {
		out->status = ORACLE_BAD_INPUT;
		snprintf(out->why, sizeof(out->why), "no copy to remove");
		return 0;
	}
	for (int32_t i = 0; i < n_sites; i++) {
		struct removal rm;
		if (!sites[i].copy || removal_of(sites[i].copy, sites[i].output, &rm) < 0) {
			out->status = ORACLE_BAD_INPUT;
			snprintf(out->why, sizeof(out->why), "%s is not a copy",
				 sites[i].copy ? sites[i].copy->name : "(null)");
			return 0;
		}
		if (layout_differs(rm.to, rm.src->shape)) {
			out->layout = 1;
			out->given = m->is_scheduled ? VERDICT_NECESSARY : VERDICT_NONE;
			out->any = VERDICT_NECESSARY;
			return 0;
		}
	}
	struct rplan p;
	if (rplan_build(&p, m, sites, n_sites, lim, out) < 0) {
		rplan_free(&p);
		return 0;
	}
	/* the edges, between instructions of M' */
	const struct hlo_instruction **f = xcalloc((size_t)n_edges + 1, sizeof(*f));
	const struct hlo_instruction **t = xcalloc((size_t)n_edges + 1, sizeof(*t));
	int ok = 1;
	for (int32_t k = 0; k < n_edges && ok; k++) {
		int32_t gf = edges_from[k] ? p.imap[edges_from[k]->gid] : -1;
		int32_t gt = edges_to[k] ? p.imap[edges_to[k]->gid] : -1;
		ok = gf >= 0 && gt >= 0 && p.o2->df->instr[gf]->parent == p.o2->df->instr[gt]->parent;
		if (ok) {
			f[k] = p.o2->df->instr[gf];
			t[k] = p.o2->df->instr[gt];
		}
	}
	if (ok)
		removal_verdicts(&p, f, t, n_edges, out);
	else {
		out->status = ORACLE_BAD_INPUT;
		snprintf(out->why, sizeof(out->why), "an edge on a removed instruction, or across computations");
	}
	free(f);
	free(t);
	rplan_free(&p);
	return 0;
}

int oracle_copy(struct hlo_module *m, const struct hlo_instruction *copy,
		const struct oracle_limits *lim, struct oracle_copy_result *out)
{
	return oracle_copy_output(m, copy, -1, lim, out);
}

int oracle_copy_output(struct hlo_module *m, const struct hlo_instruction *copy, int32_t output,
		       const struct oracle_limits *lim, struct oracle_copy_result *out)
{
	struct oracle_site st = {copy, output};
	return oracle_removal(m, &st, 1, NULL, NULL, 0, lim, out);
}

void oracle_copy_result_free(struct oracle_copy_result *r)
{
	free(r->rewritten);
	free(r->witness);
	free(r->clean);
	memset(r, 0, sizeof(*r));
}

int oracle_copy_edges_ok(struct hlo_module *m, const struct hlo_instruction *copy,
			 const struct oracle_limits *lim, const char *const *from, const char *const *to,
			 int32_t n)
{
	return oracle_copy_output_edges_ok(m, copy, -1, lim, from, to, n);
}

int oracle_copy_output_edges_ok(struct hlo_module *m, const struct hlo_instruction *copy,
				int32_t output, const struct oracle_limits *lim,
				const char *const *from, const char *const *to, int32_t n)
{
	if (n < 1)
		return 0;
	const struct hlo_instruction **f = xcalloc((size_t)n, sizeof(*f)), **t = xcalloc((size_t)n, sizeof(*t));
	int ok = 1;
	for (int32_t k = 0; ok && k < n; k++) {
		/* both names in the copy's computation, else in the first
		 * computation that has both (names may repeat across computations) */
		f[k] = hlo_find_instruction(copy->parent, from[k]);
		t[k] = hlo_find_instruction(copy->parent, to[k]);
		for (int32_t q = 0; (!f[k] || !t[k]) && q < m->n_comps; q++) {
			f[k] = hlo_find_instruction(m->comps[q], from[k]);
			t[k] = hlo_find_instruction(m->comps[q], to[k]);
		}
		ok = f[k] && t[k];
	}
	int rc = 0;
	if (ok) {
		struct oracle_site st = {copy, output};
		struct oracle_copy_result r;
		oracle_removal(m, &st, 1, f, t, n, lim, &r);
		rc = r.status == ORACLE_TOO_MANY ? -1 : r.status == ORACLE_OK && r.any == VERDICT_REMOVABLE;
		oracle_copy_result_free(&r);
	}
	free(f);
	free(t);
	return rc;
}

int oracle_copy_edge_ok(struct hlo_module *m, const struct hlo_instruction *copy,
			const struct oracle_limits *lim, const char *from, const char *to)
{
	return oracle_copy_edges_ok(m, copy, lim, &from, &to, 1);
}

/* ---- a buffer_donor leaf honored as an alias ------------------------------- */

static void index_text(const struct shape_index *ix, char *buf, size_t cap)
{
	size_t n = (size_t)snprintf(buf, cap, "{");
	for (int32_t k = 0; k < ix->n && n < cap; k++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%d", k ? "," : "", ix->idx[k]);
	if (n < cap)
		snprintf(buf + n, cap - n, "}");
}

/* Copy of s[0..n) without spaces. */
static void squeeze(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t k = 0; k < n && o + 1 < cap; k++)
		if (s[k] != ' ')
			out[o++] = s[k];
	out[o] = 0;
}

char *oracle_donor_text(const struct hlo_module *m, int32_t param, const struct shape_index *idx,
			const struct shape_index *out)
{
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);
	hlo_print_module(f, m);
	fclose(f);
	char *eol = strchr(txt, '\n');
	if (strncmp(txt, "HloModule", 9) || !eol) {
		free(txt);
		return NULL;
	}
	size_t hl = (size_t)(eol - txt);
	char pi[128], oi[128], want[160];
	index_text(idx, pi, sizeof(pi));
	index_text(out, oi, sizeof(oi));
	snprintf(want, sizeof(want), "(%d,%s)", param, pi);
	struct sbuf h = {0};
	/* the header without the donor entry */
	const char *bd = strstr(txt, "buffer_donor={");
	int removed = 0;
	if (bd && bd < eol) {
		size_t st = (size_t)(bd - txt), lb = st + 13, rb = skip_group(txt, lb, hl) - 1;
		struct sbuf kept = {0};
		int nk = 0;
		for (size_t k = lb + 1; k < rb;) {
			if (txt[k] != '(') {
				k++;
				continue;
			}
			size_t e = skip_group(txt, k, rb);
			char ent[160];
			squeeze(txt + k, e - k, ent, sizeof(ent));
			if (!removed && !strcmp(ent, want))
				removed = 1;
			else {
				sb_str(&kept, nk++ ? ", " : " ");
				sb_add(&kept, txt + k, e - k);
			}
			k = e;
		}
		if (nk) {
			sb_add(&h, txt, lb + 1);
			sb_add(&h, kept.s, kept.n);
			sb_str(&h, " ");
			sb_add(&h, txt + rb, hl - rb);
		} else {
			size_t cut = st >= 2 && txt[st - 2] == ',' ? st - 2 : st;
			sb_add(&h, txt, cut);
			sb_add(&h, txt + rb + 1, hl - rb - 1);
		}
		free(kept.s);
	} else {
		sb_add(&h, txt, hl);
	}
	if (!removed) {
		free(h.s);
		free(txt);
		return NULL;
	}
	/* the alias entry */
	char entry[320];
	snprintf(entry, sizeof(entry), "%s: (%d, %s, may-alias)", oi, param, pi);
	struct sbuf o2 = {0};
	const char *ia = strstr(h.s, "input_output_alias={");
	if (ia) {
		size_t at = (size_t)(ia - h.s) + 20;
		sb_add(&o2, h.s, at);
		sb_str(&o2, " ");
		sb_str(&o2, entry);
		sb_str(&o2, ",");
		sb_add(&o2, h.s + at, h.n - at);
	} else {
		sb_add(&o2, h.s, h.n);
		sb_str(&o2, ", input_output_alias={ ");
		sb_str(&o2, entry);
		sb_str(&o2, " }");
	}
	sb_add(&o2, eol, len - hl);
	free(h.s);
	free(txt);
	return o2.s;
}

int oracle_sets_share_buffer(const struct buffers *bf, const struct value_set *a, const struct value_set *b)
{
	for (int32_t i = 0; i < a->n; i++)
		for (int32_t j = 0; j < b->n; j++)
			if (bf->buffer_of[value_set_ids(a)[i]] == bf->buffer_of[value_set_ids(b)[j]])
				return 1;
	return 0;
}

int oracle_donor(struct hlo_module *m, int32_t param, const struct shape_index *idx,
		 const struct shape_index *out, const struct oracle_limits *lim, int n_edges,
		 const char *const *from, const char *const *to, struct oracle_copy_result *res)
{
	memset(res, 0, sizeof(*res));
	res->given = VERDICT_NONE;
	res->any = VERDICT_UNKNOWN;
	res->rewritten = oracle_donor_text(m, param, idx, out);
	if (!res->rewritten) {
		res->status = ORACLE_BAD_INPUT;
		snprintf(res->why, sizeof(res->why), "could not turn donor (%d) into an alias", param);
		return 0;
	}
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m2 = hlo_parse("<donor>", res->rewritten, strlen(res->rewritten), &d);
	if (!m2) {
		res->status = ORACLE_BAD_INPUT;
		snprintf(res->why, sizeof(res->why), "rewritten module does not parse: %.200s", d.first);
		return 0;
	}
	struct oracle *o = oracle_new(m2, lim, res->why, sizeof(res->why));
	int32_t b = o ? oracle_param_buffer(o, param, idx) : -1;
	if (b < 0) {
		res->status = ORACLE_BAD_INPUT;
		oracle_free(o);
		hlo_module_free(m2);
		return 0;
	}
	uint8_t *want = xcalloc((size_t)o->n_buffers, 1);
	want[b] = 1;
	if (n_edges > 0) {
		/* is the module with these edges hazard-free on the buffer? */
		const struct hlo_instruction **f = xcalloc((size_t)n_edges, sizeof(*f)),
					     **t = xcalloc((size_t)n_edges, sizeof(*t));
		int ok = 1;
		for (int k = 0; ok && k < n_edges; k++) {
			f[k] = t[k] = NULL;
			for (int32_t q = 0; (!f[k] || !t[k]) && q < m2->n_comps; q++) {
				f[k] = hlo_find_instruction(m2->comps[q], from[k]);
				t[k] = hlo_find_instruction(m2->comps[q], to[k]);
			}
			ok = f[k] && t[k];
		}
		struct set_answer a;
		memset(&a, 0, sizeof(a));
		if (ok) {
			struct edge_list el = {n_edges, f, t};
			eval_set(o, want, &el, 0, &a);
		}
		res->status = !ok ? ORACLE_BAD_INPUT : a.status;
		res->any = ok && a.status == ORACLE_OK && a.n_schedules > 0 && !a.some ? VERDICT_SAFE
										      : VERDICT_UNSAFE;
		free(a.witness);
		free(a.clean);
		free(f);
		free(t);
	} else {
		struct set_answer a;
		eval_set(o, want, NULL, 0, &a);
		res->status = a.status;
		res->n_schedules = a.n_schedules;
		snprintf(res->why, sizeof(res->why), "%s", a.why);
		res->witness = a.witness;
		res->clean = a.clean;
		if (a.status == ORACLE_OK)
			res->any = !a.some ? VERDICT_SAFE : a.every ? VERDICT_UNSAFE : VERDICT_SCHEDULE_DEPENDENT;
		if (m2->is_scheduled && a.status == ORACLE_OK) {
			struct set_answer g;
			eval_set(o, want, NULL, 1, &g);
			if (g.status == ORACLE_OK)
				res->given = g.some ? VERDICT_UNSAFE : VERDICT_SAFE;
			else
				res->status = g.status;
			free(g.witness);
			free(g.clean);
		}
	}
	free(want);
	oracle_free(o);
	hlo_module_free(m2);
	return 0;
}
