/* cmd_donation.c - `hloproof donation`: what became of each donation.
 *
 *   hloproof donation FILE          every alias and donor of one module, with verdicts
 *   hloproof donation BEFORE AFTER  per donated parameter leaf of BEFORE (the request:
 *                                   input_output_alias / buffer_donor, as lowered from
 *                                   jax.jit(donate_argnums)), what AFTER (the same
 *                                   module after optimization) did with it: honored
 *                                   (into which output), honored through a copy, or
 *                                   dropped, and the bytes saved or lost.
 *
 * Parameters are paired by number; their dtypes and dimensions must match
 * (layouts may differ: layout assignment runs in between). Exit status: 0
 * when every donation is honored without a copy and safe, 1 when one is not
 * (or an annotation is violated), 2 for bad input, 3 when none is a finding
 * but a verdict is unknown (the module could not be analysed, say: doubt is
 * never success). */
#include "annotations.h"
#include "xalloc.h"
#include "cli.h"
#include "donation.h"
#include "donormatch.h"
#include "report.h"
#include "session.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opts {
	int json, evidence;
	const char *annotations;
	long timeout_ms;
	int stage;                 /* --stage (enum module_stage) */
	int color;                 /* --color (enum cli_color) */
};

/* One parsed module, its session and its donation reports. */
struct side {
	const char *file;
	struct hlo_module *m;
	struct session *s;
	const struct donation_report *r;
	int32_t n;
};

static int load(struct side *s, const char *file, const struct opts *o, int analyse)
{
	memset(s, 0, sizeof(*s));
	s->file = file;
	struct diag d;
	diag_init(&d, stderr);
	s->m = hlo_parse_file(file, &d);
	if (!s->m)
		return -1;
	if (!s->m->entry) {
		error_at(&d, s->m->pos, "the module has no entry computation");
		hlo_module_free(s->m);
		s->m = NULL;
		return -1;
	}
	struct session_options so = {0};
	so.timeout_ms = o->timeout_ms;
	so.stage = (enum module_stage)o->stage;
	so.donation_why_in_full = 1;
	if (!analyse)
		so.no_analysis = "not analysed (the donation request only)";
	s->s = session_open(s->m, NULL, &so);
	const struct donation_list *dl = session_donations(s->s);
	if (!dl)
		return session_why(s->s, NULL) == SESSION_FAILED ? -2 : 0;
	s->r = dl->items;
	s->n = dl->n;
	return 0;
}

static void unload(struct side *s)
{
	session_close(s->s);
	hlo_module_free(s->m);
}

/* A donation that is not honored for free: the status of the command, and
 * exactly the donations check's rules report (donation_reading_rule). */
static int is_finding(const struct hlo_module *m, const struct donation_report *r)
{
	return donation_reading_rule(donation_reading(m, r)) != NULL;
}

/* A verdict the deciders could not settle. */
static int is_unknown(const struct hlo_module *m, const struct donation_report *r)
{
	return r && donation_reading(m, r) == READING_UNKNOWN;
}

static int exit_status(int findings, int unknown)
{
	return findings ? EXIT_FINDINGS : unknown ? EXIT_INTERNAL : EXIT_CLEAN;
}

/* ---- annotations ---- */

static void on_violation(void *p, const struct annotation_violation *v)
{
	donation_violations_add(p, v->message);
}

/* The violations of `ann` in s into *out (NULL when there is no ann). */
static struct donation_violations *check_annotations(const struct annotations *ann,
						     const struct side *s,
						     struct donation_violations *out)
{
	memset(out, 0, sizeof(*out));
	if (!ann)
		return NULL;
	annotations_check(ann, s->m, s->r, s->n, on_violation, out);
	return out;
}

/* ---- one module ---- */

static int one_module(const char *file, const struct opts *o, const struct annotations *ann)
{
	struct side s;
	int rc = load(&s, file, o, 1);
	if (rc < 0) {
		if (rc == -2)
			unload(&s);
		return rc == -2 ? EXIT_INTERNAL : EXIT_INPUT;
	}
	int32_t counts[VERDICT_NOT_HONORED + 1] = {0};
	donations_count(s.r, s.n, counts);
	int findings = 0, unknown = 0;
	for (int32_t i = 0; i < s.n; i++) {
		findings |= is_finding(s.m, &s.r[i]);
		unknown |= is_unknown(s.m, &s.r[i]);
	}
	struct donation_violations vio;
	struct donation_module_view v = {file, s.m, s.r, s.n, counts, o->evidence,
					 check_annotations(ann, &s, &vio), 0};
	findings |= vio.n > 0;
	v.color = !o->json && cli_color_on(o->color, stdout);
	if (o->json)
		report_donation_json(stdout, &v);
	else
		report_donation_text(stdout, &v);
	donation_violations_free(&vio);
	unload(&s);
	return exit_status(findings, unknown);
}

/* ---- before and after ---- */

static int check_pairing(const struct side *b, const struct side *a)
{
	struct diag d;
	diag_init(&d, stderr);
	const struct hlo_computation *eb = b->m->entry, *ea = a->m->entry;
	if (eb->n_params != ea->n_params)
		return error_at(&d, ea->pos, "the entry computation has %d parameters, but BEFORE's "
				"(%s:%d:%d) has %d: not the same module", ea->n_params, b->file,
				eb->pos.line, eb->pos.col, eb->n_params);
	for (int32_t p = 0; p < ea->n_params; p++) {
		const struct hlo_instruction *pb = eb->params[p], *pa = ea->params[p];
		if (shape_compatible(pb->shape, pa->shape))
			continue;
		char sa[256], sb[256];
		shape_text(pa->shape, sa, sizeof(sa));
		shape_text(pb->shape, sb, sizeof(sb));
		return error_at(&d, pa->pos, "parameter %d is %s here but %s in BEFORE (%s:%d:%d): "
				"not the same module", p, sa, sb, b->file, pb->pos.line, pb->pos.col);
	}
	return 0;
}

static const struct donation_report *find(const struct side *s, int32_t p,
					  const struct shape_index *ix)
{
	for (int32_t i = 0; i < s->n; i++)
		if (s->r[i].param == p && shape_index_equal(&s->r[i].param_index, ix))
			return &s->r[i];
	return NULL;
}

/* What AFTER did with one request of BEFORE. */
static void outcome_of(const struct donation_report *rq, const struct side *a,
		       struct donation_outcome_row *w)
{
	const struct donation_report *got = find(a, rq->param, &rq->param_index);
	w->rq = rq;
	w->got = got;
	w->why = NULL;
	w->out = NULL;
	w->reason[0] = 0;
	if (!got) {
		w->oc = DONATION_DROPPED;
		snprintf(w->reason, sizeof(w->reason), "AFTER neither aliases nor donates it%s%s",
			 rq->any == VERDICT_NOT_HONORED ? "; BEFORE already predicted: " : "",
			 rq->any == VERDICT_NOT_HONORED && rq->reason ? rq->reason : "");
		w->why = w->reason;
	} else if (got->any == VERDICT_NOT_HONORED) {
		w->oc = DONATION_DROPPED;
		snprintf(w->reason, sizeof(w->reason), "still a buffer_donor in AFTER, and no output will "
			 "reuse it: %s", got->reason ? got->reason : "not honored");
		w->why = w->reason;
	} else {
		w->out = got->output_index;
		int predicted_copy = donation_copy_predicted(a->m, got);
		w->oc = got->copied || predicted_copy ? DONATION_HONORED_COPY : DONATION_HONORED;
		if (got->kind == DONATION_BUFFER_DONOR)
			w->why = "AFTER still lists it as buffer_donor; the output is XLA's predicted match";
		if (rq->output_index && w->out && !shape_index_equal(rq->output_index, w->out)) {
			char x[100], y[100];
			shape_index_to_string(rq->output_index, x, sizeof(x));
			shape_index_to_string(w->out, y, sizeof(y));
			snprintf(w->reason, sizeof(w->reason), "BEFORE asked for output %s, AFTER uses %s", x, y);
			w->why = w->reason;
		}
	}
	w->saved = w->oc == DONATION_HONORED ? rq->bytes : 0;
	w->lost = w->oc == DONATION_HONORED ? 0 : rq->bytes;
}

static int before_after(const char *bfile, const char *afile, const struct opts *o,
			const struct annotations *ann)
{
	struct side b, a;
	int rc = load(&b, bfile, o, 0);
	if (rc < 0) {
		if (rc == -2)
			unload(&b);
		return rc == -2 ? EXIT_INTERNAL : EXIT_INPUT;
	}
	rc = load(&a, afile, o, 1);
	if (rc < 0) {
		if (rc == -2)
			unload(&a);
		unload(&b);
		return rc == -2 ? EXIT_INTERNAL : EXIT_INPUT;
	}
	if (check_pairing(&b, &a) < 0) {
		unload(&a);
		unload(&b);
		return EXIT_INPUT;
	}
	struct donation_pair_view v;
	memset(&v, 0, sizeof(v));
	v.before = bfile;
	v.after = afile;
	v.mb = b.m;
	v.ma = a.m;
	v.evidence = o->evidence;
	struct donation_outcome_row *rows = xcalloc((size_t)b.n + 1, sizeof(*rows));
	const struct donation_report **added = xcalloc((size_t)a.n + 1, sizeof(*added));
	int findings = 0, unknown = 0;
	for (int32_t i = 0; i < b.n; i++) {
		struct donation_outcome_row *w = &rows[i];
		outcome_of(&b.r[i], &a, w);
		v.saved += w->saved;
		v.lost += w->lost;
		v.requested_bytes += w->rq->bytes;
		v.n_outcome[w->oc]++;
		findings |= w->oc != DONATION_HONORED || (w->got && is_finding(a.m, w->got));
		unknown |= is_unknown(a.m, w->got);
	}
	/* what AFTER aliases that BEFORE did not ask for */
	for (int32_t i = 0; i < a.n; i++) {
		const struct donation_report *r = &a.r[i];
		if (!find(&b, r->param, &r->param_index) && r->kind != DONATION_BUFFER_DONOR)
			added[v.n_added++] = r;
	}
	v.n_requested = b.n;
	v.rows = rows;
	v.added = added;
	struct donation_violations vio;
	v.violations = check_annotations(ann, &a, &vio);
	findings |= vio.n > 0;
	v.color = !o->json && cli_color_on(o->color, stdout);
	if (o->json)
		report_donation_pair_json(stdout, &v);
	else
		report_donation_pair_text(stdout, &v);
	donation_violations_free(&vio);
	free(rows);
	free(added);
	unload(&a);
	unload(&b);
	return exit_status(findings, unknown);
}

int cmd_donation(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"format", required_argument, 0, 'f'},
		{"annotations", required_argument, 0, 'A'},
		CLI_TIMEOUT_OPTION,
		CLI_STAGE_OPTION,
		{"evidence", no_argument, 0, 'e'},
		{"color", required_argument, 0, 'K'},
		{0, 0, 0, 0},
	};
	struct opts o = {0};
	struct cli_analysis an;
	cli_analysis_init(&an);
	int c, took;
	optind = 1;
	while ((c = cli_getopt("donation", argc, argv, "", lopts)) != -1) {
		if ((took = cli_analysis_option("donation", c, optarg, &an)) < 0)
			return EXIT_INPUT;
		if (took)
			continue;
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				o.json = 1;
			else if (strcmp(optarg, "text"))
				return cli_usage_error("donation", "unknown format '%s'", optarg);
			break;
		case 'A':
			o.annotations = optarg;
			break;
		case 'e':
			o.evidence = 1;
			break;
		case 'K':
			if (cli_color_option("donation", optarg, &o.color))
				return EXIT_INPUT;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("donation", "bad option");
		}
	}
	o.timeout_ms = an.timeout_ms; /* -1 or 0: the deciders' default */
	o.stage = an.stage;
	int nfiles = argc - optind;
	if (nfiles < 1 || nfiles > 2)
		return cli_usage_error("donation", nfiles < 1 ? "no input file" : "too many input files");
	char before[CLI_PATH_MAX], after[CLI_PATH_MAX];
	const char *fb = cli_one_input("donation", argv[optind], before);
	const char *fa = nfiles == 2 && fb ? cli_one_input("donation", argv[optind + 1], after) : NULL;
	if (!fb || (nfiles == 2 && !fa))
		return EXIT_INPUT;
	struct annotations ann;
	memset(&ann, 0, sizeof(ann));
	if (o.annotations) {
		struct diag d;
		diag_init(&d, stderr);
		if (annotations_load(&ann, o.annotations, &d) < 0) {
			annotations_free(&ann);
			return EXIT_INPUT;
		}
	}
	int rc = nfiles == 1 ? one_module(fb, &o, o.annotations ? &ann : NULL)
			     : before_after(fb, fa, &o,
					    o.annotations ? &ann : NULL);
	annotations_free(&ann);
	return rc;
}
