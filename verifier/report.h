/* report.h - the reporters: text, json, sarif, junit, checkstyle.
 *
 * A report is the list of checked modules (input order), each with its
 * finalized findings; suppressed (accepted in the configuration) and
 * baselined findings are marked, not removed, so each format decides how to
 * show them. JSON goes through jansson, XML through libxml2's xmlTextWriter. */
#ifndef HLOPROOF_REPORT_H
#define HLOPROOF_REPORT_H
#include <stdio.h>
#include <jansson.h>
#include <libxml/xmlwriter.h>
#include "findings.h"

/* ANSI colours of the text reports: severities, and the path in bold. */
#define REPORT_C_BOLD "\033[1m"
#define REPORT_C_RED "\033[1;31m"
#define REPORT_C_MAGENTA "\033[1;35m"
#define REPORT_C_CYAN "\033[1;36m"
#define REPORT_C_RESET "\033[0m"

struct copy_summaries;
struct donation_summaries;

/* SARIF informationUri: where the project lives (set when it is published). */
#define HLOPROOF_URI "https://github.com/hloproof/hloproof"

enum report_format { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT, FMT_CHECKSTYLE };

struct module_report {
	struct findings findings;   /* file, module name, scheduled, items */
	/* the deciders' verdicts, detached from the module; report_json.c turns
	 * them into "copies" and "donations" */
	const struct copy_summaries *copies;          /* copies.h; in the findings' arena, may be NULL */
	struct donation_summaries *donation_verdicts; /* donation.h; owned, may be NULL */
};

struct baseline;

/* An input that could not be read or parsed: the parser's first error. */
struct input_failure {
	const char *file;                 /* as given */
	int line, col;                    /* 0: the error has no position */
	const char *message;              /* without the position */
	size_t before;                    /* modules before it in input order */
};

struct report {
	struct module_report *modules;
	size_t n_modules;
	const struct baseline *baseline;  /* --baseline, for stale entries; may be NULL */
	int files_failed;                 /* inputs that did not parse */
	const struct input_failure *failed; /* files_failed entries, input order */
};

struct report_options {
	int color;                        /* text: ANSI colours */
	/* junit: a <failure> for findings at or above this severity (enum
	 * fail_on, config.h; 0 is FAIL_NOTE); the others pass */
	int fail_on;
	/* sarif: URIs relative to this directory (absolute, no final '/'),
	 * the %SRCROOT% base; NULL: the enclosing git work tree of the first
	 * module, else the current directory */
	const char *source_root;
	/* text: findings in file order (--sort=position) instead of the most
	 * bytes first; --statistics: counts and bytes per rule instead of the
	 * list; --quiet: the module summaries and the totals only */
	int sort_position, statistics, quiet;
};

struct report_counts {
	int errors, warnings, notes;      /* reported findings */
	int suppressed, baselined, stale;
	int below_min_bytes;              /* check --min-bytes: counted, not listed */
};

int report_format_parse(const char *s, enum report_format *out);
void report_count(const struct report *r, struct report_counts *c);
/* A finding the formats show as a result (neither suppressed nor baselined). */
static inline int finding_reported(const struct finding *f)
{
	return !f->suppressed && !f->baselined && !f->below_min_bytes;
}

/* Each returns 0, or -1 on a write error. */
int report_text(FILE *out, const struct report *r, const struct report_options *o);
int report_json(FILE *out, const struct report *r, const struct report_options *o);
int report_sarif(FILE *out, const struct report *r, const struct report_options *o);
int report_junit(FILE *out, const struct report *r, const struct report_options *o);
int report_checkstyle(FILE *out, const struct report *r, const struct report_options *o);
int report_write(FILE *out, enum report_format fmt, const struct report *r,
		 const struct report_options *o);

/* ---- `hloproof donation` (report_donation.c) ---- */

struct hlo_module;
struct donation_report;
struct shape_index;

/* The --annotations violations of a module, in the order found; malloc'd. */
struct donation_violations {
	int32_t n, cap;
	char **msg;
};
void donation_violations_add(struct donation_violations *v, const char *msg);
void donation_violations_free(struct donation_violations *v);

/* `donation FILE`: one module's donation reports. */
struct donation_module_view {
	const char *file;
	const struct hlo_module *m;
	const struct donation_report *r;
	int32_t n;
	const int32_t *counts;          /* donations_count, VERDICT_NOT_HONORED + 1 entries */
	int evidence;                   /* text: each report's evidence (--evidence) */
	const struct donation_violations *violations; /* NULL: no --annotations */
	int color;                      /* text: verdicts and violations in colour */
};

enum donation_outcome { DONATION_HONORED = 0, DONATION_HONORED_COPY, DONATION_DROPPED };

/* `donation BEFORE AFTER`: what AFTER did with one request of BEFORE. */
struct donation_outcome_row {
	const struct donation_report *rq;   /* BEFORE's request */
	const struct donation_report *got;  /* AFTER's entry for the same leaf, or NULL */
	enum donation_outcome oc;
	const char *why;                    /* the reason shown, or NULL */
	const struct shape_index *out;      /* the output AFTER uses, or NULL */
	uint64_t saved, lost;
	char reason[700];                   /* why's storage when built */
};

struct donation_pair_view {
	const char *before, *after;
	const struct hlo_module *mb, *ma;
	int32_t n_requested;
	const struct donation_outcome_row *rows;  /* n_requested, in BEFORE's order */
	int32_t n_added;
	const struct donation_report *const *added; /* AFTER aliases BEFORE did not ask for */
	uint64_t saved, lost, requested_bytes;
	int n_outcome[3];
	int evidence;
	const struct donation_violations *violations; /* AFTER's; NULL: no --annotations */
	int color;                      /* text: violations in colour */
};

/* Each returns 0, or -1 on a write error. */
int report_donation_text(FILE *out, const struct donation_module_view *v);
int report_donation_json(FILE *out, const struct donation_module_view *v);
int report_donation_pair_text(FILE *out, const struct donation_pair_view *v);
int report_donation_pair_json(FILE *out, const struct donation_pair_view *v);

/* ---- `hloproof gate` (report_gate.c; struct gate_result is gate.h's) ---- */

struct gate_result;
int report_gate_text(FILE *out, const struct gate_result *r);
int report_gate_json(FILE *out, const struct gate_result *r);

/* ---- `hloproof explain` (report_explain.c) ---- */

struct copy_report;
struct hazard_report;
/* A copy's family, verdicts, repair edges and full evidence. */
void report_explain_copy(FILE *out, const struct copy_report *r);
/* repair_holds: the module with h's edge added no longer has h (the edge is
 * named only then). */
void report_explain_hazard(FILE *out, const struct hazard_report *h, int repair_holds);
/* --summary: "copy NAME COMPUTATION FAMILY GIVEN ANY", "hazard KIND V W USE
 * every|some FAMILY COMPUTATION" (tests/conformance.sh reads them) */
void report_explain_summary_copy(FILE *out, const struct copy_report *r);
void report_explain_summary_hazard(FILE *out, const struct hazard_report *h);
/* prove-removal: "removal proven safe" / "unknown" / "removal refuted" under
 * the given schedule or every schedule, the repair edges, the evidence. */
void report_prove_removal(FILE *out, const struct copy_report *r, int use_given);

/* Helpers shared by the formats (report.c). */
/* Valid UTF-8 with control characters other than \t \n replaced by '?',
 * so jansson and XML accept any input; malloc'd. */
char *report_clean_text(const char *s);
json_t *report_json_string(const char *s);
/* report_json_string, or null for NULL */
json_t *report_json_string_or_null(const char *s);
/* A finding as JSON, every string through report_json_string. full: the
 * object of check's findings[] (docs/json.md); else the gate's new and fixed
 * findings (docs/gate.md): the fingerprint first, no trip counts, copied
 * value or evidence. */
json_t *report_finding_json(const struct finding *f, int full);
/* The finding's message with its evidence lines appended, malloc'd. */
char *report_full_message(const struct finding *f);
/* "FILE:LINE:COL" (or "FILE" without a position) of a failed input, malloc'd. */
char *report_failure_location(const struct input_failure *f);
/* The finding's evidence as a JSON array of lines ([] without evidence). */
json_t *report_evidence_lines(const struct finding *f);
/* The first paragraph of a rule's documentation (after its title), malloc'd. */
char *report_rule_description(const struct rule *r);
/* Relative path or file:// URI, percent-encoded as SARIF wants; malloc'd. */
char *report_uri(const char *path);
/* The repository root for SARIF: the closest directory at or above `file`'s
 * that holds a .git (directory or file), else the current directory;
 * absolute, malloc'd, NULL when neither can be resolved. */
char *report_source_root(const char *file);
/* `file` relative to `root` (absolute) when inside it, percent-encoded, with
 * *based = 1; otherwise report_uri(file) and *based = 0. malloc'd. */
char *report_root_uri(const char *file, const char *root, int *based);
/* Markdown with relative links [text](path) replaced by their text, so it
 * reads the same outside the repository; absolute links kept. malloc'd. */
char *report_unlink_markdown(const char *md);

/* xmlTextWriter helpers for the XML formats; strings are cleaned first.
 * report_xml_open: a writer on `out` (which it does not close), NULL on
 * failure; report_xml_close ends the document, flushes and frees it and
 * returns -1 if rc < 0 or a write failed. */
xmlTextWriterPtr report_xml_open(FILE *out);
int report_xml_close(xmlTextWriterPtr w, int rc);
int report_xml_attr(xmlTextWriterPtr w, const char *name, const char *value);
int report_xml_attr_int(xmlTextWriterPtr w, const char *name, long value);
int report_xml_text(xmlTextWriterPtr w, const char *text);

#endif
