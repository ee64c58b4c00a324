/* report_checkstyle.c - Checkstyle XML: <checkstyle><file name><error line
 * column severity message source/></file></checkstyle>, a <file> per module
 * and per input that did not parse (one error, source "hloproof.parse"), in
 * input order. tests/checkstyle.xsd is the schema. */
#include "report.h"
#include <stdlib.h>

static const char *cs_severity(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "info";
}

static int failed_file(xmlTextWriterPtr w, const struct input_failure *f)
{
	int rc = xmlTextWriterStartElement(w, BAD_CAST "file");
	rc |= report_xml_attr(w, "name", f->file);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "error");
	rc |= report_xml_attr_int(w, "line", f->line > 0 ? f->line : 1);
	rc |= report_xml_attr_int(w, "column", f->col > 0 ? f->col : 1);
	rc |= report_xml_attr(w, "severity", "error");
	rc |= report_xml_attr(w, "message", f->message);
	rc |= report_xml_attr(w, "source", "hloproof.parse");
	rc |= xmlTextWriterEndElement(w);
	rc |= xmlTextWriterEndElement(w);
	return rc;
}

int report_checkstyle(FILE *out, const struct report *r, const struct report_options *o)
{
	xmlTextWriterPtr w = report_xml_open(out);
	if (!w)
		return -1;
	int rc = xmlTextWriterStartElement(w, BAD_CAST "checkstyle");
	rc |= report_xml_attr(w, "version", "4.3");
	int k = 0;
	for (size_t m = 0; m <= r->n_modules && rc >= 0; m++) {
		for (; k < r->files_failed && r->failed[k].before == m; k++)
			rc |= failed_file(w, &r->failed[k]);
		if (m == r->n_modules)
			break;
		const struct findings *fs = &r->modules[m].findings;
		rc |= xmlTextWriterStartElement(w, BAD_CAST "file");
		rc |= report_xml_attr(w, "name", fs->file);
		for (int32_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->items[i];
			if (!finding_reported(f))
				continue;
			char src[128];
			snprintf(src, sizeof(src), "hloproof.%s.%s", f->rule->id, f->rule->slug);
			char *full = report_full_message(f);
			rc |= xmlTextWriterStartElement(w, BAD_CAST "error");
			rc |= report_xml_attr_int(w, "line", f->line > 0 ? f->line : 1);
			rc |= report_xml_attr_int(w, "column", f->col > 0 ? f->col : 1);
			rc |= report_xml_attr(w, "severity", cs_severity(f->severity));
			rc |= report_xml_attr(w, "message", full ? full : f->message);
			rc |= report_xml_attr(w, "source", src);
			rc |= xmlTextWriterEndElement(w);
			free(full);
		}
		rc |= xmlTextWriterEndElement(w);
	}
	rc |= xmlTextWriterEndElement(w);
	return report_xml_close(w, rc);
}
