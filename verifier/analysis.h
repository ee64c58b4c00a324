/* analysis.h - everything the copy and hazard deciders share for one module:
 * dataflow values, in-place pairs, buffers, the dependency ordering (and the
 * sequential one when the module is scheduled), and one Z3 context.
 *
 * One analysis per module and per thread; no globals. All memory but the Z3
 * context comes from the module's arena. */
#ifndef HLOPROOF_ANALYSIS_H
#define HLOPROOF_ANALYSIS_H
#include <stdint.h>
#include "buffers.h"
#include "ordering.h"
#include "liveness.h"
#include "verdict.h"
#include "budget.h"
#include "stage.h"

struct analysis_options {
	int timeout_ms;           /* per SMT query; default 2000; <= 0 = default */
	const char *smt_dump_dir; /* write every SMT query there as SMT-LIB2; NULL = off */
	int cross_check;          /* run both deciders where both apply; abort on disagreement */
	/* ask Z3 the whole "schedule with none of the hazards" question, as
	 * before the graph decided it (hazard.c none_by_graph); default off,
	 * on when the environment has HLOPROOF_SMT_NONE=1 (tests of the solver
	 * path, comparisons) */
	int smt_none;
	/* --time-budget-ms (budget.h); zeroed: unlimited. copies_analyse reports
	 * the copies it reaches after the deadline as unknown, with the reason. */
	struct budget budget;
	/* > 0: the hazard reports carry witness texts only for the first this
	 * many of each (value, kind) that a rule can show (in the printed
	 * schedule, or in some schedule when unscheduled), NULL for the rest:
	 * 100,000 hazards of one buffer are formatted for nobody otherwise.
	 * 0: every witness (explain prints them all). */
	int witness_limit;
	/* a value read by at least this many instructions has its reads built
	 * once per analysis and copied into each hazard view (hazard.c); 0:
	 * the default, 64. The agreement tests take 1, so that the oracle
	 * checks the copied reads on every value. */
	int read_block_min_uses;
	/* a hazard view of at least this many values shares its member
	 * matrices with the other views of the same values (hazard.c,
	 * member_mats); 0: the default, 16. The agreement tests take 1. */
	int shared_mats_min_members;
	/* tests only: keep no proof samples, so that the deciders count what
	 * they rule out by class from a view's first read, and rule out the
	 * writers a read reaches (hazard.c, read_reaches) on a read with this
	 * many traced writers (0: the default, 32): the agreement tests check
	 * those paths on modules too small to reach them otherwise */
	int no_proof_samples;
	int read_reach_min_traced;
	/* set in the analyses of modules rewritten to check a repair claim
	 * (repair.h): they decide, but claim and check no repairs themselves */
	int no_repair_check;
	/* the copies' and views' proofs are read by nobody: an analysis that
	 * answers a repair question (repair.c) skips their text */
	int no_evidence;
	/* tests only: judge a copy removal by every hazard of the merged
	 * buffer, as before docs/hazards.md 4 compared it with the module as
	 * given (the agreement test shows the oracle catches that rule) */
	int removal_all_hazards;
	/* --stage: where in XLA's pipeline the module was dumped (stage.h);
	 * STAGE_AUTO (zeroed): module_stage_detect */
	enum module_stage stage;
};

void analysis_default_options(struct analysis_options *opt);

struct smt;      /* the Z3 side (smt.h) */
struct hz_cache; /* per-analysis caches of the hazard deciders */
struct repair_cache; /* the modules rewritten to check repairs (repair.h) */

struct analysis {
	struct hlo_module *m;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct ordering *dep;     /* dependency ordering (always) */
	struct ordering *seq;     /* sequential ordering; NULL unless scheduled */
	struct liveness lv_dep;   /* XLA's live-range tests over dep */
	struct analysis_options opt;
	/* opt.stage resolved: STAGE_BEFORE or STAGE_AFTER, and why (static text) */
	enum module_stage stage;
	const char *stage_why;
	struct diag *d;
	struct smt *smt;          /* created on first use; freed by analysis_free */
	/* the hazard deciders' caches: created and given a destructor by
	 * hazard.c on first use, so that analysis_free frees them without
	 * reaching up to the file that knows their layout */
	struct hz_cache *cache;
	void (*cache_free)(struct hz_cache *c);
	struct repair_cache *repairs;
	/* set on an analysis of this module with control edges added to it
	 * and nothing else changed (repair.c, checking a repair claim): the
	 * analysis as given, whose values, in-place pairs and buffers this one
	 * shares. Edges only rule schedules out, so the hazard deciders take
	 * from base what they cannot change: the uses' reads, and each
	 * buffer's hazard triples, of which those the edges leave possible are
	 * this module's (hazard.c) */
	struct analysis *base;
	/* with base: the control edges added over it, edge_from[i] ->
	 * edge_to[i] (hazard.c: which of base's triples they can rule out) */
	const struct hlo_instruction **edge_from, **edge_to;
	int32_t n_edges;
	/* counters, for --stats and the performance figures */
	uint64_t n_graph_queries, n_smt_queries, n_smt_unknown, n_cache_hits;
	uint64_t n_verdicts;      /* views decided (buffers, copy removals, values) */
	uint64_t n_verdicts_smt;  /* ... of which sent a query to Z3 (not counting --cross-check) */
	int cross_check_failed;   /* set when the two deciders disagreed */
	/* per buffer, made on first use (copies.c): 0 not yet known, 1 no
	 * loop or branch phi among its values, 2 some */
	uint8_t *buffer_phis;
};

/* Run dataflow, in-place pairs, buffers and orderings. Allocates in m->arena.
 * Returns NULL after reporting an error through d. opt may be NULL. */
struct analysis *analysis_run(struct hlo_module *m, const struct analysis_options *opt,
			      struct diag *d);
/* Frees what is not in the arena (Z3 context, caches). NULL is fine. */
void analysis_free(struct analysis *an);

#endif
