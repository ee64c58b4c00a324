/* ordering.h - XLA's HloOrdering over our IR (hlo-semantics.md §5.1-5.3).
 *
 * An ordering answers "does instruction a run before b" in one of two ways:
 *  - ORDER_DEPENDENCY: inside a computation, b is reachable from a through
 *    operand and control-predecessor edges (XLA's DependencyHloOrdering);
 *  - ORDER_SEQUENTIAL: the module is scheduled and the text order of each
 *    non-fusion computation is its sequence; a before b iff a is printed
 *    first and a is not the computation's root (SequentialHloOrdering).
 * Across computations both go through the call graph (nearest ancestors in a
 * common computation, while condition/body, conditional branches), §5.3.
 *
 * Every computation also gets an exact dependency reachability index
 * (reach.h), whatever the kind: ordering_reaches() is always the dependency
 * relation. All memory comes from the arena given to ordering_build(); the
 * module must outlive the ordering. Queries update scratch state inside the
 * ordering: one thread per ordering. */
#ifndef HLOPROOF_ORDERING_H
#define HLOPROOF_ORDERING_H
#include <stdint.h>
#include "ir.h"
#include "reach.h"

enum order_kind { ORDER_DEPENDENCY = 0, ORDER_SEQUENTIAL = 1 };

/* XLA's HloOrdering::ExecutionConstraint, for a versus b. */
enum exec_constraint {
	EXEC_SAME = 0,           /* a == b, or an async op and the op it wraps */
	EXEC_RUN_BEFORE_START,   /* a runs before b starts */
	EXEC_RUN_BEFORE_END,     /* a runs before b ends (a inside b, or cond vs body) */
	EXEC_EXCLUSIVE_BEFORE,   /* conditional branches, a's branch numbered lower */
	EXEC_EXCLUSIVE_AFTER,    /* conditional branches, a's branch numbered higher */
	EXEC_A_AFTER_B,          /* a runs after b (kRunAfter) */
	EXEC_UNORDERED,
};

const char *exec_constraint_name(enum exec_constraint c);
const char *order_kind_name(enum order_kind k);

struct ordering;

/* Build the ordering with default index options. Returns NULL when the module
 * has a dependency cycle inside a computation or a cycle in its call graph
 * (use ordering_build_ex to get the error reported). */
struct ordering *ordering_build(const struct hlo_module *m, enum order_kind kind, struct arena *a);
/* Same, with index options (NULL = defaults) and errors reported through d
 * (may be NULL) as FILE:LINE:COL: error: ... */
struct ordering *ordering_build_ex(const struct hlo_module *m, enum order_kind kind,
				   struct arena *a, const struct reach_options *opt,
				   struct diag *d);

/* Another kind over the same module, sharing base's call graph and reachability
 * indices (no rebuild; base must outlive it, and both share query scratch:
 * use them from one thread). */
struct ordering *ordering_build_from(const struct ordering *base, enum order_kind kind,
				     struct arena *a);

/* The dependency ordering of the module after control edges from[i] ->
 * to[i] (each pair in one computation) were added, without building the
 * indices again where few edges go (repair.c asks this once per repair it
 * checks): a computation with at most 64 of them answers through base's
 * index and the edges (a query then costs up to twice as many index
 * queries as edges), one with more gets its index built again, as do the
 * computations rebuild[0..n_rebuild), whose edges changed otherwise
 * (control edges dropped). The module must hold the edges, and the other
 * changes, while this runs (rewrite.h hlo_edges_on); the other computations'
 * indices and the call graph are base's. NULL, with the error reported
 * through d (may be NULL), when the edges close a cycle. */
struct ordering *ordering_build_with_edges(const struct ordering *base, int32_t n,
					   const struct hlo_instruction *const *from,
					   const struct hlo_instruction *const *to,
					   const struct hlo_computation *const *rebuild, int32_t n_rebuild,
					   struct arena *a, struct diag *d);

enum order_kind ordering_kind(const struct ordering *o);

/* Same computation, a != b, and b reachable from a through operand and control
 * edges. 0 for instructions in different computations. Exact. */
int ordering_reaches(struct ordering *o, const struct hlo_instruction *a,
		     const struct hlo_instruction *b);

/* a runs before b, both in the same computation, under this ordering's kind
 * (XLA's ExecutesBeforeInSameComputation). */
int ordering_before_in_computation(struct ordering *o, const struct hlo_instruction *a,
				   const struct hlo_instruction *b);

/* §5.3, exactly as XLA's GetExecutionConstraint. */
enum exec_constraint ordering_constraint(struct ordering *o, const struct hlo_instruction *a,
					 const struct hlo_instruction *b);
/* Run-before-start, run-before-end or exclusive-before. */
int ordering_executes_before(struct ordering *o, const struct hlo_instruction *a,
			     const struct hlo_instruction *b);

/* Position inside the instruction's computation, 0-based: the text index under
 * ORDER_SEQUENTIAL, the index's fixed topological rank under ORDER_DEPENDENCY
 * (equal to the text index when the text is in dependency order). For
 * printing live ranges as [first,last]. -1 in a computation where
 * ordering_build_with_edges added an edge against that rank. */
int32_t ordering_position(const struct ordering *o, const struct hlo_instruction *instr);
/* The instruction's computation has a sequence (ORDER_SEQUENTIAL: the module
 * is scheduled and the computation is not a fusion computation); always 1
 * under ORDER_DEPENDENCY. Outside a sequence everything is unordered. */
int ordering_in_sequence(const struct ordering *o, const struct hlo_instruction *instr);

/* --- call graph (§5.1) --- */

/* The next instruction up the callee->caller chain: the unique caller of
 * instr's computation, or for an async computation (called only by async
 * ops) its first caller; NULL when the chain stops. */
const struct hlo_instruction *ordering_next_caller(const struct ordering *o,
						   const struct hlo_instruction *instr);
/* Longest call chain from a computation with no callers (XLA's depth). */
int32_t ordering_depth(const struct ordering *o, const struct hlo_computation *c);
/* XLA's NearestAncestorsInSameComputation: equalise depths, then walk both up
 * until they are in one computation. Returns 0 and sets *A = *B = NULL when
 * there is none. */
int ordering_nearest_ancestors(const struct ordering *o, const struct hlo_instruction *a,
			       const struct hlo_instruction *b,
			       const struct hlo_instruction **A, const struct hlo_instruction **B);
/* instr is in comp or in a computation comp dominates in the call graph
 * (every call chain from a root to instr's computation passes comp). */
int ordering_is_nested_in(const struct ordering *o, const struct hlo_instruction *instr,
			  const struct hlo_computation *comp);
/* The computation an async-start/-update/-done wraps (for -update/-done
 * printed without calls=, the one of the async-start their chain begins
 * with); NULL for other instructions. */
const struct hlo_computation *ordering_async_wrapped(const struct hlo_instruction *instr);
/* Computation called by a fusion instruction. */
int ordering_is_fusion_computation(const struct ordering *o, const struct hlo_computation *c);

/* The per-computation reachability index (for measurements and tests); in a
 * computation with edges added over it (ordering_build_with_edges), the
 * index without them. */
struct reach_index *ordering_reach_index(const struct ordering *o, const struct hlo_computation *c);

#endif
