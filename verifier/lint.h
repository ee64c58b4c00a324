/* lint.h - running the rules of rule_registry over one module.
 *
 * A rule sees the module, the effective configuration and the findings
 * sink through a struct rule_ctx. The later pipeline stages (dataflow values,
 * buffers, ordering, and the copy/donation deciders) hang off the same
 * context; they are NULL until the command running the rules computes them,
 * so a rule that needs one must check and return quietly when it is NULL. */
#ifndef HLOPROOF_LINT_H
#define HLOPROOF_LINT_H
#include "config.h"
#include "findings.h"
#include "ir.h"
#include "rule.h"

/* Opaque here: each is defined by its own stage's header. */
struct dataflow;   /* values.h */
struct buffers;    /* buffers.h */
struct ordering;   /* ordering.h (queries update scratch state: not const) */
struct donation_list; /* donation.h */
struct annotations;   /* annotations.h */
struct budget;     /* budget.h */

struct rule_ctx {
	const struct hlo_module *module;
	const struct lint_config *config;  /* effective configuration, never NULL */
	struct findings *findings;         /* the sink */
	const struct rule *rule;           /* the rule running now */
	enum severity severity;            /* its effective severity */

	/* Later stages; NULL when not computed. */
	const struct dataflow *dataflow;
	const struct buffers *buffers;
	struct ordering *ordering;
	const void *copy_verdicts;      /* copy decider (issue 4), type to come */
	const struct donation_list *donation_verdicts; /* donation decider (issue 5) */
	const struct annotations *annotations; /* --annotations FILE, or NULL */
	/* --time-budget-ms; NULL: unlimited. A rule that decides one verdict at a
	 * time checks budget_expired() before each and reports the rest unknown. */
	const struct budget *budget;
};

/* Run every enabled rule on m; findings go to `out` (findings_init'ed by the
 * caller), which is finalized and has accepted items marked. Returns 0, or -1
 * when a rule reported an internal error (the other rules still ran). */
int lint_run(const struct hlo_module *m, const struct lint_config *cfg, struct findings *out);
/* Same, with the later stages filled in: `stages` supplies dataflow, buffers,
 * ordering, verdicts and the budget (module, config, findings, rule are set
 * here). A rule that cannot start before the budget's deadline is not run:
 * it gets one module-level note "not checked: time budget exhausted"
 * (LINT_NOT_CHECKED), and the call returns 1 (-1 still wins). */
int lint_run_stages(const struct hlo_module *m, const struct lint_config *cfg,
		    const struct rule_ctx *stages, struct findings *out);
#define LINT_NOT_CHECKED "not checked: time budget exhausted"

#endif
