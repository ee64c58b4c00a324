/* report_timeline_trace.c - the timeline as Trace Event JSON (Perfetto,
 * chrome://tracing): a process per panel, a track per buffer lane, a slice
 * per value's live range, counters for live bytes and the summed rest, and
 * instant events for copies, hazards, donated-buffer reuse and loops. The
 * time axis is the schedule position: 1 us = one position. */
#include "timeline.h"
#include "copies.h"
#include "xalloc.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct out {
	FILE *f;
	int first;
	int failed;
};

static void emit(struct out *o, json_t *e)
{
	if (!e) {
		o->failed = 1;
		return;
	}
	char *s = json_dumps(e, JSON_COMPACT);
	json_decref(e);
	if (!s) {
		o->failed = 1;
		return;
	}
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = 0;
	fputs(s, o->f);
	free(s);
}

static json_t *str(const struct timeline *t, const char *s)
{
	return json_string(tl_clean_utf8(t, s));
}

static json_t *meta(const char *name, int pid, int tid, const char *key, json_t *val)
{
	json_t *e = json_object();
	json_object_set_new(e, "ph", json_string("M"));
	json_object_set_new(e, "name", json_string(name));
	json_object_set_new(e, "pid", json_integer(pid));
	if (tid >= 0)
		json_object_set_new(e, "tid", json_integer(tid));
	json_t *a = json_object();
	json_object_set_new(a, key, val);
	json_object_set_new(e, "args", a);
	return e;
}

static const char *mark_kind(enum tl_mark_type k)
{
	static const char *const n[] = {"copy", "hazard", "reuse", "while"};
	return k <= TL_MARK_WHILE ? n[k] : "mark";
}

static void counter(struct out *o, int pid, const char *name, int32_t ts, uint64_t v)
{
	json_t *e = json_object();
	json_object_set_new(e, "ph", json_string("C"));
	json_object_set_new(e, "name", json_string(name));
	json_object_set_new(e, "pid", json_integer(pid));
	json_object_set_new(e, "ts", json_integer(ts));
	json_t *a = json_object();
	json_object_set_new(a, "bytes", json_integer((json_int_t)v));
	json_object_set_new(e, "args", a);
	emit(o, e);
}

/* Slices of one track must nest; values of one buffer that touch (one read
 * where the next is defined) share that position, the later one taking it;
 * values that overlap more go to a sub-track. */
static void lane_slices(struct out *o, const struct timeline *t, const struct tl_panel *p,
			int32_t li, int pid, int *next_tid, const int32_t *copy_mark)
{
	const struct tl_lane *l = &p->lanes[li];
	int32_t nb = l->n_bars;
	const struct tl_bar *bars = p->bars + l->first_bar;
	int32_t *track = xmalloc((size_t)nb + 1, sizeof(int32_t));
	int32_t *end = xmalloc((size_t)nb + 1, sizeof(int32_t));
	int32_t *tlast = xmalloc((size_t)nb + 1, sizeof(int32_t)); /* per track: its last bar */
	int32_t ntracks = 0;
	for (int32_t i = 0; i < nb; i++) {
		const struct tl_bar *b = &bars[i];
		end[i] = (b->held_last > b->last ? b->held_last : b->last) + 1;
		track[i] = -1;
		for (int32_t k = 0; k < ntracks && track[i] < 0; k++) {
			int32_t j = tlast[k];
			if (end[j] <= b->first) {
				track[i] = k;
			} else if (end[j] == b->first + 1 && bars[j].first < b->first) {
				end[j] = b->first;
				track[i] = k;
			}
		}
		if (track[i] < 0)
			track[i] = ntracks++;
		tlast[track[i]] = i;
	}
	char by[32], name[96];
	tl_format_bytes(l->bytes, by, sizeof(by));
	int base = *next_tid;
	*next_tid += ntracks ? ntracks : 1;
	for (int32_t k = 0; k < (ntracks ? ntracks : 1); k++) {
		if (k == 0)
			snprintf(name, sizeof(name), "buffer %d (%s)", (int)l->buffer, by);
		else
			snprintf(name, sizeof(name), "buffer %d (%s) overlap %d", (int)l->buffer, by,
				 (int)k);
		emit(o, meta("thread_name", pid, base + k, "name", json_string(name)));
		emit(o, meta("thread_sort_index", pid, base + k, "sort_index",
			     json_integer(li * 4 + (k < 3 ? k : 3))));
	}
	for (int32_t i = 0; i < nb; i++) {
		const struct tl_bar *b = &bars[i];
		char src[512];
		tl_source(b->def, src, sizeof(src));
		json_t *e = json_object();
		json_object_set_new(e, "ph", json_string("X"));
		json_object_set_new(e, "name", str(t, b->def->name));
		json_object_set_new(e, "cat", json_string(tl_kind_slug((enum tl_kind)b->kind)));
		json_object_set_new(e, "pid", json_integer(pid));
		json_object_set_new(e, "tid", json_integer(base + track[i]));
		json_object_set_new(e, "ts", json_integer(b->first));
		json_object_set_new(e, "dur", json_integer(end[i] - b->first));
		json_t *a = json_object();
		json_object_set_new(a, "instruction", str(t, b->def->name));
		json_object_set_new(a, "opcode", str(t, hlo_opcode_text(b->def)));
		json_object_set_new(a, "bytes", json_integer((json_int_t)l->bytes));
		json_object_set_new(a, "kind", json_string(tl_kind_name((enum tl_kind)b->kind)));
		json_object_set_new(a, "source", str(t, src));
		if (b->def->op_name)
			json_object_set_new(a, b->def->opcode == OP_PARAMETER ? "argument" : "op_name",
					    str(t, b->def->op_name));
		json_object_set_new(a, "live", json_pack("[i,i]", b->first, b->last));
		int32_t cm = copy_mark[b->def->gid];
		if (cm >= 0) {
			const struct tl_mark *m = &p->marks[cm];
			const char *v = verdict_name(m->verdict);
			json_object_set_new(a, "verdict", json_string(v ? v : "unknown"));
			json_object_set_new(a, "family",
					    json_string(copy_family_name((enum copy_family)m->family)));
		}
		json_object_set_new(e, "args", a);
		emit(o, e);
	}
	free(track);
	free(end);
	free(tlast);
}

int timeline_write_trace(FILE *f, const struct timeline *t)
{
	struct out o = {f, 1, 0};
	int32_t *copy_mark = xmalloc((size_t)t->m->n_instrs + 1, sizeof(int32_t));
	int32_t *tid_of = NULL;
	fputs("{\"traceEvents\":[", f);
	for (int32_t pi = 0; pi < t->n_panels; pi++) {
		const struct tl_panel *p = &t->panels[pi];
		int pid = pi + 1;
		char name[512];
		if (p->caller)
			snprintf(name, sizeof(name), "%s (body of %s, bytes per iteration)", p->comp->name,
				 p->caller->name);
		else
			snprintf(name, sizeof(name), "%s (%s)", p->comp->name,
				 t->scheduled ? "schedule order" : "dependency order");
		emit(&o, meta("process_name", pid, -1, "name", str(t, name)));
		emit(&o, meta("process_sort_index", pid, -1, "sort_index", json_integer(pi)));
		for (int32_t g = 0; g < t->m->n_instrs; g++)
			copy_mark[g] = -1;
		for (int32_t k = 0; k < p->n_marks; k++)
			if (p->marks[k].type == TL_MARK_COPY)
				copy_mark[p->marks[k].instr->gid] = k;
		/* counters: only where the figure changes (and at both ends) */
		for (int32_t q = 0; q < p->n_pos; q++)
			if (q == 0 || p->live[q] != p->live[q - 1])
				counter(&o, pid, "live bytes", q, p->live[q]);
		if (p->n_pos > 0)
			counter(&o, pid, "live bytes", p->n_pos, p->live[p->n_pos - 1]);
		int next_tid = 1;
		free(tid_of);
		tid_of = xmalloc(((size_t)p->n_lanes + 1), sizeof(int32_t));
		for (int32_t li = 0; li < p->n_lanes; li++) {
			tid_of[li] = next_tid;
			if (p->lanes[li].buffer < 0) {
				char rn[96], by[32];
				tl_format_bytes(p->lanes[li].bytes, by, sizeof(by));
				snprintf(rn, sizeof(rn), "%d other buffers (summed, up to %s at once)",
					 (int)p->n_rest, by);
				for (int32_t q = 0; q < p->n_pos; q++)
					if (q == 0 || p->rest[q] != p->rest[q - 1])
						counter(&o, pid, rn, q, p->rest[q]);
				tid_of[li] = 0;
				continue;
			}
			lane_slices(&o, t, p, li, pid, &next_tid, copy_mark);
		}
		for (int32_t k = 0; k < p->n_marks; k++) {
			const struct tl_mark *m = &p->marks[k];
			json_t *e = json_object();
			json_object_set_new(e, "ph", json_string("i"));
			json_object_set_new(e, "name", str(t, m->title));
			json_object_set_new(e, "cat", json_string(mark_kind((enum tl_mark_type)m->type)));
			json_object_set_new(e, "pid", json_integer(pid));
			int tid = m->lane >= 0 ? tid_of[m->lane] : 0;
			if (tid > 0) {
				json_object_set_new(e, "tid", json_integer(tid));
				json_object_set_new(e, "s", json_string("t"));
			} else {
				json_object_set_new(e, "s", json_string("p"));
			}
			json_object_set_new(e, "ts", json_integer(m->pos));
			json_t *a = json_object();
			json_object_set_new(a, "instruction", str(t, m->instr->name));
			json_object_set_new(a, "bytes", json_integer((json_int_t)m->bytes));
			char src[512];
			tl_source(m->instr, src, sizeof(src));
			json_object_set_new(a, "source", str(t, src));
			if (m->type == TL_MARK_COPY) {
				const char *v = verdict_name(m->verdict);
				json_object_set_new(a, "verdict", json_string(v ? v : "unknown"));
				json_object_set_new(a, "family",
						    json_string(copy_family_name((enum copy_family)m->family)));
			}
			if (m->evidence)
				json_object_set_new(a, "evidence", str(t, m->evidence));
			if (m->panel >= 0)
				json_object_set_new(a, "body_process", json_integer(m->panel + 1));
			json_object_set_new(e, "args", a);
			emit(&o, e);
		}
	}
	free(tid_of);
	free(copy_mark);
	json_t *other = json_object();
	json_object_set_new(other, "module", str(t, t->m->name ? t->m->name : ""));
	json_object_set_new(other, "order", json_string(tl_order_name(t)));
	json_object_set_new(other, "time_unit", json_string("1 us = one schedule position"));
	json_object_set_new(other, "generator", json_string("hloproof timeline"));
	char *s = json_dumps(other, JSON_COMPACT);
	json_decref(other);
	if (!s)
		return -1;
	fprintf(f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":%s}\n", s);
	free(s);
	return o.failed || ferror(f) ? -1 : 0;
}
