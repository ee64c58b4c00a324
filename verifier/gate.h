/* gate.h - `hloproof gate`: what changed between two versions of a module.
 *
 * A gate_module is what the gate keeps of one parsed module: its copies, its
 * donations and its lint findings, with identities that survive renumbering,
 * so that the module can be freed before the comparison (and built on any
 * thread: gate_module_build reads only its module and the configuration).
 *
 *  - A copy's identity hashes the computation and copy names without their
 *    numeric suffixes (name_stem_len), the operand's opcode, and the operand
 *    and result shapes; copies with equal identities are paired in text
 *    order, the rest are added (HEAD) or removed (BASE).
 *  - A donation is one parameter leaf (param, {index}) that an
 *    input_output_alias entry or a buffer_donor names; it is honored when its
 *    storage is reused by an output. A donation honored in BASE and not in
 *    HEAD (absent, or a donor left unmatched) is lost; the reverse, gained.
 *  - A finding is new when its fingerprint (findings.h) is not in BASE.
 *
 * Family and verdicts come from the deciders (copies.h, donation.h) over one
 * analysis of the module (analysis.h). When the analysis cannot be run (or a
 * decider fails) the gate falls back to the IR alone (gate.c, the "IR
 * facts"): a copy's family is `layout` or `memory-space` when its operand's
 * shape differs from its own only in layout, and unknown (NULL) otherwise;
 * an alias entry is honored; a donor is honored when XLA's donor matching
 * (hlo-semantics.md 7.3) would give it an output. */
#ifndef HLOPROOF_GATE_H
#define HLOPROOF_GATE_H
#include <stdint.h>
#include "arena.h"
#include "config.h"
#include "findings.h"
#include "ir.h"

struct gate_copy {
	const char *computation, *name; /* name: "f{1}" for one output of a multi-output fusion */
	const char *kind;             /* "copy", "fused", "async" (copy_kind_name) */
	const char *done;             /* async: the copy-done's name, else NULL */
	const char *operand;          /* the copied operand's name */
	const char *operand_opcode;
	const char *family;           /* copy_family_name(), or NULL when not decided */
	const char *verdict;          /* removal verdict over every schedule (verdict_name), or NULL */
	const char *verdict_given;    /* in the printed schedule; NULL when unscheduled or undecided */
	uint64_t key;                 /* identity */
	uint64_t bytes;               /* of the copy's result */
	int line, col;
	int32_t seq;                  /* text order over the module */
};

struct gate_donation {
	int32_t param;
	const char *param_index;      /* "{0,1}" */
	const char *output_index;     /* the aliased (or predicted) output; NULL when none */
	const char *kind;             /* "may-alias", "must-alias", "buffer-donor" */
	int honored;                  /* an output reuses the leaf's storage */
	int copied;                   /* honored only through a copy of the parameter */
	const char *verdict;          /* the donation decider's verdict, or NULL */
	const char *reason;           /* why not honored; NULL when honored */
	uint64_t bytes;
	int line, col;                /* of the header entry */
	const char *arg_path;         /* the parameter's JAX argument path (source.h), or NULL */
};

struct gate_module {
	struct arena arena;           /* everything below but findings */
	const char *file, *name;
	int32_t n_copies, n_donations;
	struct gate_copy *copies;     /* text order */
	struct gate_donation *donations; /* aliases, then donors, in header order */
	struct findings findings;     /* finalized; suppressed ones marked */
	int decided_copies;           /* family and verdict come from the copy decider */
	int decided_donations;        /* honored/verdict come from the donation decider */
	int lint_failed;              /* a rule reported an internal error */
	/* the analysis could not decide this module (session_why): every copy
	 * verdict is "unknown" and the gate exits 3; NULL when decided */
	const char *unknown;
	int unknown_line, unknown_col;
};

struct annotations;

struct gate_build_options {
	const struct annotations *ann; /* --annotations, or NULL */
	int no_deciders;               /* the IR facts only (fast; no verdicts) */
	int stage;                     /* --stage (enum module_stage); 0: detected */
};

/* Summarise m (which it does not free) into g, running the deciders and the
 * lint rules. opt may be NULL. Returns 0, or -1 on an internal error (g is
 * then still valid and may be freed). */
int gate_module_build(struct hlo_module *m, const struct lint_config *cfg,
		      const struct gate_build_options *opt, struct gate_module *g);
void gate_module_free(struct gate_module *g);

/* The differences between two versions; arrays are malloc'd and point into
 * the two gate_modules, which must outlive the diff. Lists are in text order
 * (added copies, gained donations and new findings in HEAD's, the others in
 * BASE's). */
struct gate_diff {
	const struct gate_module *base, *head;
	int32_t n_added, n_removed, n_kept;
	const struct gate_copy **added, **removed;
	uint64_t added_bytes, removed_bytes;
	int32_t n_lost, n_gained;
	/* lost[i] is BASE's entry, lost_head[i] HEAD's (NULL when absent); gained likewise */
	const struct gate_donation **lost, **lost_head, **gained, **gained_base;
	uint64_t lost_bytes;
	/* honored in both, but in HEAD only through a copy of the parameter
	 * (no memory saved) where BASE needed none: copied[i] is HEAD's entry */
	int32_t n_copied;
	const struct gate_donation **copied, **copied_base;
	int32_t n_new, n_fixed;
	const struct finding **new_findings;   /* reported in HEAD, fingerprint not in BASE */
	const struct finding **fixed_findings; /* reported in BASE, fingerprint not in HEAD */
};

int gate_compare(const struct gate_module *base, const struct gate_module *head, struct gate_diff *out);
/* A module only in HEAD against an empty BASE (no copies, donations or
 * findings; file and name NULL): every copy added, every honored donation
 * gained, every finding new. */
int gate_compare_new(const struct gate_module *head, struct gate_diff *out);
void gate_diff_free(struct gate_diff *d);

/* ---- what `hloproof gate` reports (report_gate.c writes it) ---- */

struct gate_pair_result {
	const struct gate_module *base, *head;
	struct gate_diff diff;
};

/* The totals over every pair and the regressions. */
struct gate_totals {
	uint64_t added_bytes, removed_bytes, lost_bytes;
	int32_t added, removed, kept, lost, gained, new_findings, failing_findings, fixed;
	int regressed_copies, regressed_donations, regressed_findings;
};

/* A parsed module of one side that pairs with nothing (directories). */
struct gate_unpaired {
	const char *file;             /* as given */
	const struct gate_module *g;
};

struct gate_result {
	uint64_t max_new_copy_bytes;  /* the thresholds */
	int allow_lost_donations;
	enum fail_on fail_on_new;
	const struct gate_pair_result *pairs; /* the pairs, then the new modules (base->file NULL) */
	int32_t n_pairs;              /* pairs and new modules */
	int32_t n_new;                /* of which new modules (HEAD only, against an empty BASE) */
	const struct gate_unpaired *only_base;
	int32_t n_only_base;
	const struct gate_unpaired *only_head;
	int32_t n_only_head;
	int32_t failed, skipped;      /* inputs that did not parse; non-module .txt files */
	int32_t unknown;              /* compared modules the analysis could not decide (gate_module.unknown) */
	const struct gate_totals *v;
	int color;                    /* text: severities and the regression in colour */
};

/* Pairing the modules of two dump directories. Each side lists its modules
 * (file path and HloModule name) in input order; pairs[i] receives the index
 * of BASE module i's partner in HEAD, or -1. Modules pair by module name and
 * file stem together first, then by module name when it is unique among the
 * unpaired of both sides, then by file stem alone; the file stem is the
 * basename without a leading "module_<digits>." (XLA's dump numbering).
 * An input with a NULL name (it did not parse) pairs with nothing.
 * Returns 0, or -1 when out of memory. */
struct gate_input {
	const char *file, *name;
};
int gate_pair(const struct gate_input *base, int32_t n_base, const struct gate_input *head,
	      int32_t n_head, int32_t *pairs);
/* The file stem of a dump file name: "d/module_0006.jit_step.after.txt" -> "jit_step.after.txt". */
const char *gate_file_stem(const char *path);

#endif
