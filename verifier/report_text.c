/* report_text.c - gcc-style lines: FILE:LINE:COL: warning: message [ID slug],
 * then the Python place when the instruction has one: " at x.py:3 (f)". */
#include "baseline.h"
#include "report.h"
#include <string.h>

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

int report_text(FILE *out, const struct report *r, const struct report_options *o)
{
	int color = o && o->color;
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
		for (int32_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->items[i];
			if (!finding_reported(f))
				continue;
			where(out, f->file, f->line, f->col, color);
			fprintf(out, " %s%s:%s %s [%s %s]", color ? sev_color(f->severity) : "",
				severity_name(f->severity), color ? C_RESET : "", f->message,
				f->rule->id, f->rule->slug);
			char place[512];
			if (source_place_text(f->source, place, sizeof(place)) > 0)
				fprintf(out, " %s", place);
			fputc('\n', out);
			if (f->evidence) {
				const char *p = f->evidence;
				while (*p) {
					const char *e = strchr(p, '\n');
					size_t len = e ? (size_t)(e - p) : strlen(p);
					fprintf(out, "    %.*s\n", (int)len, p);
					p += len + (e ? 1 : 0);
				}
			}
		}
	}
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
	if (c.stale) {
		fprintf(out, ", ");
		plural(out, c.stale, "stale baseline entry", "stale baseline entries");
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
