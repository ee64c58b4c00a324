/* cmd_check.c - `hloproof check`: run the lint rules and report. */
#include "annotations.h"
#include "atomic_out.h"
#include "baseline.h"
#include "budget.h"
#include "cli.h"
#include "copies.h"
#include "hazard.h"
#include "config.h"
#include "donation.h"
#include "jobs.h"
#include "lint.h"
#include "session.h"
#include "report.h"
#include "smt.h"
#include <getopt.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct check_opts {
	struct cli_common co;     /* -o, --config, --annotations, --jobs, --timeout-ms, --smt-dump, --cross-check */
	enum report_format format;
	const char *baseline, *write_baseline;
	const char *fail_on;
	long long budget_ms;      /* --time-budget-ms; -1: unlimited */
	int strict_donation;
	int n_toggles;
	const char **toggle_rule; /* --enable / --disable in order */
	int *toggle_on;
	int stats;                /* --stats: one "stats:" line per module on stderr */
	char *source_root;        /* --source-root DIR (SARIF URI base), resolved; malloc'd */
	int color;                /* --color (enum cli_color) */
	long long min_bytes;      /* --min-bytes N: smaller findings counted, not listed; 0: all */
	int sort_position;        /* --sort=position (text; default cost) */
	int statistics, quiet;    /* --statistics, --quiet (text) */
	int jointly;              /* --jointly: each copy's verdict given fix's other removals */
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
		{"strict-donation", no_argument, 0, 's'},
		CLI_ANALYSIS_OPTIONS,
		{"annotations", required_argument, 0, 'A'},
		{"jobs", required_argument, 0, 'j'},
		{"frames", required_argument, 0, CLI_OPT_FRAMES},
		{"time-budget-ms", required_argument, 0, 'T'},
		{"stats", no_argument, 0, 'Z'},
		{"source-root", required_argument, 0, 'R'},
		{"color", required_argument, 0, 'K'},
		{"min-bytes", required_argument, 0, 'M'},
		{"sort", required_argument, 0, 'P'},
		{"statistics", no_argument, 0, 'Y'},
		{"quiet", no_argument, 0, 'q'},
		{"jointly", no_argument, 0, 'J'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = cli_getopt("check", argc, argv, "o:j:", opts)) != -1) {
		int took = cli_common_option("check", c, optarg, &o->co);
		if (took < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (c) {
		case 'f':
			if (report_format_parse(optarg, &o->format) < 0)
				return cli_usage_error("check", "unknown format '%s'", optarg);
			break;
		case 'F':
			if (cli_fail_on_option("check", "--fail-on", optarg, &o->fail_on))
				return EXIT_INPUT;
			break;
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
		case 's':
			o->strict_donation = 1;
			break;
		case 'Z':
			o->stats = 1;
			break;
		case 'M':
			if (cli_number("check", &cli_min_bytes, optarg, &o->min_bytes))
				return EXIT_INPUT;
			break;
		case 'P':
			if (strcmp(optarg, "cost") && strcmp(optarg, "position"))
				return cli_usage_error("check", "--sort takes cost or position, not '%s'", optarg);
			o->sort_position = !strcmp(optarg, "position");
			break;
		case 'Y':
			o->statistics = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'J':
			o->jointly = 1;
			break;
		case 'K':
			if (cli_color_option("check", optarg, &o->color))
				return EXIT_INPUT;
			break;
		case 'R':
			free(o->source_root);
			o->source_root = realpath(optarg, NULL);
			if (!o->source_root)
				return cli_usage_error("check", "--source-root: no directory '%s'", optarg);
			break;
		case 'T':
			if (cli_number("check", &cli_time_budget_ms, optarg, &o->budget_ms))
				return EXIT_INPUT;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
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
	if (cli_load_config(cfg, &o->co, d) < 0)
		return -1;
	if (o->fail_on)
		config_parse_fail_on(o->fail_on, &cfg->fail_on);
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

struct report_job {
	enum report_format format;
	const struct report *r;
	int fail_on;
	const char *source_root;
	int color;                /* --color */
	int sort_position, statistics, quiet;
};

/* For cli_write_report: colour as --color, NO_COLOR and FORCE_COLOR say. */
static int write_report(FILE *f, void *arg)
{
	const struct report_job *w = arg;
	struct report_options ro = {0};
	ro.fail_on = w->fail_on;
	ro.source_root = w->source_root;
	ro.color = w->format == FMT_TEXT && cli_color_on(w->color, f);
	ro.sort_position = w->sort_position;
	ro.statistics = w->statistics;
	ro.quiet = w->quiet;
	return report_write(f, w->format, w->r, &ro);
}

/* One input file, checked on whichever thread picks it up: it reads only the
 * shared configuration and writes only its own slot; what it would print on
 * stderr is kept in `diag` and printed in input order. */
struct check_job {
	const char *file;
	struct module_report *slot;
	int parsed, internal;
	int not_checked;          /* rules the time budget did not run */
	char *diag;
	size_t diag_len;
	char *stats;              /* --stats line, malloc'd */
	int fail_line, fail_col;  /* not parsed: the parser's first error, for the report */
	char fail_msg[sizeof(((struct diag *)0)->first)];
};

struct check_run {
	const struct lint_config *cfg;
	const struct check_opts *o;
	const struct annotations *ann;    /* --annotations, or NULL */
	const struct budget *budget;      /* --time-budget-ms, shared read-only */
	struct check_job *jobs;
	struct module_report *slots;
};

/* Every copy of a module the budget left unanalysed, or that the analysis
 * could not take: listed, verdict unknown (the family is not computed either:
 * "unexplained", with the reason). */
static struct copy_summaries *copy_summaries_unknown(const struct hlo_module *m,
						     const struct source_filter *frames, struct arena *a,
						     const char *reason)
{
	struct copy_site *sites;
	int32_t n = copy_sites(m, a, &sites);
	struct copy_summaries *s = arena_alloc(a, sizeof(*s));
	s->v = arena_array(a, (size_t)n + 1, sizeof(*s->v));
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *in = sites[i].at;
		struct copy_summary *o = &s->v[s->n++];
		o->name = arena_strdup(a, in->name);
		o->computation = arena_strdup(a, in->parent->name);
		o->kind = sites[i].kind;
		o->output = sites[i].output;
		o->done = sites[i].done ? arena_strdup(a, sites[i].done->name) : NULL;
		o->line = in->pos.line;
		o->family = FAMILY_UNEXPLAINED;
		o->given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		o->any = VERDICT_UNKNOWN;
		o->evidence = arena_strdup(a, reason);
		o->bytes = sites[i].to ? sites[i].to->bytes : 0;
		o->source = source_of(in, frames, a);
	}
	return s;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* --stats: the solver's share of one module's check, as key=value pairs
 * (bench/run.sh reads them; docs/performance.md). Queries count every check
 * sent to Z3 (--cross-check's too); a verdict is one buffer, copy removal or
 * value set decided, "graph" when it needed no query. */
static char *stats_line(const char *file, const struct analysis *an, double ms)
{
	const int32_t *sizes = NULL;
	const uint32_t *us = NULL;
	int32_t n = an ? smt_query_log(an->smt, &sizes, &us) : 0;
	int32_t *sz = malloc(((size_t)n + 1) * sizeof(int32_t));
	uint32_t *t = malloc(((size_t)n + 1) * sizeof(uint32_t));
	char *line = NULL;
	if (!sz || !t)
		goto out;
	if (n) {
		memcpy(sz, sizes, (size_t)n * sizeof(int32_t));
		memcpy(t, us, (size_t)n * sizeof(uint32_t));
	}
	qsort(sz, (size_t)n, sizeof(int32_t), cmp_i32);
	qsort(t, (size_t)n, sizeof(uint32_t), cmp_u32);
	unsigned long long v = an ? an->n_verdicts : 0, vs = an ? an->n_verdicts_smt : 0;
	if (asprintf(&line, "stats: %s: check_ms=%.1f smt_queries=%d constraints_median=%d "
		     "constraints_max=%d query_ms_median=%.3f query_ms_max=%.3f verdicts=%llu "
		     "graph_verdicts=%llu graph_share=%.1f%%\n",
		     file, ms, n, n ? sz[(n - 1) / 2] : 0, n ? sz[n - 1] : 0,
		     n ? t[(n - 1) / 2] / 1e3 : 0.0, n ? t[n - 1] / 1e3 : 0.0, v, v - vs,
		     v ? 100.0 * (double)(v - vs) / (double)v : 100.0) < 0)
		line = NULL;
out:
	free(sz);
	free(t);
	return line;
}

static void check_one(void *arg, size_t i)
{
	struct timespec t_start;
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	struct check_run *run = arg;
	struct check_job *j = &run->jobs[i];
	FILE *err = open_memstream(&j->diag, &j->diag_len);
	struct diag pd;
	diag_init(&pd, err ? err : stderr);
	struct hlo_module *m = hlo_parse_file(j->file, &pd);
	if (!m) {
		j->fail_line = pd.first_pos.line;
		j->fail_col = pd.first_pos.col;
		snprintf(j->fail_msg, sizeof(j->fail_msg), "%s", pd.errors ? pd.first : "cannot parse");
		goto done;
	}
	j->parsed = 1;
	j->slot = &run->slots[i];
	struct session_options so = {0};
	session_options_for_rules(&so);
	so.smt_dump_dir = run->o->co.an.smt_dump;
	so.cross_check = run->o->co.an.cross_check;
	so.stage = (enum module_stage)run->o->co.an.stage;
	so.budget = run->budget;
	so.annotations = run->ann;
	so.jointly = run->o->jointly;
	struct session *s = session_open(m, run->cfg, &so);
	/* the copy decider: verdicts for the rules and the report. Past the
	 * budget no decider runs; the copies are listed unknown below and
	 * every rule reports itself not checked (lint_run) */
	const struct copy_verdicts *cv = session_copy_verdicts(s);
	const char *why = NULL;
	int expired = !cv && session_why(s, &why) == SESSION_TIME_BUDGET;
	/* not analysable (a construct it does not model, unmodelled.h): every
	 * copy unknown with the reason, a note saying so, exit 3 */
	const char *failed = cv || expired ? NULL : why ? why : "the module cannot be analysed";
	struct module_report *mr = j->slot;
	findings_init(&mr->findings, m);
	mr->findings.frames = &run->cfg->frames;
	/* the rules that say so (RULE_UNKNOWN_NOTE) note an undecided module */
	for (const struct rule *const *r = rule_registry; failed && *r; r++) {
		if (!((*r)->flags & RULE_UNKNOWN_NOTE) || !config_rule_enabled(run->cfg, *r))
			continue;
		char *msg = NULL;
		if (asprintf(&msg, "copy verdicts unknown: %s", failed) >= 0)
			findings_add(&mr->findings, *r, SEV_NOTE, NULL, session_why_pos(s), "analysis",
				     msg);
		free(msg);
	}
	/* the donations next (they outlive the module in the report), then the rules */
	const struct donation_list *dl = session_donations(s);
	mr->donation_verdicts = dl ? donation_summaries_make(m, dl->items, dl->n, &run->cfg->frames) : NULL;
	if (lint_run(s, run->cfg, &mr->findings) < 0) {
		fprintf(pd.out, "%s: error: internal error in a rule; results are incomplete\n",
			j->file);
		j->internal = 1;
	}
	const struct source_filter *frames = &run->cfg->frames;
	mr->copies = expired ? copy_summaries_unknown(m, frames, &mr->findings.arena, BUDGET_EXHAUSTED_REASON)
		     : failed ? copy_summaries_unknown(m, frames, &mr->findings.arena, failed)
			      : copy_summaries_build(cv, frames, &mr->findings.arena);
	j->not_checked |= failed != NULL;
	/* a copy left unknown is not a clean result either (docs/limits.md) */
	for (int32_t k = 0; mr->copies && k < mr->copies->n; k++)
		if (mr->copies->v[k].any == VERDICT_UNKNOWN || mr->copies->v[k].given == VERDICT_UNKNOWN)
			j->not_checked = 1;
	for (int32_t k = 0; k < mr->findings.n; k++)
		if (!strcmp(mr->findings.items[k].message, LINT_NOT_CHECKED))
			j->not_checked = 1;
	struct analysis *an = session_analysis_built(s);
	if (an && an->cross_check_failed) {
		fprintf(pd.out, "%s: error: the graph decider and z3 disagree (--cross-check)\n",
			j->file);
		j->internal = 1;
	}
	if (run->o->stats)
		j->stats = stats_line(j->file, an, ms_since(&t_start));
	session_close(s);
	hlo_module_free(m);
done:
	if (err)
		fclose(err);
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = {0};
	cli_common_init(&o.co);
	o.budget_ms = -1;
	o.toggle_rule = calloc((size_t)argc + 1, sizeof(*o.toggle_rule));
	o.toggle_on = calloc((size_t)argc + 1, sizeof(*o.toggle_on));
	struct diag d;
	diag_init(&d, stderr);
	struct lint_config cfg;
	config_init(&cfg);
	struct baseline base = {0};
	struct report rep = {0};
	struct annotations ann = {0};
	struct check_job *jobs = NULL;
	struct input_failure *failed = NULL;
	char **files = NULL;
	int status = EXIT_CLEAN, internal = 0, not_checked = 0;
	struct budget budget;

	if (!o.toggle_rule || !o.toggle_on) {
		status = EXIT_INTERNAL;
		goto out;
	}
	if (parse_opts(argc, argv, &o) != 0 || setup_config(&cfg, &o, &d) < 0 ||
	    (o.baseline && baseline_load(&base, o.baseline, &d) < 0) ||
	    (o.co.annotations && annotations_load(&ann, o.co.annotations, &d) < 0)) {
		status = EXIT_INPUT;
		goto out;
	}
	budget_init(&budget, o.budget_ms);
	files = cli_expand_inputs(argc - optind, argv + optind, NULL);
	if (!files) {
		status = EXIT_INPUT;
		goto out;
	}
	size_t n_files = 0;
	while (files[n_files])
		n_files++;
	/* inputs are never written (docs/limits.md) */
	for (size_t i = 0; i < n_files; i++) {
		const char *w = atomic_out_same_file(files[i], o.co.output) ? o.co.output
			      : atomic_out_same_file(files[i], o.write_baseline) ? o.write_baseline : NULL;
		if (w) {
			status = cli_usage_error("check", "output file '%s' is the input %s", w, files[i]);
			goto out;
		}
	}
	rep.modules = calloc(n_files ? n_files : 1, sizeof(*rep.modules));
	jobs = calloc(n_files ? n_files : 1, sizeof(*jobs));
	failed = calloc(n_files ? n_files : 1, sizeof(*failed));
	if (!rep.modules || !jobs || !failed) {
		status = EXIT_INTERNAL;
		goto out;
	}
	for (size_t i = 0; i < n_files; i++)
		jobs[i].file = files[i];
	struct check_run run = {&cfg, &o, o.co.annotations ? &ann : NULL, &budget, jobs, rep.modules};
	/* largest first; NULL (out of memory) is index order */
	size_t *order = o.co.jobs > 1 ? jobs_order_by_size((const char *const *)files, n_files) : NULL;
	jobs_run(o.co.jobs, n_files, order, check_one, &run);
	free(order);
	/* In input order: the messages, then the parsed modules packed to the front. */
	for (size_t i = 0; i < n_files; i++) {
		if (jobs[i].diag_len)
			fwrite(jobs[i].diag, 1, jobs[i].diag_len, stderr);
		if (jobs[i].stats)
			fputs(jobs[i].stats, stderr);
		internal |= jobs[i].internal;
		not_checked |= jobs[i].not_checked;
		if (!jobs[i].parsed) {
			failed[rep.files_failed++] = (struct input_failure){
				jobs[i].file, jobs[i].fail_line, jobs[i].fail_col, jobs[i].fail_msg,
				rep.n_modules};
			continue;
		}
		if (rep.n_modules != i)
			rep.modules[rep.n_modules] = rep.modules[i];
		rep.n_modules++;
	}
	fflush(stderr);
	rep.failed = failed;
	if (o.baseline) {
		baseline_apply(&base, &rep);
		rep.baseline = &base;
	}
	int written = o.write_baseline ? baseline_write(o.write_baseline, &rep, &d) : 0;
	if (written < 0) {
		status = EXIT_INPUT;
		goto out;
	}
	/* --min-bytes: a finding with fewer bytes is counted, not listed, and does
	 * not fail the run; one without bytes (a hazard, say) is always listed */
	for (size_t i = 0; o.min_bytes > 0 && i < rep.n_modules; i++)
		for (int32_t k = 0; k < rep.modules[i].findings.n; k++) {
			struct finding *f = &rep.modules[i].findings.items[k];
			if (f->bytes >= 0 && f->bytes < o.min_bytes && !f->suppressed && !f->baselined)
				f->below_min_bytes = 1;
		}
	struct report_job wr = {o.format, &rep, (int)cfg.fail_on, o.source_root, o.color,
				o.sort_position, o.statistics, o.quiet};
	if (o.write_baseline && o.format == FMT_TEXT && !o.co.output) {
		/* the findings went into the baseline: say so, do not list them */
		printf("hloproof: %zu module%s checked", rep.n_modules, rep.n_modules == 1 ? "" : "s");
		if (rep.files_failed)
			printf(", %d file%s failed to parse", rep.files_failed, rep.files_failed == 1 ? "" : "s");
		printf(": %d baseline entr%s written to %s\n", written, written == 1 ? "y" : "ies",
		       o.write_baseline);
	} else {
		status = cli_write_report(o.co.output, write_report, &wr, &d);
	}
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
	for (size_t i = 0; i < rep.n_modules; i++) {
		findings_free(&rep.modules[i].findings);
		donation_summaries_free(rep.modules[i].donation_verdicts);
	}
	free(rep.modules);
	for (size_t i = 0; jobs && files && files[i]; i++) {
		free(jobs[i].diag);
		free(jobs[i].stats);
	}
	free(jobs);
	free(failed);
	baseline_free(&base);
	cli_free_inputs(files);
	config_free(&cfg);
	annotations_free(&ann);
	free(o.toggle_rule);
	free(o.toggle_on);
	free(o.source_root);
	return status;
}
