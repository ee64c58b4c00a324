/* reach.h - exact reachability index over one DAG (one computation).
 *
 * Nodes are 0..n-1, edges given as a successor list (CSR). The index answers
 * "is v reachable from u by a non-empty path" exactly. Two layouts:
 *
 *  - full (n <= full_max): the transitive closure as bitsets, stored in a
 *    topological numbering so that row r only holds ranks r+1..n-1
 *    (n^2/2 bits). A query is one bit test.
 *  - large: per node, an exact bitset of the next W ranks (W = 64*window_words),
 *    GRAIL and DFS-tree labels and landmark bitsets as cuts, and a DFS restricted to
 *    the topological window (rank(u), rank(v)) for what the cuts do not
 *    settle. Memory O(n*(window_words + n_grail + lm_words) + e).
 *
 * See docs/design.md, "Reachability index and ordering". */
#ifndef HLOPROOF_REACH_H
#define HLOPROOF_REACH_H
#include <stdint.h>
#include <stddef.h>
#include "arena.h"

struct reach_options {
	int32_t full_max;      /* n <= full_max (capped at 32768): full closure; default 1024 */
	int32_t window_words;  /* large: exact window of 64*window_words ranks (1..8); default 2 */
	int32_t n_grail;       /* large: DFS traversals for GRAIL/tree labels (0..4); default 3 */
	int32_t lm_words;      /* large: landmarks, 64 per word (0..4); default 1 */
};

void reach_default_options(struct reach_options *opt);

/* Query counters, for measurements. */
struct reach_stats {
	uint64_t queries;      /* reach_query calls with u != v */
	uint64_t by_rank;      /* settled by the topological numbering (negative) */
	uint64_t by_window;    /* settled by a bit test (full closure or window) */
	uint64_t by_cut;       /* settled by GRAIL or landmark labels */
	uint64_t by_search;    /* needed the bounded search */
	uint64_t search_yes;   /* ... and found a path */
	uint64_t visited;      /* nodes visited by bounded searches */
	uint64_t max_visited;  /* by the longest one */
};

struct reach_index;

/* Build the index. succ_off[0..n], succ[succ_off[i]..succ_off[i+1]) are node i's
 * successors (duplicates allowed). Everything lives in `a`. Returns NULL when
 * the graph has a cycle; then *cycle_node (if not NULL) names a node on a cycle
 * or downstream of one. n may be 0. */
struct reach_index *reach_build(int32_t n, const int32_t *succ_off, const int32_t *succ,
				const struct reach_options *opt, struct arena *a,
				int32_t *cycle_node);

/* v reachable from u by a non-empty path (so reach_query(r, u, u) == 0 in a DAG).
 * Updates scratch state inside the index: do not query one index from two
 * threads at once. */
int reach_query(struct reach_index *r, int32_t u, int32_t v);

/* The fixed topological numbering used by the index: the smallest one in
 * lexicographic order of node ids, so it is the identity when node ids are
 * already topological (HLO text order normally is). */
int32_t reach_rank(const struct reach_index *r, int32_t u);
int32_t reach_node_at(const struct reach_index *r, int32_t rank);
int32_t reach_size(const struct reach_index *r);
int reach_is_full(const struct reach_index *r);
const struct reach_stats *reach_get_stats(const struct reach_index *r);
void reach_reset_stats(struct reach_index *r);

#endif
