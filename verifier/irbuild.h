/* irbuild.h - IR construction steps the parser runs after reading the text
 * (derived edges and the call graph). Internal to parse.c / ir.c. */
#ifndef HLOPROOF_IRBUILD_H
#define HLOPROOF_IRBUILD_H
#include "ir.h"

/* Fill instr->users and instr->ctrl_succs from operands / ctrl_preds. */
void hlo_build_users(struct hlo_module *m);
/* Fill comp->callers and comp->context from every instruction's called[]. */
void hlo_build_call_graph(struct hlo_module *m);
/* Call context of an instruction's calls, as XLA's GetInstructionCallContext. */
enum call_context hlo_instruction_call_context(enum opcode op);

#endif
