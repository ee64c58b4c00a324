/* agree.h - the deciders (verifier/copies.h, verifier/hazard.h) against the
 * brute-force oracle on one module: every copy's removal verdicts, every
 * buffer's hazard verdicts, every donation, and the module's own hazard
 * (tests only; shared by test_agreement and the soak driver). */
#ifndef HLOPROOF_TESTS_AGREE_H
#define HLOPROOF_TESTS_AGREE_H
#include <stdint.h>
#include <stdio.h>

struct agree_stats {
	int64_t modules;        /* modules checked */
	int64_t agreed;         /* modules with no disagreement */
	int64_t disagreed;      /* modules with at least one disagreement */
	int64_t skipped;        /* the oracle had no answer (over its limits) */
	int64_t copies, buffers, donations;   /* questions compared (donations: alias entries) */
	int64_t copies_pre;     /* of the copies, those in a module that has a hazard already */
	int64_t fused_async;    /* of the copies read, fused copies and copy-start / copy-done pairs */
	int64_t donors;         /* buffer_donor leaves honored by the prediction, compared */
	int64_t donors_not_honored; /* buffer_donor leaves predicted not honored (not compared) */
	int64_t unknown;        /* decider answers `unknown` (each is a failure here) */
	/* copies at a computation's root whose operand has other users there: the
	 * removal makes the operand a root that runs last before its own users
	 * (docs/hazards.md 1), so the schedules the oracle finds hazard-free are
	 * no module's and the decider's repair closes a cycle; its `unknown` (no
	 * ordering verified) is accepted there, and counted */
	int64_t root_users_unverified;
	int64_t edges_checked;  /* schedule-dependent repair edges re-checked by the oracle */
	int64_t multi_edge_repairs; /* repairs that needed several edges (listed in the evidence;
				     * the API and hazards.md section 4 speak of one edge) */
	int64_t triples, triple_mismatch; /* hazard triples compared (module level) */
	double oracle_s, decider_s;
	double decider_copies_s, decider_buffers_s, decider_module_s; /* parts of decider_s */
};

/* What agree_module compares besides copies, donations and the module. */
enum {
	AGREE_CROSS_CHECK = 1, /* both deciders (graph and Z3) on every question; their
				* disagreement is a failure (slow: Z3 on everything) */
	AGREE_ALL_BUFFERS = 2, /* every buffer, not only those with two values or a hazard */
	AGREE_UNKNOWN_OK = 4,  /* a decider `unknown` with a reason is counted, not a failure */
	AGREE_OLD_RULE = 8,    /* the deciders judge a removal by every hazard of the merged
				* buffer, as before docs/hazards.md 4 compared it with the module
				* as given (analysis_options.removal_all_hazards): a negative
				* control, the oracle must disagree */
	AGREE_BY_CLASS = 16,   /* no proof samples, and writers a read reaches ruled out from
				* one traced writer on (analysis_options.no_proof_samples,
				* read_reach_min_traced): the paths large buffers take */
};

/* Compare on one module text (label names it in messages, e.g. "seed 17").
 * flags: AGREE_*. Disagreements are dumped to err (module text, the question, both answers,
 * the oracle's witness schedule). Returns the number of disagreements. */
int agree_module(const char *text, const char *label, unsigned flags, struct agree_stats *st,
		 FILE *err);

#endif
