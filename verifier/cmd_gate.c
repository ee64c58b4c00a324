/* cmd_gate.c - `hloproof gate BASE HEAD`: did HEAD regress against BASE?
 *
 * BASE and HEAD are two module files, or two dump directories whose modules
 * are paired (gate.h, gate_pair). For each pair: copies added and removed,
 * donations lost and gained, findings new and fixed (gate_compare). HEAD
 * regresses when the added copies' bytes (over every pair) exceed
 * --max-new-copy-bytes, when a donation is lost (unless
 * --allow-lost-donations), or when a new finding is at or above
 * --fail-on-new. A module only in HEAD is compared with an empty BASE (its
 * copies added, its findings new) unless --ignore-new-modules; one only in
 * BASE is listed as removed. */
#include "annotations.h"
#include "cli.h"
#include "config.h"
#include "gate.h"
#include "jobs.h"
#include "report.h"
#include "report_source.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct gate_opts {
	struct cli_common co;      /* -o, --config, --annotations, --timeout-ms, --jobs */
	int json;
	int no_deciders;
	uint64_t max_new_copy_bytes;
	int allow_lost_donations;
	const char *fail_on_new;   /* NULL: the configuration's fail-on */
	int ignore_new_modules;    /* list a module only in HEAD, do not gate it */
	int color;                 /* --color (enum cli_color) */
};

static int parse_opts(int argc, char **argv, struct gate_opts *o)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"output", required_argument, 0, 'o'},
		{"config", required_argument, 0, 'c'},
		{"max-new-copy-bytes", required_argument, 0, 'm'},
		{"allow-lost-donations", no_argument, 0, 'a'},
		{"fail-on-new", required_argument, 0, 'F'},
		CLI_TIMEOUT_OPTION,
		CLI_STAGE_OPTION,
		{"jobs", required_argument, 0, 'j'},
		{"frames", required_argument, 0, CLI_OPT_FRAMES},
		{"annotations", required_argument, 0, 'A'},
		{"no-deciders", no_argument, 0, 'N'},
		{"ignore-new-modules", no_argument, 0, 'I'},
		{"color", required_argument, 0, 'K'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = cli_getopt("gate", argc, argv, "o:j:", opts)) != -1) {
		int took = cli_common_option("gate", c, optarg, &o->co);
		if (took < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				o->json = 0;
			else if (!strcmp(optarg, "json"))
				o->json = 1;
			else
				return cli_usage_error("gate", "unknown format '%s' (text or json)", optarg);
			break;
		case 'm': {
			long long v;
			if (cli_number("gate", &cli_max_new_copy_bytes, optarg, &v))
				return EXIT_INPUT;
			o->max_new_copy_bytes = (uint64_t)v;
			break;
		}
		case 'a':
			o->allow_lost_donations = 1;
			break;
		case 'N':
			o->no_deciders = 1;
			break;
		case 'I':
			o->ignore_new_modules = 1;
			break;
		case 'K':
			if (cli_color_option("gate", optarg, &o->color))
				return EXIT_INPUT;
			break;
		case 'F':
			if (cli_fail_on_option("gate", "--fail-on-new", optarg, &o->fail_on_new))
				return EXIT_INPUT;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("gate", "bad option");
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("gate", "takes two inputs, BASE and HEAD (files or directories)");
	return 0;
}

/* ---- inputs ---------------------------------------------------------------- */

static int is_dir(const char *p)
{
	struct stat st;
	return strcmp(p, "-") && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct side {
	char **files;     /* as expanded */
	int32_t n;        /* modules kept */
	int32_t skipped;  /* non-module .txt files */
};

/* A directory side skips the non-module .txt files of a dump (cli_expand_inputs). */
static int expand_side(const char *arg, struct side *s)
{
	char *argv1[1] = {(char *)arg};
	size_t skipped = 0;
	char **all = cli_expand_inputs(1, argv1, &skipped);
	if (!all)
		return -1;
	int32_t n = 0;
	while (all[n])
		n++;
	s->files = all;
	s->n = n;
	s->skipped = (int32_t)skipped;
	return 0;
}

/* ---- per-module work, on any thread ---------------------------------------- */

struct gate_job {
	const char *file;
	struct gate_module g;
	int parsed, internal;
	char *diag;
	size_t diag_len;
};

struct gate_run {
	const struct lint_config *cfg;
	struct gate_build_options build;
	struct gate_job *jobs;
};

static void gate_one(void *arg, size_t i)
{
	struct gate_run *run = arg;
	struct gate_job *j = &run->jobs[i];
	FILE *err = open_memstream(&j->diag, &j->diag_len);
	struct diag pd;
	diag_init(&pd, err ? err : stderr);
	struct hlo_module *m = hlo_parse_file(j->file, &pd);
	if (m) {
		j->parsed = 1;
		if (gate_module_build(m, run->cfg, &run->build, &j->g) < 0) {
			fprintf(pd.out, "%s: error: internal error while summarising the module; results are incomplete\n",
				j->file);
			j->internal = 1;
		}
		hlo_module_free(m);
	}
	if (err)
		fclose(err);
}

/* ---- the command ---------------------------------------------------------- */

/* For cli_write_report. */
struct gate_write {
	int json;
	const struct gate_result *r;
};

static int write_report(FILE *out, void *arg)
{
	const struct gate_write *w = arg;
	return w->json ? report_gate_json(out, w->r) : report_gate_text(out, w->r);
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = {0};
	cli_common_init(&o.co);
	struct diag d;
	diag_init(&d, stderr);
	struct lint_config cfg;
	config_init(&cfg);
	struct side b = {0}, h = {0};
	struct annotations ann = {0};
	struct gate_job *jobs = NULL;
	struct gate_pair_result *pairs = NULL;
	struct gate_unpaired *only = NULL;
	int32_t np = 0, *partner = NULL;
	char *head_paired = NULL;
	int status = EXIT_CLEAN, internal = 0, failed = 0;

	if (parse_opts(argc, argv, &o) != 0) {
		status = EXIT_INPUT;
		goto out;
	}
	const char *barg = argv[optind], *harg = argv[optind + 1];
	int bdir = is_dir(barg), hdir = is_dir(harg);
	if (bdir != hdir) {
		status = cli_usage_error("gate", "BASE and HEAD must both be files or both be directories");
		goto out;
	}
	if (!strcmp(barg, "-") && !strcmp(harg, "-")) {
		status = cli_usage_error("gate", "only one of BASE and HEAD can be standard input");
		goto out;
	}
	if (cli_load_config(&cfg, &o.co, &d) < 0 ||
	    (o.co.annotations && annotations_load(&ann, o.co.annotations, &d) < 0) ||
	    expand_side(barg, &b) < 0 ||
	    expand_side(harg, &h) < 0) {
		status = EXIT_INPUT;
		goto out;
	}
	enum fail_on fon = cfg.fail_on;
	if (o.fail_on_new)
		config_parse_fail_on(o.fail_on_new, &fon);

	/* Every module of both sides, in parallel; messages in input order. */
	size_t n = (size_t)b.n + (size_t)h.n;
	jobs = calloc(n + 1, sizeof(*jobs));
	partner = calloc((size_t)b.n + 1, sizeof(*partner));
	head_paired = calloc((size_t)h.n + 1, 1);
	pairs = calloc((size_t)b.n + (size_t)h.n + 1, sizeof(*pairs));
	only = calloc(n + 1, sizeof(*only));
	if (!jobs || !partner || !head_paired || !pairs || !only) {
		status = EXIT_INTERNAL;
		goto out;
	}
	for (int32_t i = 0; i < b.n; i++)
		jobs[i].file = b.files[i];
	for (int32_t j = 0; j < h.n; j++)
		jobs[b.n + j].file = h.files[j];
	struct gate_run run = {&cfg, {o.co.annotations ? &ann : NULL, o.no_deciders, o.co.an.stage}, jobs};
	size_t *order = NULL;
	const char **names = o.co.jobs > 1 ? calloc(n + 1, sizeof(*names)) : NULL;
	if (names) {
		for (size_t i = 0; i < n; i++)
			names[i] = jobs[i].file;
		order = jobs_order_by_size(names, n); /* largest first */
		free(names);
	}
	jobs_run(o.co.jobs, n, order, gate_one, &run);
	free(order);
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].diag_len)
			fwrite(jobs[i].diag, 1, jobs[i].diag_len, stderr);
		internal |= jobs[i].internal;
		failed += !jobs[i].parsed;
	}
	fflush(stderr);

	/* Pairing: two files pair as given; directories by gate_pair. */
	if (!bdir) {
		partner[0] = jobs[0].parsed && jobs[1].parsed ? 0 : -1;
	} else {
		struct gate_input *bi = calloc((size_t)b.n + 1, sizeof(*bi));
		struct gate_input *hi = calloc((size_t)h.n + 1, sizeof(*hi));
		if (!bi || !hi) {
			free(bi);
			free(hi);
			status = EXIT_INTERNAL;
			goto out;
		}
		/* unparsed modules have no name and pair with nothing */
		for (int32_t i = 0; i < b.n; i++)
			bi[i] = (struct gate_input){jobs[i].file, jobs[i].parsed ? jobs[i].g.name : NULL};
		for (int32_t j = 0; j < h.n; j++)
			hi[j] = (struct gate_input){jobs[b.n + j].file,
						   jobs[b.n + j].parsed ? jobs[b.n + j].g.name : NULL};
		int rc = gate_pair(bi, b.n, hi, h.n, partner);
		free(bi);
		free(hi);
		if (rc < 0) {
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	struct gate_totals v = {0};
	int32_t n_new = 0, n_unknown = 0;
	for (int32_t i = 0; i < b.n + h.n; i++) {
		struct gate_pair_result *p;
		int rc;
		if (i < b.n) {
			if (partner[i] < 0)
				continue;
			head_paired[partner[i]] = 1;
			p = &pairs[np++];
			p->base = &jobs[i].g;
			p->head = &jobs[b.n + partner[i]].g;
			rc = gate_compare(p->base, p->head, &p->diff);
		} else {
			/* HEAD's modules without a partner: against an empty BASE */
			int32_t j = i - b.n;
			if (!bdir || o.ignore_new_modules || head_paired[j] || !jobs[i].parsed)
				continue;
			head_paired[j] = 1;
			p = &pairs[np++];
			n_new++;
			p->head = &jobs[i].g;
			rc = gate_compare_new(p->head, &p->diff);
			p->base = p->diff.base;
		}
		if (rc < 0) {
			internal = 1;
			continue;
		}
		const struct gate_diff *df = &p->diff;
		n_unknown += (p->base && p->base->unknown) + (p->head->unknown != NULL);
		v.added += df->n_added;
		v.added_bytes += df->added_bytes;
		v.removed += df->n_removed;
		v.removed_bytes += df->removed_bytes;
		v.kept += df->n_kept;
		v.lost += df->n_lost;
		v.lost_bytes += df->lost_bytes;
		v.gained += df->n_gained;
		v.new_findings += df->n_new;
		v.fixed += df->n_fixed;
		for (int32_t k = 0; k < df->n_new; k++)
			if (fon != FAIL_NONE && (int)df->new_findings[k]->severity >= (int)fon)
				v.failing_findings++;
	}
	v.regressed_copies = v.added_bytes > o.max_new_copy_bytes;
	v.regressed_donations = v.lost > 0 && !o.allow_lost_donations;
	v.regressed_findings = v.failing_findings > 0;

	/* directories: the modules of one side only, listed */
	int32_t n_ob = 0, n_oh = 0;
	for (int32_t i = 0; bdir && i < b.n; i++)
		if (jobs[i].parsed && partner[i] < 0)
			only[n_ob++] = (struct gate_unpaired){jobs[i].file, &jobs[i].g};
	for (int32_t j = 0; bdir && j < h.n; j++)
		if (jobs[b.n + j].parsed && !head_paired[j])
			only[n_ob + n_oh++] = (struct gate_unpaired){jobs[b.n + j].file, &jobs[b.n + j].g};
	struct gate_result res = {o.max_new_copy_bytes, o.allow_lost_donations, fon, pairs, np, n_new,
				  only, n_ob, only + n_ob, n_oh, failed, b.skipped + h.skipped, n_unknown, &v,
				  cli_color_on(o.color, stdout) && !o.json};
	struct gate_write wr = {o.json, &res};
	status = cli_write_report(o.co.output, write_report, &wr, &d);
	if (status != EXIT_CLEAN)
		goto out;
	if (internal)
		status = EXIT_INTERNAL;
	else if (failed)
		status = EXIT_INPUT;
	else if (v.regressed_copies || v.regressed_donations || v.regressed_findings)
		status = EXIT_FINDINGS;
	else if (n_unknown)
		status = EXIT_INTERNAL; /* an undecided module is not "no regression" */
out:
	for (int32_t i = 0; i < np; i++)
		gate_diff_free(&pairs[i].diff);
	free(pairs);
	free(only);
	for (size_t i = 0; jobs && i < (size_t)b.n + (size_t)h.n; i++) {
		gate_module_free(&jobs[i].g);
		free(jobs[i].diag);
	}
	free(jobs);
	free(partner);
	free(head_paired);
	cli_free_inputs(b.files);
	cli_free_inputs(h.files);
	config_free(&cfg);
	annotations_free(&ann);
	return status;
}
