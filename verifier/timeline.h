/* timeline.h - the ownership timeline (issue 24): who owns each buffer at
 * every schedule position of a computation, as a model the writers draw
 * (report_timeline_{svg,html,trace}.c).
 *
 * A panel is one computation: positions 0..n-1 (its printed order, the
 * schedule when the module is scheduled, a dependency order otherwise),
 * the live bytes at each position, one lane per buffer (the --top largest
 * whose bytes reach --min-bytes; the rest summed in one lane), a bar per
 * value's live range, marks for copies, hazards, donated buffers reused by
 * an output and while loops. A buffer is drawn in the computation that
 * holds all of its values (its home: the nearest common caller of the
 * computations defining them); what a nested computation holds is counted
 * at its call site as that computation's own peak (a while body: bytes
 * per iteration), and each while body of a drawn panel gets a panel of
 * its own. Values of fusion and other embedded computations get no
 * allocation and are not drawn. */
#ifndef HLOPROOF_TIMELINE_H
#define HLOPROOF_TIMELINE_H
#include <stdint.h>
#include <stdio.h>
#include "ir.h"
#include "verdict.h"

enum tl_kind {
	TL_DONATED_PARAM = 0, /* entry parameter named by input_output_alias or buffer_donor */
	TL_PARAM,             /* any other parameter */
	TL_OUTPUT,            /* at the entry root */
	TL_TEMP,
	TL_CONST,
	TL_KIND_COUNT
};
/* "donated parameter", "parameter", ... */
const char *tl_kind_name(enum tl_kind k);
/* CSS-friendly: "donated", "param", "output", "temp", "const" */
const char *tl_kind_slug(enum tl_kind k);

struct tl_bar {                       /* one value's live range on a lane */
	int32_t first, last;          /* positions in the panel, inclusive */
	int32_t held_last;            /* > last: the caller holds it up to here (read-only) */
	int32_t value;                /* value id */
	const struct hlo_instruction *def;
	uint8_t kind;                 /* enum tl_kind */
};

enum tl_mark_type { TL_MARK_COPY = 0, TL_MARK_HAZARD, TL_MARK_REUSE, TL_MARK_WHILE };

struct tl_mark {
	uint8_t type;                 /* enum tl_mark_type */
	int32_t pos, lane;
	const struct hlo_instruction *instr;
	const char *title;            /* one line: "copy X: loop-carry, removable, 4 MiB" */
	const char *evidence;         /* multi-line, may be NULL */
	uint64_t bytes;
	enum verdict verdict;         /* copies: given when scheduled, else any */
	int32_t family;               /* copies: enum copy_family; -1 */
	int32_t panel;                /* while: the body's panel, or -1 */
};

struct tl_lane {
	int32_t buffer;               /* -1: the rest lane */
	uint64_t bytes;
	uint32_t flags;               /* enum buffer_flag */
	int32_t first_bar, n_bars;    /* into panel->bars */
	int32_t first, last;          /* union of its bars */
	uint8_t kind;                 /* kind of its first bar */
};

struct tl_peak_row {
	int32_t buffer;               /* -1: what nested computations hold at the peak */
	uint64_t bytes;
	uint8_t kind;
	const struct hlo_instruction *def; /* the owner at the peak (nested: the call site) */
};

struct tl_panel {
	const struct hlo_computation *comp;
	int32_t parent;               /* panel index, -1 for the first */
	const struct hlo_instruction *caller; /* the while whose body this is */
	int64_t trip_count;           /* known_trip_count of the caller, -1 unknown */
	int32_t n_pos;
	uint64_t *live;               /* [n_pos]: bytes live (own buffers + nested) */
	uint64_t *nested;             /* [n_pos]: of which nested computations hold */
	uint64_t *rest;               /* [n_pos]: of which the rest lane's buffers */
	int32_t peak_pos;             /* first position of the peak; -1 when empty */
	uint64_t peak;
	int32_t n_buffers;            /* buffers drawn here (lanes + the rest) */
	int32_t n_rest;               /* buffers summed in the rest lane */
	int32_t n_lanes;              /* the rest lane, when there is one, is last */
	struct tl_lane *lanes;
	int32_t n_bars;
	struct tl_bar *bars;
	int32_t n_marks;
	struct tl_mark *marks;
	int32_t n_peak_rows;          /* every buffer live at the peak, largest first */
	struct tl_peak_row *peak_rows;
};

struct timeline_options {
	int32_t top;                  /* lanes per panel, default 200 */
	uint64_t min_bytes;           /* a smaller buffer goes to the rest lane */
	const char *computation;      /* also draw this one (after the entry and its loops) */
	int32_t max_panels;           /* panels in all (nested bodies), default 16 */
};

void timeline_default_options(struct timeline_options *o);

struct copy_verdicts;

struct timeline {
	struct hlo_module *m;
	int scheduled;                /* positions are the schedule (else a dependency order) */
	int32_t n_panels;
	struct tl_panel *panels;
	int32_t n_copies, n_hazards;  /* in the module */
	int32_t panels_cut;           /* nested bodies not drawn (max_panels) */
	const struct copy_verdicts *cv; /* the session's (the caller's) */
};

/* The picture of m from its copy verdicts and hazards (the command gets
 * them from its session; they outlive the timeline). Memory in the module's
 * arena. Returns NULL after reporting "FILE: error: no computation NAME"
 * or a missing entry through d. */
struct timeline *timeline_build(struct hlo_module *m, const struct copy_verdicts *cv,
				const struct timeline_options *opt, struct diag *d);
void timeline_free(struct timeline *t);

/* ---- what the writers share (timeline.c) ---- */

/* "512 B", "4.0 KiB", "1.50 MiB", "2.00 GiB"; "more than 8 EiB" for a cost that
 * saturated (satmath.h) */
void tl_format_bytes(uint64_t b, char *buf, size_t cap);
/* s as XML/HTML text or attribute value: & < > " ' escaped, invalid UTF-8
 * and control characters (but \n, \t) as U+FFFD. NULL prints nothing. */
void tl_xml_escape(FILE *f, const char *s);
/* s made valid UTF-8 with no control characters (but \n, \t), in the arena
 * of the timeline's module (for jansson, which refuses invalid UTF-8). */
const char *tl_clean_utf8(const struct timeline *t, const char *s);
/* "FILE:LINE" of the instruction's metadata, "" when it has none. */
void tl_source(const struct hlo_instruction *i, char *buf, size_t cap);
/* The card text of a bar: instruction, shape, bytes, source, argument
 * path, kind, buffer flags; malloc'd. */
char *tl_bar_card(const struct timeline *t, const struct tl_panel *p, const struct tl_lane *l,
		  const struct tl_bar *b);
/* Positions described: "schedule order (is_scheduled=true)" or the
 * dependency-order sentence. */
const char *tl_order_name(const struct timeline *t);

/* Writers: 0, or -1 when writing failed. */
int timeline_write_svg(FILE *f, const struct timeline *t, int interactive);
int timeline_write_html(FILE *f, const struct timeline *t);
int timeline_write_trace(FILE *f, const struct timeline *t);

#endif
