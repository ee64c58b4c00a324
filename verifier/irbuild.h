/* irbuild.h - IR construction steps the parser runs after reading the text
 * (derived edges and the call graph). Internal to parse.c / ir.c. */
#ifndef HLOPROOF_IRBUILD_H
#define HLOPROOF_IRBUILD_H
#include "ir.h"

/* Fill instr->users and instr->ctrl_succs from operands / ctrl_preds. The
 * counts n_users / n_ctrl_succs must already hold the number of distinct
 * users / successors (the parser counts them while the operands are hot),
 * and n_users / n_succs their sums over the module. Whatever users /
 * ctrl_succs hold before (the parser keeps a marker there) is overwritten. */
void hlo_build_users(struct hlo_module *m, size_t n_users, size_t n_succs);
/* Fill comp->callers and comp->context. `callers` lists, in text order, every
 * instruction with n_called > 0. */
void hlo_build_call_graph(struct hlo_module *m, struct hlo_instruction *const *callers, size_t n);
/* Call context of an instruction's calls, as XLA's GetInstructionCallContext. */
enum call_context hlo_instruction_call_context(enum opcode op);

#endif
