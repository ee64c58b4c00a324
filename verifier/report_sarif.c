/* report_sarif.c - SARIF 2.1.0 as GitHub code scanning accepts it: one run,
 * the driver with every registered rule (ruleIndex = registry position), one
 * result per reported or suppressed finding with a physical location, a
 * region and partialFingerprints {"hloproof/v1": fingerprint}. */
#include "report.h"
#include <stdlib.h>
#include <string.h>

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
	json_object_set_new(o, "fullDescription", text_obj(desc ? desc : r->summary));
	free(desc);
	const char *doc = rule_doc(r->slug);
	json_t *help = json_object();
	json_object_set_new(help, "text", report_json_string(doc ? doc : r->summary));
	json_object_set_new(help, "markdown", report_json_string(doc ? doc : r->summary));
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

static json_t *result_json(const struct finding *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "ruleId", json_string(f->rule->id));
	json_object_set_new(o, "ruleIndex", json_integer(rule_index(f->rule)));
	json_object_set_new(o, "level", json_string(severity_name(f->severity)));
	char *msg = report_full_message(f);
	json_object_set_new(o, "message", text_obj(msg ? msg : f->message));
	free(msg);

	json_t *art = json_object();
	char *uri = report_uri(f->file);
	json_object_set_new(art, "uri", report_json_string(uri ? uri : f->file));
	free(uri);
	json_t *region = json_object();
	json_object_set_new(region, "startLine", json_integer(f->line > 0 ? f->line : 1));
	json_object_set_new(region, "startColumn", json_integer(f->col > 0 ? f->col : 1));
	json_t *phys = json_object();
	json_object_set_new(phys, "artifactLocation", art);
	json_object_set_new(phys, "region", region);
	json_t *loc = json_object();
	json_object_set_new(loc, "physicalLocation", phys);
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
	json_t *locs = json_array();
	json_array_append_new(locs, loc);
	json_object_set_new(o, "locations", locs);

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
	return o;
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

	json_t *results = json_array();
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++)
			if (!fs->items[i].baselined)
				json_array_append_new(results, result_json(&fs->items[i]));
	}
	json_t *run = json_object();
	json_object_set_new(run, "tool", tool);
	json_object_set_new(run, "results", results);
	json_t *runs = json_array();
	json_array_append_new(runs, run);

	json_t *root = json_object();
	json_object_set_new(root, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(root, "version", json_string("2.1.0"));
	json_object_set_new(root, "runs", runs);
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc == 0)
		fputc('\n', out);
	return rc < 0 || ferror(out) ? -1 : 0;
}
