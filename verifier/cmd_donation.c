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
 * (or an annotation is violated), 2 for bad input. */
#include "analysis.h"
#include "annotations.h"
#include "cli.h"
#include "donation.h"
#include "donormatch.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opts {
	int json, evidence;
	const char *annotations;
	long timeout_ms;
};

/* One parsed and analysed module with its donation reports. */
struct side {
	const char *file;
	struct hlo_module *m;
	struct analysis *an;
	struct donation_report *r;
	int32_t n;
	const char *why;   /* why the analysis did not run, or NULL */
	char whybuf[600];
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
	if (analyse && (s->m->n_aliases || s->m->n_donors)) {
		struct analysis_options ao;
		analysis_default_options(&ao);
		if (o->timeout_ms > 0)
			ao.timeout_ms = (int)o->timeout_ms;
		struct diag ad;
		diag_init(&ad, NULL);
		s->an = analysis_run(s->m, &ao, &ad);
		if (!s->an) {
			snprintf(s->whybuf, sizeof(s->whybuf), "the module could not be analysed: %s",
				 ad.errors ? ad.first : "unsupported construct");
			s->why = s->whybuf;
		}
	} else if (!analyse) {
		s->why = "not analysed (the donation request only)";
	}
	s->n = s->an ? donations_analyse(s->an, &s->r) : donations_unanalysed(s->m, s->why, &s->r);
	return s->n < 0 ? -2 : 0;
}

static void unload(struct side *s)
{
	analysis_free(s->an);
	hlo_module_free(s->m);
}

static const char *vname(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "null";
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *index_json(const struct shape_index *ix)
{
	char buf[256];
	if (!ix)
		return json_null();
	shape_index_to_string(ix, buf, sizeof(buf));
	return json_string(buf);
}

/* A donation that is not honored for free: the status of the command. */
static int is_finding(const struct hlo_module *m, const struct donation_report *r)
{
	if (r->any == VERDICT_NOT_HONORED || r->given == VERDICT_UNSAFE || r->copied)
		return 1;
	return donation_copy_predicted(m, r) || (!m->is_scheduled && r->any == VERDICT_UNSAFE);
}

static void print_evidence(const char *e)
{
	while (e && *e) {
		const char *nl = strchr(e, '\n');
		int n = nl ? (int)(nl - e) : (int)strlen(e);
		printf("    %.*s\n", n, e);
		e = nl ? nl + 1 : e + n;
	}
}

/* ---- annotations ---- */

struct vio_sink {
	json_t *arr;     /* JSON: violations array, else NULL (print) */
	const char *file;
};

static void on_violation(void *p, const struct annotation_violation *v)
{
	struct vio_sink *s = p;
	if (s->arr)
		json_array_append_new(s->arr, json_string(v->message));
	else
		printf("%s: annotation violated: %s\n", s->file, v->message);
}

static int32_t check_annotations(const struct annotations *ann, const struct side *s, json_t *arr)
{
	struct vio_sink sink = {arr, s->file};
	return ann ? annotations_check(ann, s->m, s->r, s->n, on_violation, &sink) : 0;
}

/* ---- one module ---- */

static json_t *report_json(const struct donation_report *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "param", json_integer(r->param));
	json_object_set_new(o, "param_index", index_json(&r->param_index));
	json_object_set_new(o, "output_index", index_json(r->output_index));
	json_object_set_new(o, "kind", json_string(donation_kind_name(r->kind)));
	json_t *v = json_object();
	json_object_set_new(v, "given", jstr(verdict_name(r->given)));
	json_object_set_new(v, "any", jstr(verdict_name(r->any)));
	json_object_set_new(o, "verdict", v);
	json_object_set_new(o, "evidence", jstr(r->evidence));
	json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
	json_object_set_new(o, "arg_path", jstr(r->arg_path));
	json_object_set_new(o, "copied", json_boolean(r->copied));
	json_object_set_new(o, "copy_bytes", json_integer((json_int_t)r->copy_bytes));
	if (r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges) {
		json_object_set_new(o, "edge", json_string(r->edges));
	} else {
		json_object_set_new(o, "edge", json_null());
	}
	json_object_set_new(o, "reason", jstr(r->reason));
	return o;
}

static void print_report_line(const struct hlo_module *m, const struct donation_report *r)
{
	char pd[256], oi[128] = "";
	describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
	if (r->output_index) {
		char ix[100];
		shape_index_to_string(r->output_index, ix, sizeof(ix));
		snprintf(oi, sizeof(oi), " -> output %s", ix);
	}
	printf("%s%s %s, %llu bytes: given=%s any=%s", pd, oi, donation_kind_name(r->kind),
	       (unsigned long long)r->bytes, vname(r->given), vname(r->any));
	if (r->any == VERDICT_NOT_HONORED && r->reason)
		printf(" (%s)", r->reason);
	if (r->any == VERDICT_UNKNOWN && r->reason)
		printf(" (%s)", r->reason);
	if (r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges)
		printf(" (safe with %s)", r->edges);
	if (r->copied)
		printf("; honored through copy %s, %llu bytes: no memory saved",
		       r->copy ? r->copy->name : "?", (unsigned long long)r->copy_bytes);
	if (r->kind == DONATION_MUST_ALIAS)
		printf("; callers must donate");
	printf("\n");
}

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
	int findings = 0;
	for (int32_t i = 0; i < s.n; i++)
		findings |= is_finding(s.m, &s.r[i]);
	if (o->json) {
		json_t *root = json_object(), *arr = json_array(), *cnt = json_object();
		json_object_set_new(root, "file", json_string(file));
		json_object_set_new(root, "name", jstr(s.m->name));
		json_object_set_new(root, "scheduled", json_boolean(s.m->is_scheduled));
		for (int32_t i = 0; i < s.n; i++)
			json_array_append_new(arr, report_json(&s.r[i]));
		json_object_set_new(root, "donations", arr);
		for (int v = VERDICT_SAFE; v <= VERDICT_NOT_HONORED; v++)
			json_object_set_new(cnt, verdict_name((enum verdict)v), json_integer(counts[v]));
		json_object_set_new(cnt, "unknown", json_integer(counts[VERDICT_UNKNOWN]));
		json_object_set_new(cnt, "schedule-dependent",
				    json_integer(counts[VERDICT_SCHEDULE_DEPENDENT]));
		json_object_set_new(root, "counts", cnt);
		if (ann) {
			json_t *va = json_array();
			findings |= check_annotations(ann, &s, va) > 0;
			json_object_set_new(root, "annotation_violations", va);
		}
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	} else {
		printf("%s: module %s (%s): %d donation%s\n", file, s.m->name ? s.m->name : "?",
		       s.m->is_scheduled ? "scheduled" : "not scheduled", s.n, s.n == 1 ? "" : "s");
		for (int32_t i = 0; i < s.n; i++) {
			print_report_line(s.m, &s.r[i]);
			if (o->evidence)
				print_evidence(s.r[i].evidence);
		}
		printf("verdicts: %d safe, %d unsafe, %d schedule-dependent, %d unknown, %d not-honored\n",
		       counts[VERDICT_SAFE], counts[VERDICT_UNSAFE], counts[VERDICT_SCHEDULE_DEPENDENT],
		       counts[VERDICT_UNKNOWN], counts[VERDICT_NOT_HONORED]);
		findings |= check_annotations(ann, &s, NULL) > 0;
	}
	unload(&s);
	return findings ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* ---- before and after ---- */

enum outcome { HONORED = 0, HONORED_COPY, DROPPED };
static const char *const outcome_names[] = {"honored", "honored-through-copy", "dropped"};

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
	int findings = 0;
	uint64_t saved = 0, lost = 0, requested_bytes = 0;
	int n_outcome[3] = {0};
	json_t *root = NULL, *arr = NULL;
	if (o->json) {
		root = json_object();
		arr = json_array();
		json_object_set_new(root, "before", json_string(bfile));
		json_object_set_new(root, "after", json_string(afile));
		json_object_set_new(root, "after_scheduled", json_boolean(a.m->is_scheduled));
	} else {
		printf("%s -> %s: %d donated lea%s requested; after: %s\n", bfile, afile, b.n,
		       b.n == 1 ? "f" : "ves", a.m->is_scheduled ? "scheduled" : "not scheduled");
	}
	for (int32_t i = 0; i < b.n; i++) {
		const struct donation_report *rq = &b.r[i];
		const struct donation_report *got = find(&a, rq->param, &rq->param_index);
		enum outcome oc;
		const char *why = NULL;
		const struct shape_index *out = NULL;
		char reason[700] = "";
		if (!got) {
			oc = DROPPED;
			snprintf(reason, sizeof(reason), "AFTER neither aliases nor donates it%s%s",
				 rq->any == VERDICT_NOT_HONORED ? "; BEFORE already predicted: " : "",
				 rq->any == VERDICT_NOT_HONORED && rq->reason ? rq->reason : "");
			why = reason;
		} else if (got->any == VERDICT_NOT_HONORED) {
			oc = DROPPED;
			snprintf(reason, sizeof(reason), "still a buffer_donor in AFTER, and no output will "
				 "reuse it: %s", got->reason ? got->reason : "not honored");
			why = reason;
		} else {
			out = got->output_index;
			int predicted_copy = donation_copy_predicted(a.m, got);
			oc = got->copied || predicted_copy ? HONORED_COPY : HONORED;
			if (got->kind == DONATION_BUFFER_DONOR)
				why = "AFTER still lists it as buffer_donor; the output is XLA's predicted match";
			if (rq->output_index && out && !shape_index_equal(rq->output_index, out)) {
				char x[100], y[100];
				shape_index_to_string(rq->output_index, x, sizeof(x));
				shape_index_to_string(out, y, sizeof(y));
				snprintf(reason, sizeof(reason), "BEFORE asked for output %s, AFTER uses %s", x, y);
				why = reason;
			}
		}
		uint64_t s_b = oc == HONORED ? rq->bytes : 0, l_b = oc == HONORED ? 0 : rq->bytes;
		saved += s_b;
		lost += l_b;
		requested_bytes += rq->bytes;
		n_outcome[oc]++;
		int bad = oc != HONORED || (got && got->given == VERDICT_UNSAFE);
		findings |= bad;
		char pd[256];
		describe_param(pd, sizeof(pd), b.m, rq->param, &rq->param_index);
		if (o->json) {
			json_t *e = json_object();
			json_object_set_new(e, "param", json_integer(rq->param));
			json_object_set_new(e, "param_index", index_json(&rq->param_index));
			json_object_set_new(e, "arg_path", jstr(rq->arg_path));
			json_object_set_new(e, "requested", json_string(donation_kind_name(rq->kind)));
			json_object_set_new(e, "requested_output", index_json(rq->output_index));
			json_object_set_new(e, "outcome", json_string(outcome_names[oc]));
			json_object_set_new(e, "output_index", index_json(out));
			json_object_set_new(e, "bytes", json_integer((json_int_t)rq->bytes));
			json_object_set_new(e, "saved", json_integer((json_int_t)s_b));
			json_object_set_new(e, "lost", json_integer((json_int_t)l_b));
			json_t *v = json_object();
			json_object_set_new(v, "given", jstr(got ? verdict_name(got->given) : NULL));
			json_object_set_new(v, "any", jstr(got ? verdict_name(got->any) : NULL));
			json_object_set_new(e, "verdict", v);
			json_object_set_new(e, "reason", jstr(why));
			json_object_set_new(e, "evidence", jstr(got ? got->evidence : NULL));
			json_array_append_new(arr, e);
		} else {
			char oi[100] = "";
			if (out)
				shape_index_to_string(out, oi, sizeof(oi));
			printf("%s, %llu bytes (%s): ", pd, (unsigned long long)rq->bytes,
			       donation_kind_name(rq->kind));
			if (oc == HONORED)
				printf("honored into output %s; saved %llu bytes", oi, (unsigned long long)s_b);
			else if (oc == HONORED_COPY)
				printf("honored into output %s through a copy%s%s; no memory saved, lost %llu bytes",
				       oi, got->copy ? " " : "", got->copy ? got->copy->name : "",
				       (unsigned long long)l_b);
			else
				printf("dropped; lost %llu bytes", (unsigned long long)l_b);
			if (got && got->any != VERDICT_NOT_HONORED)
				printf("; given=%s any=%s", vname(got->given), vname(got->any));
			if (why)
				printf(" (%s)", why);
			printf("\n");
			if (o->evidence && got)
				print_evidence(got->evidence);
		}
	}
	/* what AFTER aliases that BEFORE did not ask for */
	json_t *added = o->json ? json_array() : NULL;
	for (int32_t i = 0; i < a.n; i++) {
		const struct donation_report *r = &a.r[i];
		if (find(&b, r->param, &r->param_index) || r->kind == DONATION_BUFFER_DONOR)
			continue;
		char pd[256], oi[100] = "{}";
		describe_param(pd, sizeof(pd), a.m, r->param, &r->param_index);
		if (r->output_index)
			shape_index_to_string(r->output_index, oi, sizeof(oi));
		if (added) {
			json_t *e = json_object();
			json_object_set_new(e, "param", json_integer(r->param));
			json_object_set_new(e, "param_index", index_json(&r->param_index));
			json_object_set_new(e, "output_index", index_json(r->output_index));
			json_object_set_new(e, "kind", json_string(donation_kind_name(r->kind)));
			json_array_append_new(added, e);
		} else {
			printf("added by the compiler (not requested): output %s <- %s (%s)\n", oi, pd,
			       donation_kind_name(r->kind));
		}
	}
	if (o->json) {
		json_object_set_new(root, "donations", arr);
		json_object_set_new(root, "added", added);
		json_t *sum = json_object();
		json_object_set_new(sum, "requested", json_integer(b.n));
		json_object_set_new(sum, "requested_bytes", json_integer((json_int_t)requested_bytes));
		json_object_set_new(sum, "honored", json_integer(n_outcome[HONORED]));
		json_object_set_new(sum, "honored_through_copy", json_integer(n_outcome[HONORED_COPY]));
		json_object_set_new(sum, "dropped", json_integer(n_outcome[DROPPED]));
		json_object_set_new(sum, "saved_bytes", json_integer((json_int_t)saved));
		json_object_set_new(sum, "lost_bytes", json_integer((json_int_t)lost));
		json_object_set_new(root, "summary", sum);
		if (ann) {
			json_t *va = json_array();
			findings |= check_annotations(ann, &a, va) > 0;
			json_object_set_new(root, "annotation_violations", va);
		}
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	} else {
		printf("summary: %d requested (%llu bytes): %d honored, %d through a copy, %d dropped; "
		       "saved %llu bytes, lost %llu bytes\n", b.n, (unsigned long long)requested_bytes,
		       n_outcome[HONORED], n_outcome[HONORED_COPY], n_outcome[DROPPED],
		       (unsigned long long)saved, (unsigned long long)lost);
		findings |= check_annotations(ann, &a, NULL) > 0;
	}
	unload(&a);
	unload(&b);
	return findings ? EXIT_FINDINGS : EXIT_CLEAN;
}

int cmd_donation(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"format", required_argument, 0, 'f'},
		{"annotations", required_argument, 0, 'A'},
		{"timeout-ms", required_argument, 0, 't'},
		{"evidence", no_argument, 0, 'e'},
		{0, 0, 0, 0},
	};
	struct opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
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
		case 't': {
			char *end;
			long t = strtol(optarg, &end, 10);
			if (*end || end == optarg || t < 0 || t > 86400000L)
				return cli_usage_error("donation", "--timeout-ms takes a number of milliseconds, not '%s'", optarg);
			o.timeout_ms = t;
			break;
		}
		case 'e':
			o.evidence = 1;
			break;
		default:
			return cli_usage_error("donation", "bad option");
		}
	}
	int nfiles = argc - optind;
	if (nfiles < 1 || nfiles > 2)
		return cli_usage_error("donation", nfiles < 1 ? "no input file" : "too many input files");
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
	int rc = nfiles == 1 ? one_module(argv[optind], &o, o.annotations ? &ann : NULL)
			     : before_after(argv[optind], argv[optind + 1], &o,
					    o.annotations ? &ann : NULL);
	annotations_free(&ann);
	return rc;
}
