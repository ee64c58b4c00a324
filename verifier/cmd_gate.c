/* cmd_gate.c - `hloproof gate BASE HEAD`: did HEAD regress against BASE?
 *
 * BASE and HEAD are two module files, or two dump directories whose modules
 * are paired (gate.h, gate_pair). For each pair: copies added and removed,
 * donations lost and gained, findings new and fixed (gate_compare). HEAD
 * regresses when the added copies' bytes (over every pair) exceed
 * --max-new-copy-bytes, when a donation is lost (unless
 * --allow-lost-donations), or when a new finding is at or above
 * --fail-on-new. Modules present on one side only are listed, not gated. */
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
		{"timeout-ms", required_argument, 0, 't'},
		{"jobs", required_argument, 0, 'j'},
		{"frames", required_argument, 0, CLI_OPT_FRAMES},
		{"annotations", required_argument, 0, 'A'},
		{"no-deciders", no_argument, 0, 'N'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:", opts, NULL)) != -1) {
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
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cli_usage_error("gate", "--max-new-copy-bytes takes a number of bytes, not '%s'", optarg);
			o->max_new_copy_bytes = v;
			break;
		}
		case 'a':
			o->allow_lost_donations = 1;
			break;
		case 'N':
			o->no_deciders = 1;
			break;
		case 'F':
			if (cli_fail_on_option("gate", "--fail-on-new", optarg, &o->fail_on_new))
				return EXIT_INPUT;
			break;
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

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* XLA dump directories hold other text files next to the modules (buffer
 * assignments, memory reports): a .txt file counts as a module only when its
 * first token, after whitespace and comments, is "HloModule". A .hlo file
 * always counts. Only the first 64 KiB are looked at. */
static int looks_like_module(const char *path)
{
	if (!has_suffix(path, ".txt"))
		return 1;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 1; /* let the parser report it */
	enum { SNIFF = 64 << 10 };
	char *buf = malloc(SNIFF + 1);
	if (!buf) {
		fclose(f);
		return 1;
	}
	size_t n = fread(buf, 1, SNIFF, f);
	fclose(f);
	buf[n] = 0;
	const char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (p[0] == '/' && p[1] == '/') {
			p = strchr(p, '\n');
			if (!p)
				break;
		} else if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			if (!p)
				break;
			p += 2;
		} else {
			break;
		}
	}
	int yes = p && !strncmp(p, "HloModule", 9);
	free(buf);
	return yes;
}

struct side {
	char **files;     /* as expanded */
	int32_t n;        /* modules kept */
	int32_t skipped;  /* non-module .txt files */
};

static int expand_side(const char *arg, int dir, struct side *s)
{
	char *argv1[1] = {(char *)arg};
	char **all = cli_expand_inputs(1, argv1);
	if (!all)
		return -1;
	int32_t n = 0;
	for (int32_t i = 0; all[i]; i++) {
		if (dir && !looks_like_module(all[i])) {
			free(all[i]);
			s->skipped++;
			continue;
		}
		all[n++] = all[i];
	}
	all[n] = NULL;
	s->files = all;
	s->n = n;
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

/* ---- the report --------------------------------------------------------- */

struct pair {
	const struct gate_module *base, *head;
	struct gate_diff diff;
};

/* Everything the reporters show. */
struct gate_result {
	const struct gate_opts *o;
	enum fail_on fail_on_new;
	const struct gate_job *jobs;   /* BASE's modules, then HEAD's */
	int32_t n_base, n_head;
	const int32_t *partner;        /* per BASE module: HEAD module index or -1 */
	const char *head_paired;       /* per HEAD module */
	const struct pair *pairs;
	int32_t n_pairs;
	int32_t failed, skipped;       /* inputs that did not parse; non-module .txt files */
	int dirs;                      /* comparing directories (else two files) */
	const struct verdict *v;       /* the totals and the regressions */
};

struct verdict {
	uint64_t added_bytes, removed_bytes, lost_bytes;
	int32_t added, removed, kept, lost, gained, new_findings, failing_findings, fixed;
	int regressed_copies, regressed_donations, regressed_findings;
};

static const char *family_text(const struct gate_copy *c)
{
	return c->family ? c->family : "not decided (same layout as its operand)";
}

static void text_where(FILE *out, const char *file, int line, int col)
{
	if (line > 0)
		fprintf(out, "%s:%d:%d: ", file, line, col > 0 ? col : 1);
	else
		fprintf(out, "%s: ", file);
}

static void text_copy(FILE *out, const char *what, const char *file, const struct gate_copy *c)
{
	text_where(out, file, c->line, c->col);
	fprintf(out, "%s: %s = copy(%s) in %s, %" PRIu64 " bytes, family %s", what, c->name,
		c->operand ? c->operand : "?", c->computation, c->bytes, family_text(c));
	if (c->verdict)
		fprintf(out, ", removal verdict given=%s any=%s",
			c->verdict_given ? c->verdict_given : "null", c->verdict);
	fputc('\n', out);
}

static void text_donation_state(FILE *out, const struct gate_donation *d)
{
	if (!d) {
		fputs("no input_output_alias entry or buffer_donor names it", out);
		return;
	}
	if (d->honored) {
		fprintf(out, "%s to output %s", d->kind, d->output_index ? d->output_index : "?");
		if (d->verdict)
			fprintf(out, " (verdict %s)", d->verdict);
		if (d->copied)
			fputs(", only through a copy", out);
		return;
	}
	fprintf(out, "%s, not honored", d->kind);
	if (d->reason)
		fprintf(out, ": %s", d->reason);
}

static void text_donation(FILE *out, const char *what, const char *file,
			  const struct gate_donation *d, const char *other_name,
			  const struct gate_donation *other)
{
	text_where(out, file, d->line, d->col);
	fprintf(out, "%s: parameter %d %s", what, d->param, d->param_index);
	if (d->arg_path)
		fprintf(out, " (%s)", d->arg_path);
	fprintf(out, ", %" PRIu64 " bytes: ", d->bytes);
	text_donation_state(out, d);
	fprintf(out, "; in %s: ", other_name);
	text_donation_state(out, other);
	fputc('\n', out);
}

static void text_finding(FILE *out, const char *what, const struct finding *f)
{
	text_where(out, f->file, f->line, f->col);
	fprintf(out, "%s: %s: %s [%s %s] (fingerprint %s)\n", what, severity_name(f->severity),
		f->message, f->rule->id, f->rule->slug, f->fingerprint);
}

static int write_text(FILE *out, const struct gate_result *r)
{
	const struct verdict *v = r->v;
	const struct pair *p = r->pairs;
	int32_t np = r->n_pairs;
	const struct gate_opts *o = r->o;
	for (int32_t i = 0; i < np; i++) {
		const struct gate_diff *d = &p[i].diff;
		const char *bf = p[i].base->file, *hf = p[i].head->file;
		fprintf(out, "gate: %s -> %s (module %s)\n", bf, hf, p[i].head->name);
		for (int32_t k = 0; k < d->n_added; k++)
			text_copy(out, "copy added", hf, d->added[k]);
		for (int32_t k = 0; k < d->n_removed; k++)
			text_copy(out, "copy removed", bf, d->removed[k]);
		for (int32_t k = 0; k < d->n_lost; k++)
			text_donation(out, "donation lost", bf, d->lost[k], "HEAD", d->lost_head[k]);
		for (int32_t k = 0; k < d->n_gained; k++)
			text_donation(out, "donation gained", hf, d->gained[k], "BASE", d->gained_base[k]);
		for (int32_t k = 0; k < d->n_copied; k++)
			text_donation(out, "donation now copied", hf, d->copied[k], "BASE", d->copied_base[k]);
		for (int32_t k = 0; k < d->n_new; k++)
			text_finding(out, "new finding", d->new_findings[k]);
		for (int32_t k = 0; k < d->n_fixed; k++)
			text_finding(out, "fixed finding", d->fixed_findings[k]);
	}
	const struct gate_job *jobs = r->jobs;
	for (int32_t i = 0; r->dirs && i < r->n_base; i++)
		if (jobs[i].parsed && r->partner[i] < 0)
			fprintf(out, "gate: only in BASE: %s (module %s)\n", jobs[i].file, jobs[i].g.name);
	for (int32_t j = 0; r->dirs && j < r->n_head; j++)
		if (jobs[r->n_base + j].parsed && !r->head_paired[j])
			fprintf(out, "gate: only in HEAD: %s (module %s)\n", jobs[r->n_base + j].file,
				jobs[r->n_base + j].g.name);
	fprintf(out,
		"gate: %d module pair%s; copies: %d added (%" PRIu64 " bytes), %d removed (%" PRIu64
		" bytes), %d unchanged; donations: %d lost (%" PRIu64 " bytes), %d gained; findings: %d new, %d fixed\n",
		np, np == 1 ? "" : "s", v->added, v->added_bytes, v->removed, v->removed_bytes, v->kept,
		v->lost, v->lost_bytes, v->gained, v->new_findings, v->fixed);
	if (v->regressed_copies || v->regressed_donations || v->regressed_findings) {
		fputs("gate: HEAD regresses:", out);
		const char *sep = " ";
		if (v->regressed_copies) {
			fprintf(out, "%s%" PRIu64 " bytes of new copies (more than --max-new-copy-bytes=%" PRIu64 ")",
				sep, v->added_bytes, o->max_new_copy_bytes);
			sep = "; ";
		}
		if (v->regressed_donations) {
			fprintf(out, "%s%d donation%s lost", sep, v->lost, v->lost == 1 ? "" : "s");
			sep = "; ";
		}
		if (v->regressed_findings)
			fprintf(out, "%s%d new finding%s at or above %s", sep, v->failing_findings,
				v->failing_findings == 1 ? "" : "s", fail_on_name(r->fail_on_new));
		fputc('\n', out);
	} else if (r->failed) {
		fputs("gate: no regression among the modules compared\n", out);
	} else {
		fputs("gate: no regression\n", out);
	}
	if (r->failed)
		fprintf(out, "gate: %d input%s could not be read or parsed\n", r->failed,
			r->failed == 1 ? "" : "s");
	return ferror(out) ? -1 : 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? report_json_string(s) : json_null();
}

static json_t *copy_json(const char *file, const struct gate_copy *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(file));
	json_object_set_new(o, "line", json_integer(c->line));
	json_object_set_new(o, "column", json_integer(c->col));
	json_object_set_new(o, "computation", report_json_string(c->computation));
	json_object_set_new(o, "name", report_json_string(c->name));
	json_object_set_new(o, "operand", str_or_null(c->operand));
	json_object_set_new(o, "operand_opcode", str_or_null(c->operand_opcode));
	json_object_set_new(o, "family", str_or_null(c->family));
	json_t *v = json_object();
	json_object_set_new(v, "given", str_or_null(c->verdict_given));
	json_object_set_new(v, "any", str_or_null(c->verdict));
	json_object_set_new(o, "verdict", v);
	json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
	char key[20];
	snprintf(key, sizeof(key), "%016" PRIx64, c->key);
	json_object_set_new(o, "identity", json_string(key));
	return o;
}

static json_t *donation_state_json(const struct gate_donation *d)
{
	if (!d)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(d->kind));
	json_object_set_new(o, "honored", json_boolean(d->honored));
	json_object_set_new(o, "output_index", str_or_null(d->output_index));
	json_object_set_new(o, "copied", json_boolean(d->copied));
	json_object_set_new(o, "verdict", str_or_null(d->verdict));
	json_object_set_new(o, "reason", str_or_null(d->reason));
	json_object_set_new(o, "line", json_integer(d->line));
	json_object_set_new(o, "column", json_integer(d->col));
	return o;
}

static json_t *donation_json(const struct gate_donation *d, const struct gate_donation *base,
			     const struct gate_donation *head)
{
	json_t *o = json_object();
	json_object_set_new(o, "param", json_integer(d->param));
	json_object_set_new(o, "param_index", report_json_string(d->param_index));
	json_object_set_new(o, "arg_path", str_or_null(d->arg_path));
	json_object_set_new(o, "bytes", json_integer((json_int_t)d->bytes));
	json_object_set_new(o, "base", donation_state_json(base));
	json_object_set_new(o, "head", donation_state_json(head));
	return o;
}

static json_t *finding_json(const struct finding *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
	json_object_set_new(o, "rule", json_string(f->rule->id));
	json_object_set_new(o, "name", json_string(f->rule->slug));
	json_object_set_new(o, "severity", json_string(severity_name(f->severity)));
	json_object_set_new(o, "message", report_json_string(f->message));
	json_object_set_new(o, "file", report_json_string(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->col));
	json_object_set_new(o, "computation", str_or_null(f->computation));
	json_object_set_new(o, "instruction", str_or_null(f->instruction));
	json_object_set_new(o, "source", report_source_json(f->source));
	return o;
}

static json_t *module_ref(const struct gate_module *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(g->file));
	json_object_set_new(o, "module", report_json_string(g->name));
	return o;
}

static int write_json(FILE *out, const struct gate_result *r)
{
	const struct verdict *v = r->v;
	const struct pair *p = r->pairs;
	int32_t np = r->n_pairs;
	const struct gate_opts *o = r->o;
	const struct gate_job *jobs = r->jobs;
	json_t *root = json_object();
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("hloproof"));
	json_object_set_new(tool, "version", json_string(HLOPROOF_VERSION));
	json_object_set_new(root, "tool", tool);
	json_t *th = json_object();
	json_object_set_new(th, "max_new_copy_bytes", json_integer((json_int_t)o->max_new_copy_bytes));
	json_object_set_new(th, "allow_lost_donations", json_boolean(o->allow_lost_donations));
	json_object_set_new(th, "fail_on_new", json_string(fail_on_name(r->fail_on_new)));
	json_object_set_new(root, "thresholds", th);
	json_t *pairs = json_array();
	for (int32_t i = 0; i < np; i++) {
		const struct gate_diff *d = &p[i].diff;
		const char *bf = p[i].base->file, *hf = p[i].head->file;
		json_t *po = json_object();
		json_object_set_new(po, "base", module_ref(p[i].base));
		json_object_set_new(po, "head", module_ref(p[i].head));
		json_t *dec = json_object();
		json_object_set_new(dec, "copies", json_boolean(p[i].base->decided_copies &&
								 p[i].head->decided_copies));
		json_object_set_new(dec, "donations", json_boolean(p[i].base->decided_donations &&
								    p[i].head->decided_donations));
		json_object_set_new(po, "deciders", dec);
		json_t *a = json_array();
		for (int32_t k = 0; k < d->n_added; k++)
			json_array_append_new(a, copy_json(hf, d->added[k]));
		json_object_set_new(po, "copies_added", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_removed; k++)
			json_array_append_new(a, copy_json(bf, d->removed[k]));
		json_object_set_new(po, "copies_removed", a);
		json_object_set_new(po, "copies_unchanged", json_integer(d->n_kept));
		a = json_array();
		for (int32_t k = 0; k < d->n_lost; k++)
			json_array_append_new(a, donation_json(d->lost[k], d->lost[k], d->lost_head[k]));
		json_object_set_new(po, "donations_lost", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_gained; k++)
			json_array_append_new(a, donation_json(d->gained[k], d->gained_base[k], d->gained[k]));
		json_object_set_new(po, "donations_gained", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_copied; k++)
			json_array_append_new(a, donation_json(d->copied[k], d->copied_base[k], d->copied[k]));
		json_object_set_new(po, "donations_now_copied", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_new; k++)
			json_array_append_new(a, finding_json(d->new_findings[k]));
		json_object_set_new(po, "new_findings", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_fixed; k++)
			json_array_append_new(a, finding_json(d->fixed_findings[k]));
		json_object_set_new(po, "fixed_findings", a);
		json_array_append_new(pairs, po);
	}
	json_object_set_new(root, "pairs", pairs);
	json_t *ub = json_array(), *uh = json_array();
	for (int32_t i = 0; r->dirs && i < r->n_base; i++)
		if (jobs[i].parsed && r->partner[i] < 0)
			json_array_append_new(ub, module_ref(&jobs[i].g));
	for (int32_t j = 0; r->dirs && j < r->n_head; j++)
		if (jobs[r->n_base + j].parsed && !r->head_paired[j])
			json_array_append_new(uh, module_ref(&jobs[r->n_base + j].g));
	json_object_set_new(root, "only_in_base", ub);
	json_object_set_new(root, "only_in_head", uh);
	json_t *s = json_object();
	json_object_set_new(s, "pairs", json_integer(np));
	json_object_set_new(s, "copies_added", json_integer(v->added));
	json_object_set_new(s, "copy_bytes_added", json_integer((json_int_t)v->added_bytes));
	json_object_set_new(s, "copies_removed", json_integer(v->removed));
	json_object_set_new(s, "copy_bytes_removed", json_integer((json_int_t)v->removed_bytes));
	json_object_set_new(s, "copies_unchanged", json_integer(v->kept));
	json_object_set_new(s, "donations_lost", json_integer(v->lost));
	json_object_set_new(s, "donation_bytes_lost", json_integer((json_int_t)v->lost_bytes));
	json_object_set_new(s, "donations_gained", json_integer(v->gained));
	json_object_set_new(s, "new_findings", json_integer(v->new_findings));
	json_object_set_new(s, "new_findings_failing", json_integer(v->failing_findings));
	json_object_set_new(s, "fixed_findings", json_integer(v->fixed));
	json_object_set_new(s, "inputs_failed", json_integer(r->failed));
	json_object_set_new(s, "inputs_skipped", json_integer(r->skipped));
	json_t *why = json_array();
	if (v->regressed_copies)
		json_array_append_new(why, json_string("new-copy-bytes"));
	if (v->regressed_donations)
		json_array_append_new(why, json_string("lost-donations"));
	if (v->regressed_findings)
		json_array_append_new(why, json_string("new-findings"));
	json_object_set_new(s, "regressed", json_boolean(json_array_size(why) > 0));
	json_object_set_new(s, "reasons", why);
	json_object_set_new(root, "summary", s);
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc == 0)
		fputc('\n', out);
	return rc < 0 || ferror(out) ? -1 : 0;
}

/* ---- the command ---------------------------------------------------------- */

/* For cli_write_report. */
static int write_report(FILE *out, void *arg)
{
	const struct gate_result *r = arg;
	return r->o->json ? write_json(out, r) : write_text(out, r);
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
	struct pair *pairs = NULL;
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
	    expand_side(barg, bdir, &b) < 0 ||
	    expand_side(harg, hdir, &h) < 0) {
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
	pairs = calloc((size_t)b.n + 1, sizeof(*pairs));
	if (!jobs || !partner || !head_paired || !pairs) {
		status = EXIT_INTERNAL;
		goto out;
	}
	for (int32_t i = 0; i < b.n; i++)
		jobs[i].file = b.files[i];
	for (int32_t j = 0; j < h.n; j++)
		jobs[b.n + j].file = h.files[j];
	struct gate_run run = {&cfg, {o.co.annotations ? &ann : NULL, o.no_deciders}, jobs};
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
	struct verdict v = {0};
	for (int32_t i = 0; i < b.n; i++) {
		if (partner[i] < 0)
			continue;
		head_paired[partner[i]] = 1;
		struct pair *p = &pairs[np++];
		p->base = &jobs[i].g;
		p->head = &jobs[b.n + partner[i]].g;
		if (gate_compare(p->base, p->head, &p->diff) < 0) {
			internal = 1;
			continue;
		}
		const struct gate_diff *df = &p->diff;
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

	struct gate_result res = {&o, fon, jobs, b.n, h.n, partner, head_paired, pairs, np,
				  failed, b.skipped + h.skipped, bdir, &v};
	status = cli_write_report(o.co.output, write_report, &res, &d);
	if (status != EXIT_CLEAN)
		goto out;
	if (internal)
		status = EXIT_INTERNAL;
	else if (failed)
		status = EXIT_INPUT;
	else if (v.regressed_copies || v.regressed_donations || v.regressed_findings)
		status = EXIT_FINDINGS;
out:
	for (int32_t i = 0; i < np; i++)
		gate_diff_free(&pairs[i].diff);
	free(pairs);
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
