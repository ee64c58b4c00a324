/* report_junit.c - JUnit XML as the Jenkins junit-4.xsd defines it
 * (tests/junit-4.xsd): a testsuite per module, a testcase per finding and one
 * passing testcase for a module without findings. A finding at or above
 * --fail-on is a <failure>; one below passes with its text in <system-out>;
 * an accepted one is <skipped>. An input that did not parse is a testsuite
 * with one testcase holding an <error>. The testcase name ends in the
 * finding's fingerprint, so (classname, name) is unique in a report. */
#include "report.h"
#include <stdlib.h>

#define PARSE_CLASS "hloproof.parse"

static int is_failure(const struct finding *f, const struct report_options *o)
{
	return finding_reported(f) && (int)f->severity >= o->fail_on;
}

static int module_failures(const struct findings *fs, const struct report_options *o, int *tests)
{
	int fail = 0;
	*tests = 0;
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (f->baselined || f->below_min_bytes)
			continue;
		(*tests)++;
		fail += is_failure(f, o);
	}
	return fail;
}

static int testcase(xmlTextWriterPtr w, const struct finding *f, const struct report_options *o)
{
	char name[768];
	snprintf(name, sizeof(name), "%s:%d:%d %s%s%s [%s]", f->file, f->line, f->col,
		 f->computation ? f->computation : "", f->instruction ? "/" : "",
		 f->instruction ? f->instruction : "", f->fingerprint ? f->fingerprint : "");
	char cls[128];
	snprintf(cls, sizeof(cls), "hloproof.%s.%s", f->rule->id, f->rule->slug);
	int rc = xmlTextWriterStartElement(w, BAD_CAST "testcase");
	rc |= report_xml_attr(w, "classname", cls);
	rc |= report_xml_attr(w, "name", name);
	char *full = report_full_message(f);
	char fp[96];
	snprintf(fp, sizeof(fp), "\nfingerprint: %s", f->fingerprint ? f->fingerprint : "");
	if (f->suppressed) {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "skipped");
		rc |= report_xml_text(w, f->suppressed);
		rc |= xmlTextWriterEndElement(w);
	} else if (is_failure(f, o)) {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "failure");
		rc |= report_xml_attr(w, "type", severity_name(f->severity));
		rc |= report_xml_attr(w, "message", f->message);
		rc |= report_xml_text(w, full ? full : f->message);
		rc |= report_xml_text(w, fp);
		rc |= xmlTextWriterEndElement(w);
	} else {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "system-out");
		rc |= report_xml_text(w, severity_name(f->severity));
		rc |= report_xml_text(w, ": ");
		rc |= report_xml_text(w, full ? full : f->message);
		rc |= report_xml_text(w, fp);
		rc |= xmlTextWriterEndElement(w);
	}
	free(full);
	rc |= xmlTextWriterEndElement(w);
	return rc;
}

static int suite_start(xmlTextWriterPtr w, const char *file, int tests, int failures, int errors)
{
	int rc = xmlTextWriterStartElement(w, BAD_CAST "testsuite");
	rc |= report_xml_attr(w, "name", file);
	rc |= report_xml_attr_int(w, "tests", tests);
	rc |= report_xml_attr_int(w, "failures", failures);
	rc |= report_xml_attr_int(w, "errors", errors);
	return rc;
}

/* An input that did not parse: FILE:LINE:COL: error: message. */
static int failed_suite(xmlTextWriterPtr w, const struct input_failure *f)
{
	char *loc = report_failure_location(f);
	int rc = suite_start(w, f->file, 1, 0, 1);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase");
	rc |= report_xml_attr(w, "classname", PARSE_CLASS);
	rc |= report_xml_attr(w, "name", f->file);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "error");
	rc |= report_xml_attr(w, "type", "parse");
	rc |= report_xml_attr(w, "message", f->message);
	rc |= report_xml_text(w, loc ? loc : f->file);
	rc |= report_xml_text(w, ": error: ");
	rc |= report_xml_text(w, f->message);
	rc |= xmlTextWriterEndElement(w);
	rc |= xmlTextWriterEndElement(w);
	rc |= xmlTextWriterEndElement(w);
	free(loc);
	return rc;
}

static int module_suite(xmlTextWriterPtr w, const struct findings *fs, const struct report_options *o)
{
	int t, fail = module_failures(fs, o, &t);
	int rc = suite_start(w, fs->file, t ? t : 1, fail, 0);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "properties");
	rc |= xmlTextWriterStartElement(w, BAD_CAST "property");
	rc |= report_xml_attr(w, "name", "module");
	rc |= report_xml_attr(w, "value", fs->module_name);
	rc |= xmlTextWriterEndElement(w);
	rc |= xmlTextWriterEndElement(w);
	for (int32_t i = 0; i < fs->n; i++)
		if (!fs->items[i].baselined && !fs->items[i].below_min_bytes)
			rc |= testcase(w, &fs->items[i], o);
	if (t == 0) {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase");
		rc |= report_xml_attr(w, "classname", "hloproof");
		rc |= report_xml_attr(w, "name", fs->file);
		rc |= xmlTextWriterEndElement(w);
	}
	rc |= xmlTextWriterEndElement(w);
	return rc;
}

int report_junit(FILE *out, const struct report *r, const struct report_options *o)
{
	xmlTextWriterPtr w = report_xml_open(out);
	if (!w)
		return -1;
	int total = r->files_failed, failures = 0;
	for (size_t m = 0; m < r->n_modules; m++) {
		int t;
		failures += module_failures(&r->modules[m].findings, o, &t);
		total += t ? t : 1;
	}
	int rc = xmlTextWriterStartElement(w, BAD_CAST "testsuites");
	rc |= report_xml_attr(w, "name", "hloproof");
	rc |= report_xml_attr_int(w, "tests", total);
	rc |= report_xml_attr_int(w, "failures", failures);
	rc |= report_xml_attr_int(w, "errors", r->files_failed);
	/* input order: the failed inputs between the modules they came between */
	int k = 0;
	for (size_t m = 0; m <= r->n_modules && rc >= 0; m++) {
		for (; k < r->files_failed && r->failed[k].before == m; k++)
			rc |= failed_suite(w, &r->failed[k]);
		if (m < r->n_modules)
			rc |= module_suite(w, &r->modules[m].findings, o);
	}
	rc |= xmlTextWriterEndElement(w);
	return report_xml_close(w, rc);
}
