/* report_explain.c - `hloproof explain` in text: one copy's family, verdicts
 * and evidence; one hazard; the --summary lines; and `prove-removal`'s
 * answer. */
#include "copies.h"
#include "lines.h"
#include "hazard.h"
#include "report.h"
#include <string.h>

static const char *verdict_or_null(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "null";
}

void report_explain_copy(FILE *out, const struct copy_report *r)
{
	const struct hlo_instruction *c = r->copy;
	const struct copy_site *st = &r->site;
	char label[512];
	copy_site_name(st, label, sizeof(label));
	fprintf(out, "%s (%s:%d, computation %s): family %s\n", label,
		c->pos.file ? c->pos.file : "?", c->pos.line, c->parent->name,
		copy_family_name(r->family));
	if (st->kind == COPY_KIND_FUSED)
		fprintf(out, "  kind: fused (%s%s%sfusion %s, fused computation %s, copy %s of parameter %d)\n",
			st->output >= 0 ? "output " : "", st->output >= 0 ? label + strlen(c->name) : "",
			st->output >= 0 ? " of " : "", c->name,
			c->ext->calls ? c->ext->calls->name : "?", st->inner ? st->inner->name : "?", st->operand);
	else if (st->kind == COPY_KIND_ASYNC)
		fprintf(out, "  kind: async (copy-start %s, copy-done %s)\n", c->name,
			st->done ? st->done->name : "none");
	fprintf(out, "  why: %s\n", r->family_evidence ? r->family_evidence : "");
	fprintf(out, "  bytes: %llu\n", (unsigned long long)r->bytes);
	fprintf(out, "  verdict.given: %s\n", verdict_or_null(r->given));
	fprintf(out, "  verdict.any: %s\n", verdict_or_null(r->any));
	if (r->n_edges > 1) {
		fprintf(out, "  control edges (all needed):");
		for (int32_t i = 0; i < r->n_edges; i++)
			fprintf(out, "%s %s -> %s", i ? "," : "", r->edges_from[i]->name, r->edges_to[i]->name);
		fprintf(out, "\n");
	} else if (r->edge_from && r->edge_to) {
		fprintf(out, "  control edge: %s -> %s\n", r->edge_from->name, r->edge_to->name);
	}
	if (r->unknown_reason)
		fprintf(out, "  unknown: %s\n", r->unknown_reason);
	fprintf(out, "  evidence:\n");
	size_t n;
	for (const char *p = r->evidence, *l; (l = line_next(&p, &n));)
		fprintf(out, "    %.*s\n", (int)n, l);
}

void report_explain_hazard(FILE *out, const struct hazard_report *h, int repair_holds)
{
	fprintf(out, "hazard %s: %s\n", hazard_kind_name(h->kind), h->witness ? h->witness : "");
	fprintf(out, "  in given: %s, in some schedule: %s, in every schedule: %s\n",
		h->in_given < 0 ? "null" : h->in_given ? "yes" : "no", h->in_some ? "yes" : "no",
		h->in_every ? "yes" : "no");
	if (repair_holds)
		fprintf(out, "  avoided by: control edge %s -> %s\n", h->edge_from->name, h->edge_to->name);
	fprintf(out, "  predicted copy: %s, %llu bytes\n", copy_family_name(h->predicted_family),
		(unsigned long long)h->bytes);
}

void report_explain_summary_copy(FILE *out, const struct copy_report *r)
{
	char label[512];
	fprintf(out, "copy %s %s %s %s %s\n", copy_site_name(&r->site, label, sizeof(label)),
		r->copy->parent->name, copy_family_name(r->family), verdict_or_null(r->given),
		verdict_or_null(r->any));
}

void report_explain_summary_hazard(FILE *out, const struct hazard_report *h)
{
	fprintf(out, "hazard %s %s %s %s %s %s %s %s\n", hazard_kind_name(h->kind), h->def_v->name,
		h->def_w ? h->def_w->name : "-", h->use ? h->use->name : "-",
		h->in_every ? "every" : "some", copy_family_name(h->predicted_family),
		h->def_v->parent->name, h->in_given < 0 ? "-" : h->in_given ? "given" : "not-given");
}

void report_prove_removal(FILE *out, const struct copy_report *r, int use_given)
{
	char label[512];
	copy_site_name(&r->site, label, sizeof(label));
	enum verdict v = use_given ? r->given : r->any;
	const char *sname = use_given ? "the given schedule" : "every schedule";
	switch (v) {
	case VERDICT_REMOVABLE:
		fprintf(out, "%s: removal proven safe under %s (family %s, %llu bytes saved)\n", label,
			sname, copy_family_name(r->family), (unsigned long long)r->bytes);
		break;
	case VERDICT_UNKNOWN:
		fprintf(out, "%s: unknown: %s\n", label, r->unknown_reason ? r->unknown_reason : "?");
		break;
	default:
		fprintf(out, "%s: removal refuted under %s: %s\n", label, sname, verdict_name(v));
		for (int32_t i = 0; !use_given && i < r->n_edges; i++)
			fprintf(out, "  safe with the control edge %s -> %s%s\n", r->edges_from[i]->name,
				r->edges_to[i]->name, r->n_edges > 1 ? " (all listed edges together)" : "");
		break;
	}
	fprintf(out, "%s", r->evidence ? r->evidence : "");
}
