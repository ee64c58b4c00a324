/* unmodelled.c - constructs the dataflow does not model (unmodelled.h). */
#include "unmodelled.h"
#include <string.h>
#include <strings.h>

static int has_buffer_shape(const struct shape *s, int depth)
{
	if (!s || depth > HLO_MAX_NESTING)
		return 0;
	if (s->flags & SHAPE_BUFFER)
		return 1;
	for (int32_t i = 0; shape_is_tuple(s) && i < s->n_elems; i++)
		if (has_buffer_shape(&s->elems[i], depth + 1))
			return 1;
	return 0;
}

/* An op of the fused computation c (or of one nested in it) that may write
 * an operand's buffer (inplace.c's opcodes), or NULL. */
static const struct hlo_instruction *in_place_op(const struct hlo_instruction *i);

static const struct hlo_instruction *in_place_in(const struct hlo_computation *c, int depth)
{
	for (int32_t k = 0; c && k < c->n_instrs; k++) {
		const struct hlo_instruction *i = c->instrs[k];
		if (i->opcode == OP_FUSION) {
			const struct hlo_computation *f = i->ext->calls;
			/* deeper than real fusions nest: taken as in place */
			if (depth > 16 || i->ext->n_out_aliases || in_place_in(f, depth + 1))
				return i;
		} else if (in_place_op(i)) {
			return i;
		}
	}
	return NULL;
}

static const struct hlo_instruction *in_place_op(const struct hlo_instruction *i)
{
	if (i->ext->n_out_aliases)
		return i;
	switch ((enum opcode)i->opcode) {
	case OP_DYNAMIC_UPDATE_SLICE:
	case OP_SCATTER:
	case OP_SET_DIMENSION_SIZE:
	case OP_RAGGED_ALL_TO_ALL:
	case OP_ALL_REDUCE_START:
		return i;
	case OP_COLLECTIVE_PERMUTE:
	case OP_COLLECTIVE_PERMUTE_START:
		return i->n_operands == 4 ? i : NULL;
	default:
		return NULL;
	}
}

static int check_instruction(const struct hlo_instruction *i, struct diag *d)
{
	const char *t = i->ext->custom_call_target;
	if (i->opcode == OP_CUSTOM_CALL && t && (!strcasecmp(t, "Pin") || !strcasecmp(t, "Unpin"))) {
		error_at(d, i->pos, UNMODELLED_PREFIX "the %s custom call (%s): a pinned buffer lives across "
			 "instructions", t, i->name);
		return -1;
	}
	if (has_buffer_shape(i->shape, 0)) {
		char s[128];
		shape_to_string(i->shape, s, sizeof(s));
		error_at(d, i->pos, UNMODELLED_PREFIX "buffer shapes b(...): %s is %s", i->name, s);
		return -1;
	}
	if (i->opcode != OP_ASYNC_START || !hlo_async_sugar_embeds(i))
		return 0;
	enum opcode x = (enum opcode)i->async_wrapped_opcode;
	const char *op = hlo_opcode_text(i);
	if (x == OP_WHILE || x == OP_CONDITIONAL) {
		error_at(d, i->pos, UNMODELLED_PREFIX "async control flow: %s is %s", i->name, op);
		return -1;
	}
	const struct hlo_instruction *w = NULL;
	if (i->ext->n_out_aliases)
		w = i;
	else if (x == OP_FUSION)
		w = in_place_in(i->ext->calls, 0);
	else if (x == OP_DYNAMIC_UPDATE_SLICE || x == OP_SCATTER || x == OP_SET_DIMENSION_SIZE ||
		 x == OP_RAGGED_ALL_TO_ALL || ((x == OP_COLLECTIVE_PERMUTE) && i->n_operands == 4))
		w = i;
	if (w) {
		if (w == i)
			error_at(d, i->pos, UNMODELLED_PREFIX "an async op that writes an operand in place: "
				 "%s (%s)", i->name, op);
		else
			error_at(d, i->pos, UNMODELLED_PREFIX "an async op that writes an operand in place: "
				 "%s (%s), its fusion writes in place at %s", i->name, op, w->name);
		return -1;
	}
	return 0;
}

int unmodelled_report(const struct hlo_module *m, struct diag *d)
{
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t k = 0; k < m->comps[c]->n_instrs; k++)
			if (check_instruction(m->comps[c]->instrs[k], d) < 0)
				return -1;
	return 0;
}
