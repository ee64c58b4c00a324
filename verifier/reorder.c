/* reorder.c - the order that moves the fewest instructions (reorder.h). */
#include "reorder.h"
#include "xalloc.h"
#include <string.h>

/* Above this many pairs in conflict the matching is not run (memory). */
#define REORDER_MAX_PAIRS (8LL * 1024 * 1024)
#define INF INT32_MAX

/* Adjacency lists in one array: node u's are adj[off[u] .. off[u+1]). */
struct csr {
	int32_t *off, *adj;
};

static void csr_build(struct csr *c, int32_t n, int32_t ne, const int32_t *from, const int32_t *to)
{
	c->off = xcalloc((size_t)n + 2, sizeof(int32_t));
	c->adj = xmalloc((size_t)ne + 1, sizeof(int32_t));
	for (int32_t e = 0; e < ne; e++)
		c->off[from[e] + 1]++;
	for (int32_t u = 0; u < n; u++)
		c->off[u + 1] += c->off[u];
	int32_t *fill = xmalloc((size_t)n + 1, sizeof(int32_t));
	memcpy(fill, c->off, (size_t)n * sizeof(int32_t));
	for (int32_t e = 0; e < ne; e++)
		c->adj[fill[from[e]]++] = to[e];
	free(fill);
}

static void csr_free(struct csr *c)
{
	free(c->off);
	free(c->adj);
}

/* Kahn's algorithm, the smallest ready node first (a min-heap). Returns how
 * many nodes were ordered (n unless there is a cycle). */
static int32_t kahn(int32_t n, const struct csr *succ, int32_t *order)
{
	int32_t *deg = xcalloc((size_t)n + 1, sizeof(int32_t));
	for (int32_t u = 0; u < n; u++)
		for (int32_t e = succ->off[u]; e < succ->off[u + 1]; e++)
			deg[succ->adj[e]]++;
	int32_t *heap = xmalloc((size_t)n + 1, sizeof(int32_t)), nh = 0, m = 0;
	for (int32_t u = 0; u < n; u++)
		if (!deg[u])
			heap[nh++] = u; /* ascending: already a heap */
	while (nh > 0) {
		int32_t top = heap[0], last = heap[--nh], at = 0;
		for (;;) { /* sift last down from the root */
			int32_t c = 2 * at + 1;
			if (c >= nh)
				break;
			if (c + 1 < nh && heap[c + 1] < heap[c])
				c++;
			if (last <= heap[c])
				break;
			heap[at] = heap[c];
			at = c;
		}
		if (nh > 0)
			heap[at] = last;
		order[m++] = top;
		for (int32_t e = succ->off[top]; e < succ->off[top + 1]; e++) {
			int32_t x = succ->adj[e];
			if (--deg[x])
				continue;
			int32_t q = nh++; /* sift x up */
			while (q > 0 && heap[(q - 1) / 2] > x) {
				heap[q] = heap[(q - 1) / 2];
				q = (q - 1) / 2;
			}
			heap[q] = x;
		}
	}
	free(deg);
	free(heap);
	return m;
}

/* Mark what a breadth-first walk from the marked nodes reaches. */
static void spread(int32_t n, const struct csr *g, uint8_t *mark)
{
	int32_t *q = xmalloc((size_t)n + 1, sizeof(int32_t)), nq = 0;
	for (int32_t u = 0; u < n; u++)
		if (mark[u])
			q[nq++] = u;
	for (int32_t h = 0; h < nq; h++)
		for (int32_t e = g->off[q[h]]; e < g->off[q[h] + 1]; e++)
			if (!mark[g->adj[e]]) {
				mark[g->adj[e]] = 1;
				q[nq++] = g->adj[e];
			}
	free(q);
}

/* Hopcroft-Karp: a maximum matching of the bipartite graph left u -> right
 * adj(u), both sides numbered 0..n-1. */
struct hk {
	int32_t n;
	const struct csr *g;
	int32_t *match_l, *match_r, *dist, *it, *queue, *stack;
};

static int hk_layers(struct hk *h)
{
	int32_t nq = 0, found = 0;
	for (int32_t u = 0; u < h->n; u++) {
		if (h->match_l[u] < 0 && h->g->off[u] < h->g->off[u + 1]) {
			h->dist[u] = 0;
			h->queue[nq++] = u;
		} else {
			h->dist[u] = INF;
		}
	}
	for (int32_t q = 0; q < nq; q++) {
		int32_t u = h->queue[q];
		for (int32_t e = h->g->off[u]; e < h->g->off[u + 1]; e++) {
			int32_t w = h->match_r[h->g->adj[e]];
			if (w < 0)
				found = 1;
			else if (h->dist[w] == INF) {
				h->dist[w] = h->dist[u] + 1;
				h->queue[nq++] = w;
			}
		}
	}
	return found;
}

/* An augmenting path from the free left vertex root along the layers
 * (iterative: the paths may be long). */
static int hk_augment(struct hk *h, int32_t root)
{
	int32_t sp = 0;
	h->stack[sp++] = root;
	while (sp > 0) {
		int32_t u = h->stack[sp - 1];
		if (h->it[u] == h->g->off[u + 1]) {
			h->dist[u] = INF;
			sp--;
			if (sp > 0)
				h->it[h->stack[sp - 1]]++;
			continue;
		}
		int32_t v = h->g->adj[h->it[u]], w = h->match_r[v];
		if (w < 0) {
			for (int32_t k = sp - 1; k >= 0; k--) {
				int32_t uk = h->stack[k], vk = h->g->adj[h->it[uk]];
				h->match_l[uk] = vk;
				h->match_r[vk] = uk;
			}
			return 1;
		}
		if (h->dist[w] != INF && h->dist[w] == h->dist[u] + 1)
			h->stack[sp++] = w;
		else
			h->it[u]++;
	}
	return 0;
}

static void hk_run(struct hk *h)
{
	int32_t n = h->n;
	h->match_l = xmalloc((size_t)n + 1, sizeof(int32_t));
	h->match_r = xmalloc((size_t)n + 1, sizeof(int32_t));
	h->dist = xmalloc((size_t)n + 1, sizeof(int32_t));
	h->it = xmalloc((size_t)n + 1, sizeof(int32_t));
	h->queue = xmalloc((size_t)n + 1, sizeof(int32_t));
	h->stack = xmalloc((size_t)n + 1, sizeof(int32_t));
	for (int32_t u = 0; u < n; u++)
		h->match_l[u] = h->match_r[u] = -1;
	while (hk_layers(h)) {
		for (int32_t u = 0; u < n; u++)
			h->it[u] = h->g->off[u];
		for (int32_t u = 0; u < n; u++)
			if (h->match_l[u] < 0 && h->dist[u] == 0)
				hk_augment(h, u);
	}
}

static void hk_free(struct hk *h)
{
	free(h->match_l);
	free(h->match_r);
	free(h->dist);
	free(h->it);
	free(h->queue);
	free(h->stack);
}

/* The nodes that keep their place: the largest set with no pair x < y
 * (printed) where y reaches x. kept[u] = 1 for them. Returns 0, or -1 when
 * the problem is over the limits. */
static int largest_kept(int32_t n, const struct csr *succ, const struct csr *pred, const int32_t *topo,
			const uint8_t *bsrc, const uint8_t *btgt, uint8_t *kept)
{
	/* a pair in conflict goes through a backward edge: y reaches one's
	 * source, x is reached from one's target */
	uint8_t *ua = xmalloc((size_t)n + 1, 1), *ud = xmalloc((size_t)n + 1, 1);
	memcpy(ua, bsrc, (size_t)n);
	memcpy(ud, btgt, (size_t)n);
	spread(n, pred, ua);
	spread(n, succ, ud);
	int32_t max_a = -1, min_d = n;
	for (int32_t u = 0; u < n; u++) {
		if (ua[u])
			max_a = u;
		if (ud[u] && u < min_d)
			min_d = u;
	}
	int32_t *col = xmalloc((size_t)n + 1, sizeof(int32_t)), nd = 0;
	int32_t *col_node = xmalloc((size_t)n + 1, sizeof(int32_t));
	for (int32_t u = 0; u < n; u++) {
		col[u] = -1;
		if (ud[u] && u < max_a) {
			col_node[nd] = u;
			col[u] = nd++;
		}
	}
	int rc = -1;
	uint64_t *reach = NULL;
	int32_t *pf = NULL, *pt = NULL;
	size_t words = ((size_t)nd + 63) / 64;
	if ((long long)n * (long long)(words * 64) > REORDER_MAX_BITS)
		goto out;
	reach = xcalloc((size_t)n * words + 1, sizeof(uint64_t));
	for (int32_t k = n - 1; k >= 0; k--) {
		int32_t u = topo[k];
		uint64_t *r = reach + (size_t)u * words;
		if (col[u] >= 0)
			r[col[u] / 64] |= 1ull << (col[u] % 64);
		for (int32_t e = succ->off[u]; e < succ->off[u + 1]; e++) {
			const uint64_t *s = reach + (size_t)succ->adj[e] * words;
			for (size_t w = 0; w < words; w++)
				r[w] |= s[w];
		}
	}
	/* the pairs x < y (printed), y reaching x: left x, right y */
	long long np = 0;
	for (int pass = 0; pass < 2; pass++) {
		np = 0;
		for (int32_t y = min_d + 1; y < n; y++) {
			if (!ua[y])
				continue;
			const uint64_t *r = reach + (size_t)y * words;
			for (size_t w = 0; w < words; w++)
				for (uint64_t b = r[w]; b; b &= b - 1) {
					int32_t x = col_node[w * 64 + (size_t)__builtin_ctzll(b)];
					if (x >= y)
						continue;
					if (pass)
						pf[np] = x, pt[np] = y;
					np++;
				}
		}
		if (np > REORDER_MAX_PAIRS)
			goto out;
		if (!pass) {
			pf = xmalloc((size_t)np + 1, sizeof(int32_t));
			pt = xmalloc((size_t)np + 1, sizeof(int32_t));
		}
	}
	struct csr g;
	csr_build(&g, n, (int32_t)np, pf, pt);
	struct hk h = {n, &g, NULL, NULL, NULL, NULL, NULL, NULL};
	hk_run(&h);
	/* Konig: from the free left vertices along alternating paths; kept
	 * are the nodes whose left side is reached and right side is not */
	uint8_t *zl = xcalloc((size_t)n + 1, 1), *zr = xcalloc((size_t)n + 1, 1);
	int32_t *q = h.queue, nq = 0;
	for (int32_t u = 0; u < n; u++)
		if (h.match_l[u] < 0) {
			zl[u] = 1;
			q[nq++] = u;
		}
	for (int32_t k = 0; k < nq; k++) {
		int32_t u = q[k];
		for (int32_t e = g.off[u]; e < g.off[u + 1]; e++) {
			int32_t v = g.adj[e];
			if (h.match_l[u] == v || zr[v])
				continue;
			zr[v] = 1;
			int32_t w = h.match_r[v];
			if (w >= 0 && !zl[w]) {
				zl[w] = 1;
				q[nq++] = w;
			}
		}
	}
	for (int32_t u = 0; u < n; u++)
		kept[u] = zl[u] && !zr[u];
	free(zl);
	free(zr);
	hk_free(&h);
	csr_free(&g);
	rc = 0;
out:
	free(pf);
	free(pt);
	free(reach);
	free(col);
	free(col_node);
	free(ua);
	free(ud);
	return rc;
}

int reorder_min_moves(int32_t n, int32_t n_edges, const int32_t *from, const int32_t *to,
		      int32_t *order, int32_t *moved, int *minimal)
{
	int32_t *f = xcalloc((size_t)n_edges + (size_t)n + 1, sizeof(int32_t));
	int32_t *t = xcalloc((size_t)n_edges + (size_t)n + 1, sizeof(int32_t));
	int32_t ne = 0, backward = 0;
	uint8_t *bsrc = xcalloc((size_t)n + 1, 1), *btgt = xcalloc((size_t)n + 1, 1);
	for (int32_t e = 0; e < n_edges; e++) {
		if (from[e] < 0 || from[e] >= n || to[e] < 0 || to[e] >= n || from[e] == to[e])
			continue;
		f[ne] = from[e];
		t[ne] = to[e];
		ne++;
		if (from[e] > to[e]) {
			bsrc[from[e]] = btgt[to[e]] = 1;
			backward++;
		}
	}
	struct csr succ, pred;
	csr_build(&succ, n, ne, f, t);
	csr_build(&pred, n, ne, t, f);
	int rc = 0, min = 1;
	if (kahn(n, &succ, order) < n) {
		rc = -1;
		goto out;
	}
	if (!backward) /* every edge runs forward: the printed order stands */
		goto out;
	uint8_t *kept = xmalloc((size_t)n + 1, 1);
	if (largest_kept(n, &succ, &pred, order, bsrc, btgt, kept) == 0) {
		/* the kept nodes chained in their printed order, the others as
		 * early as that allows */
		int32_t last = -1, ne2 = ne;
		for (int32_t u = 0; u < n; u++)
			if (kept[u]) {
				if (last >= 0) {
					f[ne2] = last;
					t[ne2] = u;
					ne2++;
				}
				last = u;
			}
		struct csr chained;
		csr_build(&chained, n, ne2, f, t);
		int32_t *o2 = xmalloc((size_t)n + 1, sizeof(int32_t));
		if (kahn(n, &chained, o2) == n)
			memcpy(order, o2, (size_t)n * sizeof(int32_t));
		else
			min = 0; /* cannot happen (the kept set has no conflict): Kahn's order */
		free(o2);
		csr_free(&chained);
	} else {
		min = 0;
	}
	free(kept);
out:
	if (rc == 0 && moved)
		*moved = reorder_moved(n, order, NULL);
	if (minimal)
		*minimal = rc == 0 && min;
	csr_free(&succ);
	csr_free(&pred);
	free(f);
	free(t);
	free(bsrc);
	free(btgt);
	return rc;
}

int32_t reorder_moved(int32_t n, const int32_t *order, uint8_t *out)
{
	/* patience sorting: tail[k] the entry ending the best run of length
	 * k + 1, prev[] to walk one run back */
	int32_t *tail = xmalloc((size_t)n + 1, sizeof(int32_t)), *prev = xmalloc((size_t)n + 1, sizeof(int32_t));
	int32_t len = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t lo = 0, hi = len;
		while (lo < hi) {
			int32_t mid = (lo + hi) / 2;
			if (order[tail[mid]] < order[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo > 0 ? tail[lo - 1] : -1;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	if (out && n > 0) {
		memset(out, 1, (size_t)n);
		for (int32_t i = len > 0 ? tail[len - 1] : -1; i >= 0; i = prev[i])
			out[i] = 0;
	}
	free(tail);
	free(prev);
	return n - len;
}
