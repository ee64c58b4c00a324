/* liveness.h - live ranges and interference (hlo-semantics.md 5.4-5.8).
 *
 * The interference tests are XLA's HloOrdering::IsDefinedBefore,
 * UsesBeforeValueDefinition, LiveRangeStrictlyBefore, MayInterfere and
 * HloDataflowAnalysis::CanShareOperandBufferWithUser, over an ordering
 * (dependency or sequential, ordering.h).
 *
 * Live ranges for display are positions in a computation's instruction
 * sequence: the text order, which is the schedule when the module is
 * scheduled and a topological order otherwise (operands and control
 * predecessors are always printed first). */
#ifndef HLOPROOF_LIVENESS_H
#define HLOPROOF_LIVENESS_H
#include "buffers.h"
#include "ordering.h"

struct liveness {
	const struct dataflow *df;
	const struct inplace *ip;
	struct ordering *ord;
};

void liveness_init(struct liveness *lv, const struct dataflow *df, const struct inplace *ip,
		   struct ordering *ord);

/* 5.4: value a is defined before value b. */
int is_defined_before(struct liveness *lv, int32_t a, int32_t b);
/* 5.5: every use runs before value v is defined. */
int uses_before_value_definition(struct liveness *lv, const struct value_use *const *uses,
				 int32_t n_uses, int32_t v, int use_is_always_before_def_in_same_instr);
/* 5.6: a's live range ends before b is defined (the generic form). */
int live_range_strictly_before(struct liveness *lv, int32_t a, int32_t b,
			       int use_is_always_before_def_in_same_instr);
int may_interfere(struct liveness *lv, int32_t a, int32_t b);
/* Two values of one buffer may interfere (the alias-analysis tests'
 * AnyValuesInSameBufferInterfere). Returns the first pair through *va, *vb. */
int buffers_any_interference(struct liveness *lv, const struct buffers *b, int32_t *va,
			     int32_t *vb);
/* 5.8: operand's buffer at oidx may be reused for user's output at uidx. */
int can_share_operand_buffer(struct liveness *lv, const struct hlo_instruction *operand,
			     int32_t osub, const struct hlo_instruction *user, int32_t usub);
/* 5.8 for both readings (docs/hazards.md 3): slot -1 is XLA's (any use of
 * the operand's value at an in-place pair's slot exempts it); slot k judges
 * the read at operand slot k, which only that pair's slot exempts. With copy
 * set, it is judged on the module with copy removed (its readers read its
 * operand), without rebuilding the analyses; NULL: the module as it is. */
int can_share_buffer_at(const struct dataflow *df, const struct inplace *ip,
			const struct hlo_instruction *operand, int32_t osub,
			const struct hlo_instruction *user, int32_t usub, int32_t slot,
			const struct hlo_instruction *copy);
/* The slice-input-fusion case of 5.8 (a kInput fusion whose root is a tuple of
 * 1-d slices, as horizontal fusion makes): -1 when user is not one, else
 * whether operand (at operand slot `slot` of user) may share the buffer. */
int slice_input_fusion_can_share(const struct dataflow *df, const struct hlo_instruction *operand,
				 int32_t osub, const struct hlo_instruction *user, int32_t usub,
				 int32_t slot);
/* XLA's DoesNotUseOperandBuffer: no value at (operand, sub) is read by user
 * (a loop fusion whose fused parameter has no uses does not read it). */
int does_not_use_operand_buffer(const struct dataflow *df, const struct hlo_instruction *operand,
				int32_t sub, const struct hlo_instruction *user);
/* Instruction predicates XLA uses for buffer sharing. */
int instr_is_elementwise_on_operand(const struct hlo_instruction *i, int32_t k);
int instr_is_elementwise(const struct hlo_instruction *i);

/* ---- live ranges for display ---- */

struct live_range {
	int32_t first, last; /* positions in the computation's sequence */
};

/* The value's live range inside computation c: from its definition (or its
 * first position in c) to its last use or position, where instructions in
 * nested computations count at their call site in c. Extended to the end of
 * c when the value is at c's root (live out of c, loop state at a body root)
 * and to the start of c for a body or condition parameter phi. Returns 0
 * when the value does not appear in c. */
int value_live_range(const struct dataflow *df, int32_t v, const struct hlo_computation *c,
		     struct live_range *r);
/* The value is live while instruction i runs: live at i in i's computation,
 * or, in an enclosing computation, defined before the call site leading to
 * i and read after it. */
int value_live_at(const struct dataflow *df, int32_t v, const struct hlo_instruction *i);
/* Position of an instruction in its computation's sequence. */
static inline int32_t sequence_position(const struct hlo_instruction *i)
{
	return i->index;
}

#endif
