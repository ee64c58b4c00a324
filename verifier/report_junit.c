/* report_junit.c - JUnit XML: a testsuite per module, a testcase per finding
 * (a <failure> for errors and warnings, <skipped> for accepted ones, plain
 * for notes) and one passing testcase for a module without findings. */
#include "report.h"
#include <stdlib.h>

static int module_failures(const struct findings *fs, int *tests)
{
	int fail = 0;
	*tests = 0;
	for (int32_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->items[i];
		if (f->baselined)
			continue;
		(*tests)++;
		fail += !f->suppressed && f->severity >= SEV_WARNING;
	}
	return fail;
}

static int testcase(xmlTextWriterPtr w, const struct finding *f)
{
	char name[512];
	snprintf(name, sizeof(name), "%s:%d:%d %s%s%s", f->file, f->line, f->col,
		 f->computation ? f->computation : "", f->instruction ? "/" : "",
		 f->instruction ? f->instruction : "");
	char cls[128];
	snprintf(cls, sizeof(cls), "hloproof.%s.%s", f->rule->id, f->rule->slug);
	int rc = xmlTextWriterStartElement(w, BAD_CAST "testcase");
	rc |= report_xml_attr(w, "classname", cls);
	rc |= report_xml_attr(w, "name", name);
	rc |= report_xml_attr(w, "file", f->file);
	rc |= report_xml_attr_int(w, "line", f->line);
	char *full = report_full_message(f);
	char fp[96];
	snprintf(fp, sizeof(fp), "\nfingerprint: %s", f->fingerprint ? f->fingerprint : "");
	if (f->suppressed) {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "skipped");
		rc |= report_xml_attr(w, "message", f->suppressed);
		rc |= xmlTextWriterEndElement(w);
	} else if (f->severity >= SEV_WARNING) {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "failure");
		rc |= report_xml_attr(w, "type", severity_name(f->severity));
		rc |= report_xml_attr(w, "message", f->message);
		rc |= report_xml_text(w, full ? full : f->message);
		rc |= report_xml_text(w, fp);
		rc |= xmlTextWriterEndElement(w);
	} else {
		rc |= xmlTextWriterStartElement(w, BAD_CAST "system-out");
		rc |= report_xml_text(w, full ? full : f->message);
		rc |= xmlTextWriterEndElement(w);
	}
	free(full);
	rc |= xmlTextWriterEndElement(w);
	return rc;
}

int report_junit(FILE *out, const struct report *r, const struct report_options *o)
{
	xmlTextWriterPtr w = report_xml_open(out);
	if (!w)
		return -1;
	int total = 0, failures = 0;
	for (size_t m = 0; m < r->n_modules; m++) {
		int t;
		failures += module_failures(&r->modules[m].findings, &t);
		total += t ? t : 1;
	}
	int rc = xmlTextWriterStartElement(w, BAD_CAST "testsuites");
	rc |= report_xml_attr(w, "name", "hloproof");
	rc |= report_xml_attr_int(w, "tests", total);
	rc |= report_xml_attr_int(w, "failures", failures);
	rc |= report_xml_attr_int(w, "errors", 0);
	for (size_t m = 0; m < r->n_modules && rc >= 0; m++) {
		const struct findings *fs = &r->modules[m].findings;
		int t, fail = module_failures(fs, &t);
		rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuite");
		rc |= report_xml_attr(w, "name", fs->file);
		rc |= report_xml_attr_int(w, "tests", t ? t : 1);
		rc |= report_xml_attr_int(w, "failures", fail);
		rc |= report_xml_attr_int(w, "errors", 0);
		rc |= xmlTextWriterStartElement(w, BAD_CAST "properties");
		rc |= xmlTextWriterStartElement(w, BAD_CAST "property");
		rc |= report_xml_attr(w, "name", "module");
		rc |= report_xml_attr(w, "value", fs->module_name);
		rc |= xmlTextWriterEndElement(w);
		rc |= xmlTextWriterEndElement(w);
		for (int32_t i = 0; i < fs->n; i++)
			if (!fs->items[i].baselined)
				rc |= testcase(w, &fs->items[i]);
		if (t == 0) {
			rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase");
			rc |= report_xml_attr(w, "classname", "hloproof");
			rc |= report_xml_attr(w, "name", fs->file);
			rc |= report_xml_attr(w, "file", fs->file);
			rc |= xmlTextWriterEndElement(w);
		}
		rc |= xmlTextWriterEndElement(w);
	}
	rc |= xmlTextWriterEndElement(w);
	return report_xml_close(w, rc);
}
