/* cmd_fix.c - `hloproof fix [-o FILE] [--diff] [--schedule=given|any]
 * [--objective=bytes|count] FILE`: remove copies together, optimally, with a
 * proof (fix.h, docs/fix.md). Exit 0 when the result is verified (something
 * removed or nothing to remove) and every copy was decided; 3 when the
 * module or a copy could not be decided (what was verified is still
 * written) or the result could not be verified (nothing is written); 2 on
 * bad input or usage. */
#include "atomic_out.h"
#include "cli.h"
#include "fix.h"
#include "fixdiff.h"
#include "report_fix.h"
#include "session.h"
#include "unmodelled.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed module as text, checked to parse back to itself and to print
 * the same again (hloproof print). malloc'd; NULL with err on a mismatch. */
static char *fixed_text(const struct hlo_module *w, size_t *len, char *err, size_t cap)
{
	char *s = NULL, *s2 = NULL;
	size_t n = 0, n2 = 0;
	FILE *f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	hlo_print_module(f, w);
	fclose(f);
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *back = hlo_parse(w->file, s, n, &d);
	char why[512] = "";
	int ok = back && hlo_module_equal(back, w, why, sizeof(why));
	if (ok && (f = open_memstream(&s2, &n2)) != NULL) {
		hlo_print_module(f, back);
		fclose(f);
		ok = n2 == n && !memcmp(s, s2, n);
		if (!ok)
			snprintf(why, sizeof(why), "printing it again gives another text");
	}
	if (!back)
		snprintf(why, sizeof(why), "%s", d.first);
	hlo_module_free(back);
	free(s2);
	if (!ok) {
		snprintf(err, cap, "the fixed module's text does not parse back to it: %s", why);
		free(s);
		return NULL;
	}
	*len = n;
	return s;
}

int cmd_fix(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_ANALYSIS_OPTIONS,
		{"time-budget-ms", required_argument, 0, 'T'},
		{"output", required_argument, 0, 'o'},
		{"diff", no_argument, 0, 'd'},
		{"schedule", required_argument, 0, 'h'},
		{"objective", required_argument, 0, 'b'},
		{"format", required_argument, 0, 'f'},
		{0, 0, 0, 0},
	};
	struct analysis_options opt;
	analysis_default_options(&opt);
	struct cli_analysis ca;
	cli_analysis_init(&ca);
	const char *output = NULL, *sched = NULL, *objective = NULL, *format = "text";
	int diff = 0, ch, took;
	long long budget_ms;
	optind = 1;
	while ((ch = cli_getopt("fix", argc, argv, "o:", opts)) != -1) {
		if ((took = cli_analysis_option("fix", ch, optarg, &ca)) < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (ch) {
		case 'T':
			if (cli_number("fix", &cli_time_budget_ms, optarg, &budget_ms))
				return EXIT_INPUT;
			budget_init(&opt.budget, budget_ms);
			break;
		case 'o':
			output = optarg;
			break;
		case 'd':
			diff = 1;
			break;
		case 'h':
			sched = optarg;
			break;
		case 'b':
			objective = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("fix", "bad option");
		}
	}
	cli_analysis_apply(&ca, &opt);
	if (argc - optind != 1)
		return cli_usage_error("fix", "expects exactly one FILE");
	if (sched && strcmp(sched, "given") && strcmp(sched, "any"))
		return cli_usage_error("fix", "--schedule is given or any, not '%s'", sched);
	if (objective && strcmp(objective, "bytes") && strcmp(objective, "count"))
		return cli_usage_error("fix", "--objective is bytes or count, not '%s'", objective);
	if (strcmp(format, "text") && strcmp(format, "json"))
		return cli_usage_error("fix", "--format is text or json, not '%s'", format);
	char filebuf[CLI_PATH_MAX];
	const char *file = cli_one_input("fix", argv[optind], filebuf);
	if (!file)
		return EXIT_INPUT;
	if (output && atomic_out_same_file(file, output))
		return cli_usage_error("fix", "output file '%s' is the input", output);
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(file, &d);
	if (!m)
		return EXIT_INPUT;
	int use_given = sched ? !strcmp(sched, "given") : m->is_scheduled;
	if (use_given && !m->is_scheduled) {
		fprintf(stderr, "%s: error: --schedule=given needs a scheduled module (is_scheduled=true)\n", file);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	const char *why = sched ? (use_given ? "--schedule=given" : "--schedule=any")
				: (use_given ? "the module is scheduled" : "the module is not scheduled");
	FILE *rep = diff ? stderr : stdout;
	struct diag ud;
	diag_init(&ud, NULL);
	if (unmodelled_report(m, &ud) < 0) {
		fprintf(rep, "%s: fix: unknown: %s\n", file, ud.first);
		hlo_module_free(m);
		return EXIT_INTERNAL;
	}
	struct session_options so = {0};
	session_options_from_parsed(&so, &opt);
	so.errors = stderr;
	so.witness_limit = HAZARD_WITNESSES_SHOWN;
	/* every edge fix adds is verified on the rewritten module: the
	 * verdicts' own re-checks (a module analysed again per copy) would be
	 * done twice */
	so.no_repair_check = 1;
	struct session *s = session_open(m, NULL, &so);
	struct fix_options fo = {0};
	fo.use_given = use_given;
	fo.count = objective && !strcmp(objective, "count");
	fo.timeout_ms = opt.timeout_ms;
	fo.budget = &opt.budget;
	const struct fix_result *fr = session_fix(s, &fo);
	int status = EXIT_CLEAN;
	if (!fr) {
		const char *msg = NULL;
		session_why(s, &msg);
		fprintf(rep, "%s: fix: unknown: %s\n", file, msg ? msg : "the module could not be analysed");
		session_close(s);
		hlo_module_free(m);
		return EXIT_INTERNAL;
	}
	char err[1024] = "";
	char *text = NULL;
	size_t text_len = 0;
	struct fix_diff fd;
	memset(&fd, 0, sizeof(fd));
	int have_diff = 0;
	struct fix_result failed;
	if (!fr->failed && output && !(text = fixed_text(fr->fixed, &text_len, err, sizeof(err))))
		status = EXIT_INTERNAL;
	if (!fr->failed && status == EXIT_CLEAN && diff) {
		if (fix_diff_build(m, fr->fixed, &fd, err, sizeof(err)) < 0)
			status = EXIT_INTERNAL;
		else
			have_diff = 1;
	}
	if (status != EXIT_CLEAN) {
		/* a result that cannot be written as asked is not claimed */
		failed = *fr;
		failed.failed = 1;
		failed.failure = err;
		fr = &failed;
	}
	if (fr->failed)
		status = EXIT_INTERNAL;
	if (status == EXIT_CLEAN && output) {
		struct atomic_out of;
		if (atomic_out_open(&of, output, &d) < 0) {
			status = EXIT_INPUT;
		} else if (fwrite(text, 1, text_len, of.f) != text_len) {
			atomic_out_abort(&of);
			fprintf(stderr, "%s: error: cannot write the fixed module\n", output);
			status = EXIT_INTERNAL;
		} else if (atomic_out_commit(&of, &d) < 0) {
			status = EXIT_INTERNAL;
		}
	}
	if (status == EXIT_CLEAN && have_diff && report_fix_diff(stdout, &fd, file) < 0)
		status = EXIT_INTERNAL;
	const char *stage_why = NULL;
	if (session_stage(s, &stage_why) != STAGE_BEFORE)
		stage_why = NULL;
	struct fix_view v = {file, fr, why, stage_why, status == EXIT_CLEAN ? output : NULL};
	if ((!strcmp(format, "json") ? report_fix_json(rep, &v) : report_fix_text(rep, &v)) < 0)
		status = EXIT_INTERNAL;
	/* copies left undecided: what was removed stands, the question does not */
	if (status == EXIT_CLEAN && fr->n_unknown > 0)
		status = EXIT_INTERNAL;
	struct analysis *an = session_analysis_built(s);
	if (an && an->cross_check_failed) {
		fprintf(stderr, "hloproof: the graph decider and z3 disagree (see above)\n");
		status = EXIT_INTERNAL;
	}
	free(text);
	if (have_diff)
		fix_diff_free(&fd);
	session_close(s);
	hlo_module_free(m);
	return status;
}
