/* donation_stage.c - the rules with the donation verdicts (donation_stage.h). */
#include "donation_stage.h"
#include "analysis.h"
#include "budget.h"
#include "donation.h"
#include "lint.h"
#include <string.h>

int lint_run_with_donations(struct hlo_module *m, const struct lint_config *cfg,
			    const struct annotations *ann, struct findings *out,
			    struct donation_summaries **summaries)
{
	return lint_run_with_deciders(m, cfg, ann, NULL, NULL, out, summaries);
}

int lint_run_with_deciders(struct hlo_module *m, const struct lint_config *cfg,
			   const struct annotations *ann, const struct rule_ctx *base,
			   struct analysis *given, struct findings *out,
			   struct donation_summaries **summaries)
{
	struct rule_ctx stages;
	memset(&stages, 0, sizeof(stages));
	if (base)
		stages = *base;
	struct donation_list dl = {0, NULL};
	struct analysis *an = given;
	int rc = 0;
	stages.annotations = ann;
	if (summaries)
		*summaries = NULL;
	if (m->n_aliases || m->n_donors) {
		struct analysis_options ao;
		analysis_default_options(&ao);
		if (cfg->timeout_ms > 0)
			ao.timeout_ms = (int)cfg->timeout_ms;
		struct diag ad;
		diag_init(&ad, NULL);
		/* past the time budget: no decider runs, the donations are unknown */
		int expired = budget_expired(stages.budget);
		if (!an && !expired)
			an = analysis_run(m, &ao, &ad);
		dl.n = an && !expired ? donations_analyse(an, &dl.items)
			: donations_unanalysed(m, expired ? BUDGET_EXHAUSTED_REASON
						       : ad.errors ? ad.first : NULL, &dl.items);
		if (dl.n < 0) {
			rc = -1;
			dl.n = 0;
		}
		stages.donation_verdicts = &dl;
		if (an) {
			stages.dataflow = an->df;
			stages.buffers = an->bufs;
			stages.ordering = an->dep;
		}
		if (summaries)
			*summaries = donation_summaries_make(dl.items, dl.n, &cfg->frames);
	}
	if (lint_run_stages(m, cfg, &stages, out) < 0)
		rc = -1;
	if (an != given)
		analysis_free(an);
	return rc;
}
