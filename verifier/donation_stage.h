/* donation_stage.h - run the lint rules on one module with the donation
 * decider's results in the rule context: the analysis (analysis.h) and the
 * donation reports (donation.h) are computed when the module has an
 * input_output_alias or a buffer_donor. `hloproof check` and the rule tests
 * share it. */
#ifndef HLOPROOF_DONATION_STAGE_H
#define HLOPROOF_DONATION_STAGE_H
#include "config.h"
#include "findings.h"
#include "ir.h"

struct annotations;
struct donation_summaries;

/* Run every enabled rule on m into `out` (findings_init'ed by the caller).
 * `ann` may be NULL. When `summaries` is not NULL it receives the donation
 * reports detached from the module (NULL when the module has none; free
 * with donation_summaries_free). Returns 0, or -1 when a rule or the decider
 * reported an internal error (the results are then incomplete). */
int lint_run_with_donations(struct hlo_module *m, const struct lint_config *cfg,
			    const struct annotations *ann, struct findings *out,
			    struct donation_summaries **summaries);

/* Same, on top of stages already computed (`base`: the copy decider's
 * verdicts, may be NULL) and with the analysis `an` (may be NULL: computed
 * here when needed; not freed when given). */
struct rule_ctx;
struct analysis;
int lint_run_with_deciders(struct hlo_module *m, const struct lint_config *cfg,
			   const struct annotations *ann, const struct rule_ctx *base,
			   struct analysis *an, struct findings *out,
			   struct donation_summaries **summaries);

#endif
