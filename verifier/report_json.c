/* report_json.c - the JSON report (jansson). The schema is docs/json.md;
 * REPORT_JSON_SCHEMA_VERSION changes only when a key changes meaning or goes
 * away (new keys keep it). */
#include "baseline.h"
#include "satmath.h"
#include "copies.h"
#include "donation.h"
#include "report.h"
#include "report_source.h"
#include <stdlib.h>

#define REPORT_JSON_SCHEMA_VERSION 1


/* One object per copy instruction with its verdict and evidence, from
 * mr->copies (struct copy_summaries, copies.h). */
static json_t *copies_json(const struct module_report *mr)
{
	json_t *a = json_array();
	const struct copy_summaries *cs = mr->copies;
	for (int32_t i = 0; cs && i < cs->n; i++) {
		const struct copy_summary *c = &cs->v[i];
		json_t *o = json_object(), *v = json_object();
		json_object_set_new(o, "name", report_json_string(c->name));
		json_object_set_new(o, "computation", report_json_string(c->computation));
		/* "copy", "fused" (output: of a multi-output fusion, else null),
		 * "async" (copy_done: the pair's second half) */
		json_object_set_new(o, "kind", json_string(copy_kind_name(c->kind)));
		json_object_set_new(o, "output", c->output >= 0 ? json_integer(c->output) : json_null());
		json_object_set_new(o, "copy_done", c->done ? report_json_string(c->done) : json_null());
		json_object_set_new(o, "line", json_integer(c->line));
		json_object_set_new(o, "family", json_string(copy_family_name(c->family)));
		json_object_set_new(v, "given", c->given == VERDICT_NONE ? json_null()
						: json_string(verdict_name(c->given)));
		json_object_set_new(v, "any", json_string(verdict_name(c->any)));
		json_object_set_new(o, "verdict", v);
		json_object_set_new(o, "evidence", report_json_string(c->evidence));
		json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
		/* per module run: bytes x trips inside a loop of known count */
		json_object_set_new(o, "trip_count", c->trips > 0 ? json_integer((json_int_t)c->trips) : json_null());
		json_object_set_new(o, "bytes_per_step", json_integer((json_int_t)(c->trips > 0 ? sat_mul_i64((int64_t)c->bytes, c->trips) : (int64_t)c->bytes)));
		json_object_set_new(o, "source", report_source_json(c->source));
		json_array_append_new(a, o);
	}
	return a;
}

/* One object per input_output_alias entry and buffer_donor leaf (donation.h):
 * {"param", "param_index", "output_index" (or null), "kind", "verdict":
 * {"given", "any"}, "evidence", "bytes", "arg_path" (or null), "copied",
 * "copy_bytes", "edge" (schedule-dependent: "a -> b"), "reason"}. */
static json_t *donations_json(const struct module_report *mr)
{
	json_t *a = json_array();
	const struct donation_summaries *s = mr->donation_verdicts;
	for (int32_t i = 0; s && i < s->n; i++) {
		const struct donation_summary *d = &s->items[i];
		json_t *o = json_object();
		json_object_set_new(o, "param", json_integer(d->param));
		json_object_set_new(o, "param_index", json_string(d->param_index));
		json_object_set_new(o, "output_index", report_json_string_or_null(d->output_index));
		json_object_set_new(o, "kind", json_string(donation_kind_name(d->kind)));
		json_t *v = json_object();
		json_object_set_new(v, "given", report_json_string_or_null(verdict_name(d->given)));
		json_object_set_new(v, "any", report_json_string_or_null(verdict_name(d->any)));
		json_object_set_new(o, "verdict", v);
		json_object_set_new(o, "evidence", report_json_string_or_null(d->evidence));
		json_object_set_new(o, "bytes", json_integer((json_int_t)d->bytes));
		json_object_set_new(o, "arg_path", report_json_string_or_null(d->arg_path));
		json_object_set_new(o, "copied", json_boolean(d->copied));
		json_object_set_new(o, "copy_bytes", json_integer((json_int_t)d->copy_bytes));
		json_object_set_new(o, "reading", json_string(donation_reading_name(d->reading)));
		json_object_set_new(o, "edge", report_json_string_or_null(d->edge));
		json_object_set_new(o, "reason", report_json_string_or_null(d->reason));
		json_object_set_new(o, "source", report_source_json(d->source));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *module_json(const struct module_report *mr)
{
	const struct findings *fs = &mr->findings;
	json_t *found = json_array(), *supp = json_array();
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (f->suppressed) {
			json_t *o = report_finding_json(f, 1);
			json_object_set_new(o, "reason", report_json_string(f->suppressed));
			json_array_append_new(supp, o);
		} else if (finding_reported(f)) {
			json_array_append_new(found, report_finding_json(f, 1));
		}
	}
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(fs->file));
	json_object_set_new(o, "name", report_json_string(fs->module_name));
	json_object_set_new(o, "scheduled", json_boolean(fs->scheduled));
	if (fs->stage) {
		json_object_set_new(o, "stage", json_string(fs->stage));
		json_object_set_new(o, "stage_why", json_string(fs->stage_why));
	}
	json_object_set_new(o, "copies", copies_json(mr));
	json_object_set_new(o, "donations", donations_json(mr));
	json_object_set_new(o, "findings", found);
	json_object_set_new(o, "suppressed", supp);
	return o;
}

/* Every input in input order: {"path", "status": "checked"} or, for one that
 * could not be read or parsed, {"path", "status": "failed", "location"
 * ("FILE:LINE:COL", or "FILE" without a position), "line", "column",
 * "message"}. */
static json_t *files_json(const struct report *r)
{
	json_t *a = json_array();
	int k = 0;
	for (size_t m = 0; m <= r->n_modules; m++) {
		for (; k < r->files_failed && r->failed[k].before == m; k++) {
			const struct input_failure *f = &r->failed[k];
			json_t *o = json_object();
			char *loc = report_failure_location(f);
			json_object_set_new(o, "path", report_json_string(f->file));
			json_object_set_new(o, "status", json_string("failed"));
			json_object_set_new(o, "location", report_json_string(loc ? loc : f->file));
			json_object_set_new(o, "line", json_integer(f->line));
			json_object_set_new(o, "column", json_integer(f->line > 0 && f->col > 0 ? f->col : 0));
			json_object_set_new(o, "message", report_json_string(f->message));
			free(loc);
			json_array_append_new(a, o);
		}
		if (m == r->n_modules)
			break;
		json_t *o = json_object();
		json_object_set_new(o, "path", report_json_string(r->modules[m].findings.file));
		json_object_set_new(o, "status", json_string("checked"));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *report_json_value(const struct report *r)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION));
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("hloproof"));
	json_object_set_new(tool, "version", json_string(HLOPROOF_VERSION));
	json_object_set_new(root, "tool", tool);
	json_t *mods = json_array();
	for (size_t m = 0; m < r->n_modules; m++)
		json_array_append_new(mods, module_json(&r->modules[m]));
	json_object_set_new(root, "files", files_json(r));
	json_object_set_new(root, "modules", mods);
	struct report_counts c;
	report_count(r, &c);
	json_t *sum = json_object();
	json_object_set_new(sum, "errors", json_integer(c.errors));
	json_object_set_new(sum, "warnings", json_integer(c.warnings));
	json_object_set_new(sum, "notes", json_integer(c.notes));
	json_object_set_new(sum, "suppressed", json_integer(c.suppressed));
	json_object_set_new(sum, "baselined", json_integer(c.baselined));
	json_object_set_new(sum, "files_failed", json_integer(r->files_failed));
	if (c.below_min_bytes) /* check --min-bytes */
		json_object_set_new(sum, "below_min_bytes", json_integer(c.below_min_bytes));
	json_object_set_new(root, "summary", sum);
	if (r->baseline) {
		json_t *stale = json_array();
		for (size_t i = 0; i < r->baseline->n; i++) {
			const struct baseline_entry *e = &r->baseline->entries[i];
			if (!baseline_entry_stale(e))
				continue;
			json_t *o = json_object();
			json_object_set_new(o, "fingerprint", report_json_string(e->fingerprint));
			json_object_set_new(o, "rule", report_json_string_or_null(e->rule));
			json_object_set_new(o, "file", report_json_string_or_null(e->file));
			json_object_set_new(o, "message", report_json_string_or_null(e->message));
			json_array_append_new(stale, o);
		}
		json_object_set_new(root, "stale_baseline", stale);
	}
	return root;
}

int report_json(FILE *out, const struct report *r, const struct report_options *o)
{
	json_t *root = report_json_value(r);
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc == 0)
		fputc('\n', out);
	return rc < 0 || ferror(out) ? -1 : 0;
}
