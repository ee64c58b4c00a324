/* stage.h - where in XLA's pipeline a module was dumped, and what the
 * pipeline still does to its copies from there.
 *
 * A module dumped before optimization still goes through the algebraic
 * simplifier, layout assignment and copy insertion: its `copy` instructions
 * mostly vanish (the simplifier replaces a copy by its operand when their
 * shapes are compatible, AlgebraicSimplifierVisitor::HandleCopy) and copy
 * insertion adds the copies that matter. A module after optimization is the
 * program that runs. docs/pipeline.md gives the passes and the XLA source. */
#ifndef HLOPROOF_STAGE_H
#define HLOPROOF_STAGE_H
#include "ir.h"

enum module_stage {
	STAGE_AUTO = 0,  /* decide from the module (module_stage_detect) */
	STAGE_BEFORE,    /* before layout assignment and copy insertion */
	STAGE_AFTER,     /* layout assigned (and usually scheduled): as it runs */
};

/* "before" / "after"; "auto" for STAGE_AUTO. */
const char *module_stage_name(enum module_stage s);
/* Parses --stage's value; STAGE_AUTO and -1 for anything else but "auto". */
int module_stage_parse(const char *s, enum module_stage *out);

/* The stage of m, and in *why (static text) the evidence:
 * after: is_scheduled=true, or an instruction that only layout assignment or
 * later passes create (bitcast, fusion, copy-start/copy-done), or a layout
 * that only they write (tiles and other layout extensions, a memory
 * space); before: none of these. */
enum module_stage module_stage_detect(const struct hlo_module *m, const char **why);

/* A copy that XLA's simplifier removes in a module before layout assignment
 * (the layout-insensitive HandleCopy): its result is compatible with its
 * operand's (the same element type and dimensions; layouts are not compared
 * before layout assignment; a memory space change is kept), it has no
 * control predecessor (ReplaceInstructionIfCompatible skips those), and it
 * is not the entry root carrying a sharding. A copy of a copy folds into one
 * copy of the first operand first, which is compatible with it in turn, so
 * chains need no separate case. Only meaningful for STAGE_BEFORE. */
int copy_is_simplifier_noop(const struct hlo_instruction *copy);

#endif
