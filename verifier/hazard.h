/* hazard.h - aliasing hazards (docs/hazards.md section 3) in the module as it
 * stands, and the hazard decider over one set of values treated as a buffer
 * (used for copy removals, donations and by the oracle comparison). */
#ifndef HLOPROOF_HAZARD_H
#define HLOPROOF_HAZARD_H
#include "analysis.h"

enum hazard_kind {
	HAZARD_OVERWRITE = 0,        /* t1 < t2 < t3: w overwrites v before the read u */
	HAZARD_SAME_TIME,            /* t1 == t2 < t3: v and w defined into the buffer at once */
	HAZARD_SAME_INSTRUCTION,     /* t1 < t2 == t3: u defines w without being allowed to share */
	HAZARD_READ_ONLY_WRITTEN,    /* static: constant / non-aliased parameter in a shared buffer */
	HAZARD_READ_ONLY_OUTPUT,     /* static: read-only value at an entry output leaf */
	HAZARD_OUTPUTS_NOT_DISTINCT, /* static: one buffer at two entry output leaves */
};

const char *hazard_kind_name(enum hazard_kind k);

/* A rule shows at most this many witnesses of one value's hazards of one
 * kind (aliasing-hazard); analysis_options.witness_limit. */
#define HAZARD_WITNESSES_SHOWN 8

struct hazard_report {
	const struct hlo_instruction *def_v, *def_w, *use; /* use is NULL for static hazards */
	int32_t v, w;                /* value ids (w = -1 where the kind has none) */
	enum hazard_kind kind;
	/* read-only-output: the entry output leaf (leaf[0]); outputs-not-distinct:
	 * the two leaves, smaller first (subs of the entry root); -1 otherwise */
	int32_t leaf[2];
	int in_given;                /* the printed schedule has it; -1 when unscheduled */
	int in_some;                 /* some schedule has it (1 for static hazards) */
	int in_every;                /* every schedule has it */
	char *witness;               /* "W overwrites v (defined at D) before the read at U; ...";
				      * NULL past analysis_options.witness_limit */
	/* an ordering that avoids it (when in_some && !in_every): control edge */
	const struct hlo_instruction *edge_from, *edge_to;
	uint64_t bytes;              /* the buffer's size */
	enum copy_family predicted_family; /* the copy XLA would insert for it */
	int unknown;                 /* the decider could not settle in_some/in_every */
};

/* Hazards of the module as it stands, over every buffer, one report per
 * (v, w, u, kind) found; arena memory. Returns the count or -1. */
int32_t hazards_analyse(struct analysis *an, struct hazard_report **out);

/* The verdict of a set of values treated as one buffer, hazards.md 3-4. */
struct buffer_verdict {
	enum verdict given;          /* VERDICT_SAFE / VERDICT_UNSAFE; VERDICT_NONE when unscheduled */
	enum verdict any;            /* SAFE (no schedule has a hazard), UNSAFE (every schedule),
				      * SCHEDULE_DEPENDENT (edge below), UNKNOWN (reason) */
	const struct hlo_instruction *edge_from, *edge_to;
	/* every repair edge: when no single edge rules out all hazards, several
	 * are needed together (edge_from/edge_to is the first of them) */
	int32_t n_edges;
	const struct hlo_instruction **edges_from, **edges_to; /* arena */
	char *evidence;              /* witness or proof, multi-line */
	char *unknown_reason;
	int32_t n_hazards;           /* hazard triples (and static hazards) that some schedule has */
};

/* Decide hazards restricted to the values `values[0..n)` (ids of an->df),
 * taken as one buffer. When moved_from >= 0, that value is treated as
 * removed and its uses (and entry-root positions) count as uses of moved_to
 * (a copy removal: the copy's uses read its source). Returns 0, or -1 on an
 * internal error. */
int hazards_decide_values(struct analysis *an, const int32_t *values, int32_t n,
			  int32_t moved_from, int32_t moved_to, struct buffer_verdict *out);
/* Same for one buffer of the module as given (an->bufs). */
int hazards_decide_buffer(struct analysis *an, int32_t buffer, struct buffer_verdict *out);
/* The hazards of one buffer, as reports (like hazards_analyse, one buffer). */
int32_t hazards_in_buffer(struct analysis *an, int32_t buffer, struct hazard_report **out);

/* An analysis of the module with control edges added to it (analysis.base
 * set: repair.c checking a repair claim): its hazard triples on a buffer
 * are the base's that the edges leave possible, since edges only rule
 * schedules out and the triples come from the values and their reads,
 * which edges do not change. Counts them, restricted to value v (-1: any),
 * to the kinds in kind_mask (a bit per enum hazard_kind) and, with
 * match_writer, to the writer's definition and the read (the reading
 * instruction; a computation's root for a read at its end; NULL for static
 * hazards) of a hazard report; those whose condition is unknown are counted
 * in *n_unknown instead. -1 when it cannot be said (no base, no decision). */
int32_t hazards_left_with_edges(struct analysis *an, int32_t buffer, int32_t v, unsigned kind_mask,
				int match_writer, const struct hlo_instruction *writer,
				const struct hlo_instruction *use, int32_t *n_unknown);

#endif
