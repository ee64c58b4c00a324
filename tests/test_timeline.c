/* test_timeline.c - the timeline model (timeline.h) on corpus/timeline:
 * positions, live bytes and the peak worked out by hand, lanes and the rest
 * lane, marks, the nested loop panel; the shared helpers (bytes, escaping);
 * every writer run to memory (so that the sanitizer build covers them). */
#include "testutil.h"
#include "session.h"
#include "timeline.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The session the command would open (one test at a time). */
static struct session *the_session;

static struct timeline *build(const char *path, const struct timeline_options *o,
			      struct hlo_module **m)
{
	struct diag d;
	diag_init(&d, stderr);
	*m = hlo_parse_file(path, &d);
	assert_non_null(*m);
	struct timeline_options def;
	timeline_default_options(&def);
	struct session_options so = {0};
	session_options_for_rules(&so);
	the_session = session_open(*m, NULL, &so);
	const struct copy_verdicts *cv = session_copy_verdicts(the_session);
	assert_non_null(cv);
	struct timeline *t = timeline_build(*m, cv, o ? o : &def, &d);
	assert_non_null(t);
	return t;
}

static void release(struct timeline *t, struct hlo_module *m)
{
	timeline_free(t);
	session_close(the_session);
	the_session = NULL;
	hlo_module_free(m);
}

static int32_t count_marks(const struct tl_panel *p, enum tl_mark_type k)
{
	int32_t n = 0;
	for (int32_t i = 0; i < p->n_marks; i++)
		n += p->marks[i].type == k;
	return n;
}

/* train_step.hlo, entry positions: w0 x1 u2 k3 g4 c1 5 d1 6 r1 7 zero8 ci9
 * cx10 init11 loop12 lv13 cl14 y15 d2 16 r2 17 upd18 out19. At r2 (17):
 * w's buffer (upd reuses it) 1 MiB, x 256 KiB, u 4 KiB, k 4 B (held by the
 * caller), c1/d1 1 MiB, r1 1 MiB, zero 4 B (held), cl 256 KiB, y/d2 1 MiB,
 * r2 1 MiB. */
static void test_train_step(void **state)
{
	(void)state;
	struct hlo_module *m;
	struct timeline *t = build("corpus/timeline/train_step.hlo", NULL, &m);
	assert_int_equal(t->scheduled, 1);
	assert_int_equal(t->n_panels, 2);
	const struct tl_panel *p = &t->panels[0];
	assert_string_equal(p->comp->name, "step");
	assert_int_equal(p->n_pos, 20);
	assert_int_equal(p->peak_pos, 17);
	assert_int_equal(p->peak, 5u * 1048576 + 2 * 262144 + 4096 + 4 + 4);
	assert_int_equal(p->n_lanes, 15);
	assert_int_equal(p->n_rest, 0);
	assert_int_equal(p->n_peak_rows, 10);
	assert_int_equal(p->peak_rows[0].bytes, 1048576);
	assert_int_equal(p->peak_rows[9].bytes, 4);
	/* before the loop nothing nested; at the loop the body's own peak */
	assert_int_equal(p->nested[11], 0);
	assert_int_equal(p->nested[12], 262144);
	assert_int_equal(count_marks(p, TL_MARK_COPY), 4);
	assert_int_equal(count_marks(p, TL_MARK_HAZARD), 2);
	assert_int_equal(count_marks(p, TL_MARK_REUSE), 1);
	assert_int_equal(count_marks(p, TL_MARK_WHILE), 1);
	for (int32_t i = 0; i < p->n_marks; i++) {
		const struct tl_mark *k = &p->marks[i];
		if (k->type == TL_MARK_REUSE) {
			assert_string_equal(k->instr->name, "upd");
			assert_int_equal(k->pos, 18);
			assert_int_equal(p->lanes[k->lane].buffer, p->lanes[0].buffer); /* w's lane */
		}
		if (k->type == TL_MARK_WHILE) {
			assert_int_equal(k->pos, 12);
			assert_int_equal(k->panel, 1);
			assert_int_equal(k->bytes, 262144);
		}
		if (k->type == TL_MARK_COPY && !strcmp(k->instr->name, "cl"))
			assert_int_equal(k->verdict, VERDICT_REMOVABLE);
	}
	/* w's lane: the donated parameter, then the output that reuses it */
	const struct tl_lane *w = &p->lanes[0];
	assert_int_equal(w->n_bars, 2);
	assert_int_equal(p->bars[w->first_bar].kind, TL_DONATED_PARAM);
	assert_int_equal(p->bars[w->first_bar + 1].kind, TL_OUTPUT);
	/* x is read-only: its bar is held by the caller to the end */
	const struct tl_lane *x = &p->lanes[1];
	assert_string_equal(p->bars[x->first_bar].def->name, "x");
	assert_int_equal(p->bars[x->first_bar].last, 10);
	assert_int_equal(p->bars[x->first_bar].held_last, 19);
	const struct tl_panel *b = &t->panels[1];
	assert_string_equal(b->comp->name, "body");
	assert_int_equal(b->parent, 0);
	assert_int_equal(b->trip_count, 4);
	assert_int_equal(b->peak, 262144);
	assert_int_equal(b->peak_pos, 5);
	release(t, m);
}

/* --top 3 --min-bytes: the rest summed, the totals unchanged */
static void test_rest_lane(void **state)
{
	(void)state;
	struct timeline_options o;
	timeline_default_options(&o);
	o.top = 3;
	struct hlo_module *m;
	struct timeline *t = build("corpus/timeline/train_step.hlo", &o, &m);
	const struct tl_panel *p = &t->panels[0];
	assert_int_equal(p->n_lanes, 4);
	assert_int_equal(p->n_rest, 12);
	assert_int_equal(p->lanes[3].buffer, -1);
	assert_int_equal(p->peak, 5771272);
	for (int32_t q = 0; q < p->n_pos; q++)
		assert_true(p->rest[q] <= p->live[q]);
	release(t, m);
	o.top = 200;
	o.min_bytes = 1048576;
	t = build("corpus/timeline/train_step.hlo", &o, &m);
	/* 1 MiB each: w, g, c1/d1, r1, y/d2, r2; the other nine summed */
	assert_int_equal(t->panels[0].n_lanes, 6 + 1);
	assert_int_equal(t->panels[0].n_rest, 9);
	release(t, m);
}

static char *run_writer(const struct timeline *t, int which)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	int r = which == 0 ? timeline_write_html(f, t) : which == 1 ? timeline_write_svg(f, t, 0)
							       : timeline_write_trace(f, t);
	assert_int_equal(r, 0);
	fclose(f);
	return buf;
}

static void test_writers_escape(void **state)
{
	(void)state;
	struct hlo_module *m;
	struct timeline *t = build("corpus/timeline/hostile.hlo", NULL, &m);
	for (int w = 0; w < 3; w++) {
		char *s = run_writer(t, w);
		if (w < 2) {
			/* markup: the names are text, never elements */
			assert_null(strstr(s, "<script>alert"));
			assert_null(strstr(s, "<img"));
			assert_null(strstr(s, "</script><b>"));
			assert_non_null(strstr(s, "&lt;img src=x onerror=alert(1)&gt;"));
		} else {
			/* JSON: the exact text, quotes escaped */
			assert_non_null(strstr(s, "\"argument\":\"</title></text><script>alert(\\\"x\\\")"));
		}
		free(s);
	}
	release(t, m);
}

static void test_helpers(void **state)
{
	(void)state;
	char b[32];
	tl_format_bytes(0, b, sizeof(b));
	assert_string_equal(b, "0 B");
	tl_format_bytes(1023, b, sizeof(b));
	assert_string_equal(b, "1023 B");
	tl_format_bytes(1536, b, sizeof(b));
	assert_string_equal(b, "1.5 KiB");
	tl_format_bytes(5771272, b, sizeof(b));
	assert_string_equal(b, "5.50 MiB");
	tl_format_bytes(52046000000ull, b, sizeof(b));
	assert_string_equal(b, "48.47 GiB");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	tl_xml_escape(f, "a<b>&\"'\n\t\x01\xff\xc3\xa9\xed\xa0\x80");
	fclose(f);
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;&#39;&#10;\t\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9"
				 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_step),
		cmocka_unit_test(test_rest_lane),
		cmocka_unit_test(test_writers_escape),
		cmocka_unit_test(test_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
