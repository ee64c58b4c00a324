/* test_ordering.c - reachability index against BFS, and §5.1-5.3 orderings on
 * small hand-built modules. HLOPROOF_BENCH=1 also runs the measurements that
 * docs/design.md quotes (build time, memory, queries per second). */
#include "testutil.h"
#include "ordering.h"
#include "reach.h"
#include "rewrite.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- deterministic random numbers ------------------------------------------ */

struct rng { uint64_t s; };

static uint64_t rnd(struct rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int32_t rnd_below(struct rng *r, int64_t n)
{
	return n <= 0 ? 0 : (int32_t)(rnd(r) % (uint64_t)n);
}

/* --- random DAGs ------------------------------------------------------------ */

struct dag {
	int32_t n, m;
	int32_t *off, *succ;
};

static void dag_free(struct dag *g)
{
	free(g->off);
	free(g->succ);
	g->off = g->succ = NULL;
}

/* From an edge list (src, dst pairs) to CSR, with node ids renamed through
 * perm (perm == NULL: identity). */
static struct dag dag_from_edges(int32_t n, int32_t m, const int32_t *src, const int32_t *dst,
				 const int32_t *perm)
{
	struct dag g = { n, m, calloc((size_t)n + 1, sizeof(int32_t)), malloc(((size_t)m + 1) * sizeof(int32_t)) };
	for (int32_t e = 0; e < m; e++)
		g.off[(perm ? perm[src[e]] : src[e]) + 1]++;
	for (int32_t i = 0; i < n; i++)
		g.off[i + 1] += g.off[i];
	int32_t *fill = malloc(((size_t)n + 1) * sizeof(int32_t));
	memcpy(fill, g.off, ((size_t)n + 1) * sizeof(int32_t));
	for (int32_t e = 0; e < m; e++) {
		int32_t s = perm ? perm[src[e]] : src[e], d = perm ? perm[dst[e]] : dst[e];
		g.succ[fill[s]++] = d;
	}
	free(fill);
	return g;
}

enum dag_shape { SHAPE_DATAFLOW, SHAPE_SPARSE, SHAPE_LAYERED, SHAPE_CHAINS, SHAPE_COUNT };

/* Dataflow-like: each node reads 0..3 earlier nodes, mostly recent ones (long
 * chains), some from a few hundred back (fan-out, fan-in), a few from far
 * back (parameters, saved activations). Other shapes for variety: uniform
 * sparse edges, wide layers, independent chains with rare cross links. */
static struct dag gen_dag(struct rng *r, int32_t n, enum dag_shape shape, int shuffle)
{
	size_t cap = (size_t)n * 4 + 16;
	int32_t *src = malloc(cap * sizeof(int32_t)), *dst = malloc(cap * sizeof(int32_t));
	int32_t m = 0;
	int32_t width = 1 + rnd_below(r, 12);
	for (int32_t i = 0; i < n; i++) {
		int32_t k;
		switch (shape) {
		case SHAPE_DATAFLOW: {
			if (i < n / 50 + 1 && rnd_below(r, 2))
				break; /* parameter */
			int32_t pick = rnd_below(r, 100);
			k = pick < 5 ? 0 : pick < 45 ? 1 : pick < 88 ? 2 : 3;
			for (int32_t j = 0; j < k && i > 0; j++) {
				int32_t p = rnd_below(r, 100), from;
				if (p < 80) {
					int32_t back = 1;
					while (back < i && rnd_below(r, 3))
						back++;
					from = i - back;
				} else if (p < 95) {
					from = i - 1 - rnd_below(r, i < 500 ? i : 500);
				} else {
					from = rnd_below(r, i);
				}
				src[m] = from;
				dst[m++] = i;
			}
			break;
		}
		case SHAPE_SPARSE:
			k = rnd_below(r, 4);
			for (int32_t j = 0; j < k && i > 0; j++) {
				src[m] = rnd_below(r, i);
				dst[m++] = i;
			}
			break;
		case SHAPE_LAYERED:
			/* layer = i / width; edges from the previous layer */
			if (i >= width) {
				int32_t base = (i / width - 1) * width;
				k = 1 + rnd_below(r, 2);
				for (int32_t j = 0; j < k; j++) {
					src[m] = base + rnd_below(r, width);
					dst[m++] = i;
				}
			}
			break;
		default:
			/* chain i % width, with a rare link from another chain */
			if (i >= width) {
				src[m] = i - width;
				dst[m++] = i;
				if (rnd_below(r, 20) == 0) {
					src[m] = rnd_below(r, i);
					dst[m++] = i;
				}
			}
			break;
		}
	}
	int32_t *perm = NULL;
	if (shuffle) {
		perm = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
		for (int32_t i = 0; i < n; i++)
			perm[i] = i;
		for (int32_t i = n - 1; i > 0; i--) {
			int32_t j = rnd_below(r, i + 1), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	struct dag g = dag_from_edges(n, m, src, dst, perm);
	free(perm);
	free(src);
	free(dst);
	return g;
}

/* BFS from u; seen[v] = 1 iff v reachable from u by a non-empty path. */
static void bfs(const struct dag *g, int32_t u, uint8_t *seen, int32_t *queue)
{
	int32_t h = 0, t = 0;
	memset(seen, 0, (size_t)g->n);
	for (int32_t e = g->off[u]; e < g->off[u + 1]; e++)
		if (!seen[g->succ[e]]) {
			seen[g->succ[e]] = 1;
			queue[t++] = g->succ[e];
		}
	while (h < t) {
		int32_t v = queue[h++];
		for (int32_t e = g->off[v]; e < g->off[v + 1]; e++)
			if (!seen[g->succ[e]]) {
				seen[g->succ[e]] = 1;
				queue[t++] = g->succ[e];
			}
	}
}

/* The numbering must be a topological order and a permutation. */
static void check_ranks(struct reach_index *ri, const struct dag *g)
{
	for (int32_t u = 0; u < g->n; u++) {
		assert_int_equal(reach_node_at(ri, reach_rank(ri, u)), u);
		for (int32_t e = g->off[u]; e < g->off[u + 1]; e++)
			assert_true(reach_rank(ri, u) < reach_rank(ri, g->succ[e]));
	}
}

/* Compare the index with BFS from `sources` sources (all when < 0), against
 * every target. Returns the number of pairs checked. */
static long check_against_bfs(struct reach_index *ri, const struct dag *g, int32_t sources,
			      struct rng *r)
{
	uint8_t *seen = malloc((size_t)(g->n ? g->n : 1));
	int32_t *queue = malloc((size_t)(g->n ? g->n : 1) * sizeof(int32_t));
	long pairs = 0;
	int32_t ns = sources < 0 || sources > g->n ? g->n : sources;
	for (int32_t k = 0; k < ns; k++) {
		int32_t u = sources < 0 ? k : rnd_below(r, g->n);
		bfs(g, u, seen, queue);
		for (int32_t v = 0; v < g->n; v++) {
			int got = reach_query(ri, u, v);
			if (got != seen[v])
				fail_msg("n=%d: reach(%d, %d) = %d, BFS says %d (full=%d)", g->n, u, v,
					 got, seen[v], reach_is_full(ri));
			pairs++;
		}
	}
	free(seen);
	free(queue);
	return pairs;
}

/* Index options forcing each path and each mix of cuts. */
static const struct reach_options variants[] = {
	{ INT32_MAX, 2, 3, 1 },  /* full closure */
	{ 0, 2, 3, 1 },          /* large, defaults */
	{ 0, 1, 0, 0 },          /* large, window and search only */
	{ 0, 1, 4, 0 },          /* large, GRAIL only */
	{ 0, 1, 0, 2 },          /* large, landmarks only */
	{ 0, 8, 1, 4 },          /* large, wide window */
};
#define N_VARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

static void test_reach_random_small(void **state)
{
	long pairs = 0;
	for (int seed = 0; seed < 200; seed++) {
		struct rng r = { (uint64_t)seed * 7919u + 1 };
		int32_t n = seed < 10 ? seed : 1 + rnd_below(&r, 300);
		struct dag g = gen_dag(&r, n, (enum dag_shape)(seed % SHAPE_COUNT), seed % 3 != 0);
		for (int v = 0; v < N_VARIANTS; v++) {
			struct arena a;
			arena_init(&a);
			struct reach_index *ri = reach_build(g.n, g.off, g.succ, &variants[v], &a, NULL);
			assert_non_null(ri);
			assert_int_equal(reach_is_full(ri), v == 0 || g.n == 0);
			check_ranks(ri, &g);
			pairs += check_against_bfs(ri, &g, -1, &r);
			arena_free(&a);
		}
		dag_free(&g);
	}
	assert_true(pairs > 1000000);
}

static void test_reach_random_large(void **state)
{
	static const int32_t sizes[] = { 3000, 20000, 60000 };
	for (int k = 0; k < 3; k++) {
		for (int shape = 0; shape < SHAPE_COUNT; shape++) {
			struct rng r = { (uint64_t)(k * 31 + shape) };
			struct dag g = gen_dag(&r, sizes[k], (enum dag_shape)shape, 1);
			for (int v = k == 0 ? 0 : 1; v < N_VARIANTS; v++) {
				/* search-only on big graphs is slow and adds nothing
				 * the 3000-node run does not cover */
				if (k > 0 && v == 2)
					continue;
				struct arena a;
				arena_init(&a);
				struct reach_index *ri =
					reach_build(g.n, g.off, g.succ, &variants[v], &a, NULL);
				assert_non_null(ri);
				check_ranks(ri, &g);
				check_against_bfs(ri, &g, k == 2 ? 6 : 12, &r);
				arena_free(&a);
			}
			dag_free(&g);
		}
	}
}

/* Ids already topological keep their numbering (positions = text index). */
static void test_reach_identity_and_cycles(void **state)
{
	int32_t off[] = { 0, 2, 3, 4, 4 }, succ[] = { 1, 2, 3, 3 };
	struct arena a;
	arena_init(&a);
	struct reach_index *ri = reach_build(4, off, succ, NULL, &a, NULL);
	assert_non_null(ri);
	for (int32_t i = 0; i < 4; i++)
		assert_int_equal(reach_rank(ri, i), i);
	/* 3 -> 0 -> 1 -> 2: the numbering puts 3 first */
	int32_t off2[] = { 0, 1, 2, 2, 3 }, succ2[] = { 1, 2, 0 };
	ri = reach_build(4, off2, succ2, NULL, &a, NULL);
	assert_int_equal(reach_rank(ri, 3), 0);
	assert_int_equal(reach_rank(ri, 0), 1);
	assert_true(reach_query(ri, 3, 2));
	assert_false(reach_query(ri, 2, 3));
	/* 0 -> 1 -> 2 -> 1, 3 -> 0: a cycle through 1 and 2 */
	int32_t off3[] = { 0, 1, 2, 3, 4 }, succ3[] = { 1, 2, 1, 0 }, bad = -1;
	assert_null(reach_build(4, off3, succ3, NULL, &a, &bad));
	assert_true(bad == 1 || bad == 2);
	/* self loop */
	int32_t off4[] = { 0, 1 }, succ4[] = { 0 };
	bad = -1;
	assert_null(reach_build(1, off4, succ4, NULL, &a, &bad));
	assert_int_equal(bad, 0);
	arena_free(&a);
}

/* --- hand-built modules ------------------------------------------------------ */

static struct hlo_module *tb_module(int scheduled)
{
	struct hlo_module *m = calloc(1, sizeof(*m));
	arena_init(&m->arena);
	m->name = "test";
	m->file = "<built>";
	m->is_scheduled = (uint8_t)scheduled;
	return m;
}

static void tb_free(struct hlo_module *m)
{
	arena_free(&m->arena);
	free(m);
}

/* Append x to an arena array of n pointers (tests only: copies every time). */
static void *tb_append(struct arena *a, void *arr, int32_t n, size_t size, const void *x)
{
	char *p = arena_alloc(a, (size_t)(n + 1) * size);
	if (n)
		memcpy(p, arr, (size_t)n * size);
	memcpy(p + (size_t)n * size, x, size);
	return p;
}

static struct hlo_computation *tb_comp(struct hlo_module *m, const char *name)
{
	struct hlo_computation *c = arena_alloc(&m->arena, sizeof(*c));
	c->name = name;
	c->module = m;
	c->index = m->n_comps;
	c->pos = (struct srcpos){ m->file, m->n_comps + 1, 1 };
	m->comps = tb_append(&m->arena, m->comps, m->n_comps, sizeof(c), &c);
	m->n_comps++;
	if (!m->entry) {
		m->entry = c;
		c->is_entry = 1;
	}
	return c;
}

static void tb_set_root(struct hlo_computation *c, struct hlo_instruction *i)
{
	if (c->root)
		c->root->is_root = 0;
	c->root = i;
	i->is_root = 1;
}

/* An instruction reading the NULL-terminated operands; becomes the root. */
static struct hlo_instruction *tb_ins(struct hlo_computation *c, const char *name,
				      enum opcode op, ...)
{
	struct hlo_module *m = c->module;
	struct hlo_instruction *i = arena_alloc(&m->arena, sizeof(*i));
	i->name = name;
	i->parent = c;
	i->opcode = (uint16_t)op;
	i->index = c->n_instrs;
	i->gid = m->n_instrs++;
	i->parameter_number = -1; /* and tuple_index, which shares its place */
	i->ext = arena_alloc(&m->arena, sizeof(*i->ext)); /* every field is the test's to set */
	i->pos = (struct srcpos){ m->file, 100 + i->gid, 3 };
	va_list ap;
	va_start(ap, op);
	struct hlo_instruction *x;
	while ((x = va_arg(ap, struct hlo_instruction *))) {
		i->operands = tb_append(&m->arena, i->operands, i->n_operands, sizeof(x), &x);
		i->n_operands++;
		int dup = 0;
		for (int32_t k = 0; k < x->n_users; k++)
			dup |= x->users[k] == i;
		if (!dup) {
			x->users = tb_append(&m->arena, x->users, x->n_users, sizeof(i), &i);
			x->n_users++;
		}
	}
	va_end(ap);
	c->instrs = tb_append(&m->arena, c->instrs, c->n_instrs, sizeof(i), &i);
	c->n_instrs++;
	tb_set_root(c, i);
	return i;
}

static void tb_ctrl(struct hlo_instruction *pred, struct hlo_instruction *succ)
{
	struct arena *a = &pred->parent->module->arena;
	pred->ext->ctrl_succs = tb_append(a, pred->ext->ctrl_succs, pred->ext->n_ctrl_succs, sizeof(succ), &succ);
	pred->ext->n_ctrl_succs++;
	succ->ext->ctrl_preds = tb_append(a, succ->ext->ctrl_preds, succ->ext->n_ctrl_preds, sizeof(pred), &pred);
	succ->ext->n_ctrl_preds++;
}

/* instr calls comp (in the given context); records the callsite on comp. */
static void tb_call(struct hlo_instruction *i, struct hlo_computation *c, enum call_context ctx)
{
	struct arena *a = &i->parent->module->arena;
	i->called = tb_append(a, i->called, i->n_called, sizeof(c), &c);
	i->n_called++;
	struct hlo_callsite cs = { i, ctx };
	c->callers = tb_append(a, c->callers, c->n_callers, sizeof(cs), &cs);
	c->n_callers++;
	c->context |= ctx;
}

static struct hlo_instruction *tb_param(struct hlo_computation *c, const char *name, int64_t k)
{
	struct hlo_instruction *i = tb_ins(c, name, OP_PARAMETER, NULL);
	i->parameter_number = k;
	c->n_params++;
	return i;
}

struct built {
	struct hlo_module *m;
	struct arena a;
	struct ordering *dep, *seq;
};

static void built_init(struct built *b, int scheduled)
{
	memset(b, 0, sizeof(*b));
	b->m = tb_module(scheduled);
	arena_init(&b->a);
}

static void built_orderings(struct built *b)
{
	b->dep = ordering_build(b->m, ORDER_DEPENDENCY, &b->a);
	b->seq = ordering_build(b->m, ORDER_SEQUENTIAL, &b->a);
	assert_non_null(b->dep);
	assert_non_null(b->seq);
}

/* o1 and o2 agree on every pair of instructions of m. */
static void assert_same_answers(const struct hlo_module *m, struct ordering *o1, struct ordering *o2)
{
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t i = 0; i < m->comps[c]->n_instrs; i++)
			for (int32_t d = 0; d < m->n_comps; d++)
				for (int32_t j = 0; j < m->comps[d]->n_instrs; j++) {
					const struct hlo_instruction *x = m->comps[c]->instrs[i];
					const struct hlo_instruction *y = m->comps[d]->instrs[j];
					assert_int_equal(ordering_constraint(o1, x, y),
							 ordering_constraint(o2, x, y));
					assert_int_equal(ordering_reaches(o1, x, y),
							 ordering_reaches(o2, x, y));
				}
}

/* Every hand-built module also checks that ordering_build_from() answers as
 * a fresh build does. */
static void built_free(struct built *b)
{
	assert_same_answers(b->m, b->seq, ordering_build_from(b->dep, ORDER_SEQUENTIAL, &b->a));
	assert_same_answers(b->m, b->dep, ordering_build_from(b->seq, ORDER_DEPENDENCY, &b->a));
	arena_free(&b->a);
	tb_free(b->m);
}

#define assert_constraint(o, a, b, want) \
	assert_string_equal(exec_constraint_name(ordering_constraint(o, a, b)), \
			    exec_constraint_name(want))

/* Siblings with no path are unordered; a control edge orders them. */
static void test_constraint_siblings_and_control(void **state)
{
	struct built b;
	built_init(&b, 0);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *x = tb_ins(e, "x", OP_NEGATE, p, NULL);
	struct hlo_instruction *y = tb_ins(e, "y", OP_EXP, p, NULL);
	struct hlo_instruction *z = tb_ins(e, "z", OP_NEGATE, p, NULL);
	struct hlo_instruction *w = tb_ins(e, "w", OP_NEGATE, z, NULL);
	struct hlo_instruction *t = tb_ins(e, "t", OP_TUPLE, x, y, w, NULL);
	tb_ctrl(x, z);
	built_orderings(&b);
	struct ordering *o = b.dep;
	assert_constraint(o, x, x, EXEC_SAME);
	assert_constraint(o, x, y, EXEC_UNORDERED);
	assert_constraint(o, y, x, EXEC_UNORDERED);
	assert_constraint(o, p, x, EXEC_RUN_BEFORE_START);
	assert_constraint(o, x, p, EXEC_A_AFTER_B);
	/* x -> z is a control edge: x before z and before w, but y is not */
	assert_constraint(o, x, z, EXEC_RUN_BEFORE_START);
	assert_constraint(o, x, w, EXEC_RUN_BEFORE_START);
	assert_constraint(o, w, x, EXEC_A_AFTER_B);
	assert_constraint(o, y, w, EXEC_UNORDERED);
	assert_true(ordering_executes_before(o, x, t));
	assert_false(ordering_executes_before(o, t, x));
	assert_false(ordering_executes_before(o, x, x));
	assert_true(ordering_reaches(o, x, w));
	assert_false(ordering_reaches(o, w, x));
	assert_false(ordering_reaches(o, x, x));
	/* the same module, unscheduled: a sequential ordering has no sequences */
	assert_false(ordering_in_sequence(b.seq, x));
	assert_constraint(b.seq, p, x, EXEC_UNORDERED);
	assert_true(ordering_reaches(b.seq, x, w)); /* reaches() is always dependency */
	built_free(&b);
}

/* Scheduled: text order decides, except that the root never runs before
 * anything, even when printed early. */
static void test_constraint_sequential_root_early(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *x = tb_ins(e, "x", OP_NEGATE, p, NULL);
	struct hlo_instruction *y = tb_ins(e, "y", OP_EXP, p, NULL);
	struct hlo_instruction *z = tb_ins(e, "z", OP_ABS, p, NULL);
	tb_set_root(e, x); /* root printed before y and z */
	built_orderings(&b);
	struct ordering *s = b.seq;
	assert_true(ordering_in_sequence(s, x));
	assert_constraint(s, y, z, EXEC_RUN_BEFORE_START);
	assert_constraint(s, z, y, EXEC_A_AFTER_B);
	assert_constraint(s, p, x, EXEC_RUN_BEFORE_START);
	assert_constraint(s, x, y, EXEC_UNORDERED); /* root printed early */
	assert_constraint(s, y, x, EXEC_UNORDERED);
	assert_constraint(s, x, p, EXEC_A_AFTER_B);
	/* dependency ordering: y and z are independent */
	assert_constraint(b.dep, y, z, EXEC_UNORDERED);
	assert_int_equal(ordering_position(s, z), 3);
	assert_int_equal(ordering_position(b.dep, z), 3);
	built_free(&b);
}

/* The dependency position is a topological rank, the sequential one the text
 * index. */
static void test_positions(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *late = tb_ins(e, "late", OP_NEGATE, NULL);
	struct hlo_instruction *early = tb_ins(e, "early", OP_ABS, p, NULL);
	/* late reads early although printed first */
	late->operands = arena_alloc(&b.m->arena, sizeof(void *));
	late->operands[0] = early;
	late->n_operands = 1;
	built_orderings(&b);
	assert_int_equal(ordering_position(b.dep, p), 0);
	assert_int_equal(ordering_position(b.dep, early), 1);
	assert_int_equal(ordering_position(b.dep, late), 2);
	assert_int_equal(ordering_position(b.seq, late), 1);
	assert_int_equal(ordering_position(b.seq, early), 2);
	assert_constraint(b.dep, early, late, EXEC_RUN_BEFORE_START);
	/* the schedule says late first; the sequential ordering follows it */
	assert_constraint(b.seq, early, late, EXEC_A_AFTER_B);
	built_free(&b);
}

/* while: condition before body ("run before end"); body vs the while itself
 * is unordered; body vs what follows the while is ordered. */
static void test_constraint_while(void **state)
{
	struct built b;
	built_init(&b, 0);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_computation *cond = tb_comp(b.m, "cond");
	struct hlo_computation *body = tb_comp(b.m, "body");
	struct hlo_instruction *cp = tb_param(cond, "cp", 0);
	struct hlo_instruction *cl = tb_ins(cond, "cl", OP_COMPARE, cp, cp, NULL);
	struct hlo_instruction *bp = tb_param(body, "bp", 0);
	struct hlo_instruction *ba = tb_ins(body, "ba", OP_ADD, bp, bp, NULL);
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *w = tb_ins(e, "w", OP_WHILE, p, NULL);
	w->ext->condition = cond;
	w->ext->body = body;
	tb_call(w, cond, CALL_CONTROL_FLOW);
	tb_call(w, body, CALL_CONTROL_FLOW);
	struct hlo_instruction *after = tb_ins(e, "after", OP_NEGATE, w, NULL);
	struct hlo_instruction *other = tb_ins(e, "other", OP_ABS, p, NULL);
	tb_ins(e, "t", OP_TUPLE, after, other, NULL);
	built_orderings(&b);
	struct ordering *o = b.dep;
	assert_int_equal(ordering_depth(o, e), 0);
	assert_int_equal(ordering_depth(o, body), 1);
	assert_true(ordering_is_nested_in(o, ba, body));
	assert_true(ordering_is_nested_in(o, ba, e));
	assert_false(ordering_is_nested_in(o, ba, cond));
	assert_false(ordering_is_nested_in(o, w, body));
	assert_constraint(o, cl, ba, EXEC_RUN_BEFORE_END);
	assert_constraint(o, cp, bp, EXEC_RUN_BEFORE_END);
	assert_true(ordering_executes_before(o, cl, ba));
	assert_constraint(o, ba, cl, EXEC_UNORDERED);
	assert_constraint(o, ba, w, EXEC_UNORDERED);
	assert_constraint(o, w, ba, EXEC_UNORDERED);
	assert_constraint(o, ba, after, EXEC_RUN_BEFORE_START);
	assert_constraint(o, after, cl, EXEC_A_AFTER_B);
	assert_constraint(o, p, ba, EXEC_RUN_BEFORE_START);
	assert_constraint(o, other, ba, EXEC_UNORDERED);
	assert_constraint(o, bp, ba, EXEC_RUN_BEFORE_START);
	const struct hlo_instruction *A, *B;
	assert_true(ordering_nearest_ancestors(o, ba, after, &A, &B));
	assert_ptr_equal(A, w);
	assert_ptr_equal(B, after);
	/* the same under the (unscheduled -> empty) sequential ordering for the
	 * cross-computation rule that does not need a sequence */
	assert_constraint(b.seq, cl, ba, EXEC_RUN_BEFORE_END);
	built_free(&b);
}

/* conditional: branches ordered by number; branch vs the conditional. */
static void test_constraint_conditional(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_computation *br[3];
	struct hlo_instruction *bi[3];
	static const char *const names[] = { "b0", "b1", "b2" }, *const inames[] = { "i0", "i1", "i2" };
	for (int j = 0; j < 3; j++) {
		br[j] = tb_comp(b.m, names[j]);
		struct hlo_instruction *bp = tb_param(br[j], "bp", 0);
		bi[j] = tb_ins(br[j], inames[j], OP_NEGATE, bp, NULL);
	}
	struct hlo_instruction *idx = tb_param(e, "idx", 0);
	struct hlo_instruction *x = tb_param(e, "x", 1);
	struct hlo_instruction *c = tb_ins(e, "c", OP_CONDITIONAL, idx, x, x, x, NULL);
	c->ext->branches = arena_alloc(&b.m->arena, 3 * sizeof(void *));
	c->ext->n_branches = 3;
	for (int j = 0; j < 3; j++) {
		c->ext->branches[j] = br[j];
		tb_call(c, br[j], CALL_CONTROL_FLOW);
	}
	struct hlo_instruction *after = tb_ins(e, "after", OP_NEGATE, c, NULL);
	built_orderings(&b);
	for (int k = 0; k < 2; k++) {
		struct ordering *o = k ? b.seq : b.dep;
		assert_constraint(o, bi[0], bi[2], EXEC_EXCLUSIVE_BEFORE);
		assert_constraint(o, bi[2], bi[0], EXEC_EXCLUSIVE_AFTER);
		assert_constraint(o, bi[1], bi[2], EXEC_EXCLUSIVE_BEFORE);
		assert_true(ordering_executes_before(o, bi[0], bi[1]));
		assert_false(ordering_executes_before(o, bi[1], bi[0]));
		assert_constraint(o, bi[1], c, EXEC_RUN_BEFORE_END);
		assert_constraint(o, c, bi[1], EXEC_A_AFTER_B);
		assert_constraint(o, bi[1], after, EXEC_RUN_BEFORE_START);
		assert_constraint(o, x, bi[2], EXEC_RUN_BEFORE_START);
		/* same branch: the branch's own order */
		assert_constraint(o, br[1]->instrs[0], bi[1], EXEC_RUN_BEFORE_START);
		assert_constraint(o, bi[1], br[1]->instrs[0], EXEC_A_AFTER_B);
	}
	built_free(&b);
}

/* Nested calls: depth equalisation; a computation with two callers stops the
 * chain (unordered); an async computation continues at its first caller. */
static void test_constraint_calls_and_async(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_computation *f = tb_comp(b.m, "f");
	struct hlo_computation *g = tb_comp(b.m, "g");
	struct hlo_computation *shared = tb_comp(b.m, "shared");
	struct hlo_computation *wrapped = tb_comp(b.m, "wrapped");
	/* g: deepest */
	struct hlo_instruction *gp = tb_param(g, "gp", 0);
	struct hlo_instruction *gx = tb_ins(g, "gx", OP_NEGATE, gp, NULL);
	/* f calls g */
	struct hlo_instruction *fp = tb_param(f, "fp", 0);
	struct hlo_instruction *fc = tb_ins(f, "fc", OP_CALL, fp, NULL);
	tb_call(fc, g, CALL_CONTROL_FLOW);
	fc->to_apply = g;
	struct hlo_instruction *fy = tb_ins(f, "fy", OP_NEGATE, fc, NULL);
	/* shared: called twice */
	struct hlo_instruction *sp = tb_param(shared, "sp", 0);
	struct hlo_instruction *sx = tb_ins(shared, "sx", OP_NEGATE, sp, NULL);
	/* wrapped: the async op's computation */
	struct hlo_instruction *wp = tb_param(wrapped, "wp", 0);
	struct hlo_instruction *wx = tb_ins(wrapped, "wx", OP_CUSTOM_CALL, wp, NULL);
	/* entry */
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *c1 = tb_ins(e, "c1", OP_CALL, p, NULL);
	tb_call(c1, f, CALL_CONTROL_FLOW);
	struct hlo_instruction *s1 = tb_ins(e, "s1", OP_CALL, c1, NULL);
	tb_call(s1, shared, CALL_CONTROL_FLOW);
	struct hlo_instruction *s2 = tb_ins(e, "s2", OP_CALL, s1, NULL);
	tb_call(s2, shared, CALL_CONTROL_FLOW);
	struct hlo_instruction *as = tb_ins(e, "as", OP_ASYNC_START, p, NULL);
	tb_call(as, wrapped, CALL_CONTROL_FLOW);
	struct hlo_instruction *mid = tb_ins(e, "mid", OP_NEGATE, as, NULL);
	struct hlo_instruction *ad = tb_ins(e, "ad", OP_ASYNC_DONE, as, NULL);
	tb_call(ad, wrapped, CALL_CONTROL_FLOW);
	struct hlo_instruction *last = tb_ins(e, "last", OP_TUPLE, s2, ad, mid, NULL);
	built_orderings(&b);
	for (int k = 0; k < 2; k++) {
		struct ordering *o = k ? b.seq : b.dep;
		assert_int_equal(ordering_depth(o, g), 2);
		assert_int_equal(ordering_depth(o, shared), 1);
		const struct hlo_instruction *A, *B;
		/* gx (depth 2) vs p (depth 0): equalise, then meet in entry at c1 */
		assert_true(ordering_nearest_ancestors(o, gx, p, &A, &B));
		assert_ptr_equal(A, c1);
		assert_ptr_equal(B, p);
		assert_constraint(o, gx, last, EXEC_RUN_BEFORE_START);
		assert_constraint(o, p, gx, EXEC_RUN_BEFORE_START);
		assert_constraint(o, gx, fy, EXEC_RUN_BEFORE_START);
		assert_constraint(o, fy, gx, EXEC_A_AFTER_B);
		/* gx vs the call that contains it: same ancestor, unordered */
		assert_constraint(o, gx, c1, EXEC_UNORDERED);
		assert_true(ordering_is_nested_in(o, gx, f));
		assert_true(ordering_is_nested_in(o, gx, e));
		assert_false(ordering_is_nested_in(o, gx, shared));
		/* shared has two callers: its instructions are unordered with
		 * everything outside it, though nested in entry */
		assert_null(ordering_next_caller(o, sx));
		assert_constraint(o, sx, last, EXEC_UNORDERED);
		assert_constraint(o, p, sx, EXEC_UNORDERED);
		assert_true(ordering_is_nested_in(o, sx, e));
		assert_constraint(o, sp, sx, EXEC_RUN_BEFORE_START);
		/* async: start and done both call wrapped; the chain goes on at the
		 * start; the op and the instruction it wraps are "same" */
		assert_ptr_equal(ordering_next_caller(o, wx), as);
		assert_constraint(o, as, wx, EXEC_SAME);
		assert_constraint(o, wx, ad, EXEC_SAME);
		assert_constraint(o, wx, last, EXEC_RUN_BEFORE_START);
		assert_constraint(o, p, wp, EXEC_RUN_BEFORE_START);
		assert_constraint(o, wp, as, EXEC_UNORDERED);
		assert_constraint(o, wp, ad, EXEC_RUN_BEFORE_START);
	}
	/* wx counts as running where its first caller (as) runs: before mid,
	 * which reads as */
	assert_constraint(b.dep, wx, mid, EXEC_RUN_BEFORE_START);
	assert_constraint(b.dep, mid, wx, EXEC_A_AFTER_B);
	built_free(&b);
}

/* async-done printed without calls= still wraps what its start wraps; a
 * while whose condition is its body has two caller callsites in XLA's count,
 * so the chain stops there. */
static void test_async_chain_and_double_callsite(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_computation *wrapped = tb_comp(b.m, "wrapped");
	struct hlo_computation *cb = tb_comp(b.m, "cond_and_body");
	struct hlo_instruction *wp = tb_param(wrapped, "wp", 0);
	struct hlo_instruction *wx = tb_ins(wrapped, "wx", OP_CUSTOM_CALL, wp, NULL);
	struct hlo_instruction *cp = tb_param(cb, "cp", 0);
	struct hlo_instruction *cx = tb_ins(cb, "cx", OP_COPY, cp, NULL);
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *as = tb_ins(e, "as", OP_ASYNC_START, p, NULL);
	tb_call(as, wrapped, CALL_CONTROL_FLOW);
	struct hlo_instruction *au = tb_ins(e, "au", OP_ASYNC_UPDATE, as, NULL);
	struct hlo_instruction *ad = tb_ins(e, "ad", OP_ASYNC_DONE, au, NULL);
	struct hlo_instruction *w = tb_ins(e, "w", OP_WHILE, ad, NULL);
	w->ext->condition = w->ext->body = cb;
	tb_call(w, cb, CALL_CONTROL_FLOW);
	/* the builder records one callsite per occurrence; make it one per
	 * instruction, as the parser does */
	w->called = tb_append(&b.m->arena, w->called, w->n_called, sizeof(cb), &cb);
	w->n_called++;
	struct hlo_instruction *y = tb_ins(e, "y", OP_NEGATE, w, NULL);
	built_orderings(&b);
	struct ordering *o = b.dep;
	assert_ptr_equal(ordering_async_wrapped(ad), wrapped);
	assert_ptr_equal(ordering_async_wrapped(au), wrapped);
	assert_null(ordering_async_wrapped(y));
	assert_constraint(o, ad, wx, EXEC_SAME);
	assert_constraint(o, wx, au, EXEC_SAME);
	assert_constraint(o, wp, y, EXEC_RUN_BEFORE_START);
	assert_int_equal(cb->n_callers, 1);
	assert_null(ordering_next_caller(o, cx));
	assert_constraint(o, cx, y, EXEC_UNORDERED);
	assert_constraint(o, p, cx, EXEC_UNORDERED);
	assert_true(ordering_is_nested_in(o, cx, e));
	assert_constraint(o, cp, cx, EXEC_RUN_BEFORE_START);
	built_free(&b);
}

/* A fusion computation has no sequence; the dependency ordering still orders
 * its instructions by data edges. */
static void test_fusion_computation(void **state)
{
	struct built b;
	built_init(&b, 1);
	struct hlo_computation *e = tb_comp(b.m, "entry");
	struct hlo_computation *fc = tb_comp(b.m, "fused");
	struct hlo_instruction *fp = tb_param(fc, "fp", 0);
	struct hlo_instruction *fx = tb_ins(fc, "fx", OP_NEGATE, fp, NULL);
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *f = tb_ins(e, "f", OP_FUSION, p, NULL);
	tb_call(f, fc, CALL_EMBEDDED);
	struct hlo_instruction *y = tb_ins(e, "y", OP_NEGATE, f, NULL);
	built_orderings(&b);
	assert_true(ordering_is_fusion_computation(b.seq, fc));
	assert_false(ordering_is_fusion_computation(b.seq, e));
	assert_false(ordering_in_sequence(b.seq, fx));
	assert_true(ordering_in_sequence(b.seq, y));
	assert_constraint(b.seq, fp, fx, EXEC_UNORDERED);
	assert_constraint(b.dep, fp, fx, EXEC_RUN_BEFORE_START);
	/* across the fusion boundary both go through the fusion instruction */
	assert_constraint(b.seq, fx, y, EXEC_RUN_BEFORE_START);
	assert_constraint(b.seq, p, fx, EXEC_RUN_BEFORE_START);
	assert_constraint(b.seq, fx, f, EXEC_UNORDERED);
	built_free(&b);
}

/* Cycles are input errors, reported with a position, never a hang. */
static void test_cycles_rejected(void **state)
{
	struct hlo_module *m = tb_module(0);
	struct hlo_computation *e = tb_comp(m, "entry");
	struct hlo_instruction *p = tb_param(e, "p", 0);
	struct hlo_instruction *x = tb_ins(e, "x", OP_NEGATE, p, NULL);
	struct hlo_instruction *y = tb_ins(e, "y", OP_NEGATE, x, NULL);
	tb_ctrl(y, x);
	struct arena a;
	arena_init(&a);
	struct diag d;
	diag_init(&d, NULL);
	assert_null(ordering_build_ex(m, ORDER_DEPENDENCY, &a, NULL, &d));
	assert_int_equal(d.errors, 1);
	assert_non_null(strstr(d.first, "dependency cycle"));
	assert_null(ordering_build(m, ORDER_SEQUENTIAL, &a));
	tb_free(m);

	/* call graph cycle: entry calls f, f calls entry */
	m = tb_module(0);
	e = tb_comp(m, "entry");
	struct hlo_computation *f = tb_comp(m, "f");
	struct hlo_instruction *fcall = tb_ins(f, "fcall", OP_CALL, NULL);
	tb_call(fcall, e, CALL_CONTROL_FLOW);
	struct hlo_instruction *ecall = tb_ins(e, "ecall", OP_CALL, NULL);
	tb_call(ecall, f, CALL_CONTROL_FLOW);
	diag_init(&d, NULL);
	assert_null(ordering_build_ex(m, ORDER_DEPENDENCY, &a, NULL, &d));
	assert_non_null(strstr(d.first, "cycle of calls"));
	tb_free(m);
	arena_free(&a);
}

/* Both index paths behind the same module-level API give the same answers. */
static void test_ordering_threshold_paths(void **state)
{
	struct rng r = { 99 };
	struct hlo_module *m = tb_module(0);
	struct hlo_computation *e = tb_comp(m, "entry");
	enum { N = 400 };
	struct hlo_instruction *ins[N];
	static char names[N][16]; /* "i" and any int: no truncation */
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "i%d", i);
		struct hlo_instruction *a1 = i ? ins[i - 1 - rnd_below(&r, i < 5 ? i : 5)] : NULL;
		struct hlo_instruction *a2 = i > 1 && rnd_below(&r, 3) == 0 ? ins[rnd_below(&r, i)] : NULL;
		ins[i] = tb_ins(e, names[i], OP_ADD, a1, a2, NULL);
	}
	for (int k = 0; k < 20; k++) {
		int u = rnd_below(&r, N - 1), v = u + 1 + rnd_below(&r, N - 1 - u);
		tb_ctrl(ins[u], ins[v]);
	}
	struct arena a;
	arena_init(&a);
	struct reach_options full = variants[0], large = variants[2];
	struct ordering *of = ordering_build_ex(m, ORDER_DEPENDENCY, &a, &full, NULL);
	struct ordering *ol = ordering_build_ex(m, ORDER_DEPENDENCY, &a, &large, NULL);
	assert_true(reach_is_full(ordering_reach_index(of, e)));
	assert_false(reach_is_full(ordering_reach_index(ol, e)));
	long pos = 0;
	for (int u = 0; u < N; u++)
		for (int v = 0; v < N; v++) {
			int x = ordering_reaches(of, ins[u], ins[v]);
			assert_int_equal(x, ordering_reaches(ol, ins[u], ins[v]));
			assert_int_equal(ordering_constraint(of, ins[u], ins[v]),
					 ordering_constraint(ol, ins[u], ins[v]));
			pos += x;
		}
	assert_true(pos > 1000);
	arena_free(&a);
	tb_free(m);
}

/* --- measurements (HLOPROOF_BENCH=1) -------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- parsed modules ---------------------------------------------------------- */

static const struct hlo_instruction *I(const struct hlo_module *m, const char *spec)
{
	const struct hlo_instruction *i = hlo_find_instruction_any(m, spec);
	if (!i)
		fail_msg("no instruction %s", spec);
	return i;
}

static const char while_cond_text[] =
	"HloModule m, is_scheduled=true\n"
	"\n"
	"%cond (cp: (s32[], f32[4])) -> pred[] {\n"
	"  %cp = (s32[], f32[4]) parameter(0)\n"
	"  %ci = s32[] get-tuple-element(%cp), index=0\n"
	"  %limit = s32[] constant(10)\n"
	"  ROOT %lt = pred[] compare(%ci, %limit), direction=LT\n"
	"}\n"
	"\n"
	"%body (bp: (s32[], f32[4])) -> (s32[], f32[4]) {\n"
	"  %bp = (s32[], f32[4]) parameter(0)\n"
	"  %bi = s32[] get-tuple-element(%bp), index=0\n"
	"  %bv = f32[4] get-tuple-element(%bp), index=1\n"
	"  %one = s32[] constant(1)\n"
	"  %next = s32[] add(%bi, %one)\n"
	"  %nv = f32[4] negate(%bv)\n"
	"  ROOT %bt = (s32[], f32[4]) tuple(%next, %nv)\n"
	"}\n"
	"\n"
	"%b0 (x0: f32[4]) -> f32[4] {\n"
	"  %x0 = f32[4] parameter(0)\n"
	"  ROOT %n0 = f32[4] negate(%x0)\n"
	"}\n"
	"\n"
	"%b1 (x1: f32[4]) -> f32[4] {\n"
	"  %x1 = f32[4] parameter(0)\n"
	"  ROOT %n1 = f32[4] abs(%x1)\n"
	"}\n"
	"\n"
	"ENTRY %main (p: f32[4], k: s32[]) -> (f32[4], f32[4]) {\n"
	"  %p = f32[4] parameter(0)\n"
	"  %k = s32[] parameter(1)\n"
	"  %zero = s32[] constant(0)\n"
	"  %init = (s32[], f32[4]) tuple(%zero, %p)\n"
	"  %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body\n"
	"  %out = f32[4] get-tuple-element(%w), index=1\n"
	"  %c = f32[4] conditional(%k, %p, %out), branch_computations={%b0, %b1}\n"
	"  %late = f32[4] exponential(%p)\n"
	"  ROOT %t = (f32[4], f32[4]) tuple(%c, %late)\n"
	"}\n";

static void test_parsed_while_and_conditional(void **state)
{
	struct hlo_module *m = parse_text(while_cond_text);
	struct arena a;
	arena_init(&a);
	struct ordering *dep = ordering_build(m, ORDER_DEPENDENCY, &a);
	struct ordering *seq = ordering_build(m, ORDER_SEQUENTIAL, &a);
	assert_non_null(dep);
	assert_non_null(seq);
	for (int k = 0; k < 2; k++) {
		struct ordering *o = k ? seq : dep;
		assert_constraint(o, I(m, "lt"), I(m, "nv"), EXEC_RUN_BEFORE_END);
		assert_constraint(o, I(m, "nv"), I(m, "lt"), EXEC_UNORDERED);
		assert_constraint(o, I(m, "nv"), I(m, "w"), EXEC_UNORDERED);
		assert_constraint(o, I(m, "init"), I(m, "nv"), EXEC_RUN_BEFORE_START);
		assert_constraint(o, I(m, "nv"), I(m, "out"), EXEC_RUN_BEFORE_START);
		assert_constraint(o, I(m, "n0"), I(m, "n1"), EXEC_EXCLUSIVE_BEFORE);
		assert_constraint(o, I(m, "n1"), I(m, "n0"), EXEC_EXCLUSIVE_AFTER);
		assert_constraint(o, I(m, "n1"), I(m, "c"), EXEC_RUN_BEFORE_END);
		assert_constraint(o, I(m, "c"), I(m, "x0"), EXEC_A_AFTER_B);
		assert_constraint(o, I(m, "nv"), I(m, "n1"), EXEC_RUN_BEFORE_START);
		assert_true(ordering_is_nested_in(o, I(m, "next"), hlo_find_computation(m, "body")));
		assert_int_equal(ordering_depth(o, hlo_find_computation(m, "b1")), 1);
	}
	/* late is independent of the loop: only the schedule orders them */
	assert_constraint(dep, I(m, "nv"), I(m, "late"), EXEC_UNORDERED);
	assert_constraint(seq, I(m, "nv"), I(m, "late"), EXEC_RUN_BEFORE_START);
	assert_constraint(seq, I(m, "late"), I(m, "c"), EXEC_A_AFTER_B);
	assert_int_equal(ordering_position(seq, I(m, "late")), 7);
	assert_int_equal(ordering_position(dep, I(m, "late")), 7);
	arena_free(&a);
	hlo_module_free(m);
}

/* The root printed before other instructions, and control predecessors. */
static void test_parsed_root_early_and_control(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule m, is_scheduled=true\n"
		"\n"
		"ENTRY %main (p: f32[4]) -> f32[4] {\n"
		"  %p = f32[4] parameter(0)\n"
		"  ROOT %r = f32[4] negate(%p)\n"
		"  %x = f32[4] abs(%p)\n"
		"  %y = f32[4] exponential(%p), control-predecessors={%x}\n"
		"}\n");
	struct arena a;
	arena_init(&a);
	struct ordering *dep = ordering_build(m, ORDER_DEPENDENCY, &a);
	struct ordering *seq = ordering_build_from(dep, ORDER_SEQUENTIAL, &a);
	assert_constraint(seq, I(m, "r"), I(m, "x"), EXEC_UNORDERED);
	assert_constraint(seq, I(m, "x"), I(m, "r"), EXEC_UNORDERED);
	assert_constraint(seq, I(m, "p"), I(m, "r"), EXEC_RUN_BEFORE_START);
	assert_constraint(dep, I(m, "x"), I(m, "y"), EXEC_RUN_BEFORE_START);
	assert_constraint(dep, I(m, "r"), I(m, "y"), EXEC_UNORDERED);
	assert_true(ordering_reaches(seq, I(m, "x"), I(m, "y")));
	arena_free(&a);
	hlo_module_free(m);
}

/* BFS over users and control successors inside one computation. */
static void bfs_ir(const struct hlo_instruction *u, uint8_t *seen, int32_t *queue)
{
	int32_t h = 0, t = 0;
	memset(seen, 0, (size_t)u->parent->n_instrs);
	queue[t++] = u->index;
	while (h < t) {
		const struct hlo_instruction *v = u->parent->instrs[queue[h++]];
		for (int k = 0; k < 2; k++) {
			int32_t n = k ? v->ext->n_ctrl_succs : v->n_users;
			struct hlo_instruction **next = k ? v->ext->ctrl_succs : v->users;
			for (int32_t i = 0; i < n; i++)
				if (next[i]->parent == u->parent && !seen[next[i]->index]) {
					seen[next[i]->index] = 1;
					queue[t++] = next[i]->index;
				}
		}
	}
}

/* Both orderings build on every parsable corpus file; reaches() agrees with
 * BFS on every pair of small computations and on sampled sources of big
 * ones; constraints are consistent when a and b are swapped. */
static void test_corpus(void **state)
{
	static const char *const dirs[] = { "corpus/real", "corpus/xla-alias", "corpus/xla-copy-insertion" };
	int verbose = getenv("HLOPROOF_VERBOSE") != NULL;
	int parsed = 0, files = 0;
	long pairs = 0;
	for (size_t di = 0; di < sizeof(dirs) / sizeof(dirs[0]); di++) {
		char *dir = shared_path(dirs[di]);
		char **list = list_files(dir, ".hlo");
		for (char **f = list; *f; f++) {
			files++;
			struct diag d;
			diag_init(&d, NULL);
			struct hlo_module *m = hlo_parse_file(*f, &d);
			if (!m)
				continue;
			parsed++;
			struct arena a;
			arena_init(&a);
			diag_init(&d, stderr);
			double t0 = now();
			struct ordering *dep = ordering_build_ex(m, ORDER_DEPENDENCY, &a, NULL, &d);
			double t1 = now();
			if (!dep)
				fail_msg("%s: dependency ordering failed: %s", *f, d.first);
			struct ordering *seq = ordering_build(m, ORDER_SEQUENTIAL, &a);
			if (!seq)
				fail_msg("%s: sequential ordering failed", *f);
			struct rng r = { (uint64_t)files };
			int32_t biggest = 0;
			for (int32_t c = 0; c < m->n_comps; c++) {
				const struct hlo_computation *comp = m->comps[c];
				int32_t n = comp->n_instrs;
				if (n > biggest)
					biggest = n;
				if (n < 2)
					continue;
				uint8_t *seen = malloc((size_t)n);
				int32_t *queue = malloc((size_t)n * sizeof(int32_t));
				int32_t ns = n <= 300 ? n : 12;
				for (int32_t k = 0; k < ns; k++) {
					const struct hlo_instruction *u = comp->instrs[n <= 300 ? k : rnd_below(&r, n)];
					bfs_ir(u, seen, queue);
					for (int32_t v = 0; v < n; v++) {
						int want = v != u->index && seen[v];
						if (ordering_reaches(dep, u, comp->instrs[v]) != want)
							fail_msg("%s: %s: reaches(%s, %s) != %d", *f, comp->name,
								 u->name, comp->instrs[v]->name, want);
						pairs++;
					}
				}
				/* positions: a topological order; the text index if scheduled */
				for (int32_t i = 0; i < n; i++) {
					const struct hlo_instruction *x = comp->instrs[i];
					for (int32_t k = 0; k < x->n_users; k++)
						if (x->users[k]->parent == comp)
							assert_true(ordering_position(dep, x) <
								    ordering_position(dep, x->users[k]));
					assert_int_equal(ordering_position(seq, x), i);
				}
				free(seen);
				free(queue);
			}
			/* random pairs across the module */
			for (int k = 0; k < 2000 && m->n_instrs > 1; k++) {
				const struct hlo_computation *ca = m->comps[rnd_below(&r, m->n_comps)];
				const struct hlo_computation *cb = m->comps[rnd_below(&r, m->n_comps)];
				if (!ca->n_instrs || !cb->n_instrs)
					continue;
				const struct hlo_instruction *x = ca->instrs[rnd_below(&r, ca->n_instrs)];
				const struct hlo_instruction *y = cb->instrs[rnd_below(&r, cb->n_instrs)];
				for (int o = 0; o < 2; o++) {
					struct ordering *ord = o ? seq : dep;
					enum exec_constraint xy = ordering_constraint(ord, x, y);
					enum exec_constraint yx = ordering_constraint(ord, y, x);
					if (xy == EXEC_RUN_BEFORE_START)
						assert_int_equal(yx, EXEC_A_AFTER_B);
					if (xy == EXEC_EXCLUSIVE_BEFORE)
						assert_int_equal(yx, EXEC_EXCLUSIVE_AFTER);
					assert_int_equal(xy == EXEC_SAME, yx == EXEC_SAME);
					assert_false(ordering_executes_before(ord, x, y) &&
						     ordering_executes_before(ord, y, x));
				}
			}
			if (verbose)
				printf("%-60s comps %5d instrs %7d biggest %6d  dep build %7.1f ms  mem %5.1f MB\n",
				       *f + strlen(dir) + 1, m->n_comps, m->n_instrs, biggest,
				       (t1 - t0) * 1e3, (double)a.total / 1e6);
			arena_free(&a);
			hlo_module_free(m);
		}
		free_list(list);
		free(dir);
	}
	if (verbose)
		printf("corpus: %d of %d files parsed, %ld pairs checked\n", parsed, files, pairs);
	assert_true(files > 100);
	assert_true(parsed > files / 2);
}

static void bench_one(const char *label, const struct dag *g, const struct reach_options *opt,
		      int32_t queries, int32_t local_span)
{
	struct arena a;
	arena_init(&a);
	double t0 = now();
	struct reach_index *ri = reach_build(g->n, g->off, g->succ, opt, &a, NULL);
	double t1 = now();
	assert_non_null(ri);
	struct rng r = { 12345 };
	int32_t *qu = malloc((size_t)queries * sizeof(int32_t)), *qv = malloc((size_t)queries * sizeof(int32_t));
	for (int k = 0; k < 2; k++) {
		/* k = 0: uniform pairs; k = 1: pairs at most local_span apart in
		 * id order (instructions near each other, as live ranges ask) */
		for (int32_t i = 0; i < queries; i++) {
			qu[i] = rnd_below(&r, g->n);
			qv[i] = k == 0 ? rnd_below(&r, g->n)
				       : qu[i] + rnd_below(&r, 2 * local_span + 1) - local_span;
			if (qv[i] < 0 || qv[i] >= g->n)
				qv[i] = rnd_below(&r, g->n);
		}
		reach_reset_stats(ri);
		long yes = 0;
		double q0 = now();
		for (int32_t i = 0; i < queries; i++)
			yes += reach_query(ri, qu[i], qv[i]);
		double q1 = now();
		const struct reach_stats *st = reach_get_stats(ri);
		printf("%-26s n=%-8d e=%-8d build %7.1f ms  mem %6.1f B/node  %-7s %6.2f Mq/s  "
		       "yes %4.1f%%  rank %4.1f%% window %4.1f%% cut %4.1f%% search %5.2f%% "
		       "(%.0f%% yes, avg %.0f max %llu visited)\n",
		       label, g->n, g->m, (t1 - t0) * 1e3, (double)a.total / g->n,
		       k ? "local" : "uniform", queries / (q1 - q0) / 1e6,
		       100.0 * yes / queries, 100.0 * st->by_rank / st->queries,
		       100.0 * st->by_window / st->queries, 100.0 * st->by_cut / st->queries,
		       100.0 * st->by_search / st->queries,
		       st->by_search ? 100.0 * st->search_yes / st->by_search : 0.0,
		       st->by_search ? (double)st->visited / st->by_search : 0.0,
		       (unsigned long long)st->max_visited);
	}
	free(qu);
	free(qv);
	arena_free(&a);
}

/* The real corpus: every computation on the large path, as a DAG. */
static void bench_corpus(const struct reach_options *opt)
{
	char *dir = shared_path("corpus/real");
	char **list = list_files(dir, ".hlo");
	for (char **f = list; *f; f++) {
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (!m)
			continue;
		for (int32_t c = 0; c < m->n_comps; c++) {
			const struct hlo_computation *comp = m->comps[c];
			if (comp->n_instrs <= opt->full_max)
				continue;
			/* the same edges ordering.c uses */
			int32_t n = comp->n_instrs, k = 0;
			int32_t *src = NULL, *dst = NULL;
			size_t cap = 0;
			for (int32_t i = 0; i < n; i++) {
				const struct hlo_instruction *y = comp->instrs[i];
				for (int32_t j = 0; j < y->n_operands + y->ext->n_ctrl_preds; j++) {
					const struct hlo_instruction *x = j < y->n_operands ? y->operands[j]
						: y->ext->ctrl_preds[j - y->n_operands];
					if ((size_t)k == cap) {
						cap = cap ? 2 * cap : 1024;
						src = realloc(src, cap * sizeof(int32_t));
						dst = realloc(dst, cap * sizeof(int32_t));
					}
					src[k] = x->index;
					dst[k++] = i;
				}
			}
			struct dag g = dag_from_edges(n, k, src, dst, NULL);
			char label[64];
			const char *base = strrchr(*f, '/');
			snprintf(label, sizeof label, "%.18s:%.7s", base ? base + 1 : *f, comp->name);
			bench_one(label, &g, opt, 1000000, 2000);
			dag_free(&g);
			free(src);
			free(dst);
		}
		hlo_module_free(m);
	}
	free_list(list);
	free(dir);
}

/* A whole module (HLOPROOF_BENCH_FILE): both orderings, reaches() on random
 * pairs of its biggest computation, constraints on random pairs anywhere. */
static void bench_module(const char *path)
{
	struct diag d;
	diag_init(&d, stderr);
	double t0 = now();
	struct hlo_module *m = hlo_parse_file(path, &d);
	double t1 = now();
	if (!m)
		return;
	const struct hlo_computation *big = m->comps[0];
	for (int32_t c = 0; c < m->n_comps; c++)
		if (m->comps[c]->n_instrs > big->n_instrs)
			big = m->comps[c];
	struct arena a;
	arena_init(&a);
	double t2 = now();
	struct ordering *dep = ordering_build(m, ORDER_DEPENDENCY, &a);
	double t3 = now();
	struct ordering *seq = ordering_build_from(dep, ORDER_SEQUENTIAL, &a);
	printf("%s: %d computations, %d instructions, biggest %d (%s); parse %.0f ms; "
	       "orderings %.0f ms, %.1f MB (%.0f B/instruction)\n",
	       path, m->n_comps, m->n_instrs, big->n_instrs, big->name, (t1 - t0) * 1e3,
	       (t3 - t2) * 1e3, a.total / 1e6, (double)a.total / m->n_instrs);
	struct rng r = { 5 };
	long yes = 0, n = 2000000;
	double q0 = now();
	for (long i = 0; i < n; i++)
		yes += ordering_reaches(dep, big->instrs[rnd_below(&r, big->n_instrs)],
					big->instrs[rnd_below(&r, big->n_instrs)]);
	double q1 = now();
	const struct reach_stats *st = reach_get_stats(ordering_reach_index(dep, big));
	printf("  reaches() in %s: %.1f M/s, yes %.1f%%, searched %.2f%% (avg %.0f, max %llu visited)\n",
	       big->name, n / (q1 - q0) / 1e6, 100.0 * yes / n,
	       100.0 * st->by_search / st->queries,
	       st->by_search ? (double)st->visited / st->by_search : 0.0,
	       (unsigned long long)st->max_visited);
	long count[EXEC_UNORDERED + 1] = { 0 };
	n = 1000000;
	q0 = now();
	for (long i = 0; i < n; i++) {
		const struct hlo_computation *ca = m->comps[rnd_below(&r, m->n_comps)];
		const struct hlo_computation *cb = m->comps[rnd_below(&r, m->n_comps)];
		if (!ca->n_instrs || !cb->n_instrs)
			continue;
		count[ordering_constraint(seq, ca->instrs[rnd_below(&r, ca->n_instrs)],
					  cb->instrs[rnd_below(&r, cb->n_instrs)])]++;
	}
	q1 = now();
	printf("  constraint() on random pairs anywhere (sequential): %.1f M/s;", n / (q1 - q0) / 1e6);
	for (int k = 0; k <= EXEC_UNORDERED; k++)
		printf(" %s %ld", exec_constraint_name((enum exec_constraint)k), count[k]);
	printf("\n");
	arena_free(&a);
	hlo_module_free(m);
}

static void bench(void)
{
	struct reach_options def;
	reach_default_options(&def);
	const char *o = getenv("HLOPROOF_BENCH_OPT"); /* "window_words,n_grail,lm_words" */
	if (o)
		sscanf(o, "%d,%d,%d", &def.window_words, &def.n_grail, &def.lm_words);
	const char *file = getenv("HLOPROOF_BENCH_FILE");
	if (file && *file) {
		bench_module(file);
		return;
	}
	bench_corpus(&def);
	const char *b = getenv("HLOPROOF_BENCH");
	if (!strcmp(b, "corpus"))
		return;
	static const struct { int32_t n; enum dag_shape shape; int shuffle; const char *name; } cases[] = {
		{ 1000, SHAPE_DATAFLOW, 0, "dataflow 1e3" },
		{ 100000, SHAPE_DATAFLOW, 0, "dataflow 1e5" },
		{ 100000, SHAPE_DATAFLOW, 1, "dataflow 1e5 shuffled" },
		{ 100000, SHAPE_CHAINS, 0, "chains 1e5" },
		{ 100000, SHAPE_LAYERED, 0, "layered 1e5" },
		{ 100000, SHAPE_SPARSE, 0, "sparse 1e5" },
		{ 1000000, SHAPE_DATAFLOW, 0, "dataflow 1e6" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rng r = { 777 + c };
		struct dag g = gen_dag(&r, cases[c].n, cases[c].shape, cases[c].shuffle);
		bench_one(cases[c].name, &g, &def, 1000000, 2000);
		dag_free(&g);
	}
	/* a module of 10^6 instructions in 1000 computations of 1000: all on
	 * the full-closure path */
	static const int32_t split[] = { 1000, 200 };
	for (int k = 0; k < 2; k++) {
		int32_t size = split[k], count = 1000000 / size;
		struct rng r = { 4242 };
		struct arena a;
		arena_init(&a);
		double build = 0;
		struct reach_index **idx = malloc((size_t)count * sizeof(*idx));
		for (int32_t i = 0; i < count; i++) {
			struct dag g = gen_dag(&r, size, SHAPE_DATAFLOW, 0);
			double t0 = now();
			idx[i] = reach_build(g.n, g.off, g.succ, &def, &a, NULL);
			build += now() - t0;
			dag_free(&g);
		}
		double q0 = now();
		long yes = 0, nq = 10000000;
		for (long q = 0; q < nq; q++) {
			struct reach_index *ri = idx[rnd_below(&r, count)];
			yes += reach_query(ri, rnd_below(&r, size), rnd_below(&r, size));
		}
		double q1 = now();
		printf("%d x dataflow %-6d (full)  build %7.1f ms  mem %6.1f B/node  uniform %6.2f Mq/s  yes %4.1f%%\n",
		       count, size, build * 1e3, (double)a.total / 1e6, nq / (q1 - q0) / 1e6,
		       100.0 * yes / nq);
		free(idx);
		arena_free(&a);
	}
}

/* Every pair of computation k's instructions answered alike by o and full,
 * and o's positions (where it has them) a topological order of full. */
static void assert_same_order(struct ordering *o, struct ordering *full, const struct hlo_computation *k)
{
	for (int32_t i = 0; i < k->n_instrs; i++)
		for (int32_t j = 0; j < k->n_instrs; j++) {
			const struct hlo_instruction *x = k->instrs[i], *y = k->instrs[j];
			int got = ordering_reaches(o, x, y), want = ordering_reaches(full, x, y);
			if (got != want)
				fail_msg("%s ->* %s in %s: %d with the edges over the index, %d built in full",
					 x->name, y->name, k->name, got, want);
			assert_int_equal(ordering_before_in_computation(o, x, y), want);
			int32_t px = ordering_position(o, x), py = ordering_position(o, y);
			if (want && px >= 0 && py >= 0)
				assert_true(px < py);
		}
}

/* A module whose entry has n instructions, each reading one to three
 * earlier ones, a few with control predecessors too. */
static struct hlo_module *random_module(struct rng *r, int32_t n)
{
	size_t cap = (size_t)n * 160 + 512, len = 0;
	char *t = xmalloc(cap, 1);
	len += (size_t)snprintf(t + len, cap - len, "HloModule m\nENTRY %%e (p: f32[4]) -> f32[4] {\n"
			       "  %%x0 = f32[4] parameter(0)\n");
	for (int32_t i = 1; i < n; i++) {
		int32_t a = rnd_below(r, i), b = rnd_below(r, i);
		len += (size_t)snprintf(t + len, cap - len, "  %s%%x%d = f32[4] add(%%x%d, %%x%d)", i == n - 1 ? "ROOT " : "",
				       i, a, b);
		if (i > 2 && rnd_below(r, 4) == 0)
			len += (size_t)snprintf(t + len, cap - len, ", control-predecessors={%%x%d}", (int)rnd_below(r, i));
		len += (size_t)snprintf(t + len, cap - len, "\n");
	}
	snprintf(t + len, cap - len, "}\n");
	struct hlo_module *m = parse_text(t);
	free(t);
	return m;
}

/* Control edges put into a module for a while (rewrite.h hlo_edges_*) and
 * the ordering built over them (ordering_build_with_edges: a few edges over
 * the computation's index, many by building it again, a computation whose
 * control edges were dropped built again) answer every pair as a full
 * build of the module with the edges on, and are NULL exactly when that
 * has a cycle; with the edges off the module answers as before. */
static void test_ordering_with_edges(void **state)
{
	(void)state;
	int32_t cycles = 0, acyclic = 0, rebuilt = 0, stripped = 0;
	for (int seed = 0; seed < 120; seed++) {
		struct rng r = { (uint64_t)seed * 104729u + 7 };
		int32_t n = 8 + rnd_below(&r, 60) + (seed % 10 == 9) * 60;
		struct hlo_module *m = random_module(&r, n);
		assert_non_null(m);
		struct ordering *base = ordering_build(m, ORDER_DEPENDENCY, &m->arena);
		assert_non_null(base);
		const struct hlo_computation *e = m->entry;
		/* mostly a few edges; some sets over the overlay's 64 */
		int32_t k = seed % 10 == 9 ? 65 + rnd_below(&r, 30) : 1 + rnd_below(&r, 6);
		const struct hlo_instruction **from = xmalloc((size_t)k, sizeof(*from));
		const struct hlo_instruction **to = xmalloc((size_t)k, sizeof(*to));
		for (int32_t i = 0; i < k; i++) {
			int32_t a = rnd_below(&r, n), b = rnd_below(&r, n - 1);
			b += b >= a;
			/* most edges forward in the text (many edges: all of
			 * them, or they always close a cycle) */
			if ((k > 64 || rnd_below(&r, 3)) && a > b) {
				int32_t x = a;
				a = b;
				b = x;
			}
			from[i] = e->instrs[a];
			to[i] = e->instrs[b];
		}
		/* a third of the sets drop one instruction's control edges too */
		const struct hlo_instruction *strip[1];
		int32_t n_strip = 0;
		for (int32_t i = 0; i < n && seed % 3 == 1 && !n_strip; i++)
			if (e->instrs[i]->ext->n_ctrl_preds > 0)
				strip[n_strip++] = e->instrs[i];
		struct arena A;
		arena_init(&A);
		int cycle = 0;
		struct hlo_edge_set *E = hlo_edges_prepare_stripped(m, k, from, to, strip, n_strip, &A, &cycle);
		assert_non_null(E);
		hlo_edges_on(E);
		const struct hlo_computation *changed[] = {e};
		struct ordering *o = ordering_build_with_edges(base, k, from, to, changed, n_strip, &A, NULL);
		struct ordering *full = ordering_build(m, ORDER_DEPENDENCY, &A);
		assert_int_equal(o == NULL, full == NULL);
		if (o) {
			assert_same_order(o, full, e);
			acyclic++;
			rebuilt += k > 64;
			stripped += n_strip;
		} else {
			cycles++;
		}
		hlo_edges_off(E);
		/* the module as it was */
		struct ordering *again = ordering_build(m, ORDER_DEPENDENCY, &A);
		assert_same_order(base, again, e);
		arena_free(&A);
		free(from);
		free(to);
		hlo_module_free(m);
	}
	/* each kind of set was seen */
	printf("edge sets: %d with a cycle, %d without (%d over 64 edges, %d with control edges dropped)\n", cycles, acyclic, rebuilt, stripped);
	assert_true(cycles > 5 && acyclic > 20 && rebuilt > 1 && stripped > 5);
}

/* An edge to itself or across computations is refused; r -> b closes a
 * cycle through the data (b reaches r). */
static void test_edges_refused(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule m\n"
		"%body (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n"
		"  %x = f32[4] negate(%p)\n  %y = f32[4] exponential(%p)\n"
		"  ROOT %z = f32[4] add(%x, %y)\n}\n"
		"ENTRY %e (a: f32[4]) -> f32[4] {\n  %a = f32[4] parameter(0)\n"
		"  %b = f32[4] negate(%a)\n  %c = f32[4] abs(%a)\n  %d = f32[4] sqrt(%a)\n"
		"  %k = f32[4] call(%c), to_apply=%body\n"
		"  ROOT %r = f32[4] add(%b, %k)\n}\n");
	struct ordering *base = ordering_build(m, ORDER_DEPENDENCY, &m->arena);
	assert_non_null(base);
	const struct hlo_computation *e = m->entry, *body = hlo_find_computation(m, "body");
	const struct hlo_instruction *b = hlo_find_instruction(e, "b"), *r = hlo_find_instruction(e, "r");
	struct arena A;
	arena_init(&A);
	int cycle = 0;
	const struct hlo_instruction *f2[] = {r}, *t2[] = {b};
	struct hlo_edge_set *E = hlo_edges_prepare(m, 1, f2, t2, &A, &cycle);
	assert_non_null(E);
	hlo_edges_on(E);
	assert_null(ordering_build_with_edges(base, 1, f2, t2, NULL, 0, &A, NULL));
	hlo_edges_off(E);
	assert_ptr_equal(b->ext, HLO_NO_EXT);
	const struct hlo_instruction *z = hlo_find_instruction(body, "z");
	const struct hlo_instruction *f3[] = {b}, *t3[] = {z};
	assert_null(hlo_edges_prepare(m, 1, f3, t3, &A, &cycle));
	assert_int_equal(cycle, 0);
	assert_null(hlo_edges_prepare(m, 1, f3, f3, &A, &cycle));
	assert_int_equal(cycle, 1);
	/* the body keeps base's index, the entry's answers go over it */
	const struct hlo_instruction *d = hlo_find_instruction(e, "d"), *c = hlo_find_instruction(e, "c");
	const struct hlo_instruction *f4[] = {d, b}, *t4[] = {b, c};
	E = hlo_edges_prepare(m, 2, f4, t4, &A, &cycle);
	hlo_edges_on(E);
	struct ordering *o = ordering_build_with_edges(base, 2, f4, t4, NULL, 0, &A, NULL);
	hlo_edges_off(E);
	assert_non_null(o);
	assert_true(ordering_reaches(o, d, c));
	assert_false(ordering_reaches(base, d, c));
	assert_ptr_equal(ordering_reach_index(o, body), ordering_reach_index(base, body));
	assert_int_equal(ordering_position(o, d), -1); /* d -> b runs against the order */
	arena_free(&A);
	hlo_module_free(m);
}

int main(void)
{
	const char *b = getenv("HLOPROOF_BENCH");
	if (b && *b && strcmp(b, "0")) {
		bench();
		return 0;
	}
	const char *only = getenv("TEST_FILTER");
	if (only && *only)
		cmocka_set_test_filter(only);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reach_identity_and_cycles),
		cmocka_unit_test(test_reach_random_small),
		cmocka_unit_test(test_reach_random_large),
		cmocka_unit_test(test_constraint_siblings_and_control),
		cmocka_unit_test(test_constraint_sequential_root_early),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_constraint_while),
		cmocka_unit_test(test_constraint_conditional),
		cmocka_unit_test(test_constraint_calls_and_async),
		cmocka_unit_test(test_async_chain_and_double_callsite),
		cmocka_unit_test(test_fusion_computation),
		cmocka_unit_test(test_cycles_rejected),
		cmocka_unit_test(test_ordering_threshold_paths),
		cmocka_unit_test(test_parsed_while_and_conditional),
		cmocka_unit_test(test_parsed_root_early_and_control),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_ordering_with_edges),
		cmocka_unit_test(test_edges_refused),
	};
	return cmocka_run_group_tests_name("ordering", tests, NULL, NULL);
}
