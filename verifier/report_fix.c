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
	}
	return "?";
}

/* "32.0 KiB", "32.0 KiB x 8 steps = 256.0 KiB", "32.0 KiB per step (trip count unknown)" */
static void cost_text(const struct fix_copy *c, char *buf, size_t cap)
{
	char b[64], t[64];
	tl_format_bytes(c->r->bytes, b, sizeof(b));
	if (c->trips > 0) {
		uint64_t tot = c->r->bytes * (uint64_t)c->trips;
		if (c->trips && tot / (uint64_t)c->trips != c->r->bytes)
			tot = UINT64_MAX;
		tl_format_bytes(tot, t, sizeof(t));
		snprintf(buf, cap, "%s x %lld steps = %s", b, (long long)c->trips, t);
	} else if (c->trips < 0) {
		snprintf(buf, cap, "%s per step, trip count unknown", b);
	} else {
		snprintf(buf, cap, "%s", b);
	}
}

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

static void copy_line(FILE *out, const struct fix_copy *c, const char *verb, struct arena *a)
{
	char label[600], cost[160], place[700];
	copy_site_name(&c->r->site, label, sizeof(label));
	cost_text(c, cost, sizeof(cost));
	place_text(c->r->copy, place, sizeof(place), a);
	fprintf(out, "  %s %s (%s, %s, %s, line %d%s)", verb, label, copy_kind_name(c->r->site.kind),
		copy_family_name(c->r->family), cost, c->r->copy->pos.line, place);
}

int report_fix_text(FILE *out, const struct fix_view *v)
{
	const struct fix_result *r = v->result;
	struct arena a;
	arena_init(&a);
	char saved[64], bound[64];
	tl_format_bytes(r->saved_bytes, saved, sizeof(saved));
	fprintf(out, "%s: fix under %s (%s): ", v->file,
		r->use_given ? "the given schedule" : "every schedule", v->schedule_why);
	if (r->failed) {
		fprintf(out, "unknown: %s\n", r->failure ? r->failure : "?");
		arena_free(&a);
		return 0;
	}
	fprintf(out, "%d of %d cop%s removed, %s", r->n_removed, r->n_copies, r->n_copies == 1 ? "y" : "ies",
		saved);
	if (r->count)
		fprintf(out, " (objective: copies)");
	else if (r->saved != r->saved_bytes) {
		tl_format_bytes(r->saved, bound, sizeof(bound));
		fprintf(out, " (%s per run, counting loop trips)", bound);
	}
	if (r->optimal) {
		fprintf(out, "; optimal\n");
	} else if (r->bound == UINT64_MAX) {
		fprintf(out, "; %s\n", r->not_optimal ? r->not_optimal : "not proven optimal");
	} else {
		if (r->count)
			snprintf(bound, sizeof(bound), "%llu copies", (unsigned long long)r->bound);
		else
			tl_format_bytes(r->bound, bound, sizeof(bound));
		fprintf(out, "; %s (no choice saves more than %s)\n", r->not_optimal ? r->not_optimal : "not proven optimal",
			bound);
	}
	for (int32_t i = 0; i < r->n_copies; i++) {
		const struct fix_copy *c = &r->copies[i];
		if (c->kept != FIX_REMOVED)
			continue;
		copy_line(out, c, "removed", &a);
		if (c->r->site.kind == COPY_KIND_FUSED && c->r->site.output >= 0)
			fprintf(out, ": its readers read %s; the fusion keeps the output, unread, until XLA's "
				"HloDCE drops it (RemoveMultiOutputFusionsUnusedOutputs)",
				c->r->site.at->operands[c->r->site.operand]->name);
		fputc('\n', out);
	}
	for (int32_t i = 0; i < r->n_edges; i++)
		fprintf(out, "  added control edge %s -> %s (computation %s)\n", r->edge_from[i]->name,
			r->edge_to[i]->name, r->edge_to[i]->parent->name);
	for (int32_t i = 0; i < r->n_copies; i++) {
		const struct fix_copy *c = &r->copies[i];
		if (c->kept == FIX_REMOVED)
			continue;
		copy_line(out, c, "kept", &a);
		fprintf(out, ": %s\n", c->why ? c->why : "");
	}
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
	json_t *rem = json_array(), *kept = json_array(), *edges = json_array();
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
		if (c->kept == FIX_REMOVED) {
			json_array_append_new(rem, x);
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
	json_object_set_new(o, "removed", rem);
	json_object_set_new(o, "edges", edges);
	json_object_set_new(o, "kept", kept);
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
