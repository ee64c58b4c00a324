/* donation.h - prove or refute every donation (docs/hazards.md §6,
 * hlo-semantics.md §7.6 D2-D5) and say whether it is honored.
 *
 * One report per input_output_alias entry (registration order) and then one
 * per distinct buffer_donor leaf (registration order):
 *  - an alias gets safe / unsafe / schedule-dependent / unknown from the
 *    hazard decider (hazard.h) on the buffer the parameter and its output
 *    share: `given` for the printed schedule of a scheduled module, `any` over
 *    every schedule with a repair edge when schedule-dependent;
 *  - a donor gets XLA's predicted output (donormatch.h) and then the same
 *    safety test on the buffer that alias would create, or `not-honored`
 *    with the reason and the outputs considered;
 *  - `copied` when the parameter value's only readers are copies of it with
 *    the same layout (the alias is honored, the memory is not saved);
 *  - must-alias entries say that callers must donate, and `late_read` when
 *    the parameter is read after the output is written (a forced copy, or in
 *    a scheduled module a corrupted read).
 * Strings live in the module's arena. */
#ifndef HLOPROOF_DONATION_H
#define HLOPROOF_DONATION_H
#include <stdint.h>
#include "ir.h"
#include "source.h"
#include "verdict.h"

struct analysis;

enum donation_kind { DONATION_MAY_ALIAS = 0, DONATION_MUST_ALIAS, DONATION_BUFFER_DONOR };

/* "may-alias", "must-alias", "buffer-donor" */
const char *donation_kind_name(enum donation_kind k);

struct donation_report {
	int32_t param;
	struct shape_index param_index;
	struct shape_index *output_index;  /* the alias's (or the predicted) output; NULL when none */
	enum donation_kind kind;
	enum verdict given;                /* VERDICT_NONE when the module is not scheduled */
	enum verdict any;                  /* safe / unsafe / schedule-dependent / unknown / not-honored */
	char *evidence;                    /* multi-line, no final newline */
	const char *arg_path;              /* JAX argument path (param_arg_path), or NULL */
	uint64_t bytes;                    /* of the donated leaf */
	/* schedule-dependent: a control edge edge_from -> edge_to that makes it safe */
	const struct hlo_instruction *edge_from, *edge_to;
	const char *edges;                 /* every edge needed: "a -> b, c -> d" (arena) */
	int copied;                        /* honored only through a copy of the parameter */
	const struct hlo_instruction *copy;/* that copy (the first), when copied */
	uint64_t copy_bytes;               /* what the copies cost */

	/* details the rules and the CLI use */
	struct srcpos pos;                 /* of the header entry */
	const struct hlo_instruction *param_instr;
	const char *reason;                /* not-honored: why; unknown: why */
	int donor_outcome;                 /* enum donor_outcome for donors, -1 for aliases */
	/* the hazard shown as witness (unsafe / schedule-dependent / late read):
	 * writer `writer` overwrites the value defined at `def` before `reader` reads it */
	const struct hlo_instruction *def, *writer, *reader;
	int witness_kind;                  /* enum hazard_kind of that witness, -1 when none */
	int late_read;                     /* the parameter is read after the output is written:
					    * 1 in the given schedule (or every schedule), 2 in some */
};

struct donation_list {
	int32_t n;
	struct donation_report *items;
};

/* Every alias and donor of an analysed module. Returns the count (and *out,
 * arena memory), or -1 on an internal error. */
int32_t donations_analyse(struct analysis *an, struct donation_report **out);
/* The same when no analysis could be run (`why` says why): aliases get
 * `unknown`, donors still get their predicted match or `not-honored`. */
int32_t donations_unanalysed(struct hlo_module *m, const char *why, struct donation_report **out);

/* What a donation comes to, in one word: the one reading of a report that
 * `hloproof donation` (its line, JSON "reading" and exit status), check's
 * donation rules (each reads one value), its JSON donations[] and the text
 * summary share, so that no two of them read one donation differently. */
enum donation_reading {
	READING_HONORED = 0,    /* the output reuses the buffer, no copy: no finding */
	READING_NOT_HONORED,    /* no output will reuse it (HP201 donation-not-honored) */
	READING_UNSAFE,         /* scheduled: the printed schedule reads a value of the
				 * donated buffer after overwriting it (HP202 donation-unsafe) */
	READING_COPIED,         /* honored only through a copy of the parameter (HP203) */
	READING_COPY_PREDICTED, /* not scheduled: a hazard on the donated buffer in some
				 * schedule, so copy insertion (which orders by dependencies
				 * only) will add a copy for it (HP203 donation-copied) */
	READING_UNKNOWN,        /* not settled: no finding, `donation` exits 3 */
};

enum donation_reading donation_reading(const struct hlo_module *m, const struct donation_report *r);
/* "honored", "not-honored", "unsafe", "copied", "copy-predicted", "unknown" */
const char *donation_reading_name(enum donation_reading x);
/* The rule that reports a reading ("HP203"), NULL for honored and unknown. */
const char *donation_reading_rule(enum donation_reading x);

/* donation_reading(m, r) == READING_COPY_PREDICTED */
int donation_copy_predicted(const struct hlo_module *m, const struct donation_report *r);

/* Counts per verdict (any), for summaries. counts[] has VERDICT_NOT_HONORED + 1 entries. */
void donations_count(const struct donation_report *r, int32_t n, int32_t *counts);

/* A copy of the reports that outlives the module (for the reporters):
 * indices as text, evidence and names copied; malloc'd, free with
 * donation_summaries_free. */
struct donation_summary {
	int32_t param;
	char *param_index;        /* "{0,1}" */
	char *output_index;       /* NULL when none */
	enum donation_kind kind;
	enum verdict given, any;
	char *evidence;
	char *arg_path;           /* NULL when none */
	char *name;               /* param_short_name: the argument path, else "param 3" */
	uint64_t bytes;
	int copied;
	uint64_t copy_bytes;
	enum donation_reading reading;
	char *edge;               /* "a -> b" or NULL */
	char *reason;             /* NULL when none */
	struct source_info *source; /* the parameter's metadata, or NULL (source.h) */
};

struct donation_summaries {
	int32_t n;
	struct donation_summary *items;
	struct arena arena;       /* the sources */
};

/* r: the reports of module m; frames: the source filter (NULL: the default). */
struct donation_summaries *donation_summaries_make(const struct hlo_module *m,
						   const struct donation_report *r, int32_t n,
						   const struct source_filter *frames);
void donation_summaries_free(struct donation_summaries *s);

#endif
