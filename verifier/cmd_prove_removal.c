/* cmd_prove_removal.c - `hloproof prove-removal FILE COPY [--schedule=given|any]`:
 * exit 0 when removing the copy is proven safe, 1 when refuted (the witness
 * is printed), 3 when unknown. */
#include "cli.h"
#include "copies.h"
#include <stdio.h>
#include <string.h>

int cmd_prove_removal(int argc, char **argv)
{
	struct analysis_options opt;
	analysis_default_options(&opt);
	const char *file = NULL, *name = NULL, *sched = NULL;
	for (int i = 1; i < argc;) {
		int r = analysis_parse_option(&opt, argc, argv, &i);
		if (r < 0)
			return cli_usage_error("prove-removal", "bad option value");
		if (r > 0)
			continue;
		if (!strncmp(argv[i], "--schedule=", 11)) {
			sched = argv[i] + 11;
		} else if (!strcmp(argv[i], "--schedule") && i + 1 < argc) {
			sched = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("prove-removal", "unknown option '%s'", argv[i]);
		} else if (!file) {
			file = argv[i];
		} else if (!name) {
			name = argv[i];
		} else {
			return cli_usage_error("prove-removal", "too many arguments");
		}
		i++;
	}
	if (!file || !name)
		return cli_usage_error("prove-removal", "need FILE and COPY");
	if (sched && strcmp(sched, "given") && strcmp(sched, "any"))
		return cli_usage_error("prove-removal", "--schedule is given or any, not '%s'", sched);
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
	const struct hlo_instruction *c = hlo_find_instruction_any(m, name);
	if (!c || c->opcode != OP_COPY) {
		fprintf(stderr, "%s: error: %s\n", file, c ? "not a copy" : "no such instruction");
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	struct analysis *an = analysis_run(m, &opt, &d);
	if (!an) {
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	struct copy_report r;
	int status;
	if (copy_analyse_one(an, c, &r) < 0) {
		status = EXIT_INTERNAL;
	} else {
		enum verdict v = use_given ? r.given : r.any;
		const char *sname = use_given ? "the given schedule" : "every schedule";
		switch (v) {
		case VERDICT_REMOVABLE:
			printf("%s: removal proven safe under %s (family %s, %llu bytes saved)\n", c->name,
			       sname, copy_family_name(r.family), (unsigned long long)r.bytes);
			status = EXIT_CLEAN;
			break;
		case VERDICT_UNKNOWN:
			printf("%s: unknown: %s\n", c->name, r.unknown_reason ? r.unknown_reason : "?");
			status = EXIT_UNKNOWN;
			break;
		default:
			printf("%s: removal refuted under %s: %s\n", c->name, sname, verdict_name(v));
			for (int32_t i = 0; !use_given && i < r.n_edges; i++)
				printf("  safe with the control edge %s -> %s%s\n", r.edges_from[i]->name,
				       r.edges_to[i]->name, r.n_edges > 1 ? " (all listed edges together)" : "");
			status = EXIT_FINDINGS;
			break;
		}
		printf("%s", r.evidence ? r.evidence : "");
	}
	if (an->cross_check_failed) {
		fprintf(stderr, "hloproof: the graph decider and z3 disagree (see above)\n");
		status = EXIT_INTERNAL;
	}
	analysis_free(an);
	hlo_module_free(m);
	return status;
}
