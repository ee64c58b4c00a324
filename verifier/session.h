/* session.h - one module's run: the pipeline assembled in one place.
 *
 * A command parses a module, opens a session on it with the configuration
 * and its command-line options, asks the session for the stage results it
 * shows (each built on first use, once), hands them to a writer and closes
 * the session. The flow is one way: commands -> lint (the rules) ->
 * session -> stages (analysis.h, copies.h, hazard.h, donation.h, ...).
 * Nothing below the session knows it; the rules read its results through
 * their context (lint.h rule_copies, rule_hazards, rule_donations).
 *
 * A getter returns NULL when its stage is not available, and session_why
 * says why: the module cannot be analysed (unsupported), a decider failed,
 * or the time budget ran out. What a session builds it frees in
 * session_close, in reverse build order; the module outlives the session.
 * One session per module and per thread; no globals. */
#ifndef HLOPROOF_SESSION_H
#define HLOPROOF_SESSION_H
#include <stdio.h>
#include "analysis.h"
#include "config.h"
#include "copies.h"
#include "donation.h"
#include "hazard.h"
#include "ir.h"

struct annotations;

/* What the command line says about a module's run. Zeroed: no options
 * (the configuration's timeout, unlimited, silent). */
struct session_options {
	/* --timeout-ms per SMT query; <= 0: the configuration's, else 2000 */
	long timeout_ms;
	const char *smt_dump_dir;        /* --smt-dump DIR, or NULL */
	int cross_check;                 /* --cross-check */
	const struct budget *budget;     /* --time-budget-ms (shared, read-only); NULL: unlimited */
	int witness_limit;               /* analysis_options.witness_limit; 0: every witness */
	const struct annotations *annotations; /* --annotations FILE, or NULL */
	/* where the analysis prints its errors; NULL: kept for session_why only */
	FILE *errors;
	/* non-NULL: no decider runs (the request only); the donations are
	 * listed unanalysed with this reason */
	const char *no_analysis;
	/* unanalysed donations read "the module could not be analysed: MSG"
	 * (the donation command's wording) instead of MSG */
	int donation_why_in_full;
	/* the rules get no donation verdicts (gate --no-deciders: the IR only) */
	int no_donations;
	/* --stage (analysis_options.stage); STAGE_AUTO (zeroed): detected */
	enum module_stage stage;
	/* the copy verdicts keep their repair edges without analysing the
	 * module with them added (analysis_options.no_repair_check): for fix,
	 * which verifies every edge it adds on the rewritten module itself */
	int no_repair_check;
	/* --jointly: session_copy_verdicts gives each copy's verdict given the
	 * other removals `hloproof fix` chooses (fix.h, the schedule the module
	 * has: given when scheduled, else any) */
	int jointly;
};

/* The options analysis_parse_option read (explain, prove-removal): the
 * timeout, --smt-dump, --cross-check and the budget (which `ao` keeps). */
void session_options_from_parsed(struct session_options *so, const struct analysis_options *ao);

/* The options `check` runs with (and gate, and the rule tests): the rules
 * show HAZARD_WITNESSES_SHOWN witnesses, so no more are formatted. */
void session_options_for_rules(struct session_options *so);

enum session_status {
	SESSION_OK = 0,
	SESSION_UNSUPPORTED,   /* the analysis cannot model the module (message: why) */
	SESSION_FAILED,        /* a decider reported an internal error */
	SESSION_TIME_BUDGET,   /* the budget ran out before the stage (BUDGET_EXHAUSTED_REASON) */
	SESSION_SKIPPED,       /* session_options.no_analysis */
};

struct session;

/* The analysis options of a run: the command line's over the
 * configuration's (cfg may be NULL), over the defaults. The one place
 * where they are derived. */
void session_analysis_options(const struct lint_config *cfg, const struct session_options *so,
			      struct analysis_options *out);

/* cfg may be NULL (the defaults); so may be NULL (zeroed options). Both
 * must outlive the session. Dies when out of memory. */
struct session *session_open(struct hlo_module *m, const struct lint_config *cfg,
			     const struct session_options *so);
/* Frees every stage built, last built first. NULL is fine. */
void session_close(struct session *s);

struct hlo_module *session_module(const struct session *s);
const struct lint_config *session_config(const struct session *s);
const struct session_options *session_options(const struct session *s);
/* The reason the last getter returned NULL (SESSION_OK when none did);
 * *message (may be NULL) gets its text, or NULL when there is none. */
enum session_status session_why(const struct session *s, const char **message);
/* Where the analysis's first error was reported (the construct it does not
 * model, say); a zero line when it reported none. */
struct srcpos session_why_pos(const struct session *s);

/* The module's stage: session_options.stage, else module_stage_detect;
 * *why (may be NULL) gets the reason (static text). Builds nothing. */
enum module_stage session_stage(const struct session *s, const char **why);

/* Dataflow, in-place pairs, buffers and the orderings (analysis.h). */
struct analysis *session_analysis(struct session *s);
/* The analysis if it was built, else NULL; builds nothing (for --stats). */
struct analysis *session_analysis_built(const struct session *s);
/* Every copy's report (copies_analyse: the copies reached past the time
 * budget are listed unknown). */
const struct copy_list *session_copies(struct session *s);
/* The module's hazards (hazards_analyse). */
const struct hazard_list *session_hazards(struct session *s);
/* Both, copies first (what check, gate and the copy rules read); NULL
 * (SESSION_TIME_BUDGET) when the budget has run out before they start. */
const struct copy_verdicts *session_copy_verdicts(struct session *s);
/* One copy's report, not kept (explain COPY, prove-removal). Returns 0, or
 * -1 when unavailable (session_why) or on an internal error. */
int session_copy_one(struct session *s, const struct hlo_instruction *copy, struct copy_report *out);
/* Whether the module with h's edge added no longer has h (repair.h): the
 * edge is named only then. 0 also when h names no edge. */
int session_hazard_repair_holds(struct session *s, const struct hazard_report *h);
/* The same for one copy site (copysite.h: a fused output, an async pair). */
int session_copy_site(struct session *s, const struct copy_site *site, struct copy_report *out);
struct fix_options;
struct fix_result;
/* `hloproof fix`: the copies to remove together (fix.h), decided once per
 * session with the options of the first call. NULL when the copies or
 * hazards are unavailable (session_why) or the search failed internally. */
const struct fix_result *session_fix(struct session *s, const struct fix_options *o);

/* Every alias and donor with its verdict (donation.h). NULL when the module
 * donates nothing (SESSION_OK) or the decider failed. Listed unanalysed,
 * with the reason, when the analysis is not available. */
const struct donation_list *session_donations(struct session *s);

/* `hloproof buffers`: the stages one at a time, each reporting its errors
 * through `d` as it is built (NULL when it failed). The ordering is built
 * once per session, of the first kind asked. */
struct dataflow *session_dataflow(struct session *s, struct diag *d);
struct inplace *session_inplace(struct session *s, struct diag *d);
struct buffers *session_buffers(struct session *s, struct diag *d);
struct ordering *session_ordering(struct session *s, enum order_kind kind, struct diag *d);

#endif
