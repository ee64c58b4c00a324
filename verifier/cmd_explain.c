/* cmd_explain.c - `hloproof explain FILE COPY`: the family, both removal
 * verdicts and the full evidence of one copy (--all: every copy; --hazards:
 * the hazards of the module as it stands). */
#include "cli.h"
#include "copies.h"
#include "repair.h"
#include "hazard.h"
#include "smt.h"
#include <stdio.h>
#include <string.h>

static const char *verdict_or_null(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "null";
}

void explain_print_copy(FILE *out, const struct copy_report *r);

void explain_print_copy(FILE *out, const struct copy_report *r)
{
	const struct hlo_instruction *c = r->copy;
	fprintf(out, "%s (%s:%d, computation %s): family %s\n", c->name,
		c->pos.file ? c->pos.file : "?", c->pos.line, c->parent->name,
		copy_family_name(r->family));
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
	const char *e = r->evidence ? r->evidence : "";
	while (*e) {
		const char *nl = strchr(e, '\n');
		size_t n = nl ? (size_t)(nl - e) : strlen(e);
		fprintf(out, "    %.*s\n", (int)n, e);
		e += n + (nl ? 1 : 0);
	}
}

/* The edge is named only when the module with it added no longer has this
 * hazard (repair.h). */
static void print_hazard(FILE *out, struct analysis *an, const struct hazard_report *h)
{
	fprintf(out, "hazard %s: %s\n", hazard_kind_name(h->kind), h->witness ? h->witness : "");
	fprintf(out, "  in given: %s, in some schedule: %s, in every schedule: %s\n",
		h->in_given < 0 ? "null" : h->in_given ? "yes" : "no", h->in_some ? "yes" : "no",
		h->in_every ? "yes" : "no");
	if (h->edge_from && h->edge_to &&
	    repair_avoids_value_hazards(an, 1, &h->edge_from, &h->edge_to, h, 1u << h->kind, 1) == 1)
		fprintf(out, "  avoided by: control edge %s -> %s\n", h->edge_from->name, h->edge_to->name);
	fprintf(out, "  predicted copy: %s, %llu bytes\n", copy_family_name(h->predicted_family),
		(unsigned long long)h->bytes);
}

int cmd_explain(int argc, char **argv)
{
	struct analysis_options opt;
	analysis_default_options(&opt);
	const char *file = NULL, *name = NULL;
	int all = 0, hazards = 0, summary = 0, stats = 0;
	const char *names = NULL;
	for (int i = 1; i < argc;) {
		int r = analysis_parse_option(&opt, argc, argv, &i);
		if (r < 0)
			return cli_usage_error("explain", "bad option value");
		if (r > 0)
			continue;
		if (!strcmp(argv[i], "--all")) {
			all = 1;
		} else if (!strcmp(argv[i], "--hazards")) {
			hazards = 1;
		} else if (!strcmp(argv[i], "--summary")) {
			summary = 1;
		} else if (!strcmp(argv[i], "--stats")) {
			stats = 1;
		} else if (!strncmp(argv[i], "--names=", 8)) {
			names = argv[i] + 8;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("explain", "unknown option '%s'", argv[i]);
		} else if (!file) {
			file = argv[i];
		} else if (!name) {
			name = argv[i];
		} else {
			return cli_usage_error("explain", "too many arguments");
		}
		i++;
	}
	if (!file || (!name && !all && !hazards && !summary))
		return cli_usage_error("explain", "need FILE and COPY (or --all / --hazards)");
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(file, &d);
	if (!m)
		return EXIT_INPUT;
	int status = EXIT_CLEAN;
	const struct hlo_instruction *c = NULL;
	if (name) {
		c = hlo_find_instruction_any(m, name);
		if (!c) {
			fprintf(stderr, "%s: error: no instruction named '%s'\n", file, name);
			hlo_module_free(m);
			return EXIT_INPUT;
		}
		if (c->opcode != OP_COPY) {
			fprintf(stderr, "%s:%d:%d: error: %s is a %s, not a copy\n", file, c->pos.line,
				c->pos.col, c->name, opcode_name((enum opcode)c->opcode));
			hlo_module_free(m);
			return EXIT_INPUT;
		}
	}
	struct analysis *an = analysis_run(m, &opt, &d);
	if (!an) {
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	if (c) {
		struct copy_report r;
		if (copy_analyse_one(an, c, &r) < 0)
			status = EXIT_INTERNAL;
		else
			explain_print_copy(stdout, &r);
	}
	if (all) {
		struct copy_report *rs;
		int32_t n = copies_analyse(an, &rs);
		if (n < 0)
			status = EXIT_INTERNAL;
		for (int32_t i = 0; i < n; i++) {
			explain_print_copy(stdout, &rs[i]);
			if (rs[i].unknown_reason && !strcmp(rs[i].unknown_reason, BUDGET_EXHAUSTED_REASON) &&
			    status == EXIT_CLEAN)
				status = EXIT_INTERNAL; /* unknown is not clean (docs/limits.md) */
		}
	}
	if (hazards) {
		struct hazard_report *hs;
		int32_t n = hazards_analyse(an, &hs);
		if (n < 0)
			status = EXIT_INTERNAL;
		for (int32_t i = 0; i < n; i++)
			print_hazard(stdout, an, &hs[i]);
		if (n == 0)
			printf("no hazards\n");
	}
	if (summary) {
		/* one line per copy and per hazard, for scripts (tests/conformance.sh) */
		struct copy_report *rs;
		int32_t n = copies_analyse(an, &rs);
		for (int32_t i = 0; i < n; i++)
			printf("copy %s %s %s %s %s\n", rs[i].copy->name, rs[i].copy->parent->name,
			       copy_family_name(rs[i].family), verdict_or_null(rs[i].given),
			       verdict_or_null(rs[i].any));
		/* --names=a,b: the defining instruction of each name's top-level value */
		for (const char *p = names; p && *p;) {
			const char *q = strchr(p, ',');
			size_t len = q ? (size_t)(q - p) : strlen(p);
			char nm[256];
			snprintf(nm, sizeof(nm), "%.*s", (int)(len < sizeof(nm) ? len : sizeof(nm) - 1), p);
			const struct hlo_instruction *x = hlo_find_instruction_any(m, nm);
			int32_t v = x ? dataflow_unique_value(an->df, x, 0) : -1;
			printf("name %s %s\n", nm, v >= 0 ? an->df->values[v].def->name : "-");
			p = q ? q + 1 : p + len;
		}
		struct hazard_report *hs;
		n = hazards_analyse(an, &hs);
		for (int32_t i = 0; i < n; i++) {
			const struct hazard_report *h = &hs[i];
			printf("hazard %s %s %s %s %s %s %s\n", hazard_kind_name(h->kind), h->def_v->name,
			       h->def_w ? h->def_w->name : "-", h->use ? h->use->name : "-",
			       h->in_every ? "every" : "some", copy_family_name(h->predicted_family),
			       h->def_v->parent->name);
		}
	}
	if (stats)
		fprintf(stderr, "stats: %llu graph decisions, %llu solver problems (%llu unknown), %llu z3 checks\n",
			(unsigned long long)an->n_graph_queries, (unsigned long long)an->n_smt_queries,
			(unsigned long long)an->n_smt_unknown, (unsigned long long)smt_queries(an->smt));
	if (an->cross_check_failed) {
		fprintf(stderr, "hloproof: the graph decider and z3 disagree (see above)\n");
		status = EXIT_INTERNAL;
	}
	analysis_free(an);
	hlo_module_free(m);
	return status;
}
