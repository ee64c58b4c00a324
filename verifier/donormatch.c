/* donormatch.c - XLA's donor-to-output matching (§7.3) and JAX's (§7.5). */
#include "donormatch.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *donor_outcome_name(enum donor_outcome o)
{
	switch (o) {
	case DONOR_MATCHED: return "matched";
	case DONOR_NO_OUTPUT_SIZE: return "no-output-of-size";
	case DONOR_MEMORY_SPACE: return "memory-space-differs";
	case DONOR_ALL_TAKEN: return "all-candidates-aliased";
	case DONOR_DYNAMIC_LEAF: return "dynamic-leaf";
	case DONOR_DYNAMIC_RESULT: return "dynamic-result";
	case DONOR_ALREADY_ALIASED: return "already-aliased";
	}
	return "?";
}

/* A growable array of leaves, malloc'd while collecting, copied into the arena. */
struct leafvec {
	void *v;
	int32_t n, cap;
	size_t size;
};

static void *vec_push(struct leafvec *l)
{
	if (l->n == l->cap) {
		int32_t cap = l->cap ? 2 * l->cap : 16;
		void *v = xrealloc(l->v, (size_t)cap * l->size, 1);
		l->v = v;
		l->cap = cap;
	}
	void *x = (char *)l->v + (size_t)l->n++ * l->size;
	memset(x, 0, l->size);
	return x;
}

static int is_dynamic(const struct shape *s)
{
	if (!s->dim_kinds)
		return 0;
	for (int i = 0; i < s->rank; i++)
		if (s->dim_kinds[i] != DIM_STATIC)
			return 1;
	return 0;
}

static int any_dynamic(const struct shape *s, int depth)
{
	if (depth > SHAPE_MAX_DEPTH)
		return 0;
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++)
			if (any_dynamic(&s->elems[i], depth + 1))
				return 1;
		return 0;
	}
	return is_dynamic(s);
}

static struct shape_index index_copy(struct arena *a, const int32_t *path, int depth)
{
	struct shape_index ix = {depth, arena_array(a, (size_t)depth + 1, sizeof(int32_t))};
	if (depth)
		memcpy(ix.idx, path, (size_t)depth * sizeof(int32_t));
	return ix;
}

/* Array leaves of s in pre-order; visit(ctx, shape, path, depth). Depth is
 * bounded by SHAPE_MAX_DEPTH (the parser rejects deeper shapes). */
static void walk_leaves(const struct shape *s, int32_t *path, int depth,
			void (*visit)(void *, const struct shape *, const int32_t *, int), void *ctx)
{
	if (depth > SHAPE_MAX_DEPTH)
		return;
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++) {
			path[depth] = i;
			walk_leaves(&s->elems[i], path, depth + 1, visit, ctx);
		}
		return;
	}
	if (shape_is_array(s))
		visit(ctx, s, path, depth);
}

struct collect_ctx {
	const struct hlo_module *m;
	struct arena *a;
	struct leafvec *vec;
	int32_t param;          /* -1: collecting outputs */
	int result_dynamic;
};

static const struct buffer_donor *find_donor(const struct hlo_module *m, int32_t p,
					     const int32_t *path, int depth)
{
	struct shape_index ix = {depth, (int32_t *)path};
	for (int32_t i = 0; i < m->n_donors; i++)
		if (m->donors[i].param == p && shape_index_equal(&m->donors[i].param_index, &ix))
			return &m->donors[i];
	return NULL;
}

static const struct io_alias *alias_from(const struct hlo_module *m, int32_t p,
					 const struct shape_index *ix)
{
	for (int32_t i = 0; i < m->n_aliases; i++)
		if (m->aliases[i].param == p && shape_index_equal(&m->aliases[i].param_index, ix))
			return &m->aliases[i];
	return NULL;
}

static const struct io_alias *alias_to(const struct hlo_module *m, const struct shape_index *ix)
{
	for (int32_t i = 0; i < m->n_aliases; i++)
		if (shape_index_equal(&m->aliases[i].output, ix))
			return &m->aliases[i];
	return NULL;
}

static void visit_donor(void *p, const struct shape *s, const int32_t *path, int depth)
{
	struct collect_ctx *c = p;
	const struct buffer_donor *bd = find_donor(c->m, c->param, path, depth);
	if (!bd)
		return;
	struct donor_leaf *l = vec_push(c->vec);
	l->param = c->param;
	l->index = index_copy(c->a, path, depth);
	l->shape = s;
	l->bytes = s->bytes;
	l->space = s->layout.memory_space;
	l->donor = bd;
	l->output = l->jax_output = -1;
	l->other_space = -1;
	l->alias = alias_from(c->m, c->param, &l->index);
	/* DONOR_NO_OUTPUT_SIZE doubles as "eligible, not matched yet": the walk
	 * pairs those, classify() refines what stays unmatched */
	l->outcome = l->alias ? DONOR_ALREADY_ALIASED
		   : c->result_dynamic ? DONOR_DYNAMIC_RESULT
		   : is_dynamic(s) ? DONOR_DYNAMIC_LEAF : DONOR_NO_OUTPUT_SIZE;
}

static void visit_output(void *p, const struct shape *s, const int32_t *path, int depth)
{
	struct collect_ctx *c = p;
	struct output_leaf *l = vec_push(c->vec);
	l->index = index_copy(c->a, path, depth);
	l->shape = s;
	l->bytes = s->bytes;
	l->space = s->layout.memory_space;
	l->alias = alias_to(c->m, &l->index);
	l->donor = l->jax_donor = -1;
}

/* Sort keys: bytes descending, then collection order (a stable sort). */
struct slot {
	uint64_t bytes;
	int32_t seq;
};

static int cmp_slot(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The two-cursor walk of one memory space. */
static void match_space(struct donor_matching *dm, int space)
{
	struct slot *d = xmalloc((size_t)dm->n_donors + 1, sizeof(*d));
	struct slot *e = xmalloc((size_t)dm->n_outputs + 1, sizeof(*e));
	size_t nd = 0, ne = 0;
	for (int32_t i = 0; i < dm->n_donors; i++)
		if (dm->donors[i].space == space && dm->donors[i].outcome == DONOR_NO_OUTPUT_SIZE)
			d[nd++] = (struct slot){dm->donors[i].bytes, i};
	for (int32_t i = 0; i < dm->n_outputs; i++)
		if (dm->outputs[i].space == space && !dm->outputs[i].alias)
			e[ne++] = (struct slot){dm->outputs[i].bytes, i};
	qsort(d, nd, sizeof(*d), cmp_slot);
	qsort(e, ne, sizeof(*e), cmp_slot);
	size_t i = 0, j = 0;
	while (i < nd && j < ne) {
		if (d[i].bytes > e[j].bytes) {
			i++;
		} else if (d[i].bytes < e[j].bytes) {
			j++;
		} else {
			struct donor_leaf *dl = &dm->donors[d[i].seq];
			dl->outcome = DONOR_MATCHED;
			dl->output = e[j].seq;
			dm->outputs[e[j].seq].donor = d[i].seq;
			i++;
			j++;
		}
	}
	free(d);
	free(e);
}

/* Why an unmatched donor stayed unmatched: look at the outputs of its size. */
static void classify(struct donor_matching *dm, struct donor_leaf *dl)
{
	for (int32_t i = 0; i < dm->n_outputs; i++) {
		const struct output_leaf *o = &dm->outputs[i];
		if (o->bytes != dl->bytes)
			continue;
		if (o->space != dl->space) {
			if (dl->other_space < 0)
				dl->other_space = o->space;
			continue;
		}
		dl->n_taken_by_alias += o->alias != NULL;
		dl->n_taken_by_donor += o->donor >= 0;
	}
	if (dl->outcome != DONOR_NO_OUTPUT_SIZE)
		return;
	if (dl->n_taken_by_alias || dl->n_taken_by_donor)
		dl->outcome = DONOR_ALL_TAKEN;
	else if (dl->other_space >= 0)
		dl->outcome = DONOR_MEMORY_SPACE;
}

/* §7.5: outputs in order, each takes the earliest unpaired donor of the same
 * dtype, dims and memory space. Outputs input_output_alias already holds were
 * paired by JAX with the aliased argument and are not offered again. */
static void match_jax(struct donor_matching *dm)
{
	for (int32_t o = 0; o < dm->n_outputs; o++) {
		struct output_leaf *ol = &dm->outputs[o];
		if (ol->alias)
			continue;
		for (int32_t i = 0; i < dm->n_donors; i++) {
			struct donor_leaf *dl = &dm->donors[i];
			if (dl->jax_output >= 0 || dl->outcome == DONOR_ALREADY_ALIASED ||
			    dl->space != ol->space || !shape_compatible(dl->shape, ol->shape))
				continue;
			dl->jax_output = o;
			ol->jax_donor = i;
			break;
		}
	}
}

int donor_match(const struct hlo_module *m, struct arena *a, struct donor_matching *out)
{
	memset(out, 0, sizeof(*out));
	const struct hlo_computation *entry = m->entry;
	if (!entry || !entry->root)
		return -1;
	int layout_params = m->has_entry_layout && m->n_entry_layout_params == entry->n_params;
	const struct shape *result = m->has_entry_layout && m->entry_layout_result
					     ? m->entry_layout_result : entry->root->shape;
	out->result_dynamic = result && any_dynamic(result, 0);
	int32_t path[SHAPE_MAX_DEPTH + 1];

	struct leafvec dv = {0, 0, 0, sizeof(struct donor_leaf)};
	struct leafvec ov = {0, 0, 0, sizeof(struct output_leaf)};
	struct collect_ctx c = {m, a, &dv, 0, out->result_dynamic};
	if (m->n_donors) {
		for (int32_t p = 0; p < entry->n_params; p++) {
			const struct shape *ps = layout_params ? m->entry_layout_params[p]
				: entry->params[p] ? entry->params[p]->shape : NULL;
			if (!ps)
				continue;
			c.param = p;
			walk_leaves(ps, path, 0, visit_donor, &c);
		}
	}
	c.vec = &ov;
	c.param = -1;
	if (result)
		walk_leaves(result, path, 0, visit_output, &c);

	out->n_donors = dv.n;
	out->n_outputs = ov.n;
	out->donors = arena_array(a, (size_t)dv.n + 1, sizeof(struct donor_leaf));
	out->outputs = arena_array(a, (size_t)ov.n + 1, sizeof(struct output_leaf));
	if (dv.n)
		memcpy(out->donors, dv.v, (size_t)dv.n * sizeof(struct donor_leaf));
	if (ov.n)
		memcpy(out->outputs, ov.v, (size_t)ov.n * sizeof(struct output_leaf));
	free(dv.v);
	free(ov.v);

	/* registrations -> leaves (duplicate registrations share the first's leaf) */
	out->leaf_of_entry = arena_array(a, (size_t)m->n_donors + 1, sizeof(int32_t));
	for (int32_t e = 0; e < m->n_donors; e++) {
		out->leaf_of_entry[e] = -1;
		for (int32_t i = 0; i < out->n_donors; i++)
			if (out->donors[i].param == m->donors[e].param &&
			    shape_index_equal(&out->donors[i].index, &m->donors[e].param_index)) {
				out->leaf_of_entry[e] = i;
				break;
			}
	}

	if (!out->result_dynamic) {
		for (int32_t i = 0; i < out->n_donors; i++) {
			int first = 1;
			for (int32_t k = 0; k < i && first; k++)
				first = out->donors[k].space != out->donors[i].space;
			if (first)
				match_space(out, out->donors[i].space);
		}
	}
	for (int32_t i = 0; i < out->n_donors; i++)
		if (out->donors[i].outcome != DONOR_MATCHED)
			classify(out, &out->donors[i]);
	match_jax(out);
	return 0;
}

void describe_param(char *buf, size_t cap, const struct hlo_module *m, int32_t p,
		    const struct shape_index *ix)
{
	char is[128];
	shape_index_to_string(ix, is, sizeof(is));
	const char *path = param_arg_path(m, p);
	if (path)
		snprintf(buf, cap, "param %d %s (%s)", p, is, path);
	else
		snprintf(buf, cap, "param %d %s", p, is);
}

void param_short_name(char *buf, size_t cap, const struct hlo_module *m, int32_t p,
		      const struct shape_index *ix)
{
	char is[128] = "";
	if (ix->n)
		shape_index_to_string(ix, is, sizeof(is));
	const char *path = param_arg_path(m, p);
	if (path)
		snprintf(buf, cap, "%.36s%s%s%s", path, strlen(path) > 36 ? "..." : "", *is ? " " : "", is);
	else
		snprintf(buf, cap, "param %d%s%s", p, *is ? " " : "", is);
}

void shape_text(const struct shape *s, char *buf, size_t cap)
{
	size_t need = shape_to_string(s, buf, cap);
	if (need >= cap && cap > 4)
		strcpy(buf + cap - 4, "...");
}

/* dtype and dims without the layout: "f32[8,4]" (what JAX compares). */
static void array_type_text(const struct shape *s, char *buf, size_t cap)
{
	size_t n = (size_t)snprintf(buf, cap, "%s[", ptype_name((enum ptype)s->type) ? ptype_name((enum ptype)s->type) : "?");
	for (int d = 0; d < s->rank && n < cap; d++)
		n += (size_t)snprintf(buf + n, cap - n, d ? ",%lld" : "%lld", (long long)s->dims[d]);
	if (n < cap)
		snprintf(buf + n, cap - n, "]");
}

void donor_reason(const struct donor_matching *dm, int32_t i, char *buf, size_t cap)
{
	const struct donor_leaf *dl = &dm->donors[i];
	char is[128];
	switch (dl->outcome) {
	case DONOR_MATCHED:
		buf[0] = 0;
		break;
	case DONOR_ALL_TAKEN:
		snprintf(buf, cap, "every candidate output of %llu bytes is already aliased (%d by "
			 "input_output_alias, %d by earlier donors)", (unsigned long long)dl->bytes,
			 dl->n_taken_by_alias, dl->n_taken_by_donor);
		break;
	case DONOR_MEMORY_SPACE:
		snprintf(buf, cap, "memory space differs (donor in S(%d), outputs of %llu bytes in S(%d))",
			 dl->space, (unsigned long long)dl->bytes, dl->other_space);
		break;
	case DONOR_NO_OUTPUT_SIZE:
		snprintf(buf, cap, "no output of %llu bytes", (unsigned long long)dl->bytes);
		break;
	case DONOR_DYNAMIC_RESULT:
		snprintf(buf, cap, "the entry result shape is dynamic, so XLA matches no donors");
		break;
	case DONOR_DYNAMIC_LEAF:
		snprintf(buf, cap, "the donated leaf is dynamically shaped, which XLA never matches");
		break;
	case DONOR_ALREADY_ALIASED:
		shape_index_to_string(&dl->alias->output, is, sizeof(is));
		snprintf(buf, cap, "it is already aliased to output %s by input_output_alias", is);
		break;
	}
}

void donor_candidates(const struct hlo_module *m, const struct donor_matching *dm, int32_t i,
		      int max_lines, void (*line)(void *ctx, const char *text), void *ctx)
{
	const struct donor_leaf *dn = &dm->donors[i];
	int shown = 0, hidden = 0;
	char text[800];
	for (int pass = 0; pass < 3; pass++) {
		for (int32_t k = 0; k < dm->n_outputs; k++) {
			const struct output_leaf *e = &dm->outputs[k];
			int same_space = e->space == dn->space, same_size = e->bytes == dn->bytes;
			int want = pass == 0 ? same_space && same_size
				 : pass == 1 ? !same_space && same_size : same_space && !same_size;
			if (!want)
				continue;
			if (shown >= max_lines) {
				hidden++;
				continue;
			}
			char is[128], ss[160], who[300], pd[256];
			shape_index_to_string(&e->index, is, sizeof(is));
			shape_text(e->shape, ss, sizeof(ss));
			if (e->alias) {
				describe_param(pd, sizeof(pd), m, e->alias->param, &e->alias->param_index);
				snprintf(who, sizeof(who), "already aliased to %s by input_output_alias", pd);
			} else if (e->donor == i) {
				snprintf(who, sizeof(who), "matched to this donor");
			} else if (e->donor >= 0) {
				const struct donor_leaf *o = &dm->donors[e->donor];
				describe_param(pd, sizeof(pd), m, o->param, &o->index);
				snprintf(who, sizeof(who), "taken by donor %s", pd);
			} else if (!same_space) {
				snprintf(who, sizeof(who), "free, but in memory space %d", e->space);
			} else {
				snprintf(who, sizeof(who), "free, %s", same_size ? "same size"
					 : e->bytes > dn->bytes ? "larger" : "smaller");
			}
			snprintf(text, sizeof(text), "output %s %s, %llu bytes: %s", is, ss,
				 (unsigned long long)e->bytes, who);
			line(ctx, text);
			shown++;
		}
	}
	if (hidden) {
		snprintf(text, sizeof(text), "... and %d more outputs", hidden);
		line(ctx, text);
	}
	if (!shown) {
		snprintf(text, sizeof(text), "no array output in memory space %d and none of "
			 "%llu bytes elsewhere", dn->space, (unsigned long long)dn->bytes);
		line(ctx, text);
	}
}

void donor_jax_note(const struct hlo_module *m, const struct donor_matching *dm, int32_t i,
		    char *buf, size_t cap)
{
	const struct donor_leaf *dl = &dm->donors[i];
	char ss[160], is[128], sp[32] = "";
	array_type_text(dl->shape, ss, sizeof(ss));
	if (dl->space)
		snprintf(sp, sizeof(sp), " in memory space S(%d)", dl->space);
	if (dl->jax_output < 0) {
		snprintf(buf, cap, "JAX (same dtype and shape, §7.5): no free output of type %s%s; "
			 "JAX warns \"Some donated buffers were not usable\" for such an argument", ss, sp);
		return;
	}
	shape_index_to_string(&dm->outputs[dl->jax_output].index, is, sizeof(is));
	if (dl->outcome == DONOR_MATCHED && dl->output == dl->jax_output)
		snprintf(buf, cap, "JAX (same dtype and shape, §7.5) pairs it with output %s too", is);
	else
		snprintf(buf, cap, "JAX (same dtype and shape, §7.5) would pair it with output %s", is);
}
