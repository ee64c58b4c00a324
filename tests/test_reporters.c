/* test_reporters.c - every output format on a module with findings, re-parsed
 * (jansson, libxml2) and checked; baselines; atomic output files. */
#include "testutil.h"
#include "baseline.h"
#include "config.h"
#include "findings.h"
#include "lint.h"
#include "atomic_out.h"
#include "report.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

static const char *mod_text =
	"HloModule fixture, is_scheduled=true\n"
	"ENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %p = f32[4]{0} parameter(0)\n"
	"  %copy.1 = f32[4]{0} copy(%p)\n"
	"  %n = f32[4]{0} negate(%copy.1)\n"
	"  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%copy.1, %n)\n"
	"}\n";

/* Two modules: one with an error, a warning (with evidence and hostile
 * characters), a note and a suppressed finding; one clean. */
struct fixture {
	struct hlo_module *m;
	struct module_report mods[2];
	struct report rep;
};

static struct fixture *make_fixture(const char *file2)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	fx->m = parse_text(mod_text);
	const struct rule *rt = rule_lookup("HP104"), *dn = rule_lookup("HP201");
	struct findings *fs = &fx->mods[0].findings;
	findings_init(fs, fx->m);
	fs->file = "dir with space/a.hlo";
	const struct hlo_instruction *cp = hlo_find_instruction_any(fx->m, "copy.1");
	const struct hlo_instruction *p = hlo_find_instruction_any(fx->m, "p");
	const struct hlo_instruction *n = hlo_find_instruction_any(fx->m, "n");
	struct srcpos none = {0, 0, 0};
	struct finding *f = findings_add(fs, rt, SEV_WARNING, cp, none, NULL,
					 "round trip <a & \"b\"> \x01 bad \xff utf8");
	finding_evidence(fs, f, "step 1: %s", "copy.1");
	finding_evidence(fs, f, "step 2: %s", "n");
	findings_add(fs, dn, SEV_ERROR, p, none, "{}", "donor lost");
	findings_add(fs, rt, SEV_NOTE, n, none, NULL, "a note");
	f = findings_add(fs, rt, SEV_WARNING, n, none, "k", "accepted one");
	findings_finalize(fs);
	for (int32_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->items[i].message, "accepted one"))
			fs->items[i].suppressed = "reviewed: fine";
	struct findings *clean = &fx->mods[1].findings;
	findings_init(clean, fx->m);
	clean->file = file2;
	clean->module_name = "clean";
	clean->scheduled = 0;
	findings_finalize(clean);
	fx->rep.modules = fx->mods;
	fx->rep.n_modules = 2;
	return fx;
}

static void free_fixture(struct fixture *fx)
{
	findings_free(&fx->mods[0].findings);
	findings_free(&fx->mods[1].findings);
	hlo_module_free(fx->m);
	free(fx);
}

static const struct finding *find_msg(const struct fixture *fx, const char *prefix)
{
	const struct findings *fs = &fx->mods[0].findings;
	for (int32_t i = 0; i < fs->n; i++)
		if (!strncmp(fs->items[i].message, prefix, strlen(prefix)))
			return &fs->items[i];
	return NULL;
}

static char *render_with(enum report_format fmt, const struct report *r,
			 const struct report_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(report_write(f, fmt, r, o), 0);
	fclose(f);
	return buf;
}

static char *render(enum report_format fmt, const struct report *r, int color)
{
	struct report_options o = {.color = color, .fail_on = FAIL_WARNING};
	return render_with(fmt, r, &o);
}

/* Two inputs that did not parse, one before each module. */
static const struct input_failure fixture_failed[] = {
	{"broken.hlo", 3, 7, "expected ')'", 0},
	{"missing.hlo", 0, 0, "cannot open: No such file or directory", 1},
};

static void add_failures(struct fixture *fx)
{
	fx->rep.failed = fixture_failed;
	fx->rep.files_failed = 2;
}

static void test_text(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	char *out = render(FMT_TEXT, &fx->rep, 0);
	const struct finding *w = find_msg(fx, "round trip");
	char want[256];
	snprintf(want, sizeof(want), "dir with space/a.hlo:%d:%d: warning: round trip <a & \"b\"> ",
		 w->line, w->col);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, " [HP104 layout-round-trip]\n    step 1: copy.1\n    step 2: n\n"));
	assert_non_null(strstr(out, ": error: donor lost [HP201 donation-not-honored]\n"));
	assert_non_null(strstr(out, ": note: a note [HP104 layout-round-trip]\n"));
	assert_null(strstr(out, "accepted one"));
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "hloproof: 2 modules checked: 1 error, 1 warning, 1 note, 1 suppressed\n"));
	free(out);
	out = render(FMT_TEXT, &fx->rep, 1);
	assert_non_null(strstr(out, "\033[1;35mwarning:\033[0m"));
	assert_non_null(strstr(out, "\033[1;31merror:\033[0m"));
	free(out);
	free_fixture(fx);
}

static void test_json(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	char *out = render(FMT_JSON, &fx->rep, 0);
	json_error_t err;
	json_t *root = json_loads(out, 0, &err);
	if (!root)
		fail_msg("JSON does not parse: %s", err.text);
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "tool"), "name")),
			    "hloproof");
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "tool"), "version")),
			    HLOPROOF_VERSION);
	json_t *mods = json_object_get(root, "modules");
	assert_int_equal(json_array_size(mods), 2);
	json_t *m0 = json_array_get(mods, 0), *m1 = json_array_get(mods, 1);
	assert_string_equal(json_string_value(json_object_get(m0, "file")), "dir with space/a.hlo");
	assert_string_equal(json_string_value(json_object_get(m0, "name")), "fixture");
	assert_true(json_is_true(json_object_get(m0, "scheduled")));
	assert_true(json_is_false(json_object_get(m1, "scheduled")));
	assert_true(json_is_array(json_object_get(m0, "copies")));
	assert_int_equal(json_array_size(json_object_get(m0, "copies")), 0);
	assert_true(json_is_array(json_object_get(m0, "donations")));
	json_t *fl = json_object_get(m0, "findings");
	assert_int_equal(json_array_size(fl), 3);
	const struct finding *w = find_msg(fx, "round trip");
	int seen_warning = 0;
	for (size_t i = 0; i < json_array_size(fl); i++) {
		json_t *f = json_array_get(fl, i);
		const char *sev = json_string_value(json_object_get(f, "severity"));
		assert_non_null(sev);
		assert_true(!strcmp(sev, "error") || !strcmp(sev, "warning") || !strcmp(sev, "note"));
		assert_non_null(json_string_value(json_object_get(f, "rule")));
		assert_non_null(json_string_value(json_object_get(f, "name")));
		assert_true(json_is_integer(json_object_get(f, "line")));
		assert_true(json_is_integer(json_object_get(f, "column")));
		assert_non_null(json_string_value(json_object_get(f, "computation")));
		assert_non_null(json_string_value(json_object_get(f, "instruction")));
		if (!strcmp(sev, "warning")) {
			seen_warning = 1;
			assert_string_equal(json_string_value(json_object_get(f, "rule")), "HP104");
			assert_string_equal(json_string_value(json_object_get(f, "name")), "layout-round-trip");
			assert_int_equal(json_integer_value(json_object_get(f, "line")), w->line);
			assert_string_equal(json_string_value(json_object_get(f, "instruction")), "copy.1");
			assert_string_equal(json_string_value(json_object_get(f, "computation")), "main");
			assert_string_equal(json_string_value(json_object_get(f, "fingerprint")), w->fingerprint);
			/* control character and invalid UTF-8 replaced, the rest kept */
			assert_string_equal(json_string_value(json_object_get(f, "message")),
					    "round trip <a & \"b\"> ? bad ? utf8");
			json_t *ev = json_object_get(f, "evidence");
			assert_int_equal(json_array_size(ev), 2);
			assert_string_equal(json_string_value(json_array_get(ev, 0)), "step 1: copy.1");
			assert_string_equal(json_string_value(json_array_get(ev, 1)), "step 2: n");
			/* no facts attached in the fixture: the keys are there, null */
			assert_true(json_is_null(json_object_get(f, "bytes")));
			assert_true(json_is_null(json_object_get(f, "family")));
			assert_true(json_is_null(json_object_get(f, "verdict")));
		} else {
			assert_int_equal(json_array_size(json_object_get(f, "evidence")), 0);
		}
	}
	assert_true(seen_warning);
	json_t *supp = json_object_get(m0, "suppressed");
	assert_int_equal(json_array_size(supp), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(supp, 0), "reason")),
			    "reviewed: fine");
	assert_int_equal(json_array_size(json_object_get(m1, "findings")), 0);
	json_t *sum = json_object_get(root, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "errors")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "warnings")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "notes")), 1);
	assert_null(json_object_get(root, "stale_baseline")); /* no --baseline */
	assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
	json_t *files = json_object_get(root, "files");
	assert_int_equal(json_array_size(files), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(files, 0), "path")),
			    "dir with space/a.hlo");
	assert_string_equal(json_string_value(json_object_get(json_array_get(files, 1), "status")),
			    "checked");
	json_decref(root);
	free(out);
	free_fixture(fx);
}

/* The structured facts a rule attaches (finding_facts) reach the JSON. */
static void test_json_facts(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	struct findings *fs = &fx->mods[0].findings;
	for (int32_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->items[i].message, "donor lost"))
			finding_facts(&fs->items[i], 4096, "donation", "not-honored");
	char *out = render(FMT_JSON, &fx->rep, 0);
	json_t *root = json_loads(out, 0, NULL);
	assert_non_null(root);
	json_t *fl = json_object_get(json_array_get(json_object_get(root, "modules"), 0), "findings");
	int seen = 0;
	for (size_t i = 0; i < json_array_size(fl); i++) {
		json_t *f = json_array_get(fl, i);
		if (strcmp(json_string_value(json_object_get(f, "message")), "donor lost"))
			continue;
		seen = 1;
		assert_int_equal(json_integer_value(json_object_get(f, "bytes")), 4096);
		assert_string_equal(json_string_value(json_object_get(f, "family")), "donation");
		assert_string_equal(json_string_value(json_object_get(f, "verdict")), "not-honored");
	}
	assert_true(seen);
	json_decref(root);
	free(out);
	free_fixture(fx);
}

static xmlDocPtr parse_xml(const char *out);
static int count_elems(xmlNodePtr n, const char *name);
static xmlNodePtr child(xmlNodePtr n, const char *name, int k);
static int prop_int(xmlNodePtr n, const char *name);
static void assert_prop(xmlNodePtr n, const char *name, const char *want);

/* Every format names every input: the failed ones in input order with
 * their position and message (issue 23). */
static void test_failed_inputs(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	add_failures(fx);
	/* JSON: files[] in input order */
	char *out = render(FMT_JSON, &fx->rep, 0);
	json_t *root = json_loads(out, 0, NULL);
	assert_non_null(root);
	json_t *files = json_object_get(root, "files");
	assert_int_equal(json_array_size(files), 4);
	const char *want_path[] = {"broken.hlo", "dir with space/a.hlo", "missing.hlo", "b.hlo"};
	const char *want_status[] = {"failed", "checked", "failed", "checked"};
	for (size_t i = 0; i < 4; i++) {
		json_t *e = json_array_get(files, i);
		assert_string_equal(json_string_value(json_object_get(e, "path")), want_path[i]);
		assert_string_equal(json_string_value(json_object_get(e, "status")), want_status[i]);
	}
	json_t *e0 = json_array_get(files, 0), *e2 = json_array_get(files, 2);
	assert_string_equal(json_string_value(json_object_get(e0, "location")), "broken.hlo:3:7");
	assert_int_equal(json_integer_value(json_object_get(e0, "line")), 3);
	assert_int_equal(json_integer_value(json_object_get(e0, "column")), 7);
	assert_string_equal(json_string_value(json_object_get(e0, "message")), "expected ')'");
	assert_string_equal(json_string_value(json_object_get(e2, "location")), "missing.hlo");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "summary"), "files_failed")), 2);
	json_decref(root);
	free(out);

	/* SARIF: executionSuccessful false, one error notification per input */
	out = render(FMT_SARIF, &fx->rep, 0);
	root = json_loads(out, 0, NULL);
	assert_non_null(root);
	json_t *inv = json_array_get(json_object_get(json_array_get(json_object_get(root, "runs"), 0),
						     "invocations"), 0);
	assert_true(json_is_false(json_object_get(inv, "executionSuccessful")));
	json_t *notes = json_object_get(inv, "toolExecutionNotifications");
	assert_int_equal(json_array_size(notes), 2);
	json_t *n0 = json_array_get(notes, 0);
	assert_string_equal(json_string_value(json_object_get(n0, "level")), "error");
	assert_string_equal(json_string_value(json_object_get(json_object_get(n0, "message"), "text")),
			    "broken.hlo:3:7: error: expected ')'");
	json_t *phys = json_object_get(json_array_get(json_object_get(n0, "locations"), 0), "physicalLocation");
	assert_string_equal(json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri")),
			    "broken.hlo");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "startLine")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "startColumn")), 7);
	/* no position: no region */
	phys = json_object_get(json_array_get(json_object_get(json_array_get(notes, 1), "locations"), 0),
			       "physicalLocation");
	assert_null(json_object_get(phys, "region"));
	json_decref(root);
	free(out);

	/* JUnit: a testsuite with an <error> for each, counted in errors */
	out = render(FMT_JUNIT, &fx->rep, 0);
	xmlDocPtr doc = parse_xml(out);
	xmlNodePtr top = xmlDocGetRootElement(doc);
	assert_int_equal(prop_int(top, "errors"), 2);
	assert_int_equal(prop_int(top, "tests"), 7); /* 4 findings + 1 clean module + 2 failed */
	assert_int_equal(count_elems(top->children, "error"), 2);
	xmlNodePtr s0 = child(top, "testsuite", 0);
	assert_prop(s0, "name", "broken.hlo");
	assert_int_equal(prop_int(s0, "errors"), 1);
	xmlNodePtr tc = child(s0, "testcase", 0);
	assert_prop(tc, "classname", "hloproof.parse");
	xmlNodePtr er = child(tc, "error", 0);
	assert_prop(er, "message", "expected ')'");
	xmlChar *text = xmlNodeGetContent(er);
	assert_string_equal((const char *)text, "broken.hlo:3:7: error: expected ')'");
	xmlFree(text);
	assert_prop(child(top, "testsuite", 1), "name", "dir with space/a.hlo");
	assert_prop(child(top, "testsuite", 2), "name", "missing.hlo");
	xmlFreeDoc(doc);
	free(out);

	/* Checkstyle: a <file> with one parse error each */
	out = render(FMT_CHECKSTYLE, &fx->rep, 0);
	doc = parse_xml(out);
	top = xmlDocGetRootElement(doc);
	xmlNodePtr f0 = child(top, "file", 0), f2 = child(top, "file", 2);
	assert_prop(f0, "name", "broken.hlo");
	assert_prop(f2, "name", "missing.hlo");
	er = child(f0, "error", 0);
	assert_prop(er, "severity", "error");
	assert_prop(er, "source", "hloproof.parse");
	assert_prop(er, "line", "3");
	assert_prop(er, "column", "7");
	assert_prop(er, "message", "expected ')'");
	assert_prop(child(f2, "error", 0), "line", "1");
	assert_int_equal(count_elems(top->children, "file"), 4);
	xmlFreeDoc(doc);
	free(out);
	free_fixture(fx);
}

static int valid_level(const char *s)
{
	return s && (!strcmp(s, "none") || !strcmp(s, "note") || !strcmp(s, "warning") ||
		     !strcmp(s, "error"));
}

/* What GitHub code scanning requires of an upload, checked structurally. */
static void test_sarif(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	char *out = render(FMT_SARIF, &fx->rep, 0);
	json_error_t err;
	json_t *root = json_loads(out, 0, &err);
	if (!root)
		fail_msg("SARIF does not parse: %s", err.text);
	assert_string_equal(json_string_value(json_object_get(root, "version")), "2.1.0");
	assert_non_null(strstr(json_string_value(json_object_get(root, "$schema")), "sarif-2.1.0"));
	json_t *runs = json_object_get(root, "runs");
	assert_int_equal(json_array_size(runs), 1);
	json_t *run = json_array_get(runs, 0);
	json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
	assert_string_equal(json_string_value(json_object_get(driver, "name")), "hloproof");
	assert_string_equal(json_string_value(json_object_get(driver, "version")), HLOPROOF_VERSION);
	assert_non_null(strstr(json_string_value(json_object_get(driver, "informationUri")), "https://"));
	json_t *rules = json_object_get(driver, "rules");
	assert_int_equal(json_array_size(rules), (size_t)rule_count());
	for (size_t i = 0; i < json_array_size(rules); i++) {
		json_t *r = json_array_get(rules, i);
		assert_string_equal(json_string_value(json_object_get(r, "id")), rule_registry[i]->id);
		assert_string_equal(json_string_value(json_object_get(r, "name")), rule_registry[i]->slug);
		assert_non_null(json_string_value(json_object_get(json_object_get(r, "shortDescription"), "text")));
		const char *full = json_string_value(json_object_get(json_object_get(r, "fullDescription"), "text"));
		assert_non_null(full);
		assert_true(strlen(full) > strlen(rule_registry[i]->summary) / 2);
		json_t *help = json_object_get(r, "help");
		const char *md = json_string_value(json_object_get(help, "markdown"));
		assert_non_null(json_string_value(json_object_get(help, "text")));
		assert_non_null(md);
		/* the rule's doc page, embedded */
		assert_non_null(strstr(md, rule_registry[i]->id));
		assert_non_null(strstr(md, "## How to fix"));
		assert_true(valid_level(json_string_value(
			json_object_get(json_object_get(r, "defaultConfiguration"), "level"))));
	}
	json_t *results = json_object_get(run, "results");
	assert_int_equal(json_array_size(results), 4); /* 3 reported + 1 suppressed */
	int suppressed = 0;
	for (size_t i = 0; i < json_array_size(results); i++) {
		json_t *res = json_array_get(results, i);
		const char *id = json_string_value(json_object_get(res, "ruleId"));
		json_int_t ix = json_integer_value(json_object_get(res, "ruleIndex"));
		assert_true(ix >= 0 && (size_t)ix < json_array_size(rules));
		assert_string_equal(json_string_value(json_object_get(json_array_get(rules, (size_t)ix), "id")), id);
		assert_true(valid_level(json_string_value(json_object_get(res, "level"))));
		assert_true(strlen(json_string_value(json_object_get(json_object_get(res, "message"), "text"))) > 0);
		json_t *locs = json_object_get(res, "locations");
		assert_int_equal(json_array_size(locs), 1);
		json_t *phys = json_object_get(json_array_get(locs, 0), "physicalLocation");
		const char *uri = json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri"));
		assert_string_equal(uri, "dir%20with%20space/a.hlo");
		json_t *region = json_object_get(phys, "region");
		json_int_t line = json_integer_value(json_object_get(region, "startLine"));
		assert_true(line >= 1);
		assert_true(json_integer_value(json_object_get(region, "startColumn")) >= 1);
		const char *fp = json_string_value(json_object_get(json_object_get(res, "partialFingerprints"), "hloproof/v1"));
		assert_non_null(fp);
		/* the same finding: line and fingerprint agree with the list */
		const struct findings *fs = &fx->mods[0].findings;
		int found = 0;
		for (int32_t k = 0; k < fs->n; k++)
			if (!strcmp(fs->items[k].fingerprint, fp)) {
				found = 1;
				assert_int_equal(line, fs->items[k].line);
				assert_string_equal(id, fs->items[k].rule->id);
				assert_string_equal(json_string_value(json_object_get(res, "level")),
						    severity_name(fs->items[k].severity));
			}
		assert_true(found);
		json_t *sup = json_object_get(res, "suppressions");
		if (sup) {
			suppressed++;
			assert_string_equal(json_string_value(json_object_get(json_array_get(sup, 0), "kind")), "external");
			assert_string_equal(json_string_value(json_object_get(json_array_get(sup, 0), "justification")),
					    "reviewed: fine");
		}
	}
	assert_int_equal(suppressed, 1);
	json_decref(root);
	free(out);
	free_fixture(fx);
}

static xmlDocPtr parse_xml(const char *out)
{
	xmlDocPtr doc = xmlReadMemory(out, (int)strlen(out), "out.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		fail_msg("XML does not parse:\n%s", out);
	return doc;
}

static int count_elems(xmlNodePtr n, const char *name)
{
	int c = 0;
	for (; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE) {
			c += !strcmp((const char *)n->name, name);
			c += count_elems(n->children, name);
		}
	return c;
}

static xmlNodePtr child(xmlNodePtr n, const char *name, int k)
{
	for (xmlNodePtr c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name) && k-- == 0)
			return c;
	return NULL;
}

static int prop_int(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	assert_non_null(v);
	int r = atoi((const char *)v);
	xmlFree(v);
	return r;
}

static void assert_prop(xmlNodePtr n, const char *name, const char *want)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	assert_non_null(v);
	assert_string_equal((const char *)v, want);
	xmlFree(v);
}

static void test_junit(void **state)
{
	struct fixture *fx = make_fixture("b<&>.hlo");
	char *out = render(FMT_JUNIT, &fx->rep, 0);
	xmlDocPtr doc = parse_xml(out);
	xmlNodePtr root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "testsuites");
	assert_int_equal(prop_int(root, "failures"), 2); /* the error and the warning */
	assert_int_equal(prop_int(root, "tests"), 5);    /* 4 findings + 1 clean module */
	xmlNodePtr s0 = child(root, "testsuite", 0), s1 = child(root, "testsuite", 1);
	assert_non_null(s0);
	assert_non_null(s1);
	assert_null(child(root, "testsuite", 2));
	assert_prop(s0, "name", "dir with space/a.hlo");
	assert_prop(s1, "name", "b<&>.hlo");
	assert_int_equal(count_elems(s0->children, "testcase"), 4);
	assert_int_equal(count_elems(s0->children, "failure"), 2);
	assert_int_equal(count_elems(s0->children, "skipped"), 1);
	/* the clean module: one passing testcase */
	assert_int_equal(count_elems(s1->children, "testcase"), 1);
	assert_int_equal(count_elems(s1->children, "failure"), 0);
	assert_int_equal(prop_int(s1, "failures"), 0);
	/* a failure carries the message and the evidence */
	int ok = 0;
	for (xmlNodePtr tc = s0->children; tc; tc = tc->next) {
		xmlNodePtr fl = tc->type == XML_ELEMENT_NODE ? child(tc, "failure", 0) : NULL;
		if (!fl)
			continue;
		xmlChar *type = xmlGetProp(fl, BAD_CAST "type");
		if (!strcmp((const char *)type, "warning")) {
			xmlChar *text = xmlNodeGetContent(fl);
			assert_non_null(strstr((const char *)text, "round trip <a & \"b\">"));
			assert_non_null(strstr((const char *)text, "step 2: n"));
			xmlFree(text);
			assert_prop(tc, "classname", "hloproof.HP104.layout-round-trip");
			ok = 1;
		}
		xmlFree(type);
	}
	assert_true(ok);
	/* the accepted finding: <skipped> with the reason as its text */
	xmlNodePtr sk = NULL;
	for (xmlNodePtr tc = s0->children; tc && !sk; tc = tc->next)
		if (tc->type == XML_ELEMENT_NODE)
			sk = child(tc, "skipped", 0);
	assert_non_null(sk);
	xmlChar *reason = xmlNodeGetContent(sk);
	assert_string_equal((const char *)reason, "reviewed: fine");
	xmlFree(reason);
	xmlFreeDoc(doc);
	free(out);
	free_fixture(fx);
}

/* --fail-on: a <failure> only at or above it; the rest pass with their text
 * in <system-out>; (classname, name) unique in the report. */
static void test_junit_fail_on(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	struct report_options o = {.fail_on = FAIL_ERROR};
	char *out = render_with(FMT_JUNIT, &fx->rep, &o);
	xmlDocPtr doc = parse_xml(out);
	xmlNodePtr root = xmlDocGetRootElement(doc);
	assert_int_equal(prop_int(root, "failures"), 1);
	assert_int_equal(prop_int(root, "tests"), 5);
	xmlNodePtr s0 = child(root, "testsuite", 0);
	assert_int_equal(prop_int(s0, "failures"), 1);
	assert_int_equal(count_elems(s0->children, "failure"), 1);
	assert_int_equal(count_elems(s0->children, "system-out"), 2); /* the warning and the note */
	int warned = 0;
	char names[8][800];
	int n = 0;
	for (xmlNodePtr tc = s0->children; tc; tc = tc->next) {
		if (tc->type != XML_ELEMENT_NODE || strcmp((const char *)tc->name, "testcase"))
			continue;
		xmlChar *cls = xmlGetProp(tc, BAD_CAST "classname"), *name = xmlGetProp(tc, BAD_CAST "name");
		assert_true(n < 8);
		snprintf(names[n++], sizeof(names[0]), "%s|%s", (const char *)cls, (const char *)name);
		xmlFree(cls);
		xmlFree(name);
		xmlNodePtr so = child(tc, "system-out", 0);
		xmlChar *text = so ? xmlNodeGetContent(so) : NULL;
		if (text && strstr((const char *)text, "round trip")) {
			assert_int_equal(strncmp((const char *)text, "warning: round trip", 19), 0);
			assert_non_null(strstr((const char *)text, "step 2: n"));
			warned = 1;
		}
		xmlFree(text);
	}
	assert_true(warned);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			assert_string_not_equal(names[i], names[j]);
	xmlFreeDoc(doc);
	free(out);
	/* none: no failure at all */
	o.fail_on = FAIL_NONE;
	out = render_with(FMT_JUNIT, &fx->rep, &o);
	doc = parse_xml(out);
	assert_int_equal(prop_int(xmlDocGetRootElement(doc), "failures"), 0);
	xmlFreeDoc(doc);
	free(out);
	free_fixture(fx);
}

static void test_checkstyle(void **state)
{
	struct fixture *fx = make_fixture("b.hlo");
	char *out = render(FMT_CHECKSTYLE, &fx->rep, 0);
	xmlDocPtr doc = parse_xml(out);
	xmlNodePtr root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "checkstyle");
	xmlNodePtr f0 = child(root, "file", 0), f1 = child(root, "file", 1);
	assert_non_null(f0);
	assert_non_null(f1);
	assert_prop(f0, "name", "dir with space/a.hlo");
	assert_prop(f1, "name", "b.hlo");
	assert_int_equal(count_elems(f0->children, "error"), 3); /* suppressed one left out */
	assert_int_equal(count_elems(f1->children, "error"), 0);
	const struct findings *fs = &fx->mods[0].findings;
	int k = 0;
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (f->suppressed)
			continue;
		xmlNodePtr e = child(f0, "error", k++);
		assert_non_null(e);
		assert_int_equal(prop_int(e, "line"), f->line);
		assert_int_equal(prop_int(e, "column"), f->col);
		assert_prop(e, "severity", f->severity == SEV_NOTE ? "info" : severity_name(f->severity));
		char src[64];
		snprintf(src, sizeof(src), "hloproof.%s.%s", f->rule->id, f->rule->slug);
		assert_prop(e, "source", src);
		xmlChar *msg = xmlGetProp(e, BAD_CAST "message");
		assert_int_equal(strncmp((const char *)msg, "round trip", 10) == 0,
				 strncmp(f->message, "round trip", 10) == 0);
		xmlFree(msg);
	}
	xmlFreeDoc(doc);
	free(out);
	free_fixture(fx);
}

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/hloproof-rep-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return strdup(tmpl);
}

static int count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_baseline(void **state)
{
	char *dir = make_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/base.json", dir);
	struct fixture *fx = make_fixture("b.hlo");
	struct diag d;
	diag_init(&d, NULL);
	assert_int_equal(baseline_write(path, &fx->rep, &d), 3); /* the suppressed one left out */
	assert_int_equal(count_dir(dir), 1); /* no temporary left */
	/* the file's format */
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "version")), 1);
	json_t *list = json_object_get(root, "findings");
	assert_int_equal(json_array_size(list), 3); /* suppressed ones are not baselined */
	json_t *e0 = json_array_get(list, 0);
	assert_non_null(json_string_value(json_object_get(e0, "fingerprint")));
	assert_non_null(json_string_value(json_object_get(e0, "rule")));
	assert_string_equal(json_string_value(json_object_get(e0, "file")), "dir with space/a.hlo");
	assert_non_null(json_string_value(json_object_get(e0, "message")));
	json_decref(root);

	/* the same findings: everything baselined, nothing stale */
	struct baseline b;
	assert_int_equal(baseline_load(&b, path, &d), 0);
	assert_int_equal(b.n, 3);
	baseline_apply(&b, &fx->rep);
	fx->rep.baseline = &b;
	struct report_counts c;
	report_count(&fx->rep, &c);
	assert_int_equal(c.errors + c.warnings + c.notes, 0);
	assert_int_equal(c.baselined, 3);
	assert_int_equal(c.stale, 0);
	free_fixture(fx);
	baseline_free(&b);

	/* a run where one finding is gone and one is new */
	fx = make_fixture("b.hlo");
	struct findings *fs = &fx->mods[0].findings;
	for (int32_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->items[i].message, "donor lost"))
			fs->items[i].fingerprint = "00000000000000ff:1"; /* a different finding */
	assert_int_equal(baseline_load(&b, path, &d), 0);
	baseline_apply(&b, &fx->rep);
	fx->rep.baseline = &b;
	report_count(&fx->rep, &c);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.warnings + c.notes, 0);
	assert_int_equal(c.stale, 1);
	char *out = render(FMT_TEXT, &fx->rep, 0);
	assert_non_null(strstr(out, "base.json: note: stale baseline entry "));
	assert_non_null(strstr(out, "donor lost"));
	free(out);
	out = render(FMT_JSON, &fx->rep, 0);
	root = json_loads(out, 0, &err);
	assert_non_null(root);
	json_t *stale = json_object_get(root, "stale_baseline");
	assert_int_equal(json_array_size(stale), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(stale, 0), "message")),
			    "donor lost");
	json_decref(root);
	free(out);
	baseline_free(&b);
	free_fixture(fx);

	/* malformed baselines are input errors */
	FILE *f = fopen(path, "w");
	fputs("{\"version\": 2, \"findings\": []}", f);
	fclose(f);
	assert_int_equal(baseline_load(&b, path, &d), -1);
	f = fopen(path, "w");
	fputs("{\"version\": 1, \"findings\": [", f);
	fclose(f);
	assert_int_equal(baseline_load(&b, path, &d), -1);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	free(dir);
}

static void test_outfile_atomic(void **state)
{
	char *dir = make_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/out.json", dir);
	struct diag d;
	diag_init(&d, NULL);
	/* an existing file survives an aborted write untouched */
	FILE *f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	struct atomic_out o;
	assert_int_equal(atomic_out_open(&o, path, &d), 0);
	fputs("partial", o.f);
	assert_int_equal(count_dir(dir), 2); /* the temporary is beside the target */
	atomic_out_abort(&o);
	assert_int_equal(count_dir(dir), 1);
	char *text = read_file(path, NULL);
	assert_string_equal(text, "old");
	free(text);
	/* a committed write replaces it (interrupts: test_robust.c) */
	assert_int_equal(atomic_out_open(&o, path, &d), 0);
	fputs("new", o.f);
	assert_int_equal(atomic_out_commit(&o, &d), 0);
	text = read_file(path, NULL);
	assert_string_equal(text, "new");
	free(text);
	assert_int_equal(count_dir(dir), 1);
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/none/out.json", dir);
	assert_int_equal(atomic_out_open(&o, path, &d), -1);
	assert_non_null(strstr(d.first, "cannot create"));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	free(dir);
}

static void test_helpers(void **state)
{
	char *s = report_uri("./a b/c#d.hlo");
	assert_string_equal(s, "a%20b/c%23d.hlo");
	free(s);
	s = report_uri("/abs/x.hlo");
	assert_string_equal(s, "file:///abs/x.hlo");
	free(s);
	s = report_clean_text("ok \xc3\xa9 \xed\xa0\x80 \x7f\t\n");
	assert_string_equal(s, "ok \xc3\xa9 ??? ?\t\n");
	free(s);
	enum report_format fmt;
	assert_int_equal(report_format_parse("sarif", &fmt), 0);
	assert_int_equal(fmt, FMT_SARIF);
	assert_int_equal(report_format_parse("xml", &fmt), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_facts),
		cmocka_unit_test(test_failed_inputs),
		cmocka_unit_test(test_junit_fail_on),
		cmocka_unit_test(test_sarif),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_checkstyle),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_outfile_atomic),
		cmocka_unit_test(test_helpers),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	return rc;
}
