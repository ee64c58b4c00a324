/* rewrite.c - the module with one copy removed (rewrite.h). */
#include "rewrite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The printer reprints control-predecessors from the attribute's text (it
 * keeps attributes in their printed order): rebuild it from ctrl_preds, or
 * drop it when none is left. */
static void rewrite_ctrl_attr(struct hlo_module *w, struct hlo_instruction *x)
{
	for (int32_t a = 0; a < x->n_attrs; a++) {
		if (strcmp(x->attrs[a].name, "control-predecessors"))
			continue;
		if (x->ext->n_ctrl_preds == 0) {
			memmove(&x->attrs[a], &x->attrs[a + 1], (size_t)(x->n_attrs - a - 1) * sizeof(x->attrs[0]));
			x->n_attrs--;
			return;
		}
		size_t len = 3;
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			len += strlen(x->ext->ctrl_preds[j]->name) + 3;
		char *v = arena_alloc(&w->arena, len), *o = v;
		*o++ = '{';
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			o += sprintf(o, "%s%%%s", j ? ", " : "", x->ext->ctrl_preds[j]->name);
		*o++ = '}';
		*o = 0;
		x->attrs[a].value = v;
		return;
	}
}

static int in_list(struct hlo_instruction *const *v, int32_t n, const struct hlo_instruction *x)
{
	for (int32_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

#define DROP_MAX 64

struct hlo_module *hlo_module_without_site(const struct hlo_module *m, const struct copy_site *st,
					   struct diag *d)
{
	if (!st->at || st->operand < 0 || st->operand >= st->at->n_operands)
		return NULL;
	/* a private copy of the module to edit: the printed text parses back to
	 * the same module (the text itself is gone after a large parse) */
	char *orig = NULL;
	size_t orig_len = 0;
	FILE *of = open_memstream(&orig, &orig_len);
	if (!of)
		return NULL;
	hlo_print_module(of, m);
	if (fclose(of) != 0) {
		free(orig);
		return NULL;
	}
	struct hlo_module *w = hlo_parse(m->file, orig, orig_len, d);
	free(orig);
	if (!w)
		return NULL;
	struct hlo_computation *k = hlo_find_computation(w, st->at->parent->name);
	struct hlo_instruction *c = k ? hlo_find_instruction(k, st->at->name) : NULL;
	if (!c || c->opcode != st->at->opcode || c->n_operands != st->at->n_operands) {
		hlo_module_free(w);
		return NULL;
	}
	struct hlo_instruction *s = c->operands[st->operand];
	/* the instructions that go: their users read s instead */
	struct hlo_instruction *drop[DROP_MAX];
	int32_t nd = 0;
	int ok = 1;
	if (st->kind == COPY_KIND_PLAIN || (st->kind == COPY_KIND_FUSED && st->output < 0)) {
		drop[nd++] = c;
	} else if (st->kind == COPY_KIND_ASYNC) {
		/* the copy-start's only user is its copy-done */
		drop[nd++] = c;
		for (int32_t i = 0; i < c->n_users; i++) {
			if (c->users[i]->opcode != OP_COPY_DONE || nd == DROP_MAX)
				ok = 0;
			else
				drop[nd++] = c->users[i];
		}
		ok = ok && nd == 2 && !c->is_root;
	} else {
		/* one output of a multi-output fusion: its get-tuple-elements go,
		 * the fusion stays (reached only through get-tuple-elements) */
		for (int32_t i = 0; i < c->n_users; i++) {
			struct hlo_instruction *g = c->users[i];
			if (g->opcode != OP_GET_TUPLE_ELEMENT)
				ok = 0;
			else if (g->tuple_index == st->output && nd < DROP_MAX)
				drop[nd++] = g;
			else if (g->tuple_index == st->output)
				ok = 0;
		}
		ok = ok && !c->is_root;
	}
	if (!ok) {
		hlo_module_free(w);
		return NULL;
	}
	int32_t n = 0;
	for (int32_t i = 0; i < k->n_instrs; i++) {
		struct hlo_instruction *x = k->instrs[i];
		if (in_list(drop, nd, x))
			continue;
		for (int32_t j = 0; j < x->n_operands; j++)
			if (in_list(drop, nd, x->operands[j]))
				x->operands[j] = s;
		int32_t kept = 0;
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			if (!in_list(drop, nd, x->ext->ctrl_preds[j]))
				x->ext->ctrl_preds[kept++] = x->ext->ctrl_preds[j];
		if (kept != x->ext->n_ctrl_preds) {
			x->ext->n_ctrl_preds = kept;
			rewrite_ctrl_attr(w, x);
		}
		k->instrs[n++] = x;
	}
	k->n_instrs = n;
	if (in_list(drop, nd, k->root)) {
		k->root = s;
		s->is_root = 1;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		hlo_module_free(w);
		return NULL;
	}
	hlo_print_module(f, w);
	fclose(f);
	hlo_module_free(w);
	struct hlo_module *r = hlo_parse(m->file, text, len, d);
	free(text);
	return r;
}

struct hlo_module *hlo_module_without_copy(const struct hlo_module *m,
					   const struct hlo_instruction *copy, struct diag *d)
{
	if (copy->opcode != OP_COPY || copy->n_operands != 1)
		return NULL;
	struct copy_site st;
	memset(&st, 0, sizeof(st));
	st.kind = COPY_KIND_PLAIN;
	st.at = st.result = copy;
	st.output = -1;
	st.to = copy->shape;
	return hlo_module_without_site(m, &st, d);
}

/* m printed and parsed again: a private module to edit. */
static struct hlo_module *reparse(const struct hlo_module *m, struct diag *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	hlo_print_module(f, m);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	struct hlo_module *r = hlo_parse(m->file, text, len, d);
	free(text);
	return r;
}

/* Add p to x's control predecessors (once) and to the printed attribute. */
static void add_ctrl_pred(struct hlo_module *w, struct hlo_instruction *x, struct hlo_instruction *p)
{
	struct hlo_instr_ext *e = x->ext;
	for (int32_t j = 0; j < e->n_ctrl_preds; j++)
		if (e->ctrl_preds[j] == p)
			return;
	if (e == HLO_NO_EXT) {
		e = arena_alloc(&w->arena, sizeof(*e));
		memset(e, 0, sizeof(*e));
		x->ext = e;
	}
	struct hlo_instruction **v = arena_array(&w->arena, (size_t)e->n_ctrl_preds + 1, sizeof(*v));
	if (e->n_ctrl_preds)
		memcpy(v, e->ctrl_preds, (size_t)e->n_ctrl_preds * sizeof(*v));
	v[e->n_ctrl_preds++] = p;
	e->ctrl_preds = v;
	int has = 0;
	for (int32_t a = 0; a < x->n_attrs; a++)
		has |= !strcmp(x->attrs[a].name, "control-predecessors");
	if (!has) {
		struct hlo_attr *at = arena_array(&w->arena, (size_t)x->n_attrs + 1, sizeof(*at));
		if (x->n_attrs)
			memcpy(at, x->attrs, (size_t)x->n_attrs * sizeof(*at));
		at[x->n_attrs].name = "control-predecessors";
		at[x->n_attrs].value = "{}";
		x->attrs = at;
		x->n_attrs++;
	}
	rewrite_ctrl_attr(w, x);
}

/* Put k's instructions in an order where each follows its operands and
 * control predecessors in k, the earliest printed first among the ready
 * ones (the printed order itself when it already is one). Returns -1 on a
 * cycle. */
static int order_computation(struct hlo_module *w, struct hlo_computation *k)
{
	int32_t n = k->n_instrs;
	struct hlo_instruction **out = arena_array(&w->arena, (size_t)n + 1, sizeof(*out));
	uint8_t *placed = arena_array(&w->arena, (size_t)n + 1, 1);
	memset(placed, 0, (size_t)n + 1);
	for (int32_t i = 0; i < n; i++)
		k->instrs[i]->index = i;
	int32_t m = 0, lo = 0;
	/* n rounds: each places the first ready instruction (lo: the first
	 * not placed, so an order that already holds costs one pass) */
	while (m < n) {
		int32_t pick = -1;
		while (lo < n && placed[lo])
			lo++;
		for (int32_t i = lo; i < n && pick < 0; i++) {
			if (placed[i])
				continue;
			struct hlo_instruction *x = k->instrs[i];
			int ready = 1;
			for (int32_t j = 0; j < x->n_operands && ready; j++)
				ready = x->operands[j]->parent != k || placed[x->operands[j]->index];
			for (int32_t j = 0; j < x->ext->n_ctrl_preds && ready; j++)
				ready = placed[x->ext->ctrl_preds[j]->index];
			if (ready)
				pick = i;
		}
		if (pick < 0)
			return -1;
		placed[pick] = 1;
		out[m++] = k->instrs[pick];
	}
	memcpy(k->instrs, out, (size_t)n * sizeof(*out));
	for (int32_t i = 0; i < n; i++)
		k->instrs[i]->index = i;
	return 0;
}

/* Drop the control edges into and out of x (an instruction of w). */
static void strip_ctrl(struct hlo_module *w, struct hlo_instruction *x)
{
	struct hlo_computation *k = x->parent;
	if (x->ext->n_ctrl_preds > 0) {
		x->ext->n_ctrl_preds = 0;
		rewrite_ctrl_attr(w, x);
	}
	for (int32_t i = 0; i < k->n_instrs; i++) {
		struct hlo_instruction *y = k->instrs[i];
		int32_t kept = 0;
		for (int32_t j = 0; j < y->ext->n_ctrl_preds; j++)
			if (y->ext->ctrl_preds[j] != x)
				y->ext->ctrl_preds[kept++] = y->ext->ctrl_preds[j];
		if (kept != y->ext->n_ctrl_preds) {
			y->ext->n_ctrl_preds = kept;
			rewrite_ctrl_attr(w, y);
		}
	}
}

struct hlo_module *hlo_module_with_edges(const struct hlo_module *m, int32_t n,
					 const struct hlo_instruction *const *from,
					 const struct hlo_instruction *const *to, int *cycle,
					 struct diag *d)
{
	return hlo_module_with_edges_stripped(m, n, from, to, NULL, 0, cycle, d);
}

struct hlo_module *hlo_module_with_edges_stripped(const struct hlo_module *m, int32_t n,
						 const struct hlo_instruction *const *from,
						 const struct hlo_instruction *const *to,
						 const struct hlo_instruction *const *strip, int32_t n_strip,
						 int *cycle, struct diag *d)
{
	*cycle = 0;
	struct hlo_module *w = reparse(m, d);
	if (!w)
		return NULL;
	for (int32_t i = 0; i < n_strip; i++) {
		struct hlo_computation *k = hlo_find_computation(w, strip[i]->parent->name);
		struct hlo_instruction *x = k ? hlo_find_instruction(k, strip[i]->name) : NULL;
		if (x)
			strip_ctrl(w, x);
	}
	for (int32_t i = 0; i < n; i++) {
		if (from[i]->parent != to[i]->parent || from[i] == to[i]) {
			*cycle = from[i] == to[i];
			hlo_module_free(w);
			return NULL;
		}
		struct hlo_computation *k = hlo_find_computation(w, to[i]->parent->name);
		struct hlo_instruction *a = k ? hlo_find_instruction(k, from[i]->name) : NULL;
		struct hlo_instruction *b = k ? hlo_find_instruction(k, to[i]->name) : NULL;
		if (!a || !b) {
			hlo_module_free(w);
			return NULL;
		}
		add_ctrl_pred(w, b, a);
	}
	for (int32_t i = 0; i < n; i++) {
		struct hlo_computation *k = hlo_find_computation(w, to[i]->parent->name);
		if (order_computation(w, k) < 0) {
			*cycle = 1;
			hlo_module_free(w);
			return NULL;
		}
	}
	struct hlo_module *r = reparse(w, d);
	hlo_module_free(w);
	return r;
}
