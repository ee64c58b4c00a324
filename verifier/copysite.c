/* copysite.c - the copies of a module, read from the IR (copysite.h). */
#include "copysite.h"
#include <stdio.h>
#include <string.h>

const char *copy_kind_name(enum copy_kind k)
{
	switch (k) {
	case COPY_KIND_FUSED: return "fused";
	case COPY_KIND_ASYNC: return "async";
	default: return "copy";
	}
}

/* The layout text after ':' without the S(n) memory space. */
static void layout_ext_without_space(const struct layout *l, char *buf, size_t cap)
{
	buf[0] = 0;
	if (!l->ext)
		return;
	size_t n = 0;
	for (const char *p = l->ext; *p && n + 1 < cap;) {
		if (p[0] == 'S' && p[1] == '(') {
			const char *q = strchr(p, ')');
			if (q) {
				p = q + 1;
				continue;
			}
		}
		buf[n++] = *p++;
	}
	buf[n] = 0;
}

int copy_layout_diff(const struct shape *a, const struct shape *b)
{
	if (!a || !b)
		return 0;
	if (shape_is_tuple(a) || shape_is_tuple(b)) {
		if (!shape_is_tuple(a) || !shape_is_tuple(b) || a->n_elems != b->n_elems)
			return 2;
		int worst = 0;
		for (int32_t i = 0; i < a->n_elems; i++) {
			int d = copy_layout_diff(&a->elems[i], &b->elems[i]);
			if (d > worst)
				worst = d;
		}
		return worst;
	}
	if (!shape_is_array(a) || !shape_is_array(b))
		return a->type == b->type ? 0 : 2;
	if (a->type != b->type || a->rank != b->rank)
		return 2;
	for (int i = 0; i < a->rank; i++)
		if (shape_minor_to_major(a, i) != shape_minor_to_major(b, i))
			return 2;
	if (a->layout.element_size_bits != b->layout.element_size_bits)
		return 2;
	char ea[256], eb[256];
	layout_ext_without_space(&a->layout, ea, sizeof(ea));
	layout_ext_without_space(&b->layout, eb, sizeof(eb));
	if (strcmp(ea, eb))
		return 2;
	return a->layout.memory_space != b->layout.memory_space ? 1 : 0;
}

int copy_in_embedded_computation(const struct hlo_instruction *x)
{
	const struct hlo_computation *k = x->parent;
	for (int32_t g = 0; !k->is_entry && k->n_callers > 0 && g <= k->module->n_comps; g++) {
		if (k->callers[0].context == CALL_EMBEDDED)
			return 1;
		k = k->callers[0].instr->parent;
	}
	return 0;
}

static const struct hlo_instruction *skip_bitcasts(const struct hlo_instruction *x)
{
	for (int g = 0; g < 64 && x->opcode == OP_BITCAST && x->n_operands == 1; g++)
		x = x->operands[0];
	return x;
}

/* A fused root element that only copies a parameter: root -> bitcast* ->
 * copy -> bitcast* -> parameter. Returns the inner copy and sets *param. */
static const struct hlo_instruction *fused_copy_of(const struct hlo_instruction *e, int32_t *param)
{
	const struct hlo_instruction *c = skip_bitcasts(e);
	if (c->opcode != OP_COPY || c->n_operands != 1)
		return NULL;
	const struct hlo_instruction *p = skip_bitcasts(c->operands[0]);
	if (p->opcode != OP_PARAMETER)
		return NULL;
	*param = (int32_t)p->parameter_number;
	return c;
}

static int fill_fused(const struct hlo_instruction *f, const struct hlo_instruction *e, int32_t output,
		      const struct shape *to, struct copy_site *s)
{
	int32_t p = -1;
	const struct hlo_instruction *inner = fused_copy_of(e, &p);
	if (!inner || p < 0 || p >= f->n_operands || !to)
		return 0;
	memset(s, 0, sizeof(*s));
	s->kind = COPY_KIND_FUSED;
	s->at = f;
	s->inner = inner;
	s->output = output;
	s->operand = p;
	s->result = output < 0 ? f : NULL;
	s->to = to;
	/* the layout inside (fusion parameters carry no memory space), the
	 * memory space outside */
	int d = copy_layout_diff(inner->operands[0]->shape, inner->shape);
	const struct shape *from = f->operands[p]->shape;
	if (d == 2)
		s->layout_diff = 2;
	else if (from && shape_is_array(from) && shape_is_array(to) &&
		 from->layout.memory_space != to->layout.memory_space)
		s->layout_diff = 1;
	else
		s->layout_diff = 0;
	return 1;
}

/* The sites of one instruction (a multi-output fusion may have several). */
static int32_t sites_of(const struct hlo_instruction *x, struct copy_site *out, int32_t cap)
{
	if (x->opcode == OP_COPY && x->n_operands == 1) {
		if (cap < 1)
			return 1;
		memset(out, 0, sizeof(*out));
		out->kind = COPY_KIND_PLAIN;
		out->at = out->result = x;
		out->output = -1;
		out->to = x->shape;
		out->layout_diff = copy_layout_diff(x->operands[0]->shape, x->shape);
		return 1;
	}
	if (x->opcode == OP_COPY_START && x->n_operands == 1) {
		if (cap < 1)
			return 1;
		memset(out, 0, sizeof(*out));
		out->kind = COPY_KIND_ASYNC;
		out->at = x;
		out->output = -1;
		for (int32_t i = 0; i < x->n_users && !out->done; i++)
			if (x->users[i]->opcode == OP_COPY_DONE)
				out->done = x->users[i];
		out->result = out->done;
		out->to = out->done ? out->done->shape
			  : (x->shape && shape_is_tuple(x->shape) && x->shape->n_elems > 0 ? &x->shape->elems[0] : NULL);
		out->layout_diff = copy_layout_diff(x->operands[0]->shape, out->to);
		return 1;
	}
	if (x->opcode != OP_FUSION || !x->ext->calls || !x->ext->calls->root || !x->shape)
		return 0;
	const struct hlo_instruction *root = x->ext->calls->root;
	if (root->opcode != OP_TUPLE) {
		struct copy_site s;
		if (!fill_fused(x, root, -1, x->shape, &s))
			return 0;
		if (cap >= 1)
			out[0] = s;
		return 1;
	}
	if (!shape_is_tuple(x->shape) || x->shape->n_elems != root->n_operands)
		return 0;
	int32_t n = 0;
	for (int32_t i = 0; i < root->n_operands; i++) {
		struct copy_site s;
		if (!fill_fused(x, root->operands[i], i, &x->shape->elems[i], &s))
			continue;
		if (n < cap)
			out[n] = s;
		n++;
	}
	return n;
}

int32_t copy_sites(const struct hlo_module *m, struct arena *a, struct copy_site **out)
{
	int32_t n = 0;
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *c = m->comps[k];
		for (int32_t i = 0; i < c->n_instrs; i++) {
			const struct hlo_instruction *x = c->instrs[i];
			if ((x->opcode == OP_COPY || x->opcode == OP_COPY_START || x->opcode == OP_FUSION) &&
			    !copy_in_embedded_computation(x))
				n += sites_of(x, NULL, 0);
		}
	}
	*out = arena_array(a, (size_t)n + 1, sizeof(**out));
	int32_t j = 0;
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *c = m->comps[k];
		for (int32_t i = 0; i < c->n_instrs && j < n; i++) {
			const struct hlo_instruction *x = c->instrs[i];
			if ((x->opcode == OP_COPY || x->opcode == OP_COPY_START || x->opcode == OP_FUSION) &&
			    !copy_in_embedded_computation(x))
				j += sites_of(x, *out + j, n - j);
		}
	}
	return j;
}

int32_t copy_sites_at(const struct hlo_instruction *x, struct arena *a, struct copy_site **out)
{
	/* the instruction whose sites name x: a copy-done's copy-start, a
	 * fused copy's fusion */
	const struct hlo_computation *k = x->parent;
	if (x->opcode == OP_COPY_DONE && x->n_operands == 1)
		x = x->operands[0];
	else if (k->n_callers > 0 && k->callers[0].context == CALL_EMBEDDED &&
		 k->callers[0].instr->opcode == OP_FUSION)
		x = k->callers[0].instr;
	int32_t n = 0;
	if ((x->opcode == OP_COPY || x->opcode == OP_COPY_START || x->opcode == OP_FUSION) &&
	    !copy_in_embedded_computation(x))
		n = sites_of(x, NULL, 0);
	*out = arena_array(a, (size_t)n + 1, sizeof(**out));
	return n > 0 ? sites_of(x, *out, n) : 0;
}

int32_t copy_sites_named(const struct hlo_module *m, struct arena *a, const char *name,
			 struct copy_site *out, int32_t cap)
{
	struct copy_site *all;
	int32_t n = copy_sites(m, a, &all), found = 0;
	char label[512];
	for (int32_t i = 0; i < n; i++) {
		const struct copy_site *s = &all[i];
		int hit = !strcmp(s->at->name, name) || (s->done && !strcmp(s->done->name, name)) ||
			  (s->inner && !strcmp(s->inner->name, name));
		if (!hit && s->output >= 0) {
			snprintf(label, sizeof(label), "%s{%d}", s->at->name, s->output);
			hit = !strcmp(label, name);
		}
		if (!hit)
			continue;
		if (found < cap)
			out[found] = *s;
		found++;
	}
	return found;
}

const char *copy_site_name(const struct copy_site *s, char *buf, size_t cap)
{
	if (s->kind == COPY_KIND_FUSED && s->output >= 0)
		snprintf(buf, cap, "%s{%d}", s->at->name, s->output);
	else
		snprintf(buf, cap, "%s", s->at->name);
	return buf;
}

const char *copy_site_label(const struct copy_site *s, struct arena *a)
{
	char b[1024];
	return arena_strdup(a, copy_site_name(s, b, sizeof(b)));
}
