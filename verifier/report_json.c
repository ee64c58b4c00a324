/* report_json.c - the JSON report (jansson). Schema:
 * {"tool":{"name","version"},"modules":[{"file","name","scheduled","copies":[],
 *  "donations":[],"findings":[{"rule","name","severity","message","file","line",
 *  "column","computation","instruction","fingerprint","evidence"?}],
 *  "suppressed":[{...finding, "reason"}]}],
 *  "summary":{"errors","warnings","notes","suppressed","baselined"},
 *  "stale_baseline":[{"fingerprint","rule","file","message"}] (with --baseline)} */
#include "baseline.h"
#include "report.h"
#include <stdlib.h>

static json_t *str_or_null(const char *s)
{
	return s ? report_json_string(s) : json_null();
}

static json_t *finding_json(const struct finding *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "rule", json_string(f->rule->id));
	json_object_set_new(o, "name", json_string(f->rule->slug));
	json_object_set_new(o, "severity", json_string(severity_name(f->severity)));
	json_object_set_new(o, "message", report_json_string(f->message));
	json_object_set_new(o, "file", report_json_string(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->col));
	json_object_set_new(o, "computation", str_or_null(f->computation));
	json_object_set_new(o, "instruction", str_or_null(f->instruction));
	json_object_set_new(o, "fingerprint", json_string(f->fingerprint ? f->fingerprint : ""));
	if (f->evidence)
		json_object_set_new(o, "evidence", report_json_string(f->evidence));
	return o;
}

/* HOOK(copy decider, issue 4): one object per copy instruction with its
 * verdict and evidence, from mr->copy_verdicts. Empty until the decider lands. */
static json_t *copies_json(const struct module_report *mr)
{
	(void)mr->copy_verdicts;
	return json_array();
}

/* HOOK(donation decider, issue 5): one object per input_output_alias entry
 * and buffer_donor leaf, from mr->donation_verdicts. Empty until it lands. */
static json_t *donations_json(const struct module_report *mr)
{
	(void)mr->donation_verdicts;
	return json_array();
}

static json_t *module_json(const struct module_report *mr)
{
	const struct findings *fs = &mr->findings;
	json_t *found = json_array(), *supp = json_array();
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (f->suppressed) {
			json_t *o = finding_json(f);
			json_object_set_new(o, "reason", report_json_string(f->suppressed));
			json_array_append_new(supp, o);
		} else if (!f->baselined) {
			json_array_append_new(found, finding_json(f));
		}
	}
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(fs->file));
	json_object_set_new(o, "name", report_json_string(fs->module_name));
	json_object_set_new(o, "scheduled", json_boolean(fs->scheduled));
	json_object_set_new(o, "copies", copies_json(mr));
	json_object_set_new(o, "donations", donations_json(mr));
	json_object_set_new(o, "findings", found);
	json_object_set_new(o, "suppressed", supp);
	return o;
}

static json_t *report_json_value(const struct report *r)
{
	json_t *root = json_object();
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("hloproof"));
	json_object_set_new(tool, "version", json_string(HLOPROOF_VERSION));
	json_object_set_new(root, "tool", tool);
	json_t *mods = json_array();
	for (size_t m = 0; m < r->n_modules; m++)
		json_array_append_new(mods, module_json(&r->modules[m]));
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
	json_object_set_new(root, "summary", sum);
	if (r->baseline) {
		json_t *stale = json_array();
		for (size_t i = 0; i < r->baseline->n; i++) {
			const struct baseline_entry *e = &r->baseline->entries[i];
			if (e->used)
				continue;
			json_t *o = json_object();
			json_object_set_new(o, "fingerprint", report_json_string(e->fingerprint));
			json_object_set_new(o, "rule", str_or_null(e->rule));
			json_object_set_new(o, "file", str_or_null(e->file));
			json_object_set_new(o, "message", str_or_null(e->message));
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
