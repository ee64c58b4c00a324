/* layout-round-trip (HP104): a value relaid out from layout A to B and back
 * to A by copies, with only layout-agnostic work in between.
 *
 * Tracking "layout" across logical transposes: for each value on the chain we
 * keep which dimension of the starting value each of its logical dimensions
 * is (orig[d]). Its physical arrangement is then the list orig[m2m[k]] over
 * its minor_to_major order, plus the layout's extras (tiles, element size)
 * and memory space. A copy whose arrangement differs from its operand's is a
 * relayout (data moves); a copy, an elementwise op or convert that keeps the
 * arrangement, a transpose that keeps it (physically a bitcast) and a
 * same-rank bitcast carry the chain on. The chain is reported when a relayout
 * copy brings the arrangement back to the starting one.
 *
 * Bounds: a search starts at each relayout copy, follows users at most
 * MAX_DEPTH steps deep and visits at most MAX_VISITS instructions. */
#include "lint.h"
#include "timeline.h" /* tl_format_bytes */
#include "verdict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_VISITS 4096

/* A value on the chain: its instruction and its dims' origin. */
struct step {
	const struct hlo_instruction *in;
	int32_t orig[SHAPE_MAX_RANK];
	int relayout;   /* this step is a relayout copy */
};

/* Physical arrangement in the starting value's dims; returns rank, or -1
 * when the shape is not a ranked array we can follow. */
static int arrangement(const struct shape *s, const int32_t *orig, int32_t *out)
{
	if (!s || !shape_is_array(s) || s->rank > SHAPE_MAX_RANK)
		return -1;
	int r = s->rank;
	if (s->layout.n_m2m >= 0 && s->layout.n_m2m != r)
		return -1;
	for (int k = 0; k < r; k++) {
		int d = s->layout.n_m2m >= 0 ? s->layout.minor_to_major[k] : r - 1 - k;
		if (d < 0 || d >= r)
			return -1;
		out[k] = orig[d];
	}
	return r;
}

static int same_extras(const struct shape *a, const struct shape *b)
{
	if (a->layout.memory_space != b->layout.memory_space ||
	    a->layout.element_size_bits != b->layout.element_size_bits)
		return 0;
	const char *x = a->layout.ext ? a->layout.ext : "", *y = b->layout.ext ? b->layout.ext : "";
	return !strcmp(x, y);
}

/* Same physical arrangement: values a (with orig oa) and b (with ob). */
static int same_arrangement(const struct shape *a, const int32_t *oa, const struct shape *b,
			    const int32_t *ob)
{
	int32_t pa[SHAPE_MAX_RANK], pb[SHAPE_MAX_RANK];
	int ra = arrangement(a, oa, pa), rb = arrangement(b, ob, pb);
	if (ra < 0 || ra != rb || !same_extras(a, b))
		return 0;
	return !memcmp(pa, pb, (size_t)ra * sizeof(int32_t));
}

static int same_dims(const struct shape *a, const struct shape *b)
{
	return a->rank == b->rank && !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(int64_t));
}

/* A copy that changes the arrangement, not the memory space or tiling. */
static int is_relayout_copy(const struct hlo_instruction *c)
{
	if (c->opcode != OP_COPY || c->n_operands != 1 || !c->operands[0]->shape || !c->shape)
		return 0;
	const struct shape *a = c->operands[0]->shape, *b = c->shape;
	if (!shape_is_array(a) || !shape_is_array(b) || !same_dims(a, b))
		return 0;
	if (a->layout.memory_space != b->layout.memory_space)
		return 0;
	int32_t id[SHAPE_MAX_RANK];
	for (int i = 0; i < SHAPE_MAX_RANK; i++)
		id[i] = i;
	int32_t pa[SHAPE_MAX_RANK], pb[SHAPE_MAX_RANK];
	int ra = arrangement(a, id, pa), rb = arrangement(b, id, pb);
	if (ra < 0 || rb != ra)
		return 0;
	return memcmp(pa, pb, (size_t)ra * sizeof(int32_t)) || !same_extras(a, b);
}

/* Carry `from` (operand `x` of user `u`) into `to`; 0 when u breaks the chain. */
static int advance(const struct step *from, const struct hlo_instruction *u, struct step *to)
{
	const struct hlo_instruction *x = from->in;
	const struct shape *xs = x->shape, *us = u->shape;
	if (!us || !shape_is_array(us) || us->rank > SHAPE_MAX_RANK)
		return 0;
	to->in = u;
	to->relayout = 0;
	switch (u->opcode) {
	case OP_TRANSPOSE:
		if (u->n_dimensions != us->rank || u->n_operands != 1)
			return 0;
		for (int i = 0; i < us->rank; i++) {
			int64_t p = u->dimensions[i];
			if (p < 0 || p >= xs->rank)
				return 0;
			to->orig[i] = from->orig[p];
		}
		/* only a transpose that is physically a bitcast carries on */
		return same_arrangement(xs, from->orig, us, to->orig);
	case OP_BITCAST: {
		if (us->rank != xs->rank || us->type != xs->type || !same_extras(xs, us))
			return 0;
		int r = us->rank;
		for (int k = 0; k < r; k++) {
			int di = xs->layout.n_m2m == r ? xs->layout.minor_to_major[k] : r - 1 - k;
			int dout = us->layout.n_m2m == r ? us->layout.minor_to_major[k] : r - 1 - k;
			if (di < 0 || di >= r || dout < 0 || dout >= r || xs->dims[di] != us->dims[dout])
				return 0;
			to->orig[dout] = from->orig[di];
		}
		return 1;
	}
	case OP_COPY:
		if (!same_dims(xs, us))
			return 0;
		memcpy(to->orig, from->orig, sizeof(to->orig));
		if (is_relayout_copy(u)) {
			to->relayout = 1;
			return 1;
		}
		return same_arrangement(xs, from->orig, us, to->orig);
	default:
		/* elementwise ops and convert: same dims, and the same layout */
		if (!(opcode_flags(u->opcode) & OPF_E) || u->opcode == OP_MAP || !same_dims(xs, us))
			return 0;
		memcpy(to->orig, from->orig, sizeof(to->orig));
		return same_arrangement(xs, from->orig, us, to->orig);
	}
}

static void layout_str(const struct shape *s, char *buf, size_t cap)
{
	size_t o = 0;
	o += (size_t)snprintf(buf + o, cap - o, "{");
	for (int k = 0; k < s->rank && o < cap; k++) {
		int d = s->layout.n_m2m == s->rank ? s->layout.minor_to_major[k] : s->rank - 1 - k;
		o += (size_t)snprintf(buf + o, cap - o, "%s%d", k ? "," : "", d);
	}
	if (o < cap)
		snprintf(buf + o, cap - o, "}");
}

struct search {
	struct rule_ctx *ctx;
	const struct hlo_instruction *start;  /* the value before the first copy */
	int32_t start_orig[SHAPE_MAX_RANK];
	struct step path[MAX_DEPTH + 1];
	int32_t *stamp;                       /* per gid: last search that visited it */
	int32_t stamp_id;
	int visits;
};

static void report(struct search *s, int depth)
{
	const struct hlo_instruction *first = s->path[0].in, *last = s->path[depth].in;
	int copies = 0;
	uint64_t bytes = 0;
	for (int i = 0; i <= depth; i++)
		if (s->path[i].relayout) {
			copies++;
			bytes += s->path[i].in->shape->bytes;
		}
	char la[128], lb[128];
	layout_str(s->start->shape, la, sizeof(la));
	layout_str(first->shape, lb, sizeof(lb));
	char key[300];
	snprintf(key, sizeof(key), "%.*s", (int)name_stem_len(last->name), last->name);
	char b[32];
	tl_format_bytes((uint64_t)bytes, b, sizeof(b));
	struct finding *f = finding_add_at(
		s->ctx, first, (struct srcpos){0, 0, 0}, key,
		"layout round trip: %s goes %s -> %s -> %s through %d copies, %s for nothing; "
		"keep one layout", s->start->name, la, lb, la, copies, b);
	finding_facts(f, (long long)bytes, copy_family_name(FAMILY_LAYOUT), NULL);
	char ss[200];
	shape_to_string(s->start->shape, ss, sizeof(ss));
	finding_evidence(s->ctx->findings, f, "%d:%d: %s = %s %s", s->start->pos.line,
			 s->start->pos.col, s->start->name, ss, opcode_name(s->start->opcode));
	for (int i = 0; i <= depth; i++) {
		const struct hlo_instruction *in = s->path[i].in;
		shape_to_string(in->shape, ss, sizeof(ss));
		char note[320] = "";
		if (s->path[i].relayout) {
			char from[128], to[128];
			layout_str(in->operands[0]->shape, from, sizeof(from));
			layout_str(in->shape, to, sizeof(to));
			snprintf(note, sizeof(note), "  <- relayout %s -> %s, %llu bytes", from, to,
				 (unsigned long long)in->shape->bytes);
		} else if (in->opcode == OP_TRANSPOSE || in->opcode == OP_BITCAST) {
			snprintf(note, sizeof(note), "  <- no data movement (bitcast)");
		}
		finding_evidence(s->ctx->findings, f, "%d:%d: %s = %s %s%s", in->pos.line, in->pos.col,
				 in->name, ss, hlo_opcode_text(in), note);
	}
}

/* Depth-first along users from path[depth]. */
static void search(struct search *s, int depth)
{
	const struct hlo_instruction *x = s->path[depth].in;
	if (depth >= MAX_DEPTH)
		return;
	for (int32_t i = 0; i < x->n_users; i++) {
		const struct hlo_instruction *u = x->users[i];
		if (s->visits >= MAX_VISITS)
			return;
		if (s->stamp[u->gid] == s->stamp_id)
			continue;
		s->stamp[u->gid] = s->stamp_id;
		s->visits++;
		struct step *next = &s->path[depth + 1];
		if (!advance(&s->path[depth], u, next))
			continue;
		if (next->relayout &&
		    same_arrangement(s->start->shape, s->start_orig, u->shape, next->orig)) {
			report(s, depth + 1);
			continue; /* back in layout A: a new chain would start here */
		}
		search(s, depth + 1);
	}
}

static int check(struct rule_ctx *ctx)
{
	const struct hlo_module *m = ctx->module;
	if (m->n_instrs <= 0)
		return 0;
	int32_t *stamp = calloc((size_t)m->n_instrs, sizeof(*stamp));
	if (!stamp)
		return -1;
	struct search *s = calloc(1, sizeof(*s));
	if (!s) {
		free(stamp);
		return -1;
	}
	s->ctx = ctx;
	s->stamp = stamp;
	/* before optimization the simplifier drops a relayout copy first */
	int before = rule_stage(ctx) == STAGE_BEFORE;
	for (int i = 0; i < SHAPE_MAX_RANK; i++)
		s->start_orig[i] = i;
	for (int32_t c = 0; c < m->n_comps; c++) {
		const struct hlo_computation *comp = m->comps[c];
		for (int32_t j = 0; j < comp->n_instrs; j++) {
			const struct hlo_instruction *in = comp->instrs[j];
			if (!is_relayout_copy(in) || (before && copy_is_simplifier_noop(in)))
				continue;
			s->start = in->operands[0];
			s->path[0].in = in;
			s->path[0].relayout = 1;
			memcpy(s->path[0].orig, s->start_orig, sizeof(s->start_orig));
			s->stamp_id++;
			s->visits = 0;
			stamp[in->gid] = s->stamp_id;
			search(s, 0);
		}
	}
	free(s);
	free(stamp);
	return 0;
}

const struct rule rule_layout_round_trip = {
	.id = "HP104",
	.slug = "layout-round-trip",
	.severity = SEV_WARNING,
	.summary = "a value relaid out by copies and relaid back, with only elementwise work between",
	.check = check,
	.flags = RULE_ABOUT_COPY,
};
