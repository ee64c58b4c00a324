/* cmd_buffers.c - `hloproof buffers`: every alias-analysis buffer of a module
 * with its values, their live ranges and the buffer's flags; the stages come
 * from a session, the writing is report_buffers.c's. */
#include "budget.h"
#include "cli.h"
#include "unmodelled.h"
#include "liveness.h"
#include "report_buffers.h"
#include "session.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_buffers(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"at", required_argument, 0, 'a'},
		{"ordering", required_argument, 0, 'o'},
		{"time-budget-ms", required_argument, 0, 'T'},
		{0, 0, 0, 0},
	};
	int json = 0, c;
	long long budget_ms = -1;
	const char *at_name = NULL;
	int kind = -1; /* default: dependency (what CPU copy insertion used) */
	optind = 1;
	while ((c = cli_getopt("buffers", argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (strcmp(optarg, "text"))
				return cli_usage_error("buffers", "unknown format '%s'", optarg);
			break;
		case 'a':
			at_name = optarg;
			break;
		case 'o':
			if (!strcmp(optarg, "dependency"))
				kind = ORDER_DEPENDENCY;
			else if (!strcmp(optarg, "sequential"))
				kind = ORDER_SEQUENTIAL;
			else
				return cli_usage_error("buffers", "unknown ordering '%s'", optarg);
			break;
		case 'T':
			if (cli_number("buffers", &cli_time_budget_ms, optarg, &budget_ms))
				return EXIT_INPUT;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("buffers", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("buffers", "no input files");
	char **files = cli_expand_inputs(argc - optind, argv + optind, NULL);
	if (!files)
		return EXIT_INPUT;
	struct budget budget;
	budget_init(&budget, budget_ms);
	int status = EXIT_CLEAN, n_out = 0, unknown = 0;
	if (json)
		fputs("{\"modules\":[", stdout);
	for (char **f = files; *f; f++) {
		/* A file not analysed within the budget is reported, not dropped. */
		if (budget_expired(&budget)) {
			unknown++;
			if (json) {
				if (n_out++)
					fputc(',', stdout);
				report_buffers_unknown_json(stdout, *f, BUDGET_EXHAUSTED_REASON);
			} else {
				printf("%s: unknown: %s\n", *f, BUDGET_EXHAUSTED_REASON);
			}
			continue;
		}
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (!m) {
			status = EXIT_INPUT;
			continue;
		}
		/* a construct the analysis does not model: unknown, not bad input */
		struct diag ud;
		diag_init(&ud, NULL);
		if (unmodelled_report(m, &ud) < 0) {
			unknown++;
			if (json) {
				if (n_out++)
					fputc(',', stdout);
				report_buffers_unknown_json(stdout, *f, ud.first);
			} else {
				printf("%s: unknown: %s\n", *f, ud.first);
			}
			hlo_module_free(m);
			continue;
		}
		struct buffers_view bc = {0};
		bc.m = m;
		bc.budget = &budget;
		/* the stages one at a time, each reporting its errors as it is built */
		struct session *s = session_open(m, NULL, NULL);
		bc.df = session_dataflow(s, &d);
		if (!bc.df) {
			status = EXIT_INPUT;
			session_close(s);
			hlo_module_free(m);
			continue;
		}
		const struct hlo_instruction *at = NULL;
		if (at_name) {
			at = hlo_find_instruction_any(m, at_name);
			if (!at) {
				fprintf(stderr, "%s: error: no instruction '%s'\n", *f, at_name);
				status = EXIT_INPUT;
				session_close(s);
				hlo_module_free(m);
				continue;
			}
		}
		bc.ip = session_inplace(s, &d);
		bc.bufs = session_buffers(s, &d);
		enum order_kind k = kind < 0 ? ORDER_DEPENDENCY : (enum order_kind)kind;
		if (k == ORDER_SEQUENTIAL && !m->is_scheduled) {
			fprintf(stderr, "%s: error: --ordering=sequential needs a scheduled module "
					"(is_scheduled=true)\n", *f);
			status = EXIT_INPUT;
			session_close(s);
			hlo_module_free(m);
			continue;
		}
		bc.ord = session_ordering(s, k, &d);
		if (!bc.ord) {
			status = EXIT_INPUT;
			session_close(s);
			hlo_module_free(m);
			continue;
		}
		liveness_init(&bc.lv, bc.df, bc.ip, bc.ord);
		bc.topological = !m->is_scheduled;
		bc.def_order = arena_array(&m->arena, (size_t)m->n_instrs + 1, sizeof(int32_t));
		buffers_view_number(&bc);
		if (json) {
			if (n_out++)
				fputc(',', stdout);
			report_buffers_json(stdout, &bc, at);
		} else
			report_buffers_text(stdout, &bc, at, order_kind_name(k));
		if (bc.n_budget_unknown) {
			unknown++;
			fprintf(stderr, "%s: %d interference test%s not decided: %s\n", *f,
				(int)bc.n_budget_unknown, bc.n_budget_unknown == 1 ? "" : "s",
				BUDGET_EXHAUSTED_REASON);
		}
		session_close(s);
		hlo_module_free(m);
	}
	if (json)
		fputs("]}\n", stdout);
	cli_free_inputs(files);
	/* Unknown is not clean; a definite input error still wins. */
	return unknown && status == EXIT_CLEAN ? EXIT_INTERNAL : status;
}
