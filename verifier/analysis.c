/* analysis.c - build the per-module analyses the copy and hazard deciders share. */
#include "analysis.h"
#include "smt.h"
#include "repair.h"
#include "trace.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void analysis_default_options(struct analysis_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->timeout_ms = 2000;
	const char *e = getenv("HLOPROOF_SMT_NONE");
	opt->smt_none = e && !strcmp(e, "1");
}

/* The deepest control-flow nesting (levels of a trace path, the entry's
 * counted) of m's computations: one pass up the call graph per
 * computation, memoized, so 10^5 nested loops cost 10^5 steps. -1 with a
 * cycle (the tracer names it later). */
static int32_t deepest_nesting(const struct hlo_module *m)
{
	int32_t n = m->n_comps, deepest = 0;
	int32_t *depth = xcalloc((size_t)n + 1, sizeof(int32_t)); /* 0: not known yet */
	const struct hlo_computation **chain = xmalloc((size_t)n + 1, sizeof(*chain));
	for (int32_t i = 0; i < n && deepest >= 0; i++) {
		int32_t len = 0, base = 0;
		const struct hlo_computation *k = m->comps[i];
		while (k && !depth[k->index]) {
			if (k->is_entry || k->n_callers == 0 || len > n) {
				if (len > n)
					base = -1;
				else
					depth[k->index] = 1;
				break;
			}
			chain[len++] = k;
			k = k->callers[0].instr->parent;
		}
		if (base < 0) {
			deepest = -1;
			break;
		}
		base = k ? depth[k->index] : 1;
		/* down the chain: a control-flow caller adds a level, an embedded
		 * or async one puts the callee at its caller's level */
		for (int32_t j = len - 1; j >= 0; j--) {
			const struct hlo_callsite *cs = &chain[j]->callers[0];
			int op = cs->instr->opcode;
			int flow = cs->context == CALL_CONTROL_FLOW &&
				   (op == OP_WHILE || op == OP_CONDITIONAL || op == OP_CALL);
			base += flow;
			depth[chain[j]->index] = base;
		}
		if (depth[m->comps[i]->index] > deepest)
			deepest = depth[m->comps[i]->index];
	}
	free(chain);
	free(depth);
	return deepest;
}

struct analysis *analysis_run(struct hlo_module *m, const struct analysis_options *opt,
			      struct diag *d)
{
	struct analysis *an = arena_alloc(&m->arena, sizeof(*an));
	an->m = m;
	an->d = d;
	if (opt)
		an->opt = *opt;
	else
		analysis_default_options(&an->opt);
	if (an->opt.timeout_ms <= 0)
		an->opt.timeout_ms = 2000;
	if (an->opt.stage == STAGE_AUTO)
		an->stage = module_stage_detect(m, &an->stage_why);
	else {
		an->stage = an->opt.stage;
		an->stage_why = an->stage == STAGE_BEFORE ? "--stage=before" : "--stage=after";
	}
	/* every access's trace path is as deep as its control flow; past
	 * TRACE_MAX_DEPTH deciding a buffer carried through the loops costs
	 * about depth^3 (docs/limits.md): the module is not analysed */
	int32_t deepest = deepest_nesting(m);
	if (deepest > TRACE_MAX_DEPTH) {
		error_at(d, m->pos, "control flow nested deeper than %d levels (%d): not analysed",
			 TRACE_MAX_DEPTH, deepest);
		return NULL;
	}
	an->df = dataflow_run(m, &m->arena, d);
	if (!an->df)
		return NULL;
	an->ip = inplace_build(an->df, &m->arena);
	an->bufs = buffers_build(an->df, an->ip, &m->arena);
	an->dep = ordering_build_ex(m, ORDER_DEPENDENCY, &m->arena, NULL, d);
	if (!an->dep)
		return NULL;
	if (m->is_scheduled)
		an->seq = ordering_build_from(an->dep, ORDER_SEQUENTIAL, &m->arena);
	liveness_init(&an->lv_dep, an->df, an->ip, an->dep);
	return an;
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	smt_free(an->smt);
	an->smt = NULL;
	if (an->cache && an->cache_free)
		an->cache_free(an->cache);
	an->cache = NULL;
	repair_cache_free(an->repairs);
	free(an->buffer_phis);
	an->repairs = NULL;
}
