/* reach.c - exact reachability index over one DAG; see reach.h.
 *
 * Everything below works in rank space: nodes are renumbered by a fixed
 * topological order, so every edge goes from a lower to a higher rank and
 * "v reachable from u" needs rank(u) < rank(v). The cuts used on large graphs
 * (each is a necessary or a sufficient condition, never a guess):
 *  - window: bit j of win[r] says rank r+1+j is reachable from r, exact for
 *    ranks up to W ahead (the full closure is the case W >= n);
 *  - GRAIL (Yildirim et al. 2010): a DFS post-order number post(v) and
 *    low(v) = min post over v and its descendants; u reaches v implies
 *    [low(v), post(v)] inside [low(u), post(u)] with post(v) < post(u);
 *  - the same DFS's tree: with post(v) < post(u), pre(u) < pre(v) says v is
 *    a tree descendant of u (found while u was on the stack), so reachable;
 *  - landmarks (as in O'Reach, Hanauer et al. 2020): for up to 64*lm_words
 *    chosen nodes, out(x) = landmarks reachable from x (x itself included),
 *    in(x) = landmarks reaching x. u reaches v implies out(v) within out(u)
 *    and in(u) within in(v); out(u) meeting in(v) implies u reaches v.
 * What the cuts leave is settled by a DFS from u that only enters nodes of
 * rank below rank(v) which the cuts do not rule out, and stops at the first
 * node whose window or landmarks prove the path. */
#include "reach.h"
#include "diag.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

#define MAX_FULL 32768
#define MAX_WINDOW_WORDS 8
#define MAX_GRAIL 4
#define MAX_LM_WORDS 4

struct reach_index {
	int32_t n;
	int full;
	/* NULL when the node ids are topological already (the rank is the id):
	 * 8 bytes a node not stored, HLO text is normally in that order */
	int32_t *rank;      /* node -> rank */
	int32_t *node;      /* rank -> node */
	/* window / closure bitsets by rank */
	int32_t ww;         /* words per row (large) */
	int64_t wbits;      /* window width W in ranks (large) */
	uint64_t *win;
	size_t *off;        /* full: start word of row r */
	/* large only */
	int32_t *soff, *succ;   /* successors by rank, sorted ascending, distinct */
	/* per-node label record of `stride` words: for each traversal g,
	 * word g = low | post << 32; then lmw words of landmarks reachable
	 * from the node, then lmw words of landmarks reaching it */
	int32_t n_grail, lmw, stride;
	uint64_t *lab;
	uint32_t *pre;      /* [node * n_grail + g]: pre-order number in traversal g */
	/* the bounded search's scratch, allocated in `arena` by the first
	 * search: the cuts settle most queries, often all of them */
	struct arena *arena;
	uint32_t *mark;
	uint32_t epoch;
	int32_t *stack;
	struct reach_stats stats;
};

void reach_default_options(struct reach_options *opt)
{
	opt->full_max = 1024;
	opt->window_words = 2;
	opt->n_grail = 3;
	opt->lm_words = 1;
}

/* scratch ints a reach_build keeps on the stack (8 KiB) */
#define REACH_STACK_INTS 2048

static void *aalloc(struct arena *a, size_t n, size_t size)
{
	void *p = arena_array(a, n, size);
	if (!p)
		die("reach: allocation overflows");
	return p;
}

/* --- topological numbering ------------------------------------------------ */

static void heap_push(int32_t *h, int32_t *len, int32_t x)
{
	int32_t i = (*len)++;
	while (i > 0) {
		int32_t p = (i - 1) / 2;
		if (h[p] <= x)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static int32_t heap_pop(int32_t *h, int32_t *len)
{
	int32_t top = h[0], x = h[--(*len)], i = 0;
	for (;;) {
		int32_t c = 2 * i + 1;
		if (c >= *len)
			break;
		if (c + 1 < *len && h[c + 1] < h[c])
			c++;
		if (x <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	if (*len > 0)
		h[i] = x;
	return top;
}

static int is_topological(int32_t n, const int32_t *off, const int32_t *succ)
{
	for (int32_t u = 0; u < n; u++)
		for (int32_t e = off[u]; e < off[u + 1]; e++)
			if (succ[e] <= u)
				return 0;
	return 1;
}

/* Kahn's algorithm taking the smallest ready node id first: the result is the
 * lexicographically smallest topological order, hence the identity when the
 * ids are already topological (is_topological: not computed then). Returns 0,
 * or -1 on a cycle. */
static int topo_number(int32_t n, const int32_t *off, const int32_t *succ,
		       int32_t *rank, int32_t *node, int32_t *cycle_node)
{
	int32_t *indeg = xmalloc((size_t)n, sizeof(int32_t));
	int32_t *heap = xmalloc((size_t)n, sizeof(int32_t));
	int32_t hl = 0, k = 0;
	memset(indeg, 0, (size_t)n * sizeof(int32_t));
	for (int32_t e = 0; e < off[n]; e++)
		indeg[succ[e]]++;
	for (int32_t u = 0; u < n; u++)
		if (!indeg[u])
			heap_push(heap, &hl, u);
	while (hl) {
		int32_t u = heap_pop(heap, &hl);
		rank[u] = k;
		node[k++] = u;
		for (int32_t e = off[u]; e < off[u + 1]; e++)
			if (--indeg[succ[e]] == 0)
				heap_push(heap, &hl, succ[e]);
	}
	if (k < n && cycle_node) {
		/* walk back along unfinished predecessors: after at most n steps
		 * we must be going round a cycle, so report a node on it */
		int32_t v = -1;
		for (int32_t u = 0; u < n && v < 0; u++)
			if (indeg[u])
				v = u;
		int32_t *pred = heap; /* reuse: one unfinished predecessor per node */
		for (int32_t u = 0; u < n; u++)
			pred[u] = -1;
		for (int32_t u = 0; u < n; u++)
			if (indeg[u])
				for (int32_t e = off[u]; e < off[u + 1]; e++)
					if (indeg[succ[e]])
						pred[succ[e]] = u;
		for (int32_t i = 0; i < n && pred[v] >= 0; i++)
			v = pred[v];
		*cycle_node = v;
	}
	free(indeg);
	free(heap);
	return k < n ? -1 : 0;
}

static int32_t rank_of(const struct reach_index *r, int32_t u)
{
	return r->rank ? r->rank[u] : u;
}

static int32_t node_of(const struct reach_index *r, int32_t k)
{
	return r->node ? r->node[k] : k;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static void sort_i32(int32_t *v, int32_t n)
{
	if (n > 16) {
		qsort(v, (size_t)n, sizeof(int32_t), cmp_i32);
		return;
	}
	for (int32_t i = 1; i < n; i++) {
		int32_t x = v[i], j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* --- bitsets -------------------------------------------------------------- */

static int test_bit(const uint64_t *w, int64_t i)
{
	return (int)((w[i >> 6] >> (i & 63)) & 1);
}

/* dst |= src << shift, keeping dst's dw words. */
static void or_shifted(uint64_t *dst, int64_t dw, const uint64_t *src, int64_t sw, int64_t shift)
{
	int64_t q = shift >> 6;
	unsigned b = (unsigned)(shift & 63);
	for (int64_t i = 0; i < sw && i + q < dw; i++) {
		uint64_t x = src[i];
		if (!x)
			continue;
		dst[i + q] |= x << b;
		if (b && i + q + 1 < dw)
			dst[i + q + 1] |= x >> (64 - b);
	}
}

/* --- cuts ------------------------------------------------------------------ */

static uint32_t lo32(uint64_t x) { return (uint32_t)x; }
static uint32_t hi32(uint64_t x) { return (uint32_t)(x >> 32); }

/* 1: rank a surely reaches rank b; -1: surely not; 0: not settled. Only for
 * a < b beyond the window. */
static int cut(const struct reach_index *r, int32_t a, int32_t b)
{
	const uint64_t *la = r->lab + (size_t)a * r->stride, *lb = r->lab + (size_t)b * r->stride;
	int sure = 0;
	const uint32_t *pa = r->pre + (size_t)a * r->n_grail, *pb = r->pre + (size_t)b * r->n_grail;
	for (int32_t g = 0; g < r->n_grail; g++) {
		uint64_t ia = la[g], ib = lb[g];
		/* GRAIL: [low(b), post(b)] inside [low(a), post(a)), strictly */
		if (lo32(ib) < lo32(ia) || hi32(ib) >= hi32(ia))
			return -1;
		/* tree: post(b) < post(a) here, so b is in a's DFS subtree when
		 * found after a */
		if (pb[g] > pa[g])
			sure = 1;
	}
	const uint64_t *oa = la + r->n_grail, *ob = lb + r->n_grail;
	const uint64_t *ia = oa + r->lmw, *ib = ob + r->lmw;
	for (int32_t i = 0; i < r->lmw; i++) {
		if ((ob[i] & ~oa[i]) || (ia[i] & ~ib[i]))
			return -1;
		if (oa[i] & ib[i])
			sure = 1;
	}
	return sure;
}

/* DFS from a through ranks below b, skipping what the cuts rule out. Each node
 * is pushed at most once (marked on push), so the cost is bounded by the
 * edges among ranks a..b, and in practice by the nodes the cuts leave open. */
static int search(struct reach_index *r, int32_t a, int32_t b)
{
	if (!r->mark) {
		r->mark = aalloc(r->arena, (size_t)r->n, sizeof(uint32_t));
		r->stack = aalloc(r->arena, (size_t)r->n, sizeof(int32_t));
	}
	uint32_t ep = ++r->epoch;
	if (ep == 0) {
		memset(r->mark, 0, (size_t)r->n * sizeof(uint32_t));
		ep = r->epoch = 1;
	}
	int32_t *st = r->stack, sp = 0;
	uint64_t visited = 0;
	st[sp++] = a;
	r->mark[a] = ep;
	int found = 0;
	while (sp && !found) {
		int32_t v = st[--sp];
		visited++;
		for (int32_t e = r->soff[v]; e < r->soff[v + 1]; e++) {
			int32_t s = r->succ[e];
			if (s >= b) {
				found = s == b;
				break;
			}
			if (r->mark[s] == ep)
				continue;
			r->mark[s] = ep;
			if ((int64_t)(b - s) <= r->wbits) {
				if ((found = test_bit(r->win + (size_t)s * r->ww, b - s - 1)))
					break;
				continue;
			}
			int c = cut(r, s, b);
			if ((found = c > 0))
				break;
			if (c == 0)
				st[sp++] = s;
		}
	}
	r->stats.visited += visited;
	if (visited > r->stats.max_visited)
		r->stats.max_visited = visited;
	return found;
}

int reach_query(struct reach_index *r, int32_t u, int32_t v)
{
	if (u == v || u < 0 || v < 0 || u >= r->n || v >= r->n)
		return 0;
	r->stats.queries++;
	int32_t a = rank_of(r, u), b = rank_of(r, v);
	if (a > b) {
		r->stats.by_rank++;
		return 0;
	}
	int64_t d = (int64_t)b - a;
	if (r->full) {
		r->stats.by_window++;
		return test_bit(r->win + r->off[a], d - 1);
	}
	if (d <= r->wbits) {
		r->stats.by_window++;
		return test_bit(r->win + (size_t)a * r->ww, d - 1);
	}
	int c = cut(r, a, b);
	if (c) {
		r->stats.by_cut++;
		return c > 0;
	}
	r->stats.by_search++;
	int yes = search(r, a, b);
	r->stats.search_yes += (uint64_t)yes;
	return yes;
}

/* --- building the large-graph labels -------------------------------------- */

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* One DFS traversal over the rank-space graph, roots and children in an order
 * that differs per traversal: pre-order numbers (tree descendants are
 * reachable), post-order numbers, then GRAIL's low() bottom-up (the smallest
 * post number among a node and its descendants). */
static void dfs_label(struct reach_index *r, int32_t g, const int32_t *indeg,
		      int32_t *stk, int32_t *it, int32_t *post)
{
	const int32_t n = r->n, S = r->stride, G = r->n_grail;
	uint64_t *lab = r->lab;
	uint32_t pre = 0, np = 0;
	for (int32_t v = 0; v < n; v++)
		post[v] = -1;
	for (int32_t k = 0; k < n; k++) {
		int32_t root = (g & 1) ? n - 1 - k : k;
		if (indeg[root] || post[root] != -1)
			continue;
		int32_t sp = 0;
		stk[sp] = root;
		it[sp++] = 0;
		post[root] = -2; /* on the stack */
		r->pre[(size_t)root * G + g] = pre++;
		while (sp) {
			int32_t v = stk[sp - 1];
			int32_t deg = r->soff[v + 1] - r->soff[v];
			if (it[sp - 1] == deg) {
				post[v] = (int32_t)np++;
				sp--;
				continue;
			}
			int32_t i = it[sp - 1]++;
			int32_t j;
			if (g == 0)
				j = i;
			else if (g == 1)
				j = deg - 1 - i;
			else
				j = (int32_t)((mix((uint32_t)v * 4u + (uint32_t)g) + (uint32_t)i) % (uint32_t)deg);
			int32_t s = r->succ[r->soff[v] + j];
			if (post[s] != -1)
				continue;
			post[s] = -2;
			r->pre[(size_t)s * G + g] = pre++;
			stk[sp] = s;
			it[sp++] = 0;
		}
	}
	for (int32_t v = n - 1; v >= 0; v--) {
		uint32_t low = (uint32_t)post[v];
		for (int32_t e = r->soff[v]; e < r->soff[v + 1]; e++) {
			uint32_t l = lo32(lab[(size_t)r->succ[e] * S + g]);
			if (l < low)
				low = l;
		}
		lab[(size_t)v * S + g] = low | (uint64_t)(uint32_t)post[v] << 32;
	}
}

/* Landmarks: split the ranks into as many blocks as there are landmark bits
 * and take, in each, the node with the most in*out edges (ties: the first), so
 * landmarks are spread along the graph and sit where paths cross. */
static void landmarks(struct reach_index *r, const int32_t *indeg)
{
	const int32_t n = r->n, w = r->lmw, S = r->stride;
	int64_t nl = (int64_t)w * 64;
	if (nl > n)
		nl = n;
	if (!nl)
		return;
	uint64_t *out = r->lab + r->n_grail, *in = out + w;
	int64_t bs = (n + nl - 1) / nl;
	for (int64_t k = 0; k * bs < n; k++) {
		int32_t best = (int32_t)(k * bs);
		int64_t best_score = -1;
		for (int64_t v = k * bs; v < n && v < (k + 1) * bs; v++) {
			int64_t s = (int64_t)indeg[v] * (r->soff[v + 1] - r->soff[v]);
			if (s > best_score) {
				best_score = s;
				best = (int32_t)v;
			}
		}
		out[(size_t)best * S + k / 64] |= 1ull << (k & 63);
		in[(size_t)best * S + k / 64] |= 1ull << (k & 63);
	}
	for (int32_t v = n - 1; v >= 0; v--)
		for (int32_t e = r->soff[v]; e < r->soff[v + 1]; e++)
			for (int32_t i = 0; i < w; i++)
				out[(size_t)v * S + i] |= out[(size_t)r->succ[e] * S + i];
	for (int32_t v = 0; v < n; v++)
		for (int32_t e = r->soff[v]; e < r->soff[v + 1]; e++)
			for (int32_t i = 0; i < w; i++)
				in[(size_t)r->succ[e] * S + i] |= in[(size_t)v * S + i];
}

static int32_t clamp(int32_t x, int32_t lo, int32_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

struct reach_index *reach_build(int32_t n, const int32_t *succ_off, const int32_t *succ,
				const struct reach_options *opt, struct arena *a,
				int32_t *cycle_node)
{
	struct reach_options def;
	if (!opt) {
		reach_default_options(&def);
		opt = &def;
	}
	if (n < 0)
		n = 0;
	struct reach_index *r = aalloc(a, 1, sizeof(*r));
	r->n = n;
	r->arena = a;
	if (!is_topological(n, succ_off, succ)) {
		r->rank = aalloc(a, (size_t)n, sizeof(int32_t));
		r->node = aalloc(a, (size_t)n, sizeof(int32_t));
		if (topo_number(n, succ_off, succ, r->rank, r->node, cycle_node) < 0)
			return NULL;
	}

	/* successors in rank space, sorted and distinct; kept only for large.
	 * soff, rs and indeg in one block, on the stack for a small graph: most
	 * computations are small (mixtral: 3,714 of 11 instructions on
	 * average), and these three mallocs and ordering.c's three for the
	 * graph were a third of a check's allocations, each taking the heap's
	 * lock under --jobs */
	int64_t m = succ_off[n] - succ_off[0];
	int32_t small[REACH_STACK_INTS];
	size_t n_ints = (size_t)n + 1 + (size_t)(m ? m : 1) + (size_t)(n ? n : 1);
	int32_t *block = n_ints <= REACH_STACK_INTS ? small : xmalloc(n_ints, sizeof(int32_t));
	int32_t *soff = block;
	int32_t *rs = soff + n + 1;
	int32_t *indeg = rs + (m ? m : 1);
	memset(indeg, 0, (size_t)(n ? n : 1) * sizeof(int32_t));
	int32_t k = 0;
	for (int32_t v = 0; v < n; v++) {
		int32_t u = node_of(r, v), s0 = k;
		soff[v] = k;
		for (int32_t e = succ_off[u]; e < succ_off[u + 1]; e++)
			rs[k++] = rank_of(r, succ[e]);
		sort_i32(rs + s0, k - s0);
		int32_t w = s0;
		for (int32_t i = s0; i < k; i++)
			if (i == s0 || rs[i] != rs[w - 1])
				rs[w++] = rs[i];
		k = w;
		for (int32_t i = s0; i < k; i++)
			indeg[rs[i]]++;
	}
	soff[n] = k;

	/* the closure is n^2/2 bits: never more than 64 MiB, whatever asked */
	r->full = n <= opt->full_max && n <= MAX_FULL;
	if (r->full) {
		r->off = aalloc(a, (size_t)n + 1, sizeof(size_t));
		size_t words = 0;
		for (int32_t v = 0; v < n; v++) {
			r->off[v] = words;
			words += (size_t)(n - 1 - v + 63) / 64;
		}
		r->off[n] = words;
		r->win = aalloc(a, words, sizeof(uint64_t));
		for (int32_t v = n - 1; v >= 0; v--) {
			uint64_t *row = r->win + r->off[v];
			int64_t rw = (int64_t)(r->off[v + 1] - r->off[v]);
			for (int32_t e = soff[v]; e < soff[v + 1]; e++) {
				int32_t s = rs[e];
				int64_t d = (int64_t)s - v;
				row[(d - 1) >> 6] |= 1ull << ((d - 1) & 63);
				or_shifted(row, rw, r->win + r->off[s],
					   (int64_t)(r->off[s + 1] - r->off[s]), d);
			}
		}
		if (block != small)
			free(block);
		return r;
	}

	r->ww = clamp(opt->window_words, 1, MAX_WINDOW_WORDS);
	r->wbits = (int64_t)r->ww * 64;
	r->n_grail = clamp(opt->n_grail, 0, MAX_GRAIL);
	r->lmw = clamp(opt->lm_words, 0, MAX_LM_WORDS);
	r->soff = aalloc(a, (size_t)n + 1, sizeof(int32_t));
	r->succ = aalloc(a, (size_t)(k ? k : 1), sizeof(int32_t));
	memcpy(r->soff, soff, ((size_t)n + 1) * sizeof(int32_t));
	memcpy(r->succ, rs, (size_t)k * sizeof(int32_t));

	r->win = aalloc(a, (size_t)n * r->ww, sizeof(uint64_t));
	for (int32_t v = n - 1; v >= 0; v--) {
		uint64_t *row = r->win + (size_t)v * r->ww;
		for (int32_t e = r->soff[v]; e < r->soff[v + 1]; e++) {
			int64_t d = (int64_t)r->succ[e] - v;
			if (d > r->wbits)
				break;
			row[(d - 1) >> 6] |= 1ull << ((d - 1) & 63);
			or_shifted(row, r->ww, r->win + (size_t)r->succ[e] * r->ww, r->ww, d);
		}
	}

	r->stride = r->n_grail + 2 * r->lmw;
	r->lab = aalloc(a, (size_t)n * r->stride, sizeof(uint64_t));
	r->pre = aalloc(a, (size_t)n * r->n_grail, sizeof(uint32_t));
	int32_t *stk = xmalloc((size_t)n, sizeof(int32_t));
	int32_t *it = xmalloc((size_t)n, sizeof(int32_t));
	int32_t *post = xmalloc((size_t)n, sizeof(int32_t));
	for (int32_t g = 0; g < r->n_grail; g++)
		dfs_label(r, g, indeg, stk, it, post);
	free(stk);
	free(it);
	free(post);
	landmarks(r, indeg);
	if (block != small)
		free(block);
	return r;
}

int32_t reach_rank(const struct reach_index *r, int32_t u)
{
	return u >= 0 && u < r->n ? rank_of(r, u) : -1;
}

int32_t reach_node_at(const struct reach_index *r, int32_t rank)
{
	return rank >= 0 && rank < r->n ? node_of(r, rank) : -1;
}

int32_t reach_size(const struct reach_index *r)
{
	return r->n;
}

int reach_is_full(const struct reach_index *r)
{
	return r->full;
}

const struct reach_stats *reach_get_stats(const struct reach_index *r)
{
	return &r->stats;
}

void reach_reset_stats(struct reach_index *r)
{
	memset(&r->stats, 0, sizeof(r->stats));
}
