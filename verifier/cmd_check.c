/* cmd_check.c - `hloproof check`: run the lint rules and report. */
#include "atomic_out.h"
#include "baseline.h"
#include "budget.h"
#include "cli.h"
#include "config.h"
#include "lint.h"
#include "report.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct check_opts {
	enum report_format format;
	const char *output, *config, *baseline, *write_baseline;
	const char *fail_on;
	long timeout_ms;          /* -1: from the configuration */
	long long budget_ms;      /* --time-budget-ms; -1: unlimited */
	int strict_donation;
	int n_toggles;
	const char **toggle_rule; /* --enable / --disable in order */
	int *toggle_on;
};

static int parse_opts(int argc, char **argv, struct check_opts *o)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"output", required_argument, 0, 'o'},
		{"config", required_argument, 0, 'c'},
		{"fail-on", required_argument, 0, 'F'},
		{"enable", required_argument, 0, 'e'},
		{"disable", required_argument, 0, 'd'},
		{"baseline", required_argument, 0, 'b'},
		{"write-baseline", required_argument, 0, 'w'},
		{"timeout-ms", required_argument, 0, 't'},
		{"strict-donation", no_argument, 0, 's'},
		{"time-budget-ms", required_argument, 0, 'T'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (report_format_parse(optarg, &o->format) < 0)
				return cli_usage_error("check", "unknown format '%s'", optarg);
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'F': {
			enum fail_on f;
			if (config_parse_fail_on(optarg, &f) < 0)
				return cli_usage_error("check", "--fail-on takes error, warning, note or none, not '%s'", optarg);
			o->fail_on = optarg;
			break;
		}
		case 'e':
		case 'd':
			if (!rule_lookup(optarg))
				return cli_usage_error("check", "unknown rule '%s' (see `hloproof rules`)", optarg);
			o->toggle_rule[o->n_toggles] = optarg;
			o->toggle_on[o->n_toggles++] = c == 'e';
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'w':
			o->write_baseline = optarg;
			break;
		case 't': {
			char *end;
			errno = 0;
			long t = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || t < 0)
				return cli_usage_error("check", "--timeout-ms takes a number of milliseconds, not '%s'", optarg);
			o->timeout_ms = t;
			break;
		}
		case 's':
			o->strict_donation = 1;
			break;
		case 'T':
			if (budget_parse_ms(optarg, &o->budget_ms) < 0)
				return cli_usage_error("check", "--time-budget-ms wants milliseconds, not '%s'", optarg);
			break;
		default:
			return cli_usage_error("check", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("check", "no input files");
	return 0;
}

/* Configuration: --config FILE, else .hloproof.xml above the current
 * directory, then the command line on top. */
static int setup_config(struct lint_config *cfg, const struct check_opts *o, struct diag *d)
{
	if (o->config) {
		if (config_load(cfg, o->config, d) < 0)
			return -1;
	} else {
		char *found = config_find(NULL);
		int rc = found ? config_load(cfg, found, d) : 0;
		free(found);
		if (rc < 0)
			return -1;
	}
	if (o->fail_on)
		config_parse_fail_on(o->fail_on, &cfg->fail_on);
	if (o->timeout_ms >= 0)
		cfg->timeout_ms = o->timeout_ms;
	if (o->strict_donation)
		cfg->strict_donation = 1;
	for (int i = 0; i < o->n_toggles; i++)
		config_set_rule(cfg, o->toggle_rule[i], o->toggle_on[i]);
	return 0;
}

static int fails(const struct report *r, enum fail_on level)
{
	if (level == FAIL_NONE)
		return 0;
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++)
			if (finding_reported(&fs->items[i]) && (int)fs->items[i].severity >= (int)level)
				return 1;
	}
	return 0;
}

static int write_report(const struct check_opts *o, const struct report *r, struct diag *d)
{
	struct atomic_out of;
	if (atomic_out_open(&of, o->output, d) < 0)
		return EXIT_INPUT;
	struct report_options ro = {0};
	ro.color = o->format == FMT_TEXT && of.f == stdout && isatty(STDOUT_FILENO) &&
		   !getenv("NO_COLOR");
	if (report_write(of.f, o->format, r, &ro) < 0) {
		atomic_out_abort(&of);
		error_at(d, (struct srcpos){o->output ? o->output : "<stdout>", 0, 0},
			 "cannot write the report");
		return EXIT_INTERNAL;
	}
	return atomic_out_commit(&of, d) < 0 ? EXIT_INTERNAL : EXIT_CLEAN;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = {0};
	o.timeout_ms = -1;
	o.budget_ms = -1;
	o.toggle_rule = calloc((size_t)argc + 1, sizeof(*o.toggle_rule));
	o.toggle_on = calloc((size_t)argc + 1, sizeof(*o.toggle_on));
	struct diag d;
	diag_init(&d, stderr);
	struct lint_config cfg;
	config_init(&cfg);
	struct baseline base = {0};
	struct report rep = {0};
	char **files = NULL;
	int status = EXIT_CLEAN, internal = 0, not_checked = 0;
	struct budget budget;

	if (!o.toggle_rule || !o.toggle_on) {
		status = EXIT_INTERNAL;
		goto out;
	}
	if (parse_opts(argc, argv, &o) != 0 || setup_config(&cfg, &o, &d) < 0 ||
	    (o.baseline && baseline_load(&base, o.baseline, &d) < 0)) {
		status = EXIT_INPUT;
		goto out;
	}
	budget_init(&budget, o.budget_ms);
	files = cli_expand_inputs(argc - optind, argv + optind);
	if (!files) {
		status = EXIT_INPUT;
		goto out;
	}
	size_t n_files = 0;
	while (files[n_files])
		n_files++;
	/* inputs are never written (docs/limits.md) */
	for (size_t i = 0; i < n_files; i++) {
		const char *out = atomic_out_same_file(files[i], o.output) ? o.output
				: atomic_out_same_file(files[i], o.write_baseline) ? o.write_baseline : NULL;
		if (out) {
			status = cli_usage_error("check", "output file '%s' is the input %s", out, files[i]);
			goto out;
		}
	}
	rep.modules = calloc(n_files ? n_files : 1, sizeof(*rep.modules));
	if (!rep.modules) {
		status = EXIT_INTERNAL;
		goto out;
	}
	for (size_t i = 0; i < n_files; i++) {
		struct diag pd;
		diag_init(&pd, stderr);
		struct hlo_module *m = hlo_parse_file(files[i], &pd);
		if (!m) {
			rep.files_failed++;
			continue;
		}
		struct module_report *mr = &rep.modules[rep.n_modules++];
		findings_init(&mr->findings, m);
		struct rule_ctx stages = {.budget = &budget};
		int rc = lint_run_stages(m, &cfg, &stages, &mr->findings);
		if (rc < 0) {
			fprintf(stderr, "%s: error: internal error in a rule; results are incomplete\n",
				files[i]);
			internal = 1;
		} else if (rc > 0) {
			not_checked = 1;
		}
		hlo_module_free(m);
	}
	if (o.baseline) {
		baseline_apply(&base, &rep);
		rep.baseline = &base;
	}
	if (o.write_baseline && baseline_write(o.write_baseline, &rep, &d) < 0) {
		status = EXIT_INPUT;
		goto out;
	}
	status = write_report(&o, &rep, &d);
	if (status != EXIT_CLEAN)
		goto out;
	if (internal)
		status = EXIT_INTERNAL;
	else if (rep.files_failed)
		status = EXIT_INPUT;
	else if (!o.write_baseline && fails(&rep, cfg.fail_on))
		status = EXIT_FINDINGS;
	else if (not_checked)
		status = EXIT_INTERNAL; /* unknown is not clean (docs/limits.md) */
out:
	for (size_t i = 0; i < rep.n_modules; i++)
		findings_free(&rep.modules[i].findings);
	free(rep.modules);
	baseline_free(&base);
	cli_free_inputs(files);
	config_free(&cfg);
	free(o.toggle_rule);
	free(o.toggle_on);
	return status;
}
