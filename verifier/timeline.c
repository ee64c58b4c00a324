/* timeline.c - the ownership timeline model (timeline.h): positions, live
 * bytes, lanes, bars and marks of each panel. timeline_build is the one
 * function that runs the analyses, so that they can come from elsewhere
 * (a per-module session) by changing it alone. */
#include "timeline.h"
#include "copies.h"
#include "hazard.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *tl_kind_name(enum tl_kind k)
{
	static const char *const n[] = {"donated parameter", "parameter", "output", "temporary",
					"constant"};
	return k < TL_KIND_COUNT ? n[k] : "?";
}

const char *tl_kind_slug(enum tl_kind k)
{
	static const char *const n[] = {"donated", "param", "output", "temp", "const"};
	return k < TL_KIND_COUNT ? n[k] : "temp";
}

void timeline_default_options(struct timeline_options *o)
{
	memset(o, 0, sizeof(*o));
	o->top = 200;
	o->max_panels = 16;
}

/* ---- the build context ---- */

struct tb {
	struct timeline *t;
	const struct timeline_options *opt;
	struct hlo_module *m;
	const struct dataflow *df;
	const struct buffers *bufs;
	struct arena *a;
	int32_t *up;            /* [comp]: the calling computation, -1 at a root */
	int32_t *depth;         /* [comp] */
	int32_t *home;          /* [buffer]: its computation; -1 none (embedded values only) */
	int32_t *home_off, *home_ids; /* buffers by home computation (CSR) */
	uint8_t *peak_state;    /* [comp]: 0 new, 1 in progress, 2 done */
	uint64_t *peak_of;      /* [comp]: peak of its curve (what it holds at its call site) */
	uint8_t *donated;       /* [entry parameter number] */
};

static int allocating(const struct hlo_computation *c)
{
	return !(c->context & CALL_EMBEDDED) || c->context == CALL_NONE;
}

static void call_tree(struct tb *b)
{
	struct hlo_module *m = b->m;
	b->up = arena_array(b->a, (size_t)m->n_comps + 1, sizeof(int32_t));
	b->depth = arena_array(b->a, (size_t)m->n_comps + 1, sizeof(int32_t));
	for (int32_t c = 0; c < m->n_comps; c++) {
		const struct hlo_computation *k = m->comps[c];
		b->up[c] = -1;
		if (k->n_callers == 1 ||
		    (k->n_callers > 1 && opcode_is_async((enum opcode)k->callers[0].instr->opcode)))
			b->up[c] = k->callers[0].instr->parent->index;
	}
	for (int32_t c = 0; c < m->n_comps; c++) {
		int32_t d = 0;
		for (int32_t x = b->up[c]; x >= 0 && d <= m->n_comps; x = b->up[x])
			d++;
		b->depth[c] = d;
	}
}

static int32_t common_caller(const struct tb *b, int32_t x, int32_t y)
{
	if (x < 0 || y < 0)
		return x < 0 ? y : x;
	for (int32_t guard = 0; x != y && guard <= 2 * b->m->n_comps; guard++) {
		if (b->depth[x] >= b->depth[y] && b->up[x] >= 0)
			x = b->up[x];
		else if (b->up[y] >= 0)
			y = b->up[y];
		else
			return -1;
	}
	return x == y ? x : -1;
}

/* Position of i in c: its own, or that of the call site leading to it. */
static int32_t pos_in(const struct tb *b, const struct hlo_instruction *i,
		      const struct hlo_computation *c)
{
	for (int32_t guard = 0; i && guard <= b->m->n_comps; guard++) {
		if (i->parent == c)
			return i->index;
		int32_t u = b->up[i->parent->index];
		if (u < 0)
			return -1;
		i = i->parent->callers[0].instr;
	}
	return -1;
}

static void homes(struct tb *b)
{
	const struct buffers *bf = b->bufs;
	int32_t nc = b->m->n_comps;
	b->home = arena_array(b->a, (size_t)bf->n_buffers + 1, sizeof(int32_t));
	b->home_off = arena_array(b->a, (size_t)nc + 2, sizeof(int32_t));
	for (int32_t k = 0; k < bf->n_buffers; k++) {
		const struct hlo_buffer *h = &bf->buffers[k];
		int32_t home = -1, any = 0;
		for (uint32_t q = 0; q < h->n_values; q++) {
			const struct hlo_computation *c = b->df->values[h->values[q]].def->parent;
			if (!allocating(c))
				continue;
			home = any ? common_caller(b, home, c->index) : c->index;
			any = 1;
			if (home < 0)
				break;
		}
		b->home[k] = any ? home : -1;
		if (b->home[k] >= 0)
			b->home_off[b->home[k] + 1]++;
	}
	for (int32_t c = 0; c < nc; c++)
		b->home_off[c + 1] += b->home_off[c];
	b->home_ids = arena_array(b->a, (size_t)b->home_off[nc] + 1, sizeof(int32_t));
	int32_t *fill = xcalloc((size_t)nc + 1, sizeof(int32_t));
	for (int32_t k = 0; k < bf->n_buffers; k++)
		if (b->home[k] >= 0)
			b->home_ids[b->home_off[b->home[k]] + fill[b->home[k]]++] = k;
	free(fill);
}

static enum tl_kind value_kind(const struct tb *b, int32_t vid)
{
	const struct hlo_value *v = &b->df->values[vid];
	const struct hlo_instruction *d = v->def;
	if (d->opcode == OP_PARAMETER && !v->is_phi) {
		if (d->parent->is_entry && d->parameter_number >= 0 &&
		    d->parameter_number < d->parent->n_params && b->donated[d->parameter_number])
			return TL_DONATED_PARAM;
		return TL_PARAM;
	}
	if (v->live_out)
		return TL_OUTPUT;
	if (d->opcode == OP_CONSTANT)
		return TL_CONST;
	return TL_TEMP;
}

/* The span of buffer k in c (the allocation lives from its first value's
 * definition to its last read); 0 when no value appears in c. A read-only
 * buffer (a constant, a parameter nobody donated) is held by the caller for
 * the whole entry computation. */
static int buffer_span(const struct tb *b, int32_t k, const struct hlo_computation *c,
		       int32_t *first, int32_t *last)
{
	const struct hlo_buffer *h = &b->bufs->buffers[k];
	int any = 0;
	for (uint32_t q = 0; q < h->n_values; q++) {
		struct live_range r;
		if (!allocating(b->df->values[h->values[q]].def->parent) ||
		    !value_live_range(b->df, h->values[q], c, &r))
			continue;
		if (!any || r.first < *first)
			*first = r.first;
		if (!any || r.last > *last)
			*last = r.last;
		any = 1;
	}
	if (any && c->is_entry && (h->flags & BUF_READ_ONLY))
		*last = c->n_instrs - 1;
	return any;
}

static uint64_t comp_peak(struct tb *b, const struct hlo_computation *c);

/* live[p] (and nested[p], the part nested computations hold) for c. */
static void comp_curve(struct tb *b, const struct hlo_computation *c, uint64_t *live,
		       uint64_t *nested)
{
	int32_t n = c->n_instrs;
	int64_t *diff = xcalloc((size_t)n + 1, sizeof(int64_t));
	for (int32_t q = b->home_off[c->index]; q < b->home_off[c->index + 1]; q++) {
		int32_t k = b->home_ids[q], f, l;
		if (!buffer_span(b, k, c, &f, &l))
			continue;
		diff[f] += (int64_t)b->bufs->buffers[k].bytes;
		diff[l + 1] -= (int64_t)b->bufs->buffers[k].bytes;
	}
	int64_t run = 0;
	for (int32_t p = 0; p < n; p++) {
		run += diff[p];
		uint64_t in = 0;
		const struct hlo_instruction *i = c->instrs[p];
		if (i->opcode == OP_WHILE || i->opcode == OP_CONDITIONAL || i->opcode == OP_CALL ||
		    opcode_is_async((enum opcode)i->opcode))
			for (int32_t k = 0; k < i->n_called; k++)
				if (i->called[k] && i->called[k] != c && allocating(i->called[k])) {
					uint64_t x = comp_peak(b, i->called[k]);
					if (x > in)
						in = x;
				}
		live[p] = (uint64_t)run + in;
		if (nested)
			nested[p] = in;
	}
	free(diff);
}

static uint64_t comp_peak(struct tb *b, const struct hlo_computation *c)
{
	int32_t x = c->index;
	if (b->peak_state[x] == 2)
		return b->peak_of[x];
	if (b->peak_state[x] == 1)
		return 0; /* a call cycle: the ordering rejects them; never loop */
	b->peak_state[x] = 1;
	uint64_t *live = xmalloc((size_t)c->n_instrs + 1, sizeof(uint64_t)), pk = 0;
	comp_curve(b, c, live, NULL);
	for (int32_t p = 0; p < c->n_instrs; p++)
		if (live[p] > pk)
			pk = live[p];
	free(live);
	b->peak_state[x] = 2;
	b->peak_of[x] = pk;
	return pk;
}

/* ---- lanes and bars ---- */

struct cand {
	int32_t buffer, first, last;
	uint64_t bytes;
};

static int cmp_bytes_desc(const void *x, const void *y)
{
	const struct cand *a = x, *c = y;
	if (a->bytes != c->bytes)
		return a->bytes > c->bytes ? -1 : 1;
	if (a->first != c->first)
		return a->first < c->first ? -1 : 1;
	return (a->buffer > c->buffer) - (a->buffer < c->buffer);
}

static int cmp_start(const void *x, const void *y)
{
	const struct cand *a = x, *c = y;
	if (a->first != c->first)
		return a->first < c->first ? -1 : 1;
	if (a->bytes != c->bytes)
		return a->bytes > c->bytes ? -1 : 1;
	return (a->buffer > c->buffer) - (a->buffer < c->buffer);
}

static int cmp_bar(const void *x, const void *y)
{
	const struct tl_bar *a = x, *c = y;
	if (a->first != c->first)
		return a->first < c->first ? -1 : 1;
	if (a->last != c->last)
		return a->last < c->last ? -1 : 1;
	return (a->value > c->value) - (a->value < c->value);
}

static int cmp_peak_row(const void *x, const void *y)
{
	const struct tl_peak_row *a = x, *c = y;
	if (a->bytes != c->bytes)
		return a->bytes > c->bytes ? -1 : 1;
	return (a->buffer > c->buffer) - (a->buffer < c->buffer);
}

static char *fmt(struct arena *a, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(struct arena *a, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *s = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

struct markv {
	int32_t n, cap;
	struct tl_mark *v;
};

static struct tl_mark *mark_push(struct markv *mv)
{
	if (mv->n == mv->cap) {
		mv->cap = mv->cap ? 2 * mv->cap : 16;
		mv->v = xrealloc(mv->v, (size_t)mv->cap, sizeof(*mv->v));
	}
	struct tl_mark *k = &mv->v[mv->n++];
	memset(k, 0, sizeof(*k));
	k->family = -1;
	k->panel = -1;
	return k;
}

static int64_t known_trip_count(const struct hlo_instruction *w)
{
	const char *s = w->ext->backend_config;
	const char *k = s ? strstr(s, "known_trip_count") : NULL;
	if (!k)
		return -1;
	const char *n = strstr(k, "\"n\"");
	if (!n)
		return -1;
	n += 3;
	while (*n == ':' || *n == ' ' || *n == '"')
		n++;
	if (*n < '0' || *n > '9')
		return -1;
	return strtoll(n, NULL, 10);
}

/* The lane of buffer k in panel p: its own, else the rest lane, else -1. */
static int32_t lane_of(const struct tb *b, const int32_t *lane_of_buf, const struct tl_panel *p,
		       int32_t k)
{
	if (k < 0 || b->home[k] != p->comp->index)
		return -1;
	if (lane_of_buf[k] >= 0)
		return lane_of_buf[k];
	return p->n_lanes > 0 && p->lanes[p->n_lanes - 1].buffer < 0 ? p->n_lanes - 1 : -1;
}

static int32_t value_lane(const struct tb *b, const int32_t *lob, const struct tl_panel *p,
			  const struct hlo_instruction *i)
{
	int32_t v = dataflow_unique_value(b->df, i, 0);
	return v < 0 ? -1 : lane_of(b, lob, p, b->bufs->buffer_of[v]);
}

static void build_panel(struct tb *b, int32_t pi, const struct hlo_computation *c)
{
	struct timeline *t = b->t;
	struct tl_panel *p = &t->panels[pi];
	struct arena *a = b->a;
	int32_t n = c->n_instrs;
	p->comp = c;
	p->n_pos = n;
	p->live = arena_array(a, (size_t)n + 1, sizeof(uint64_t));
	p->nested = arena_array(a, (size_t)n + 1, sizeof(uint64_t));
	p->rest = arena_array(a, (size_t)n + 1, sizeof(uint64_t));
	comp_curve(b, c, p->live, p->nested);
	p->peak_pos = -1;
	for (int32_t q = 0; q < n; q++)
		if (p->peak_pos < 0 || p->live[q] > p->peak) {
			p->peak = p->live[q];
			p->peak_pos = q;
		}

	/* the buffers drawn here, largest first: the top ones get lanes */
	int32_t h0 = b->home_off[c->index], h1 = b->home_off[c->index + 1], nc = 0;
	struct cand *cs = xmalloc(((size_t)(h1 - h0) + 1), sizeof(*cs));
	for (int32_t q = h0; q < h1; q++) {
		struct cand x = {b->home_ids[q], 0, 0, b->bufs->buffers[b->home_ids[q]].bytes};
		if (buffer_span(b, x.buffer, c, &x.first, &x.last))
			cs[nc++] = x;
	}
	p->n_buffers = nc;
	qsort(cs, (size_t)nc, sizeof(*cs), cmp_bytes_desc);
	int32_t top = 0;
	while (top < nc && top < b->opt->top && cs[top].bytes >= b->opt->min_bytes)
		top++;
	p->n_rest = nc - top;
	int64_t *rdiff = xcalloc((size_t)n + 1, sizeof(int64_t));
	for (int32_t q = top; q < nc; q++) {
		rdiff[cs[q].first] += (int64_t)cs[q].bytes;
		rdiff[cs[q].last + 1] -= (int64_t)cs[q].bytes;
	}
	int64_t run = 0;
	for (int32_t q = 0; q < n; q++)
		p->rest[q] = (uint64_t)(run += rdiff[q]);
	free(rdiff);

	/* buffers live at the peak, largest first (cs is in that order) */
	int32_t npk = 0;
	for (int32_t q = 0; q < nc; q++)
		npk += cs[q].first <= p->peak_pos && p->peak_pos <= cs[q].last;
	npk += p->peak_pos >= 0 && p->nested[p->peak_pos] > 0;
	p->peak_rows = arena_array(a, (size_t)npk + 1, sizeof(*p->peak_rows));
	for (int32_t q = 0; q < nc; q++) {
		if (!(cs[q].first <= p->peak_pos && p->peak_pos <= cs[q].last))
			continue;
		struct tl_peak_row *r = &p->peak_rows[p->n_peak_rows++];
		const struct hlo_buffer *h = &b->bufs->buffers[cs[q].buffer];
		r->buffer = cs[q].buffer;
		r->bytes = h->bytes;
		/* the owner at the peak: the value live there, else the first */
		int32_t owner = -1;
		for (uint32_t v = 0; v < h->n_values; v++) {
			struct live_range lr;
			if (!allocating(b->df->values[h->values[v]].def->parent) ||
			    !value_live_range(b->df, h->values[v], c, &lr))
				continue;
			if (owner < 0 || (lr.first <= p->peak_pos && p->peak_pos <= lr.last)) {
				int better = owner < 0 || !(lr.first <= p->peak_pos && p->peak_pos <= lr.last);
				owner = h->values[v];
				if (!better)
					break;
			}
		}
		if (owner < 0)
			owner = h->values[0];
		r->def = b->df->values[owner].def;
		r->kind = (uint8_t)value_kind(b, owner);
	}
	if (p->peak_pos >= 0 && p->nested[p->peak_pos] > 0) {
		struct tl_peak_row *r = &p->peak_rows[p->n_peak_rows++];
		r->buffer = -1;
		r->bytes = p->nested[p->peak_pos];
		r->kind = TL_TEMP;
		r->def = c->instrs[p->peak_pos];
	}
	qsort(p->peak_rows, (size_t)p->n_peak_rows, sizeof(*p->peak_rows), cmp_peak_row);

	/* lanes in order of their start (a staircase reads as the program) */
	qsort(cs, (size_t)top, sizeof(*cs), cmp_start);
	p->n_lanes = top + (p->n_rest > 0);
	p->lanes = arena_array(a, (size_t)p->n_lanes + 1, sizeof(*p->lanes));
	int32_t *lob = xmalloc(((size_t)b->bufs->n_buffers + 1), sizeof(int32_t));
	for (int32_t k = 0; k < b->bufs->n_buffers; k++)
		lob[k] = -1;
	int32_t nbars = 0;
	for (int32_t q = 0; q < top; q++)
		nbars += (int32_t)b->bufs->buffers[cs[q].buffer].n_values;
	p->bars = arena_array(a, (size_t)nbars + 1, sizeof(*p->bars));
	for (int32_t q = 0; q < top; q++) {
		struct tl_lane *l = &p->lanes[q];
		const struct hlo_buffer *h = &b->bufs->buffers[cs[q].buffer];
		l->buffer = cs[q].buffer;
		l->bytes = h->bytes;
		l->flags = h->flags;
		l->first = cs[q].first;
		l->last = cs[q].last;
		l->first_bar = p->n_bars;
		lob[l->buffer] = q;
		for (uint32_t v = 0; v < h->n_values; v++) {
			struct live_range lr;
			int32_t vid = h->values[v];
			if (!allocating(b->df->values[vid].def->parent) ||
			    !value_live_range(b->df, vid, c, &lr))
				continue;
			struct tl_bar *bar = &p->bars[p->n_bars++];
			bar->first = lr.first;
			bar->last = lr.last;
			bar->held_last = lr.last;
			bar->value = vid;
			bar->def = b->df->values[vid].def;
			bar->kind = (uint8_t)value_kind(b, vid);
		}
		l->n_bars = p->n_bars - l->first_bar;
		qsort(p->bars + l->first_bar, (size_t)l->n_bars, sizeof(*p->bars), cmp_bar);
		if (c->is_entry && (h->flags & BUF_READ_ONLY) && l->n_bars > 0)
			p->bars[l->first_bar + l->n_bars - 1].held_last = n - 1;
		l->kind = l->n_bars ? p->bars[l->first_bar].kind : TL_TEMP;
	}
	if (p->n_rest > 0) {
		struct tl_lane *l = &p->lanes[top];
		l->buffer = -1;
		l->first = 0;
		l->last = n - 1;
		l->kind = TL_TEMP;
		for (int32_t q = 0; q < n; q++)
			if (p->rest[q] > l->bytes)
				l->bytes = p->rest[q];
	}
	free(cs);

	/* marks: copies, hazards, reuse of donated buffers, while loops */
	struct markv mv = {0};
	const struct copy_verdicts *cv = t->cv;
	char by[32];
	for (int32_t q = 0; q < cv->copies.n; q++) {
		const struct copy_report *r = &cv->copies.items[q];
		if (r->copy->parent != c)
			continue;
		struct tl_mark *k = mark_push(&mv);
		k->type = TL_MARK_COPY;
		k->pos = r->copy->index;
		k->lane = value_lane(b, lob, p, r->copy);
		k->instr = r->copy;
		k->bytes = r->bytes;
		k->family = (int32_t)r->family;
		k->verdict = r->given != VERDICT_NONE ? r->given : r->any;
		tl_format_bytes(r->bytes, by, sizeof(by));
		const char *g = verdict_name(r->given), *an = verdict_name(r->any);
		k->title = fmt(a, "copy %s: %s, %s, %s", r->copy->name, copy_family_name(r->family),
			       verdict_name(k->verdict) ? verdict_name(k->verdict) : "unknown", by);
		k->evidence = fmt(a, "why: %s\nverdict.given: %s\nverdict.any: %s%s%s\n%s",
				  r->family_evidence ? r->family_evidence : "", g ? g : "null",
				  an ? an : "null", r->unknown_reason ? "\nunknown: " : "",
				  r->unknown_reason ? r->unknown_reason : "",
				  r->evidence ? r->evidence : "");
	}
	for (int32_t q = 0; q < cv->hazards.n; q++) {
		const struct hazard_report *h = &cv->hazards.items[q];
		int32_t k = b->bufs->buffer_of[h->v];
		if (k < 0 || b->home[k] != c->index)
			continue;
		const struct hlo_instruction *at = h->def_w ? h->def_w : h->use ? h->use : h->def_v;
		int32_t pos = pos_in(b, at, c);
		if (pos < 0)
			continue;
		struct tl_mark *m = mark_push(&mv);
		m->type = TL_MARK_HAZARD;
		m->pos = pos;
		m->lane = lane_of(b, lob, p, k);
		m->instr = at;
		m->bytes = h->bytes;
		m->family = (int32_t)h->predicted_family;
		m->title = fmt(a, "hazard %s on %s (%s schedule%s)", hazard_kind_name(h->kind),
			       h->def_v->name, h->in_every ? "every" : "some",
			       h->in_given == 1 ? ", the printed one too" : "");
		m->evidence = fmt(a, "%s\npredicted copy: %s", h->witness ? h->witness : "",
				  copy_family_name(h->predicted_family));
	}
	for (int32_t q = 0; q < p->n_lanes; q++) {
		const struct tl_lane *l = &p->lanes[q];
		if (l->buffer < 0 || (l->flags & (BUF_ENTRY_PARAM | BUF_ALIASED_OUTPUT)) !=
					     (BUF_ENTRY_PARAM | BUF_ALIASED_OUTPUT))
			continue;
		/* where the output that reuses the donated buffer begins: the
		 * first value defined into it that is not the parameter */
		const struct tl_bar *pb = NULL, *ob = NULL;
		for (int32_t z = 0; z < l->n_bars; z++) {
			const struct tl_bar *x = &p->bars[l->first_bar + z];
			if (x->def->opcode == OP_PARAMETER && x->def->parent == c)
				pb = pb ? pb : x;
			else if (!ob && x->def->parent == c)
				ob = x;
		}
		if (!pb || !ob)
			continue;
		struct tl_mark *m = mark_push(&mv);
		m->type = TL_MARK_REUSE;
		m->pos = ob->first;
		m->lane = q;
		m->instr = ob->def;
		m->bytes = l->bytes;
		m->title = fmt(a, "%s reuses donated %s from here", ob->def->name, pb->def->name);
		m->evidence = fmt(a, "input_output_alias: %s's buffer becomes the output's",
				  pb->def->name);
	}
	for (int32_t q = 0; q < n; q++) {
		const struct hlo_instruction *w = c->instrs[q];
		if (w->opcode != OP_WHILE || !w->ext->body)
			continue;
		struct tl_mark *m = mark_push(&mv);
		m->type = TL_MARK_WHILE;
		m->pos = q;
		/* the caller's lane: the largest buffer of the loop state drawn here */
		m->lane = -1;
		uint64_t best = 0;
		const struct value_set *vs0 = dataflow_set(b->df, w, 0);
		int32_t nsub = dataflow_tree(b->df, w)->n;
		for (int32_t s = 0; s < nsub && s < 4096; s++) {
			const struct value_set *vs = vs0 + s;
			const int32_t *ids = value_set_ids(vs);
			for (int32_t z = 0; z < vs->n; z++) {
				int32_t k = b->bufs->buffer_of[ids[z]];
				if (lob[k] >= 0 && (m->lane < 0 || b->bufs->buffers[k].bytes > best)) {
					m->lane = lob[k];
					best = b->bufs->buffers[k].bytes;
				}
			}
		}
		if (m->lane < 0 && p->n_rest > 0)
			m->lane = p->n_lanes - 1;
		m->instr = w;
		m->bytes = comp_peak(b, w->ext->body);
		int64_t trips = known_trip_count(w);
		tl_format_bytes(m->bytes, by, sizeof(by));
		char tc[48] = "trip count unknown";
		if (trips >= 0)
			snprintf(tc, sizeof(tc), "%lld iterations", (long long)trips);
		m->title = fmt(a, "while %s: body %s, %s per iteration, %s", w->name,
			       w->ext->body->name, by, tc);
		m->evidence = NULL;
		for (int32_t k = 0; k < t->n_panels && m->panel < 0; k++)
			if (t->panels[k].comp == w->ext->body)
				m->panel = k; /* drawn already (another loop of the same body) */
		if (m->panel < 0 && t->n_panels < b->opt->max_panels) {
			int32_t np = t->n_panels++;
			m->panel = np;
			t->panels[np].parent = pi;
			t->panels[np].caller = w;
			t->panels[np].trip_count = trips;
			t->panels[np].comp = w->ext->body; /* built after this one */
		} else if (m->panel < 0) {
			t->panels_cut++;
		}
	}
	p->n_marks = mv.n;
	p->marks = arena_array(a, (size_t)mv.n + 1, sizeof(*p->marks));
	if (mv.n)
		memcpy(p->marks, mv.v, (size_t)mv.n * sizeof(*mv.v));
	free(mv.v);
	free(lob);
}

struct timeline *timeline_build(struct hlo_module *m, const struct copy_verdicts *cv,
				const struct timeline_options *opt, struct diag *d)
{
	const struct hlo_computation *root = m->entry, *chosen = NULL;
	if (opt->computation) {
		chosen = hlo_find_computation(m, opt->computation);
		if (!chosen) {
			fprintf(d->out ? d->out : stderr, "%s: error: no computation '%s'\n",
				m->file ? m->file : "-", opt->computation);
			d->errors++;
			return NULL;
		}
	}
	if (!root) {
		error_at(d, m->pos, "module has no entry computation");
		return NULL;
	}
	struct timeline *t = xcalloc(1, sizeof(*t));
	t->m = m;
	t->cv = cv;
	t->scheduled = m->is_scheduled;
	t->n_copies = cv->copies.n;
	t->n_hazards = cv->hazards.n;
	struct tb b = {0};
	b.t = t;
	b.opt = opt;
	b.m = m;
	b.df = cv->an->df;
	b.bufs = cv->an->bufs;
	b.a = &m->arena;
	call_tree(&b);
	homes(&b);
	b.peak_state = arena_array(b.a, (size_t)m->n_comps + 1, 1);
	b.peak_of = arena_array(b.a, (size_t)m->n_comps + 1, sizeof(uint64_t));
	int32_t np = m->entry ? m->entry->n_params : 0;
	b.donated = arena_array(b.a, (size_t)np + 1, 1);
	for (int32_t k = 0; k < m->n_aliases; k++)
		if (m->aliases[k].param >= 0 && m->aliases[k].param < np)
			b.donated[m->aliases[k].param] = 1;
	for (int32_t k = 0; k < m->n_donors; k++)
		if (m->donors[k].param >= 0 && m->donors[k].param < np)
			b.donated[m->donors[k].param] = 1;
	int32_t maxp = opt->max_panels > 0 ? opt->max_panels : 1;
	t->panels = arena_array(b.a, (size_t)maxp + 1, sizeof(*t->panels));
	t->n_panels = 1;
	t->panels[0].parent = -1;
	t->panels[0].trip_count = -1;
	t->panels[0].comp = root;
	struct timeline_options o = *opt;
	/* the chosen computation keeps a place for itself */
	int reserve = chosen && chosen != root && maxp > 1;
	o.max_panels = maxp - reserve;
	b.opt = &o;
	/* panels are appended by the whiles of the ones before them; the
	 * chosen computation after them, unless one of them drew it */
	for (int32_t k = 0; k < t->n_panels; k++) {
		build_panel(&b, k, t->panels[k].comp);
		if (k == t->n_panels - 1 && reserve) {
			reserve = 0;
			o.max_panels = maxp;
			int drawn = 0;
			for (int32_t q = 0; q < t->n_panels; q++)
				drawn |= t->panels[q].comp == chosen;
			if (!drawn) {
				struct tl_panel *c = &t->panels[t->n_panels++];
				c->parent = -1;
				c->trip_count = -1;
				c->comp = chosen;
			}
		}
	}
	return t;
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	free(t);
}

/* ---- what the writers share ---- */

void tl_format_bytes(uint64_t v, char *buf, size_t cap)
{
	/* a cost that saturated (satmath.h: loops nested deep multiply their
	 * trip counts) is a bound, not a figure */
	if (v >= (uint64_t)INT64_MAX)
		snprintf(buf, cap, "more than 8 EiB");
	else if (v < 1024)
		snprintf(buf, cap, "%llu B", (unsigned long long)v);
	else if (v < (1ull << 20))
		snprintf(buf, cap, "%.1f KiB", (double)v / 1024.0);
	else if (v < (1ull << 30))
		snprintf(buf, cap, "%.2f MiB", (double)v / (1024.0 * 1024.0));
	else
		snprintf(buf, cap, "%.2f GiB", (double)v / (1024.0 * 1024.0 * 1024.0));
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static int utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (n == 0 || (s[0] >= 0xf8))
		return 0;
	for (int k = 1; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0; /* overlong, surrogate */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;
	if (n == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
		return 0; /* U+FFFE, U+FFFF: not XML characters */
	return n;
}

void tl_xml_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		switch (*p) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&#39;", f); p++; continue;
		case '\n': fputs("&#10;", f); p++; continue;
		case '\t': fputc('\t', f); p++; continue;
		default: break;
		}
		int n = *p < 0x20 || *p == 0x7f ? 0 : utf8_len(p);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f);
			p++;
		} else {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		}
	}
}

const char *tl_clean_utf8(const struct timeline *t, const char *s)
{
	if (!s)
		return "";
	size_t len = strlen(s);
	char *o = arena_alloc(&t->m->arena, 3 * len + 1), *w = o;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int n = (*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ? 0 : utf8_len(p);
		if (n == 0) {
			memcpy(w, "\xef\xbf\xbd", 3);
			w += 3;
			p++;
		} else {
			memcpy(w, p, (size_t)n);
			w += n;
			p += n;
		}
	}
	*w = 0;
	return o;
}

void tl_source(const struct hlo_instruction *i, char *buf, size_t cap)
{
	if (i && i->source_file && i->source_line > 0)
		snprintf(buf, cap, "%s:%d", i->source_file, (int)i->source_line);
	else if (i && i->source_file)
		snprintf(buf, cap, "%s", i->source_file);
	else if (cap)
		buf[0] = 0;
}

const char *tl_order_name(const struct timeline *t)
{
	return t->scheduled ? "schedule order (the module is scheduled: positions are its printed order)"
			    : "dependency order (the module is not scheduled: positions are the printed "
			      "order, a topological order hloproof uses)";
}

char *tl_bar_card(const struct timeline *t, const struct tl_panel *p, const struct tl_lane *l,
		  const struct tl_bar *b)
{
	char shape[256] = "", src[512], by[32];
	const struct hlo_value *v = &t->cv->an->df->values[b->value];
	const struct shape *sh = dataflow_subshape(t->cv->an->df, b->def, (int32_t)v->sub);
	if (sh)
		shape_to_string(sh, shape, sizeof(shape));
	tl_source(b->def, src, sizeof(src));
	tl_format_bytes(l->bytes, by, sizeof(by));
	const char *arg = b->def->opcode == OP_PARAMETER ? "argument" : "op_name";
	size_t cap = 1024 + strlen(src) + strlen(b->def->name) + strlen(p->comp->name) +
		     (b->def->op_name ? strlen(b->def->op_name) : 0);
	char *s = xmalloc(cap, 1);
	snprintf(s, cap,
		 "%s (%s)\nshape: %s\nbytes: %s (buffer %d)\nkind: %s\nsource: %s\n%s: %s\n"
		 "live: [%d, %d]%s%s%s%s",
		 b->def->name, hlo_opcode_text(b->def), shape, by, (int)l->buffer,
		 tl_kind_name((enum tl_kind)b->kind), src[0] ? src : "(no metadata)", arg,
		 b->def->op_name ? b->def->op_name : "(none)", (int)b->first, (int)b->last,
		 b->held_last > b->last ? " (then held by the caller: read-only)" : "",
		 (l->flags & BUF_ALIASED_OUTPUT) ? "\nbuffer: aliased output (donation honored)" : "",
		 (l->flags & BUF_LIVE_OUT) ? "\nbuffer: live out" : "",
		 v->is_phi ? "\nvalue: loop or branch phi" : "");
	return s;
}
