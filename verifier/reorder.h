/* reorder.h - an order of one computation's instructions that respects its
 * data and control edges and moves the fewest of them from their printed
 * order (rewrite.h: a scheduled module with control edges added keeps its
 * schedule but for the instructions the edges force to move).
 *
 * Nodes 0..n-1 are the instructions in printed order; edge p -> x says p
 * runs before x. An instruction keeps its place when it stays in the same
 * order relative to every other instruction that keeps its place, so the
 * instructions that keep their place are a set with no pair (x printed
 * before y, y reaches x through the edges): an antichain of that relation,
 * which is a partial order. The largest is found exactly (Dilworth and
 * Konig: a maximum matching, Hopcroft-Karp, over the pairs in conflict); the
 * others move, each as early as the edges and the kept order allow (Kahn's
 * algorithm, the earliest printed first). */
#ifndef HLOPROOF_REORDER_H
#define HLOPROOF_REORDER_H
#include <stdint.h>

/* Above this many (instructions x instructions a backward edge reaches)
 * bits the reachability is not built (nor the matching above 8 million
 * pairs in conflict): the order is then Kahn's, earliest printed first,
 * which is valid but may move more than it must. */
#define REORDER_MAX_BITS (64LL * 1024 * 1024)

/* The order of nodes 0..n-1 under the edges from[e] -> to[e] (e < n_edges;
 * edges outside 0..n-1 and self-edges are ignored): order[0..n) the nodes
 * in their new order. *moved (may be NULL) receives how many nodes moved,
 * *minimal 1 when that number is the least any valid order moves (0 when
 * the computation was too large for the exact search). Returns 0, or -1 when
 * the edges close a cycle. */
int reorder_min_moves(int32_t n, int32_t n_edges, const int32_t *from, const int32_t *to,
		      int32_t *order, int32_t *moved, int *minimal);

/* How many of order[0..n) (distinct values, printed positions) are not in
 * one longest increasing run of it (a longest increasing subsequence):
 * the instructions moved from the printed order. When out is not NULL,
 * out[i] = 1 for each moved entry i of order. */
int32_t reorder_moved(int32_t n, const int32_t *order, uint8_t *out);

#endif
