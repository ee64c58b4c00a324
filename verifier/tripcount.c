/* tripcount.c - while-loop trip counts as XLA computes them (tripcount.h).
 *
 * The order of the tests is ComputeWhileLoopTripCount's: find the induction
 * variable (GetLoopInductionVarTupleIdx), its constant start, then the trivial
 * pattern (MatchTrivialLoopTripCount), then brute force on the slot's update.
 * Where XLA would evaluate an arbitrary constant expression, this file takes
 * only a constant instruction: it may say "unknown" where XLA knows, never a
 * count XLA would not give. */
#include "tripcount.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bound on the operand chains walked; HLO scalar index arithmetic is short. */
#define TRIP_MAX_WALK 4096
#define TRIP_MAX_EVAL_DEPTH 64

static int is_int_type(int t)
{
	return (t >= PT_S1 && t <= PT_S64) || (t >= PT_U1 && t <= PT_U64);
}

static int is_scalar(const struct shape *s)
{
	return s && shape_is_array(s) && s->rank == 0;
}

/* ShapeUtil::IsEffectiveScalar: an array of one element. */
static int is_effective_scalar(const struct shape *s)
{
	return s && shape_is_array(s) && s->elements == 1;
}

/* The integer value of a constant instruction of one integral element. */
static int const_int(const struct hlo_instruction *in, int64_t *v)
{
	if (in->opcode != OP_CONSTANT || !is_effective_scalar(in->shape) ||
	    !is_int_type(in->shape->type) || !in->literal)
		return 0;
	const char *p = in->literal;
	while (*p == ' ' || *p == '{')
		p++;
	char *end;
	errno = 0;
	long long x = strtoll(p, &end, 10);
	if (end == p || errno == ERANGE)
		return 0;
	while (*end == ' ' || *end == '}')
		end++;
	if (*end)
		return 0;
	*v = (int64_t)x;
	return 1;
}

/* TraceThroughCopyAndGteTupleChain. */
static const struct hlo_instruction *trace_copies(const struct hlo_instruction *in)
{
	for (int steps = 0; in && steps < TRIP_MAX_WALK; steps++) {
		if (in->opcode == OP_GET_TUPLE_ELEMENT && in->n_operands == 1 &&
		    in->operands[0]->opcode == OP_TUPLE && in->tuple_index >= 0 &&
		    in->tuple_index < in->operands[0]->n_operands)
			in = in->operands[0]->operands[in->tuple_index];
		else if ((in->opcode == OP_COPY || in->opcode == OP_COPY_START ||
			  in->opcode == OP_COPY_DONE) && in->n_operands >= 1)
			in = in->operands[0];
		else
			return in;
	}
	return NULL;
}

/* NonConstantOperand: the one operand that is not a constant (it may be
 * used several times), or NULL. */
static const struct hlo_instruction *non_constant_operand(const struct hlo_instruction *in)
{
	const struct hlo_instruction *r = NULL;
	for (int32_t k = 0; k < in->n_operands; k++) {
		const struct hlo_instruction *o = in->operands[k];
		if (o->opcode == OP_CONSTANT)
			continue;
		if (r && r != o)
			return NULL;
		r = o;
	}
	return r;
}

/* hlo_query::GetUniqueGteInstruction: the only get-tuple-element of
 * `param` with that index, or NULL (none, or several). */
static const struct hlo_instruction *unique_gte(const struct hlo_instruction *param, int64_t index)
{
	const struct hlo_instruction *g = NULL;
	for (int32_t k = 0; k < param->n_users; k++) {
		const struct hlo_instruction *u = param->users[k];
		if (u->opcode != OP_GET_TUPLE_ELEMENT || u->tuple_index != index)
			continue;
		if (g)
			return NULL;
		g = u;
	}
	return g;
}

/* IsScalarOp, narrowed: a scalar result and no called computation (XLA also
 * accepts calls into scalar computations; those give "unknown" here). */
static int is_scalar_op(const struct hlo_instruction *in)
{
	switch (in->opcode) {
	case OP_CUSTOM_CALL: case OP_SEND: case OP_SEND_DONE: case OP_RECV: case OP_RECV_DONE:
	case OP_ALL_REDUCE: case OP_ALL_GATHER: case OP_REDUCE_SCATTER: case OP_ALL_TO_ALL:
	case OP_COLLECTIVE_PERMUTE:
		return 0;
	default:
		break;
	}
	return in->n_called == 0 && is_scalar(in->shape);
}

/* GetGTEDependenceIndices(out, in): the state slots of `param` that `out`
 * is a scalar function of. Returns the number of distinct slots found
 * (writing the first to *slot), or -1 when `out` depends on anything else. */
static int gte_dependence(const struct hlo_instruction *out, const struct hlo_instruction *param,
			  int64_t *slot)
{
	if (out->parent != param->parent || !param->shape || !shape_is_tuple(param->shape))
		return -1;
	const struct hlo_instruction *stack[TRIP_MAX_WALK];
	const struct hlo_instruction *seen[TRIP_MAX_WALK];
	int n_stack = 0, n_seen = 0, n_slots = 0;
	int64_t first = -1;
	stack[n_stack++] = out;
	while (n_stack) {
		const struct hlo_instruction *in = stack[--n_stack];
		int dup = 0;
		for (int k = 0; k < n_seen && !dup; k++)
			dup = seen[k] == in;
		if (dup)
			continue;
		if (n_seen == TRIP_MAX_WALK)
			return -1;
		seen[n_seen++] = in;
		if (in == param || in->opcode == OP_PARAMETER)
			return -1;
		if (in->opcode == OP_GET_TUPLE_ELEMENT) {
			if (!is_scalar(in->shape))
				return -1;
			const struct hlo_instruction *op = in->operands[0];
			while (op->opcode == OP_COPY)
				op = op->operands[0];
			if (op == param) {
				if (first < 0)
					first = in->tuple_index, n_slots = 1;
				else if (in->tuple_index != first)
					n_slots = 2; /* more than one: the caller gives up */
				continue;
			}
			if (op->opcode != OP_TUPLE)
				return -1; /* fusion or call outputs: not followed here */
			for (int32_t k = 0; k < op->n_operands; k++) {
				if (n_stack == TRIP_MAX_WALK)
					return -1;
				stack[n_stack++] = op->operands[k];
			}
			continue;
		}
		if (in->opcode != OP_COPY && !is_scalar_op(in))
			return -1;
		for (int32_t k = 0; k < in->n_operands; k++) {
			if (n_stack == TRIP_MAX_WALK)
				return -1;
			stack[n_stack++] = in->operands[k];
		}
	}
	if (!n_slots)
		return -1;
	*slot = first;
	return n_slots;
}

static const char *attr(const struct hlo_instruction *in, const char *name)
{
	for (int32_t k = 0; k < in->n_attrs; k++)
		if (!strcmp(in->attrs[k].name, name))
			return in->attrs[k].value;
	return NULL;
}

/* "known_trip_count":{"n":"8"} anywhere in the backend config. */
static int backend_trip_count(const struct hlo_instruction *w, int64_t *n)
{
	const char *bc = w->ext->backend_config;
	const char *p = bc ? strstr(bc, "known_trip_count") : NULL;
	if (!p)
		return 0;
	p = strstr(p, "\"n\"");
	if (!p)
		return 0;
	p += 3;
	while (*p == ' ' || *p == ':' || *p == '"' || *p == '\\')
		p++;
	char *end;
	errno = 0;
	long long x = strtoll(p, &end, 10);
	if (end == p || errno == ERANGE || x < 0)
		return 0;
	*n = (int64_t)x;
	return 1;
}

/* GetLoopInductionVarTupleIdx: the slot the condition tests and the body
 * updates from itself, or -1. */
static int64_t induction_slot(const struct hlo_instruction *w)
{
	const struct hlo_computation *cond = w->ext->condition, *body = w->ext->body;
	if (!cond || !body || !cond->root || !body->root || cond->n_params < 1 ||
	    body->n_params < 1 || w->n_operands != 1)
		return -1;
	int64_t slot;
	if (gte_dependence(cond->root, cond->params[0], &slot) != 1)
		return -1;
	if (w->operands[0]->opcode != OP_TUPLE || body->root->opcode != OP_TUPLE ||
	    slot >= body->root->n_operands || slot >= w->operands[0]->n_operands)
		return -1;
	const struct hlo_instruction *inc = trace_copies(body->root->operands[slot]);
	int64_t body_slot;
	if (!inc || gte_dependence(inc, body->params[0], &body_slot) != 1 || body_slot != slot)
		return -1;
	return slot;
}

/* MatchTrivialLoopInductionStep: i += k with k > 0, or 0. */
static int64_t induction_step(const struct hlo_instruction *w, int64_t slot)
{
	const struct hlo_computation *body = w->ext->body;
	const struct hlo_instruction *upd = trace_copies(body->root->operands[slot]);
	const struct hlo_instruction *iv = upd ? non_constant_operand(upd) : NULL;
	if (!iv || trace_copies(iv) != unique_gte(body->params[0], slot))
		return 0;
	if (upd->opcode != OP_ADD || upd->n_operands != 2)
		return 0;
	const struct hlo_instruction *c = upd->operands[0] == iv ? upd->operands[1]
					: upd->operands[1] == iv ? upd->operands[0] : NULL;
	int64_t k;
	if (!c || !const_int(c, &k) || k <= 0)
		return 0;
	return k;
}

static int checked_sub(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_sub_overflow(a, b, r);
}

/* MatchTrivialLoopTripCount: i < N or i <= N with i first. */
static int trivial_count(const struct hlo_instruction *w, int64_t slot, int64_t init,
			 struct trip_count *t)
{
	int64_t step = induction_step(w, slot);
	if (!step)
		return 0;
	const struct hlo_computation *cond = w->ext->condition;
	const struct hlo_instruction *root = cond->root;
	const struct hlo_instruction *iv = non_constant_operand(root);
	if (!iv || iv != unique_gte(cond->params[0], slot) || root->opcode != OP_COMPARE ||
	    root->n_operands != 2 || root->operands[0] != iv)
		return 0;
	int64_t bound;
	if (!const_int(root->operands[1], &bound))
		return 0;
	const char *dir = attr(root, "direction");
	int64_t trips, n;
	if (!dir || !checked_sub(bound, init, &trips))
		return 0;
	if (!strcmp(dir, "LT"))
		n = trips <= 0 ? 0 : (trips - 1) / step + 1;
	else if (!strcmp(dir, "LE"))
		n = trips < 0 ? 0 : trips / step + 1;
	else
		return 0;
	if (n < 0)
		return 0;
	t->n = n;
	t->source = TRIP_INDUCTION;
	t->init = init, t->bound = bound, t->step = step;
	return 1;
}

/* A scalar integer expression with `var` bound to `val`: constants,
 * add/subtract/multiply, compare (1/0), copy. 0 when anything else appears
 * or the arithmetic overflows. */
static int eval(const struct hlo_instruction *in, const struct hlo_instruction *var, int64_t val,
		int depth, int64_t *out)
{
	if (in == var) {
		*out = val;
		return 1;
	}
	if (depth > TRIP_MAX_EVAL_DEPTH)
		return 0;
	if (in->opcode == OP_CONSTANT)
		return const_int(in, out);
	if (in->opcode == OP_COPY && in->n_operands == 1)
		return eval(in->operands[0], var, val, depth + 1, out);
	if (in->n_operands != 2)
		return 0;
	int64_t a, b;
	if (!eval(in->operands[0], var, val, depth + 1, &a) ||
	    !eval(in->operands[1], var, val, depth + 1, &b))
		return 0;
	switch (in->opcode) {
	case OP_ADD: return !__builtin_add_overflow(a, b, out);
	case OP_SUBTRACT: return !__builtin_sub_overflow(a, b, out);
	case OP_MULTIPLY: return !__builtin_mul_overflow(a, b, out);
	case OP_COMPARE: {
		const char *d = attr(in, "direction");
		if (!d)
			return 0;
		if (!strcmp(d, "LT")) *out = a < b;
		else if (!strcmp(d, "LE")) *out = a <= b;
		else if (!strcmp(d, "GT")) *out = a > b;
		else if (!strcmp(d, "GE")) *out = a >= b;
		else if (!strcmp(d, "EQ")) *out = a == b;
		else if (!strcmp(d, "NE")) *out = a != b;
		else return 0;
		return 1;
	}
	default:
		return 0;
	}
}

/* The brute-force fallback of ComputeWhileLoopTripCount. */
static int brute_force_count(const struct hlo_instruction *w, int64_t slot, int64_t init,
			     struct trip_count *t)
{
	const struct hlo_computation *cond = w->ext->condition, *body = w->ext->body;
	const struct hlo_instruction *upd = body->root->operands[slot];
	const struct hlo_instruction *biv = non_constant_operand(upd);
	const struct hlo_instruction *civ = non_constant_operand(cond->root);
	if (!biv || biv != unique_gte(body->params[0], slot) || !civ ||
	    civ != unique_gte(cond->params[0], slot))
		return 0;
	int64_t v = init;
	for (int64_t n = 0; n <= WHILE_TRIP_BRUTE_FORCE; n++) {
		int64_t go;
		if (!eval(cond->root, civ, v, 0, &go))
			return 0;
		if (!go) {
			t->n = n;
			t->source = TRIP_BRUTE_FORCE;
			t->init = init;
			return 1;
		}
		if (!eval(upd, biv, v, 0, &v))
			return 0;
	}
	return 0;
}

struct trip_count while_trip_count(const struct hlo_instruction *w)
{
	struct trip_count t = {.n = -1, .source = TRIP_UNKNOWN, .slot = -1};
	if (!w || w->opcode != OP_WHILE)
		return t;
	int64_t n;
	if (backend_trip_count(w, &n)) {
		t.n = n;
		t.source = TRIP_BACKEND_CONFIG;
		return t;
	}
	int64_t slot = induction_slot(w);
	if (slot < 0)
		return t;
	const struct hlo_instruction *init_in = trace_copies(w->operands[0]->operands[slot]);
	int64_t init;
	if (!init_in || !const_int(init_in, &init))
		return t;
	if (trivial_count(w, slot, init, &t) || brute_force_count(w, slot, init, &t))
		t.slot = (int32_t)slot;
	return t;
}

void trip_count_describe(const struct trip_count *t, char *buf, size_t cap)
{
	switch (t->source) {
	case TRIP_BACKEND_CONFIG:
		snprintf(buf, cap, "%" PRId64 " iterations (known_trip_count)", t->n);
		break;
	case TRIP_INDUCTION:
		snprintf(buf, cap, "%" PRId64 " iterations (state slot %d counts from %" PRId64
			 " by %" PRId64 " up to %" PRId64 ")", t->n, (int)t->slot, t->init, t->step,
			 t->bound);
		break;
	case TRIP_BRUTE_FORCE:
		snprintf(buf, cap, "%" PRId64 " iterations (state slot %d from %" PRId64
			 ", condition evaluated)", t->n, (int)t->slot, t->init);
		break;
	default:
		snprintf(buf, cap, "unknown trip count");
	}
}

#define TRIPS_MAX_DEPTH 64  /* call-graph depth followed; deeper: unknown */
#define TRIPS_MAX ((int64_t)1 << 53)

static int64_t trips_at(const struct hlo_computation *c, int *in_loop, int depth)
{
	if (!c || c->is_entry || c->n_callers == 0)
		return 1;
	if (depth > TRIPS_MAX_DEPTH)
		return -1;
	int64_t agreed = 0; /* 0: no caller seen yet */
	for (int32_t k = 0; k < c->n_callers; k++) {
		const struct hlo_instruction *at = c->callers[k].instr;
		int64_t f = 1;
		if (at->opcode == OP_WHILE && at->ext && (at->ext->body == c || at->ext->condition == c)) {
			if (in_loop)
				*in_loop = 1;
			struct trip_count t = while_trip_count(at);
			f = t.n < 0 ? -1 : t.n + (at->ext->condition == c && at->ext->body != c);
		}
		int64_t up = trips_at(at->parent, in_loop, depth + 1);
		int64_t here = f < 0 || up < 0 ? -1 : (f && up > TRIPS_MAX / f ? -1 : f * up);
		if (here < 0 || (agreed && agreed != here))
			return -1;
		agreed = here;
	}
	return agreed ? agreed : 1;
}

int64_t computation_trips(const struct hlo_computation *c, int *in_loop)
{
	if (in_loop)
		*in_loop = 0;
	/* kept per computation: each copy and each finding asks, and under 64
	 * nested loops each asking evaluated every trip count above it */
	struct hlo_module *m = c ? c->module : NULL;
	if (!m || c->index < 0 || c->index >= m->n_comps || m->comps[c->index] != c)
		return trips_at(c, in_loop, 0);
	if (!m->trips_memo) {
		m->trips_memo = arena_array(&m->arena, 2 * (size_t)m->n_comps, sizeof(int64_t));
		m->n_trips_memo = m->trips_memo ? m->n_comps : 0;
	}
	if (c->index >= m->n_trips_memo)
		return trips_at(c, in_loop, 0);
	int64_t *e = &m->trips_memo[2 * (size_t)c->index];
	if (!e[1]) {
		int loop = 0;
		e[0] = trips_at(c, &loop, 0);
		e[1] = loop + 1;
	}
	if (in_loop)
		*in_loop = (int)e[1] - 1;
	return e[0];
}
