/* report_buffers.c - `hloproof buffers` in text and JSON: every alias-analysis
 * buffer of a module with its values, their live ranges and the buffer's
 * flags (report_buffers.h). */
#include "report.h"
#include "report_buffers.h"
#include "source.h"
#include "xalloc.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Buffers with more values than this are not tested pairwise for interference. */
#define INTERFERENCE_MAX_VALUES 256


/* Global definition order (copy removal's numbering, extended to embedded
 * callees): from the entry, parameters first, a while's condition and body
 * before the while, any other callee once before its caller. */
void buffers_view_number(struct buffers_view *c)
{
	struct hlo_module *m = c->m;
	int32_t *num = c->def_order, next = 0;
	for (int32_t g = 0; g < m->n_instrs; g++)
		num[g] = -1;
	uint8_t *done = xcalloc((size_t)m->n_comps + 1, 1);
	struct frame {
		struct hlo_computation *comp;
		int32_t j, k;   /* instruction, callee of it */
	} *stack = xmalloc((size_t)m->n_comps + 1, sizeof(*stack));
	for (int32_t r = -1; r < m->n_comps; r++) {
		struct hlo_computation *start = r < 0 ? m->entry : m->comps[r];
		if (!start || done[start->index])
			continue;
		int32_t sp = 0;
		done[start->index] = 1;
		stack[sp++] = (struct frame){start, -1, 0};
		while (sp > 0) {
			struct frame *f = &stack[sp - 1];
			if (f->j < 0) {
				for (int32_t p = 0; p < f->comp->n_params; p++)
					if (f->comp->params[p])
						num[f->comp->params[p]->gid] = next++;
				f->j = 0;
				f->k = 0;
			}
			if (f->j >= f->comp->n_instrs) {
				sp--;
				continue;
			}
			struct hlo_instruction *i = f->comp->instrs[f->j];
			struct hlo_computation *callee = NULL;
			if (i->opcode == OP_WHILE) {
				if (f->k == 0)
					callee = i->ext->condition;
				else if (f->k == 1)
					callee = i->ext->body;
				if (f->k < 2) {
					f->k++;
					if (!callee)
						continue;
				}
			} else if (f->k < i->n_called) {
				callee = i->called[f->k++];
			}
			if (callee) {
				if (!done[callee->index] && sp < m->n_comps) {
					done[callee->index] = 1;
					stack[sp++] = (struct frame){callee, -1, 0};
				}
				continue;
			}
			if (num[i->gid] < 0)
				num[i->gid] = next++;
			f->j++;
			f->k = 0;
		}
	}
	free(done);
	free(stack);
}

static int cmp_def_order(const void *x, const void *y, void *arg)
{
	const struct buffers_view *c = arg;
	const struct hlo_value *a = &c->df->values[*(const int32_t *)x];
	const struct hlo_value *b = &c->df->values[*(const int32_t *)y];
	int32_t ka = c->def_order[a->def->gid], kb = c->def_order[b->def->gid];
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void sort_by_definition(const struct buffers_view *c, int32_t *ids, int32_t n)
{
	qsort_r(ids, (size_t)n, sizeof(int32_t), cmp_def_order, (void *)c);
}

/* 1: two values interfere; 0: none do; -1: not decided (too many values to
 * test pairwise, or the time budget ran out): reported as such, never as 0. */
static int buffer_interferes(struct buffers_view *c, const struct hlo_buffer *b)
{
	if (b->n_values < 2)
		return 0;
	if (!c->ord || b->n_values > INTERFERENCE_MAX_VALUES)
		return -1;
	for (int32_t i = 0; i < b->n_values; i++) {
		if (budget_expired(c->budget)) {
			c->n_budget_unknown++;
			return -1;
		}
		for (int32_t j = i + 1; j < b->n_values; j++)
			if (may_interfere(&c->lv, b->values[i], b->values[j]))
				return 1;
	}
	return 0;
}

static void index_string(const struct dataflow *df, const struct hlo_value *v, char *buf,
			 size_t cap)
{
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	struct shape_index si = {dataflow_value_index(df, v, idx), idx};
	shape_index_to_string(&si, buf, cap);
}

static json_t *value_json(struct buffers_view *c, int32_t vid)
{
	const struct hlo_value *v = &c->df->values[vid];
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = dataflow_value_index(c->df, v, idx);
	json_t *ja = json_array();
	for (int32_t k = 0; k < n; k++)
		json_array_append_new(ja, json_integer(idx[k]));
	struct live_range r = {0, 0};
	value_live_range(c->df, vid, v->def->parent, &r);
	json_t *live = json_array();
	json_array_append_new(live, json_integer(r.first));
	json_array_append_new(live, json_integer(r.last));
	json_t *o = json_object();
	json_object_set_new(o, "instruction", json_string(v->def->name));
	json_object_set_new(o, "computation", json_string(v->def->parent->name));
	json_object_set_new(o, "index", ja);
	json_object_set_new(o, "live", live);
	const char *arg = instr_arg_path(v->def);
	if (arg)
		json_object_set_new(o, "arg_path", report_json_string(arg));
	return o;
}

static const char *const flag_names[] = {"read-only", "entry-parameter", "aliased-output",
					 "live-out", "interference", "interference-unknown"};

static unsigned buffer_flags(struct buffers_view *c, const struct hlo_buffer *b)
{
	unsigned f = b->flags;
	int i = buffer_interferes(c, b);
	if (i > 0)
		f |= 16u;
	else if (i < 0)
		f |= 32u;
	return f;
}

/* Values of buffer b to show: all, or those live at `at`. Returns the count. */
static int32_t select_values(struct buffers_view *c, const struct hlo_buffer *b,
			     const struct hlo_instruction *at, int32_t *out)
{
	int32_t n = 0;
	for (int32_t k = 0; k < b->n_values; k++)
		if (!at || value_live_at(c->df, b->values[k], at))
			out[n++] = b->values[k];
	sort_by_definition(c, out, n);
	return n;
}

static void dump_json(FILE *out, json_t *j)
{
	char *txt = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!txt)
		die("out of memory");
	fputs(txt, out);
	free(txt);
	json_decref(j);
}

/* One module's object, streamed buffer by buffer so that a module with a
 * million buffers never holds its whole JSON tree in memory. */
void report_buffers_json(FILE *out, struct buffers_view *c, const struct hlo_instruction *at)
{
	fputs("{\"name\":", out);
	dump_json(out, json_string(c->m->name ? c->m->name : ""));
	fputs(",\"buffers\":[", out);
	int32_t *sel = NULL;
	size_t cap = 0;
	int first = 1;
	for (int32_t k = 0; k < c->bufs->n_buffers; k++) {
		const struct hlo_buffer *b = &c->bufs->buffers[k];
		if ((size_t)b->n_values > cap) {
			cap = (size_t)b->n_values;
			sel = xrealloc(sel, cap, sizeof(int32_t));
		}
		int32_t n = select_values(c, b, at, sel);
		if (at && n == 0)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "id", json_integer(b->id));
		json_object_set_new(o, "bytes", json_integer((json_int_t)b->bytes));
		json_t *vl = json_array();
		for (int32_t q = 0; q < n; q++)
			json_array_append_new(vl, value_json(c, sel[q]));
		json_object_set_new(o, "values", vl);
		json_t *fl = json_array();
		unsigned f = buffer_flags(c, b);
		for (unsigned q = 0; q < sizeof(flag_names) / sizeof(flag_names[0]); q++)
			if (f & (1u << q))
				json_array_append_new(fl, json_string(flag_names[q]));
		json_object_set_new(o, "flags", fl);
		if (!first)
			fputc(',', out);
		first = 0;
		dump_json(out, o);
	}
	free(sel);
	fputs("]}", out);
}

void report_buffers_text(FILE *out, struct buffers_view *c, const struct hlo_instruction *at,
			 const char *ordering_name)
{
	fprintf(out, "module %s: %d buffers, %d values; live ranges in %s order; %s ordering\n",
		c->m->name ? c->m->name : "", c->bufs->n_buffers, c->df->n_values,
		c->topological ? "topological (unscheduled)" : "schedule", ordering_name);
	if (at)
		fprintf(out, "live at %s (%s, position %d):\n", at->name, at->parent->name,
			sequence_position(at));
	int32_t *sel = NULL;
	size_t cap = 0;
	for (int32_t k = 0; k < c->bufs->n_buffers; k++) {
		const struct hlo_buffer *b = &c->bufs->buffers[k];
		if ((size_t)b->n_values > cap) {
			cap = (size_t)b->n_values;
			sel = xrealloc(sel, cap, sizeof(int32_t));
		}
		int32_t n = select_values(c, b, at, sel);
		if (at && n == 0)
			continue;
		fprintf(out, "buffer %d: %llu bytes, %d value%s", b->id, (unsigned long long)b->bytes,
			b->n_values, b->n_values == 1 ? "" : "s");
		unsigned f = buffer_flags(c, b);
		const char *sep = " [";
		for (unsigned q = 0; q < sizeof(flag_names) / sizeof(flag_names[0]); q++)
			if (f & (1u << q)) {
				fprintf(out, "%s%s", sep, flag_names[q]);
				sep = ", ";
			}
		fprintf(out, "%s\n", *sep == ',' ? "]" : "");
		for (int32_t q = 0; q < n; q++) {
			const struct hlo_value *v = &c->df->values[sel[q]];
			char ix[256];
			index_string(c->df, v, ix, sizeof(ix));
			struct live_range r = {0, 0};
			value_live_range(c->df, sel[q], v->def->parent, &r);
			const char *arg = instr_arg_path(v->def);
			fprintf(out, "  %s %s%s %s%s%s%s%s live [%d,%d]\n", at ? "owner" : "value",
				v->def->name, ix, v->def->parent->name, v->is_phi ? " (phi)" : "",
				arg ? " (" : "", arg ? arg : "", arg ? ")" : "", r.first, r.last);
		}
	}
	free(sel);
}

void report_buffers_unknown_json(FILE *out, const char *file, const char *reason)
{
	dump_json(out, json_pack("{s:s, s:s, s:s}", "file", file, "status", "unknown",
				 "reason", reason));
}
