/* report_gate.c - `hloproof gate` in text and JSON (struct gate_result,
 * gate.h). Strings from the modules go through report_json_string, as in
 * report_json.c. */
#include "gate.h"
#include "report.h"
#include "report_source.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	if (c->kind && !strcmp(c->kind, "fused"))
		fprintf(out, "%s: %s = fusion(%s) in %s, a fused copy, %" PRIu64 " bytes, family %s", what,
			c->name, c->operand ? c->operand : "?", c->computation, c->bytes, family_text(c));
	else if (c->kind && !strcmp(c->kind, "async"))
		fprintf(out, "%s: %s = copy-start(%s) / %s in %s, an asynchronous copy, %" PRIu64
			" bytes, family %s", what, c->name, c->operand ? c->operand : "?",
			c->done ? c->done : "no copy-done", c->computation, c->bytes, family_text(c));
	else
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

static void text_finding(FILE *out, const char *what, const struct finding *f, int color)
{
	const char *c = !color ? "" : f->severity == SEV_ERROR ? REPORT_C_RED
		      : f->severity == SEV_WARNING ? REPORT_C_MAGENTA : REPORT_C_CYAN;
	text_where(out, f->file, f->line, f->col);
	fprintf(out, "%s: %s%s%s: %s [%s %s] (fingerprint %s)\n", what, c, severity_name(f->severity),
		color ? REPORT_C_RESET : "", f->message, f->rule->id, f->rule->slug, f->fingerprint);
}

int report_gate_text(FILE *out, const struct gate_result *r)
{
	const struct gate_totals *v = r->v;
	const struct gate_pair_result *p = r->pairs;
	int32_t np = r->n_pairs;
	for (int32_t i = 0; i < np; i++) {
		const struct gate_diff *d = &p[i].diff;
		const char *bf = p[i].base->file, *hf = p[i].head->file;
		fprintf(out, "gate: %s -> %s (module %s)\n", bf ? bf : "(new module)", hf, p[i].head->name);
		for (int side = 0; side < 2; side++) {
			const struct gate_module *g = side ? p[i].head : p[i].base;
			if (!g || !g->unknown)
				continue;
			text_where(out, g->file, g->unknown_line, g->unknown_col);
			fprintf(out, "%s: %d cop%s unknown: %s\n", side ? "HEAD" : "BASE", g->n_copies,
				g->n_copies == 1 ? "y" : "ies", g->unknown);
		}
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
			text_finding(out, "new finding", d->new_findings[k], r->color);
		for (int32_t k = 0; k < d->n_fixed; k++)
			text_finding(out, "fixed finding", d->fixed_findings[k], r->color);
	}
	for (int32_t i = 0; i < r->n_only_base; i++)
		fprintf(out, "gate: module removed, only in BASE: %s (module %s)\n", r->only_base[i].file,
			r->only_base[i].g->name);
	for (int32_t j = 0; j < r->n_only_head; j++)
		fprintf(out, "gate: only in HEAD: %s (module %s)\n", r->only_head[j].file,
			r->only_head[j].g->name);
	if (r->n_new || r->n_only_base)
		fprintf(out, "gate: %d new module%s, %d removed\n", r->n_new, r->n_new == 1 ? "" : "s",
			r->n_only_base);
	np -= r->n_new; /* the pairs proper */
	fprintf(out,
		"gate: %d module pair%s; copies: %d added (%" PRIu64 " bytes), %d removed (%" PRIu64
		" bytes), %d unchanged; donations: %d lost (%" PRIu64 " bytes), %d gained; findings: %d new, %d fixed\n",
		np, np == 1 ? "" : "s", v->added, v->added_bytes, v->removed, v->removed_bytes, v->kept,
		v->lost, v->lost_bytes, v->gained, v->new_findings, v->fixed);
	if (v->regressed_copies || v->regressed_donations || v->regressed_findings) {
		fprintf(out, "gate: %sHEAD regresses:%s", r->color ? REPORT_C_RED : "",
			r->color ? REPORT_C_RESET : "");
		const char *sep = " ";
		if (v->regressed_copies) {
			fprintf(out, "%s%" PRIu64 " bytes of new copies (more than --max-new-copy-bytes=%" PRIu64 ")",
				sep, v->added_bytes, r->max_new_copy_bytes);
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
	} else if (r->unknown) {
		fprintf(out, "gate: unknown: %d module%s could not be analysed\n", r->unknown,
			r->unknown == 1 ? "" : "s");
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

static json_t *copy_json(const char *file, const struct gate_copy *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(file));
	json_object_set_new(o, "line", json_integer(c->line));
	json_object_set_new(o, "column", json_integer(c->col));
	json_object_set_new(o, "computation", report_json_string(c->computation));
	json_object_set_new(o, "name", report_json_string(c->name));
	json_object_set_new(o, "kind", report_json_string_or_null(c->kind));
	json_object_set_new(o, "copy_done", report_json_string_or_null(c->done));
	json_object_set_new(o, "operand", report_json_string_or_null(c->operand));
	json_object_set_new(o, "operand_opcode", report_json_string_or_null(c->operand_opcode));
	json_object_set_new(o, "family", report_json_string_or_null(c->family));
	json_t *v = json_object();
	json_object_set_new(v, "given", report_json_string_or_null(c->verdict_given));
	json_object_set_new(v, "any", report_json_string_or_null(c->verdict));
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
	json_object_set_new(o, "output_index", report_json_string_or_null(d->output_index));
	json_object_set_new(o, "copied", json_boolean(d->copied));
	json_object_set_new(o, "verdict", report_json_string_or_null(d->verdict));
	json_object_set_new(o, "reason", report_json_string_or_null(d->reason));
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
	json_object_set_new(o, "arg_path", report_json_string_or_null(d->arg_path));
	json_object_set_new(o, "bytes", json_integer((json_int_t)d->bytes));
	json_object_set_new(o, "base", donation_state_json(base));
	json_object_set_new(o, "head", donation_state_json(head));
	return o;
}


static json_t *module_ref(const struct gate_module *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(g->file));
	json_object_set_new(o, "module", report_json_string(g->name));
	return o;
}

int report_gate_json(FILE *out, const struct gate_result *r)
{
	const struct gate_totals *v = r->v;
	const struct gate_pair_result *p = r->pairs;
	int32_t np = r->n_pairs;
	json_t *root = json_object();
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("hloproof"));
	json_object_set_new(tool, "version", json_string(HLOPROOF_VERSION));
	json_object_set_new(root, "tool", tool);
	json_t *th = json_object();
	json_object_set_new(th, "max_new_copy_bytes", json_integer((json_int_t)r->max_new_copy_bytes));
	json_object_set_new(th, "allow_lost_donations", json_boolean(r->allow_lost_donations));
	json_object_set_new(th, "fail_on_new", json_string(fail_on_name(r->fail_on_new)));
	json_object_set_new(root, "thresholds", th);
	json_t *pairs = json_array();
	for (int32_t i = 0; i < np; i++) {
		const struct gate_diff *d = &p[i].diff;
		const char *bf = p[i].base->file, *hf = p[i].head->file;
		json_t *po = json_object();
		json_object_set_new(po, "base", bf ? module_ref(p[i].base) : json_null());
		json_object_set_new(po, "head", module_ref(p[i].head));
		json_t *dec = json_object();
		json_object_set_new(dec, "copies", json_boolean(p[i].base->decided_copies &&
								 p[i].head->decided_copies));
		json_object_set_new(dec, "donations", json_boolean(p[i].base->decided_donations &&
								    p[i].head->decided_donations));
		json_object_set_new(dec, "base_unknown", p[i].base && p[i].base->unknown
							 ? json_string(p[i].base->unknown) : json_null());
		json_object_set_new(dec, "head_unknown", p[i].head->unknown ? json_string(p[i].head->unknown)
									  : json_null());
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
			json_array_append_new(a, report_finding_json(d->new_findings[k], 0));
		json_object_set_new(po, "new_findings", a);
		a = json_array();
		for (int32_t k = 0; k < d->n_fixed; k++)
			json_array_append_new(a, report_finding_json(d->fixed_findings[k], 0));
		json_object_set_new(po, "fixed_findings", a);
		json_array_append_new(pairs, po);
	}
	json_object_set_new(root, "pairs", pairs);
	json_t *ub = json_array(), *uh = json_array();
	for (int32_t i = 0; i < r->n_only_base; i++)
		json_array_append_new(ub, module_ref(r->only_base[i].g));
	for (int32_t j = 0; j < r->n_only_head; j++)
		json_array_append_new(uh, module_ref(r->only_head[j].g));
	json_object_set_new(root, "only_in_base", ub);
	json_object_set_new(root, "only_in_head", uh);
	json_t *s = json_object();
	json_object_set_new(s, "pairs", json_integer(np - r->n_new));
	json_object_set_new(s, "modules_new", json_integer(r->n_new));
	json_object_set_new(s, "modules_removed", json_integer(r->n_only_base));
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
	json_object_set_new(s, "modules_unknown", json_integer(r->unknown));
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

