/* ir.c - opcode table, lookups by name, derived edges and the call graph. */
#include "ir.h"
#include "irbuild.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

#define E OPF_E
static const struct {
	const char *name;
	uint8_t len;
	uint8_t flags;
} opcodes[OP_COUNT] = {
	[OP_UNKNOWN] = {"unknown", 7, 0},
#define OP(e, s, f) [OP_##e] = {s, sizeof(s) - 1, f},
#include "opcodes.def"
#undef OP
};
#undef E

const char *opcode_name(enum opcode op)
{
	return (unsigned)op < OP_COUNT ? opcodes[op].name : "unknown";
}

/* A linear scan that compares lengths first: ~130 entries, so this is cheap
 * enough for lookups outside the parser (which keeps its own hash table). */
enum opcode opcode_from_name(const char *s, size_t n)
{
	for (int i = 1; i < OP_COUNT; i++)
		if (opcodes[i].len == n && memcmp(opcodes[i].name, s, n) == 0)
			return (enum opcode)i;
	return OP_UNKNOWN;
}

unsigned opcode_flags(enum opcode op)
{
	return (unsigned)op < OP_COUNT ? opcodes[op].flags : 0;
}

struct hlo_computation *hlo_find_computation(const struct hlo_module *m, const char *name)
{
	for (int32_t i = 0; i < m->n_comps; i++)
		if (strcmp(m->comps[i]->name, name) == 0)
			return m->comps[i];
	return NULL;
}

struct hlo_instruction *hlo_find_instruction(const struct hlo_computation *c, const char *name)
{
	for (int32_t i = 0; i < c->n_instrs; i++)
		if (strcmp(c->instrs[i]->name, name) == 0)
			return c->instrs[i];
	return NULL;
}

struct hlo_instruction *hlo_find_instruction_any(const struct hlo_module *m, const char *spec)
{
	const char *at = strrchr(spec, '@');
	if (at) {
		size_t n = (size_t)(at - spec);
		char buf[512];
		if (n >= sizeof(buf))
			return NULL;
		memcpy(buf, spec, n);
		buf[n] = 0;
		const struct hlo_computation *c = hlo_find_computation(m, at + 1);
		if (!c && strcmp(at + 1, "entry") == 0)
			c = m->entry;
		return c ? hlo_find_instruction(c, buf) : NULL;
	}
	struct hlo_instruction *i = m->entry ? hlo_find_instruction(m->entry, spec) : NULL;
	for (int32_t k = 0; !i && k < m->n_comps; k++)
		if (m->comps[k] != m->entry)
			i = hlo_find_instruction(m->comps[k], spec);
	return i;
}

enum call_context hlo_instruction_call_context(enum opcode op)
{
	switch (op) {
	case OP_CALL:
	case OP_CONDITIONAL:
	case OP_WHILE:
	case OP_ASYNC_START:
	case OP_ASYNC_UPDATE:
	case OP_ASYNC_DONE:
		return CALL_CONTROL_FLOW;
	case OP_ALL_REDUCE:
	case OP_ALL_REDUCE_START:
	case OP_REDUCE_SCATTER:
	case OP_MAP:
	case OP_REDUCE:
	case OP_REDUCE_WINDOW:
	case OP_SCATTER:
	case OP_SELECT_AND_SCATTER:
	case OP_SORT:
	case OP_TOPK:
	case OP_FUSION:
	case OP_CUSTOM_CALL:
		return CALL_EMBEDDED;
	default:
		return CALL_NONE;
	}
}

int hlo_async_sugar_embeds(const struct hlo_instruction *in)
{
	/* -update and -done: back along operand 0 to the start; operands are
	 * defined earlier, so the walk ends */
	while (in && (in->opcode == OP_ASYNC_UPDATE || in->opcode == OP_ASYNC_DONE))
		in = in->n_operands > 0 ? in->operands[0] : NULL;
	return in && in->opcode == OP_ASYNC_START && in->async_wrapped_opcode &&
	       in->async_wrapped_opcode != OP_CALL;
}

enum call_context hlo_call_context(const struct hlo_instruction *in)
{
	if (hlo_async_sugar_embeds(in)) {
		const struct hlo_instruction *s = in;
		while (s->opcode != OP_ASYNC_START)
			s = s->operands[0];
		return hlo_instruction_call_context((enum opcode)s->async_wrapped_opcode);
	}
	return hlo_instruction_call_context((enum opcode)in->opcode);
}

const struct hlo_instr_ext hlo_no_ext;
const char hlo_metadata_from_fields[] = "{metadata from its fields}";

/* Users in text order, each once: a counting sort of the uses by operand.
 * Control successors in one pass: predecessors are defined earlier in text
 * order, so an instruction's array is placed before any successor fills it;
 * a successor's duplicate predecessors are adjacent, so checking the last
 * entry dedupes. */
void hlo_build_users(struct hlo_computation *comp, const struct hlo_use *uses, size_t n_uses,
		     int32_t *count, struct hlo_instruction **ubuf, struct hlo_instruction **sbuf,
		     size_t n_succs)
{
	size_t off = 0;
	struct hlo_instruction **send = sbuf + n_succs;
	int32_t n_instrs = comp->n_instrs;
	for (int32_t i = 0; i < n_instrs; i++) {
		struct hlo_instruction *in = comp->instrs[i];
		/* instructions of a large computation are out of cache by now */
		if (i + 8 < n_instrs)
			__builtin_prefetch(&comp->instrs[i + 8]->n_users, 1);
		int32_t n = count[i];
		if ((size_t)n > n_uses - off)
			die("internal error: user counts are inconsistent");
		in->n_users = n;
		in->users = n ? ubuf + off : NULL;
		count[i] = (int32_t)off;
		off += (size_t)n;
		/* no control edges (here or in the module): nothing to place; an
		 * instruction with some has an ext of its own (the parser counted them) */
		if (!n_succs || in->ext == HLO_NO_EXT)
			continue;
		struct hlo_instr_ext *x = in->ext;
		if (x->n_ctrl_succs > send - sbuf)
			die("internal error: control successor counts are inconsistent");
		x->ctrl_succs = x->n_ctrl_succs ? sbuf : NULL;
		sbuf += x->n_ctrl_succs;
		x->n_ctrl_succs = 0;
		for (int32_t k = 0; k < x->n_ctrl_preds; k++) {
			struct hlo_instr_ext *p = x->ctrl_preds[k]->ext;
			if (p->n_ctrl_succs == 0 || p->ctrl_succs[p->n_ctrl_succs - 1] != in)
				p->ctrl_succs[p->n_ctrl_succs++] = in;
		}
	}
	for (size_t u = 0; u < n_uses; u++)
		ubuf[count[uses[u].def]++] = comp->instrs[uses[u].user];
}

/* Callers (one callsite per calling instruction) and contexts propagated from
 * the entry as XLA's CallGraph::SetCallContexts does: an embedded call makes
 * the callee embedded, a control-flow call passes the caller's context on.
 * Computations not reachable from the entry start as control flow too. */
void hlo_build_call_graph(struct hlo_module *m, struct hlo_instruction *const *callers, size_t n)
{
	int32_t nc = m->n_comps;
	int32_t *stamp = xcalloc((size_t)nc, sizeof(int32_t));
	size_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			struct hlo_callsite *buf = arena_array(&m->arena, total, sizeof(*buf));
			for (int32_t c = 0; c < nc; c++) {
				m->comps[c]->callers = m->comps[c]->n_callers ? buf : NULL;
				buf += m->comps[c]->n_callers;
				m->comps[c]->n_callers = 0;
			}
			memset(stamp, 0, (size_t)nc * sizeof(int32_t));
		}
		for (size_t i = 0; i < n; i++) {
			struct hlo_instruction *in = callers[i];
			enum call_context ctx = hlo_call_context(in);
			for (int32_t k = 0; k < in->n_called; k++) {
				struct hlo_computation *callee = in->called[k];
				if (!callee || stamp[callee->index] == in->gid + 1)
					continue;
				stamp[callee->index] = in->gid + 1;
				if (pass == 1)
					callee->callers[callee->n_callers] = (struct hlo_callsite){in, ctx};
				else
					total++;
				callee->n_callers++;
			}
		}
	}
	free(stamp);

	/* Context propagation: a worklist of computations whose context grew.
	 * A context only grows (NONE -> CF/EMB -> BOTH), so each computation
	 * enters the list at most three times. */
	for (int32_t c = 0; c < nc; c++)
		m->comps[c]->context = CALL_NONE;
	/* callers[] is in text order, so each computation's calling
	 * instructions form the run first[c] .. first[c + 1] */
	int32_t *first = xcalloc((size_t)nc + 1, sizeof(int32_t));
	for (size_t i = 0; i < n; i++)
		first[callers[i]->parent->index + 1]++;
	for (int32_t c = 0; c < nc; c++)
		first[c + 1] += first[c];
	struct hlo_computation **work = xcalloc((size_t)nc * 3 + 1, sizeof(*work));
	size_t head = 0, tail = 0;
	for (int round = 0; round < 2; round++) {
		for (int32_t c = 0; c < nc; c++) {
			struct hlo_computation *comp = m->comps[c];
			int root = round == 0 ? comp == m->entry
					      : comp->context == CALL_NONE && comp->n_callers == 0;
			if (root && comp->context == CALL_NONE) {
				comp->context = CALL_CONTROL_FLOW;
				work[tail++] = comp;
			}
		}
		while (head < tail) {
			struct hlo_computation *comp = work[head++];
			for (int32_t i = first[comp->index]; i < first[comp->index + 1]; i++) {
				struct hlo_instruction *in = callers[i];
				enum call_context ctx = hlo_call_context(in);
				if (ctx == CALL_NONE)
					continue;
				enum call_context add = ctx == CALL_EMBEDDED ? CALL_EMBEDDED : comp->context;
				for (int32_t k = 0; k < in->n_called; k++) {
					struct hlo_computation *callee = in->called[k];
					if (!callee)
						continue;
					enum call_context nw = (enum call_context)(callee->context | add);
					if (nw != callee->context && tail < (size_t)nc * 3 + 1) {
						callee->context = nw;
						work[tail++] = callee;
					}
				}
			}
		}
	}
	/* Computations only reachable through CALL_NONE callsites. */
	for (int32_t c = 0; c < nc; c++)
		if (m->comps[c]->context == CALL_NONE)
			m->comps[c]->context = CALL_CONTROL_FLOW;
	free(work);
	free(first);
}
