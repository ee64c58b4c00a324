/* cmd_prove_removal.c - `hloproof prove-removal FILE COPY [--schedule=given|any]`:
 * exit 0 when removing the copy is proven safe, 1 when refuted (the witness
 * is printed), 3 when unknown. */
#include "cli.h"
#include "unmodelled.h"
#include "copies.h"
#include "report.h"
#include "session.h"
#include <stdio.h>
#include <string.h>

int cmd_prove_removal(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_ANALYSIS_OPTIONS,
		{"time-budget-ms", required_argument, 0, 'T'},
		{"schedule", required_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct analysis_options opt;
	analysis_default_options(&opt);
	struct cli_analysis ca;
	cli_analysis_init(&ca);
	const char *file = NULL, *name = NULL, *sched = NULL;
	int ch, took;
	long long budget_ms;
	optind = 1;
	while ((ch = cli_getopt("prove-removal", argc, argv, "", opts)) != -1) {
		if ((took = cli_analysis_option("prove-removal", ch, optarg, &ca)) < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (ch) {
		case 'T':
			if (cli_number("prove-removal", &cli_time_budget_ms, optarg, &budget_ms))
				return EXIT_INPUT;
			budget_init(&opt.budget, budget_ms);
			break;
		case 'h':
			sched = optarg;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("prove-removal", "bad option");
		}
	}
	cli_analysis_apply(&ca, &opt);
	if (argc - optind > 2)
		return cli_usage_error("prove-removal", "too many arguments");
	if (optind < argc)
		file = argv[optind];
	if (optind + 1 < argc)
		name = argv[optind + 1];
	if (!file || !name)
		return cli_usage_error("prove-removal", "need FILE and COPY");
	if (sched && strcmp(sched, "given") && strcmp(sched, "any"))
		return cli_usage_error("prove-removal", "--schedule is given or any, not '%s'", sched);
	char filebuf[CLI_PATH_MAX];
	if (!(file = cli_one_input("prove-removal", file, filebuf)))
		return EXIT_INPUT;
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(file, &d);
	if (!m)
		return EXIT_INPUT;
	int use_given = sched ? !strcmp(sched, "given") : m->is_scheduled;
	if (use_given && !m->is_scheduled) {
		fprintf(stderr, "%s: error: --schedule=given needs a scheduled module (is_scheduled=true)\n",
			file);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	/* a copy, a fused copy (its fusion or inner copy, "fusion{i}" for one
	 * output), a copy-start or copy-done (copysite.h) */
	struct copy_site site[2];
	int32_t n_sites = copy_sites_named(m, &m->arena, name, site, 2);
	const struct hlo_instruction *c = hlo_find_instruction_any(m, name);
	if (n_sites > 1) {
		fprintf(stderr, "%s: error: %s names %d copies (the outputs of a multi-output fusion): "
			"name one as %s{N}\n", file, name, n_sites, site[0].at->name);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	if (n_sites == 0 && (!c || c->opcode != OP_COPY)) {
		fprintf(stderr, "%s: error: %s\n", file, c ? "not a copy" : "no such instruction");
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	/* a construct the analysis does not model: unknown, not bad input */
	struct diag ud;
	diag_init(&ud, NULL);
	if (unmodelled_report(m, &ud) < 0) {
		printf("%s: unknown: %s\n", name, ud.first);
		hlo_module_free(m);
		return EXIT_UNKNOWN;
	}
	struct session_options so = {0};
	session_options_from_parsed(&so, &opt);
	so.errors = stderr;
	struct session *s = session_open(m, NULL, &so);
	struct analysis *an = session_analysis(s);
	if (!an) {
		session_close(s);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	struct copy_report r;
	int status;
	if ((n_sites == 1 ? session_copy_site(s, &site[0], &r) : session_copy_one(s, c, &r)) < 0) {
		status = EXIT_INTERNAL;
	} else {
		enum verdict v = use_given ? r.given : r.any;
		status = v == VERDICT_REMOVABLE ? EXIT_CLEAN
			 : v == VERDICT_UNKNOWN ? EXIT_UNKNOWN : EXIT_FINDINGS;
		report_prove_removal(stdout, &r, use_given);
	}
	if (an->cross_check_failed) {
		fprintf(stderr, "hloproof: the graph decider and z3 disagree (see above)\n");
		status = EXIT_INTERNAL;
	}
	session_close(s);
	hlo_module_free(m);
	return status;
}
