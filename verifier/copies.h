/* copies.h - prove or refute every copy: its family (why it is there) and
 * the removal verdicts of docs/hazards.md section 4, with evidence. */
#ifndef HLOPROOF_COPIES_H
#define HLOPROOF_COPIES_H
#include "analysis.h"
#include "copysite.h"
#include "source.h"
#include "repair.h"

struct copy_report {
	const struct hlo_instruction *copy; /* site.at: the copy, fusion or copy-start */
	struct copy_site site;       /* kind, copy-done, fusion output (copysite.h) */
	enum copy_family family;
	char *family_evidence;       /* names the instructions that explain the family */
	enum verdict given;          /* VERDICT_NONE when the module is not scheduled */
	enum verdict any;            /* removable / necessary / schedule-dependent / unknown */
	char *evidence;              /* witness (necessary) or proof (removable), multi-line */
	char *unknown_reason;        /* set when any (or given) is unknown */
	/* repair control edge edge_from -> edge_to for schedule-dependent */
	const struct hlo_instruction *edge_from, *edge_to;
	/* all repair edges when one is not enough (edge_from/edge_to first); arena */
	int32_t n_edges;
	const struct hlo_instruction **edges_from, **edges_to;
	uint64_t bytes;              /* size of the copy's result (what removal saves) */
	/* a necessary in-place or output copy of an entry parameter leaf that is
	 * not donated: 1 when donating the leaf lets XLA drop the copy (checked
	 * on the module with the copy removed and the leaf donated, repair.h
	 * repair_donation_drops_copy; `donate` says how), -1 when it does not
	 * (donate.why_not), 0 when not decided or the question does not arise */
	int donate_drops;
	struct donation_fix donate;
	int undonated_words;         /* the family's words name the undonated parameter */
	const struct hlo_instruction *in_place_writer; /* in-place: the user that writes it, or NULL */
};

/* Analyse one copy: a copy instruction, or the first copy site the
 * instruction is (a fused copy's fusion, a copy-start or copy-done; see
 * copy_sites_named for one output of a multi-output fusion). Strings are
 * allocated in the module arena. Returns 0, or -1 when `copy` is not a copy
 * (or an internal error, reported through an->d). */
int copy_analyse_one(struct analysis *an, const struct hlo_instruction *copy,
		     struct copy_report *out);
/* Analyse one copy site (copysite.h). Returns 0, or -1. */
int copy_analyse_site(struct analysis *an, const struct copy_site *site, struct copy_report *out);
/* Every copy site of the module (copy_sites: plain, fused and asynchronous
 * copies in non-fusion computations, in text order). *out is arena memory.
 * Returns the count, or -1 on error. */
int32_t copies_analyse(struct analysis *an, struct copy_report **out);

/* Whether donating the entry argument that a necessary in-place or output
 * copy copies lets XLA drop the copy (out->donate_drops and out->donate,
 * checked on the module without the copy, the argument donated: repair.h
 * repair_donation_drops_copy). copy_analyse_site decides it unless
 * analysis_options.no_repair_check; this decides it whatever the option. */
void copy_donation_instead(struct analysis *an, struct copy_report *out);

/* Family only (cheap; no verdicts). */
enum copy_family copy_family_of(struct analysis *an, const struct hlo_instruction *copy,
				char **evidence);

/* The merged buffer of removing `copy` (hazards.md section 4), as value ids of
 * the module as given: buffer(operand value) U buffer(copy value) minus the
 * copy's value, with loop/branch phis that collapse after the rewrite replaced
 * by what they collapse to. *values is arena memory; returns the count or -1
 * when the copy's operand has no unique value, or when loop phis that collapse
 * onto the copy would stay phis after the rewrite (the model does not hold:
 * copy_analyse_one then analyses the rewritten module). */
int32_t copy_merged_buffer(struct analysis *an, const struct hlo_instruction *copy,
			   int32_t **values);

/* The value a copy site defines: the copy's or the fusion's (at its
 * output), the copy-start's destination {0}; -1 when there is none. */
int32_t copy_site_value(const struct dataflow *df, const struct copy_site *st);

/* ---- what the rules and reporters get (session.h builds them) ---- */

struct copy_list {
	int32_t n;
	struct copy_report *items;     /* copies_analyse; arena */
};

struct hazard_report;

struct hazard_list {
	int32_t n;
	struct hazard_report *items;   /* hazards_analyse; arena */
};

/* One module's copy reports and hazards over one analysis. */
struct copy_verdicts {
	struct analysis *an;
	struct copy_list copies;
	struct hazard_list hazards;
};

/* A copy as the JSON report keeps it once the module is gone. */
struct copy_summary {
	const char *name, *computation;
	enum copy_kind kind;
	int32_t output;              /* fused: output of a multi-output fusion, else -1 */
	const char *done;            /* async: the copy-done's name, else NULL */
	int line;
	enum copy_family family;
	enum verdict given, any;
	const char *evidence;
	uint64_t bytes;
	/* inside a while loop: how many times it runs per module run
	 * (computation_trips), -1 unknown; 0 outside loops */
	int64_t trips;
	struct source_info *source;   /* the copy's Python place, or NULL (source.h) */
};

struct copy_summaries {
	int32_t n;
	struct copy_summary *v;
};

/* Copy the reports into `a` (a findings list's arena, say); frames: the
 * source filter (NULL: the default). */
struct copy_summaries *copy_summaries_build(const struct copy_verdicts *cv,
					    const struct source_filter *frames, struct arena *a);

#endif
