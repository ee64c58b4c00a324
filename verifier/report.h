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

/* SARIF informationUri: where the project lives (set when it is published). */
#define HLOPROOF_URI "https://github.com/hloproof/hloproof"

enum report_format { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT, FMT_CHECKSTYLE };

struct module_report {
	struct findings findings;   /* file, module name, scheduled, items */
	/* Hooks for the deciders (issues 4 and 5): their verdict lists, NULL until
	 * they land; report_json.c turns them into "copies" and "donations". */
	const void *copy_verdicts;
	struct donation_summaries *donation_verdicts; /* donation.h; owned, may be NULL */
};

struct baseline;
struct donation_summaries;

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
};

struct report_counts {
	int errors, warnings, notes;      /* reported findings */
	int suppressed, baselined, stale;
};

int report_format_parse(const char *s, enum report_format *out);
void report_count(const struct report *r, struct report_counts *c);
/* A finding the formats show as a result (neither suppressed nor baselined). */
static inline int finding_reported(const struct finding *f)
{
	return !f->suppressed && !f->baselined;
}

/* Each returns 0, or -1 on a write error. */
int report_text(FILE *out, const struct report *r, const struct report_options *o);
int report_json(FILE *out, const struct report *r, const struct report_options *o);
int report_sarif(FILE *out, const struct report *r, const struct report_options *o);
int report_junit(FILE *out, const struct report *r, const struct report_options *o);
int report_checkstyle(FILE *out, const struct report *r, const struct report_options *o);
int report_write(FILE *out, enum report_format fmt, const struct report *r,
		 const struct report_options *o);

/* Helpers shared by the formats (report.c). */
/* Valid UTF-8 with control characters other than \t \n replaced by '?',
 * so jansson and XML accept any input; malloc'd. */
char *report_clean_text(const char *s);
json_t *report_json_string(const char *s);
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
