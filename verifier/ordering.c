/* ordering.c - XLA's HloOrdering and the call-graph walks it needs; see
 * ordering.h and hlo-semantics.md §5.1-5.3. The rules follow XLA's
 * hlo_ordering.cc (GetExecutionConstraint, ExecutesBeforeInSameComputation)
 * and call_graph.cc (depth, dominators, NearestAncestorsInSameComputation). */
#include "ordering.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

struct edge_overlay;

struct comp_info {
	struct reach_index *reach;
	struct edge_overlay *ov;  /* control edges added over reach (ordering_build_with_edges) */
	int32_t n_sites;          /* caller callsites as XLA counts them (see below) */
	int32_t depth;            /* longest call chain from a root */
	int32_t dom_pre, dom_end; /* preorder interval in the call-graph dominator tree */
	uint8_t fusion, async, sequenced;
};

struct ordering {
	const struct hlo_module *m;
	enum order_kind kind;
	int32_t n_comps;
	struct comp_info *ci;
};

static const char *const constraint_names[] = {
	[EXEC_SAME] = "same",
	[EXEC_RUN_BEFORE_START] = "run-before-start",
	[EXEC_RUN_BEFORE_END] = "run-before-end",
	[EXEC_EXCLUSIVE_BEFORE] = "exclusive-before",
	[EXEC_EXCLUSIVE_AFTER] = "exclusive-after",
	[EXEC_A_AFTER_B] = "a-after-b",
	[EXEC_UNORDERED] = "unordered",
};

const char *exec_constraint_name(enum exec_constraint c)
{
	return (unsigned)c <= EXEC_UNORDERED ? constraint_names[c] : "?";
}

const char *order_kind_name(enum order_kind k)
{
	return k == ORDER_SEQUENTIAL ? "sequential" : "dependency";
}

static int is_async_op(const struct hlo_instruction *i)
{
	return i->opcode == OP_ASYNC_START || i->opcode == OP_ASYNC_UPDATE ||
	       i->opcode == OP_ASYNC_DONE;
}

static struct comp_info *info(const struct ordering *o, const struct hlo_computation *c)
{
	if (!c || c->index < 0 || c->index >= o->n_comps || o->m->comps[c->index] != c)
		return NULL;
	return &o->ci[c->index];
}

/* --- call graph -------------------------------------------------------------- */

/* Depths by longest path from the roots, in an order where callers come before
 * callees (Kahn over caller->callee edges taken from comp->callers). Returns
 * -1 on a call-graph cycle, with *bad set to a computation left over. */
static int call_graph_depths(struct ordering *o, int32_t *order, int32_t *bad)
{
	const struct hlo_module *m = o->m;
	int32_t n = m->n_comps, k = 0, head = 0;
	int32_t *pending = xmalloc((size_t)n, sizeof(int32_t));
	/* callee lists: count, then fill */
	int32_t *coff = xmalloc((size_t)n + 1, sizeof(int32_t));
	memset(coff, 0, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t c = 0; c < n; c++) {
		const struct hlo_computation *cc = m->comps[c];
		pending[c] = cc->n_callers;
		for (int32_t i = 0; i < cc->n_callers; i++)
			coff[cc->callers[i].instr->parent->index + 1]++;
	}
	for (int32_t c = 0; c < n; c++)
		coff[c + 1] += coff[c];
	int32_t *callee = xmalloc((size_t)coff[n] + 1, sizeof(int32_t));
	int32_t *fill = xmalloc((size_t)n + 1, sizeof(int32_t));
	memcpy(fill, coff, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t c = 0; c < n; c++) {
		const struct hlo_computation *cc = m->comps[c];
		for (int32_t i = 0; i < cc->n_callers; i++)
			callee[fill[cc->callers[i].instr->parent->index]++] = c;
	}
	for (int32_t c = 0; c < n; c++) {
		o->ci[c].depth = 0;
		if (!pending[c])
			order[k++] = c;
	}
	while (head < k) {
		int32_t c = order[head++];
		for (int32_t e = coff[c]; e < coff[c + 1]; e++) {
			int32_t q = callee[e];
			if (o->ci[q].depth < o->ci[c].depth + 1)
				o->ci[q].depth = o->ci[c].depth + 1;
			if (--pending[q] == 0)
				order[k++] = q;
		}
	}
	int rc = 0;
	if (k < n) {
		for (int32_t c = 0; c < n && rc == 0; c++)
			if (pending[c]) {
				*bad = c;
				rc = -1;
			}
	}
	free(pending);
	free(coff);
	free(callee);
	free(fill);
	return rc;
}

/* Dominator tree of the call graph, as XLA's CallGraph::SetDominatorTree:
 * c's immediate dominator is the nearest common dominator of its caller
 * computations; roots hang off a virtual root. Visiting by increasing depth
 * visits callers first. Then number a preorder so dominance is an interval
 * test. */
static void call_graph_dominators(struct ordering *o)
{
	const struct hlo_module *m = o->m;
	int32_t n = m->n_comps;
	int32_t *order = xmalloc((size_t)n, sizeof(int32_t));
	int32_t maxd = 0;
	for (int32_t c = 0; c < n; c++)
		if (o->ci[c].depth > maxd)
			maxd = o->ci[c].depth;
	int32_t *slot = xmalloc((size_t)maxd + 2, sizeof(int32_t));
	memset(slot, 0, ((size_t)maxd + 2) * sizeof(int32_t));
	for (int32_t c = 0; c < n; c++)
		slot[o->ci[c].depth + 1]++;
	for (int32_t d = 0; d <= maxd; d++)
		slot[d + 1] += slot[d];
	for (int32_t c = 0; c < n; c++)
		order[slot[o->ci[c].depth]++] = c;

	int32_t *idom = xmalloc((size_t)n, sizeof(int32_t));
	int32_t *ddepth = xmalloc((size_t)n, sizeof(int32_t));
	for (int32_t k = 0; k < n; k++) {
		int32_t c = order[k], dom = -1;
		const struct hlo_computation *cc = m->comps[c];
		for (int32_t i = 0; i < cc->n_callers; i++) {
			int32_t p = cc->callers[i].instr->parent->index;
			if (i == 0) {
				dom = p;
				continue;
			}
			int32_t x = dom, y = p;
			/* nearest common dominator; bounded by the tree depth */
			while (x != y) {
				if (x < 0 || y < 0) {
					x = -1;
					break;
				}
				if (ddepth[x] > ddepth[y])
					x = idom[x];
				else if (ddepth[y] > ddepth[x])
					y = idom[y];
				else {
					x = idom[x];
					y = idom[y];
				}
			}
			dom = x;
		}
		idom[c] = dom;
		ddepth[c] = (dom < 0 ? 0 : ddepth[dom]) + 1;
	}
	int32_t *size = xmalloc((size_t)n, sizeof(int32_t));
	for (int32_t c = 0; c < n; c++)
		size[c] = 1;
	for (int32_t k = n - 1; k >= 0; k--)
		if (idom[order[k]] >= 0)
			size[idom[order[k]]] += size[order[k]];
	int32_t *next = xmalloc((size_t)n + 1, sizeof(int32_t));
	memset(next, 0, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t k = 0; k < n; k++) {
		int32_t c = order[k];
		int32_t *ne = &next[idom[c] + 1];
		o->ci[c].dom_pre = *ne;
		o->ci[c].dom_end = *ne + size[c];
		next[c + 1] = *ne + 1;
		*ne += size[c];
	}
	free(order);
	free(slot);
	free(idom);
	free(ddepth);
	free(size);
	free(next);
}

/* --- per-computation dependency graph -------------------------------------- */

/* scratch ints build_reach keeps on the stack (2 x 4 KiB): most
 * computations are small, and three mallocs each were a sixth of a check's
 * allocations on mixtral (3,714 computations), each taking the heap's lock
 * under --jobs */
#define ORDER_STACK_INTS 1024

static struct reach_index *build_reach(const struct hlo_computation *c, struct arena *a,
				       const struct reach_options *opt, struct diag *d, int *err)
{
	int32_t n = c->n_instrs;
	/* off and fill in one block, succ in another */
	int32_t small_off[ORDER_STACK_INTS], small_succ[ORDER_STACK_INTS];
	size_t n_off = 2 * ((size_t)n + 1);
	int32_t *off = n_off <= ORDER_STACK_INTS ? small_off : xmalloc(n_off, sizeof(int32_t));
	int32_t *fill = off + n + 1;
	int32_t *succ = NULL;
	struct reach_index *r = NULL;
	memset(off, 0, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *y = c->instrs[i];
		for (int32_t k = 0; k < y->n_operands; k++) {
			const struct hlo_instruction *x = y->operands[k];
			if (x->parent != c) {
				error_at(d, y->pos, "operand %s of %s is not in computation %s",
					 x->name, y->name, c->name);
				*err = 1;
				goto out;
			}
			off[x->index + 1]++;
		}
		for (int32_t k = 0; k < y->ext->n_ctrl_preds; k++) {
			const struct hlo_instruction *x = y->ext->ctrl_preds[k];
			if (x->parent != c) {
				error_at(d, y->pos, "control predecessor %s of %s is not in computation %s",
					 x->name, y->name, c->name);
				*err = 1;
				goto out;
			}
			off[x->index + 1]++;
		}
	}
	for (int32_t i = 0; i < n; i++)
		off[i + 1] += off[i];
	size_t n_succ = (size_t)off[n] + 1;
	succ = n_succ <= ORDER_STACK_INTS ? small_succ : xmalloc(n_succ, sizeof(int32_t));
	memcpy(fill, off, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *y = c->instrs[i];
		for (int32_t k = 0; k < y->n_operands; k++)
			succ[fill[y->operands[k]->index]++] = i;
		for (int32_t k = 0; k < y->ext->n_ctrl_preds; k++)
			succ[fill[y->ext->ctrl_preds[k]->index]++] = i;
	}
	int32_t bad = -1;
	r = reach_build(n, off, succ, opt, a, &bad);
	if (!r) {
		const struct hlo_instruction *x = bad >= 0 ? c->instrs[bad] : c->instrs[0];
		error_at(d, x->pos, "dependency cycle through %s in computation %s "
			 "(operand and control-predecessor edges)", x->name, c->name);
		*err = 1;
	}
out:
	if (off != small_off)
		free(off);
	if (succ && succ != small_succ)
		free(succ);
	return r;
}

struct ordering *ordering_build_ex(const struct hlo_module *m, enum order_kind kind,
				   struct arena *a, const struct reach_options *opt,
				   struct diag *d)
{
	struct diag quiet;
	if (!d) {
		diag_init(&quiet, NULL);
		d = &quiet;
	}
	struct ordering *o = arena_alloc(a, sizeof(*o));
	o->m = m;
	o->kind = kind;
	o->n_comps = m->n_comps;
	o->ci = arena_array(a, (size_t)m->n_comps, sizeof(struct comp_info));
	if (!o->ci)
		die("ordering: allocation overflows");

	for (int32_t c = 0; c < m->n_comps; c++) {
		const struct hlo_computation *cc = m->comps[c];
		struct comp_info *ci = &o->ci[c];
		for (int32_t i = 0; i < cc->n_callers; i++) {
			const struct hlo_instruction *in = cc->callers[i].instr;
			if (in->opcode == OP_FUSION ||
			    (hlo_async_sugar_embeds(in) && in->async_wrapped_opcode == OP_FUSION))
				ci->fusion = 1;
			if (is_async_op(in))
				ci->async = 1;
			/* XLA adds one caller callsite per occurrence in the
			 * caller's called computations (a conditional naming a
			 * branch twice, a while whose condition is its body) */
			for (int32_t k = 0; k < in->n_called; k++)
				ci->n_sites += in->called[k] == cc;
		}
		ci->sequenced = kind == ORDER_DEPENDENCY || (m->is_scheduled && !ci->fusion);
	}

	int32_t *topo = xmalloc((size_t)m->n_comps, sizeof(int32_t));
	int32_t bad = -1;
	if (call_graph_depths(o, topo, &bad) < 0) {
		const struct hlo_computation *cc = m->comps[bad];
		error_at(d, cc->pos, "computation %s is on a cycle of calls", cc->name);
		free(topo);
		return NULL;
	}
	call_graph_dominators(o);
	free(topo);

	for (int32_t c = 0; c < m->n_comps; c++) {
		int err = 0;
		o->ci[c].reach = build_reach(m->comps[c], a, opt, d, &err);
		if (err)
			return NULL;
	}
	return o;
}

struct ordering *ordering_build_from(const struct ordering *base, enum order_kind kind,
				     struct arena *a)
{
	struct ordering *o = arena_alloc(a, sizeof(*o));
	*o = *base;
	o->kind = kind;
	o->ci = arena_array(a, (size_t)o->n_comps, sizeof(struct comp_info));
	if (!o->ci)
		die("ordering: allocation overflows");
	memcpy(o->ci, base->ci, (size_t)o->n_comps * sizeof(struct comp_info));
	for (int32_t c = 0; c < o->n_comps; c++)
		o->ci[c].sequenced = kind == ORDER_DEPENDENCY ||
				     (o->m->is_scheduled && !o->ci[c].fusion);
	return o;
}

/* --- control edges added over a built index -------------------------------- */

/* A few control edges f[i] -> t[i] added to a computation whose index is
 * built: b is reachable from a in the computation with them iff the index
 * says so, or a reaches (or is) some f[i], t[i] reaches (or is) some f[j]
 * through the edges, and t[j] reaches (or is) b. clo[i] is the set of j
 * such that a path runs from t[i] to f[j] through zero or more of the
 * edges (j == i included), closed once when built: a query is at most 2k
 * index queries and k words, where building a new index for one edge was
 * the whole computation (mixtral's entry: 30,358 nodes, 32 edge sets a
 * check). More edges than OVERLAY_MAX_EDGES: the index is built again. */
#define OVERLAY_MAX_EDGES 64

struct edge_overlay {
	int32_t k;
	int32_t *f, *t;       /* node ids (instruction indices) */
	uint64_t clo[OVERLAY_MAX_EDGES]; /* bit j: t[i] ->* f[j] through edges */
	int rank_kept;        /* every edge goes up in the index's rank */
};

static int node_le(struct reach_index *r, int32_t u, int32_t v)
{
	return u == v || reach_query(r, u, v);
}

static int overlay_reaches(struct reach_index *r, const struct edge_overlay *ov, int32_t u, int32_t v)
{
	if (u == v)
		return 0;
	if (reach_query(r, u, v))
		return 1;
	uint64_t from = 0;
	for (int32_t i = 0; i < ov->k; i++)
		if (node_le(r, u, ov->f[i]))
			from |= ov->clo[i];
	for (int32_t j = 0; from; from &= from - 1) {
		j = __builtin_ctzll(from);
		if (node_le(r, ov->t[j], v))
			return 1;
	}
	return 0;
}

static int comp_reaches(const struct comp_info *ci, int32_t u, int32_t v)
{
	return ci->ov ? overlay_reaches(ci->reach, ci->ov, u, v) : reach_query(ci->reach, u, v);
}

/* The k edges f[i] -> t[i] (instruction indices) of computation c over
 * ci->reach; returns 0, or -1 (error reported) when they close a cycle. */
static int overlay_build(struct comp_info *ci, const struct hlo_computation *c, const int32_t *f,
			 const int32_t *t, int32_t k, struct arena *a, struct diag *d)
{
	struct edge_overlay *ov = arena_alloc(a, sizeof(*ov));
	memset(ov, 0, sizeof(*ov));
	ov->k = k;
	ov->f = arena_array(a, (size_t)k + 1, sizeof(int32_t));
	ov->t = arena_array(a, (size_t)k + 1, sizeof(int32_t));
	memcpy(ov->f, f, (size_t)k * sizeof(int32_t));
	memcpy(ov->t, t, (size_t)k * sizeof(int32_t));
	ov->rank_kept = 1;
	for (int32_t i = 0; i < k; i++)
		ov->rank_kept &= reach_rank(ci->reach, f[i]) < reach_rank(ci->reach, t[i]);
	/* clo[i]: the edges j whose source t[i] reaches through one or more
	 * steps "t ->* f, then the edge"; closed transitively (Warshall) */
	for (int32_t i = 0; i < k; i++)
		for (int32_t j = 0; j < k; j++)
			if (node_le(ci->reach, t[i], f[j]))
				ov->clo[i] |= 1ull << j;
	for (int32_t m = 0; m < k; m++)
		for (int32_t i = 0; i < k; i++)
			if (ov->clo[i] >> m & 1)
				ov->clo[i] |= ov->clo[m];
	for (int32_t i = 0; i < k; i++) {
		if (f[i] == t[i] || (ov->clo[i] >> i & 1)) { /* back to its own edge */
			const struct hlo_instruction *x = c->instrs[f[i]];
			error_at(d, x->pos, "dependency cycle through %s in computation %s "
				 "(operand and control-predecessor edges)", x->name, c->name);
			return -1;
		}
		ov->clo[i] |= 1ull << i; /* and zero steps */
	}
	ci->ov = ov;
	return 0;
}

struct ordering *ordering_build_with_edges(const struct ordering *base, int32_t n,
					   const struct hlo_instruction *const *from,
					   const struct hlo_instruction *const *to,
					   const struct hlo_computation *const *rebuild, int32_t n_rebuild,
					   struct arena *a, struct diag *d)
{
	struct diag quiet;
	if (!d) {
		diag_init(&quiet, NULL);
		d = &quiet;
	}
	if (base->kind != ORDER_DEPENDENCY)
		return NULL;
	struct ordering *o = ordering_build_from(base, base->kind, a);
	for (int32_t i = 0; i < n_rebuild; i++) {
		struct comp_info *ci = info(o, rebuild[i]);
		if (!ci)
			return NULL;
		if (ci->reach != base->ci[rebuild[i]->index].reach)
			continue; /* rebuilt already */
		int err = 0;
		ci->reach = build_reach(rebuild[i], a, NULL, d, &err);
		if (err)
			return NULL;
	}
	/* the edges by computation (counting sort), each computation once */
	int32_t nc = o->n_comps;
	int32_t *off = xcalloc((size_t)nc + 2, sizeof(int32_t));
	int32_t *f = xmalloc((size_t)n + 1, sizeof(int32_t)), *t = xmalloc((size_t)n + 1, sizeof(int32_t));
	int ok = 1;
	for (int32_t i = 0; i < n && ok; i++) {
		const struct hlo_computation *c = to[i]->parent;
		ok = info(o, c) && from[i]->parent == c;
		if (ok)
			off[c->index + 1]++;
	}
	for (int32_t c = 0; c < nc && ok; c++)
		off[c + 1] += off[c];
	int32_t *fill = xmalloc((size_t)nc + 1, sizeof(int32_t));
	memcpy(fill, off, (size_t)nc * sizeof(int32_t));
	for (int32_t i = 0; i < n && ok; i++) {
		int32_t c = to[i]->parent->index;
		f[fill[c]] = from[i]->index;
		t[fill[c]++] = to[i]->index;
	}
	for (int32_t c = 0; c < nc && ok; c++) {
		int32_t k = off[c + 1] - off[c];
		struct comp_info *ci = &o->ci[c];
		if (!k || ci->reach != base->ci[c].reach)
			continue; /* none, or built again with the edges */
		int err = 0;
		if (k > OVERLAY_MAX_EDGES)
			ci->reach = build_reach(o->m->comps[c], a, NULL, d, &err);
		else
			err = overlay_build(ci, o->m->comps[c], f + off[c], t + off[c], k, a, d) < 0;
		ok = !err;
	}
	free(off);
	free(fill);
	free(f);
	free(t);
	return ok ? o : NULL;
}

struct ordering *ordering_build(const struct hlo_module *m, enum order_kind kind, struct arena *a)
{
	return ordering_build_ex(m, kind, a, NULL, NULL);
}

enum order_kind ordering_kind(const struct ordering *o)
{
	return o->kind;
}

struct reach_index *ordering_reach_index(const struct ordering *o, const struct hlo_computation *c)
{
	struct comp_info *ci = info(o, c);
	return ci ? ci->reach : NULL;
}

int ordering_is_fusion_computation(const struct ordering *o, const struct hlo_computation *c)
{
	struct comp_info *ci = info(o, c);
	return ci && ci->fusion;
}

/* --- queries --------------------------------------------------------------- */

int ordering_reaches(struct ordering *o, const struct hlo_instruction *a,
		     const struct hlo_instruction *b)
{
	if (a == b || a->parent != b->parent)
		return 0;
	struct comp_info *ci = info(o, a->parent);
	return ci && comp_reaches(ci, a->index, b->index);
}

int ordering_before_in_computation(struct ordering *o, const struct hlo_instruction *a,
				   const struct hlo_instruction *b)
{
	if (a == b || a->parent != b->parent)
		return 0;
	struct comp_info *ci = info(o, a->parent);
	if (!ci)
		return 0;
	if (o->kind == ORDER_DEPENDENCY)
		return comp_reaches(ci, a->index, b->index);
	/* sequential: the root never runs before anything, even if printed early */
	if (!ci->sequenced || a->parent->root == a)
		return 0;
	return a->index < b->index;
}

int32_t ordering_position(const struct ordering *o, const struct hlo_instruction *instr)
{
	struct comp_info *ci = info(o, instr->parent);
	if (!ci)
		return -1;
	if (o->kind == ORDER_SEQUENTIAL)
		return instr->index;
	if (ci->ov && !ci->ov->rank_kept)
		return -1; /* an added edge runs against the index's order */
	return reach_rank(ci->reach, instr->index);
}

int ordering_in_sequence(const struct ordering *o, const struct hlo_instruction *instr)
{
	struct comp_info *ci = info(o, instr->parent);
	return ci && ci->sequenced;
}

const struct hlo_instruction *ordering_next_caller(const struct ordering *o,
						   const struct hlo_instruction *instr)
{
	const struct hlo_computation *c = instr->parent;
	struct comp_info *ci = info(o, c);
	if (!ci || c->n_callers == 0)
		return NULL;
	/* an async computation is called by its start, update and done ops: the
	 * chain continues at the first of them (XLA's first_caller_node_) */
	if (ci->n_sites > 1 && !ci->async)
		return NULL;
	return c->callers[0].instr;
}

int32_t ordering_depth(const struct ordering *o, const struct hlo_computation *c)
{
	struct comp_info *ci = info(o, c);
	return ci ? ci->depth : -1;
}

int ordering_nearest_ancestors(const struct ordering *o, const struct hlo_instruction *a,
			       const struct hlo_instruction *b,
			       const struct hlo_instruction **A, const struct hlo_instruction **B)
{
	*A = *B = NULL;
	if (a->parent == b->parent) {
		*A = a;
		*B = b;
		return 1;
	}
	int32_t da = ordering_depth(o, a->parent), db = ordering_depth(o, b->parent);
	if (da < 0 || db < 0)
		return 0;
	/* as XLA: step the deeper one by the depth difference, then both in
	 * lockstep; every step goes to a caller, so the call graph being acyclic
	 * bounds each walk by the number of computations */
	for (int32_t i = 0; i < da - db; i++)
		if (!(a = ordering_next_caller(o, a)))
			return 0;
	for (int32_t i = 0; i < db - da; i++)
		if (!(b = ordering_next_caller(o, b)))
			return 0;
	for (int32_t i = 0; a && b && i <= o->n_comps; i++) {
		if (a->parent == b->parent) {
			*A = a;
			*B = b;
			return 1;
		}
		a = ordering_next_caller(o, a);
		b = ordering_next_caller(o, b);
	}
	return 0;
}

int ordering_is_nested_in(const struct ordering *o, const struct hlo_instruction *instr,
			  const struct hlo_computation *comp)
{
	struct comp_info *x = info(o, comp), *y = info(o, instr->parent);
	if (!x || !y)
		return 0;
	return x->dom_pre <= y->dom_pre && y->dom_pre < x->dom_end;
}

const struct hlo_computation *ordering_async_wrapped(const struct hlo_instruction *instr)
{
	/* the sugar's calls= is the fused computation, to_apply the reducer */
	if (hlo_async_sugar_embeds(instr))
		return NULL;
	/* -update and -done may be printed without calls=: follow operand 0
	 * back to the async-start of the chain */
	for (int32_t i = 0; instr && is_async_op(instr) && i <= instr->parent->n_instrs; i++) {
		if (instr->n_called > 0)
			return instr->called[0];
		if (instr->opcode == OP_ASYNC_START || instr->n_operands < 1)
			return NULL;
		instr = instr->operands[0];
	}
	return NULL;
}

/* async-start/-update/-done a wraps b: b is the root of a's wrapped computation */
static int async_wraps(const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	const struct hlo_computation *w = is_async_op(a) ? ordering_async_wrapped(a) : NULL;
	return w && w->root == b;
}

enum exec_constraint ordering_constraint(struct ordering *o, const struct hlo_instruction *a,
					 const struct hlo_instruction *b)
{
	if (a == b || async_wraps(a, b) || async_wraps(b, a))
		return EXEC_SAME;
	const struct hlo_instruction *A, *B;
	if (!ordering_nearest_ancestors(o, a, b, &A, &B))
		return EXEC_UNORDERED;

	/* the condition runs before the body */
	if (A == B && A->opcode == OP_WHILE && A->ext->condition && A->ext->body &&
	    ordering_is_nested_in(o, a, A->ext->condition) && ordering_is_nested_in(o, b, A->ext->body))
		return EXEC_RUN_BEFORE_END;

	/* branches are ordered 0, 1, 2... so their buffers can be shared */
	if (A == B && A->opcode == OP_CONDITIONAL) {
		int32_t ab = -1, bb = -1;
		for (int32_t j = 0; j < A->ext->n_branches; j++) {
			if (ordering_is_nested_in(o, a, A->ext->branches[j]))
				ab = j;
			if (ordering_is_nested_in(o, b, A->ext->branches[j]))
				bb = j;
		}
		/* neither in a branch means a and b are both the conditional,
		 * i.e. a == b (XLA CHECKs it), which returned "same" above */
		if (ab >= 0 || bb >= 0) {
			if (bb < 0)
				return EXEC_RUN_BEFORE_END;
			if (ab < 0)
				return EXEC_A_AFTER_B;
			if (ab < bb)
				return EXEC_EXCLUSIVE_BEFORE;
			if (bb < ab)
				return EXEC_EXCLUSIVE_AFTER;
		}
	}

	if (ordering_before_in_computation(o, A, B))
		return EXEC_RUN_BEFORE_START;
	if (ordering_before_in_computation(o, B, A))
		return EXEC_A_AFTER_B;
	return EXEC_UNORDERED;
}

int ordering_executes_before(struct ordering *o, const struct hlo_instruction *a,
			     const struct hlo_instruction *b)
{
	switch (ordering_constraint(o, a, b)) {
	case EXEC_RUN_BEFORE_START:
	case EXEC_RUN_BEFORE_END:
	case EXEC_EXCLUSIVE_BEFORE:
		return 1;
	default:
		return 0;
	}
}
