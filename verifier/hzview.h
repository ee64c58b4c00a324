/* hzview.h - the hazard decider over one "view" of a buffer: a set of values
 * taken as one buffer, optionally as a copy removal rewrites it (values
 * absorbed into others, the removed copy's reads dropped). Internal to
 * hazard.c and copies.c. */
#ifndef HLOPROOF_HZVIEW_H
#define HLOPROOF_HZVIEW_H
#include "hazard.h"
#include "regions.h"
#include "trace.h"
#include <stdarg.h>

/* The module as given, which a copy removal is compared with
 * (docs/hazards.md 4): a hazard of the rewritten module counts only where
 * the module as given does not have the same one (kind, value, read) in the
 * same schedule and run. The view is the rewritten module: the module's own
 * analysis with the copy's values absorbed (hz_input.abs_*), or another
 * analysis of the rewritten text (values and instructions then match by
 * name). */
struct hz_origin {
	struct analysis *an;                      /* the module as given */
	int32_t copy_value, source_value;         /* the removed copy's value, its operand's (an) */
	const struct hlo_instruction *source;     /* the copy's operand (an) */
	/* the removed instructions (an), put back right after source in this order */
	const struct hlo_instruction *removed[2];
	int32_t n_removed;
	/* the rewritten module's schedules order the other instructions as the
	 * module as given does: the removed ones have no control edges and are
	 * not a computation's root, and nothing else goes (a multi-output
	 * fusion's get-tuple-elements do) */
	int order_kept;
};

struct hz_trip;

struct hz_input {
	const int32_t *values;   /* the members (value ids), distinct */
	int32_t n_values;
	/* value abs_from[i] is gone; its uses and positions belong to abs_to[i] */
	const int32_t *abs_from, *abs_to;
	int32_t n_abs;
	const struct hlo_instruction *copy; /* removed copy (its own read dropped) or NULL */
	const char *label;       /* names the SMT queries */
	uint64_t bytes;          /* for reports */
	int want_reports;        /* fill hazard reports */
	int no_evidence;         /* skip the verdict's evidence text (reports only) */
	int keep_triples;        /* keep the possible triples (hz_result.trips) */
	/* keep_triples: also those this module's own order rules out (for a
	 * removal whose schedules that order does not describe) */
	int keep_all;
	const struct hz_origin *origin; /* a removal: judged against the module as given */
	int whole_view; /* a removal's every read decided, not only those it moves (cross-check) */
};

/* Result of one decision: the verdict plus, on request, hazard reports. */
struct hz_result {
	struct buffer_verdict bv;
	int32_t n_reports;
	struct hazard_report *reports; /* arena */
	/* for the copy report: a one-line reason behind the verdict */
	enum copy_family predicted; /* family the worst hazard suggests */
	int32_t n_trips;
	struct hz_trip *trips;      /* keep_triples: the possible triples (arena) */
	const char *cut;            /* why bv is unknown and the reports partial (time budget, nesting), or NULL */
};

int hz_decide(struct analysis *an, const struct hz_input *in, struct hz_result *out);
void hz_cache_free(struct hz_cache *c);
/* The analysis's Z3 context, created on first use. */
struct smt *analysis_smt(struct analysis *an);

/* growable string printed into the module arena at the end; {0} starts
 * on the heap, sb_borrow in the caller's buffer (usually on its stack),
 * moving to the heap only if the text outgrows it */
struct sbuf {
	char *s;
	size_t n, cap;
	int borrowed; /* s is the caller's buffer: never freed or realloc'd */
};
void sb_borrow(struct sbuf *b, char *buf, size_t cap);
/* what the evidence builders borrow: most texts fit (mixtral: a malloc
 * and a realloc per copy and per view before) */
#define SB_STACK_BYTES 4096
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
char *sb_finish(struct sbuf *b, struct arena *a); /* arena copy; frees b */
void sb_free(struct sbuf *b);                      /* the text dropped */

/* The definition event of a value (hazards.md 2). */
void value_def_event(const struct hlo_value *v, struct event *e);
/* "x", or "s{1}" for a value below the top of its instruction. */
void value_name(const struct dataflow *df, const struct hlo_value *v, char *buf, size_t cap);
/* The value is defined inside an embedded computation (fusion, to_apply, ...). */
int value_is_embedded(const struct hlo_value *v);

#endif
