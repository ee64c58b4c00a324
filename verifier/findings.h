/* findings.h - what the rules report: one list per module.
 *
 * A finding names a rule, a severity, a message and a place (file, line,
 * column, computation, instruction). Its fingerprint identifies "the same
 * finding" across runs: it hashes the rule id, the computation and
 * instruction names without their trailing numeric suffixes (copy.12 -> copy),
 * the opcode and the shapes of the instruction and its operands, plus an
 * optional rule-supplied key; findings that hash alike are told apart by an
 * occurrence counter in text order ("<16 hex>:<n>"). Renumbering
 * instructions or moving unrelated ones does not change it.
 *
 * Everything a finding points to is copied into the list's own arena, so the
 * list outlives the module it was computed from. */
#ifndef HLOPROOF_FINDINGS_H
#define HLOPROOF_FINDINGS_H
#include <stdarg.h>
#include <stdint.h>
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "rule.h"
#include "source.h"

struct finding {
	const struct rule *rule;
	enum severity severity;
	char *message;
	const char *file;
	int line, col;                       /* 1-based; 0 = unknown */
	const char *computation, *instruction; /* NULL for module-level findings */
	char *fingerprint;                   /* set by findings_finalize() */
	char *evidence;                      /* optional, multi-line, no final newline */
	/* What the finding is about, for the machine-readable formats (set by
	 * the rule with finding_facts; the message says the same in words):
	 * bytes -1 and NULL names when the rule gives none. Static strings. */
	long long bytes;                     /* bytes moved, saved or donated */
	const char *family;                  /* copy family (copy_family_name) */
	const char *verdict;                 /* verdict_name: removable, unsafe, ... */
	struct source_info *source;          /* the instruction's Python place, or NULL (source.h) */
	/* a predicted copy (HP101): the value XLA's copy protects, as
	 * "name@computation", and where the copy goes, in words; NULL when
	 * the finding predicts none. Arena strings (finding_copy). */
	const char *copied_value, *copy_place;
	/* what the headline names (an argument path, else an HLO name), for
	 * the text summary; NULL when the rule gives none (finding_subject) */
	const char *subject;
	/* copy rules (finding_trips): the enclosing loops' trip count (0:
	 * outside loops, -1: unknown; JSON null for both) and bytes x trips
	 * (bytes when the count is not known); has_trips: set, else neither is
	 * written */
	int has_trips;
	long long trip_count, bytes_per_step;

	const char *suppressed;  /* reason of the accepted item that matched, or NULL */
	int baselined;           /* present in the --baseline file: not reported */
	int below_min_bytes;     /* fewer bytes than check --min-bytes: counted, not listed */
	uint64_t fp_hash;        /* fingerprint before the occurrence counter */
	int32_t seq;             /* insertion order, the last sort key */
};

struct findings {
	struct arena arena;
	const char *file;         /* module file as given */
	const char *module_name;
	int scheduled;
	/* lint_run: "before" or "after" (stage.h) and why, static text; NULL
	 * when no rules ran; and how many copies are family no-op */
	const char *stage, *stage_why;
	int32_t n_noop;
	int32_t n, cap;
	struct finding *items;    /* malloc'd; text order after findings_finalize() */
	int finalized;
	const struct source_filter *frames;  /* for the findings' source; NULL: the default */
};

void findings_init(struct findings *fs, const struct hlo_module *m);
void findings_free(struct findings *fs);

/* Low-level add: `instr` may be NULL (module-level); `pos` overrides the
 * instruction's position when pos.line > 0; `key` (may be NULL) joins the
 * fingerprint hash to tell apart findings on one instruction. */
struct finding *findings_add(struct findings *fs, const struct rule *r, enum severity sev,
			     const struct hlo_instruction *instr, struct srcpos pos,
			     const char *key, const char *message);

/* Append one line to the finding's evidence. */
void finding_evidence(struct findings *fs, struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append each non-empty line of a multi-line text (a verdict's evidence)
 * as an evidence line, at most max_lines of them (0: all). */
void finding_evidence_text(struct findings *fs, struct finding *f, const char *text, int max_lines);

/* Attach the structured facts to f (NULL: nothing): bytes (-1: none), the
 * copy family and verdict names (static strings or NULL). */
void finding_facts(struct finding *f, long long bytes, const char *family, const char *verdict);
/* Attach the loop cost of a copy finding in computation c (tripcount.h
 * computation_trips): bytes x trips when the count is known. */
void finding_trips(struct finding *f, const struct hlo_computation *c, long long bytes);
/* Attach the predicted copy's value and place (copied), into fs's arena. */
void finding_copy(struct findings *fs, struct finding *f, const char *copied_value,
		  const char *copy_place);

/* The finding's Python place is that of `in` when `in` has one (a donation
 * finding sits on the header entry, its user's line is the write's); the
 * argument path stays the finding's own. */
void finding_place_at(struct findings *fs, struct finding *f, const struct hlo_instruction *in);
/* Attach the name the headline gives what the finding is about. */
void finding_subject(struct findings *fs, struct finding *f, const char *subject);

/* Sort into text order (line, column, rule, insertion) and assign the
 * fingerprints' occurrence counters. Idempotent. */
void findings_finalize(struct findings *fs);

/* The fingerprint hasher, one for the findings' fingerprints and the gate's
 * copy identities: 64-bit FNV-1a over fields, each ended by 0x1f so that
 * ("ab","c") and ("a","bc") differ, and splitmix64's finalizer (htab_mix)
 * over the result. Stored baselines and gate reports hold its values: it
 * never changes. */
struct fp_hash {
	uint64_t h;
};
void fp_init(struct fp_hash *f);
void fp_bytes(struct fp_hash *f, const char *s, size_t n);
/* NULL hashes as "" */
void fp_str(struct fp_hash *f, const char *s);
/* The shape as printed (shape_to_string); NULL hashes as "". */
void fp_shape(struct fp_hash *f, const struct shape *s);
uint64_t fp_final(const struct fp_hash *f);

/* "copy.12" -> "copy", "Arg_0.1" -> "Arg_0", "a.1.2" -> "a": the name without
 * trailing ".<digits>" groups (never empty: "12" stays "12"). Returns the
 * length of the kept prefix. */
size_t name_stem_len(const char *name);

#endif
