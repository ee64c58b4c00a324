/* analysis.c - build the per-module analyses the copy and hazard deciders share. */
#include "analysis.h"
#include "smt.h"
#include "repair.h"
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
	an->repairs = NULL;
}
