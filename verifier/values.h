/* values.h - dataflow: HLO values, value sets, positions and uses.
 *
 * This is XLA's HloDataflowAnalysis in the configuration alias analysis uses:
 * SSA form (phis at while / conditional joins, optimized away where they
 * collapse) and bitcasts not defining values (hlo-semantics.md section 2).
 *
 * Every (instruction, shape index) pair is addressed by a "sub": the number of
 * the sub-shape in a pre-order walk of the instruction's shape (0 is the whole
 * shape). The tuple structure of a shape is interned as a shape_tree, so two
 * instructions with the same tuple structure share one tree and forwarding a
 * value set between them is sub-for-sub. Lookups are O(1); converting a shape
 * index to a sub is O(depth). */
#ifndef HLOPROOF_VALUES_H
#define HLOPROOF_VALUES_H
#include "ir.h"

/* Tuple structure of a shape. Every array (and token) shape shares one tree of
 * a single sub. */
struct shape_tree {
	int32_t n;        /* sub-shapes, pre-order; 0 is the whole shape */
	int32_t *nk;      /* tuple elements of each sub; -1 when not a tuple */
	int32_t *size;    /* subs in the subtree rooted at each sub (itself included) */
	int32_t *parent;  /* -1 for sub 0 */
	int32_t *elem;    /* element number of the sub inside its parent */
	int32_t *depth;   /* length of the shape index */
	int32_t *kid_off; /* children of s are kids[kid_off[s] + i], i < nk[s] */
	int32_t *kids;
};

/* Sub of a shape index, or -1 when the index is not valid for the tree. */
int32_t shape_tree_sub(const struct shape_tree *t, const int32_t *idx, int32_t n);
/* The shape index of a sub, written to idx[0..depth) (caller gives room for
 * SHAPE_MAX_DEPTH entries); returns the depth. */
int32_t shape_tree_index(const struct shape_tree *t, int32_t sub, int32_t *idx);
/* The child sub of s at tuple element i, or -1. */
static inline int32_t shape_tree_child(const struct shape_tree *t, int32_t s, int32_t i)
{
	return (t->nk[s] < 0 || i < 0 || i >= t->nk[s]) ? -1 : t->kids[t->kid_off[s] + i];
}

/* A place where a value appears. */
struct value_position {
	struct hlo_instruction *instr;
	int32_t sub;
};

/* A read of a value: operand `operand` of `instr`, at `sub` of that operand's
 * shape tree. */
struct value_use {
	struct hlo_instruction *instr;
	int32_t operand;
	int32_t sub;
};

/* Subs of a shape tree stay below this (dataflow_run checks), so a value's
 * sub and flags share one word: 40 bytes a value, not 48. */
#define HLO_VALUE_MAX_SUB (1 << 29)

struct hlo_value {
	int32_t id;                  /* dense from 0, in creation order */
	uint32_t sub : 30;           /* defining sub */
	uint32_t is_phi : 1;
	uint32_t live_out : 1;       /* has a position at the entry root */
	struct hlo_instruction *def; /* defining instruction */
	int32_t n_positions, n_uses;
	struct value_position *positions; /* the defining position first */
	struct value_use *uses;
};

/* Sorted value ids. n <= 1 keeps the id inline. */
struct value_set {
	int32_t n;
	int32_t one_or_cap;
	int32_t *many;
};

static inline const int32_t *value_set_ids(const struct value_set *s)
{
	return s->many ? s->many : &s->one_or_cap;
}

struct dataflow {
	struct hlo_module *module;
	struct arena *arena;
	int32_t n_values;
	struct hlo_value *values;          /* [n_values], by id */
	int32_t n_instrs;
	struct hlo_instruction **instr;    /* [gid] */
	/* 4-byte indices per instruction, not pointers: 8 MB less at 10^6 */
	const struct shape_tree **trees;   /* [n_trees + 1]; 0 is every array's */
	int32_t *tree_of;                  /* [gid]: index in trees */
	struct value_set *sets;            /* every (gid, sub), by gid then sub */
	int32_t *set_off;                  /* [gid]: index in sets of sub 0 */
	int32_t n_trees;                   /* distinct tuple structures */
};

/* Run the analysis. Everything lives in `a` (the module arena is fine).
 * Returns NULL after reporting FILE:LINE:COL: error: ... when the module is
 * not analysable (computation called in both contexts, shapes that do not
 * match the forwarding rules, no convergence). */
struct dataflow *dataflow_run(struct hlo_module *m, struct arena *a, struct diag *d);

static inline const struct shape_tree *dataflow_tree(const struct dataflow *df,
						     const struct hlo_instruction *i)
{
	return df->trees[df->tree_of[i->gid]];
}
static inline const struct value_set *dataflow_set(const struct dataflow *df,
						   const struct hlo_instruction *i, int32_t sub)
{
	return &df->sets[df->set_off[i->gid] + sub];
}
/* Sub of an index of an instruction's shape; -1 when invalid. */
int32_t dataflow_sub(const struct dataflow *df, const struct hlo_instruction *i,
		     const int32_t *idx, int32_t n);
/* The sub-shape of an instruction's shape at a sub. */
const struct shape *dataflow_subshape(const struct dataflow *df, const struct hlo_instruction *i,
				      int32_t sub);
/* The single value at (i, sub), or -1 when the set is empty or ambiguous. */
int32_t dataflow_unique_value(const struct dataflow *df, const struct hlo_instruction *i,
			      int32_t sub);
/* The value defined at (i, sub) (XLA's ValueIsDefinedAt), or -1. */
int32_t dataflow_value_defined_at(const struct dataflow *df, const struct hlo_instruction *i,
				  int32_t sub);
/* The shape index of a value, written to idx (room for SHAPE_MAX_DEPTH); returns its length. */
int32_t dataflow_value_index(const struct dataflow *df, const struct hlo_value *v, int32_t *idx);
/* Does the value have a position at the root of computation c? */
int dataflow_value_is_root_of(const struct hlo_value *v, const struct hlo_computation *c);

/* The wrapped computation of an async-start/-update/-done (following the
 * operand chain back to the start when the op itself does not name one), or
 * NULL when the IR has none (the value is then tracked as opaque). */
struct hlo_computation *async_wrapped_computation(const struct hlo_instruction *i);
int opcode_is_async(enum opcode op);

#endif
