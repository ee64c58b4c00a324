/* fuzz_check.c - libFuzzer target: parse, run every rule, render every
 * report format; the JSON and SARIF must re-parse with jansson and the XML
 * formats with libxml2, whatever names and strings the module holds. */
#include "config.h"
#include "ir.h"
#include "lint.h"
#include "session.h"
#include "report.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>

static void render_and_check(const struct report *r, enum report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_options o = {1};
	if (report_write(f, fmt, r, &o) < 0)
		abort();
	fclose(f);
	if (fmt == FMT_JSON || fmt == FMT_SARIF) {
		json_error_t err;
		json_t *j = json_loadb(buf, len, 0, &err);
		if (!j) {
			fprintf(stderr, "report does not parse: %s\n", err.text);
			abort();
		}
		json_decref(j);
	} else if (fmt == FMT_JUNIT || fmt == FMT_CHECKSTYLE) {
		xmlDocPtr doc = xmlReadMemory(buf, (int)len, "r.xml", NULL,
					      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		if (!doc) {
			fprintf(stderr, "XML report does not parse:\n%s\n", buf);
			abort();
		}
		xmlFreeDoc(doc);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("<fuzz>", (const char *)data, size, &d);
	if (!m)
		return 0;
	struct lint_config cfg;
	config_init(&cfg);
	struct module_report mr;
	memset(&mr, 0, sizeof(mr));
	findings_init(&mr.findings, m);
	struct session *s = session_open(m, &cfg, NULL);
	if (lint_run(s, &cfg, &mr.findings) < 0)
		abort();
	session_close(s);
	hlo_module_free(m);
	struct report r = {&mr, 1, NULL, 0};
	for (int fmt = FMT_TEXT; fmt <= FMT_CHECKSTYLE; fmt++)
		render_and_check(&r, (enum report_format)fmt);
	findings_free(&mr.findings);
	config_free(&cfg);
	return 0;
}
