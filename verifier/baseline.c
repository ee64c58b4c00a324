/* baseline.c - load, apply and write baselines (baseline.h). */
#include "baseline.h"
#include "atomic_out.h"
#include "lint.h"
#include "report.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dup_or_null(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? strdup(s) : NULL;
}

int baseline_load(struct baseline *b, const char *path, struct diag *d)
{
	memset(b, 0, sizeof(*b));
	struct srcpos at = {path, 0, 0};
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > BASELINE_MAX_BYTES)
		return error_at(d, at, "baseline is larger than %zu bytes", BASELINE_MAX_BYTES);
	json_error_t err;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		at.line = err.line > 0 ? err.line : 0;
		at.col = err.column > 0 ? err.column : 0;
		return error_at(d, at, "cannot read baseline: %s", err.text);
	}
	json_t *list = json_object_get(root, "findings");
	if (!json_is_object(root) || json_integer_value(json_object_get(root, "version")) != 1 ||
	    !json_is_array(list)) {
		json_decref(root);
		return error_at(d, at, "not a hloproof baseline (want {\"version\":1,\"findings\":[...]})");
	}
	b->path = strdup(path);
	size_t n = json_array_size(list);
	b->entries = calloc(n ? n : 1, sizeof(*b->entries));
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(list, i);
		const char *fp = json_string_value(json_object_get(e, "fingerprint"));
		if (!fp) {
			json_decref(root);
			baseline_free(b);
			return error_at(d, at, "baseline entry %zu has no fingerprint", i + 1);
		}
		struct baseline_entry *be = &b->entries[b->n++];
		be->fingerprint = strdup(fp);
		be->rule = dup_or_null(e, "rule");
		be->file = dup_or_null(e, "file");
		be->message = dup_or_null(e, "message");
	}
	json_decref(root);
	return 0;
}

void baseline_free(struct baseline *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->entries[i].fingerprint);
		free(b->entries[i].rule);
		free(b->entries[i].file);
		free(b->entries[i].message);
	}
	free(b->entries);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Entries are few (a baseline is reviewed by people); a linear scan per
 * finding keeps this simple. */
static void match(struct baseline *b, struct report *r, int same_file)
{
	for (size_t m = 0; m < r->n_modules; m++) {
		struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++) {
			struct finding *f = &fs->items[i];
			if (f->baselined || f->suppressed || !f->fingerprint)
				continue;
			for (size_t k = 0; k < b->n; k++) {
				struct baseline_entry *e = &b->entries[k];
				if (e->used || strcmp(e->fingerprint, f->fingerprint))
					continue;
				if (same_file && !same(e->file, f->file))
					continue;
				if (e->rule && strcmp(e->rule, f->rule->id))
					continue;
				e->used = 1;
				f->baselined = 1;
				break;
			}
		}
	}
}

void baseline_apply(struct baseline *b, struct report *r)
{
	match(b, r, 1);
	match(b, r, 0);
	for (size_t k = 0; k < b->n; k++) {
		struct baseline_entry *e = &b->entries[k];
		int checked = !e->file;
		for (size_t m = 0; !checked && m < r->n_modules; m++)
			checked = same(e->file, r->modules[m].findings.file);
		e->unchecked = !e->used && !checked;
	}
}

int baseline_write(const char *path, const struct report *r, struct diag *d)
{
	json_t *list = json_array();
	int n = 0;
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->items[i];
			/* a rule the budget did not run is no accepted finding */
			if (f->suppressed || !strcmp(f->message, LINT_NOT_CHECKED))
				continue;
			json_t *o = json_object();
			json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
			json_object_set_new(o, "rule", json_string(f->rule->id));
			json_object_set_new(o, "file", report_json_string(f->file));
			json_object_set_new(o, "message", report_json_string(f->message));
			json_array_append_new(list, o);
			n++;
		}
	}
	json_t *root = json_object();
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "findings", list);
	struct atomic_out of;
	if (atomic_out_open(&of, path, d) < 0) {
		json_decref(root);
		return -1;
	}
	int rc = json_dumpf(root, of.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc == 0)
		fputc('\n', of.f);
	if (rc < 0) {
		atomic_out_abort(&of);
		return error_at(d, (struct srcpos){path, 0, 0}, "cannot write baseline");
	}
	return atomic_out_commit(&of, d) < 0 ? -1 : n;
}
