/* stage.c - before or after optimization, and the simplifier's copies (stage.h). */
#include "stage.h"
#include <string.h>

const char *module_stage_name(enum module_stage s)
{
	switch (s) {
	case STAGE_BEFORE: return "before";
	case STAGE_AFTER: return "after";
	default: return "auto";
	}
}

int module_stage_parse(const char *s, enum module_stage *out)
{
	if (!strcmp(s, "before"))
		*out = STAGE_BEFORE;
	else if (!strcmp(s, "after"))
		*out = STAGE_AFTER;
	else if (!strcmp(s, "auto"))
		*out = STAGE_AUTO;
	else
		return -1;
	return 0;
}

/* A layout only layout assignment or memory space assignment writes: tiled
 * or otherwise extended (T(...), E(...)), or in another memory space. A
 * permuted minor_to_major is not one: dumps before optimization carry the
 * entry layouts JAX asked for, permuted ones among them. */
static int assigned_layout(const struct shape *s, int depth)
{
	if (!s || depth > SHAPE_MAX_DEPTH)
		return 0;
	if (shape_is_tuple(s)) {
		for (int32_t k = 0; k < s->n_elems; k++)
			if (assigned_layout(&s->elems[k], depth + 1))
				return 1;
		return 0;
	}
	if (!shape_is_array(s) || s->layout.n_m2m < 0)
		return 0;
	return s->layout.memory_space != 0 || s->layout.ext;
}

enum module_stage module_stage_detect(const struct hlo_module *m, const char **why)
{
	const char *w = "not scheduled, and no fusion, bitcast, asynchronous copy, tiled "
			"layout or memory space";
	enum module_stage st = STAGE_BEFORE;
	if (m->is_scheduled) {
		w = "the module is scheduled (is_scheduled=true)";
		st = STAGE_AFTER;
		goto out;
	}
	for (int32_t c = 0; c < m->n_comps; c++) {
		const struct hlo_computation *comp = m->comps[c];
		for (int32_t i = 0; i < comp->n_instrs; i++) {
			const struct hlo_instruction *in = comp->instrs[i];
			switch (in->opcode) {
			case OP_BITCAST:
				w = "it has a bitcast (only layout assignment and later passes make them)";
				st = STAGE_AFTER;
				goto out;
			case OP_FUSION:
				w = "it has a fusion (fusion runs after layout assignment)";
				st = STAGE_AFTER;
				goto out;
			case OP_COPY_START:
			case OP_COPY_DONE:
				w = "it has an asynchronous copy (memory space assignment)";
				st = STAGE_AFTER;
				goto out;
			default:
				break;
			}
			if (assigned_layout(in->shape, 0)) {
				w = "a layout is tiled or in another memory space (assigned by XLA)";
				st = STAGE_AFTER;
				goto out;
			}
		}
	}
out:
	if (why)
		*why = w;
	return st;
}

static int same_dims(const struct shape *a, const struct shape *b, int depth)
{
	if (!a || !b || depth > SHAPE_MAX_DEPTH || a->type != b->type)
		return 0;
	if (shape_is_tuple(a)) {
		if (a->n_elems != b->n_elems)
			return 0;
		for (int32_t k = 0; k < a->n_elems; k++)
			if (!same_dims(&a->elems[k], &b->elems[k], depth + 1))
				return 0;
		return 1;
	}
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	int ma = a->layout.n_m2m >= 0 ? a->layout.memory_space : 0;
	int mb = b->layout.n_m2m >= 0 ? b->layout.memory_space : 0;
	return ma == mb;
}

static int has_attr(const struct hlo_instruction *in, const char *name)
{
	for (int32_t k = 0; k < in->n_attrs; k++)
		if (!strcmp(in->attrs[k].name, name))
			return 1;
	return 0;
}

int copy_is_simplifier_noop(const struct hlo_instruction *copy)
{
	if (copy->opcode != OP_COPY || copy->n_operands != 1)
		return 0;
	if (copy->ext->n_ctrl_preds > 0)
		return 0;
	const struct hlo_computation *entry = copy->parent->module->entry;
	if (entry && entry->root == copy && has_attr(copy, "sharding"))
		return 0;
	return same_dims(copy->shape, copy->operands[0]->shape, 0);
}
