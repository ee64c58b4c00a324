/* fuzz_donation.c - libFuzzer target: parse, run the donation decider and
 * every rule with its results (a session and lint_run), check what the
 * reports promise (one per alias and distinct donor, a verdict and evidence
 * each) and render the JSON report, which must re-parse. */
#include "analysis.h"
#include "config.h"
#include "donation.h"
#include "lint.h"
#include "session.h"
#include "ir.h"
#include "report.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const struct donation_list *dl = session_donations(s);
	mr.donation_verdicts = dl ? donation_summaries_make(dl->items, dl->n) : NULL;
	session_close(s);
	if ((m->n_aliases || m->n_donors) && m->entry && m->entry->root) {
		if (!mr.donation_verdicts || mr.donation_verdicts->n < m->n_aliases)
			abort();
		for (int32_t i = 0; i < mr.donation_verdicts->n; i++) {
			const struct donation_summary *s = &mr.donation_verdicts->items[i];
			if (s->any == VERDICT_NONE || !s->evidence ||
			    (s->given == VERDICT_NONE) != !m->is_scheduled)
				abort();
		}
	}
	hlo_module_free(m);
	struct report r = {&mr, 1, NULL, 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_options o = {0};
	if (report_write(f, FMT_JSON, &r, &o) < 0)
		abort();
	fclose(f);
	json_error_t err;
	json_t *j = json_loadb(buf, len, 0, &err);
	if (!j) {
		fprintf(stderr, "report does not parse: %s\n", err.text);
		abort();
	}
	json_decref(j);
	free(buf);
	findings_free(&mr.findings);
	donation_summaries_free(mr.donation_verdicts);
	config_free(&cfg);
	return 0;
}
