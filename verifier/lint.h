/* lint.h - running the rules of rule_registry over one module.
 *
 * A rule sees the module, the effective configuration and the findings
 * sink through a struct rule_ctx, and the deciders' results through the
 * accessors below, which ask the module's session (session.h). The rule
 * table itself (rule_lookup, rule_index, ...) is rule.h, rules_table.c. */
#ifndef HLOPROOF_LINT_H
#define HLOPROOF_LINT_H
#include "config.h"
#include "findings.h"
#include "ir.h"
#include "rule.h"
#include "stage.h"

struct session;         /* session.h */
struct copy_list;       /* copies.h */
struct hazard_list;     /* copies.h */
struct donation_list;   /* donation.h */
struct annotations;     /* annotations.h */
struct budget;          /* budget.h */

struct rule_ctx {
	const struct hlo_module *module;
	const struct lint_config *config;  /* effective configuration, never NULL */
	struct findings *findings;         /* the sink */
	const struct rule *rule;           /* the rule running now */
	enum severity severity;            /* its effective severity */
	const struct annotations *annotations; /* --annotations FILE, or NULL */
	/* --time-budget-ms; NULL: unlimited. A rule that decides one verdict at a
	 * time checks budget_expired() before each and reports the rest unknown. */
	const struct budget *budget;
	struct session *session;           /* the module's run: read through the accessors */
};

/* sparse-style: report at an instruction (or NULL: the module header) with the
 * running rule and its effective severity. Returns the finding for
 * finding_evidence(), or NULL when out of memory. */
struct finding *finding_add(struct rule_ctx *ctx, const struct hlo_instruction *instr,
			    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same with an explicit position (pos.line 0: the instruction's) and fingerprint key. */
struct finding *finding_add_at(struct rule_ctx *ctx, const struct hlo_instruction *instr,
			       struct srcpos pos, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
struct finding *finding_vadd_at(struct rule_ctx *ctx, const struct hlo_instruction *instr,
				struct srcpos pos, const char *key, const char *fmt, va_list ap);

/* Mark f accepted when an <accept-copy> item of the --annotations file
 * covers entry parameter p's leaf ix (its reason and place become
 * f->suppressed). NULL f: nothing. */
void finding_accept_copy(struct rule_ctx *ctx, struct finding *f, int32_t p, const struct shape_index *ix);

/* What the deciders found, for a rule: NULL when the module could not be
 * analysed (or the decider failed), and the rule then returns quietly. A
 * rule never builds or frees a stage; the session does. */
const struct copy_list *rule_copies(struct rule_ctx *ctx);
const struct hazard_list *rule_hazards(struct rule_ctx *ctx);
/* The analysis the copies and hazards came from (NULL when they did not):
 * for checking a repair claim on it (repair.h) before printing it. */
struct analysis *rule_analysis(struct rule_ctx *ctx);
/* The dataflow values the hazards' v/w ids name; NULL when not analysed. */
const struct dataflow *rule_dataflow(struct rule_ctx *ctx);
/* STAGE_BEFORE or STAGE_AFTER: --stage, else module_stage_detect (stage.h). */
enum module_stage rule_stage(struct rule_ctx *ctx);
/* NULL also when the module donates nothing, or the run has no donation
 * decider (gate --no-deciders). */
const struct donation_list *rule_donations(struct rule_ctx *ctx);

/* Run every enabled rule on the session's module; findings go to `out`
 * (findings_init'ed by the caller), which is finalized and has accepted
 * items marked. The donations are decided first (when the module has any).
 * A rule that cannot start before the budget's deadline is not run: it
 * gets one module-level note "not checked: time budget exhausted"
 * (LINT_NOT_CHECKED). Returns 0; 1 when a rule was not checked; -1 when a
 * rule or the donation decider reported an internal error (the other
 * rules still ran; -1 wins). */
int lint_run(struct session *s, const struct lint_config *cfg, struct findings *out);
#define LINT_NOT_CHECKED "not checked: time budget exhausted"

#endif
