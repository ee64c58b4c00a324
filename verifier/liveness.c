/* liveness.c - XLA's live-range tests (hlo_ordering.cc, hlo_dataflow_analysis.cc
 * CanShareOperandBufferWithUser) and display live ranges. */
#include "liveness.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

void liveness_init(struct liveness *lv, const struct dataflow *df, const struct inplace *ip,
		   struct ordering *ord)
{
	lv->df = df;
	lv->ip = ip;
	lv->ord = ord;
}

static const struct hlo_value *val(struct liveness *lv, int32_t v)
{
	return &lv->df->values[v];
}

static int nested(struct liveness *lv, const struct hlo_instruction *i,
		  const struct hlo_computation *c)
{
	return c && ordering_is_nested_in(lv->ord, i, c);
}

static int is_entry_param(const struct hlo_value *v)
{
	const struct hlo_instruction *d = v->def;
	return d->opcode == OP_PARAMETER && d->parent->is_entry;
}

static int is_body_or_condition_phi(const struct hlo_value *v)
{
	return v->is_phi && v->def->opcode == OP_PARAMETER;
}

int is_defined_before(struct liveness *lv, int32_t ia, int32_t ib)
{
	const struct hlo_value *a = val(lv, ia), *b = val(lv, ib);
	if (is_entry_param(b))
		return 0;
	if (is_entry_param(a))
		return 1;
	if (is_body_or_condition_phi(a) && !is_body_or_condition_phi(b) &&
	    nested(lv, b->def, a->def->parent))
		return 1;
	if (is_body_or_condition_phi(b) && nested(lv, a->def, b->def->parent))
		return 0;
	if (b->is_phi && b->def->opcode == OP_WHILE &&
	    (nested(lv, a->def, b->def->ext->body) || nested(lv, a->def, b->def->ext->condition)))
		return 1;
	if (b->is_phi && b->def->opcode == OP_CONDITIONAL)
		for (int32_t j = 0; j < b->def->ext->n_branches; j++)
			if (nested(lv, a->def, b->def->ext->branches[j]))
				return 1;
	return ordering_executes_before(lv->ord, a->def, b->def);
}

/* ---- elementwise predicates (HloInstruction::IsElementwiseImpl) ---- */

static int fusion_elementwise_on_operand(const struct hlo_instruction *f, int32_t k);

static int elementwise_impl(const struct hlo_instruction *i, int32_t k /* -1: none */)
{
	switch ((enum opcode)i->opcode) {
	case OP_DYNAMIC_UPDATE_SLICE:
		return k == 0;
	case OP_BITCAST_CONVERT:
		if (i->n_operands < 1 || !i->shape || !i->operands[0]->shape)
			return 0;
		return ptype_bits((enum ptype)i->shape->type) ==
		       ptype_bits((enum ptype)i->operands[0]->shape->type);
	case OP_FUSION:
		return fusion_elementwise_on_operand(i, k);
	case OP_MAP:
		/* elementwise unless it maps over a permutation of dimensions */
		if (i->n_dimensions > 0) {
			if (!i->shape || i->n_dimensions != i->shape->rank)
				return 0;
			for (int32_t d = 0; d < i->n_dimensions; d++)
				if (i->dimensions[d] != d)
					return 0;
		}
		return 1;
	default:
		return (opcode_flags((enum opcode)i->opcode) & OPF_E) != 0;
	}
}

int instr_is_elementwise_on_operand(const struct hlo_instruction *i, int32_t k)
{
	return elementwise_impl(i, k);
}

int instr_is_elementwise(const struct hlo_instruction *i)
{
	return elementwise_impl(i, -1);
}

static struct hlo_computation *fused_computation(const struct hlo_instruction *f)
{
	return f->ext->calls ? f->ext->calls : (f->n_called > 0 ? f->called[0] : NULL);
}

static const struct hlo_instruction *fused_parameter(const struct hlo_instruction *f, int32_t k)
{
	struct hlo_computation *c = fused_computation(f);
	if (!c || k < 0 || k >= c->n_params)
		return NULL;
	return c->params[k];
}

/* Every operand slot of `operand` in `user` is elementwise. */
static int elementwise_on_all_slots(const struct hlo_instruction *user,
				    const struct hlo_instruction *operand)
{
	for (int32_t k = 0; k < user->n_operands; k++)
		if (user->operands[k] == operand && !instr_is_elementwise_on_operand(user, k))
			return 0;
	return 1;
}

/* Nested fusions recurse; the depth is bounded by the computation nesting,
 * and we stop at this many levels. */
#define ELEMENTWISE_MAX_DEPTH 64

static int fusion_elementwise_depth(const struct hlo_instruction *f, int32_t k, int depth);

static int fusion_elementwise_on_operand(const struct hlo_instruction *f, int32_t k)
{
	return fusion_elementwise_depth(f, k, 0);
}

static int fusion_elementwise_depth(const struct hlo_instruction *f, int32_t k, int depth)
{
	struct hlo_computation *c = fused_computation(f);
	if (!c || depth > ELEMENTWISE_MAX_DEPTH)
		return 0;
	if (k < 0) {
		for (int32_t j = 0; j < c->n_instrs; j++) {
			const struct hlo_instruction *x = c->instrs[j];
			if (x->opcode == OP_PARAMETER)
				continue;
			if (x->opcode == OP_FUSION ? !fusion_elementwise_depth(x, -1, depth + 1)
						   : !elementwise_impl(x, -1))
				return 0;
		}
		return 1;
	}
	const struct hlo_instruction *p = fused_parameter(f, k);
	if (!p)
		return 0;
	/* BFS from the fused parameter: every user on the way must be elementwise */
	size_t cap = (size_t)c->n_instrs + 1, head = 0, tail = 0;
	const struct hlo_instruction **q = xmalloc(cap, sizeof(*q));
	uint8_t *seen = xcalloc(cap, 1);
	q[tail++] = p;
	seen[p->index] = 1;
	int ok = 1;
	while (head < tail && ok) {
		const struct hlo_instruction *x = q[head++];
		for (int32_t u = 0; u < x->n_users && ok; u++) {
			const struct hlo_instruction *user = x->users[u];
			if (user->parent != c || seen[user->index])
				continue;
			int ew = user->opcode == OP_FUSION ? fusion_elementwise_depth(user, -1, depth + 1)
							   : elementwise_impl(user, -1);
			if (ew || elementwise_on_all_slots(user, x)) {
				seen[user->index] = 1;
				q[tail++] = user;
				continue;
			}
			ok = 0;
		}
	}
	free(q);
	free(seen);
	return ok;
}

/* AreTransitiveUsesElementwiseOrTuple */
static int transitive_uses_elementwise_or_tuple(const struct hlo_instruction *p)
{
	const struct hlo_computation *c = p->parent;
	size_t cap = (size_t)c->n_instrs + 1, n = 0;
	const struct hlo_instruction **stack = xmalloc(cap, sizeof(*stack));
	uint8_t *seen = xcalloc(cap, 1);
	stack[n++] = p;
	seen[p->index] = 1;
	int ok = 1;
	while (n > 0 && ok) {
		const struct hlo_instruction *x = stack[--n];
		for (int32_t u = 0; u < x->n_users && ok; u++) {
			const struct hlo_instruction *user = x->users[u];
			for (int32_t k = 0; k < user->n_operands && ok; k++)
				if (user->operands[k] == x && !instr_is_elementwise_on_operand(user, k) &&
				    user->opcode != OP_TUPLE)
					ok = 0;
			if (ok && user->parent == c && !seen[user->index]) {
				seen[user->index] = 1;
				stack[n++] = user;
			}
		}
	}
	free(stack);
	free(seen);
	return ok;
}

static int fusion_kind_is(const struct hlo_instruction *f, const char *kind)
{
	return f->opcode == OP_FUSION && f->ext->fusion_kind && !strcmp(f->ext->fusion_kind, kind);
}

/* Distinct users of o once copy's users read o instead (copy NULL: o's users). */
static int32_t user_count_bypassing(const struct hlo_instruction *o,
				    const struct hlo_instruction *copy)
{
	if (!copy || o != copy->operands[0])
		return o->n_users;
	int32_t n = 0;
	for (int32_t i = 0; i < o->n_users; i++)
		if (o->users[i] != copy)
			n++;
	for (int32_t i = 0; i < copy->n_users; i++) {
		int dup = 0;
		for (int32_t j = 0; j < o->n_users && !dup; j++)
			if (o->users[j] == copy->users[i])
				dup = 1;
		n += !dup;
	}
	return n;
}

int can_share_buffer_at(const struct dataflow *df, const struct inplace *ip,
			const struct hlo_instruction *operand, int32_t osub,
			const struct hlo_instruction *user, int32_t usub, int32_t slot,
			const struct hlo_instruction *copy)
{
	if (copy && operand == copy)
		operand = copy->operands[0];
	if (user->opcode == OP_CUSTOM_CALL && user->ext->custom_call_target &&
	    (!strcmp(user->ext->custom_call_target, "__cublas$lt$matmul") ||
	     !strcmp(user->ext->custom_call_target, "__cublas$lt$matmul$f8"))) {
		int32_t one = 1;
		if (usub == dataflow_sub(df, user, &one, 1))
			return 0;
	}
	if (operand->opcode == OP_CONSTANT)
		return 0;
	/* first slot holding the operand, and how many */
	int32_t first = -1, count = 0;
	for (int32_t j = 0; j < user->n_operands; j++) {
		const struct hlo_instruction *o = user->operands[j];
		if ((copy && o == copy ? copy->operands[0] : o) == operand) {
			if (first < 0)
				first = j;
			count++;
		}
	}
	int sif = slice_input_fusion_can_share(df, operand, osub, user, usub, first);
	if (sif >= 0)
		return sif;
	const struct shape *os = dataflow_subshape(df, operand, osub);
	const struct shape *us = dataflow_subshape(df, user, usub);
	if (!os || !us || !shape_equal(os, us))
		return 0;
	const struct inplace_pair *pr;
	int32_t np = inplace_pairs(ip, user, &pr);
	if (slot >= 0) {
		/* the read itself must be at the pair's operand slot */
		for (int32_t i = 0; i < np; i++)
			if (pr[i].output_sub == usub && pr[i].operand == slot &&
			    pr[i].operand_sub == osub)
				return 1;
	} else {
		/* XLA: a pair of user at usub whose operand side is a use of the operand's value */
		int32_t v = dataflow_unique_value(df, operand, osub);
		for (int32_t i = 0; v >= 0 && i < np; i++) {
			if (pr[i].output_sub != usub)
				continue;
			const struct hlo_value *hv = &df->values[v];
			for (int32_t u = 0; u < hv->n_uses; u++)
				if (hv->uses[u].instr == user && hv->uses[u].operand == pr[i].operand &&
				    hv->uses[u].sub == pr[i].operand_sub)
					return 1;
		}
	}
	/* The slot whose use decides below: XLA looks at the operand's first
	 * slot (HloInstruction::operand_index); a read at slot k is judged at k,
	 * since a fusion reading one value through two parameters shares the
	 * output's buffer only if the read one is used elementwise (an element
	 * read at another index may be overwritten before it is read:
	 * corpus/copies/fusion_shared_operand.hlo). */
	int32_t at = slot >= 0 ? slot : first;
	if (user->opcode == OP_FUSION) {
		const struct hlo_instruction *fp = fused_parameter(user, at);
		if (fusion_kind_is(user, "kLoop") || fusion_kind_is(user, "kInput"))
			return fp ? transitive_uses_elementwise_or_tuple(fp) : 0;
		struct hlo_computation *fc = fused_computation(user);
		const struct hlo_instruction *root = fc ? fc->root : NULL;
		if (fusion_kind_is(user, "kOutput") && root && root->opcode == OP_ADD) {
			int32_t m = -1;
			for (int32_t j = 0; j < root->n_operands && m < 0; j++)
				if (root->operands[j]->opcode == OP_CONVOLUTION ||
				    root->operands[j]->opcode == OP_DOT)
					m = j;
			if (m < 0)
				return 0;
			int32_t other = root->operands[m] == root->operands[0] ? 1 : 0;
			int32_t pv = fp ? dataflow_value_defined_at(df, fp, osub) : -1;
			if (pv < 0 || df->values[pv].n_uses != 1)
				return 0;
			const struct value_use *use = &df->values[pv].uses[0];
			return use->instr == root && use->operand == other;
		}
	}
	if (user->opcode == OP_WHILE || user->opcode == OP_CONDITIONAL)
		return 1;
	if (user->opcode == OP_DYNAMIC_UPDATE_SLICE || user->opcode == OP_SCATTER ||
	    user->opcode == OP_TRIANGULAR_SOLVE || user->opcode == OP_SET_DIMENSION_SIZE) {
		int32_t want = user->opcode == OP_TRIANGULAR_SOLVE ? 1 : 0;
		return count == 1 && first == want;
	}
	if (user->opcode == OP_SORT) {
		if (user_count_bypassing(operand, copy) != 1)
			return 0;
		if (user->n_operands == 1)
			return 1;
		if (usub == 0)
			return 0;
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		shape_tree_index(dataflow_tree(df, user), usub, idx);
		return count == 1 && idx[0] == first;
	}
	if (user->opcode == OP_CALL) {
		int32_t dv = dataflow_value_defined_at(df, operand, osub);
		if (dv < 0)
			return 0;
		struct hlo_computation *callee = user->to_apply ? user->to_apply
				       : (user->n_called > 0 ? user->called[0] : NULL);
		const struct hlo_instruction *croot = callee ? callee->root : NULL;
		/* the operand's value's uses, and, with copy bypassed, the copy's
		 * value's uses but the copy itself */
		const struct hlo_value *srcs[2] = {&df->values[dv], NULL};
		if (copy && operand == copy->operands[0] && osub == 0) {
			int32_t cv = dataflow_value_defined_at(df, copy, 0);
			srcs[1] = cv >= 0 ? &df->values[cv] : NULL;
		}
		int32_t n_uses = 0;
		int caller_use = 0, callee_use = 0;
		for (int s = 0; s < 2; s++)
			for (int32_t u = 0; srcs[s] && u < srcs[s]->n_uses; u++) {
				const struct value_use *use = &srcs[s]->uses[u];
				if (copy && use->instr == copy)
					continue;
				n_uses++;
				if (use->instr == user)
					caller_use = 1;
				if (croot && use->instr == croot &&
				    instr_is_elementwise_on_operand(croot, use->operand))
					callee_use = 1;
			}
		return n_uses == 2 && caller_use && callee_use;
	}
	return at >= 0 && instr_is_elementwise_on_operand(user, at);
}

int can_share_operand_buffer(struct liveness *lv, const struct hlo_instruction *operand,
			     int32_t osub, const struct hlo_instruction *user, int32_t usub)
{
	/* XLA's reading: per operand, not per read, and on the module as it is */
	return can_share_buffer_at(lv->df, lv->ip, operand, osub, user, usub, -1, NULL);
}

/* ---- 5.5 ---- */

static int value_defined_at_top(const struct dataflow *df, const struct hlo_instruction *i)
{
	return dataflow_value_defined_at(df, i, 0) >= 0;
}

int uses_before_value_definition(struct liveness *lv, const struct value_use *const *uses,
				 int32_t n_uses, int32_t iv, int always)
{
	const struct dataflow *df = lv->df;
	const struct hlo_value *v = val(lv, iv);
	const struct hlo_instruction *D = v->def;
	int in_exclusive = 0, escaped = 0;
	for (int32_t q = 0; q < n_uses; q++) {
		const struct value_use *use = uses[q];
		const struct hlo_instruction *U = use->instr;
		int pass = 0;
		switch (ordering_constraint(lv->ord, U, D)) {
		case EXEC_SAME: {
			if (always) {
				pass = 1;
				break;
			}
			const struct hlo_instruction *operand = U->operands[use->operand];
			int32_t osub = use->sub;
			if (opcode_is_async((enum opcode)U->opcode)) {
				struct hlo_computation *w = async_wrapped_computation(U);
				if (w && D->parent == w) {
					int32_t idx[SHAPE_MAX_DEPTH + 1];
					int32_t n = shape_tree_index(dataflow_tree(df, operand), use->sub, idx);
					if (U->opcode == OP_ASYNC_START) {
						operand = use->operand < w->n_params ? w->params[use->operand] : NULL;
					} else if (n > 1 && idx[1] >= 0 && idx[1] < w->n_params) {
						operand = w->params[idx[1]];
						osub = dataflow_sub(df, operand, idx + 2, n - 2);
					} else {
						operand = NULL;
					}
				}
			}
			if (operand && osub >= 0 && osub < dataflow_tree(df, operand)->n &&
			    can_share_operand_buffer(lv, operand, osub, D, v->sub))
				pass = 1;
			break;
		}
		case EXEC_EXCLUSIVE_AFTER:
			if (!escaped) {
				in_exclusive = 1;
				pass = 1;
			}
			break;
		case EXEC_EXCLUSIVE_BEFORE:
		case EXEC_RUN_BEFORE_START:
		case EXEC_RUN_BEFORE_END:
			pass = 1;
			break;
		case EXEC_A_AFTER_B:
			if (always && U->opcode == OP_COLLECTIVE_PERMUTE_DONE && U->n_operands > 0 &&
			    U->operands[0] == D)
				pass = 1;
			break;
		case EXEC_UNORDERED:
			break;
		}
		if (pass)
			continue;
		if (U->opcode == OP_WHILE) {
			if (nested(lv, D, U->ext->body))
				continue;
			if (nested(lv, D, U->ext->condition)) {
				if (U->ext->condition->n_params > 0 && D == U->ext->condition->params[0])
					continue;
				return 0;
			}
		}
		if (D->opcode == OP_WHILE &&
		    (nested(lv, U, D->ext->body) || nested(lv, U, D->ext->condition)))
			continue;
		if (U->opcode == OP_CALL) {
			struct hlo_computation *callee = U->to_apply ? U->to_apply
					       : (U->n_called > 0 ? U->called[0] : NULL);
			if (nested(lv, D, callee))
				continue;
		}
		if (opcode_is_async((enum opcode)U->opcode) &&
		    nested(lv, D, async_wrapped_computation(U)))
			continue;
		if (U->opcode == OP_CONDITIONAL) {
			int ok = 0;
			for (int32_t j = 0; j < U->ext->n_branches && !ok; j++) {
				if (!nested(lv, D, U->ext->branches[j]))
					continue;
				if (!value_defined_at_top(df, U->operands[use->operand])) {
					for (int32_t u = 0; u < v->n_uses; u++)
						if (v->uses[u].instr == v->uses[u].instr->parent->root) {
							escaped = 1;
							break;
						}
				}
				if (!in_exclusive)
					ok = 1;
			}
			if (ok || D == U)
				continue;
		}
		return 0;
	}
	return 1;
}

/* ---- 5.6 ---- */

int does_not_use_operand_buffer(const struct dataflow *df, const struct hlo_instruction *operand,
				int32_t sub, const struct hlo_instruction *user)
{
	const struct value_set *vs = dataflow_set(df, operand, sub);
	for (int32_t k = 0; k < vs->n; k++) {
		const struct hlo_value *v = &df->values[value_set_ids(vs)[k]];
		for (int32_t u = 0; u < v->n_uses; u++) {
			const struct value_use *use = &v->uses[u];
			if (use->instr != user)
				continue;
			if (fusion_kind_is(user, "kLoop")) {
				const struct hlo_instruction *fp = fused_parameter(user, use->operand);
				int32_t pv = -1;
				if (fp) {
					int32_t idx[SHAPE_MAX_DEPTH + 1];
					int32_t n = shape_tree_index(dataflow_tree(df, user->operands[use->operand]),
								     use->sub, idx);
					int32_t ps = dataflow_sub(df, fp, idx, n);
					pv = ps >= 0 ? dataflow_value_defined_at(df, fp, ps) : -1;
				}
				return pv >= 0 && df->values[pv].n_uses == 0;
			}
			return 0;
		}
	}
	return 1;
}

int live_range_strictly_before(struct liveness *lv, int32_t ia, int32_t ib, int always)
{
	const struct dataflow *df = lv->df;
	const struct hlo_value *a = val(lv, ia), *b = val(lv, ib);
	if (!is_defined_before(lv, ia, ib))
		return 0;
	if (a->live_out)
		return 0;
	for (int32_t p = 0; p < a->n_positions; p++) {
		const struct hlo_instruction *pi = a->positions[p].instr;
		if (pi->parent->root == pi && nested(lv, b->def, pi->parent))
			return 0;
	}
	const struct value_use **uses = xmalloc(((size_t)a->n_uses + 1), sizeof(*uses));
	int32_t n = 0;
	for (int32_t u = 0; u < a->n_uses; u++) {
		/* a's own use guarantees a match, so only a loop fusion user can
		 * turn out not to read the buffer: skip the scan for the rest */
		if (fusion_kind_is(a->uses[u].instr, "kLoop") &&
		    does_not_use_operand_buffer(df, a->def, a->sub, a->uses[u].instr))
			continue;
		uses[n++] = &a->uses[u];
	}
	int ok = uses_before_value_definition(lv, uses, n, ib, always);
	free(uses);
	if (!ok)
		return 0;
	if (dataflow_value_is_root_of(a, b->def->parent))
		return 0;
	return 1;
}

int may_interfere(struct liveness *lv, int32_t a, int32_t b)
{
	return !live_range_strictly_before(lv, a, b, 0) && !live_range_strictly_before(lv, b, a, 0);
}

/* ---- display live ranges ---- */

/* Walk i up the call chain into computation c; the position there, or -1. */
static int32_t position_in(const struct hlo_instruction *i, const struct hlo_computation *c)
{
	/* bounded: a call chain visits each computation at most once */
	for (int32_t guard = 0; i && guard <= c->module->n_comps; guard++) {
		if (i->parent == c)
			return sequence_position(i);
		const struct hlo_computation *p = i->parent;
		if (p->n_callers < 1)
			return -1;
		/* several callers: only an async computation (start, update, done) is
		 * followed, through its first caller */
		if (p->n_callers > 1 && !opcode_is_async((enum opcode)p->callers[0].instr->opcode))
			return -1;
		i = p->callers[0].instr;
	}
	return -1;
}

int value_live_range(const struct dataflow *df, int32_t iv, const struct hlo_computation *c,
		     struct live_range *r)
{
	const struct hlo_value *v = &df->values[iv];
	int32_t first = -1, last = -1, end = c->n_instrs - 1;
	int escapes = 0;
#define POINT(x)                                                                       \
	do {                                                                           \
		int32_t x_ = (x);                                                      \
		if (x_ >= 0) {                                                         \
			if (first < 0 || x_ < first)                                   \
				first = x_;                                            \
			if (x_ > last)                                                 \
				last = x_;                                             \
		}                                                                      \
	} while (0)
	for (int32_t p = 0; p < v->n_positions; p++) {
		const struct hlo_instruction *pi = v->positions[p].instr;
		int32_t x = position_in(pi, c);
		POINT(x);
		if (pi == c->root)
			escapes = 1;
	}
	if (first < 0)
		return 0;
	for (int32_t u = 0; u < v->n_uses; u++)
		POINT(position_in(v->uses[u].instr, c));
#undef POINT
	if (v->def->parent == c) {
		first = sequence_position(v->def);
		if (v->is_phi && v->def->opcode == OP_PARAMETER)
			first = 0; /* loop state: live from the start of the body */
		if (last < first)
			last = first;
	}
	if (escapes)
		last = end;
	r->first = first;
	r->last = last;
	return 1;
}

int value_live_at(const struct dataflow *df, int32_t v, const struct hlo_instruction *i)
{
	const struct hlo_computation *c = i->parent;
	int32_t t = sequence_position(i);
	struct live_range r;
	if (value_live_range(df, v, c, &r) && r.first <= t && t <= r.last)
		return 1;
	/* Up the call chain: live across the call site (defined before it and
	 * read after it). A value the call site itself reads or defines is not
	 * live inside: inside, the callee's parameters and phis stand for it. */
	for (int32_t guard = 0; guard <= df->module->n_comps; guard++) {
		if (c->n_callers < 1 ||
		    (c->n_callers > 1 && !opcode_is_async((enum opcode)c->callers[0].instr->opcode)))
			return 0;
		i = c->callers[0].instr;
		c = i->parent;
		t = sequence_position(i);
		if (value_live_range(df, v, c, &r) && r.first < t && t < r.last)
			return 1;
	}
	return 0;
}

int buffers_any_interference(struct liveness *lv, const struct buffers *b, int32_t *va,
			     int32_t *vb)
{
	for (int32_t k = 0; k < b->n_buffers; k++) {
		const struct hlo_buffer *buf = &b->buffers[k];
		for (int32_t i = 0; i < buf->n_values; i++)
			for (int32_t j = i + 1; j < buf->n_values; j++)
				if (may_interfere(lv, buf->values[i], buf->values[j])) {
					if (va)
						*va = buf->values[i];
					if (vb)
						*vb = buf->values[j];
					return 1;
				}
	}
	return 0;
}

/* ---- slice input fusions (horizontal fusion): CanShareOperandBufferWithUser's
 * first case, before the shape test. Added with the copy decider. ---- */

static int is_1d_slice_without_strides(const struct hlo_instruction *x)
{
	return x->opcode == OP_SLICE && x->ext->n_slice == 1 && x->ext->slice[0].stride == 1;
}

static int is_slice_input_fusion(const struct hlo_instruction *f)
{
	if (!fusion_kind_is(f, "kInput"))
		return 0;
	struct hlo_computation *c = fused_computation(f);
	const struct hlo_instruction *root = c ? c->root : NULL;
	if (!root || root->opcode != OP_TUPLE)
		return 0;
	for (int32_t i = 0; i < root->n_operands; i++)
		if (!is_1d_slice_without_strides(root->operands[i]))
			return 0;
	return 1;
}

static int same_layout(const struct shape *a, const struct shape *b)
{
	if (!shape_is_array(a) || !shape_is_array(b))
		return 1;
	if (a->rank != b->rank || a->layout.memory_space != b->layout.memory_space ||
	    a->layout.element_size_bits != b->layout.element_size_bits)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (shape_minor_to_major(a, i) != shape_minor_to_major(b, i))
			return 0;
	const char *x = a->layout.ext ? a->layout.ext : "", *y = b->layout.ext ? b->layout.ext : "";
	return !strcmp(x, y);
}

static int default_layout(const struct shape *s)
{
	if (!shape_is_array(s))
		return 0;
	for (int i = 0; i < s->rank; i++)
		if (shape_minor_to_major(s, i) != s->rank - 1 - i)
			return 0;
	return !s->layout.ext;
}

struct concat_usage {
	const struct hlo_instruction *prev_concat;
	int32_t operand_idx;
	const struct hlo_instruction *slice_to_recover;
};

static int cmp_slice_start(const void *a, const void *b)
{
	const struct hlo_instruction *x = *(const struct hlo_instruction *const *)a;
	const struct hlo_instruction *y = *(const struct hlo_instruction *const *)b;
	return x->ext->slice[0].start < y->ext->slice[0].start ? -1 : x->ext->slice[0].start > y->ext->slice[0].start;
}

/* XLA's ConcatIsEffectivelyElementwise: the concat's users are 1-d slices
 * that cut it back into its operands. */
static int concat_effectively_elementwise(const struct hlo_instruction *concat,
					  const struct hlo_instruction *operand,
					  struct concat_usage *info)
{
	int32_t n = concat->n_users;
	if (n != concat->n_operands || n > 1024)
		return 0;
	for (int32_t i = 0; i < concat->n_operands; i++)
		for (int32_t j = 0; j < i; j++)
			if (concat->operands[i] == concat->operands[j])
				return 0;
	const struct hlo_instruction *users[1024];
	for (int32_t i = 0; i < n; i++) {
		if (!is_1d_slice_without_strides(concat->users[i]))
			return 0;
		users[i] = concat->users[i];
	}
	qsort(users, (size_t)n, sizeof(users[0]), cmp_slice_start);
	int64_t prev_limit = 0;
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *u = users[i];
		int64_t size = u->ext->slice[0].limit - u->ext->slice[0].start;
		const struct shape *os = concat->operands[i]->shape;
		if (u->ext->slice[0].start != prev_limit || !os || size != (int64_t)os->elements)
			return 0;
		prev_limit = u->ext->slice[0].limit;
	}
	int32_t idx = -1;
	for (int32_t i = 0; i < concat->n_operands && idx < 0; i++)
		if (concat->operands[i] == operand)
			idx = i;
	if (idx < 0)
		return 0;
	if (info->prev_concat) {
		const struct hlo_instruction *p = info->prev_concat;
		int identical = p->n_operands == concat->n_operands && p->shape && concat->shape &&
				shape_equal(p->shape, concat->shape) &&
				p->n_dimensions == concat->n_dimensions;
		for (int32_t d = 0; identical && d < p->n_dimensions; d++)
			identical = p->dimensions[d] == concat->dimensions[d];
		if (!identical || info->operand_idx != idx)
			return 0;
	}
	info->prev_concat = concat;
	info->operand_idx = idx;
	info->slice_to_recover = users[idx];
	return 1;
}

/* XLA's AreTransitiveUsesEffectivelyElementwise (bounded by the fused
 * computation's size). */
static int transitive_effectively_elementwise(const struct hlo_instruction *param,
					      const struct hlo_instruction *root, int32_t out)
{
	const struct hlo_computation *c = param->parent;
	size_t cap = (size_t)c->n_instrs + 1;
	const struct hlo_instruction **stack = xmalloc(cap, sizeof(*stack));
	uint8_t *seen = xcalloc(cap, 1);
	size_t n = 0;
	stack[n++] = param;
	struct concat_usage info = {NULL, 0, NULL};
	int reachable = 0, ok = 1;
	while (n > 0 && ok) {
		const struct hlo_instruction *cur = stack[--n];
		seen[cur->index] = 1;
		for (int32_t u = 0; u < cur->n_users && ok; u++) {
			const struct hlo_instruction *user = cur->users[u];
			if (user->parent != c)
				continue;
			if (user->opcode == OP_TUPLE) {
				if (user == root && out >= 0 && out < root->n_operands &&
				    root->operands[out] == cur)
					reachable = 1;
			} else if (user->opcode == OP_RESHAPE) {
				if (!cur->shape || !user->shape || !default_layout(cur->shape) ||
				    !default_layout(user->shape))
					ok = 0;
			} else if (user->opcode == OP_CONCATENATE) {
				if (!concat_effectively_elementwise(user, cur, &info)) {
					ok = 0;
					break;
				}
				/* go on from the slice that recovers this operand */
				if (!seen[info.slice_to_recover->index] && n < cap)
					stack[n++] = info.slice_to_recover;
				continue;
			} else {
				for (int32_t k = 0; k < user->n_operands && ok; k++)
					if (user->operands[k] == cur && !instr_is_elementwise_on_operand(user, k))
						ok = 0;
				if (ok && cur->shape && user->shape && !same_layout(cur->shape, user->shape))
					ok = 0;
			}
			if (ok && !seen[user->index] && n < cap)
				stack[n++] = user;
		}
	}
	free(stack);
	free(seen);
	return ok && reachable;
}

int slice_input_fusion_can_share(const struct dataflow *df, const struct hlo_instruction *operand,
				 int32_t osub, const struct hlo_instruction *user, int32_t usub,
				 int32_t slot)
{
	if (!is_slice_input_fusion(user))
		return -1;
	const struct shape *os = dataflow_subshape(df, operand, osub);
	const struct shape *us = dataflow_subshape(df, user, usub);
	struct hlo_computation *c = fused_computation(user);
	if (!os || !us || !shape_is_array(os) || !shape_is_array(us) || os->elements != us->elements ||
	    os->type != us->type || slot < 0 || !c || slot >= c->n_params)
		return 0;
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t depth = shape_tree_index(dataflow_tree(df, user), usub, idx);
	if (depth != 1)
		return 0;
	return transitive_effectively_elementwise(c->params[slot], c->root, idx[0]);
}
