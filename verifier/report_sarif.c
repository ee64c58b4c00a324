/* report_sarif.c - SARIF 2.1.0 as GitHub code scanning accepts it: one run,
 * the driver with every registered rule (ruleIndex = registry position), one
 * result per reported or suppressed finding with a physical location, a
 * region and partialFingerprints {"hloproof/v1": fingerprint}.
 * URIs are relative to the repository root (uriBaseId %SRCROOT%, given in
 * run.originalUriBaseIds) so that GitHub places the alert in the checkout;
 * with a Python place in the repository, that place is the location and
 * the HLO line a related location;
 * message.text is the headline, the evidence lines go into the result's
 * properties; help.markdown is the rule's documentation, self-contained.
 * An input that did not parse makes invocations[0].executionSuccessful
 * false with an error notification at its position. */
#include "report.h"
#include "report_source.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static json_t *text_obj(const char *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "text", report_json_string(s));
	return o;
}

static json_t *rule_json(const struct rule *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "name", json_string(r->slug));
	json_object_set_new(o, "shortDescription", text_obj(r->summary));
	char *desc = report_rule_description(r);
	char *plain = report_unlink_markdown(desc ? desc : r->summary);
	json_object_set_new(o, "fullDescription", text_obj(plain ? plain : r->summary));
	free(plain);
	free(desc);
	const char *doc = rule_doc(r->slug);
	char *md = report_unlink_markdown(doc ? doc : r->summary);
	json_t *help = json_object();
	json_object_set_new(help, "text", report_json_string(md ? md : r->summary));
	json_object_set_new(help, "markdown", report_json_string(md ? md : r->summary));
	free(md);
	json_object_set_new(o, "help", help);
	json_t *conf = json_object();
	json_object_set_new(conf, "level", json_string(severity_name(r->severity)));
	json_object_set_new(o, "defaultConfiguration", conf);
	json_t *props = json_object();
	json_t *tags = json_array();
	json_array_append_new(tags, json_string("hlo"));
	json_array_append_new(tags,
			      json_string(r->flags & RULE_ABOUT_DONATION ? "donation" : "copy"));
	json_object_set_new(props, "tags", tags);
	json_object_set_new(o, "properties", props);
	return o;
}

/* A physical location in `file` (line 0: no region), relative to `root`. */
static json_t *location_json(const char *file, int line, int col, const char *root)
{
	int based;
	json_t *art = json_object();
	char *uri = report_root_uri(file, root, &based);
	json_object_set_new(art, "uri", report_json_string(uri ? uri : file));
	if (based)
		json_object_set_new(art, "uriBaseId", json_string("%SRCROOT%"));
	free(uri);
	json_t *phys = json_object();
	json_object_set_new(phys, "artifactLocation", art);
	if (line > 0) {
		json_t *region = json_object();
		json_object_set_new(region, "startLine", json_integer(line));
		json_object_set_new(region, "startColumn", json_integer(col > 0 ? col : 1));
		json_object_set_new(phys, "region", region);
	}
	json_t *loc = json_object();
	json_object_set_new(loc, "physicalLocation", phys);
	return loc;
}

/* The Python file of a finding as a location in the repository: an
 * absolute path under the root, or a relative one naming a file under the
 * root (JAX records a path as the interpreter saw it, not relative to the
 * working directory hloproof runs in); NULL otherwise. */
static char *python_repo_uri(const char *py, const char *root)
{
	char *path = NULL;
	struct stat st;
	if (!root || !py || !*py)
		return NULL;
	if (asprintf(&path, "%s%s%s", py[0] == '/' ? "" : root, py[0] == '/' ? "" : "/", py) < 0)
		return NULL;
	int based = 0;
	char *u = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? report_root_uri(path, root, &based) : NULL;
	free(path);
	if (!based) {
		free(u);
		return NULL;
	}
	return u;
}

/* The location of a Python place: uri (uriBaseId %SRCROOT% when based),
 * its line (and column), a message. */
static json_t *python_location(const char *uri, int based, const struct source_frame *p,
			       const char *text)
{
	json_t *art = json_object();
	json_object_set_new(art, "uri", report_json_string(uri));
	if (based)
		json_object_set_new(art, "uriBaseId", json_string("%SRCROOT%"));
	json_t *phys = json_object();
	json_object_set_new(phys, "artifactLocation", art);
	json_t *region = json_object();
	json_object_set_new(region, "startLine", json_integer(p->line > 0 ? p->line : 1));
	if (p->column > 0)
		json_object_set_new(region, "startColumn", json_integer(p->column));
	json_object_set_new(phys, "region", region);
	json_t *loc = json_object();
	json_object_set_new(loc, "physicalLocation", phys);
	json_object_set_new(loc, "message", text_obj(text));
	return loc;
}

static json_t *result_json(const struct finding *f, const char *root)
{
	json_t *o = json_object();
	json_object_set_new(o, "ruleId", json_string(f->rule->id));
	json_object_set_new(o, "ruleIndex", json_integer(rule_index(f->rule)));
	json_object_set_new(o, "level", json_string(severity_name(f->severity)));
	json_object_set_new(o, "message", text_obj(f->message));
	json_t *loc = location_json(f->file, f->line > 0 ? f->line : 1, f->col, root);
	if (f->instruction || f->computation) {
		json_t *logical = json_object();
		const char *c = f->computation ? f->computation : "";
		const char *i = f->instruction ? f->instruction : "";
		size_t n = strlen(c) + strlen(i) + 2;
		char *fq = malloc(n);
		if (fq) {
			snprintf(fq, n, "%s%s%s", c, *c && *i ? "/" : "", i);
			json_object_set_new(logical, "fullyQualifiedName", report_json_string(fq));
			free(fq);
		}
		json_object_set_new(logical, "name", report_json_string(*i ? i : c));
		json_object_set_new(logical, "kind", json_string(*i ? "variable" : "function"));
		json_t *ll = json_array();
		json_array_append_new(ll, logical);
		json_object_set_new(loc, "logicalLocations", ll);
	}
	/* The user's Python line first when the repository holds that file
	 * (GitHub shows locations[0] and can only place a file of the checkout),
	 * the HLO line as a related location; otherwise the HLO line first and
	 * a Python file outside the repository (site-packages, another
	 * checkout) as a related location by its absolute file URI, which
	 * GitHub lists but cannot open. docs/ci.md. */
	const struct source_frame *py = f->source && f->source->place.file ? &f->source->place : NULL;
	char place[512] = "", *text = NULL;
	if (py)
		source_place_text(f->source, place, sizeof(place));
	char *in_repo = py ? python_repo_uri(py->file, root) : NULL;
	json_t *locs = json_array(), *related = json_array();
	if (in_repo) {
		if (asprintf(&text, "Python source %s", place) < 0)
			text = NULL;
		json_array_append_new(locs, python_location(in_repo, 1, py, text ? text : place));
		free(text);
		if (asprintf(&text, "HLO: %s%s%s", f->instruction ? f->instruction : "the module",
			     f->computation ? " in " : "", f->computation ? f->computation : "") < 0)
			text = NULL;
		json_object_set_new(loc, "message", text_obj(text ? text : "HLO"));
		free(text);
		json_object_set_new(loc, "id", json_integer(1));
		json_array_append_new(related, loc);
	} else {
		json_array_append_new(locs, loc);
		if (py && py->file[0] == '/') {
			char *u = report_uri(py->file);
			if (asprintf(&text, "Python source %s, outside the repository", place) < 0)
				text = NULL;
			json_t *pl = python_location(u ? u : py->file, 0, py, text ? text : place);
			json_object_set_new(pl, "id", json_integer(1));
			json_array_append_new(related, pl);
			free(text);
			free(u);
		}
	}
	free(in_repo);
	json_object_set_new(o, "locations", locs);
	if (json_array_size(related))
		json_object_set_new(o, "relatedLocations", related);
	else
		json_decref(related);

	json_t *fp = json_object();
	json_object_set_new(fp, "hloproof/v1", json_string(f->fingerprint ? f->fingerprint : ""));
	json_object_set_new(o, "partialFingerprints", fp);
	if (f->suppressed) {
		json_t *s = json_object();
		json_object_set_new(s, "kind", json_string("external"));
		json_object_set_new(s, "justification", report_json_string(f->suppressed));
		json_t *arr = json_array();
		json_array_append_new(arr, s);
		json_object_set_new(o, "suppressions", arr);
	}
	json_t *props = json_object();
	json_object_set_new(props, "evidence", report_evidence_lines(f));
	/* the whole place and user stack, as in the JSON report */
	json_object_set_new(props, "source", report_source_json(f->source));
	json_object_set_new(o, "properties", props);
	return o;
}

/* invocations[0]: successful unless an input did not parse, with one error
 * notification per such input. */
static json_t *invocations_json(const struct report *r, const char *root)
{
	json_t *inv = json_object();
	json_object_set_new(inv, "executionSuccessful", json_boolean(r->files_failed == 0));
	json_t *notes = json_array();
	for (int i = 0; i < r->files_failed; i++) {
		const struct input_failure *f = &r->failed[i];
		json_t *n = json_object();
		json_object_set_new(n, "level", json_string("error"));
		char *loc = report_failure_location(f);
		char *text = NULL;
		if (asprintf(&text, "%s: error: %s", loc ? loc : f->file, f->message) < 0)
			text = NULL;
		json_object_set_new(n, "message", text_obj(text ? text : f->message));
		free(text);
		free(loc);
		json_t *locs = json_array();
		json_array_append_new(locs, location_json(f->file, f->line, f->col, root));
		json_object_set_new(n, "locations", locs);
		json_t *desc = json_object();
		json_object_set_new(desc, "id", json_string("hloproof.parse"));
		json_object_set_new(n, "descriptor", desc);
		json_array_append_new(notes, n);
	}
	json_object_set_new(inv, "toolExecutionNotifications", notes);
	json_t *a = json_array();
	json_array_append_new(a, inv);
	return a;
}

/* %SRCROOT% as a file:// URI ending in '/'. */
static json_t *base_ids_json(const char *root)
{
	char *u = report_uri(root);
	size_t n = u ? strlen(u) : 0;
	char *dir = u ? malloc(n + 2) : NULL;
	if (dir)
		snprintf(dir, n + 2, "%s%s", u, n && u[n - 1] == '/' ? "" : "/");
	json_t *src = json_object();
	json_object_set_new(src, "uri", report_json_string(dir ? dir : "file:///"));
	free(dir);
	free(u);
	json_t *ids = json_object();
	json_object_set_new(ids, "%SRCROOT%", src);
	return ids;
}

int report_sarif(FILE *out, const struct report *r, const struct report_options *opt)
{
	json_t *driver = json_object();
	json_object_set_new(driver, "name", json_string("hloproof"));
	json_object_set_new(driver, "version", json_string(HLOPROOF_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(HLOPROOF_VERSION));
	json_object_set_new(driver, "informationUri", json_string(HLOPROOF_URI));
	json_t *rules = json_array();
	for (int i = 0; rule_registry[i]; i++)
		json_array_append_new(rules, rule_json(rule_registry[i]));
	json_object_set_new(driver, "rules", rules);
	json_t *tool = json_object();
	json_object_set_new(tool, "driver", driver);

	const char *first = r->n_modules ? r->modules[0].findings.file
			    : r->files_failed ? r->failed[0].file : NULL;
	char *found = opt && opt->source_root ? NULL : report_source_root(first);
	const char *root = opt && opt->source_root ? opt->source_root : found;
	json_t *results = json_array();
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++)
			if (!fs->items[i].baselined && !fs->items[i].below_min_bytes)
				json_array_append_new(results, result_json(&fs->items[i], root));
	}
	json_t *run = json_object();
	json_object_set_new(run, "tool", tool);
	json_object_set_new(run, "invocations", invocations_json(r, root));
	if (root)
		json_object_set_new(run, "originalUriBaseIds", base_ids_json(root));
	json_object_set_new(run, "results", results);
	free(found);
	json_t *runs = json_array();
	json_array_append_new(runs, run);

	json_t *doc = json_object();
	json_object_set_new(doc, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(doc, "version", json_string("2.1.0"));
	json_object_set_new(doc, "runs", runs);
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc == 0)
		fputc('\n', out);
	return rc < 0 || ferror(out) ? -1 : 0;
}
