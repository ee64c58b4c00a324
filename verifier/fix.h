/* fix.h - remove copies together, optimally, with a proof (`hloproof fix`,
 * docs/fix.md).
 *
 * The candidates are the copies whose own verdict allows their removal
 * (given: removable in the printed schedule, or with the control edges of
 * their schedule-dependent verdict, the schedule then changed by the fewest
 * moves that respect them; any: removable, or schedule-dependent with its
 * control edges). Copies of family no-op (a module before optimization: XLA's
 * simplifier removes them before copy insertion) are not candidates: they
 * cost nothing in the compiled program, and are counted apart. A weighted MaxSMT problem (maxsat.h: one Boolean per
 * candidate, weighted by its bytes times the trip count of its loops, or 1
 * with --objective=count) chooses a set; positions ordered under each
 * chosen copy's edges keep the edges acyclic with the dependencies. The
 * module with the chosen copies removed and their edges added is built
 * (rewrite.h), analysed again, and its hazards compared with the module as
 * given (docs/fix.md, "Verification"): a hazard it has that the module as
 * given does not is a conflict, learned as a constraint ("not all of these
 * copies"), and the solver runs again. The answer is the first choice that
 * verifies; it is optimal when every learned constraint holds under the
 * assumption docs/fix.md states. Out of rounds or time, a greedy choice,
 * verified the same way, not claimed optimal. Nothing is claimed removed
 * that was not verified. */
#ifndef HLOPROOF_FIX_H
#define HLOPROOF_FIX_H
#include "analysis.h"
#include "copies.h"

struct fix_options {
	int use_given;               /* 1: the given schedule; 0: every schedule */
	int count;                   /* --objective=count: copies, not bytes */
	int timeout_ms;              /* per solve; <= 0: none */
	const struct budget *budget; /* the whole search; NULL: unlimited */
	int max_rounds;              /* verifications; 0: FIX_MAX_ROUNDS */
};

#define FIX_MAX_ROUNDS 32

/* Why a copy stays. */
enum fix_kept {
	FIX_REMOVED = 0,
	FIX_KEPT_VERDICT,    /* its own verdict does not allow the removal */
	FIX_KEPT_CONFLICT,   /* with the other removals: a hazard (with[]) */
	FIX_KEPT_EDGES,      /* its control edges name a removed copy or close a cycle (with[]) */
	FIX_KEPT_UNTRIED,    /* the search ran out of rounds or time first */
	FIX_KEPT_NOOP,       /* family no-op: XLA's simplifier removes it, fix leaves it to XLA */
};

struct fix_copy {
	const struct copy_report *r; /* its own verdict (the session's) */
	int candidate;
	int edges;                   /* a candidate that goes only with its control edges */
	enum fix_kept kept;
	uint64_t weight;             /* what removing it saves in the objective */
	int64_t trips;               /* per module run: 0 outside loops, -1 unknown */
	char *why;                   /* kept: one line (module arena) */
	int32_t n_with;              /* the copies of its conflict */
	int32_t *with;               /* indices in fix_result.copies */
	/* kept because an undonated entry argument is written in place or
	 * output: 1 when donating it lets XLA drop the copy (checked as
	 * copies.h copy_donation_instead decides it), else 0 */
	int donate_drops;
	struct donation_fix donate;
};

struct fix_result {
	int use_given, count;
	int32_t n_copies;
	struct fix_copy *copies;     /* in the order of the copy list */
	int32_t n_removed;
	int32_t n_edges;             /* control edges added (instructions of the module as given) */
	const struct hlo_instruction **edge_from, **edge_to;
	/* the instructions the edges move off their printed order (of the
	 * module as given; under given, the schedule changes by these moves),
	 * and whether that is the fewest moves the edges allow (reorder.h) */
	int32_t n_moved;
	const struct hlo_instruction **moved;
	int moves_minimal;
	/* copies of family no-op (among n_copies): not candidates, their
	 * bytes never counted as saved */
	int32_t n_noop;
	uint64_t noop_bytes;
	uint64_t saved;              /* the objective: bytes x trips, or copies */
	uint64_t saved_bytes;        /* bytes of the removed copies, once each (no no-op copy
				      * is ever removed: only copies the compiled program has count) */
	uint64_t bound;              /* no choice saves more (under docs/fix.md's assumption);
				      * UINT64_MAX: unknown (a copy was not decided) */
	int optimal;                 /* saved == bound, every learned constraint justified */
	const char *not_optimal;     /* why not (when !optimal) */
	int failed;                  /* the result could not be verified: exit 3 */
	const char *failure;         /* why */
	/* the module with the removals and edges, verified; its analysis
	 * (free both with fix_result_free) */
	struct hlo_module *fixed;
	struct analysis *fixed_an;
	int32_t n_unknown;           /* copies whose own verdict is unknown: no optimality claim */
	int32_t rounds, solves, conflicts;
	int32_t buffers_compared;
};

/* Choose, verify and describe. cl and hl are the module's copies and
 * hazards (over an). Strings go into an->m's arena. Returns 0 (out->failed
 * says whether the result stands), or -1 on an internal error. */
int fix_run(struct analysis *an, const struct copy_list *cl, const struct hazard_list *hl,
	    const struct fix_options *o, struct fix_result *out);
void fix_result_free(struct fix_result *r);

/* --jointly: each copy's verdict given the other removals of the result:
 * a removed copy is removable with the others (verified); a kept one is
 * decided again in the fixed module. out[i] is copy i's report with the
 * joint verdict, in an->m's arena, naming the instructions of an->m. */
int fix_joint_reports(struct analysis *an, const struct fix_result *fr, struct copy_report *out);

#endif
