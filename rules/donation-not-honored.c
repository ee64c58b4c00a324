/* donation-not-honored (HP201): a buffer_donor leaf that no output will reuse.
 *
 * Predicts XLA's OptimizeInputOutputBufferAlias (hlo-semantics.md §7.3), the
 * pass that turns donors into may-alias entries right before copy insertion:
 * skip when the result shape is dynamic; donors are the registered array
 * leaves of each parameter in order (pre-order), not dynamic and not already
 * aliased; donees are the result's array leaves not already aliased; per
 * memory space both lists are stably sorted by bytes, descending, and walked
 * with two cursors (bigger donor: skip it; bigger donee: skip it; equal:
 * match). Every donor left over is reported with the reason and the outputs
 * that were considered. Only byte size and memory space matter to XLA. */
#include "lint.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES_SHOWN 12

enum leaf_state { LEAF_FREE = 0, LEAF_ALIASED, LEAF_MATCHED };

struct leaf {
	int32_t param;                /* -1 for result leaves */
	struct shape_index index;     /* in the arena */
	const struct shape *shape;
	uint64_t bytes;
	int space;
	enum leaf_state state;
	int32_t partner;              /* matched donor/donee, index into the other list */
	const struct io_alias *alias; /* for LEAF_ALIASED */
	const struct buffer_donor *donor;
	int dynamic;
	int64_t seq;                  /* pre-order position, for the stable sort */
};

struct leaves {
	struct leaf *v;
	int32_t n, cap;
};

static int push(struct leaves *l, const struct leaf *x)
{
	if (l->n == l->cap) {
		int32_t cap = l->cap ? 2 * l->cap : 16;
		struct leaf *v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = *x;
	l->v[l->n].seq = l->n;
	l->n++;
	return 0;
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

static int shape_any_dynamic(const struct shape *s, int depth)
{
	if (depth > SHAPE_MAX_DEPTH)
		return 0;
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++)
			if (shape_any_dynamic(&s->elems[i], depth + 1))
				return 1;
		return 0;
	}
	return is_dynamic(s);
}

/* Array leaves of s in pre-order. */
static int collect(struct arena *a, const struct shape *s, int32_t param, int32_t *path,
		   int depth, struct leaves *out)
{
	if (depth > SHAPE_MAX_DEPTH)
		return 0;
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++) {
			path[depth] = i;
			if (collect(a, &s->elems[i], param, path, depth + 1, out) < 0)
				return -1;
		}
		return 0;
	}
	if (!shape_is_array(s))
		return 0;
	struct leaf l = {0};
	l.param = param;
	l.index.n = depth;
	l.index.idx = arena_array(a, (size_t)depth + 1, sizeof(int32_t));
	memcpy(l.index.idx, path, (size_t)depth * sizeof(int32_t));
	l.shape = s;
	l.bytes = s->bytes;
	l.space = s->layout.memory_space;
	l.dynamic = is_dynamic(s);
	l.partner = -1;
	return push(out, &l);
}

static const struct buffer_donor *find_donor(const struct hlo_module *m, int32_t p,
					     const struct shape_index *ix)
{
	for (int32_t i = 0; i < m->n_donors; i++)
		if (m->donors[i].param == p && shape_index_equal(&m->donors[i].param_index, ix))
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

static int cmp_bytes_desc(const void *pa, const void *pb)
{
	const struct leaf *a = *(const struct leaf *const *)pa, *b = *(const struct leaf *const *)pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq; /* stable */
}

/* The two-cursor walk of one memory space. */
static int match_space(struct leaves *donors, struct leaves *donees, int space)
{
	struct leaf **d = malloc(((size_t)donors->n + 1) * sizeof(*d));
	struct leaf **e = malloc(((size_t)donees->n + 1) * sizeof(*e));
	if (!d || !e) {
		free(d);
		free(e);
		return -1;
	}
	size_t nd = 0, ne = 0;
	for (int32_t i = 0; i < donors->n; i++)
		if (donors->v[i].space == space && donors->v[i].state == LEAF_FREE)
			d[nd++] = &donors->v[i];
	for (int32_t i = 0; i < donees->n; i++)
		if (donees->v[i].space == space && donees->v[i].state == LEAF_FREE)
			e[ne++] = &donees->v[i];
	qsort(d, nd, sizeof(*d), cmp_bytes_desc);
	qsort(e, ne, sizeof(*e), cmp_bytes_desc);
	size_t i = 0, j = 0;
	while (i < nd && j < ne) {
		if (d[i]->bytes > e[j]->bytes) {
			i++;
		} else if (d[i]->bytes < e[j]->bytes) {
			j++;
		} else {
			d[i]->state = e[j]->state = LEAF_MATCHED;
			d[i]->partner = (int32_t)(e[j] - donees->v);
			e[j]->partner = (int32_t)(d[i] - donors->v);
			i++;
			j++;
		}
	}
	free(d);
	free(e);
	return 0;
}

/* "param 0 {1} (params['w'])" */
static void describe_param(char *buf, size_t cap, const struct hlo_module *m, int32_t p,
			   const struct shape_index *ix)
{
	char is[128];
	shape_index_to_string(ix, is, sizeof(is));
	const struct hlo_instruction *pi =
		m->entry && p >= 0 && p < m->entry->n_params ? m->entry->params[p] : NULL;
	if (pi && pi->op_name && *pi->op_name)
		snprintf(buf, cap, "param %d %s (%s)", p, is, pi->op_name);
	else
		snprintf(buf, cap, "param %d %s", p, is);
}

static void shape_str(const struct shape *s, char *buf, size_t cap)
{
	size_t need = shape_to_string(s, buf, cap);
	if (need >= cap && cap > 4)
		strcpy(buf + cap - 4, "...");
}

/* The outputs considered, most relevant first: same memory space and byte
 * size, same size in another memory space, then the rest of the donor's
 * memory space; bounded. */
static void list_candidates(struct rule_ctx *ctx, struct finding *f, const struct leaf *dn,
			    const struct leaves *donors, const struct leaves *donees)
{
	int shown = 0, hidden = 0;
	for (int pass = 0; pass < 3; pass++) {
		for (int32_t i = 0; i < donees->n; i++) {
			const struct leaf *e = &donees->v[i];
			int same_space = e->space == dn->space, same_size = e->bytes == dn->bytes;
			int want = pass == 0 ? same_space && same_size
				 : pass == 1 ? !same_space && same_size : same_space && !same_size;
			if (!want)
				continue;
			if (shown >= MAX_CANDIDATES_SHOWN) {
				hidden++;
				continue;
			}
			char is[128], ss[160], who[300] = "", pd[256];
			shape_index_to_string(&e->index, is, sizeof(is));
			shape_str(e->shape, ss, sizeof(ss));
			if (e->state == LEAF_ALIASED) {
				describe_param(pd, sizeof(pd), ctx->module, e->alias->param,
					       &e->alias->param_index);
				snprintf(who, sizeof(who), "already aliased to %s by input_output_alias", pd);
			} else if (e->state == LEAF_MATCHED) {
				const struct leaf *o = &donors->v[e->partner];
				describe_param(pd, sizeof(pd), ctx->module, o->param, &o->index);
				snprintf(who, sizeof(who), "taken by donor %s", pd);
			} else if (!same_space) {
				snprintf(who, sizeof(who), "free, but in memory space %d", e->space);
			} else {
				snprintf(who, sizeof(who), "free, %s", same_size ? "same size"
							: e->bytes > dn->bytes ? "larger" : "smaller");
			}
			finding_evidence(ctx->findings, f, "output %s %s, %llu bytes: %s", is, ss,
					 (unsigned long long)e->bytes, who);
			shown++;
		}
	}
	if (hidden)
		finding_evidence(ctx->findings, f, "... and %d more outputs", hidden);
	if (!shown)
		finding_evidence(ctx->findings, f, "no array output in memory space %d and none of "
				 "%llu bytes elsewhere", dn->space, (unsigned long long)dn->bytes);
}

static void report(struct rule_ctx *ctx, const struct leaf *dn, const char *reason,
		   const struct leaves *donors, const struct leaves *donees)
{
	const struct hlo_module *m = ctx->module;
	char pd[256], ss[160], key[160];
	describe_param(pd, sizeof(pd), m, dn->param, &dn->index);
	shape_str(dn->shape, ss, sizeof(ss));
	shape_index_to_string(&dn->index, key, sizeof(key));
	const struct hlo_instruction *pi = m->entry && dn->param < m->entry->n_params
						   ? m->entry->params[dn->param] : NULL;
	struct srcpos pos = dn->donor ? dn->donor->pos : (struct srcpos){0, 0, 0};
	struct finding *f = finding_add_at(ctx, pi, pos, key,
					   "donated %s %s (%llu bytes) will not be reused by any output: %s",
					   pd, ss, (unsigned long long)dn->bytes, reason);
	if (donees)
		list_candidates(ctx, f, dn, donors, donees);
}

/* Why the walk left `dn` without an output. */
static void explain(struct rule_ctx *ctx, const struct leaf *dn, const struct leaves *donors,
		    const struct leaves *donees)
{
	int taken = 0, aliased = 0, other_space = -1;
	for (int32_t i = 0; i < donees->n; i++) {
		const struct leaf *e = &donees->v[i];
		if (e->bytes != dn->bytes)
			continue;
		if (e->space != dn->space) {
			other_space = e->space;
			continue;
		}
		taken += e->state == LEAF_MATCHED;
		aliased += e->state == LEAF_ALIASED;
	}
	char reason[256];
	if (taken || aliased)
		snprintf(reason, sizeof(reason),
			 "every candidate output of %llu bytes is already aliased (%d by "
			 "input_output_alias, %d by earlier donors)",
			 (unsigned long long)dn->bytes, aliased, taken);
	else if (other_space >= 0)
		snprintf(reason, sizeof(reason),
			 "memory space differs (donor in S(%d), outputs of %llu bytes in S(%d))",
			 dn->space, (unsigned long long)dn->bytes, other_space);
	else
		snprintf(reason, sizeof(reason), "no output of %llu bytes",
			 (unsigned long long)dn->bytes);
	report(ctx, dn, reason, donors, donees);
}

static int check(struct rule_ctx *ctx)
{
	const struct hlo_module *m = ctx->module;
	const struct hlo_computation *entry = m->entry;
	if (!m->n_donors || !entry || !entry->root)
		return 0;
	struct arena a;
	arena_init(&a);
	struct leaves donors = {0}, donees = {0}, skipped = {0};
	int rc = 0;
	int32_t path[SHAPE_MAX_DEPTH + 1];
	int layout_params = m->has_entry_layout && m->n_entry_layout_params == entry->n_params;
	const struct shape *result = m->has_entry_layout && m->entry_layout_result
					     ? m->entry_layout_result : entry->root->shape;
	int result_dynamic = result && shape_any_dynamic(result, 0);
	int32_t *seen = calloc((size_t)m->n_donors + 1, sizeof(*seen));
	if (!seen) {
		rc = -1;
		goto out;
	}

	/* donors: parameters in order, array leaves in pre-order */
	for (int32_t p = 0; p < entry->n_params; p++) {
		const struct shape *ps = layout_params ? m->entry_layout_params[p]
						       : entry->params[p] ? entry->params[p]->shape : NULL;
		if (!ps)
			continue;
		struct leaves leaves = {0};
		if (collect(&a, ps, p, path, 0, &leaves) < 0) {
			free(leaves.v);
			rc = -1;
			goto out;
		}
		for (int32_t i = 0; i < leaves.n; i++) {
			struct leaf *l = &leaves.v[i];
			l->donor = find_donor(m, p, &l->index);
			if (!l->donor)
				continue;
			seen[l->donor - m->donors] = 1;
			l->alias = alias_from(m, p, &l->index);
			int ok = (l->dynamic || l->alias || result_dynamic) ? push(&skipped, l)
									 : push(&donors, l);
			if (ok < 0) {
				free(leaves.v);
				rc = -1;
				goto out;
			}
		}
		free(leaves.v);
	}
	/* donees: result array leaves not already aliased */
	if (result && !result_dynamic) {
		if (collect(&a, result, -1, path, 0, &donees) < 0) {
			rc = -1;
			goto out;
		}
		for (int32_t i = 0; i < donees.n; i++) {
			donees.v[i].alias = alias_to(m, &donees.v[i].index);
			if (donees.v[i].alias)
				donees.v[i].state = LEAF_ALIASED;
		}
	}
	/* the walk, per memory space (in order of first appearance among donors) */
	for (int32_t i = 0; i < donors.n; i++) {
		int first = 1;
		for (int32_t k = 0; k < i; k++)
			first &= donors.v[k].space != donors.v[i].space;
		if (first && match_space(&donors, &donees, donors.v[i].space) < 0) {
			rc = -1;
			goto out;
		}
	}

	/* report, in donor registration order for skipped and walked alike */
	for (int32_t di = 0; di < m->n_donors; di++) {
		const struct buffer_donor *bd = &m->donors[di];
		if (!seen[di]) {
			char pd[256];
			describe_param(pd, sizeof(pd), m, bd->param, &bd->param_index);
			const struct hlo_instruction *pi =
				bd->param >= 0 && bd->param < entry->n_params ? entry->params[bd->param] : NULL;
			char key[128];
			shape_index_to_string(&bd->param_index, key, sizeof(key));
			finding_add_at(ctx, pi, bd->pos, key,
				       "donated %s will not be reused by any output: it is not an array leaf "
				       "of the entry parameters", pd);
			continue;
		}
		for (int32_t i = 0; i < skipped.n; i++) {
			const struct leaf *l = &skipped.v[i];
			if (l->donor != bd)
				continue;
			char reason[256];
			if (result_dynamic)
				snprintf(reason, sizeof(reason),
					 "the entry result shape is dynamic, so XLA matches no donors");
			else if (l->dynamic)
				snprintf(reason, sizeof(reason),
					 "the donated leaf is dynamically shaped, which XLA never matches");
			else {
				char is[128];
				shape_index_to_string(&l->alias->output, is, sizeof(is));
				snprintf(reason, sizeof(reason),
					 "it is already aliased to output %s by input_output_alias", is);
			}
			report(ctx, l, reason, NULL, NULL);
		}
		for (int32_t i = 0; i < donors.n; i++)
			if (donors.v[i].donor == bd && donors.v[i].state != LEAF_MATCHED)
				explain(ctx, &donors.v[i], &donors, &donees);
	}
out:
	free(seen);
	free(donors.v);
	free(donees.v);
	free(skipped.v);
	arena_free(&a);
	return rc;
}

const struct rule rule_donation_not_honored = {
	.id = "HP201",
	.slug = "donation-not-honored",
	.severity = SEV_WARNING,
	.summary = "a donated buffer (buffer_donor) that no output will reuse",
	.check = check,
	.flags = RULE_ABOUT_DONATION | RULE_STRICT_DONATION,
};
