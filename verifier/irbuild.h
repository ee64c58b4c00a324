/* irbuild.h - IR construction steps the parser runs after reading the text
 * (derived edges and the call graph). Internal to parse.c / ir.c. */
#ifndef HLOPROOF_IRBUILD_H
#define HLOPROOF_IRBUILD_H
#include "ir.h"

/* One use of an operand: instruction `def` of the computation (its index)
 * is an operand of instruction `user`. */
struct hlo_use {
	int32_t def, user;
};

/* Fill users and ctrl_succs of one computation (edges never leave one), right
 * after it is read. `uses` lists every distinct (operand, user) pair in text
 * order of the users; count[i] is the number of users of instruction i and
 * is overwritten (count has comp->n_instrs entries); ubuf has room for
 * n_uses pointers. The users are filled from these lists rather than from
 * the operands, so the operands (scattered over a large computation) are not
 * visited again. n_ctrl_succs must already hold the number of distinct
 * control successors, sbuf room for their sum. Whatever users / ctrl_succs
 * hold before (the parser keeps a marker in ctrl_succs) is overwritten. */
void hlo_build_users(struct hlo_computation *comp, const struct hlo_use *uses, size_t n_uses,
		     int32_t *count, struct hlo_instruction **ubuf, struct hlo_instruction **sbuf,
		     size_t n_succs);
/* Fill comp->callers and comp->context. `callers` lists, in text order, every
 * instruction with n_called > 0. */
void hlo_build_call_graph(struct hlo_module *m, struct hlo_instruction *const *callers, size_t n);
/* Call context of an instruction's calls, as XLA's GetInstructionCallContext. */
enum call_context hlo_instruction_call_context(enum opcode op);

#endif
