/* report_buffers.h - `hloproof buffers`: one module's buffers as the command
 * shows them (report_buffers.c writes them, text or streamed JSON). */
#ifndef HLOPROOF_REPORT_BUFFERS_H
#define HLOPROOF_REPORT_BUFFERS_H
#include <stdio.h>
#include "budget.h"
#include "liveness.h"

struct buffers_view {
	struct hlo_module *m;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct ordering *ord;          /* NULL when the ordering could not be built */
	struct liveness lv;
	int32_t *def_order;            /* [gid]: global definition order */
	int topological;               /* live ranges use a topological order, not a schedule */
	const struct budget *budget;   /* --time-budget-ms; NULL: unlimited */
	int32_t n_budget_unknown;      /* interference tests the budget cut short */
};

/* Fill c->def_order (arena memory of c->m, m->n_instrs + 1 entries): the
 * global definition order the live ranges are shown in. */
void buffers_view_number(struct buffers_view *c);
/* One module: its object of the {"modules":[...]} list, streamed buffer by
 * buffer; or its text. Interference tests the budget cuts short are
 * counted in c->n_budget_unknown. */
void report_buffers_json(FILE *out, struct buffers_view *c, const struct hlo_instruction *at);
void report_buffers_text(FILE *out, struct buffers_view *c, const struct hlo_instruction *at,
			 const char *ordering_name);
/* A file left unanalysed (the budget ran out, a construct the analysis
 * does not model): {"file", "status": "unknown", "reason"}. */
void report_buffers_unknown_json(FILE *out, const char *file, const char *reason);

#endif
