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
#include "timeline.h" /* tl_format_bytes */
#include <stdlib.h>
#include <string.h>

#define TOP_COPIES 10
#define N_FAMILIES (FAMILY_UNEXPLAINED + 1)

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

/* Sort keys for qsort_r over indices: the most bytes first, then the earlier position. */
static int by_cost(const void *x, const void *y, void *items)
{
	const struct finding *a = &((const struct finding *)items)[*(const int32_t *)x];
	const struct finding *b = &((const struct finding *)items)[*(const int32_t *)y];
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return *(const int32_t *)x - *(const int32_t *)y;
}

static int copy_by_cost(const void *x, const void *y, void *items)
{
	const struct copy_summary *a = &((const struct copy_summary *)items)[*(const int32_t *)x];
	const struct copy_summary *b = &((const struct copy_summary *)items)[*(const int32_t *)y];
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return *(const int32_t *)x - *(const int32_t *)y;
}

/* "summary: FILE: 4 copies, 264.0 KiB: layout 1 (256.0 KiB), ...", the
 * costliest copies one a line, then the donations. Nothing for a module
 * with neither copies nor donations. */
static void module_summary(FILE *out, const struct module_report *mr, int below)
{
	const struct copy_summaries *cs = mr->copies;
	const struct donation_summaries *ds = mr->donation_verdicts;
	int32_t nc = cs ? cs->n : 0, nd = ds ? ds->n : 0;
	char b[32];
	if (!nc && !nd && !below)
		return;
	uint64_t fam_bytes[N_FAMILIES] = {0}, total = 0;
	int fam_n[N_FAMILIES] = {0};
	for (int32_t i = 0; i < nc; i++) {
		int fm = cs->v[i].family >= 0 && cs->v[i].family < N_FAMILIES ? (int)cs->v[i].family
									      : FAMILY_UNEXPLAINED;
		fam_n[fm]++;
		fam_bytes[fm] += cs->v[i].bytes;
		total += cs->v[i].bytes;
	}
	fprintf(out, "summary: %s: %d cop%s, %s", mr->findings.file, (int)nc, nc == 1 ? "y" : "ies",
		bytes_text(total, b, sizeof(b)));
	const char *sep = ": ";
	for (int fm = 0; fm < N_FAMILIES; fm++)
		if (fam_n[fm]) {
			fprintf(out, "%s%s %d (%s)", sep, copy_family_name((enum copy_family)fm), fam_n[fm],
				bytes_text(fam_bytes[fm], b, sizeof(b)));
			sep = ", ";
		}
	fputc('\n', out);
	int32_t *idx = nc ? malloc((size_t)nc * sizeof(*idx)) : NULL;
	if (idx) {
		for (int32_t i = 0; i < nc; i++)
			idx[i] = i;
		qsort_r(idx, (size_t)nc, sizeof(*idx), copy_by_cost, cs->v);
		for (int32_t k = 0; k < nc && k < TOP_COPIES; k++) {
			const struct copy_summary *c = &cs->v[idx[k]];
			const char *v = verdict_name(c->any);
			char place[512];
			int has_place = source_place_text(c->source, place, sizeof(place)) > 0;
			fprintf(out, "  %10s  %s (%s, %s)%s%s\n", bytes_text(c->bytes, b, sizeof(b)), c->name,
				copy_family_name(c->family), v ? v : "not decided", has_place ? " " : "",
				has_place ? place : "");
		}
		if (nc > TOP_COPIES)
			fprintf(out, "  ... and %d more\n", (int)(nc - TOP_COPIES));
		free(idx);
	}
	if (nd) {
		int honored = 0, copied = 0, dropped = 0;
		uint64_t hb = 0, cb = 0, db = 0;
		for (int32_t i = 0; i < nd; i++) {
			const struct donation_summary *d = &ds->items[i];
			if (d->any == VERDICT_NOT_HONORED)
				dropped++, db += d->bytes;
			else if (d->copied)
				copied++, cb += d->bytes;
			else
				honored++, hb += d->bytes;
		}
		char b2[32], b3[32];
		fprintf(out, "  donations: %d honored (%s), %d through a copy (%s), %d not honored (%s)\n",
			honored, bytes_text(hb, b, sizeof(b)), copied, bytes_text(cb, b2, sizeof(b2)),
			dropped, bytes_text(db, b3, sizeof(b3)));
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
			fprintf(out, " %snote:%s module %s is before optimization (%s): %d cop%s that XLA's "
				     "algebraic simplifier removes are not reported (--stage=after reports them)\n",
				color ? C_CYAN : "", color ? C_RESET : "", fs->module_name ? fs->module_name : "",
				fs->stage_why ? fs->stage_why : "", (int)fs->n_noop, fs->n_noop == 1 ? "y" : "ies");
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
