/* trace.c - events, call-chain paths and the order condition of a hazard
 * (docs/hazards.md sections 2-3). */
#include "trace.h"
#include "lines.h"
#include "values.h"
#include "xalloc.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int event_equal(const struct event *a, const struct event *b)
{
	if (a->phase != b->phase)
		return 0;
	switch (a->phase) {
	case EV_TIME0:
		return 1;
	case EV_KSTART:
	case EV_KEND:
		return a->k == b->k;
	default:
		return a->x == b->x;
	}
}

const char *event_format(const struct event *e, char *buf, size_t cap)
{
	/* text_put, not snprintf: one per member and read of every view */
	if (cap)
		buf[0] = 0;
	switch (e->phase) {
	case EV_TIME0:
		text_put(buf, cap, text_put(buf, cap, 0, e->x ? e->x->name : "?"), " (time 0)");
		break;
	case EV_KSTART:
		text_put(buf, cap, text_put(buf, cap, 0, "the start of "), e->k->name);
		break;
	case EV_KEND:
		if (e->k->is_entry)
			text_put(buf, cap, 0, "the end of the program");
		else
			text_put(buf, cap, text_put(buf, cap, 0, "the end of "), e->k->name);
		break;
	case EV_START:
		text_put(buf, cap, text_put(buf, cap, 0, "the start of "), e->x->name);
		break;
	case EV_END:
		text_put(buf, cap, text_put(buf, cap, 0, "the end of "), e->x->name);
		break;
	default:
		if (e->x && !e->x->parent->is_entry)
			text_put(buf, cap, text_put(buf, cap, text_put(buf, cap, 0, e->x->name), "@"),
				 e->x->parent->name);
		else
			text_put(buf, cap, 0, e->x ? e->x->name : "?");
		break;
	}
	return buf;
}

static int is_control_flow(const struct hlo_instruction *x)
{
	return x->opcode == OP_WHILE || x->opcode == OP_CONDITIONAL || x->opcode == OP_CALL;
}

/* The walk up e's call chain: each level from the event's own up to the
 * entry's, through at(). Returns the levels the path keeps (an embedded or
 * async caller puts the event at the calling instruction: the levels below
 * it go, at() sees them before), or -1 with p->ok / p->never / p->why set.
 * Each step goes one computation up; a cycle in the call graph is caught
 * by counting the steps. */
static const char too_deep[] = "control flow nested deeper than " TRACE_MAX_DEPTH_TEXT " levels";

static int32_t walk(const struct event *e, struct path *p, struct path_level *out, int32_t n_out)
{
	int32_t n = 0;
	const struct hlo_computation *k =
		(e->phase == EV_KSTART || e->phase == EV_KEND) ? e->k : e->x->parent;
	struct path_level lv = {k, (e->phase == EV_KSTART || e->phase == EV_KEND) ? NULL : e->x, e->phase};
#define AT(L) do { if (out && n < n_out) out[n_out - 1 - n] = (L); n++; } while (0)
	AT(lv);
	for (int32_t guard = 0; !k->is_entry; guard++) {
		if (guard > k->module->n_comps) {
			p->ok = 0;
			p->why = "a cycle in the call graph";
			return -1;
		}
		if (k->n_callers == 0) {
			p->never = 1;
			return -1;
		}
		const struct hlo_instruction *caller = k->callers[0].instr;
		if (k->n_callers > 1) {
			for (int32_t i = 0; i < k->n_callers; i++)
				if (!opcode_is_async((enum opcode)k->callers[i].instr->opcode)) {
					p->ok = 0;
					p->why = "a computation with several call sites (call graph not flattened)";
					return -1;
				}
		}
		struct path_level up = {caller->parent, caller, EV_INSIDE};
		if (k->callers[0].context != CALL_CONTROL_FLOW || !is_control_flow(caller)) {
			/* embedded or async: the event happens at the calling instruction */
			n = 0;
			up.phase = EV_AT;
		} else if (n >= TRACE_MAX_DEPTH) {
			p->ok = 0;
			p->why = too_deep;
			return -1;
		}
		AT(up);
		k = caller->parent;
	}
#undef AT
	return n;
}

int path_too_deep(const struct path *p)
{
	return p && !p->ok && p->why == too_deep;
}

int32_t trace_path_levels(const struct event *e)
{
	if (e->phase == EV_TIME0)
		return 0;
	struct path p = {0};
	int32_t n = walk(e, &p, NULL, 0);
	return n < 0 ? 0 : n;
}

void trace_path(const struct event *e, struct path *p)
{
	p->n = 0;
	p->ok = 1;
	p->never = 0;
	p->why = NULL;
	if (e->phase == EV_TIME0)
		return;
	/* the levels go in from the top of p->l down, the event's own last:
	 * the walk up writes level i of n at l[n - 1 - i]; the levels an
	 * embedded caller drops are written over, or fall outside */
	int32_t n = trace_path_levels(e);
	if (walk(e, p, p->l, n) == n)
		p->n = n;
}

int32_t path_shared_run(const struct path *d, const struct path *u)
{
	int32_t L = 0;
	while (L + 1 < d->n && L + 1 < u->n && d->l[L].x && d->l[L].x == u->l[L].x &&
	       d->l[L].phase == EV_INSIDE && u->l[L].phase == EV_INSIDE && d->l[L + 1].k == u->l[L + 1].k)
		L++;
	return L;
}

int path_same_run_to(const struct path *a, const struct path *b, int32_t L)
{
	if (a->n <= L || b->n <= L || a->l[L].k != b->l[L].k)
		return 0;
	for (int32_t i = 0; i < L; i++)
		if (a->l[i].x != b->l[i].x || a->l[i].phase != EV_INSIDE || b->l[i].phase != EV_INSIDE ||
		    a->l[i + 1].k != b->l[i + 1].k)
			return 0;
	return 1;
}

int path_direct_at(const struct path *d, const struct path *w, int32_t L)
{
	if (!d->ok || d->never || !w->ok || w->never || w->n != L + 1 || w->l[L].phase == EV_INSIDE)
		return 0;
	if (d->n == 0) /* time 0: the entry's run */
		return L == 0 && w->l[0].k->is_entry;
	return path_same_run_to(d, w, L);
}

enum { R_LT, R_GT, R_EQ, R_ATOM, R_DESCEND };

static int phase_rank(uint8_t ph)
{
	switch (ph) {
	case EV_START: return 0;
	case EV_END: return 2;
	default: return 1;
	}
}

static int lvl_cmp(const struct path_level *a, const struct path_level *b)
{
	if (!a->x || !b->x) {
		int ra = !a->x ? (a->phase == EV_KSTART ? -1 : 1) : 0;
		int rb = !b->x ? (b->phase == EV_KSTART ? -1 : 1) : 0;
		return ra < rb ? R_LT : ra > rb ? R_GT : R_EQ;
	}
	if (a->x != b->x)
		return R_ATOM;
	int ra = phase_rank(a->phase), rb = phase_rank(b->phase);
	if (ra != rb)
		return ra < rb ? R_LT : R_GT;
	if (a->phase == EV_INSIDE && b->phase == EV_INSIDE)
		return R_DESCEND;
	return R_EQ;
}

static void set_false(struct cond *c, const char *why, const struct hlo_instruction *at)
{
	if (c->kind == COND_FALSE)
		return;
	c->kind = COND_FALSE;
	c->why = why;
	c->why_at = at;
}

static void set_unknown(struct cond *c, const char *why, const struct hlo_instruction *at)
{
	if (c->kind != COND_ATOMS)
		return;
	c->kind = COND_UNKNOWN;
	c->why = why;
	c->why_at = at;
}

static void add_atom(struct cond *c, const struct hlo_instruction *a,
		     const struct hlo_instruction *b)
{
	if (c->kind != COND_ATOMS)
		return;
	for (int32_t i = 0; i < c->n; i++)
		if (c->a[i].a == a && c->a[i].b == b)
			return;
	if (c->n >= COND_MAX_ATOMS) {
		set_unknown(c, "too many ordering atoms", a);
		return;
	}
	c->a[c->n].a = a;
	c->a[c->n].b = b;
	c->n++;
}

/* W before U, both inside the run at level i, the definition before that run
 * (one instance of v for the whole run). */
static void after_from(const struct path *W, const struct path *U, int32_t i, struct cond *c)
{
	for (; i < W->n && i < U->n && c->kind == COND_ATOMS; i++) {
		const struct path_level *w = &W->l[i], *u = &U->l[i];
		switch (lvl_cmp(w, u)) {
		case R_LT:
			return;
		case R_GT:
		case R_EQ:
			set_false(c, "the write comes after the read", u->x);
			return;
		case R_ATOM:
			add_atom(c, w->x, u->x);
			return;
		default:
			break;
		}
		const struct hlo_instruction *x = w->x;
		if (i + 1 >= W->n || i + 1 >= U->n) {
			set_unknown(c, "malformed path", x);
			return;
		}
		if (x->opcode == OP_WHILE) {
			/* one iteration writes, the next reads the same instance */
			if (!c->why) {
				c->why = "written in one iteration of the loop and read in the next";
				c->why_at = x;
			}
			return;
		}
		if (x->opcode == OP_CONDITIONAL) {
			if (W->l[i + 1].k != U->l[i + 1].k) {
				set_false(c, "the write and the read are in different branches", x);
				return;
			}
			continue;
		}
		if (x->opcode != OP_CALL) {
			set_unknown(c, "unsupported control flow", x);
			return;
		}
	}
}

/* D strictly before W, both inside the run at level i, v read after it. */
static void before_inside(const struct path *D, const struct path *W, int32_t i, struct cond *c)
{
	for (; i < D->n && i < W->n && c->kind == COND_ATOMS; i++) {
		const struct path_level *d = &D->l[i], *w = &W->l[i];
		switch (lvl_cmp(d, w)) {
		case R_LT:
			return;
		case R_GT:
		case R_EQ:
			set_false(c, "the write comes before the definition", w->x);
			return;
		case R_ATOM:
			add_atom(c, d->x, w->x);
			return;
		default:
			break;
		}
		const struct hlo_instruction *x = d->x;
		if (i + 1 >= D->n || i + 1 >= W->n) {
			set_unknown(c, "malformed path", x);
			return;
		}
		if (x->opcode == OP_WHILE) {
			set_false(c, "a value defined inside a loop is not read after it", x);
			return;
		}
		if (x->opcode == OP_CONDITIONAL) {
			if (D->l[i + 1].k != W->l[i + 1].k) {
				set_false(c, "the definition and the write are in different branches", x);
				return;
			}
			continue;
		}
		if (x->opcode != OP_CALL) {
			set_unknown(c, "unsupported control flow", x);
			return;
		}
	}
}

int32_t cond_shared_levels(const struct path *A, const struct path *B)
{
	int32_t i = 0, n = A->n < B->n ? A->n : B->n;
	while (i + 1 < n) {
		const struct hlo_instruction *x = A->l[i].x;
		if (!x || B->l[i].x != x || A->l[i].phase != EV_INSIDE || B->l[i].phase != EV_INSIDE ||
		    A->l[i + 1].k != B->l[i + 1].k || !is_control_flow(x))
			break;
		i++;
	}
	return i;
}

void cond_overwrite(const struct path *D, const struct path *W, const struct path *U,
		    struct cond *c)
{
	cond_overwrite_from(D, W, U, -1, c);
}

void cond_overwrite_from(const struct path *D, const struct path *W, const struct path *U,
			 int32_t skip, struct cond *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = COND_ATOMS;
	const struct path *bad = !D->ok ? D : !W->ok ? W : !U->ok ? U : NULL;
	if (bad) {
		set_unknown(c, bad->why ? bad->why : "unsupported call chain", NULL);
		return;
	}
	if (D->never || W->never || U->never) {
		set_false(c, "never executed", NULL);
		return;
	}
	if (W->n == 0) { /* w at time 0: not after v's definition */
		set_false(c, "the write is at time 0", NULL);
		return;
	}
	if (U->n == 0) {
		set_false(c, "the read is at time 0", NULL);
		return;
	}
	if (D->n == 0) { /* v at time 0: one instance before everything */
		after_from(W, U, 0, c);
		return;
	}
	/* The levels all three run inside of, with the next level in one
	 * computation, settle nothing (the loop below continues past each):
	 * skipped by pointer compares. Deep nesting makes this most of a
	 * triple's work (bench/shapes.sh, nesting 64: 71% in this loop). */
	int32_t i = 0;
	int32_t n3 = D->n < W->n ? D->n : W->n;
	if (U->n < n3)
		n3 = U->n;
	if (skip >= 0)
		i = skip, n3 = 0; /* the caller's: the levels walked once per pair */
	while (i + 1 < n3) {
		const struct path_level *d = &D->l[i];
		const struct hlo_instruction *x = d->x;
		if (!x || W->l[i].x != x || U->l[i].x != x || d->phase != EV_INSIDE ||
		    W->l[i].phase != EV_INSIDE || U->l[i].phase != EV_INSIDE ||
		    D->l[i + 1].k != W->l[i + 1].k || W->l[i + 1].k != U->l[i + 1].k ||
		    !is_control_flow(x))
			break;
		i++;
	}
	for (; i < D->n && i < W->n && i < U->n; i++) {
		const struct path_level *d = &D->l[i], *w = &W->l[i], *u = &U->l[i];
		int dw = lvl_cmp(d, w), wu = lvl_cmp(w, u), du = lvl_cmp(d, u);
		if (dw == R_DESCEND && wu == R_DESCEND) {
			const struct hlo_instruction *x = d->x;
			if (i + 1 >= D->n || i + 1 >= W->n || i + 1 >= U->n) {
				set_unknown(c, "malformed path", x);
				return;
			}
			const struct hlo_computation *kd = D->l[i + 1].k, *kw = W->l[i + 1].k,
						     *ku = U->l[i + 1].k;
			if (x->opcode == OP_WHILE || x->opcode == OP_CONDITIONAL) {
				if (kd != ku || kw != kd) {
					set_false(c, x->opcode == OP_WHILE
						     ? "the write runs in another part of the loop than the definition and the read"
						     : "the write and the read are in different branches", x);
					return;
				}
			} else if (x->opcode != OP_CALL) {
				set_unknown(c, "unsupported control flow", x);
				return;
			}
			continue;
		}
		/* D < W */
		switch (dw) {
		case R_LT:
			break;
		case R_GT:
		case R_EQ:
			set_false(c, "the write comes before the definition", w->x);
			return;
		case R_ATOM:
			add_atom(c, d->x, w->x);
			break;
		case R_DESCEND:
			before_inside(D, W, i, c);
			break;
		}
		/* W < U */
		switch (wu) {
		case R_LT:
			break;
		case R_GT:
		case R_EQ:
			set_false(c, "the write comes after the read", w->x);
			return;
		case R_ATOM:
			add_atom(c, w->x, u->x);
			break;
		case R_DESCEND:
			after_from(W, U, i, c);
			break;
		}
		/* D < U */
		switch (du) {
		case R_LT:
			break;
		case R_GT:
		case R_EQ:
			set_false(c, "the read comes before the definition", u->x);
			return;
		case R_ATOM:
			add_atom(c, d->x, u->x);
			break;
		case R_DESCEND:
			set_false(c, "the definition and the read run inside one instruction the write is outside of",
				  d->x);
			return;
		}
		return;
	}
	set_unknown(c, "malformed path", NULL);
}

/* ---- dependency order with the root last ---- */

#define REACH_CACHE_BITS 16
#define PATH_CACHE_BITS 12

struct reach_slot {
	uint64_t key; /* (a gid + 1) << 32 | (b gid + 1); 0 = empty */
	uint32_t epoch; /* valid while it is the scratch's */
	uint8_t val;
};

struct path_slot {
	const struct hlo_instruction *a, *b, *removed;
	char *text; /* malloc'd */
	uint32_t epoch;
};

struct dv_scratch {
	/* the ordering the cached answers are about, and their epoch: a
	 * change of owner starts a new epoch (dv_own) */
	const struct ordering *owner;
	uint32_t epoch;
	uint32_t *stamp; /* [gid] */
	uint32_t gen;
	const struct hlo_instruction **stack;
	int32_t cap;
	struct reach_slot reach[1u << REACH_CACHE_BITS]; /* direct-mapped cache of ordering_reaches */
	struct path_slot path[1u << PATH_CACHE_BITS];    /* of dependency_path texts */
};

/* The scratch's caches made dep's (a new epoch when they were another's). */
static void dv_own(struct dv_scratch *S, const struct ordering *dep)
{
	if (S->owner == dep)
		return;
	S->owner = dep;
	if (++S->epoch == 0) {
		memset(S->reach, 0, sizeof(S->reach));
		for (size_t i = 0; i < (1u << PATH_CACHE_BITS); i++)
			S->path[i].epoch = 0;
		S->epoch = 1;
	}
}

void dv_scratch_disown(struct dv_scratch *s)
{
	if (s)
		s->owner = NULL;
}

/* ordering_reaches through a direct-mapped cache: the deciders ask the same
 * pairs again and again (every copy of one buffer, every triple of a read) */
static int reaches(const struct depview *dv, const struct hlo_instruction *a,
		   const struct hlo_instruction *b)
{
	struct dv_scratch *S = dv->scratch;
	if (!S)
		return ordering_reaches(dv->dep, a, b);
	dv_own(S, dv->dep);
	uint64_t key = ((uint64_t)(uint32_t)(a->gid + 1) << 32) | (uint32_t)(b->gid + 1);
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	struct reach_slot *e = &S->reach[h >> (64 - REACH_CACHE_BITS)];
	if (e->key == key && e->epoch == S->epoch)
		return e->val;
	int r = ordering_reaches(dv->dep, a, b);
	e->key = key;
	e->epoch = S->epoch;
	e->val = (uint8_t)r;
	return r;
}

struct dv_scratch *dv_scratch_new(const struct hlo_module *m)
{
	struct dv_scratch *s = xcalloc(1, sizeof(*s));
	s->epoch = 1; /* the slots' 0: empty */
	s->cap = m->n_instrs + 1;
	s->stamp = xcalloc((size_t)s->cap, sizeof(uint32_t));
	s->stack = xmalloc((size_t)s->cap, sizeof(*s->stack));
	return s;
}

void dv_scratch_free(struct dv_scratch *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < (1u << PATH_CACHE_BITS); i++)
		free(s->path[i].text);
	free(s->stamp);
	free(s->stack);
	free(s);
}

const struct hlo_instruction *dv_root(const struct depview *dv, const struct hlo_computation *k)
{
	if (dv->removed && dv->removed->parent == k && k->root == dv->removed)
		return dv->removed->operands[0];
	return k->root;
}

static int has_successor_in(const struct hlo_instruction *x)
{
	for (int32_t i = 0; i < x->n_users; i++)
		if (x->users[i]->parent == x->parent)
			return 1;
	for (int32_t i = 0; i < x->ext->n_ctrl_succs; i++)
		if (x->ext->ctrl_succs[i]->parent == x->parent)
			return 1;
	return 0;
}

/* Does the view differ from the plain dependency relation in k? */
static int view_needs_search(const struct depview *dv, const struct hlo_computation *k,
			     const struct hlo_instruction *root)
{
	if (has_successor_in(root))
		return 1;
	const struct hlo_instruction *c = dv->removed;
	return c && c->parent == k && (c->ext->n_ctrl_preds > 0 || c->ext->n_ctrl_succs > 0);
}

/* Successor y of x in the view (NULL entries skipped by the caller). Calls
 * f for every successor: data users and control successors in x's
 * computation, the removed copy replaced by its data users when x is its
 * operand and dropped otherwise; nothing leaves the root. */
#define FOR_VIEW_SUCCESSORS(dv, x, root, y, BODY)                                               \
	do {                                                                                   \
		if ((x) != (root)) {                                                           \
			for (int32_t i_ = 0; i_ < (x)->n_users + (x)->ext->n_ctrl_succs; i_++) {    \
				const struct hlo_instruction *s_ = i_ < (x)->n_users                \
					? (x)->users[i_] : (x)->ext->ctrl_succs[i_ - (x)->n_users];       \
				if (s_->parent != (x)->parent)                                 \
					continue;                                              \
				if (s_ == (dv)->removed) {                                     \
					if (i_ >= (x)->n_users || (x) != (dv)->removed->operands[0]) \
						continue;                                      \
					for (int32_t j_ = 0; j_ < s_->n_users; j_++) {         \
						const struct hlo_instruction *y = s_->users[j_]; \
						if (y->parent == (x)->parent) {               \
							BODY;                                 \
						}                                             \
					}                                                      \
					continue;                                              \
				}                                                              \
				{                                                              \
					const struct hlo_instruction *y = s_;                  \
					BODY;                                                  \
				}                                                              \
			}                                                                      \
		}                                                                              \
	} while (0)

int dv_order_is_reach(const struct depview *dv, const struct hlo_computation *k)
{
	const struct hlo_instruction *root = dv_root(dv, k);
	return root == k->root && !view_needs_search(dv, k, root) &&
	       !(dv->removed && dv->removed->parent == k);
}

int must_precede(struct depview *dv, const struct hlo_instruction *a,
		 const struct hlo_instruction *b)
{
	if (a == b || a->parent != b->parent)
		return 0;
	const struct hlo_instruction *root = dv_root(dv, a->parent);
	if (b == root)
		return 1;
	if (a == root || a == dv->removed || b == dv->removed)
		return 0;
	if (!reaches(dv, a, b))
		return 0;
	if (!view_needs_search(dv, a->parent, root) || !dv->scratch)
		return 1;
	/* depth-first search in the view, pruned by the plain relation */
	struct dv_scratch *S = dv->scratch;
	if (++S->gen == 0) {
		memset(S->stamp, 0, (size_t)S->cap * sizeof(uint32_t));
		S->gen = 1;
	}
	int32_t n = 0;
	S->stack[n++] = a;
	S->stamp[a->gid] = S->gen;
	while (n > 0) {
		const struct hlo_instruction *x = S->stack[--n];
		int found = 0;
		FOR_VIEW_SUCCESSORS(dv, x, root, y, {
			if (y == b)
				found = 1;
			else if (!found && y != root && S->stamp[y->gid] != S->gen &&
				 reaches(dv, y, b) && n < S->cap) {
				S->stamp[y->gid] = S->gen;
				S->stack[n++] = y;
			}
		});
		if (found)
			return 1;
	}
	return 0;
}

int32_t given_position(const struct depview *dv, const struct hlo_instruction *x)
{
	return x == dv_root(dv, x->parent) ? INT32_MAX : x->index;
}

int atom_forced(struct depview *dv, const struct atom *a)
{
	return must_precede(dv, a->a, a->b);
}

int atom_given(const struct depview *dv, const struct atom *a)
{
	return given_position(dv, a->a) < given_position(dv, a->b);
}

#define DEP_PATH_HALF 12

/* y reads x through an operand (a data edge), in the view */
static int is_data_edge(const struct depview *dv, const struct hlo_instruction *x,
			const struct hlo_instruction *y)
{
	for (int32_t i = 0; i < y->n_operands; i++)
		if (y->operands[i] == x ||
		    (dv->removed && y->operands[i] == dv->removed && x == dv->removed->operands[0]))
			return 1;
	return 0;
}

/* b is reachable from a without the root-last rule */
static int must_precede_plain_path(struct depview *dv, const struct hlo_instruction *a,
				   const struct hlo_instruction *b);

#define POSSIBLE_MAX_NODES (2 * (COND_MAX_ATOMS + 8))

int atoms_possible(struct depview *dv, const struct atom *a, int32_t n, const struct atom *extra,
		   int32_t n_extra)
{
	const struct hlo_instruction *node[POSSIBLE_MAX_NODES];
	int32_t nn = 0;
	uint8_t adj[POSSIBLE_MAX_NODES][POSSIBLE_MAX_NODES];
	if (n_extra > 8)
		n_extra = 8;
	/* one atom a < b (most triples): possible unless b runs before a */
	if (n == 1 && n_extra == 0)
		return a[0].a != a[0].b && !must_precede(dv, a[0].b, a[0].a);
	/* a chain x < y < z (an overwrite's three atoms: value, writer, read):
	 * must_precede is a strict partial order, so a cycle through the
	 * chain needs one of its three back pairs; the general case below
	 * asks all six */
	if (n == 3 && n_extra == 0 && a[0].b == a[1].a && a[2].a == a[0].a && a[2].b == a[1].b) {
		const struct hlo_instruction *x = a[0].a, *y = a[0].b, *z = a[1].b;
		return x != y && y != z && x != z && !must_precede(dv, y, x) && !must_precede(dv, z, y) &&
		       !must_precede(dv, z, x);
	}
	for (int32_t i = 0; i < n + n_extra; i++) {
		const struct atom *t = i < n ? &a[i] : &extra[i - n];
		if (t->a == t->b)
			return 0;
		const struct hlo_instruction *e[2] = {t->a, t->b};
		for (int j = 0; j < 2; j++) {
			int32_t k;
			for (k = 0; k < nn && node[k] != e[j]; k++)
				;
			if (k == nn)
				node[nn++] = e[j];
		}
	}
	memset(adj, 0, (size_t)nn * sizeof(adj[0]));
	for (int32_t i = 0; i < nn; i++)
		for (int32_t j = 0; j < nn; j++)
			if (i != j && must_precede(dv, node[i], node[j]))
				adj[i][j] = 1;
	for (int32_t i = 0; i < n + n_extra; i++) {
		const struct atom *t = i < n ? &a[i] : &extra[i - n];
		int32_t x = 0, y = 0;
		while (node[x] != t->a)
			x++;
		while (node[y] != t->b)
			y++;
		adj[x][y] = 1;
	}
	/* cycle detection: repeatedly remove nodes without predecessors */
	uint8_t gone[POSSIBLE_MAX_NODES] = {0};
	for (int32_t round = 0; round < nn; round++) {
		int32_t pick = -1;
		for (int32_t j = 0; j < nn && pick < 0; j++) {
			if (gone[j])
				continue;
			int has_pred = 0;
			for (int32_t i = 0; i < nn && !has_pred; i++)
				if (!gone[i] && adj[i][j])
					has_pred = 1;
			if (!has_pred)
				pick = j;
		}
		if (pick < 0)
			return 0;
		gone[pick] = 1;
	}
	return 1;
}

static const char *dependency_path_uncached(struct depview *dv, const struct hlo_instruction *a,
					   const struct hlo_instruction *b, char *buf, size_t cap);

const char *dependency_path(struct depview *dv, const struct hlo_instruction *a,
			    const struct hlo_instruction *b, char *buf, size_t cap)
{
	struct dv_scratch *S = dv->scratch;
	if (!S || a->parent != b->parent)
		return dependency_path_uncached(dv, a, b, buf, cap);
	/* the removed copy matters only where the view differs from the module */
	const struct hlo_instruction *removed =
		view_needs_search(dv, a->parent, dv_root(dv, a->parent)) ||
				dv_root(dv, a->parent) != a->parent->root
			? dv->removed
			: NULL;
	uint64_t h = (((uint64_t)(uint32_t)a->gid << 32) ^ (uint32_t)b->gid ^
		      ((uint64_t)(uintptr_t)removed << 7)) * 0x9E3779B97F4A7C15ull;
	dv_own(S, dv->dep);
	struct path_slot *e = &S->path[h >> (64 - PATH_CACHE_BITS)];
	if (e->text && e->epoch == S->epoch && e->a == a && e->b == b && e->removed == removed) {
		snprintf(buf, cap, "%s", e->text);
		return buf;
	}
	dependency_path_uncached(dv, a, b, buf, cap);
	free(e->text);
	e->text = strdup(buf);
	e->epoch = S->epoch;
	e->a = a;
	e->b = b;
	e->removed = removed;
	return buf;
}

static const char *dependency_path_uncached(struct depview *dv, const struct hlo_instruction *a,
					   const struct hlo_instruction *b, char *buf, size_t cap)
{
	buf[0] = 0;
	const struct hlo_instruction *root = dv_root(dv, b->parent);
	if (b == root && (a == root || !must_precede_plain_path(dv, a, b))) {
		snprintf(buf, cap, "%s is the root of %s and runs last", b->name, b->parent->name);
		return buf;
	}
	if (!must_precede(dv, a, b)) {
		snprintf(buf, cap, "(no path %s ->* %s)", a->name, b->name);
		return buf;
	}
	/* Walk forward from a through successors that still reach b, and
	 * backward from b through predecessors a still reaches, a few steps
	 * each: a long path is shown by its two ends (the reachability index
	 * vouches for the middle). */
	const struct hlo_instruction *fwd[DEP_PATH_HALF + 1], *tail[DEP_PATH_HALF + 1];
	uint8_t fctrl[DEP_PATH_HALF + 1], tctrl[DEP_PATH_HALF + 1];
	int32_t nf = 0, nt = 0, joined = 0;
	const struct hlo_instruction *x = a;
	while (x != b && nf < DEP_PATH_HALF) {
		const struct hlo_instruction *next = NULL;
		FOR_VIEW_SUCCESSORS(dv, x, root, y, {
			if (!next && (y == b || (y != root && (b == root ? reaches(dv, y, b)
									  : must_precede(dv, y, b)))))
				next = y;
		});
		if (!next)
			break;
		fctrl[nf] = (uint8_t)!is_data_edge(dv, x, next);
		fwd[nf++] = next;
		x = next;
	}
	const struct hlo_instruction *y = b;
	if (x == b) {
		joined = 1;
	} else {
		/* tail[i] is reached from y (tail[i+1], or the stop node) */
		while (nt < DEP_PATH_HALF && !joined) {
			const struct hlo_instruction *prev = NULL;
			for (int32_t i = 0; i < y->n_operands + y->ext->n_ctrl_preds && !joined; i++) {
				const struct hlo_instruction *p = i < y->n_operands
					? y->operands[i] : y->ext->ctrl_preds[i - y->n_operands];
				if (p == dv->removed) {
					if (i >= y->n_operands)
						continue; /* the removed copy's control edges are gone */
					p = p->operands[0];
				}
				if (p->parent != y->parent || p == root)
					continue;
				if (p == x) {
					prev = p;
					joined = 1;
				} else if (!prev && must_precede(dv, x, p)) {
					prev = p;
				}
			}
			if (!prev)
				break;
			tctrl[nt] = (uint8_t)!is_data_edge(dv, prev, y);
			tail[nt++] = y;
			y = prev;
		}
	}
	size_t n = text_put(buf, cap, 0, a->name);
	for (int32_t i = 0; i < nf; i++)
		n = text_put(buf, cap, text_put(buf, cap, n, fctrl[i] ? " => " : " -> "), fwd[i]->name);
	if (!joined)
		n = text_put(buf, cap, text_put(buf, cap, n, " ->* "), y->name);
	for (int32_t i = nt - 1; i >= 0; i--)
		n = text_put(buf, cap, text_put(buf, cap, n, tctrl[i] ? " => " : " -> "), tail[i]->name);
	return buf;
}

static int must_precede_plain_path(struct depview *dv, const struct hlo_instruction *a,
				   const struct hlo_instruction *b)
{
	return reaches(dv, a, b);
}
