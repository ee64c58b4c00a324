/* cmd_explain.c - `hloproof explain FILE COPY`: the family, both removal
 * verdicts and the full evidence of one copy (--all: every copy; --hazards:
 * the hazards of the module as it stands). */
#include "cli.h"
#include "unmodelled.h"
#include "copies.h"
#include "hazard.h"
#include "report.h"
#include "session.h"
#include "smt.h"
#include <stdio.h>
#include <string.h>

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_ANALYSIS_OPTIONS,
		{"time-budget-ms", required_argument, 0, 'T'},
		{"all", no_argument, 0, 'a'},
		{"hazards", no_argument, 0, 'H'},
		{"summary", no_argument, 0, 's'},   /* for scripts (tests/conformance.sh) */
		{"names", required_argument, 0, 'n'},
		{"stats", no_argument, 0, 'Z'},
		{"jointly", no_argument, 0, 'J'},
		{0, 0, 0, 0},
	};
	struct analysis_options opt;
	analysis_default_options(&opt);
	struct cli_analysis ca;
	cli_analysis_init(&ca);
	const char *file = NULL, *name = NULL;
	int all = 0, hazards = 0, summary = 0, stats = 0, jointly = 0, ch, took;
	const char *names = NULL;
	long long budget_ms;
	optind = 1;
	while ((ch = cli_getopt("explain", argc, argv, "", opts)) != -1) {
		if ((took = cli_analysis_option("explain", ch, optarg, &ca)) < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (ch) {
		case 'T':
			if (cli_number("explain", &cli_time_budget_ms, optarg, &budget_ms))
				return EXIT_INPUT;
			budget_init(&opt.budget, budget_ms); /* the clock starts with the command */
			break;
		case 'a':
			all = 1;
			break;
		case 'H':
			hazards = 1;
			break;
		case 's':
			summary = 1;
			break;
		case 'n':
			names = optarg;
			break;
		case 'Z':
			stats = 1;
			break;
		case 'J':
			jointly = 1;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("explain", "bad option");
		}
	}
	cli_analysis_apply(&ca, &opt);
	if (argc - optind > 2)
		return cli_usage_error("explain", "too many arguments");
	if (optind < argc)
		file = argv[optind];
	if (optind + 1 < argc)
		name = argv[optind + 1];
	if (!file || (!name && !all && !hazards && !summary))
		return cli_usage_error("explain", "need FILE and COPY (or --all / --hazards)");
	char filebuf[CLI_PATH_MAX];
	if (!(file = cli_one_input("explain", file, filebuf)))
		return EXIT_INPUT;
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(file, &d);
	if (!m)
		return EXIT_INPUT;
	int status = EXIT_CLEAN;
	const struct hlo_instruction *c = NULL;
	/* the copy sites the name denotes (copysite.h): a fused copy's fusion,
	 * its inner copy, a copy-start or copy-done, "fusion{i}" */
	struct copy_site sites[64];
	int32_t n_sites = 0;
	if (name) {
		n_sites = copy_sites_named(m, &m->arena, name, sites, 64);
		c = hlo_find_instruction_any(m, name);
		if (!c && n_sites == 0) {
			fprintf(stderr, "%s: error: no instruction named '%s'\n", file, name);
			hlo_module_free(m);
			return EXIT_INPUT;
		}
		if (n_sites == 0 && c->opcode != OP_COPY) {
			fprintf(stderr, "%s:%d:%d: error: %s is a %s, not a copy\n", file, c->pos.line,
				c->pos.col, c->name, opcode_name((enum opcode)c->opcode));
			hlo_module_free(m);
			return EXIT_INPUT;
		}
		if (n_sites > 64)
			n_sites = 64;
	}
	/* a construct the analysis does not model: unknown, not bad input */
	struct diag ud;
	diag_init(&ud, NULL);
	if (unmodelled_report(m, &ud) < 0) {
		printf("unknown: %s\n", ud.first);
		hlo_module_free(m);
		return EXIT_INTERNAL;
	}
	struct session_options so = {0};
	session_options_from_parsed(&so, &opt);
	so.errors = stderr; /* every witness: witness_limit 0 */
	so.jointly = jointly;
	struct session *s = session_open(m, NULL, &so);
	struct analysis *an = session_analysis(s);
	if (!an) {
		session_close(s);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	/* --jointly: the verdicts given the other removals fix chooses */
	const struct copy_list *joint = NULL;
	if (jointly) {
		const struct copy_verdicts *cv = session_copy_verdicts(s);
		const char *msg = NULL;
		if (!cv) {
			session_why(s, &msg);
			printf("unknown: %s\n", msg ? msg : "the joint removals could not be decided");
			session_close(s);
			hlo_module_free(m);
			return EXIT_INTERNAL;
		}
		joint = &cv->copies;
	}
	if (joint && name) {
		char lb[600], want[600];
		int found = 0;
		for (int32_t k = 0; k < n_sites || (!n_sites && k == 0); k++) {
			if (n_sites)
				copy_site_name(&sites[k], want, sizeof(want));
			for (int32_t i = 0; i < joint->n; i++) {
				const struct copy_report *r = &joint->items[i];
				if (n_sites ? !strcmp(copy_site_name(&r->site, lb, sizeof(lb)), want) : r->copy == c) {
					report_explain_copy(stdout, r);
					found = 1;
				}
			}
		}
		if (!found)
			status = EXIT_INTERNAL;
	} else if (name && n_sites > 0) {
		for (int32_t i = 0; i < n_sites; i++) {
			struct copy_report r;
			if (session_copy_site(s, &sites[i], &r) < 0)
				status = EXIT_INTERNAL;
			else
				report_explain_copy(stdout, &r);
		}
	} else if (c) {
		struct copy_report r;
		if (session_copy_one(s, c, &r) < 0)
			status = EXIT_INTERNAL;
		else
			report_explain_copy(stdout, &r);
	}
	if (all) {
		const struct copy_list *cl = joint ? joint : session_copies(s);
		const struct copy_report *rs = cl ? cl->items : NULL;
		int32_t n = cl ? cl->n : 0;
		if (!cl)
			status = EXIT_INTERNAL;
		for (int32_t i = 0; i < n; i++) {
			report_explain_copy(stdout, &rs[i]);
			if (rs[i].unknown_reason && !strcmp(rs[i].unknown_reason, BUDGET_EXHAUSTED_REASON) &&
			    status == EXIT_CLEAN)
				status = EXIT_INTERNAL; /* unknown is not clean (docs/limits.md) */
		}
	}
	if (hazards) {
		const struct hazard_list *hl = session_hazards(s);
		const struct hazard_report *hs = hl ? hl->items : NULL;
		int32_t n = hl ? hl->n : -1;
		if (!hl)
			status = EXIT_INTERNAL;
		for (int32_t i = 0; i < n; i++)
			report_explain_hazard(stdout, &hs[i], session_hazard_repair_holds(s, &hs[i]));
		if (n == 0)
			printf("no hazards\n");
	}
	if (summary) {
		/* one line per copy and per hazard, for scripts (tests/conformance.sh) */
		const struct copy_list *cl = joint ? joint : session_copies(s);
		const struct copy_report *rs = cl ? cl->items : NULL;
		int32_t n = cl ? cl->n : 0;
		for (int32_t i = 0; i < n; i++)
			report_explain_summary_copy(stdout, &rs[i]);
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
		const struct hazard_list *hl = session_hazards(s);
		const struct hazard_report *hs = hl ? hl->items : NULL;
		n = hl ? hl->n : 0;
		for (int32_t i = 0; i < n; i++)
			report_explain_summary_hazard(stdout, &hs[i]);
	}
	if (stats)
		fprintf(stderr, "stats: %llu graph decisions, %llu solver problems (%llu unknown), %llu z3 checks\n",
			(unsigned long long)an->n_graph_queries, (unsigned long long)an->n_smt_queries,
			(unsigned long long)an->n_smt_unknown, (unsigned long long)smt_queries(an->smt));
	if (an->cross_check_failed) {
		fprintf(stderr, "hloproof: the graph decider and z3 disagree (see above)\n");
		status = EXIT_INTERNAL;
	}
	session_close(s);
	hlo_module_free(m);
	return status;
}
