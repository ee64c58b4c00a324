/* values.c - XLA's HloDataflowAnalysis (SSA form, bitcasts define nothing).
 *
 * Follows xla/hlo/analysis/hlo_dataflow_analysis.cc, hlo_phi_graph.cc and
 * xla/service/hlo_value.cc: define values per opcode, propagate value sets
 * with a priority worklist to a fixpoint (phis at while and conditional
 * joins), optimize the phi graph, then gather positions and uses. */
#include "values.h"
#include "htab.h"
#include "unmodelled.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- small growable int arrays (scratch only, freed before returning) ---- */

struct ivec {
	int32_t *v;
	int32_t n, cap;
};

static void iv_push(struct ivec *a, int32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->v = xrealloc(a->v, (size_t)a->cap, sizeof(int32_t));
	}
	a->v[a->n++] = x;
}

static void iv_free(struct ivec *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* ---- shape trees ---- */

/* The tree of an array shape, shared by every array: read-only (const, in
 * rodata) so modules analysed on different threads share no mutable state;
 * the casts only satisfy shape_tree's non-const members. */
static const int32_t leaf_nk[1] = {-1}, leaf_size[1] = {1}, leaf_parent[1] = {-1},
		     leaf_zero[1] = {0};
static const struct shape_tree leaf_tree = {
	1, (int32_t *)leaf_nk, (int32_t *)leaf_size, (int32_t *)leaf_parent,
	(int32_t *)leaf_zero, (int32_t *)leaf_zero, (int32_t *)leaf_zero, NULL,
};

int32_t shape_tree_sub(const struct shape_tree *t, const int32_t *idx, int32_t n)
{
	int32_t s = 0;
	for (int32_t i = 0; i < n; i++) {
		s = shape_tree_child(t, s, idx[i]);
		if (s < 0)
			return -1;
	}
	return s;
}

int32_t shape_tree_index(const struct shape_tree *t, int32_t sub, int32_t *idx)
{
	int32_t d = t->depth[sub];
	for (int32_t k = d - 1; k >= 0; k--) {
		idx[k] = t->elem[sub];
		sub = t->parent[sub];
	}
	return d;
}

struct tree_table {
	struct htab first;               /* content hash -> index of the first tree with it */
	const struct shape_tree **trees; /* by index: leaf_tree, then the tuple trees */
	int32_t *next;                   /* by index: the next tree of the same hash, or 0 */
	int32_t cap_trees;
};

static void serialize_shape(const struct shape *s, struct ivec *out, int depth)
{
	if (!shape_is_tuple(s) || depth > SHAPE_MAX_DEPTH) {
		iv_push(out, -1);
		return;
	}
	iv_push(out, s->n_elems);
	for (int32_t i = 0; i < s->n_elems; i++)
		serialize_shape(&s->elems[i], out, depth + 1);
}

static uint64_t hash_ints(const int32_t *v, int32_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (int32_t i = 0; i < n; i++) {
		h ^= (uint32_t)v[i];
		h *= 1099511628211ull;
	}
	return h;
}

static const struct shape_tree *tree_from_nk(struct arena *a, const int32_t *nk, int32_t n)
{
	struct shape_tree *t = arena_alloc(a, sizeof(*t));
	t->n = n;
	t->nk = arena_array(a, (size_t)n, sizeof(int32_t));
	memcpy(t->nk, nk, (size_t)n * sizeof(int32_t));
	t->size = arena_array(a, (size_t)n, sizeof(int32_t));
	t->parent = arena_array(a, (size_t)n, sizeof(int32_t));
	t->elem = arena_array(a, (size_t)n, sizeof(int32_t));
	t->depth = arena_array(a, (size_t)n, sizeof(int32_t));
	t->kid_off = arena_array(a, (size_t)n, sizeof(int32_t));
	t->kids = arena_array(a, (size_t)n, sizeof(int32_t));
	/* stack of open tuples: (sub, children seen) */
	int32_t stack_sub[SHAPE_MAX_DEPTH + 2], stack_seen[SHAPE_MAX_DEPTH + 2], sp = 0, off = 0;
	for (int32_t s = 0; s < n; s++) {
		while (sp > 0 && stack_seen[sp - 1] == nk[stack_sub[sp - 1]])
			sp--;
		if (sp > 0) {
			int32_t p = stack_sub[sp - 1];
			t->parent[s] = p;
			t->elem[s] = stack_seen[sp - 1]++;
			t->kids[t->kid_off[p] + t->elem[s]] = s;
		} else {
			t->parent[s] = -1;
			t->elem[s] = 0;
		}
		t->depth[s] = sp;
		t->kid_off[s] = off;
		if (nk[s] >= 0) {
			off += nk[s];
			if (sp < SHAPE_MAX_DEPTH + 1) {
				stack_sub[sp] = s;
				stack_seen[sp] = 0;
				sp++;
			}
		}
	}
	for (int32_t s = n - 1; s >= 0; s--) {
		int32_t sz = 1;
		for (int32_t i = 0; i < (nk[s] > 0 ? nk[s] : 0); i++)
			sz += t->size[t->kids[t->kid_off[s] + i]];
		t->size[s] = sz;
	}
	return t;
}

/* The index of s's tree in tt->trees (0: an array's). */
static int32_t intern_tree(struct tree_table *tt, struct arena *a, const struct shape *s,
			   struct ivec *scratch, int32_t *n_trees)
{
	if (!s || !shape_is_tuple(s))
		return 0;
	scratch->n = 0;
	serialize_shape(s, scratch, 0);
	uint64_t h = hash_ints(scratch->v, scratch->n);
	int added;
	uint64_t *first = htab_put(&tt->first, h, &added);
	int32_t last = 0;
	for (int32_t k = added ? 0 : (int32_t)*first; k > 0; k = tt->next[k]) {
		const struct shape_tree *t = tt->trees[k];
		if (t->n == scratch->n && !memcmp(t->nk, scratch->v, (size_t)t->n * sizeof(int32_t)))
			return k;
		last = k;
	}
	const struct shape_tree *t = tree_from_nk(a, scratch->v, scratch->n);
	int32_t idx = ++*n_trees;
	if (idx >= tt->cap_trees) {
		tt->cap_trees = 2 * idx;
		tt->trees = xrealloc(tt->trees, (size_t)tt->cap_trees, sizeof(*tt->trees));
		tt->next = xrealloc(tt->next, (size_t)tt->cap_trees, sizeof(*tt->next));
	}
	tt->trees[idx] = t;
	tt->next[idx] = 0;
	if (last)
		tt->next[last] = idx;
	else
		*first = (uint64_t)idx;
	return idx;
}

/* Do the subtrees at sa in a and sb in b have the same tuple structure? */
static int subtree_equal(const struct shape_tree *a, int32_t sa, const struct shape_tree *b,
			 int32_t sb)
{
	if (sa < 0 || sb < 0 || a->size[sa] != b->size[sb])
		return 0;
	if (a == b && sa == sb)
		return 1;
	return !memcmp(a->nk + sa, b->nk + sb, (size_t)a->size[sa] * sizeof(int32_t));
}

/* ---- async helpers ---- */

int opcode_is_async(enum opcode op)
{
	return op == OP_ASYNC_START || op == OP_ASYNC_UPDATE || op == OP_ASYNC_DONE;
}

struct hlo_computation *async_wrapped_computation(const struct hlo_instruction *i)
{
	/* the sugar's calls= is the fused computation, to_apply the reducer */
	if (hlo_async_sugar_embeds(i))
		return NULL;
	/* bounded by the number of instructions in the chain */
	for (int32_t guard = 0; i && guard < HLO_MAX_INSTRUCTIONS; guard++) {
		if (i->ext->calls)
			return i->ext->calls;
		if (i->opcode == OP_ASYNC_START)
			return i->n_called > 0 ? i->called[0] : NULL;
		if ((i->opcode != OP_ASYNC_UPDATE && i->opcode != OP_ASYNC_DONE) || i->n_operands < 1)
			return NULL;
		i = i->operands[0];
	}
	return NULL;
}

/* The phi nodes' arrays (operands, users, values), many and small: carved
 * from chunks freed together, a grown array's old place left behind. A
 * malloc each was a third of the mallocs of a small module's check, and
 * under --jobs every one takes the heap's lock. */
struct ipool_chunk {
	struct ipool_chunk *next;
	size_t used, cap;
	int32_t v[];
};

static int32_t *ipool_alloc(struct ipool_chunk **head, int32_t n)
{
	struct ipool_chunk *c = *head;
	if (!c || c->cap - c->used < (size_t)n) {
		size_t cap = (size_t)n > ((size_t)1 << 14) ? (size_t)n : ((size_t)1 << 14);
		c = xmalloc(sizeof(*c) + cap * sizeof(int32_t), 1);
		c->next = *head;
		c->used = 0;
		c->cap = cap;
		*head = c;
	}
	int32_t *v = c->v + c->used;
	c->used += (size_t)n;
	return v;
}

static void ipool_free(struct ipool_chunk *c)
{
	while (c) {
		struct ipool_chunk *next = c->next;
		free(c);
		c = next;
	}
}

static void node_push(struct ipool_chunk **pool, struct ivec *a, int32_t x)
{
	if (a->n == a->cap) {
		if (a->cap > INT32_MAX / 2)
			die("too many phi operands");
		int32_t cap = a->cap ? 2 * a->cap : 4;
		int32_t *v = ipool_alloc(pool, cap);
		if (a->n)
			memcpy(v, a->v, (size_t)a->n * sizeof(int32_t));
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
}

/* ---- the analysis state ---- */

struct phi_node {
	int32_t value_id;
	uint8_t is_phi, dead;
	struct ivec operands, users, vids;
};

struct build {
	struct dataflow *df;
	struct arena *a;
	struct diag *d;
	int failed;
	/* values while building: ids with holes for deleted phis */
	struct hlo_value *vals;
	uint8_t *deleted;
	int32_t n_vals, cap_vals;
	/* phi graph */
	struct phi_node *nodes;
	int32_t n_nodes, cap_nodes;
	int32_t *node_of; /* [value id] -> node, -1 */
	/* worklist: binary heap of gids (priority = gid: callees and operands first) */
	int32_t *heap;
	int32_t n_heap;
	uint8_t *in_work;
	struct ivec scratch;
	struct ipool_chunk *pool; /* the phi nodes' arrays */
};

static void fail_at(struct build *b, const struct hlo_instruction *i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail_at(struct build *b, const struct hlo_instruction *i, const char *fmt, ...)
{
	if (!b->failed) {
		va_list ap;
		va_start(ap, fmt);
		verror_at(b->d, i->pos, fmt, ap);
		va_end(ap);
	}
	b->failed = 1;
}

static int32_t new_value(struct build *b, struct hlo_instruction *def, int32_t sub, int is_phi)
{
	if (b->n_vals == b->cap_vals) {
		b->cap_vals = b->cap_vals ? 2 * b->cap_vals : 1024;
		b->vals = heap_realloc_huge(b->vals, (size_t)b->cap_vals, sizeof(*b->vals));
		b->deleted = heap_realloc_huge(b->deleted, (size_t)b->cap_vals, 1);
		b->node_of = heap_realloc_huge(b->node_of, (size_t)b->cap_vals, sizeof(int32_t));
	}
	int32_t id = b->n_vals++;
	memset(&b->vals[id], 0, sizeof(b->vals[id]));
	b->vals[id].id = id;
	b->vals[id].def = def;
	b->vals[id].sub = (uint32_t)sub;
	b->vals[id].is_phi = is_phi != 0;
	b->deleted[id] = 0;
	b->node_of[id] = -1;
	return id;
}

/* ---- value sets ---- */

static int set_equal_ids(const struct value_set *s, const int32_t *ids, int32_t n)
{
	return s->n == n && (n == 0 || !memcmp(value_set_ids(s), ids, (size_t)n * sizeof(int32_t)));
}

/* Replace s by sorted unique ids; returns 1 when it changed. */
static int set_assign_ids(struct build *b, struct value_set *s, const int32_t *ids, int32_t n)
{
	if (set_equal_ids(s, ids, n))
		return 0;
	if (n <= 1) {
		if (s->many) {
			/* keep the storage for later growth */
			s->many[0] = n ? ids[0] : 0;
			s->n = n;
			if (n == 0) {
				/* an empty set with storage: still fine, n says 0 */
			}
			return 1;
		}
		s->n = n;
		s->one_or_cap = n ? ids[0] : 0;
		return 1;
	}
	if (!s->many || s->one_or_cap < n) {
		int32_t cap = n < 4 ? 4 : n;
		s->many = arena_array(b->a, (size_t)cap, sizeof(int32_t));
		s->one_or_cap = cap;
	}
	memmove(s->many, ids, (size_t)n * sizeof(int32_t));
	s->n = n;
	return 1;
}

static int set_assign(struct build *b, struct value_set *dst, const struct value_set *src)
{
	if (dst == src)
		return 0;
	/* src storage stays valid: it is another set's */
	return set_assign_ids(b, dst, value_set_ids(src), src->n);
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, c = *(const int32_t *)y;
	return (a > c) - (a < c);
}

static int32_t sort_unique(int32_t *v, int32_t n)
{
	if (n < 2)
		return n;
	qsort(v, (size_t)n, sizeof(int32_t), cmp_i32);
	int32_t k = 1;
	for (int32_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* dst = union of the sets given. */
static int set_assign_union(struct build *b, struct value_set *dst, const struct value_set **in,
			    int n_in)
{
	struct ivec *sc = &b->scratch;
	sc->n = 0;
	for (int k = 0; k < n_in; k++) {
		const int32_t *ids = value_set_ids(in[k]);
		for (int32_t i = 0; i < in[k]->n; i++)
			iv_push(sc, ids[i]);
	}
	sc->n = sort_unique(sc->v, sc->n);
	return set_assign_ids(b, dst, sc->v, sc->n);
}

static struct value_set *df_set(struct dataflow *df, int32_t g, int32_t sub)
{
	return &df->sets[df->set_off[g] + sub];
}

static const struct shape_tree *df_tree(const struct dataflow *df, int32_t g)
{
	return df->trees[df->tree_of[g]];
}

static struct value_set *set_at(struct build *b, const struct hlo_instruction *i, int32_t sub)
{
	return df_set(b->df, i->gid, sub);
}

static const struct shape_tree *tree_of(struct build *b, const struct hlo_instruction *i)
{
	return df_tree(b->df, i->gid);
}

/* Forward the subtree at (src, ssub) into (dst, dsub), every sub of it
 * (mode 0), only array leaves (mode 1), or all but the subtree's top (mode 2). */
enum { FWD_ALL = 0, FWD_LEAVES = 1, FWD_NESTED = 2 };

static int forward(struct build *b, struct hlo_instruction *dst, int32_t dsub,
		   const struct hlo_instruction *src, int32_t ssub, int mode)
{
	const struct shape_tree *td = tree_of(b, dst), *ts = tree_of(b, src);
	if (!subtree_equal(td, dsub, ts, ssub)) {
		fail_at(b, dst, "tuple structure of '%s' does not match what it forwards from '%s'",
			dst->name, src->name);
		return 0;
	}
	int changed = 0;
	int32_t n = td->size[dsub];
	for (int32_t k = 0; k < n; k++) {
		if (mode == FWD_LEAVES && td->nk[dsub + k] >= 0)
			continue;
		if (mode == FWD_NESTED && k == 0)
			continue;
		changed |= set_assign(b, set_at(b, dst, dsub + k), set_at(b, src, ssub + k));
	}
	return changed;
}

static int32_t sub_of(struct build *b, const struct hlo_instruction *i, const int32_t *idx,
		      int32_t n)
{
	return shape_tree_sub(tree_of(b, i), idx, n);
}

static int32_t sub1(struct build *b, const struct hlo_instruction *i, int32_t a)
{
	return sub_of(b, i, &a, 1);
}

static int32_t sub2(struct build *b, const struct hlo_instruction *i, int32_t a, int32_t c)
{
	int32_t idx[2] = {a, c};
	return sub_of(b, i, idx, 2);
}

/* ---- phi graph (hlo_phi_graph.cc) ---- */

static int32_t phi_node_for(struct build *b, int32_t vid)
{
	if (b->node_of[vid] >= 0)
		return b->node_of[vid];
	if (b->n_nodes == b->cap_nodes) {
		b->cap_nodes = b->cap_nodes ? 2 * b->cap_nodes : 64;
		b->nodes = heap_realloc_huge(b->nodes, (size_t)b->cap_nodes, sizeof(*b->nodes));
	}
	int32_t k = b->n_nodes++;
	memset(&b->nodes[k], 0, sizeof(b->nodes[k]));
	b->nodes[k].value_id = vid;
	node_push(&b->pool, &b->nodes[k].vids, vid);
	b->node_of[vid] = k;
	return k;
}

static void register_phi(struct build *b, int32_t phi, const int32_t *in, int32_t n)
{
	int32_t k = phi_node_for(b, phi);
	b->nodes[k].is_phi = 1;
	b->nodes[k].operands.n = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t o = phi_node_for(b, in[i]);
		node_push(&b->pool, &b->nodes[k].operands, o);
	}
}

static int phi_inputs_equal(struct build *b, int32_t phi, const int32_t *in, int32_t n)
{
	struct phi_node *node = &b->nodes[b->node_of[phi]];
	/* set equality of node operand value ids and the new input ids */
	for (int32_t i = 0; i < node->operands.n; i++) {
		int32_t v = b->nodes[node->operands.v[i]].value_id, found = 0;
		for (int32_t j = 0; j < n && !found; j++)
			found = in[j] == v;
		if (!found)
			return 0;
	}
	for (int32_t j = 0; j < n; j++) {
		int32_t found = 0;
		for (int32_t i = 0; i < node->operands.n && !found; i++)
			found = b->nodes[node->operands.v[i]].value_id == in[j];
		if (!found)
			return 0;
	}
	return 1;
}

static void iv_replace(struct ivec *a, int32_t from, int32_t to)
{
	for (int32_t i = 0; i < a->n; i++)
		if (a->v[i] == from)
			a->v[i] = to;
}

static void iv_remove_all(struct ivec *a, int32_t x)
{
	int32_t k = 0;
	for (int32_t i = 0; i < a->n; i++)
		if (a->v[i] != x)
			a->v[k++] = a->v[i];
	a->n = k;
}

static void phi_replace_node(struct build *b, int32_t node, int32_t repl)
{
	struct phi_node *n = &b->nodes[node];
	for (int32_t i = 0; i < n->users.n; i++)
		iv_replace(&b->nodes[n->users.v[i]].operands, node, repl);
	for (int32_t i = 0; i < n->operands.n; i++)
		iv_replace(&b->nodes[n->operands.v[i]].users, node, repl);
	for (int32_t i = 0; i < n->vids.n; i++) {
		b->node_of[n->vids.v[i]] = repl;
		node_push(&b->pool, &b->nodes[repl].vids, n->vids.v[i]);
	}
	n = &b->nodes[node]; /* node_push may not move nodes, but be plain */
	n->vids.n = 0;
	n->dead = 1;
}

static void phi_optimize(struct build *b)
{
	for (int32_t k = 0; k < b->n_nodes; k++)
		for (int32_t i = 0; i < b->nodes[k].operands.n; i++)
			node_push(&b->pool, &b->nodes[b->nodes[k].operands.v[i]].users, k);
	uint8_t *checked = xcalloc((size_t)b->n_nodes + 1, 1);
	uint8_t *inset = xcalloc((size_t)b->n_nodes + 1, 1);
	struct ivec work = {0}, members = {0};
	int changed = 1;
	/* each round replaces at least one live phi node, so rounds <= nodes + 1 */
	for (int32_t round = 0; changed && round <= b->n_nodes; round++) {
		changed = 0;
		memset(checked, 0, (size_t)b->n_nodes);
		for (int32_t k = 0; k < b->n_nodes; k++) {
			struct phi_node *n = &b->nodes[k];
			if (!n->is_phi || n->dead)
				continue;
			iv_remove_all(&n->operands, k);
			iv_remove_all(&n->users, k);
			if (n->operands.n == 0)
				continue; /* only self references: nothing to collapse to */
			int same = 1;
			for (int32_t i = 1; i < n->operands.n && same; i++)
				same = n->operands.v[i] == n->operands.v[0];
			if (same) {
				phi_replace_node(b, k, n->operands.v[0]);
				changed = 1;
				continue;
			}
			if (checked[k])
				continue;
			/* BFS over operands for a closure of phis reaching one non-phi */
			work.n = members.n = 0;
			int32_t non_phi = -1, head = 0;
			iv_push(&work, k);
			while (head < work.n) {
				int32_t t = work.v[head++];
				if (inset[t])
					continue;
				checked[t] = 1;
				inset[t] = 1;
				iv_push(&members, t);
				for (int32_t i = 0; i < b->nodes[t].operands.n; i++)
					iv_push(&work, b->nodes[t].operands.v[i]);
				if (!b->nodes[t].is_phi) {
					if (non_phi >= 0 && non_phi != t) {
						non_phi = -1;
						break;
					}
					non_phi = t;
				}
			}
			for (int32_t i = 0; i < members.n; i++)
				inset[members.v[i]] = 0;
			if (non_phi >= 0) {
				for (int32_t i = 0; i < members.n; i++) {
					if (!b->nodes[members.v[i]].is_phi)
						continue;
					phi_replace_node(b, members.v[i], non_phi);
					changed = 1;
				}
			}
		}
	}
	free(checked);
	free(inset);
	iv_free(&work);
	iv_free(&members);
}

/* Phi(instruction, inputs) of hlo_dataflow_analysis.cc: inputs are whole
 * instruction value sets with the instruction's tree. */
static int phi(struct build *b, struct hlo_instruction *instr,
	       struct hlo_instruction *const *in, int n_in)
{
	const struct shape_tree *t = tree_of(b, instr);
	for (int k = 0; k < n_in; k++) {
		if (tree_of(b, in[k]) != t) {
			fail_at(b, instr, "tuple structure of '%s' does not match its input '%s'",
				instr->name, in[k]->name);
			return 0;
		}
	}
	int changed = 0;
	struct ivec ids = {0};
	for (int32_t s = 0; s < t->n; s++) {
		struct value_set *vs = set_at(b, instr, s);
		int32_t cur = vs->n == 1 ? value_set_ids(vs)[0] : -1;
		ids.n = 0;
		for (int k = 0; k < n_in; k++) {
			const struct value_set *is = set_at(b, in[k], s);
			for (int32_t i = 0; i < is->n; i++)
				iv_push(&ids, value_set_ids(is)[i]);
		}
		int cur_here = cur >= 0 && b->vals[cur].def == instr && b->vals[cur].sub == s;
		if (ids.n == 0)
			continue;
		if (ids.n == 1) {
			int32_t nv = ids.v[0];
			if (cur != nv) {
				if (cur >= 0 && cur_here)
					b->deleted[cur] = 1;
				set_assign_ids(b, vs, &nv, 1);
				changed = 1;
			}
			continue;
		}
		int phi_here = cur_here && b->vals[cur].is_phi;
		if (cur < 0 || !phi_here) {
			int32_t p = new_value(b, instr, s, 1);
			set_assign_ids(b, set_at(b, instr, s), &p, 1);
			register_phi(b, p, ids.v, ids.n);
			changed = 1;
		} else if (!phi_inputs_equal(b, cur, ids.v, ids.n)) {
			register_phi(b, cur, ids.v, ids.n);
			changed = 1;
		}
	}
	iv_free(&ids);
	return changed;
}

/* ---- per-opcode update rules ---- */

static int update_parameter(struct build *b, struct hlo_instruction *p)
{
	struct hlo_computation *c = p->parent;
	if (c->context != CALL_CONTROL_FLOW || c->n_callers == 0)
		return 0;
	struct hlo_instruction *in[8];
	struct hlo_instruction **inputs = in;
	int n = 0, need_phi = 0, cap = 8, changed = 0;
	int64_t k = p->parameter_number;
	for (int32_t cs = 0; cs < c->n_callers && !b->failed; cs++) {
		struct hlo_instruction *call = c->callers[cs].instr;
		struct hlo_instruction *add[2] = {NULL, NULL};
		switch (call->opcode) {
		case OP_CALL:
		case OP_ASYNC_START:
			if (k < 0 || k >= call->n_operands) {
				fail_at(b, p, "parameter '%s' has no operand at its caller '%s'", p->name,
					call->name);
				break;
			}
			add[0] = call->operands[k];
			break;
		case OP_WHILE:
			if (k != 0 || call->n_operands < 1 || !call->ext->body) {
				fail_at(b, p, "while parameter '%s' must be parameter 0 of '%s'", p->name,
					call->name);
				break;
			}
			add[0] = call->operands[0];
			if (p != call->ext->body->root)
				add[1] = call->ext->body->root;
			need_phi = 1;
			break;
		case OP_CONDITIONAL: {
			int found = 0;
			for (int32_t j = 0; j < call->ext->n_branches; j++) {
				if (call->ext->branches[j] == c && j + 1 < call->n_operands) {
					add[0] = call->operands[j + 1];
					found = 1;
					break;
				}
			}
			if (k != 0 || !found)
				fail_at(b, p, "branch parameter '%s' has no operand at '%s'", p->name,
					call->name);
			need_phi = 1;
			break;
		}
		case OP_ASYNC_UPDATE:
		case OP_ASYNC_DONE: {
			/* replace by the operand's {0, k} subtree */
			if (call->n_operands < 1)
				break;
			int32_t src = sub2(b, call->operands[0], 0, (int32_t)k);
			if (src < 0) {
				fail_at(b, p, "async parameter '%s' has no operand element at '%s'",
					p->name, call->name);
				break;
			}
			changed = forward(b, p, 0, call->operands[0], src, FWD_ALL);
			if (inputs != in)
				free(inputs);
			return changed;
		}
		default:
			fail_at(b, p, "computation of parameter '%s' is called by '%s' as control flow",
				p->name, call->name);
			break;
		}
		for (int q = 0; q < 2; q++) {
			if (!add[q])
				continue;
			if (n == cap) {
				struct hlo_instruction **ni = xmalloc(2 * (size_t)cap, sizeof(*ni));
				memcpy(ni, inputs, (size_t)n * sizeof(*ni));
				if (inputs != in)
					free(inputs);
				inputs = ni;
				cap *= 2;
			}
			inputs[n++] = add[q];
		}
	}
	if (!b->failed && n > 0) {
		if (need_phi) {
			changed = phi(b, p, inputs, n);
		} else {
			const struct shape_tree *t = tree_of(b, p);
			for (int q = 0; q < n; q++)
				if (tree_of(b, inputs[q]) != t)
					fail_at(b, p, "tuple structure of '%s' does not match operand '%s'",
						p->name, inputs[q]->name);
			const struct value_set *one[1];
			const struct value_set **ins = n <= 1 ? one : xmalloc((size_t)n, sizeof(*ins));
			for (int32_t s = 0; s < t->n && !b->failed; s++) {
				for (int q = 0; q < n; q++)
					ins[q] = set_at(b, inputs[q], s);
				changed |= set_assign_union(b, set_at(b, p, s), ins, n);
			}
			if (ins != one)
				free(ins);
		}
	}
	if (inputs != in)
		free(inputs);
	return changed;
}

static int update_tuple(struct build *b, struct hlo_instruction *t)
{
	const struct shape_tree *tr = tree_of(b, t);
	if (tr->nk[0] != t->n_operands) {
		fail_at(b, t, "tuple '%s' has a shape that does not match its operands", t->name);
		return 0;
	}
	int changed = 0;
	for (int32_t i = 0; i < t->n_operands && !b->failed; i++)
		changed |= forward(b, t, shape_tree_child(tr, 0, i), t->operands[i], 0, FWD_ALL);
	return changed;
}

static int update_async_start(struct build *b, struct hlo_instruction *i)
{
	int changed = 0;
	for (int32_t k = 0; k < i->n_operands && !b->failed; k++) {
		int32_t d = sub2(b, i, 0, k);
		if (d < 0) {
			fail_at(b, i, "'%s' has no output element {0,%d} for operand %d", i->name, (int)k, (int)k);
			return 0;
		}
		changed |= forward(b, i, d, i->operands[k], 0, FWD_LEAVES);
	}
	struct hlo_computation *w = async_wrapped_computation(i);
	if (!w || !w->root || b->failed)
		return changed;
	int32_t d = sub1(b, i, 1);
	if (d < 0) {
		fail_at(b, i, "'%s' has no output element {1}", i->name);
		return changed;
	}
	return changed | forward(b, i, d, w->root, 0, FWD_LEAVES);
}

static int update_async_update(struct build *b, struct hlo_instruction *i)
{
	if (i->n_operands < 1)
		return 0;
	struct hlo_instruction *op = i->operands[0];
	const struct shape_tree *t = tree_of(b, i);
	if (tree_of(b, op) != t) {
		fail_at(b, i, "tuple structure of '%s' does not match its operand '%s'", i->name,
			op->name);
		return 0;
	}
	struct hlo_computation *w = async_wrapped_computation(i);
	struct hlo_instruction *root = w ? w->root : NULL;
	int32_t out1 = sub1(b, i, 1);
	if (root && out1 >= 0 && !subtree_equal(t, out1, tree_of(b, root), 0)) {
		fail_at(b, i, "output {1} of '%s' does not match the wrapped root '%s'", i->name,
			root->name);
		return 0;
	}
	int changed = 0;
	for (int32_t s = 0; s < t->n; s++) {
		if (t->nk[s] >= 0)
			continue;
		const struct value_set *ov = set_at(b, op, s);
		if (root && out1 >= 0 && s >= out1 && s < out1 + t->size[out1]) {
			const struct value_set *in[2] = {ov, set_at(b, root, s - out1)};
			changed |= set_assign_union(b, set_at(b, i, s), in, 2);
		} else {
			changed |= set_assign(b, set_at(b, i, s), ov);
		}
	}
	return changed;
}

static int update_async_done(struct build *b, struct hlo_instruction *i)
{
	if (i->n_operands < 1)
		return 0;
	struct hlo_instruction *op = i->operands[0];
	int32_t o1 = sub1(b, op, 1);
	if (o1 < 0) {
		fail_at(b, i, "operand of '%s' has no element {1}", i->name);
		return 0;
	}
	const struct shape_tree *t = tree_of(b, i), *to = tree_of(b, op);
	if (!subtree_equal(t, 0, to, o1)) {
		fail_at(b, i, "shape of '%s' does not match element {1} of '%s'", i->name, op->name);
		return 0;
	}
	struct hlo_computation *w = async_wrapped_computation(i);
	struct hlo_instruction *root = w ? w->root : NULL;
	if (root && tree_of(b, root) != t) {
		fail_at(b, i, "shape of '%s' does not match the wrapped root '%s'", i->name,
			root->name);
		return 0;
	}
	int changed = 0;
	for (int32_t s = 0; s < t->n; s++) {
		if (t->nk[s] >= 0)
			continue;
		const struct value_set *ov = set_at(b, op, o1 + s);
		if (root) {
			const struct value_set *in[2] = {ov, set_at(b, root, s)};
			changed |= set_assign_union(b, set_at(b, i, s), in, 2);
		} else {
			changed |= set_assign(b, set_at(b, i, s), ov);
		}
	}
	return changed;
}

static int update_collective_permute_start(struct build *b, struct hlo_instruction *i)
{
	int changed = 0;
	int inplace = i->n_operands == 4;
	if (!inplace && i->n_operands > 1) {
		for (int32_t k = 0; k < i->n_operands && !b->failed; k++) {
			int32_t d = sub2(b, i, 0, k);
			if (d < 0)
				fail_at(b, i, "'%s' has no output element for operand '%s'", i->name,
					i->operands[k]->name);
			else
				changed |= set_assign(b, set_at(b, i, d), set_at(b, i->operands[k], 0));
		}
		return changed;
	}
	if (i->n_operands < 1)
		return 0;
	struct hlo_instruction *op = i->operands[0];
	const struct shape_tree *to = tree_of(b, op);
	if (to->nk[0] >= 0) {
		for (int32_t k = 0; k < to->nk[0] && !b->failed; k++) {
			int32_t d = sub2(b, i, 0, k);
			if (d < 0)
				fail_at(b, i, "'%s' has no output element for operand '%s'", i->name,
					op->name);
			else
				changed |= set_assign(b, set_at(b, i, d),
						      set_at(b, op, shape_tree_child(to, 0, k)));
		}
		return changed;
	}
	int32_t d = sub1(b, i, 0);
	if (d < 0) {
		fail_at(b, i, "'%s' has no output element {0}", i->name);
		return 0;
	}
	return set_assign(b, set_at(b, i, d), set_at(b, op, 0));
}

static struct hlo_computation *call_target(const struct hlo_instruction *i)
{
	return i->to_apply ? i->to_apply : (i->n_called > 0 ? i->called[0] : NULL);
}

static int update(struct build *b, struct hlo_instruction *i)
{
	const struct shape_tree *t = tree_of(b, i);
	struct hlo_instruction *op0 = i->n_operands > 0 ? i->operands[0] : NULL;
	switch ((enum opcode)i->opcode) {
	case OP_BITCAST:
	case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
	case OP_OPTIMIZATION_BARRIER:
	case OP_ALL_REDUCE_DONE:
		return op0 ? forward(b, i, 0, op0, 0, FWD_ALL) : 0;
	case OP_COPY:
		return op0 ? forward(b, i, 0, op0, 0, FWD_NESTED) : 0;
	case OP_GET_TUPLE_ELEMENT: {
		if (!op0)
			return 0;
		int64_t ti = i->tuple_index;
		int32_t s = ti < 0 || ti > INT32_MAX ? -1
			    : shape_tree_child(tree_of(b, op0), 0, (int32_t)ti);
		if (s < 0) {
			fail_at(b, i, "get-tuple-element '%s' index is out of range of '%s'", i->name,
				op0->name);
			return 0;
		}
		return forward(b, i, 0, op0, s, FWD_ALL);
	}
	case OP_TUPLE:
		return update_tuple(b, i);
	case OP_PARAMETER:
		return update_parameter(b, i);
	case OP_CALL: {
		struct hlo_computation *c = call_target(i);
		if (!c || !c->root)
			return 0;
		if (tree_of(b, c->root) != t) {
			fail_at(b, i, "shape of call '%s' does not match its callee root '%s'", i->name,
				c->root->name);
			return 0;
		}
		return forward(b, i, 0, c->root, 0, FWD_ALL);
	}
	case OP_WHILE: {
		if (!op0 || !i->ext->body || !i->ext->body->root)
			return 0;
		struct hlo_instruction *in[2] = {i->ext->body->root, op0};
		return phi(b, i, in, 2);
	}
	case OP_CONDITIONAL: {
		if (i->ext->n_branches <= 0)
			return 0;
		struct hlo_instruction **in = xmalloc((size_t)i->ext->n_branches, sizeof(*in));
		int n = 0;
		for (int32_t j = 0; j < i->ext->n_branches; j++)
			if (i->ext->branches[j] && i->ext->branches[j]->root)
				in[n++] = i->ext->branches[j]->root;
		int changed = n ? phi(b, i, in, n) : 0;
		free(in);
		return changed;
	}
	case OP_SEND: {
		int32_t d = sub1(b, i, 0);
		if (!op0 || d < 0)
			return 0;
		return forward(b, i, d, op0, 0, FWD_ALL);
	}
	case OP_RECV_DONE: {
		int32_t d = sub1(b, i, 0);
		int32_t s = op0 ? sub1(b, op0, 0) : -1;
		if (d < 0 || s < 0)
			return 0;
		return forward(b, i, d, op0, s, FWD_ALL);
	}
	case OP_COPY_START: {
		int32_t d = sub1(b, i, 1);
		if (!op0 || d < 0)
			return 0;
		return set_assign(b, set_at(b, i, d), set_at(b, op0, 0));
	}
	case OP_COPY_DONE: {
		int32_t s = op0 ? sub1(b, op0, 0) : -1;
		if (s < 0)
			return 0;
		return set_assign(b, set_at(b, i, 0), set_at(b, op0, s));
	}
	case OP_ASYNC_START:
		return update_async_start(b, i);
	case OP_ASYNC_UPDATE:
		return update_async_update(b, i);
	case OP_ASYNC_DONE:
		return update_async_done(b, i);
	case OP_ALL_GATHER_START: {
		int changed = 0;
		for (int32_t k = 0; k < i->n_operands; k++) {
			int32_t d = i->n_operands > 1 ? sub2(b, i, 0, k) : sub1(b, i, 0);
			if (d >= 0)
				changed |= set_assign(b, set_at(b, i, d), set_at(b, i->operands[k], 0));
		}
		return changed;
	}
	case OP_ALL_GATHER_DONE:
	case OP_COLLECTIVE_PERMUTE_DONE: {
		int32_t s1 = op0 ? sub1(b, op0, 1) : -1;
		if (s1 < 0)
			return 0;
		const struct shape_tree *to = tree_of(b, op0);
		int changed = 0;
		if (i->opcode == OP_COLLECTIVE_PERMUTE_DONE) {
			if (t->nk[0] >= 0) {
				for (int32_t k = 0; k < t->nk[0]; k++) {
					int32_t s = shape_tree_child(to, s1, k);
					if (s >= 0)
						changed |= set_assign(b, set_at(b, i, shape_tree_child(t, 0, k)),
								      set_at(b, op0, s));
				}
				return changed;
			}
			return set_assign(b, set_at(b, i, 0), set_at(b, op0, s1));
		}
		if (!subtree_equal(t, 0, to, s1)) {
			fail_at(b, i, "shape of '%s' does not match element {1} of '%s'", i->name,
				op0->name);
			return 0;
		}
		return forward(b, i, 0, op0, s1, FWD_LEAVES);
	}
	case OP_COLLECTIVE_PERMUTE_START:
		return update_collective_permute_start(b, i);
	default:
		return 0;
	}
}

/* ---- value definition (InitializeInstructionValueSets) ---- */

static void define_at(struct build *b, struct hlo_instruction *i, int32_t s)
{
	if (s < 0)
		return;
	int32_t v = new_value(b, i, s, 0);
	set_assign_ids(b, set_at(b, i, s), &v, 1);
}

static void define_values(struct build *b, struct hlo_instruction *i)
{
	const struct shape_tree *t = tree_of(b, i);
	switch ((enum opcode)i->opcode) {
	case OP_BITCAST:
	case OP_ADD_DEPENDENCY:
	case OP_WHILE:
	case OP_CALL:
	case OP_CONDITIONAL:
	case OP_GET_TUPLE_ELEMENT:
	case OP_DOMAIN:
	case OP_OPTIMIZATION_BARRIER:
	case OP_COPY_DONE:
	case OP_ALL_REDUCE_DONE:
		return;
	case OP_PARAMETER: {
		struct hlo_computation *c = i->parent;
		if (c->context == CALL_BOTH) {
			fail_at(b, i, "computation of '%s' is called in both a parallel and a sequential context",
				c->name);
			return;
		}
		if (c->n_callers == 0 || c->context == CALL_EMBEDDED || c->context == CALL_NONE)
			for (int32_t s = 0; s < t->n; s++)
				define_at(b, i, s);
		return;
	}
	case OP_COPY:
	case OP_TUPLE:
		define_at(b, i, 0);
		return;
	case OP_ASYNC_START: {
		int included = async_wrapped_computation(i) != NULL;
		for (int32_t s = 0; s < t->n; s++) {
			int32_t top = s;
			while (top > 0 && t->parent[top] != 0)
				top = t->parent[top];
			int32_t front = s == 0 ? -1 : t->elem[top];
			if (t->nk[s] >= 0 || (!included && front == 1) || front > 1)
				define_at(b, i, s);
		}
		return;
	}
	case OP_ASYNC_UPDATE:
	case OP_ASYNC_DONE:
		for (int32_t s = 0; s < t->n; s++)
			if (t->nk[s] >= 0)
				define_at(b, i, s);
		return;
	case OP_COPY_START:
		define_at(b, i, 0);
		define_at(b, i, sub1(b, i, 0));
		define_at(b, i, sub1(b, i, 2));
		return;
	case OP_ALL_GATHER_START:
		for (int32_t s = 0; s < t->n; s++) {
			int32_t top = s;
			while (top > 0 && t->parent[top] != 0)
				top = t->parent[top];
			if (t->nk[s] >= 0 || (s > 0 && t->elem[top] == 1))
				define_at(b, i, s);
		}
		return;
	case OP_ALL_GATHER_DONE:
	case OP_COLLECTIVE_PERMUTE_DONE:
		if (t->nk[0] >= 0)
			define_at(b, i, 0);
		return;
	case OP_COLLECTIVE_PERMUTE_START:
		define_at(b, i, 0);
		define_at(b, i, sub1(b, i, 1));
		for (int32_t k = 2; k < t->nk[0]; k++)
			define_at(b, i, sub1(b, i, k));
		if (i->n_operands == 4) {
			const struct shape_tree *t1 = tree_of(b, i->operands[1]);
			for (int32_t k = 0; k < t1->nk[0]; k++)
				define_at(b, i, sub2(b, i, 1, k));
		} else if (i->n_operands > 1) {
			for (int32_t k = 0; k < i->n_operands; k++)
				define_at(b, i, sub2(b, i, 1, k));
		}
		return;
	case OP_RECV_DONE:
		define_at(b, i, 0);
		define_at(b, i, sub1(b, i, 1));
		return;
	case OP_SEND:
		define_at(b, i, 0);
		define_at(b, i, sub1(b, i, 1));
		define_at(b, i, sub1(b, i, 2));
		return;
	default:
		for (int32_t s = 0; s < t->n; s++)
			define_at(b, i, s);
		return;
	}
}

/* ---- worklist ---- */

static void work_push(struct build *b, const struct hlo_instruction *i)
{
	if (!i || b->in_work[i->gid])
		return;
	b->in_work[i->gid] = 1;
	int32_t k = b->n_heap++;
	b->heap[k] = i->gid;
	while (k > 0) {
		int32_t p = (k - 1) / 2;
		if (b->heap[p] <= b->heap[k])
			break;
		int32_t x = b->heap[p];
		b->heap[p] = b->heap[k];
		b->heap[k] = x;
		k = p;
	}
}

static int32_t work_pop(struct build *b)
{
	int32_t top = b->heap[0];
	b->heap[0] = b->heap[--b->n_heap];
	int32_t k = 0;
	for (;;) {
		int32_t l = 2 * k + 1, r = l + 1, m = k;
		if (l < b->n_heap && b->heap[l] < b->heap[m])
			m = l;
		if (r < b->n_heap && b->heap[r] < b->heap[m])
			m = r;
		if (m == k)
			break;
		int32_t x = b->heap[m];
		b->heap[m] = b->heap[k];
		b->heap[k] = x;
		k = m;
	}
	b->in_work[top] = 0;
	return top;
}

static void push_dependents(struct build *b, struct hlo_instruction *i)
{
	for (int32_t u = 0; u < i->n_users; u++) {
		struct hlo_instruction *user = i->users[u];
		work_push(b, user);
		if (user->opcode == OP_CONDITIONAL) {
			for (int32_t j = 0; j < user->ext->n_branches; j++)
				if (j + 1 < user->n_operands && user->operands[j + 1] == i &&
				    user->ext->branches[j] && user->ext->branches[j]->n_params > 0)
					work_push(b, user->ext->branches[j]->params[0]);
		} else if (user->opcode == OP_ASYNC_UPDATE || user->opcode == OP_ASYNC_DONE) {
			struct hlo_computation *w = async_wrapped_computation(user);
			for (int32_t k = 0; w && k < w->n_params; k++)
				work_push(b, w->params[k]);
		} else {
			for (int32_t c = 0; c < user->n_called; c++) {
				struct hlo_computation *callee = user->called[c];
				if (!callee || callee->context != CALL_CONTROL_FLOW)
					continue;
				for (int32_t k = 0; k < user->n_operands; k++)
					if (user->operands[k] == i && k < callee->n_params)
						work_push(b, callee->params[k]);
			}
		}
	}
	if (i->parent->root == i) {
		struct hlo_computation *c = i->parent;
		for (int32_t cs = 0; cs < c->n_callers; cs++) {
			struct hlo_instruction *call = c->callers[cs].instr;
			if (call->opcode == OP_WHILE) {
				work_push(b, call);
				if (call->ext->body && call->ext->body->n_params > 0)
					work_push(b, call->ext->body->params[0]);
				if (call->ext->condition && call->ext->condition->n_params > 0)
					work_push(b, call->ext->condition->params[0]);
			} else if (c->context == CALL_CONTROL_FLOW || call->opcode == OP_CONDITIONAL) {
				work_push(b, call);
			}
		}
	}
}

/* ---- uses (HloValue::ComputeUses) ---- */

static int may_use_operand_value(int nested, int32_t first, const struct hlo_instruction *user)
{
	switch ((enum opcode)user->opcode) {
	case OP_GET_TUPLE_ELEMENT:
	case OP_COPY:
		return !nested;
	case OP_ASYNC_DONE:
		/* XLA: a wrapped computation's root reads the operands (at the
		 * start, for the ordering); the sugar has none, so its done
		 * reads the operands the start holds at {0,...} (late binding,
		 * issue 19). The contexts {2,...} are not read. */
		return !nested || first == 1 || (first == 0 && hlo_async_sugar_embeds(user));
	case OP_DOMAIN:
	case OP_TUPLE:
		return 0;
	default:
		return 1;
	}
}

struct slot {
	struct hlo_instruction *user;
	int32_t k;
};

/* ---- driver ---- */

static void free_build(struct build *b)
{
	ipool_free(b->pool);
	b->pool = NULL;
	free(b->nodes);
	free(b->vals);
	free(b->deleted);
	free(b->node_of);
	free(b->heap);
	free(b->in_work);
	iv_free(&b->scratch);
}

/* Map every phi in a set through the optimized phi graph. */
static void rewrite_set_phis(struct build *b, struct value_set *vs)
{
	int32_t *ids = vs->many ? vs->many : &vs->one_or_cap;
	int any = 0;
	for (int32_t i = 0; i < vs->n; i++) {
		int32_t v = ids[i];
		if (!b->vals[v].is_phi || b->node_of[v] < 0)
			continue;
		int32_t nv = b->nodes[b->node_of[v]].value_id;
		if (nv != v) {
			b->deleted[v] = 1;
			ids[i] = nv;
			any = 1;
		}
	}
	if (any)
		vs->n = sort_unique(ids, vs->n);
}

static int32_t first_elem(const struct shape_tree *t, int32_t s)
{
	if (s == 0)
		return -1;
	while (t->parent[s] != 0)
		s = t->parent[s];
	return t->elem[s];
}

static void compute_positions_and_uses(struct build *b, struct dataflow *df)
{
	struct hlo_module *m = df->module;
	struct hlo_value *vals = df->values;
	/* positions: count, allocate, fill (defining position first) */
	int32_t *cnt = heap_calloc_huge((size_t)df->n_values + 1, sizeof(int32_t)); /* or die */
	for (int32_t g = 0; g < df->n_instrs; g++) {
		struct hlo_instruction *i = df->instr[g];
		for (int32_t s = 0; s < df_tree(df, g)->n; s++) {
			const struct value_set *vs = df_set(df, g, s);
			for (int32_t k = 0; k < vs->n; k++)
				if (vals[value_set_ids(vs)[k]].def != i)
					cnt[value_set_ids(vs)[k]]++;
		}
	}
	for (int32_t v = 0; v < df->n_values; v++) {
		vals[v].positions = arena_array(df->arena, (size_t)cnt[v] + 1, sizeof(struct value_position));
		vals[v].positions[0].instr = vals[v].def;
		vals[v].positions[0].sub = vals[v].sub;
		vals[v].n_positions = 1;
	}
	free(cnt);
	/* module order: computations in text order, instructions in text order */
	for (int32_t c = 0; c < m->n_comps; c++) {
		struct hlo_computation *comp = m->comps[c];
		for (int32_t j = 0; j < comp->n_instrs; j++) {
			struct hlo_instruction *i = comp->instrs[j];
			const struct shape_tree *t = df_tree(df, i->gid);
			for (int32_t s = 0; s < t->n; s++) {
				const struct value_set *vs = df_set(df, i->gid, s);
				for (int32_t k = 0; k < vs->n; k++) {
					struct hlo_value *v = &vals[value_set_ids(vs)[k]];
					if (v->def == i)
						continue;
					v->positions[v->n_positions].instr = i;
					v->positions[v->n_positions].sub = s;
					v->n_positions++;
				}
			}
		}
	}
	/* operand slots of every instruction, in users order then operand order */
	int32_t *n_slots = heap_calloc_huge((size_t)df->n_instrs + 1, sizeof(int32_t));
	struct slot **slots = heap_calloc_huge((size_t)df->n_instrs + 1, sizeof(*slots));
	for (int32_t g = 0; g < df->n_instrs; g++) {
		struct hlo_instruction *u = df->instr[g];
		for (int32_t k = 0; k < u->n_operands; k++)
			n_slots[u->operands[k]->gid]++;
	}
	/* one scratch block for every instruction's slots, freed below */
	size_t total_slots = 0;
	for (int32_t g = 0; g < df->n_instrs; g++)
		total_slots += (size_t)n_slots[g];
	struct slot *slot_block = heap_realloc_huge(NULL, total_slots + 1, sizeof(struct slot));
	size_t off = 0;
	for (int32_t g = 0; g < df->n_instrs; g++) {
		slots[g] = slot_block + off;
		off += n_slots[g];
		n_slots[g] = 0;
	}
	/* users() order is text order (users share the operand's computation),
	 * so walking users in text order and operands in order gives XLA's
	 * (user, operand number) order without rescanning wide users */
	for (int32_t c = 0; c < m->n_comps; c++) {
		struct hlo_computation *comp = m->comps[c];
		for (int32_t j = 0; j < comp->n_instrs; j++) {
			struct hlo_instruction *user = comp->instrs[j];
			for (int32_t k = 0; k < user->n_operands; k++) {
				int32_t g = user->operands[k]->gid;
				slots[g][n_slots[g]].user = user;
				slots[g][n_slots[g]].k = k;
				n_slots[g]++;
			}
		}
	}
	/* For nested positions only users that may read a nested value, or are
	 * a root, can add a use: keep those slots apart so a wide tuple read by
	 * thousands of get-tuple-elements is not rescanned for every element. */
	int32_t *n_nested = heap_calloc_huge((size_t)df->n_instrs + 1, sizeof(int32_t));
	struct slot **nested = heap_calloc_huge((size_t)df->n_instrs + 1, sizeof(*nested));
	size_t total_nested = 0;
	for (int32_t g = 0; g < df->n_instrs; g++)
		if (df_tree(df, g)->n > 1)
			total_nested += (size_t)n_slots[g];
	struct slot *nested_block = heap_realloc_huge(NULL, total_nested + 1, sizeof(struct slot));
	off = 0;
	for (int32_t g = 0; g < df->n_instrs; g++) {
		if (df_tree(df, g)->n <= 1)
			continue;
		nested[g] = nested_block + off;
		for (int32_t q = 0; q < n_slots[g]; q++) {
			struct hlo_instruction *user = slots[g][q].user;
			if (may_use_operand_value(1, 1, user) || user->parent->root == user)
				nested[g][n_nested[g]++] = slots[g][q];
		}
		off += (size_t)n_nested[g];
	}
	struct value_use *ubuf = NULL;
	size_t ucap = 0;
	for (int32_t v = 0; v < df->n_values; v++) {
		struct hlo_value *val = &vals[v];
		size_t nu = 0;
		for (int32_t p = 0; p < val->n_positions; p++) {
			struct hlo_instruction *i = val->positions[p].instr;
			int32_t s = val->positions[p].sub;
			const struct shape_tree *t = df_tree(df, i->gid);
			int is_nested = s != 0;
			int32_t front = first_elem(t, s);
			const struct slot *sl = is_nested ? nested[i->gid] : slots[i->gid];
			int32_t nsl = is_nested ? n_nested[i->gid] : n_slots[i->gid];
			for (int32_t q = 0; q < nsl; q++) {
				struct hlo_instruction *user = sl[q].user;
				if (!may_use_operand_value(is_nested, front, user)) {
					/* roots use everything they return */
					if (user->parent->root != user || !dataflow_value_is_root_of(val, user->parent))
						continue;
				}
				if (nu == ucap) {
					ucap = ucap ? 2 * ucap : 64;
					ubuf = heap_realloc_huge(ubuf, ucap, sizeof(*ubuf));
				}
				ubuf[nu].instr = user;
				ubuf[nu].operand = sl[q].k;
				ubuf[nu].sub = s;
				nu++;
			}
		}
		val->n_uses = (int32_t)nu;
		val->uses = nu ? arena_array(df->arena, nu, sizeof(*ubuf)) : NULL;
		if (nu)
			memcpy(val->uses, ubuf, nu * sizeof(*ubuf));
		val->live_out = m->entry && dataflow_value_is_root_of(val, m->entry);
	}
	free(ubuf);
	free(n_slots);
	free(slots);
	free(slot_block);
	free(n_nested);
	free(nested);
	free(nested_block);
	(void)b;
}

int dataflow_value_is_root_of(const struct hlo_value *v, const struct hlo_computation *c)
{
	if (!c || !c->root)
		return 0;
	for (int32_t p = 0; p < v->n_positions; p++)
		if (v->positions[p].instr == c->root)
			return 1;
	return 0;
}

struct dataflow *dataflow_run(struct hlo_module *m, struct arena *a, struct diag *d)
{
	if (unmodelled_report(m, d) < 0)
		return NULL; /* a guess otherwise: every copy is unknown */
	struct dataflow *df = arena_alloc(a, sizeof(*df));
	df->module = m;
	df->arena = a;
	df->n_instrs = m->n_instrs;
	df->instr = arena_array(a, (size_t)m->n_instrs + 1, sizeof(*df->instr));
	df->tree_of = arena_array(a, (size_t)m->n_instrs + 1, sizeof(*df->tree_of));
	df->set_off = arena_array(a, (size_t)m->n_instrs + 1, sizeof(*df->set_off));
	struct build b = {0};
	b.df = df;
	b.a = a;
	b.d = d;
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t j = 0; j < m->comps[c]->n_instrs; j++) {
			struct hlo_instruction *i = m->comps[c]->instrs[j];
			if (i->gid < 0 || i->gid >= m->n_instrs || df->instr[i->gid])
				die("instruction ids are not dense");
			df->instr[i->gid] = i;
		}
	struct tree_table tt = {0};
	tt.cap_trees = 16;
	tt.trees = xmalloc((size_t)tt.cap_trees, sizeof(*tt.trees));
	tt.next = xcalloc((size_t)tt.cap_trees, sizeof(*tt.next));
	tt.trees[0] = &leaf_tree;
	size_t n_subs = 0;
	for (int32_t g = 0; g < m->n_instrs; g++) {
		struct hlo_instruction *i = df->instr[g];
		if (!i)
			die("instruction ids are not dense");
		df->tree_of[g] = intern_tree(&tt, a, i->shape, &b.scratch, &df->n_trees);
		int32_t n = tt.trees[df->tree_of[g]]->n;
		if (n > HLO_VALUE_MAX_SUB || n_subs + (size_t)n > INT32_MAX) {
			if (n > HLO_VALUE_MAX_SUB)
				error_at(d, i->pos, "the shape of %s has more than %d sub-shapes", i->name,
					 HLO_VALUE_MAX_SUB);
			else
				error_at(d, i->pos, "the module has more than %d sub-shapes (at %s)",
					 INT32_MAX, i->name);
			htab_free(&tt.first);
			free(tt.next);
			free(tt.trees);
			free_build(&b);
			return NULL;
		}
		df->set_off[g] = (int32_t)n_subs;
		n_subs += (size_t)n;
	}
	df->trees = arena_array(a, (size_t)df->n_trees + 1, sizeof(*df->trees));
	memcpy(df->trees, tt.trees, ((size_t)df->n_trees + 1) * sizeof(*df->trees));
	htab_free(&tt.first);
	free(tt.next);
	free(tt.trees);
	df->sets = arena_array(a, n_subs + 1, sizeof(struct value_set));
	/* every sub may define a value; phis come on top */
	size_t guess = 1024 + n_subs;
	if (guess < (size_t)INT32_MAX / 2) {
		b.cap_vals = (int32_t)(guess + guess / 16);
		b.vals = heap_realloc_huge(NULL, (size_t)b.cap_vals, sizeof(*b.vals));
		b.deleted = heap_realloc_huge(NULL, (size_t)b.cap_vals, 1);
		b.node_of = heap_realloc_huge(NULL, (size_t)b.cap_vals, sizeof(int32_t));
	}

	/* define values: computations in text order (callees come first), instructions in text order */
	for (int32_t c = 0; c < m->n_comps && !b.failed; c++)
		for (int32_t j = 0; j < m->comps[c]->n_instrs && !b.failed; j++)
			define_values(&b, m->comps[c]->instrs[j]);

	/* propagate to a fixpoint */
	b.heap = heap_realloc_huge(NULL, (size_t)m->n_instrs + 1, sizeof(int32_t));
	b.in_work = xcalloc((size_t)m->n_instrs + 1, 1);
	/* Every instruction starts queued, in gid order: the first sweep takes
	 * them in order from `next`, and the heap holds only the ones queued
	 * again behind it (gids below `next`). The smallest queued gid comes
	 * next either way, so the order is the heap's alone; the sweep spares
	 * 10^6 sift-downs of a 4 MB heap. */
	memset(b.in_work, 1, (size_t)m->n_instrs);
	int32_t next = 0;
	/* Each round of a loop nest settles in a few sweeps; the bound only stops
	 * hostile input from spinning forever. */
	int64_t budget = 64 * (int64_t)m->n_instrs + 4096;
	while ((b.n_heap > 0 || next < m->n_instrs) && !b.failed) {
		if (--budget < 0) {
			error_at(d, m->pos, "dataflow analysis did not converge");
			b.failed = 1;
			break;
		}
		int32_t g;
		if (b.n_heap > 0) {
			g = work_pop(&b);
		} else {
			g = next++;
			b.in_work[g] = 0;
		}
		struct hlo_instruction *i = df->instr[g];
		if (update(&b, i))
			push_dependents(&b, i);
	}
	if (b.failed) {
		free_build(&b);
		return NULL;
	}

	/* optimize phis and rewrite the sets */
	phi_optimize(&b);
	for (int32_t g = 0; g < m->n_instrs; g++)
		for (int32_t s = 0; s < df_tree(df, g)->n; s++)
			rewrite_set_phis(&b, df_set(df, g, s));

	/* drop deleted values: renumber densely, keeping the order */
	int32_t *remap = heap_realloc_huge(NULL, (size_t)b.n_vals + 1, sizeof(int32_t));
	int32_t n = 0;
	for (int32_t v = 0; v < b.n_vals; v++)
		remap[v] = b.deleted[v] ? -1 : n++;
	df->n_values = n;
	df->values = arena_array(a, (size_t)n + 1, sizeof(struct hlo_value));
	for (int32_t v = 0; v < b.n_vals; v++) {
		if (remap[v] < 0)
			continue;
		df->values[remap[v]] = b.vals[v];
		df->values[remap[v]].id = remap[v];
	}
	for (int32_t g = 0; g < m->n_instrs; g++)
		for (int32_t s = 0; s < df_tree(df, g)->n; s++) {
			struct value_set *vs = df_set(df, g, s);
			int32_t *ids = vs->many ? vs->many : &vs->one_or_cap;
			int32_t k = 0;
			for (int32_t i = 0; i < vs->n; i++)
				if (remap[ids[i]] >= 0)
					ids[k++] = remap[ids[i]];
			vs->n = k;
			if (k == 0 && !vs->many)
				vs->one_or_cap = 0;
		}
	free(remap);
	compute_positions_and_uses(&b, df);
	free_build(&b);
	return df;
}

/* ---- queries ---- */

int32_t dataflow_sub(const struct dataflow *df, const struct hlo_instruction *i, const int32_t *idx,
		     int32_t n)
{
	return shape_tree_sub(df_tree(df, i->gid), idx, n);
}

const struct shape *dataflow_subshape(const struct dataflow *df, const struct hlo_instruction *i,
				      int32_t sub)
{
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	if (sub < 0 || sub >= df_tree(df, i->gid)->n)
		return NULL;
	int32_t n = shape_tree_index(df_tree(df, i->gid), sub, idx);
	const struct shape *s = i->shape;
	for (int32_t k = 0; s && k < n; k++)
		s = (shape_is_tuple(s) && idx[k] < s->n_elems) ? &s->elems[idx[k]] : NULL;
	return s;
}

int32_t dataflow_unique_value(const struct dataflow *df, const struct hlo_instruction *i, int32_t sub)
{
	if (sub < 0 || sub >= df_tree(df, i->gid)->n)
		return -1;
	const struct value_set *vs = dataflow_set(df, i, sub);
	return vs->n == 1 ? value_set_ids(vs)[0] : -1;
}

int32_t dataflow_value_defined_at(const struct dataflow *df, const struct hlo_instruction *i,
				  int32_t sub)
{
	int32_t v = dataflow_unique_value(df, i, sub);
	return v >= 0 && df->values[v].def == i ? v : -1;
}

int32_t dataflow_value_index(const struct dataflow *df, const struct hlo_value *v, int32_t *idx)
{
	return shape_tree_index(df_tree(df, v->def->gid), v->sub, idx);
}
