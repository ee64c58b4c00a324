/* report_donation.c - `hloproof donation` in text and JSON: one module's
 * donations, or what AFTER did with BEFORE's requests. Every string from
 * the module goes through report_json_string, as in report_json.c, so a
 * name that is not UTF-8 is shown cleaned, never dropped. */
#include "donation.h"
#include "lines.h"
#include "donormatch.h"
#include "report.h"
#include "report_source.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[] = {"honored", "honored-through-copy", "dropped"};

void donation_violations_add(struct donation_violations *v, const char *msg)
{
	if (v->n == v->cap) {
		int32_t cap = v->cap ? 2 * v->cap : 8;
		char **m = xrealloc(v->msg, (size_t)cap, sizeof(*m));
		v->msg = m;
		v->cap = cap;
	}
	v->msg[v->n++] = xstrdup(msg);
}

void donation_violations_free(struct donation_violations *v)
{
	for (int32_t i = 0; i < v->n; i++)
		free(v->msg[i]);
	free(v->msg);
	memset(v, 0, sizeof(*v));
}

static const char *vname(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "null";
}

static json_t *jstr(const char *s)
{
	return s ? report_json_string(s) : json_null();
}

static json_t *index_json(const struct shape_index *ix)
{
	char buf[256];
	if (!ix)
		return json_null();
	shape_index_to_string(ix, buf, sizeof(buf));
	return report_json_string(buf);
}

static int dump(FILE *out, json_t *root)
{
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return rc < 0 || ferror(out) ? -1 : 0;
}

static void print_evidence(FILE *out, const char *e)
{
	size_t n;
	for (const char *p = e, *l; (l = line_next(&p, &n));)
		fprintf(out, "    %.*s\n", (int)n, l);
}

static void text_violations(FILE *out, const char *file, const struct donation_violations *v,
			    int color)
{
	for (int32_t i = 0; v && i < v->n; i++)
		fprintf(out, "%s: %sannotation violated:%s %s\n", file, color ? REPORT_C_RED : "",
			color ? REPORT_C_RESET : "", v->msg[i]);
}

/* A verdict that makes the donation a finding, in colour. */
static const char *vcolor(int color, enum verdict v)
{
	return !color ? "" : v == VERDICT_UNSAFE ? REPORT_C_RED
	       : v == VERDICT_NOT_HONORED ? REPORT_C_MAGENTA : "";
}

static json_t *violations_json(const struct donation_violations *v)
{
	json_t *a = json_array();
	for (int32_t i = 0; i < v->n; i++)
		json_array_append_new(a, report_json_string(v->msg[i]));
	return a;
}

/* ---- one module ---- */

static json_t *report_json_one(const struct hlo_module *m, const struct donation_report *r)
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
	json_object_set_new(o, "reading", json_string(donation_reading_name(donation_reading(m, r))));
	if (r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges) {
		json_object_set_new(o, "edge", report_json_string(r->edges));
	} else {
		json_object_set_new(o, "edge", json_null());
	}
	json_object_set_new(o, "reason", jstr(r->reason));
	report_add_source(o, r->param_instr, NULL);
	return o;
}

int report_donation_json(FILE *out, const struct donation_module_view *v)
{
	json_t *root = json_object(), *arr = json_array(), *cnt = json_object();
	json_object_set_new(root, "file", report_json_string(v->file));
	json_object_set_new(root, "name", jstr(v->m->name));
	json_object_set_new(root, "scheduled", json_boolean(v->m->is_scheduled));
	for (int32_t i = 0; i < v->n; i++)
		json_array_append_new(arr, report_json_one(v->m, &v->r[i]));
	json_object_set_new(root, "donations", arr);
	for (int k = VERDICT_SAFE; k <= VERDICT_NOT_HONORED; k++)
		json_object_set_new(cnt, verdict_name((enum verdict)k), json_integer(v->counts[k]));
	json_object_set_new(cnt, "unknown", json_integer(v->counts[VERDICT_UNKNOWN]));
	json_object_set_new(cnt, "schedule-dependent",
			    json_integer(v->counts[VERDICT_SCHEDULE_DEPENDENT]));
	json_object_set_new(root, "counts", cnt);
	if (v->violations)
		json_object_set_new(root, "annotation_violations", violations_json(v->violations));
	return dump(out, root);
}

static void print_report_line(FILE *out, const struct hlo_module *m, const struct donation_report *r,
			      int color)
{
	char pd[256], oi[128] = "";
	describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
	if (r->output_index) {
		char ix[100];
		shape_index_to_string(r->output_index, ix, sizeof(ix));
		snprintf(oi, sizeof(oi), " -> output %s", ix);
	}
	const char *cg = vcolor(color, r->given), *ca = vcolor(color, r->any);
	fprintf(out, "%s%s %s, %llu bytes: ", pd, oi, donation_kind_name(r->kind),
		(unsigned long long)r->bytes);
	if (m->is_scheduled) /* no given schedule otherwise: no "given=null" */
		fprintf(out, "given=%s%s%s ", cg, vname(r->given), *cg ? REPORT_C_RESET : "");
	fprintf(out, "any=%s%s%s", ca, vname(r->any), *ca ? REPORT_C_RESET : "");
	if (r->any == VERDICT_NOT_HONORED && r->reason)
		fprintf(out, " (%s)", r->reason);
	if (r->any == VERDICT_UNKNOWN && r->reason)
		fprintf(out, " (%s)", r->reason);
	if (r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges)
		fprintf(out, " (safe with %s)", r->edges);
	if (r->copied)
		fprintf(out, "; honored through copy %s, %llu bytes: no memory saved",
			r->copy ? r->copy->name : "?", (unsigned long long)r->copy_bytes);
	if (r->kind == DONATION_MUST_ALIAS)
		fprintf(out, "; callers must donate");
	/* the reading check's rules report (donation.h) */
	enum donation_reading x = donation_reading(m, r);
	const struct rule *rule = donation_reading_rule(x) ? rule_lookup(donation_reading_rule(x)) : NULL;
	fprintf(out, "; reading: %s", donation_reading_name(x));
	if (rule)
		fprintf(out, " [%s %s]", rule->id, rule->slug);
	fprintf(out, "\n");
}

int report_donation_text(FILE *out, const struct donation_module_view *v)
{
	const struct hlo_module *m = v->m;
	fprintf(out, "%s: module %s (%s): %d donation%s\n", v->file, m->name ? m->name : "?",
		m->is_scheduled ? "scheduled" : "not scheduled", v->n, v->n == 1 ? "" : "s");
	for (int32_t i = 0; i < v->n; i++) {
		print_report_line(out, m, &v->r[i], v->color);
		if (v->evidence)
			print_evidence(out, v->r[i].evidence);
	}
	const int32_t *c = v->counts;
	fprintf(out, "verdicts: %d safe, %d unsafe, %d schedule-dependent, %d unknown, %d not-honored\n",
		c[VERDICT_SAFE], c[VERDICT_UNSAFE], c[VERDICT_SCHEDULE_DEPENDENT], c[VERDICT_UNKNOWN],
		c[VERDICT_NOT_HONORED]);
	text_violations(out, v->file, v->violations, v->color);
	return ferror(out) ? -1 : 0;
}

/* ---- before and after ---- */

int report_donation_pair_json(FILE *out, const struct donation_pair_view *v)
{
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "before", report_json_string(v->before));
	json_object_set_new(root, "after", report_json_string(v->after));
	json_object_set_new(root, "after_scheduled", json_boolean(v->ma->is_scheduled));
	for (int32_t i = 0; i < v->n_requested; i++) {
		const struct donation_outcome_row *w = &v->rows[i];
		const struct donation_report *rq = w->rq, *got = w->got;
		json_t *e = json_object();
		json_object_set_new(e, "param", json_integer(rq->param));
		json_object_set_new(e, "param_index", index_json(&rq->param_index));
		json_object_set_new(e, "arg_path", jstr(rq->arg_path));
		json_object_set_new(e, "requested", json_string(donation_kind_name(rq->kind)));
		json_object_set_new(e, "requested_output", index_json(rq->output_index));
		json_object_set_new(e, "outcome", json_string(outcome_names[w->oc]));
		json_object_set_new(e, "output_index", index_json(w->out));
		json_object_set_new(e, "bytes", json_integer((json_int_t)rq->bytes));
		json_object_set_new(e, "saved", json_integer((json_int_t)w->saved));
		json_object_set_new(e, "lost", json_integer((json_int_t)w->lost));
		json_t *vd = json_object();
		json_object_set_new(vd, "given", jstr(got ? verdict_name(got->given) : NULL));
		json_object_set_new(vd, "any", jstr(got ? verdict_name(got->any) : NULL));
		json_object_set_new(e, "verdict", vd);
		json_object_set_new(e, "reason", jstr(w->why));
		json_object_set_new(e, "evidence", jstr(got ? got->evidence : NULL));
		report_add_source(e, rq->param_instr, NULL);
		json_array_append_new(arr, e);
	}
	json_t *added = json_array();
	for (int32_t i = 0; i < v->n_added; i++) {
		const struct donation_report *r = v->added[i];
		json_t *e = json_object();
		json_object_set_new(e, "param", json_integer(r->param));
		json_object_set_new(e, "param_index", index_json(&r->param_index));
		json_object_set_new(e, "output_index", index_json(r->output_index));
		json_object_set_new(e, "kind", json_string(donation_kind_name(r->kind)));
		json_array_append_new(added, e);
	}
	json_object_set_new(root, "donations", arr);
	json_object_set_new(root, "added", added);
	json_t *sum = json_object();
	json_object_set_new(sum, "requested", json_integer(v->n_requested));
	json_object_set_new(sum, "requested_bytes", json_integer((json_int_t)v->requested_bytes));
	json_object_set_new(sum, "honored", json_integer(v->n_outcome[DONATION_HONORED]));
	json_object_set_new(sum, "honored_through_copy", json_integer(v->n_outcome[DONATION_HONORED_COPY]));
	json_object_set_new(sum, "dropped", json_integer(v->n_outcome[DONATION_DROPPED]));
	json_object_set_new(sum, "saved_bytes", json_integer((json_int_t)v->saved));
	json_object_set_new(sum, "lost_bytes", json_integer((json_int_t)v->lost));
	json_object_set_new(root, "summary", sum);
	if (v->violations)
		json_object_set_new(root, "annotation_violations", violations_json(v->violations));
	return dump(out, root);
}

int report_donation_pair_text(FILE *out, const struct donation_pair_view *v)
{
	fprintf(out, "%s -> %s: %d donated lea%s requested; after: %s\n", v->before, v->after,
		v->n_requested, v->n_requested == 1 ? "f" : "ves",
		v->ma->is_scheduled ? "scheduled" : "not scheduled");
	for (int32_t i = 0; i < v->n_requested; i++) {
		const struct donation_outcome_row *w = &v->rows[i];
		const struct donation_report *rq = w->rq, *got = w->got;
		char pd[256], oi[100] = "";
		describe_param(pd, sizeof(pd), v->mb, rq->param, &rq->param_index);
		if (w->out)
			shape_index_to_string(w->out, oi, sizeof(oi));
		fprintf(out, "%s, %llu bytes (%s): ", pd, (unsigned long long)rq->bytes,
			donation_kind_name(rq->kind));
		if (w->oc == DONATION_HONORED)
			fprintf(out, "honored into output %s; saved %llu bytes", oi,
				(unsigned long long)w->saved);
		else if (w->oc == DONATION_HONORED_COPY)
			fprintf(out, "honored into output %s through a copy%s%s; no memory saved, lost %llu bytes",
				oi, got->copy ? " " : "", got->copy ? got->copy->name : "",
				(unsigned long long)w->lost);
		else
			fprintf(out, "dropped; lost %llu bytes", (unsigned long long)w->lost);
		if (got && got->any != VERDICT_NOT_HONORED && v->ma->is_scheduled)
			fprintf(out, "; given=%s any=%s", vname(got->given), vname(got->any));
		else if (got && got->any != VERDICT_NOT_HONORED)
			fprintf(out, "; any=%s", vname(got->any));
		if (w->why)
			fprintf(out, " (%s)", w->why);
		fprintf(out, "\n");
		if (v->evidence && got)
			print_evidence(out, got->evidence);
	}
	for (int32_t i = 0; i < v->n_added; i++) {
		const struct donation_report *r = v->added[i];
		char pd[256], oi[100] = "{}";
		describe_param(pd, sizeof(pd), v->ma, r->param, &r->param_index);
		if (r->output_index)
			shape_index_to_string(r->output_index, oi, sizeof(oi));
		fprintf(out, "added by the compiler (not requested): output %s <- %s (%s)\n", oi, pd,
			donation_kind_name(r->kind));
	}
	fprintf(out, "summary: %d requested (%llu bytes): %d honored, %d through a copy, %d dropped; "
		"saved %llu bytes, lost %llu bytes\n", v->n_requested,
		(unsigned long long)v->requested_bytes, v->n_outcome[DONATION_HONORED],
		v->n_outcome[DONATION_HONORED_COPY], v->n_outcome[DONATION_DROPPED],
		(unsigned long long)v->saved, (unsigned long long)v->lost);
	text_violations(out, v->after, v->violations, v->color);
	return ferror(out) ? -1 : 0;
}
