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
