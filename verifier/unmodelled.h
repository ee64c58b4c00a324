/* unmodelled.h - constructs the dataflow does not model, found before it
 * runs: a verdict built on them would be a guess, so the analysis stops with
 * the construct named and every copy of the module is unknown (exit 3).
 *
 * - b(...) buffer shapes, and the Pin / Unpin custom calls that make and end
 *   them: a pinned buffer lives across instructions the values do not see;
 * - the async sugar of control flow (while-start, conditional-start);
 * - the async sugar of an op that writes an operand in place (a fusion-start
 *   whose fusion updates a parameter, output_to_operand_aliasing on the
 *   sugar, dynamic-update-slice-start, ...): the pair would tie the operand
 *   to the start's output {1}, which the in-place pairs do not map. */
#ifndef HLOPROOF_UNMODELLED_H
#define HLOPROOF_UNMODELLED_H
#include "diag.h"
#include "ir.h"

/* How every such message starts (tests and the reports look for it). */
#define UNMODELLED_PREFIX "the analysis does not model "

/* The first such construct in text order, reported through d at its
 * instruction: returns -1. 0 when there is none. */
int unmodelled_report(const struct hlo_module *m, struct diag *d);

#endif
