/* report_timeline_svg.c - the timeline drawn as SVG, for the svg format and
 * inside the HTML page: per panel the live bytes against the schedule
 * position with the peak, the buffers live at the peak, then a lane per
 * buffer with its values' bars and the marks. Every bar and mark carries a
 * <title> (the card: shown on hover by any SVG viewer, by the page's script
 * on click); elements carry classes and data-* attributes for scripts and
 * tests. What is narrower than a pixel is merged (bars of one kind, marks of
 * one type and verdict in one column), with the count kept in data-n. */
#include "timeline.h"
#include "copies.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

#define SVG_W 1330        /* the whole picture */
#define LABEL_W 230       /* lane labels left of the plot */
#define RIGHT_PAD 16
#define INDENT 28         /* per nesting level */
#define CHART_H 150
#define LANE_H 13
#define PEAK_ROWS 12      /* rows of the peak list drawn */
#define PEAK_ROW_H 14
#define TITLE_MAX 2400    /* bytes of card text per merged element */

static const char *const kind_fill[TL_KIND_COUNT] = {"#8e44ad", "#4a90d9", "#27ae60", "#f0a030",
						    "#9b9b9b"};

static const char *verdict_fill(enum verdict v)
{
	switch (v) {
	case VERDICT_REMOVABLE: return "#1a9850";
	case VERDICT_NECESSARY: return "#222222";
	case VERDICT_SCHEDULE_DEPENDENT: return "#d4a017";
	default: return "#8a8a8a";
	}
}

struct geo {
	double x0, x1;    /* plot area */
	int32_t n;        /* positions */
	double top;       /* panel top */
	double chart_top, lanes_top, peak_top, height;
	int depth;
};

static int panel_depth(const struct timeline *t, int32_t pi)
{
	int d = 0;
	for (int32_t x = t->panels[pi].parent; x >= 0 && d < 64; x = t->panels[x].parent)
		d++;
	return d;
}

static double xpos(const struct geo *g, double p)
{
	return g->n > 0 ? g->x0 + (g->x1 - g->x0) * p / g->n : g->x0;
}

static int32_t n_peak_drawn(const struct tl_panel *p)
{
	return p->n_peak_rows < PEAK_ROWS ? p->n_peak_rows : PEAK_ROWS;
}

static void layout(const struct timeline *t, int32_t pi, double top, struct geo *g)
{
	const struct tl_panel *p = &t->panels[pi];
	g->depth = panel_depth(t, pi);
	g->x0 = LABEL_W + INDENT * g->depth;
	g->x1 = SVG_W - RIGHT_PAD;
	g->n = p->n_pos;
	g->top = top;
	g->chart_top = top + 58;
	g->peak_top = g->chart_top + CHART_H + 34;
	g->lanes_top = g->peak_top + PEAK_ROW_H * (n_peak_drawn(p) + 1 + (p->n_peak_rows > PEAK_ROWS)) + 16;
	g->height = g->lanes_top - top + LANE_H * (p->n_lanes + 1) + 28;
}

/* The name cut to at most n bytes, at a character boundary. */
static void short_name(const char *s, char *buf, size_t n)
{
	size_t len = strlen(s);
	if (len < n) {
		memcpy(buf, s, len + 1);
		return;
	}
	size_t k = n - 4;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	memcpy(buf, s, k);
	memcpy(buf + k, "...", 4);
}

static void title(FILE *f, const char *s)
{
	fputs("<title>", f);
	tl_xml_escape(f, s);
	fputs("</title>", f);
}

/* ---- the live-bytes chart ---- */

static uint64_t col_max(const uint64_t *v, int32_t n, int32_t col, int32_t ncol)
{
	int64_t lo = (int64_t)col * n / ncol, hi = ((int64_t)col + 1) * n / ncol - 1;
	if (hi < lo)
		hi = lo;
	uint64_t m = 0;
	for (int64_t q = lo; q <= hi && q < n; q++)
		if (v[q] > m)
			m = v[q];
	return m;
}

static void area(FILE *f, const struct geo *g, const uint64_t *v, uint64_t scale, const char *cls,
		 const char *fill, double base, double h)
{
	int32_t ncol = (int32_t)(g->x1 - g->x0);
	if (g->n <= 0 || ncol <= 0 || scale == 0)
		return;
	fprintf(f, "<path class=\"%s\" fill=\"%s\" d=\"M%.1f,%.1f", cls, fill, g->x0, base);
	for (int32_t c = 0; c < ncol; c++) {
		double y = base - h * (double)col_max(v, g->n, c, ncol) / (double)scale;
		fprintf(f, "L%.1f,%.1fL%.1f,%.1f", g->x0 + c, y, g->x0 + c + 1, y);
	}
	fprintf(f, "L%.1f,%.1fZ\"/>\n", g->x1, base);
}

static void chart(FILE *f, const struct timeline *t, const struct tl_panel *p,
		  const struct geo *g)
{
	double base = g->chart_top + CHART_H;
	char by[32];
	fprintf(f, "<rect class=\"chart-bg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		   "fill=\"#fafafa\" stroke=\"#ccc\"/>\n", g->x0, g->chart_top, g->x1 - g->x0, CHART_H);
	area(f, g, p->live, p->peak, "live", "#5b7db1", base, CHART_H - 6);
	area(f, g, p->nested, p->peak, "nested", "url(#hatch)", base, CHART_H - 6);
	/* y axis: 0 and the peak */
	tl_format_bytes(p->peak, by, sizeof(by));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"axis\">%s</text>\n",
		g->x0 - 6, g->chart_top + 10, by);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"axis\">0</text>\n",
		g->x0 - 6, base);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis-title\">live bytes</text>\n",
		g->x0 - LABEL_W + 16 + 0.0 * g->depth, g->chart_top + CHART_H / 2.0);
	/* x axis: five ticks */
	for (int k = 0; k <= 4 && g->n > 0; k++) {
		int32_t q = (int32_t)((int64_t)(g->n - 1) * k / 4);
		double x = xpos(g, q + 0.5);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">%d</text>\n",
			x, base, x, base + 4, x, base + 15, (int)q);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis order\">schedule position: ", g->x0,
		base + 28);
	tl_xml_escape(f, tl_order_name(t));
	fputs("</text>\n", f);
	if (p->peak_pos < 0)
		return;
	/* the peak: a line down through the lanes, its value and instruction */
	double x = xpos(g, p->peak_pos + 0.5);
	fprintf(f, "<line class=\"peak-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		   "stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>\n",
		x, g->chart_top - 14, x, g->height + g->top - 24);
	const struct hlo_instruction *at = p->comp->instrs[p->peak_pos];
	double tx = x + 6, anchor_end = x > (g->x0 + g->x1) / 2;
	if (anchor_end)
		tx = x - 6;
	fprintf(f, "<text class=\"peak-label\" data-peak=\"%llu\" data-pos=\"%d\" x=\"%.1f\" "
		   "y=\"%.1f\" text-anchor=\"%s\">peak %s at position %d (",
		(unsigned long long)p->peak, (int)p->peak_pos, tx, g->chart_top - 4,
		anchor_end ? "end" : "start", by, (int)p->peak_pos);
	tl_xml_escape(f, at->name);
	fputs(")</text>\n", f);
}

/* ---- the buffers live at the peak ---- */

static void peak_list(FILE *f, const struct timeline *t, const struct tl_panel *p,
		      const struct geo *g)
{
	double y = g->peak_top;
	char by[32], src[512], nm[64];
	fprintf(f, "<g class=\"peak-list\" data-rows=\"%d\">\n", (int)p->n_peak_rows);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"heading\">buffers live at the peak, "
		   "largest first (%d)</text>\n", g->x0 - LABEL_W + 16.0, y, (int)p->n_peak_rows);
	for (int32_t k = 0; k < n_peak_drawn(p); k++) {
		const struct tl_peak_row *r = &p->peak_rows[k];
		y += PEAK_ROW_H;
		tl_format_bytes(r->bytes, by, sizeof(by));
		tl_source(r->def, src, sizeof(src));
		short_name(r->def->name, nm, 40);
		fprintf(f, "<text class=\"peak-row\" x=\"%.1f\" y=\"%.1f\"><tspan class=\"num\">%s"
			   "</tspan><tspan x=\"%.1f\">%s</tspan><tspan x=\"%.1f\">",
			g->x0 - LABEL_W + 16.0, y, by, g->x0 - LABEL_W + 100.0,
			r->buffer < 0 ? "nested" : tl_kind_name((enum tl_kind)r->kind),
			g->x0 - LABEL_W + 230.0);
		if (r->buffer < 0)
			fputs("held inside ", f);
		tl_xml_escape(f, nm);
		fprintf(f, "</tspan><tspan x=\"%.1f\">", g->x0 - LABEL_W + 560.0);
		if (src[0]) {
			tl_xml_escape(f, src);
		} else if (r->def->opcode == OP_PARAMETER && r->def->op_name) {
			fputs("argument ", f);
			tl_xml_escape(f, r->def->op_name);
		} else {
			fputs("(no source line)", f);
		}
		fputs("</tspan></text>\n", f);
	}
	if (p->n_peak_rows > PEAK_ROWS) {
		uint64_t more = 0;
		for (int32_t k = PEAK_ROWS; k < p->n_peak_rows; k++)
			more += p->peak_rows[k].bytes;
		tl_format_bytes(more, by, sizeof(by));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\">... and %d more buffers, %s</text>\n",
			g->x0 - LABEL_W + 16.0, y + PEAK_ROW_H, (int)(p->n_peak_rows - PEAK_ROWS), by);
	}
	fputs("</g>\n", f);
	(void)t;
}

/* ---- lanes ---- */

static void lane_label(FILE *f, const struct tl_panel *p, const struct tl_lane *l,
		       const struct geo *g, double y)
{
	char by[32], nm[40];
	tl_format_bytes(l->bytes, by, sizeof(by));
	fprintf(f, "<text class=\"lane-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		g->x0 - 6, y + LANE_H - 3);
	if (l->buffer < 0) {
		fprintf(f, "%d other buffers, up to %s", (int)p->n_rest, by);
	} else {
		short_name(l->n_bars ? p->bars[l->first_bar].def->name : "?", nm, sizeof(nm) - 8);
		tl_xml_escape(f, nm);
		fprintf(f, " \xc2\xb7 %s", by);
	}
	fputs("</text>\n", f);
}

static void bar_group(FILE *f, const struct timeline *t, const struct tl_panel *p,
		      const struct tl_lane *l, const struct geo *g, double y, int32_t i, int32_t j)
{
	const struct tl_bar *b = &p->bars[l->first_bar + i];
	int32_t last = b->last, held = b->held_last;
	for (int32_t k = i; k <= j; k++) {
		const struct tl_bar *x = &p->bars[l->first_bar + k];
		if (x->last > last)
			last = x->last;
		if (x->held_last > held)
			held = x->held_last;
	}
	double x0 = xpos(g, b->first), x1 = xpos(g, last + 1);
	if (x1 - x0 < 1.5)
		x1 = x0 + 1.5;
	char *card = tl_bar_card(t, p, l, b);
	fprintf(f, "<rect class=\"bar %s\" data-n=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%d\" fill=\"%s\">", tl_kind_slug((enum tl_kind)b->kind), (int)(j - i + 1),
		x0, y + 1, x1 - x0, LANE_H - 2, kind_fill[b->kind]);
	if (j > i) {
		size_t n = strlen(card);
		char *c2 = xrealloc(card, n + 96, 1);
		card = c2;
		snprintf(card + n, 96, "\n(and %d more values of this buffer, to position %d)",
			 (int)(j - i), (int)last);
	}
	title(f, card);
	fputs("</rect>\n", f);
	free(card);
	if (held > last) {
		double h1 = xpos(g, held + 1);
		fprintf(f, "<rect class=\"held\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			   "fill=\"%s\" fill-opacity=\"0.35\"><title>held by the caller to the end: "
			   "read-only, not donated</title></rect>\n",
			x1, y + 1, h1 - x1 > 0 ? h1 - x1 : 0, LANE_H - 2, kind_fill[b->kind]);
	}
}

static void lane(FILE *f, const struct timeline *t, const struct tl_panel *p, int32_t li,
		 const struct geo *g)
{
	const struct tl_lane *l = &p->lanes[li];
	double y = g->lanes_top + LANE_H * li;
	if (li % 2 == 0)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#f4f6f8\"/>\n",
			g->x0, y, g->x1 - g->x0, LANE_H);
	fprintf(f, "<g class=\"lane%s\" data-lane=\"%d\" data-buffer=\"%d\" data-bytes=\"%llu\">\n",
		l->buffer < 0 ? " rest" : "", (int)li, (int)l->buffer, (unsigned long long)l->bytes);
	lane_label(f, p, l, g, y);
	if (l->buffer < 0) {
		/* the rest: its summed bytes as a small area */
		area(f, g, p->rest, l->bytes, "rest-area", "#b0b8c0", y + LANE_H - 1, LANE_H - 2);
		fputs("</g>\n", f);
		return;
	}
	/* the allocation's span behind its values */
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#9aa\"/>\n",
		xpos(g, l->first), y + LANE_H / 2.0, xpos(g, l->last + 1), y + LANE_H / 2.0);
	for (int32_t i = 0; i < l->n_bars;) {
		/* merge what shares a pixel: same kind, overlapping, thin */
		int32_t j = i;
		const struct tl_bar *b = &p->bars[l->first_bar + i];
		double end = xpos(g, b->last + 1);
		while (j + 1 < l->n_bars) {
			const struct tl_bar *nx = &p->bars[l->first_bar + j + 1];
			double nx0 = xpos(g, nx->first), nx1 = xpos(g, nx->last + 1);
			if (nx->kind != b->kind || nx0 > end + 0.5 || (nx1 - nx0 >= 2 && end - xpos(g, b->first) >= 2))
				break;
			if (nx1 > end)
				end = nx1;
			j++;
		}
		bar_group(f, t, p, l, g, y, i, j);
		i = j + 1;
	}
	fputs("</g>\n", f);
}

/* ---- marks ---- */

static const char *mark_class(enum tl_mark_type k)
{
	static const char *const n[] = {"copy", "hazard", "reuse", "while"};
	return k <= TL_MARK_WHILE ? n[k] : "mark";
}

static void mark_shape(FILE *f, const struct tl_mark *m, double x, double y)
{
	double c = y + LANE_H / 2.0;
	switch (m->type) {
	case TL_MARK_COPY:
		fprintf(f, "<path d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fZ\" fill=\"%s\" "
			   "stroke=\"#111\" stroke-width=\"0.9\"/>",
			x, c - 6, x + 5, c, x, c + 6, x - 5, c, verdict_fill(m->verdict));
		break;
	case TL_MARK_HAZARD:
		fprintf(f, "<path d=\"M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f\" stroke=\"#e41a1c\" "
			   "stroke-width=\"2.4\"/>",
			x - 4, c - 4, x + 4, c + 4, x - 4, c + 4, x + 4, c - 4);
		break;
	case TL_MARK_REUSE:
		fprintf(f, "<path d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fZ\" fill=\"#fff\" "
			   "stroke=\"#111\" stroke-width=\"1.2\"/>",
			x, c - 6, x + 8, c, x, c + 6);
		break;
	default:
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"%d\" fill=\"none\" "
			   "stroke=\"#1f3a93\" stroke-width=\"2\"/>",
			x - 4, y, LANE_H);
		break;
	}
}

static int cmp_mark(const void *a, const void *b, void *arg)
{
	const struct tl_mark *const *x = a, *const *y = b;
	(void)arg;
	if ((*x)->lane != (*y)->lane)
		return (*x)->lane < (*y)->lane ? -1 : 1;
	if ((*x)->type != (*y)->type)
		return (*x)->type < (*y)->type ? -1 : 1;
	if ((*x)->pos != (*y)->pos)
		return (*x)->pos < (*y)->pos ? -1 : 1;
	return (*x)->verdict < (*y)->verdict ? -1 : (*x)->verdict > (*y)->verdict;
}

static void append(char *buf, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > cap)
		n = cap > *len + 1 ? cap - *len - 1 : 0;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = 0;
}

static void marks(FILE *f, const struct timeline *t, const struct tl_panel *p,
		  const struct geo *g, double strip_y)
{
	if (p->n_marks == 0)
		return;
	const struct tl_mark **ms = xmalloc((size_t)p->n_marks, sizeof(*ms));
	char *card = xmalloc(TITLE_MAX + 1, 1);
	for (int32_t k = 0; k < p->n_marks; k++)
		ms[k] = &p->marks[k];
	qsort_r(ms, (size_t)p->n_marks, sizeof(*ms), cmp_mark, NULL);
	fputs("<g class=\"marks\">\n", f);
	for (int32_t i = 0; i < p->n_marks;) {
		const struct tl_mark *m = ms[i];
		/* a reuse begins with its position; the others happen during it */
		double x = xpos(g, m->pos + (m->type == TL_MARK_REUSE ? 0.0 : 0.5));
		int32_t j = i;
		/* one column, one lane, one type (and verdict): one mark */
		while (j + 1 < p->n_marks && ms[j + 1]->lane == m->lane && ms[j + 1]->type == m->type &&
		       ms[j + 1]->verdict == m->verdict && (int)xpos(g, ms[j + 1]->pos + 0.5) == (int)x)
			j++;
		double y = m->lane >= 0 ? g->lanes_top + LANE_H * m->lane : strip_y;
		size_t len = 0;
		card[0] = 0;
		for (int32_t k = i; k <= j && len + 8 < TITLE_MAX; k++) {
			if (k > i)
				append(card, TITLE_MAX, &len, "\n\n");
			append(card, TITLE_MAX, &len, ms[k]->title);
			char line[128];
			snprintf(line, sizeof(line), "\nposition %d", (int)ms[k]->pos);
			append(card, TITLE_MAX, &len, line);
			if (ms[k]->evidence) {
				append(card, TITLE_MAX, &len, "\n");
				append(card, TITLE_MAX, &len, ms[k]->evidence);
			}
		}
		if (len + 8 >= TITLE_MAX) {
			char more[96];
			snprintf(more, sizeof(more), "\n... (%d marks here in all)", (int)(j - i + 1));
			len = len > TITLE_MAX - 60 ? TITLE_MAX - 60 : len;
			/* back to a character boundary before cutting */
			while (len > 0 && ((unsigned char)card[len] & 0xc0) == 0x80)
				len--;
			card[len] = 0;
			append(card, TITLE_MAX, &len, more);
		}
		const char *v = m->type == TL_MARK_COPY ? verdict_name(m->verdict) : NULL;
		fprintf(f, "<g class=\"mark %s\" data-n=\"%d\" data-pos=\"%d\"", mark_class(m->type),
			(int)(j - i + 1), (int)m->pos);
		if (v)
			fprintf(f, " data-verdict=\"%s\"", v);
		if (m->type == TL_MARK_COPY && m->family >= 0)
			fprintf(f, " data-family=\"%s\"", copy_family_name((enum copy_family)m->family));
		if (m->panel >= 0)
			fprintf(f, " data-panel=\"%d\"", (int)m->panel);
		fputs(">", f);
		title(f, card);
		mark_shape(f, m, x, y);
		fputs("</g>\n", f);
		i = j + 1;
	}
	fputs("</g>\n", f);
	free(card);
	free(ms);
	(void)t;
}

/* ---- the picture ---- */

static void header(FILE *f, const struct timeline *t, const struct tl_panel *p, int32_t pi,
		   const struct geo *g)
{
	double x = g->x0 - LABEL_W + 8;
	int copies = 0, hazards = 0;
	for (int32_t k = 0; k < p->n_marks; k++) {
		copies += p->marks[k].type == TL_MARK_COPY;
		hazards += p->marks[k].type == TL_MARK_HAZARD;
	}
	fprintf(f, "<text class=\"panel-title\" x=\"%.1f\" y=\"%.1f\">", x, g->top + 18);
	if (p->caller) {
		char by[32];
		tl_format_bytes(p->peak, by, sizeof(by));
		fputs("while body ", f);
		tl_xml_escape(f, p->comp->name);
		fputs(" of ", f);
		tl_xml_escape(f, p->caller->name);
		fprintf(f, ": %s per iteration", by);
		if (p->trip_count >= 0)
			fprintf(f, ", %lld iterations", (long long)p->trip_count);
		else
			fputs(", trip count unknown", f);
	} else {
		fputs("computation ", f);
		tl_xml_escape(f, p->comp->name);
		if (pi == 0 && t->m->name) {
			fputs(" of module ", f);
			tl_xml_escape(f, t->m->name);
		}
	}
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"panel-sub\" x=\"%.1f\" y=\"%.1f\">%d positions, %d buffers "
		   "(%d lanes, %d summed), %d copies, %d hazards</text>\n",
		x, g->top + 34, (int)p->n_pos, (int)p->n_buffers,
		(int)(p->n_lanes - (p->n_rest > 0)), (int)p->n_rest, copies, hazards);
	if (p->n_buffers == 0)
		fprintf(f, "<text class=\"panel-sub\" x=\"%.1f\" y=\"%.1f\">no buffer is allocated here: "
			   "the values of a fusion or other embedded computation get none of their own</text>\n",
			x + 420, g->top + 34);
}

static void legend(FILE *f, double y)
{
	double x = 16;
	for (int k = 0; k < TL_KIND_COUNT; k++) {
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%.0f\" y=\"%.0f\" class=\"legend\">%s</text>\n",
			x, y, kind_fill[k], x + 18, y + 9, tl_kind_name((enum tl_kind)k));
		x += 26 + 5.8 * (double)strlen(tl_kind_name((enum tl_kind)k));
	}
	static const struct { enum verdict v; const char *n; } vs[] = {
		{VERDICT_REMOVABLE, "copy: removable"}, {VERDICT_NECESSARY, "copy: necessary"},
		{VERDICT_SCHEDULE_DEPENDENT, "copy: schedule-dependent"}, {VERDICT_UNKNOWN, "copy: unknown"}};
	for (size_t k = 0; k < sizeof(vs) / sizeof(vs[0]); k++) {
		struct tl_mark m = {.type = TL_MARK_COPY, .verdict = vs[k].v};
		mark_shape(f, &m, x + 5, y - 1.5);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"legend\">%s</text>\n", x + 14, y + 9, vs[k].n);
		x += 24 + 5.8 * (double)strlen(vs[k].n);
	}
	struct tl_mark h = {.type = TL_MARK_HAZARD}, r = {.type = TL_MARK_REUSE},
		       w = {.type = TL_MARK_WHILE};
	mark_shape(f, &h, x + 5, y - 1.5);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"legend\">hazard</text>\n", x + 14, y + 9);
	x += 62;
	mark_shape(f, &r, x + 3, y - 1.5);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"legend\">output reuses a donated buffer</text>\n",
		x + 14, y + 9);
	x += 196;
	mark_shape(f, &w, x + 5, y - 1.5);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"legend\">while loop</text>\n", x + 14, y + 9);
}

int timeline_write_svg(FILE *f, const struct timeline *t, int interactive)
{
	struct geo *gs = xmalloc(((size_t)t->n_panels + 1), sizeof(*gs));
	double top = 30;
	for (int32_t k = 0; k < t->n_panels; k++) {
		layout(t, k, top, &gs[k]);
		top += gs[k].height + 12;
	}
	double h = top + 10;
	if (!interactive)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%d\" "
		   "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-panels=\"%d\" data-copies=\"%d\" "
		   "data-hazards=\"%d\">\n",
		SVG_W, h, SVG_W, h, (int)t->n_panels, (int)t->n_copies, (int)t->n_hazards);
	fputs("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#9db4d8\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#1f3a93\" stroke-width=\"2\"/>"
	      "</pattern></defs>\n", f);
	fputs("<style>text{font-family:sans-serif;font-size:11px;fill:#222}"
	      ".panel-title{font-size:14px;font-weight:bold}.panel-sub,.axis{fill:#555}"
	      ".heading{font-weight:bold}.peak-label{fill:#c0392b;font-weight:bold;font-size:12px}"
	      ".lane-label{font-size:10px}.num{font-weight:bold}"
	      ".axis-title{fill:#555;font-style:italic}</style>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%.0f\" fill=\"#fff\"/>\n", SVG_W, h);
	legend(f, 8);
	for (int32_t k = 0; k < t->n_panels; k++) {
		const struct tl_panel *p = &t->panels[k];
		const struct geo *g = &gs[k];
		int copies = 0;
		for (int32_t q = 0; q < p->n_marks; q++)
			copies += p->marks[q].type == TL_MARK_COPY;
		fprintf(f, "<g class=\"panel\" id=\"panel-%d\" data-panel=\"%d\" data-parent=\"%d\" "
			   "data-lanes=\"%d\" data-copies=\"%d\" data-peak=\"%llu\" data-computation=\"",
			(int)k, (int)k, (int)p->parent, (int)p->n_lanes, copies,
			(unsigned long long)p->peak);
		tl_xml_escape(f, p->comp->name);
		fputs("\">\n", f);
		if (g->depth > 0)
			fprintf(f, "<rect class=\"nested-frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				   "height=\"%.1f\" fill=\"none\" stroke=\"#1f3a93\" stroke-width=\"1.5\" "
				   "rx=\"6\"/>\n", g->x0 - LABEL_W + 2, g->top, g->x1 - g->x0 + LABEL_W + 8,
				g->height);
		else if (k > 0 || t->n_panels > 1)
			fprintf(f, "<line x1=\"0\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
				g->top - 4, SVG_W, g->top - 4);
		header(f, t, p, k, g);
		chart(f, t, p, g);
		peak_list(f, t, p, g);
		for (int32_t li = 0; li < p->n_lanes; li++)
			lane(f, t, p, li, g);
		marks(f, t, p, g, g->lanes_top + LANE_H * p->n_lanes);
		fputs("</g>\n", f);
	}
	if (t->panels_cut)
		fprintf(f, "<text x=\"16\" y=\"%.0f\" class=\"axis\">%d more while bodies not drawn "
			   "(--computation NAME draws one)</text>\n", h - 8, (int)t->panels_cut);
	fputs("</svg>\n", f);
	free(gs);
	return ferror(f) ? -1 : 0;
}
