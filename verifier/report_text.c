/* report_text.c - gcc-style lines: FILE:LINE:COL: warning: message [ID slug],
 * then the Python place when the instruction has one: " at x.py:3 (f)".
 * Each module opens with a summary (its copies by family, the costliest ten,
 * its donations), and its findings follow, the most bytes first unless
 * --sort=position. */
#include "baseline.h"
#include "lines.h"
#include "copies.h"
#include "donation.h"
#include "report.h"
#include "satmath.h"
#include "timeline.h" /* tl_format_bytes */
#include <stdlib.h>
#include <string.h>

#define TOP_COPIES 10
#define N_FAMILIES (FAMILY_NO_OP + 1)

#define C_BOLD REPORT_C_BOLD
#define C_RED REPORT_C_RED
#define C_MAGENTA REPORT_C_MAGENTA
#define C_CYAN REPORT_C_CYAN
#define C_RESET REPORT_C_RESET

static const char *sev_color(enum severity s)
{
	return s == SEV_ERROR ? C_RED : s == SEV_WARNING ? C_MAGENTA : C_CYAN;
}

static void where(FILE *out, const char *file, int line, int col, int color)
{
	if (color)
		fputs(C_BOLD, out);
	if (line > 0)
		fprintf(out, "%s:%d:%d:", file, line, col > 0 ? col : 1);
	else
		fprintf(out, "%s:", file);
	if (color)
		fputs(C_RESET, out);
}

static void plural(FILE *out, int n, const char *one, const char *many)
{
	fprintf(out, "%d %s", n, n == 1 ? one : many);
}

static void finding_text(FILE *out, const struct finding *f, int color)
{
	where(out, f->file, f->line, f->col, color);
	fprintf(out, " %s%s:%s %s [%s %s]", color ? sev_color(f->severity) : "",
		severity_name(f->severity), color ? C_RESET : "", f->message, f->rule->id,
		f->rule->slug);
	char place[512];
	if (source_place_text(f->source, place, sizeof(place)) > 0)
		fprintf(out, " %s", place);
	fputc('\n', out);
	size_t len;
	for (const char *p = f->evidence, *l; (l = line_next(&p, &len));)
		fprintf(out, "    %.*s\n", (int)len, l);
	fprintf(out, "    help: docs/rules/%s.md (hloproof rules %s)\n", f->rule->slug, f->rule->slug);
}

static const char *bytes_text(uint64_t b, char *buf, size_t cap)
{
	tl_format_bytes(b, buf, cap);
	return buf;
}

/* What a finding costs per module run: bytes x trips inside a loop. */
static long long cost(const struct finding *f)
{
	return f->has_trips && f->bytes_per_step >= 0 ? f->bytes_per_step : f->bytes;
}

/* Sort keys for qsort_r over indices: the most bytes per step first, then
 * the earlier position. */
static int by_cost(const void *x, const void *y, void *items)
{
	const struct finding *a = &((const struct finding *)items)[*(const int32_t *)x];
	const struct finding *b = &((const struct finding *)items)[*(const int32_t *)y];
	if (cost(a) != cost(b))
		return cost(a) > cost(b) ? -1 : 1;
	return *(const int32_t *)x - *(const int32_t *)y;
}

/* One line of the summary's costliest list: a copy of the module or a
 * copy XLA will insert (an aliasing-hazard prediction). */
struct costly {
	uint64_t bytes, per_step;   /* one run of it; per module run (x trips) */
	int64_t trips;              /* > 1: runs that many times per step; -1: per iteration */
	const char *name;
	const char *family, *what;  /* "layout", "necessary" / "predicted" */
	const struct source_info *source;
};

static int by_step_cost(const void *x, const void *y)
{
	const struct costly *a = x, *b = y;
	if (a->per_step != b->per_step)
		return a->per_step > b->per_step ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* bytes x trips: a step's cost (trips unknown: one iteration's, a floor) */
static uint64_t step_cost(uint64_t bytes, int64_t trips, int *floor)
{
	if (trips < 0)
		*floor = 1;
	return trips > 1 ? sat_mul(bytes, (uint64_t)trips) : bytes;
}

/* " (8.0 KiB per step)" when the step costs more than one run, else "". */
static const char *per_step_text(uint64_t bytes, uint64_t per_step, int floor, char *buf, size_t cap)
{
	char b[32];
	if (per_step == bytes && !floor) {
		buf[0] = 0;
		return buf;
	}
	snprintf(buf, cap, ", %s%s per step", floor && per_step < (uint64_t)INT64_MAX ? "at least " : "",
		 bytes_text(per_step, b, sizeof(b)));
	return buf;
}

struct tally {
	int n[N_FAMILIES];
	uint64_t bytes[N_FAMILIES], step[N_FAMILIES], total, total_step;
	int floor[N_FAMILIES], total_floor, count;
};

static void tally_add(struct tally *t, int fm, uint64_t bytes, int64_t trips)
{
	int fl = 0;
	uint64_t st = step_cost(bytes, trips, &fl);
	t->n[fm]++;
	t->bytes[fm] = sat_add(t->bytes[fm], bytes);
	t->step[fm] = sat_add(t->step[fm], st);
	t->floor[fm] |= fl;
	t->count++;
	if (fm != FAMILY_NO_OP) { /* removed before copy insertion: costs nothing */
		t->total = sat_add(t->total, bytes);
		t->total_step = sat_add(t->total_step, st);
		t->total_floor |= fl;
	}
}

/* ": layout 1 (256.0 KiB), loop-carry 3 (16.0 KiB, 72.0 KiB per step)" */
static void tally_print(FILE *out, const struct tally *t)
{
	char b[32], ps[64];
	const char *sep = ": ";
	for (int fm = 0; fm < N_FAMILIES; fm++)
		if (t->n[fm]) {
			fprintf(out, "%s%s %d (%s%s%s)", sep, copy_family_name((enum copy_family)fm), t->n[fm],
				bytes_text(t->bytes[fm], b, sizeof(b)),
				per_step_text(t->bytes[fm], t->step[fm], t->floor[fm], ps, sizeof(ps)),
				fm == FAMILY_NO_OP ? ", removed by XLA's simplifier" : "");
			sep = ", ";
		}
	fputc('\n', out);
}

static int fam_index(enum copy_family f)
{
	return f >= 0 && f < N_FAMILIES ? (int)f : FAMILY_UNEXPLAINED;
}

static enum copy_family family_named(const char *name)
{
	for (int fm = 0; fm < N_FAMILIES; fm++)
		if (name && !strcmp(name, copy_family_name((enum copy_family)fm)))
			return (enum copy_family)fm;
	return FAMILY_UNEXPLAINED;
}

/* "summary: FILE: 4 copies, 272.0 KiB (328.0 KiB per step): layout 1 (256.0
 * KiB), ...", the copies XLA will insert (the aliasing-hazard predictions of
 * a module before copy insertion) the same way, the costliest ten of both by
 * bytes per step with their source lines, then the donations. Nothing for a
 * module with neither copies, predictions nor donations. */
static void module_summary(FILE *out, const struct module_report *mr, int below)
{
	const struct copy_summaries *cs = mr->copies;
	const struct donation_summaries *ds = mr->donation_verdicts;
	const struct findings *fs = &mr->findings;
	int32_t nc = cs ? cs->n : 0, nd = ds ? ds->n : 0, np = 0;
	for (int32_t i = 0; i < fs->n; i++)
		np += fs->items[i].copied_value && fs->items[i].family && !fs->items[i].suppressed;
	char b[32], ps[64];
	if (!nc && !nd && !np && !below)
		return;
	np = 0; /* counted again below, with the donations' */
	struct tally tc = {0}, tp = {0};
	struct costly *top = calloc((size_t)nc + (size_t)fs->n + (size_t)nd + 1, sizeof(*top));
	int32_t nt = 0;
	for (int32_t i = 0; i < nc; i++) {
		const struct copy_summary *c = &cs->v[i];
		tally_add(&tc, fam_index(c->family), c->bytes, c->trips);
		if (!top || c->family == FAMILY_NO_OP)
			continue;
		int fl = 0;
		const char *v = verdict_name(c->any);
		top[nt++] = (struct costly){c->bytes, step_cost(c->bytes, c->trips, &fl), c->trips, c->name,
					    copy_family_name(c->family), v ? v : "not decided", c->source};
	}
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (!f->copied_value || !f->family || f->suppressed || f->bytes < 0)
			continue;
		np++;
		int64_t trips = f->has_trips ? f->trip_count : 0;
		tally_add(&tp, fam_index(family_named(f->family)), (uint64_t)f->bytes, trips);
		if (!top)
			continue;
		int fl = 0;
		top[nt++] = (struct costly){(uint64_t)f->bytes, step_cost((uint64_t)f->bytes, trips, &fl),
					    trips, f->subject ? f->subject : f->copied_value, f->family,
					    "predicted", f->source};
	}
	/* and the copies of donated parameters XLA will insert (donation-copied
	 * reports them, aliasing-hazard leaves them to it) */
	for (int32_t i = 0; i < nd; i++) {
		const struct donation_summary *d = &ds->items[i];
		if (d->reading != READING_COPY_PREDICTED)
			continue;
		np++;
		tally_add(&tp, FAMILY_DONATION, d->bytes, 0);
		if (top)
			top[nt++] = (struct costly){d->bytes, d->bytes, 0, d->name, "donation", "predicted",
						    d->source};
	}
	fprintf(out, "summary: %s: %d cop%s, %s%s", fs->file, (int)nc, nc == 1 ? "y" : "ies",
		bytes_text(tc.total, b, sizeof(b)),
		per_step_text(tc.total, tc.total_step, tc.total_floor, ps, sizeof(ps)));
	if (nc)
		tally_print(out, &tc);
	else
		fputc('\n', out);
	if (np) {
		fprintf(out, "  copies XLA will insert: %d, %s%s", (int)np, bytes_text(tp.total, b, sizeof(b)),
			per_step_text(tp.total, tp.total_step, tp.total_floor, ps, sizeof(ps)));
		tally_print(out, &tp);
	}
	if (top && nt) {
		qsort(top, (size_t)nt, sizeof(*top), by_step_cost);
		for (int32_t k = 0; k < nt && k < TOP_COPIES; k++) {
			const struct costly *c = &top[k];
			char place[512], runs[64] = "";
			int has_place = source_place_text(c->source, place, sizeof(place)) > 0;
			if (c->trips > 1)
				snprintf(runs, sizeof(runs), ", %lld x %s", (long long)c->trips,
					 bytes_text(c->bytes, b, sizeof(b)));
			else if (c->trips < 0)
				snprintf(runs, sizeof(runs), ", per iteration");
			/* the name as far as 48 characters: an argument path can be long */
			/* a predicted copy's value without its "@computation" */
			const char *at = strchr(c->name, '@');
			int len = at ? (int)(at - c->name) : (int)strlen(c->name);
			fprintf(out, "  %10s  %.*s%s (%s, %s%s)%s%s\n", bytes_text(c->per_step, ps, sizeof(ps)),
				len > 48 ? 48 : len, c->name, len > 48 ? "..." : "", c->family, c->what, runs,
				has_place ? " " : "", has_place ? place : "");
		}
		if (nt > TOP_COPIES)
			fprintf(out, "  ... and %d more\n", (int)(nt - TOP_COPIES));
	}
	free(top);
	if (nd) {
		/* by donation_reading, the reading the donation rules report */
		int n[READING_UNKNOWN + 1] = {0};
		uint64_t by[READING_UNKNOWN + 1] = {0};
		for (int32_t i = 0; i < nd; i++) {
			enum donation_reading x = ds->items[i].reading;
			if (x == READING_COPY_PREDICTED)
				x = READING_COPIED; /* "through a copy", observed or predicted */
			n[x]++;
			by[x] += ds->items[i].bytes;
		}
		char b2[32], b3[32];
		fprintf(out, "  donations: %d honored (%s), %d through a copy (%s), %d not honored (%s)",
			n[READING_HONORED], bytes_text(by[READING_HONORED], b, sizeof(b)),
			n[READING_COPIED], bytes_text(by[READING_COPIED], b2, sizeof(b2)),
			n[READING_NOT_HONORED], bytes_text(by[READING_NOT_HONORED], b3, sizeof(b3)));
		if (n[READING_UNSAFE])
			fprintf(out, ", %d unsafe (%s)", n[READING_UNSAFE],
				bytes_text(by[READING_UNSAFE], b, sizeof(b)));
		if (n[READING_UNKNOWN])
			fprintf(out, ", %d unknown (%s)", n[READING_UNKNOWN],
				bytes_text(by[READING_UNKNOWN], b, sizeof(b)));
		fputc('\n', out);
	}
	if (below)
		fprintf(out, "  %d finding%s below --min-bytes not listed\n", below, below == 1 ? "" : "s");
}

/* --statistics: per rule, the reported findings and their bytes. */
static void statistics(FILE *out, const struct report *r)
{
	for (const struct rule *const *rr = rule_registry; *rr; rr++) {
		int n = 0;
		uint64_t bytes = 0;
		for (size_t m = 0; m < r->n_modules; m++) {
			const struct findings *fs = &r->modules[m].findings;
			for (int32_t i = 0; i < fs->n; i++)
				if (fs->items[i].rule == *rr && finding_reported(&fs->items[i])) {
					n++;
					bytes += fs->items[i].bytes > 0 ? (uint64_t)fs->items[i].bytes : 0;
				}
		}
		char b[32];
		if (n)
			fprintf(out, "%6d  %s  %-26s %s\n", n, (*rr)->id, (*rr)->slug,
				bytes_text(bytes, b, sizeof(b)));
	}
}

int report_text(FILE *out, const struct report *r, const struct report_options *o)
{
	int color = o && o->color;
	int list = !(o && (o->quiet || o->statistics));
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		if (fs->n_noop > 0) {
			/* the stage, named once, where it changed what is reported */
			where(out, fs->file, 0, 0, color);
			fprintf(out, " %snote:%s before optimization, XLA's simplifier removes %d cop%s: not "
				     "reported (--stage=after)\n    module %s: %s\n",
				color ? C_CYAN : "", color ? C_RESET : "", (int)fs->n_noop,
				fs->n_noop == 1 ? "y" : "ies", fs->module_name ? fs->module_name : "",
				fs->stage_why ? fs->stage_why : "");
		}
		int below = 0;
		for (int32_t i = 0; i < fs->n; i++)
			below += fs->items[i].below_min_bytes;
		module_summary(out, &r->modules[m], below);
		if (!list || !fs->n)
			continue;
		int32_t *idx = malloc((size_t)fs->n * sizeof(*idx));
		for (int32_t i = 0; idx && i < fs->n; i++)
			idx[i] = i;
		if (idx && !(o && o->sort_position)) {
			qsort_r(idx, (size_t)fs->n, sizeof(*idx), by_cost, fs->items);
		}
		for (int32_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->items[idx ? idx[i] : i];
			if (finding_reported(f))
				finding_text(out, f, color);
		}
		free(idx);
	}
	if (o && o->statistics)
		statistics(out, r);
	if (r->baseline)
		for (size_t i = 0; i < r->baseline->n; i++) {
			const struct baseline_entry *e = &r->baseline->entries[i];
			if (!baseline_entry_stale(e))
				continue;
			where(out, r->baseline->path, 0, 0, color);
			fprintf(out, " %snote:%s stale baseline entry %s [%s] for %s: %s\n",
				color ? C_CYAN : "", color ? C_RESET : "", e->fingerprint,
				e->rule ? e->rule : "?", e->file ? e->file : "?",
				e->message ? e->message : "");
		}
	struct report_counts c;
	report_count(r, &c);
	fprintf(out, "hloproof: ");
	plural(out, (int)r->n_modules, "module", "modules");
	fprintf(out, " checked");
	if (r->files_failed) {
		fprintf(out, ", ");
		plural(out, r->files_failed, "file", "files");
		fprintf(out, " failed to parse");
	}
	fprintf(out, ": ");
	plural(out, c.errors, "error", "errors");
	fprintf(out, ", ");
	plural(out, c.warnings, "warning", "warnings");
	fprintf(out, ", ");
	plural(out, c.notes, "note", "notes");
	if (c.suppressed)
		fprintf(out, ", %d suppressed", c.suppressed);
	if (c.baselined)
		fprintf(out, ", %d baselined", c.baselined);
	if (c.below_min_bytes)
		fprintf(out, ", %d below --min-bytes", c.below_min_bytes);
	if (c.stale) {
		fprintf(out, ", ");
		plural(out, c.stale, "stale baseline entry", "stale baseline entries");
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
