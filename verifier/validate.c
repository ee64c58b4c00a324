/* validate.c - module-level rules checked once the IR is built: the entry
 * computation layout against the entry signature, and input_output_alias /
 * buffer_donor (semantics doc 7.2).
 *
 * Shapes: the entry_computation_layout shapes when printed, else the entry
 * parameters' and root's shapes. Byte sizes of an alias pair are compared
 * only when both subshapes carry a layout (see has_layout). That is XLA's rule: its
 * HloVerifier compares sizes only when layout-sensitive (after layout
 * assignment); before that the size function returns 0 for both sides, and
 * XLA's own pre-layout test modules alias mismatched shapes (copy insertion's
 * RegionAnalysisDoesNotAddCopyForNonUpdateParameterOfDynamicSliceUpdate
 * aliases pred[] to s32[]). The donation checks can compare sizes themselves
 * when they want the stricter view. */
#include "ir.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

struct vctx {
	const struct hlo_module *m;
	struct diag *d;
	int32_t n_params;
};

static const struct shape *param_shape(const struct vctx *v, int32_t p)
{
	const struct hlo_module *m = v->m;
	return m->has_entry_layout ? m->entry_layout_params[p] : m->entry->params[p]->shape;
}

static const struct shape *result_shape(const struct vctx *v)
{
	const struct hlo_module *m = v->m;
	return m->has_entry_layout ? m->entry_layout_result : m->entry->root->shape;
}

static struct srcpos header_attr_pos(const struct hlo_module *m, const char *name)
{
	for (int32_t i = 0; i < m->n_header_attrs; i++)
		if (strcmp(m->header_attrs[i].name, name) == 0)
			return m->header_attrs[i].pos;
	return m->pos;
}

static int check_entry_layout(struct vctx *v)
{
	const struct hlo_module *m = v->m;
	const struct hlo_computation *e = m->entry;
	if (!m->has_entry_layout)
		return 0;
	struct srcpos at = header_attr_pos(m, "entry_computation_layout");
	char a[256], b[256];
	if (m->n_entry_layout_params != e->n_params)
		return error_at(v->d, at, "entry_computation_layout has %d parameters but entry computation '%s' has %d",
				m->n_entry_layout_params, e->name, e->n_params);
	for (int32_t i = 0; i < e->n_params; i++) {
		if (shape_compatible(m->entry_layout_params[i], e->params[i]->shape))
			continue;
		shape_to_string(m->entry_layout_params[i], a, sizeof(a));
		shape_to_string(e->params[i]->shape, b, sizeof(b));
		return error_at(v->d, at, "entry_computation_layout parameter %d is %s but parameter %d of '%s' is %s",
				i, a, i, e->name, b);
	}
	if (!shape_compatible(m->entry_layout_result, e->root->shape)) {
		shape_to_string(m->entry_layout_result, a, sizeof(a));
		shape_to_string(e->root->shape, b, sizeof(b));
		return error_at(v->d, at, "entry_computation_layout result is %s but the root of '%s' is %s",
				a, e->name, b);
	}
	return 0;
}

static int cmp_index(const struct shape_index *a, const struct shape_index *b)
{
	for (int32_t i = 0; i < a->n && i < b->n; i++)
		if (a->idx[i] != b->idx[i])
			return a->idx[i] < b->idx[i] ? -1 : 1;
	return (a->n > b->n) - (a->n < b->n);
}

static int cmp_ptr(const void *a, const void *b)
{
	return (a > b) - (a < b);
}

static int by_output(const void *x, const void *y)
{
	const struct io_alias *a = *(const struct io_alias *const *)x, *b = *(const struct io_alias *const *)y;
	int c = cmp_index(&a->output, &b->output);
	return c ? c : cmp_ptr(a, b);
}

static int by_param(const void *x, const void *y)
{
	const struct io_alias *a = *(const struct io_alias *const *)x, *b = *(const struct io_alias *const *)y;
	if (a->param != b->param)
		return a->param < b->param ? -1 : 1;
	int c = cmp_index(&a->param_index, &b->param_index);
	return c ? c : cmp_ptr(a, b);
}

/* XLA prints scalars without their (only possible) layout, also in the
 * entry_computation_layout after layout assignment; instruction shapes of
 * pre-layout modules carry none at all. */
static int has_layout(const struct vctx *v, const struct shape *s)
{
	return (s->flags & SHAPE_HAS_LAYOUT) || (v->m->has_entry_layout && s->rank == 0);
}

static int check_alias(struct vctx *v, const struct io_alias *a)
{
	char s[256], ix[128], pix[128];
	shape_index_to_string(&a->output, ix, sizeof(ix));
	shape_index_to_string(&a->param_index, pix, sizeof(pix));
	const struct shape *res = result_shape(v);
	const struct shape *out = shape_subshape(res, &a->output);
	if (!out) {
		shape_to_string(res, s, sizeof(s));
		return error_at(v->d, a->pos, "input_output_alias output index %s is not valid for the entry result shape %s",
				ix, s);
	}
	if (a->param < 0 || a->param >= v->n_params)
		return error_at(v->d, a->pos, "input_output_alias parameter %d is out of range: the entry computation has %d parameters",
				a->param, v->n_params);
	const struct shape *ps = param_shape(v, a->param);
	const struct shape *in = shape_subshape(ps, &a->param_index);
	if (!in) {
		shape_to_string(ps, s, sizeof(s));
		return error_at(v->d, a->pos, "input_output_alias parameter index %s is not valid for parameter %d of shape %s",
				pix, a->param, s);
	}
	if (!shape_is_array(out)) {
		shape_to_string(out, s, sizeof(s));
		return error_at(v->d, a->pos, "input_output_alias output %s is not an array (it is %s)", ix, s);
	}
	if (!shape_is_array(in)) {
		shape_to_string(in, s, sizeof(s));
		return error_at(v->d, a->pos, "input_output_alias parameter %d at %s is not an array (it is %s)",
				a->param, pix, s);
	}
	int compare = has_layout(v, out) && has_layout(v, in);
	if (compare && out->bytes != in->bytes)
		return error_at(v->d, a->pos, "input_output_alias size mismatch: output %s is %llu bytes but parameter %d at %s is %llu bytes",
				ix, (unsigned long long)out->bytes, a->param, pix,
				(unsigned long long)in->bytes);
	/* Without layouts XLA's verifier compares nothing (its own copy-insertion
	 * tests alias pred[] to s32[]); say so rather than stay silent. */
	if (!compare && out->bytes != in->bytes)
		warning_at(v->d, a->pos, "input_output_alias output %s is %llu bytes but parameter %d at %s is %llu bytes; "
			   "XLA rejects this once layouts are assigned",
			   ix, (unsigned long long)out->bytes, a->param, pix,
			   (unsigned long long)in->bytes);
	return 0;
}

static int check_aliases(struct vctx *v, const struct io_alias **sorted_by_param)
{
	const struct hlo_module *m = v->m;
	int32_t n = m->n_aliases;
	for (int32_t i = 0; i < n; i++)
		if (check_alias(v, &m->aliases[i]) < 0)
			return -1;
	const struct io_alias **s = xmalloc(((size_t)n + 1), sizeof(*s));
	for (int32_t i = 0; i < n; i++)
		s[i] = &m->aliases[i];
	qsort(s, (size_t)n, sizeof(*s), by_output);
	char ix[128], o1[128], o2[128];
	for (int32_t i = 1; i < n; i++) {
		if (cmp_index(&s[i - 1]->output, &s[i]->output) == 0) {
			struct srcpos at = s[i]->pos;
			shape_index_to_string(&s[i]->output, ix, sizeof(ix));
			free(s);
			return error_at(v->d, at, "input_output_alias output %s is aliased twice", ix);
		}
	}
	for (int32_t i = 0; i < n; i++)
		sorted_by_param[i] = &m->aliases[i];
	qsort(sorted_by_param, (size_t)n, sizeof(*s), by_param);
	free(s);
	s = sorted_by_param;
	for (int32_t i = 1; i < n; i++) {
		if (s[i - 1]->param == s[i]->param &&
		    cmp_index(&s[i - 1]->param_index, &s[i]->param_index) == 0) {
			shape_index_to_string(&s[i]->param_index, ix, sizeof(ix));
			shape_index_to_string(&s[i - 1]->output, o1, sizeof(o1));
			shape_index_to_string(&s[i]->output, o2, sizeof(o2));
			return error_at(v->d, s[i]->pos, "input_output_alias parameter %d at %s is aliased to two outputs (%s and %s)",
					s[i]->param, ix, o1, o2);
		}
	}
	return 0;
}

static int check_donors(struct vctx *v, const struct io_alias **by_p)
{
	const struct hlo_module *m = v->m;
	char s[256], ix[128], o[128];
	for (int32_t i = 0; i < m->n_donors; i++) {
		const struct buffer_donor *b = &m->donors[i];
		shape_index_to_string(&b->param_index, ix, sizeof(ix));
		if (b->param < 0 || b->param >= v->n_params)
			return error_at(v->d, b->pos, "buffer_donor parameter %d is out of range: the entry computation has %d parameters",
					b->param, v->n_params);
		const struct shape *ps = param_shape(v, b->param);
		const struct shape *in = shape_subshape(ps, &b->param_index);
		if (!in) {
			shape_to_string(ps, s, sizeof(s));
			return error_at(v->d, b->pos, "buffer_donor index %s is not valid for parameter %d of shape %s",
					ix, b->param, s);
		}
		if (!shape_is_array(in)) {
			shape_to_string(in, s, sizeof(s));
			return error_at(v->d, b->pos, "buffer_donor parameter %d at %s is not an array (it is %s)",
					b->param, ix, s);
		}
		/* binary search the aliases sorted by (param, index) */
		int32_t lo = 0, hi = m->n_aliases;
		while (lo < hi) {
			int32_t mid = lo + (hi - lo) / 2;
			const struct io_alias *a = by_p[mid];
			int c = a->param != b->param ? (a->param < b->param ? -1 : 1)
						     : cmp_index(&a->param_index, &b->param_index);
			if (c == 0) {
				shape_index_to_string(&a->output, o, sizeof(o));
				return error_at(v->d, b->pos, "buffer_donor parameter %d at %s is also an input_output_alias source (of output %s)",
						b->param, ix, o);
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return 0;
}

int hlo_validate(struct hlo_module *m, struct diag *d)
{
	struct vctx v = {m, d, 0};
	if (!m->entry)
		return 0;
	if (check_entry_layout(&v) < 0)
		return -1;
	v.n_params = m->has_entry_layout ? m->n_entry_layout_params : m->entry->n_params;
	const struct io_alias **by_p = xmalloc(((size_t)m->n_aliases + 1), sizeof(*by_p));
	int rc = check_aliases(&v, by_p) < 0 || check_donors(&v, by_p) < 0 ? -1 : 0;
	free(by_p);
	return rc;
}
