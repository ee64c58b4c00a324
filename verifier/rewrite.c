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

struct hlo_module *hlo_module_without_copy(const struct hlo_module *m,
					   const struct hlo_instruction *copy, struct diag *d)
{
	if (copy->n_operands != 1)
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
	struct hlo_computation *k = hlo_find_computation(w, copy->parent->name);
	struct hlo_instruction *c = k ? hlo_find_instruction(k, copy->name) : NULL;
	if (!c || c->opcode != OP_COPY || c->n_operands != 1) {
		hlo_module_free(w);
		return NULL;
	}
	struct hlo_instruction *s = c->operands[0];
	int32_t n = 0;
	for (int32_t i = 0; i < k->n_instrs; i++) {
		struct hlo_instruction *x = k->instrs[i];
		if (x == c)
			continue;
		for (int32_t j = 0; j < x->n_operands; j++)
			if (x->operands[j] == c)
				x->operands[j] = s;
		int32_t kept = 0;
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			if (x->ext->ctrl_preds[j] != c)
				x->ext->ctrl_preds[kept++] = x->ext->ctrl_preds[j];
		if (kept != x->ext->n_ctrl_preds) {
			x->ext->n_ctrl_preds = kept;
			rewrite_ctrl_attr(w, x);
		}
		k->instrs[n++] = x;
	}
	k->n_instrs = n;
	if (k->root == c) {
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
