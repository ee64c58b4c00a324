/* report_fix.c - `hloproof fix`: the report in text and JSON (docs/fix.md),
 * and the unified diff of the module text (fixdiff.h). */
#include "report_fix.h"
#include "report.h"
#include "report_source.h"
#include "source.h"
#include "timeline.h" /* tl_format_bytes */
#include <jansson.h>
#include <string.h>

static const char *kept_name(enum fix_kept k)
{
	switch (k) {
	case FIX_REMOVED: return "removed";
	case FIX_KEPT_VERDICT: return "verdict";
	case FIX_KEPT_CONFLICT: return "conflict";
	case FIX_KEPT_EDGES: return "edges";
	case FIX_KEPT_UNTRIED: return "untried";
	case FIX_KEPT_NOOP: return "no-op";
	}
	return "?";
}

/* "32.0 KiB", "32.0 KiB x 8 iterations = 256.0 KiB per step", "32.0 KiB per
 * iteration, trip count unknown" */
static void cost_text(const struct fix_copy *c, char *buf, size_t cap)
{
	char b[64], t[64];
	tl_format_bytes(c->r->bytes, b, sizeof(b));
	if (c->trips > 0) {
		uint64_t tot = c->r->bytes * (uint64_t)c->trips;
		if (c->trips && tot / (uint64_t)c->trips != c->r->bytes)
			tot = UINT64_MAX;
		tl_format_bytes(tot, t, sizeof(t));
		snprintf(buf, cap, "%s x %lld iterations = %s per step", b, (long long)c->trips, t);
	} else if (c->trips < 0) {
		snprintf(buf, cap, "%s per loop iteration, trip count unknown", b);
	} else {
		snprintf(buf, cap, "%s", b);
	}
}

/* ", at FILE:LINE (function)" or "" */
static void place_text(const struct hlo_instruction *x, char *buf, size_t cap, struct arena *a)
{
	struct source_info *s = source_of(x, NULL, a);
	buf[0] = 0;
	if (s) {
		char p[600];
		if (source_place_text(s, p, sizeof(p)) > 0)
			snprintf(buf, cap, ", %s", p);
	}
}

/* " (a copy of argument state.kv_cache)" when the copied operand is an
 * entry parameter JAX named, else "" */
static void arg_text(const struct fix_copy *c, char *buf, size_t cap)
{
	const char *arg = instr_arg_path(c->r->site.at->operands[c->r->site.operand]);
	buf[0] = 0;
	if (arg)
		snprintf(buf, cap, " (a copy of argument %s)", arg);
}

/* "  removed NAME (a copy of argument A), COST, at FILE:LINE" */
static void copy_line(FILE *out, const struct fix_copy *c, const char *verb, struct arena *a)
{
	char label[600], cost[160], place[700], arg[600];
	copy_site_name(&c->r->site, label, sizeof(label));
	cost_text(c, cost, sizeof(cost));
	place_text(c->r->copy, place, sizeof(place), a);
	arg_text(c, arg, sizeof(arg));
	fprintf(out, "  %s %s%s, %s%s", verb, label, arg, cost, place);
}

/* The HLO detail of a copy: its family, kind, line and computation. */
static void hlo_line(FILE *out, const struct fix_copy *c)
{
	fprintf(out, "      %s %s, line %d in %s", copy_family_name(c->r->family), copy_kind_name(c->r->site.kind),
		c->r->copy->pos.line, c->r->copy->parent->name);
}

/* Why a copy stays, in a few words (the detail follows indented). */
static const char *kept_words(const struct fix_copy *c, char *buf, size_t cap)
{
	switch (c->kept) {
	case FIX_KEPT_CONFLICT: return "needed once the copies removed are gone";
	case FIX_KEPT_EDGES: return "its control edges clash with the removals chosen";
	case FIX_KEPT_UNTRIED: return "not tried: the search stopped first";
	case FIX_KEPT_NOOP: return "XLA's simplifier removes it";
	default: break;
	}
	if (c->why && !strncmp(c->why, "unknown", 7))
		return "not decided";
	if (c->donate_drops)
		return "needed while the argument it copies is not donated";
	if (c->r->family == FAMILY_LAYOUT)
		return "needed: it changes the layout";
	if (c->r->family == FAMILY_MEMORY_SPACE)
		return "needed: it moves the data to another memory space";
	int every = c->why && strstr(c->why, "hazard in every schedule");
	const struct hlo_instruction *src = c->r->site.at->operands[c->r->site.operand];
	char needle[600];
	snprintf(needle, sizeof(needle), "read-only value %s (", src->name);
	if (every && strstr(c->why, needle)) {
		/* the copy keeps a write off the argument or constant it copies */
		const char *arg = instr_arg_path(src);
		if (arg) {
			snprintf(buf, cap, "needed in every schedule: without it the program writes into argument %s, "
				 "which is not donated", arg);
			return buf;
		}
		if (src->opcode == OP_CONSTANT)
			return "needed in every schedule: without it the program writes into a constant";
	}
	return every ? "needed in every schedule" : "needed";
}

/* Copies i of r (removed or kept as asked), the costliest first. */
static int32_t by_cost(const struct fix_result *r, int removed, int32_t *ix)
{
	int32_t n = 0;
	for (int32_t i = 0; i < r->n_copies; i++) {
		const struct fix_copy *c = &r->copies[i];
		if ((c->kept == FIX_REMOVED) != removed || c->kept == FIX_KEPT_NOOP)
			continue;
		int32_t k = n++;
		while (k > 0 && r->copies[ix[k - 1]].weight < c->weight) {
			ix[k] = ix[k - 1];
			k--;
		}
		ix[k] = i;
	}
	return n;
}

/* "NAME (reduce_sum at FILE:LINE)" for an edge's end: the JAX operation
 * (the last part of its op_name) and its Python place, when known */
static void end_text(const struct hlo_instruction *x, char *buf, size_t cap, struct arena *a)
{
	char place[700];
	struct source_info *s = source_of(x, NULL, a);
	const char *op = s && s->op_name ? strrchr(s->op_name, '/') : NULL;
	int has_place = s && source_place_text(s, place, sizeof(place)) > 0;
	if (op && op[1] && has_place)
		snprintf(buf, cap, "%s (%s %s)", x->name, op + 1, place);
	else if (has_place)
		snprintf(buf, cap, "%s (%s)", x->name, place);
	else
		snprintf(buf, cap, "%s", x->name);
}

static void noop_lines(FILE *out, const struct fix_result *r, const struct fix_view *v, struct arena *a)
{
	char b[64], place[700];
	tl_format_bytes(r->noop_bytes, b, sizeof(b));
	fprintf(out, "  not counted: %d no-op cop%s (%s): the module is before optimization (%s), and XLA's "
		     "algebraic simplifier replaces such a copy by its operand before copy insertion, so the compiled "
		     "program never holds it; fix leaves them to XLA\n", r->n_noop, r->n_noop == 1 ? "y" : "ies", b,
		v->stage_why ? v->stage_why : "--stage=before");
	int shown = 0;
	fprintf(out, "      e.g.");
	for (int32_t i = 0; i < r->n_copies && shown < 3; i++) {
		const struct fix_copy *c = &r->copies[i];
		if (c->kept != FIX_KEPT_NOOP)
			continue;
		place_text(c->r->copy, place, sizeof(place), a);
		fprintf(out, "%s %s (line %d%s)", shown ? "," : "", c->r->copy->name, c->r->copy->pos.line, place);
		shown++;
	}
	if (r->n_noop > shown)
		fprintf(out, " and %d more", r->n_noop - shown);
	fprintf(out, "\n      the copies the compiled program holds are those XLA's copy insertion adds: "
		     "hloproof check %s predicts them (aliasing-hazard); to judge the copies XLA keeps, run fix on "
		     "the module after optimization (XLA_FLAGS=--xla_dump_to=DIR, then *.after_optimizations.txt)\n",
		v->file);
}

int report_fix_text(FILE *out, const struct fix_view *v)
{
	const struct fix_result *r = v->result;
	struct arena a;
	arena_init(&a);
	char saved[64], bound[64], b1[800], b2[800];
	tl_format_bytes(r->saved_bytes, saved, sizeof(saved));
	fprintf(out, "%s: fix under %s (%s): ", v->file,
		r->use_given ? "the given schedule" : "every schedule", v->schedule_why);
	if (r->failed) {
		fprintf(out, "unknown: %s\n", r->failure ? r->failure : "?");
		arena_free(&a);
		return 0;
	}
	int32_t real = r->n_copies - r->n_noop;
	if (real == 0 && r->n_noop > 0) {
		tl_format_bytes(r->noop_bytes, bound, sizeof(bound));
		fprintf(out, "nothing to remove: %s %d cop%s (%s) %s no-op, removed by XLA itself\n",
			r->n_noop == 1 ? "its" : "all", r->n_noop, r->n_noop == 1 ? "y" : "ies", bound,
			r->n_noop == 1 ? "is" : "are");
	} else {
		fprintf(out, "%d of %d cop%s removed, %s", r->n_removed, real, real == 1 ? "y" : "ies", saved);
		if (r->count)
			fprintf(out, " (objective: copies)");
		else if (r->saved != r->saved_bytes) {
			tl_format_bytes(r->saved, bound, sizeof(bound));
			fprintf(out, " (%s per step, counting loop iterations)", bound);
		}
		if (r->optimal) {
			fprintf(out, "; optimal");
		} else if (r->bound == UINT64_MAX) {
			fprintf(out, "; %s", r->not_optimal ? r->not_optimal : "not proven optimal");
		} else {
			if (r->count)
				snprintf(bound, sizeof(bound), "%llu copies", (unsigned long long)r->bound);
			else
				tl_format_bytes(r->bound, bound, sizeof(bound));
			fprintf(out, "; %s (no choice saves more than %s)",
				r->not_optimal ? r->not_optimal : "not proven optimal", bound);
		}
		if (r->n_noop)
			fprintf(out, "; %d no-op cop%s not counted", r->n_noop, r->n_noop == 1 ? "y" : "ies");
		fputc('\n', out);
	}
	int32_t *ix = malloc(((size_t)r->n_copies + 1) * sizeof(int32_t));
	int32_t n = ix ? by_cost(r, 1, ix) : 0;
	for (int32_t k = 0; k < n; k++) {
		const struct fix_copy *c = &r->copies[ix[k]];
		copy_line(out, c, "removed", &a);
		fputc('\n', out);
		hlo_line(out, c);
		if (c->r->site.kind == COPY_KIND_FUSED && c->r->site.output >= 0)
			fprintf(out, "; its readers read %s; the fusion keeps the output, unread, until XLA's "
				"HloDCE drops it (RemoveMultiOutputFusionsUnusedOutputs)",
				c->r->site.at->operands[c->r->site.operand]->name);
		else
			fprintf(out, "; its users read %s", c->r->site.at->operands[c->r->site.operand]->name);
		if (c->edges)
			fprintf(out, "; it goes with the control edges below");
		fputc('\n', out);
		if (c->r->any == VERDICT_SCHEDULE_DEPENDENT && c->r->edge_from && c->r->edge_to) {
			end_text(c->r->edge_from, b1, sizeof(b1), &a);
			end_text(c->r->edge_to, b2, sizeof(b2), &a);
			fprintf(out, "      in JAX: the copy guards against orders where %s runs after %s; pass the old value "
				"through jax.lax.optimization_barrier with the read, before the update, to rule them out\n",
				b1, b2);
		}
	}
	for (int32_t i = 0; i < r->n_edges; i++) {
		end_text(r->edge_from[i], b1, sizeof(b1), &a);
		end_text(r->edge_to[i], b2, sizeof(b2), &a);
		fprintf(out, "  added control edge %s -> %s in %s: %s runs before %s\n", r->edge_from[i]->name,
			r->edge_to[i]->name, r->edge_to[i]->parent->name, b1, b2);
	}
	if (r->n_edges) {
		if (r->n_moved) {
			fprintf(out, "      moved:");
			for (int32_t i = 0; i < r->n_moved && i < 8; i++)
				fprintf(out, "%s %s", i ? "," : "", r->moved[i]->name);
			if (r->n_moved > 8)
				fprintf(out, " and %d more", r->n_moved - 8);
			fprintf(out, " (%s%s)\n", r->moves_minimal ? "the fewest moves the edges allow" : "moves not minimized: "
				"a computation too large for the search", r->use_given ? "; the printed schedule changes by these "
				"moves only" : "");
		} else if (r->use_given) {
			fprintf(out, "      no instruction moves: the printed schedule already runs them in this order\n");
		}
	}
	n = ix ? by_cost(r, 0, ix) : 0;
	for (int32_t k = 0; k < n; k++) {
		const struct fix_copy *c = &r->copies[ix[k]];
		copy_line(out, c, "kept", &a);
		fprintf(out, ": %s\n", kept_words(c, b1, sizeof(b1)));
		hlo_line(out, c);
		fprintf(out, "\n      %s\n", c->why ? c->why : "");
		if (c->donate_drops) {
			const struct hlo_module *m = c->r->copy->parent->module;
			const char *arg = param_arg_path(m, c->donate.param);
			if (!arg && m->entry && c->donate.param >= 0 && c->donate.param < m->entry->n_params)
				arg = m->entry->params[c->donate.param]->name;
			fprintf(out, "      in JAX: donate %s (jax.jit(..., donate_argnums=...)); the module with it donated "
				"and this copy removed has no hazard in any schedule\n", arg ? arg : "the argument");
		}
	}
	free(ix);
	if (r->n_noop)
		noop_lines(out, r, v, &a);
	fprintf(out, "  verified: the module with %s, analysed again, has no hazard the module as "
		     "given does not have (%d buffer%s compared; %d solve%s, %d verification%s, %d conflict%s learned)\n",
		r->n_removed ? (r->n_edges ? "these removals and edges" : "these removals") : "nothing removed",
		r->buffers_compared, r->buffers_compared == 1 ? "" : "s", r->solves, r->solves == 1 ? "" : "s",
		r->rounds, r->rounds == 1 ? "" : "s", r->conflicts, r->conflicts == 1 ? "" : "s");
	if (v->output)
		fprintf(out, "  fixed module written to %s\n", v->output);
	arena_free(&a);
	return ferror(out) ? -1 : 0;
}

int report_fix_json(FILE *out, const struct fix_view *v)
{
	const struct fix_result *r = v->result;
	struct arena a;
	arena_init(&a);
	json_t *o = json_object();
	json_object_set_new(o, "file", report_json_string(v->file));
	json_object_set_new(o, "schedule", json_string(r->use_given ? "given" : "any"));
	json_object_set_new(o, "schedule_why", json_string(v->schedule_why));
	json_object_set_new(o, "stage", json_string(v->stage_why ? "before" : "after"));
	json_object_set_new(o, "objective", json_string(r->count ? "count" : "bytes"));
	json_object_set_new(o, "verified", json_boolean(!r->failed));
	json_object_set_new(o, "failure", r->failed ? report_json_string(r->failure) : json_null());
	json_object_set_new(o, "optimal", json_boolean(!r->failed && r->optimal));
	json_object_set_new(o, "not_optimal", r->optimal || r->failed ? json_null()
					       : report_json_string(r->not_optimal ? r->not_optimal : "not proven optimal"));
	json_object_set_new(o, "saved", json_integer((json_int_t)r->saved));
	json_object_set_new(o, "saved_bytes", json_integer((json_int_t)r->saved_bytes));
	json_object_set_new(o, "bound", r->bound == UINT64_MAX ? json_null() : json_integer((json_int_t)r->bound));
	json_object_set_new(o, "undecided", json_integer(r->n_unknown));
	json_t *rem = json_array(), *kept = json_array(), *edges = json_array(), *noop = json_array();
	char label[600];
	for (int32_t i = 0; i < r->n_copies && !r->failed; i++) {
		const struct fix_copy *c = &r->copies[i];
		json_t *x = json_object();
		json_object_set_new(x, "name", report_json_string(copy_site_name(&c->r->site, label, sizeof(label))));
		json_object_set_new(x, "computation", report_json_string(c->r->copy->parent->name));
		/* what the copy's users read once it is gone */
		json_object_set_new(x, "operand", report_json_string(c->r->site.at->operands[c->r->site.operand]->name));
		json_object_set_new(x, "kind", json_string(copy_kind_name(c->r->site.kind)));
		json_object_set_new(x, "line", json_integer(c->r->copy->pos.line));
		json_object_set_new(x, "family", json_string(copy_family_name(c->r->family)));
		json_object_set_new(x, "bytes", json_integer((json_int_t)c->r->bytes));
		json_object_set_new(x, "trip_count", c->trips > 0 ? json_integer((json_int_t)c->trips)
							  : c->trips < 0 ? json_string("unknown") : json_null());
		json_object_set_new(x, "weight", json_integer((json_int_t)c->weight));
		json_object_set_new(x, "source", report_source_json(source_of(c->r->copy, NULL, &a)));
		json_object_set_new(x, "arg_path", report_json_string(instr_arg_path(c->r->site.at->operands[c->r->site.operand])));
		if (c->kept == FIX_REMOVED) {
			json_object_set_new(x, "with_edges", json_boolean(c->edges));
			json_array_append_new(rem, x);
			continue;
		}
		if (c->kept == FIX_KEPT_NOOP) {
			json_array_append_new(noop, x);
			continue;
		}
		json_object_set_new(x, "reason", json_string(kept_name(c->kept)));
		json_object_set_new(x, "why", report_json_string(c->why ? c->why : ""));
		json_t *w = json_array();
		for (int32_t k = 0; k < c->n_with; k++)
			json_array_append_new(w, report_json_string(copy_site_name(&r->copies[c->with[k]].r->site,
										  label, sizeof(label))));
		json_object_set_new(x, "conflicts_with", w);
		json_array_append_new(kept, x);
	}
	for (int32_t i = 0; i < r->n_edges && !r->failed; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "from", report_json_string(r->edge_from[i]->name));
		json_object_set_new(e, "to", report_json_string(r->edge_to[i]->name));
		json_object_set_new(e, "computation", report_json_string(r->edge_to[i]->parent->name));
		json_array_append_new(edges, e);
	}
	json_t *mv = json_array();
	for (int32_t i = 0; i < r->n_moved && !r->failed; i++)
		json_array_append_new(mv, report_json_string(r->moved[i]->name));
	json_object_set_new(o, "removed", rem);
	json_object_set_new(o, "edges", edges);
	json_object_set_new(o, "moved", mv);
	json_object_set_new(o, "moves_minimal", json_boolean(r->failed || r->moves_minimal));
	json_object_set_new(o, "kept", kept);
	json_object_set_new(o, "no_op", noop);
	json_object_set_new(o, "no_op_bytes", json_integer((json_int_t)r->noop_bytes));
	json_t *s = json_object();
	json_object_set_new(s, "solves", json_integer(r->solves));
	json_object_set_new(s, "verifications", json_integer(r->rounds));
	json_object_set_new(s, "conflicts", json_integer(r->conflicts));
	json_object_set_new(s, "buffers_compared", json_integer(r->buffers_compared));
	json_object_set_new(o, "search", s);
	json_object_set_new(o, "output", v->output ? report_json_string(v->output) : json_null());
	int rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(o);
	arena_free(&a);
	return rc < 0 || ferror(out) ? -1 : 0;
}

int report_fix_diff(FILE *out, const struct fix_diff *d, const char *path)
{
	int32_t changes = 0;
	for (int32_t k = 0; k < d->n_ops; k++)
		changes += d->ops[k].kind != DIFF_EQUAL;
	if (!changes)
		return 0;
	fprintf(out, "--- %s\n+++ %s\n", path, path);
	/* hunks: runs of changes with 3 lines of context, runs closer than 7 merged */
	int32_t i = 0;
	while (i < d->n_ops) {
		while (i < d->n_ops && d->ops[i].kind == DIFF_EQUAL)
			i++;
		if (i >= d->n_ops)
			break;
		int32_t start = i;
		for (int32_t c = 0; c < 3 && start > 0 && d->ops[start - 1].kind == DIFF_EQUAL; c++)
			start--;
		int32_t end = i; /* one past the last op of the hunk */
		for (;;) {
			while (end < d->n_ops && d->ops[end].kind != DIFF_EQUAL)
				end++;
			int32_t eq = 0;
			while (end + eq < d->n_ops && d->ops[end + eq].kind == DIFF_EQUAL)
				eq++;
			if (end + eq < d->n_ops && eq <= 6) {
				end += eq;
				continue;
			}
			end += eq < 3 ? eq : 3;
			break;
		}
		/* line numbers: the old line of the first op, counts */
		int32_t old_start = -1, new_start = -1, n_old = 0, n_new = 0;
		for (int32_t k = start; k < end; k++) {
			const struct diff_op *op = &d->ops[k];
			if (op->kind != DIFF_INSERT) {
				if (old_start < 0)
					old_start = op->old_line;
				n_old++;
			}
			if (op->kind != DIFF_DELETE) {
				if (new_start < 0)
					new_start = op->new_line;
				n_new++;
			}
		}
		/* an empty side is numbered by the line before it */
		if (old_start < 0)
			old_start = d->ops[start].old_line - 1;
		if (new_start < 0)
			new_start = d->ops[start].new_line - 1;
		fprintf(out, "@@ -%d,%d +%d,%d @@\n", old_start + (n_old ? 1 : 0), n_old,
			new_start + (n_new ? 1 : 0), n_new);
		for (int32_t k = start; k < end; k++) {
			const struct diff_op *op = &d->ops[k];
			const char *mark = op->kind == DIFF_EQUAL ? " " : op->kind == DIFF_DELETE ? "-" : "+";
			fprintf(out, "%s%.*s\n", mark, (int)op->len, op->text);
			if (op->no_newline)
				fprintf(out, "\\ No newline at end of file\n");
		}
		i = end;
	}
	return ferror(out) ? -1 : 0;
}
