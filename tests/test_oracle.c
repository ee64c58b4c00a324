/* test_oracle.c - the brute-force oracle on cases with known answers
 * (docs/hazards.md, hlo-semantics.md 6.4 and 7.4, the XLA copy-insertion
 * corpus) and the module generator's basic promises. */
#include "testutil.h"
#include "oracle.h"
#include "gen_small.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fx {
	struct hlo_module *m;
	struct oracle *o;
	struct oracle_module_result r;
};

static void load(struct fx *f, const char *text)
{
	f->m = parse_text(text);
	char err[256];
	f->o = oracle_new(f->m, NULL, err, sizeof(err));
	if (!f->o)
		fail_msg("oracle: %s", err);
	assert_int_equal(oracle_module(f->o, &f->r), 0);
	if (f->r.status != ORACLE_OK)
		fail_msg("oracle status %d: %s", f->r.status, f->r.why);
}

static void unload(struct fx *f)
{
	oracle_module_result_free(&f->r);
	oracle_free(f->o);
	hlo_module_free(f->m);
}

static const struct hlo_instruction *I(struct fx *f, const char *spec)
{
	const struct hlo_instruction *i = hlo_find_instruction_any(f->m, spec);
	if (!i)
		fail_msg("no instruction %s", spec);
	return i;
}

/* Buffer of the value defined at (instr, {}) or (instr, {k}). */
static int32_t buf_at(struct fx *f, const char *spec, int k)
{
	const struct dataflow *df = oracle_dataflow(f->o);
	const struct hlo_instruction *i = I(f, spec);
	int32_t idx[1] = {k};
	int32_t sub = k < 0 ? 0 : dataflow_sub(df, i, idx, 1);
	assert_true(sub >= 0);
	int32_t v = dataflow_unique_value(df, i, sub);
	assert_true(v >= 0);
	return oracle_buffers(f->o)->buffer_of[v];
}

/* "none" / "some" / "every" */
static const char *tri(const struct oracle_answer *a)
{
	return !a->some ? "none" : a->every ? "every" : "some";
}

static int has_triple(struct fx *f, enum oracle_kind kind, const char *at)
{
	for (int32_t k = 0; k < f->r.n_triples; k++)
		if (f->r.triples[k].kind == kind && (!at || !strcmp(f->r.triples[k].at->name, at)))
			return 1;
	return 0;
}

static int has_static(struct fx *f, enum oracle_kind kind)
{
	for (int32_t k = 0; k < f->r.n_static; k++)
		if (f->r.statics[k].kind == kind)
			return 1;
	return 0;
}

/* ---- section 7.4: donation ---- */

static const char *donation_b =
	"HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\n"
	"ENTRY %e (p0: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %p0 = f32[4] parameter(0)\n"
	"  %a = f32[4] negate(%p0)\n"
	"  %b = f32[4] add(%a, %p0)\n"
	"  ROOT %t = (f32[4], f32[4]) tuple(%a, %b)\n"
	"}\n";

static void test_donation_read_after_write(void **state)
{
	(void)state;
	struct fx f;
	load(&f, donation_b);
	assert_string_equal(tri(&f.r.module), "every");
	assert_int_equal(f.r.module.given, -1);
	assert_int_equal(f.r.n_static, 0);
	/* a overwrites p0 before b reads it */
	assert_true(has_triple(&f, OK_OVERWRITE, "b"));
	enum verdict g, a;
	oracle_donation(f.o, &f.r, 0, &g, &a);
	assert_int_equal(g, VERDICT_NONE);
	assert_int_equal(a, VERDICT_UNSAFE);
	assert_non_null(f.r.module.witness);
	assert_non_null(strstr(f.r.module.witness, "overwrite"));
	assert_null(f.r.module.clean);
	unload(&f);
}

static void test_donation_elementwise_in_place(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY %e (p0: f32[4]) -> (f32[4]) {\n"
		 "  %p0 = f32[4] parameter(0)\n"
		 "  %a = f32[4] negate(%p0)\n"
		 "  ROOT %t = (f32[4]) tuple(%a)\n"
		 "}\n");
	/* negate reads p0 at the instruction that writes a: elementwise, allowed */
	assert_string_equal(tri(&f.r.module), "none");
	assert_int_equal(f.r.module.given, 0);
	enum verdict g, a;
	oracle_donation(f.o, &f.r, 0, &g, &a);
	assert_int_equal(g, VERDICT_SAFE);
	assert_int_equal(a, VERDICT_SAFE);
	unload(&f);

	/* the same with a non-elementwise user: reverse may not share */
	load(&f, "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY %e (p0: f32[4]) -> (f32[4]) {\n"
		 "  %p0 = f32[4] parameter(0)\n"
		 "  %a = f32[4] reverse(%p0), dimensions={0}\n"
		 "  ROOT %t = (f32[4]) tuple(%a)\n"
		 "}\n");
	assert_string_equal(tri(&f.r.module), "every");
	assert_true(has_triple(&f, OK_SAME_INSTRUCTION, "a"));
	unload(&f);
}

static void test_donation_given_schedule(void **state)
{
	(void)state;
	/* b reads p0 before a overwrites it in the printed order: the given
	 * schedule is safe, another schedule is not */
	struct fx f;
	load(&f, "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY %e (p0: f32[4]) -> (f32[4], f32[4]) {\n"
		 "  %p0 = f32[4] parameter(0)\n"
		 "  %b = f32[4] exponential(%p0)\n"
		 "  %a = f32[4] negate(%p0)\n"
		 "  ROOT %t = (f32[4], f32[4]) tuple(%a, %b)\n"
		 "}\n");
	assert_int_equal(f.r.n_schedules, 2);
	assert_string_equal(tri(&f.r.module), "some");
	assert_int_equal(f.r.module.given, 0);
	enum verdict g, a;
	oracle_donation(f.o, &f.r, 0, &g, &a);
	assert_int_equal(g, VERDICT_SAFE);
	assert_int_equal(a, VERDICT_SCHEDULE_DEPENDENT);
	int32_t b = buf_at(&f, "p0", -1);
	assert_int_equal(oracle_buffer_edge_ok(f.o, b, I(&f, "b"), I(&f, "a")), 1);
	assert_int_equal(oracle_buffer_edge_ok(f.o, b, I(&f, "a"), I(&f, "b")), 0);
	unload(&f);
}

/* ---- section 6.4: loops ---- */

static const char *counted_loop =
	"%body (s: (s32[], f32[8])) -> (s32[], f32[8]) {\n"
	"  %s = (s32[], f32[8]) parameter(0)\n"
	"  %i = s32[] get-tuple-element(%s), index=0\n"
	"  %v = f32[8] get-tuple-element(%s), index=1\n"
	"  %one = s32[] constant(1)\n"
	"  %i1 = s32[] add(%i, %one)\n"
	"  %v1 = f32[8] multiply(%v, %v)\n"
	"  ROOT %t = (s32[], f32[8]) tuple(%i1, %v1)\n"
	"}\n"
	"%cond (s: (s32[], f32[8])) -> pred[] {\n"
	"  %s = (s32[], f32[8]) parameter(0)\n"
	"  %i = s32[] get-tuple-element(%s), index=0\n"
	"  %lim = s32[] constant(10)\n"
	"  ROOT %lt = pred[] compare(%i, %lim), direction=LT\n"
	"}\n"
	"ENTRY %e (x: f32[8]) -> f32[8] {\n"
	"  %x = f32[8] parameter(0)\n"
	"  %zero = s32[] constant(0)\n"
	"  %init = (s32[], f32[8]) tuple(%zero, %x)\n"
	"  %w = (s32[], f32[8]) while(%init), condition=%cond, body=%body\n"
	"  ROOT %r = f32[8] get-tuple-element(%w), index=1\n"
	"}\n";

static void test_counted_loop(void **state)
{
	(void)state;
	char text[4096];
	struct fx f;
	/* not donated: zero and x are read-only but share the loop buffers */
	snprintf(text, sizeof(text), "HloModule loop\n%s", counted_loop);
	load(&f, text);
	assert_string_equal(tri(&f.r.module), "every");
	assert_true(has_static(&f, OK_READ_ONLY_WRITTEN));
	assert_string_equal(tri(&f.r.buffer[buf_at(&f, "x", -1)]), "every");
	/* no trace hazard: the body updates both elements in place */
	assert_int_equal(f.r.n_triples, 0);
	unload(&f);

	/* donated: the loop runs in x's buffer, safely */
	snprintf(text, sizeof(text),
		 "HloModule loop, input_output_alias={ {}: (0, {}, may-alias) }\n%s", counted_loop);
	load(&f, text);
	int32_t bx = buf_at(&f, "x", -1);
	assert_string_equal(tri(&f.r.buffer[bx]), "none");
	enum verdict g, a;
	oracle_donation(f.o, &f.r, 0, &g, &a);
	assert_int_equal(a, VERDICT_SAFE);
	/* the counter's constant still is a read-only value in a loop buffer */
	assert_string_equal(tri(&f.r.buffer[buf_at(&f, "zero", -1)]), "every");
	unload(&f);
}

static const char *moving_loop =
	"HloModule mv, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }\n"
	"%body (s: (f32[8], f32[8])) -> (f32[8], f32[8]) {\n"
	"  %s = (f32[8], f32[8]) parameter(0)\n"
	"  %a = f32[8] get-tuple-element(%s), index=0\n"
	"  %b = f32[8] get-tuple-element(%s), index=1\n"
	"  %n = f32[8] add(%a, %b)\n"
	"  ROOT %t = (f32[8], f32[8]) tuple(%n, %a)\n"
	"}\n"
	"%cond (s: (f32[8], f32[8])) -> pred[] {\n"
	"  %s = (f32[8], f32[8]) parameter(0)\n"
	"  ROOT %c = pred[] constant(true)\n"
	"}\n"
	"ENTRY %e (p: f32[8], q: f32[8]) -> (f32[8], f32[8]) {\n"
	"  %p = f32[8] parameter(0)\n"
	"  %q = f32[8] parameter(1)\n"
	"  %init = (f32[8], f32[8]) tuple(%p, %q)\n"
	"  ROOT %w = (f32[8], f32[8]) while(%init), condition=%cond, body=%body\n"
	"}\n";

static void test_loop_moves_a_slot(void **state)
{
	(void)state;
	/* the old a moves to slot 1 while slot 0 is overwritten by n: both
	 * slots are one buffer, and n is written before a is read at the end
	 * of the body */
	struct fx f;
	load(&f, moving_loop);
	/* one buffer at both output leaves */
	assert_true(has_static(&f, OK_OUTPUTS_NOT_DISTINCT));
	assert_false(has_static(&f, OK_READ_ONLY_WRITTEN));
	assert_string_equal(tri(&f.r.module), "every");
	assert_int_equal(buf_at(&f, "w", 0), buf_at(&f, "w", 1));
	assert_true(has_triple(&f, OK_OVERWRITE, NULL));
	unload(&f);
}

static const char *dependent_elements =
	"HloModule dte, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }\n"
	"%body (s: (f32[], f32[8])) -> (f32[], f32[8]) {\n"
	"  %s = (f32[], f32[8]) parameter(0)\n"
	"  %g0 = f32[] get-tuple-element(%s), index=0\n"
	"  %g1 = f32[8] get-tuple-element(%s), index=1\n"
	"  %one = f32[] constant(1)\n"
	"  %add = f32[] add(%g0, %one)\n"
	"  %convert = f32[] convert(%g0)\n"
	"  %bc = f32[8] broadcast(%convert), dimensions={}\n"
	"  %add1 = f32[8] add(%g1, %bc)\n"
	"  ROOT %t = (f32[], f32[8]) tuple(%add, %add1)\n"
	"}\n"
	"%cond (s: (f32[], f32[8])) -> pred[] {\n"
	"  %s = (f32[], f32[8]) parameter(0)\n"
	"  ROOT %c = pred[] constant(true)\n"
	"}\n"
	"ENTRY %e (p: f32[], q: f32[8]) -> (f32[], f32[8]) {\n"
	"  %p = f32[] parameter(0)\n"
	"  %q = f32[8] parameter(1)\n"
	"  %init = (f32[], f32[8]) tuple(%p, %q)\n"
	"  ROOT %w = (f32[], f32[8]) while(%init), condition=%cond, body=%body\n"
	"}\n";

static void test_dependent_tuple_elements(void **state)
{
	(void)state;
	/* element 0 is read by convert; add overwrites element 0: a hazard
	 * exactly when add runs before convert */
	struct fx f;
	load(&f, dependent_elements);
	assert_int_equal(f.r.n_static, 0);
	assert_string_equal(tri(&f.r.module), "some");
	int32_t b0 = buf_at(&f, "w", 0);
	assert_string_equal(tri(&f.r.buffer[b0]), "some");
	assert_string_equal(tri(&f.r.buffer[buf_at(&f, "w", 1)]), "none");
	assert_true(has_triple(&f, OK_OVERWRITE, "convert"));
	assert_non_null(f.r.buffer[b0].clean);
	assert_non_null(f.r.buffer[b0].witness);
	assert_int_equal(oracle_buffer_edge_ok(f.o, b0, I(&f, "convert@body"), I(&f, "add@body")), 1);
	assert_int_equal(oracle_buffer_edge_ok(f.o, b0, I(&f, "add@body"), I(&f, "convert@body")), 0);
	/* an edge that closes a cycle leaves no schedule */
	assert_int_equal(oracle_buffer_edge_ok(f.o, b0, I(&f, "add1@body"), I(&f, "convert@body")), 0);
	/* both donations follow the buffers */
	enum verdict g, a;
	oracle_donation(f.o, &f.r, 0, &g, &a);
	assert_int_equal(a, VERDICT_SCHEDULE_DEPENDENT);
	oracle_donation(f.o, &f.r, 1, &g, &a);
	assert_int_equal(a, VERDICT_SAFE);
	unload(&f);
}

/* ---- section 5: regions ---- */

/* DUS of n at `start` (update f32[4]) and a read of n: "ds S" (dynamic
 * slice at constant S), "dsx" (non-constant start) or "sl A" (slice). */
static void region_case(const char *dus_start, const char *read, const char *want)
{
	char text[2048], rd[256];
	if (!strncmp(read, "ds ", 3))
		snprintf(rd, sizeof(rd),
			 "  %%rs = s32[] constant(%s)\n"
			 "  %%r = f32[4] dynamic-slice(%%n, %%rs), dynamic_slice_sizes={4}\n", read + 3);
	else if (!strcmp(read, "dsx"))
		snprintf(rd, sizeof(rd),
			 "  %%rs = s32[] negate(%%c0)\n"
			 "  %%r = f32[4] dynamic-slice(%%n, %%rs), dynamic_slice_sizes={4}\n");
	else
		snprintf(rd, sizeof(rd), "  %%r = f32[4] slice(%%n), slice={[%s:%d]}\n", read + 3,
			 atoi(read + 3) + 4);
	const char *start = !strcmp(dus_start, "x") ? "  %s = s32[] negate(%c0)\n" : NULL;
	char sline[128];
	if (!start) {
		snprintf(sline, sizeof(sline), "  %%s = s32[] constant(%s)\n", dus_start);
		start = sline;
	}
	snprintf(text, sizeof(text),
		 "HloModule r\n"
		 "ENTRY %%e (p: f32[8]) -> (f32[8], f32[4]) {\n"
		 "  %%p = f32[8] parameter(0)\n"
		 "  %%c0 = s32[] constant(1)\n"
		 "  %%n = f32[8] negate(%%p)\n"
		 "  %%u = f32[4] constant({1, 2, 3, 4})\n"
		 "%s"
		 "  %%d = f32[8] dynamic-update-slice(%%n, %%u, %%s)\n"
		 "%s"
		 "  ROOT %%t = (f32[8], f32[4]) tuple(%%d, %%r)\n"
		 "}\n",
		 start, rd);
	struct fx f;
	load(&f, text);
	if (strcmp(tri(&f.r.module), want))
		fail_msg("DUS at %s vs read %s: %s, expected %s\n%s", dus_start, read, tri(&f.r.module),
			 want, text);
	unload(&f);
}

static void test_regions(void **state)
{
	(void)state;
	region_case("4", "ds 0", "none");   /* [4,8) vs [0,4) */
	region_case("4", "ds 2", "some");   /* [4,8) vs [2,6): only when d runs first */
	region_case("6", "ds 0", "none");   /* 6 clamps to 4 */
	region_case("100", "ds 0", "none"); /* so does 100 */
	region_case("-3", "ds 4", "none");  /* -3 clamps to 0: [0,4) vs [4,8) */
	region_case("-3", "ds 2", "some");
	region_case("0", "ds 9", "none");   /* the read's start clamps too: 9 -> 4 */
	region_case("2", "ds 9", "some");
	region_case("x", "ds 4", "some");   /* non-constant start: any position */
	region_case("4", "dsx", "some");
	region_case("4", "sl 0", "none");
	region_case("4", "sl 2", "some");
	region_case("0", "sl 4", "none");
}

static void test_region_two_dims(void **state)
{
	(void)state;
	/* boxes overlap only when they overlap in every dimension */
	struct fx f;
	load(&f, "HloModule r2\n"
		 "ENTRY %e (p: f32[2,4]) -> (f32[2,4], f32[1,4]) {\n"
		 "  %p = f32[2,4] parameter(0)\n"
		 "  %n = f32[2,4] negate(%p)\n"
		 "  %u = f32[1,4] constant({ {1, 2, 3, 4} })\n"
		 "  %one = s32[] constant(1)\n"
		 "  %zero = s32[] constant(0)\n"
		 "  %d = f32[2,4] dynamic-update-slice(%n, %u, %one, %zero)\n"
		 "  %r = f32[1,4] slice(%n), slice={[0:1], [0:4]}\n"
		 "  ROOT %t = (f32[2,4], f32[1,4]) tuple(%d, %r)\n"
		 "}\n");
	assert_string_equal(tri(&f.r.module), "none");
	unload(&f);
	load(&f, "HloModule r2\n"
		 "ENTRY %e (p: f32[2,4]) -> (f32[2,4], f32[1,2]) {\n"
		 "  %p = f32[2,4] parameter(0)\n"
		 "  %n = f32[2,4] negate(%p)\n"
		 "  %u = f32[2,2] constant({ {1, 2}, {3, 4} })\n"
		 "  %zero = s32[] constant(0)\n"
		 "  %three = s32[] constant(3)\n"
		 "  %d = f32[2,4] dynamic-update-slice(%n, %u, %zero, %three)\n"
		 "  %r = f32[1,2] slice(%n), slice={[1:2], [1:3]}\n"
		 "  ROOT %t = (f32[2,4], f32[1,2]) tuple(%d, %r)\n"
		 "}\n");
	/* the update's column start 3 clamps to 2: columns [2,4) vs [1,3) */
	assert_string_equal(tri(&f.r.module), "some");
	unload(&f);
}

/* A slice of a bitcast view of n after d writes n in place: `view` and
 * `box` are the bitcast's shape and the slice's box and result. */
static const char *view_case(const char *view, const char *slice)
{
	static char text[1024], got[16];
	snprintf(text, sizeof(text),
		 "HloModule v\n"
		 "ENTRY %%e (p: f32[4,8]) -> (f32[4,8], f32[]) {\n"
		 "  %%p = f32[4,8]{1,0} parameter(0)\n"
		 "  %%n = f32[4,8]{1,0} negate(%%p)\n"
		 "  %%u = f32[1,4]{1,0} constant({ {1, 2, 3, 4} })\n"
		 "  %%zero = s32[] constant(0)\n"
		 "  %%four = s32[] constant(4)\n"
		 "  %%d = f32[4,8]{1,0} dynamic-update-slice(%%n, %%u, %%zero, %%four)\n"
		 "  %%v = %s bitcast(%%n)\n"
		 "  %%r = %s, control-predecessors={%%d}\n"
		 "  %%z = f32[] constant(0)\n"
		 "  %%s = f32[] reduce(%%r, %%z), dimensions={0,1}, to_apply=%%add\n"
		 "  ROOT %%t = (f32[4,8]{1,0}, f32[]) tuple(%%d, %%s)\n"
		 "}\n"
		 "%%add (a: f32[], b: f32[]) -> f32[] {\n"
		 "  %%a = f32[] parameter(0)\n"
		 "  %%b = f32[] parameter(1)\n"
		 "  ROOT %%c = f32[] add(%%a, %%b)\n"
		 "}\n",
		 view, slice);
	struct fx f;
	load(&f, text);
	snprintf(got, sizeof(got), "%s", tri(&f.r.module));
	unload(&f);
	return got;
}

static void test_region_views(void **state)
{
	(void)state;
	/* d writes n[0, 4..8): elements 4..7 of the f32[4,8]{1,0} buffer */
	/* a reshape keeps the rank: v[1, 0..8) of f32[8,4] is elements 4..11 */
	assert_string_equal(view_case("f32[8,4]{1,0}", "f32[1,4]{1,0} slice(%v), slice={[1:2], [0:4]}"),
			    "every");
	/* v[2..4, 0..4) of f32[8,4]{1,0} is elements 8..15: disjoint in memory */
	assert_string_equal(view_case("f32[8,4]{1,0}", "f32[2,4]{1,0} slice(%v), slice={[2:4], [0:4]}"),
			    "none");
	/* the transpose f32[8,4]{0,1}: v[a,b] is element a+8b; v[4..8, 0..1) is 4..7 */
	assert_string_equal(view_case("f32[8,4]{0,1}", "f32[4,1]{0,1} slice(%v), slice={[4:8], [0:1]}"),
			    "every");
	/* v[2..4, 0..4) is 2,3, 10,11, 18,19, 26,27: around 4..7, never in it */
	assert_string_equal(view_case("f32[8,4]{0,1}", "f32[2,4]{0,1} slice(%v), slice={[2:4], [0:4]}"),
			    "none");
	/* v[0..8, 1..2) is 8..15 */
	assert_string_equal(view_case("f32[8,4]{0,1}", "f32[8,1]{0,1} slice(%v), slice={[0:8], [1:2]}"),
			    "none");
	/* a flat view: elements 6..9 */
	assert_string_equal(view_case("f32[32]{0}", "f32[4]{0} slice(%v), slice={[6:10]}"), "every");
	/* a tiled view is not laid out: taken to overlap */
	assert_string_equal(view_case("f32[8,4]{1,0:T(2,2)}", "f32[2,4]{1,0} slice(%v), slice={[2:4], [0:4]}"),
			    "every");
}

/* ---- static hazards ---- */

static void test_static_hazards(void **state)
{
	(void)state;
	struct fx f;
	/* two output leaves of one buffer */
	load(&f, "HloModule s, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {\n"
		 "  %p = f32[4] parameter(0)\n"
		 "  %n = f32[4] negate(%p)\n"
		 "  ROOT %t = (f32[4], f32[4]) tuple(%n, %n)\n"
		 "}\n");
	assert_true(has_static(&f, OK_OUTPUTS_NOT_DISTINCT));
	assert_false(has_static(&f, OK_READ_ONLY_OUTPUT));
	assert_string_equal(tri(&f.r.module), "every");
	unload(&f);
	/* an aliased parameter at its own output is not read-only */
	load(&f, "HloModule s, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY %e (p: f32[4]) -> (f32[4]) {\n"
		 "  %p = f32[4] parameter(0)\n"
		 "  ROOT %t = (f32[4]) tuple(%p)\n"
		 "}\n");
	assert_string_equal(tri(&f.r.module), "none");
	unload(&f);
	/* a constant updated in place */
	load(&f, "HloModule s\n"
		 "ENTRY %e () -> f32[4] {\n"
		 "  %c = f32[4] constant({1, 2, 3, 4})\n"
		 "  %u = f32[2] constant({5, 6})\n"
		 "  %i = s32[] constant(0)\n"
		 "  ROOT %d = f32[4] dynamic-update-slice(%c, %u, %i)\n"
		 "}\n");
	assert_true(has_static(&f, OK_READ_ONLY_WRITTEN));
	assert_string_equal(tri(&f.r.module), "every");
	unload(&f);
}

/* ---- copies ---- */

static void copy_case(const char *text, const char *copy, enum verdict given, enum verdict any)
{
	struct hlo_module *m = parse_text(text);
	const struct hlo_instruction *c = hlo_find_instruction_any(m, copy);
	assert_non_null(c);
	struct oracle_copy_result r;
	oracle_copy(m, c, NULL, &r);
	if (r.status != ORACLE_OK)
		fail_msg("copy %s: status %d: %s\n%s", copy, r.status, r.why, r.rewritten ? r.rewritten : "");
	if (r.given != given || r.any != any)
		fail_msg("copy %s: given %s any %s, expected %s / %s\n%s", copy,
			 r.given ? verdict_name(r.given) : "null", verdict_name(r.any),
			 given ? verdict_name(given) : "null", verdict_name(any),
			 r.rewritten ? r.rewritten : "");
	oracle_copy_result_free(&r);
	hlo_module_free(m);
}

static void replace_once(char *buf, size_t cap, const char *from, const char *to)
{
	char *p = strstr(buf, from);
	assert_non_null(p);
	size_t fl = strlen(from), tl = strlen(to);
	assert_true(strlen(buf) - fl + tl < cap);
	memmove(p + tl, p + fl, strlen(p + fl) + 1);
	memcpy(p, to, tl);
}

static void test_copy_verdicts(void **state)
{
	(void)state;
	/* protects an in-place update of a parameter */
	copy_case("HloModule c\n"
		  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
		  "  %p = f32[8] parameter(0)\n"
		  "  %cp = f32[8] copy(%p)\n"
		  "  %u = f32[4] constant({1, 2, 3, 4})\n"
		  "  %i = s32[] constant(0)\n"
		  "  ROOT %d = f32[8] dynamic-update-slice(%cp, %u, %i)\n"
		  "}\n",
		  "cp", VERDICT_NONE, VERDICT_NECESSARY);
	/* useless */
	copy_case("HloModule c, is_scheduled=true\n"
		  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
		  "  %p = f32[8] parameter(0)\n"
		  "  %n = f32[8] negate(%p)\n"
		  "  %cp = f32[8] copy(%n)\n"
		  "  ROOT %x = f32[8] exponential(%cp)\n"
		  "}\n",
		  "cp", VERDICT_REMOVABLE, VERDICT_REMOVABLE);
	/* a parameter at the root */
	copy_case("HloModule c\n"
		  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
		  "  %p = f32[8] parameter(0)\n"
		  "  ROOT %cp = f32[8] copy(%p)\n"
		  "}\n",
		  "cp", VERDICT_NONE, VERDICT_NECESSARY);
	/* ... unless donated */
	copy_case("HloModule c, input_output_alias={ {}: (0, {}, may-alias) }\n"
		  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
		  "  %p = f32[8] parameter(0)\n"
		  "  ROOT %cp = f32[8] copy(%p)\n"
		  "}\n",
		  "cp", VERDICT_NONE, VERDICT_REMOVABLE);
	/* the DynamicUpdateSliceCopy shape: needed only if the DUS runs
	 * before the add; the printed order runs the add first */
	const char *dus =
		"HloModule c, is_scheduled=true\n"
		"ENTRY %e (p: f32[8]) -> (f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %n = f32[8] negate(%p)\n"
		"  %a = f32[8] add(%n, %n)\n"
		"  %cp = f32[8] copy(%n)\n"
		"  %u = f32[4] constant({1, 2, 3, 4})\n"
		"  %i = s32[] constant(0)\n"
		"  %d = f32[8] dynamic-update-slice(%cp, %u, %i)\n"
		"  ROOT %t = (f32[8], f32[8]) tuple(%a, %d)\n"
		"}\n";
	copy_case(dus, "cp", VERDICT_REMOVABLE, VERDICT_SCHEDULE_DEPENDENT);
	struct hlo_module *m = parse_text(dus);
	const struct hlo_instruction *c = hlo_find_instruction_any(m, "cp");
	assert_int_equal(oracle_copy_edge_ok(m, c, NULL, "a", "d"), 1);
	assert_int_equal(oracle_copy_edge_ok(m, c, NULL, "d", "a"), 0);
	assert_int_equal(oracle_copy_edge_ok(m, c, NULL, "cp", "a"), 0);
	hlo_module_free(m);
	/* a layout change is never removable */
	copy_case("HloModule c, is_scheduled=true\n"
		  "ENTRY %e (p: f32[2,4]{1,0}) -> f32[2,4]{0,1} {\n"
		  "  %p = f32[2,4]{1,0} parameter(0)\n"
		  "  %n = f32[2,4]{1,0} negate(%p)\n"
		  "  ROOT %cp = f32[2,4]{0,1} copy(%n)\n"
		  "}\n",
		  "cp", VERDICT_NECESSARY, VERDICT_NECESSARY);
	/* a printed default layout is no change */
	copy_case("HloModule c\n"
		  "ENTRY %e (p: f32[2,4]) -> f32[2,4]{1,0} {\n"
		  "  %p = f32[2,4] parameter(0)\n"
		  "  %n = f32[2,4] negate(%p)\n"
		  "  ROOT %cp = f32[2,4]{1,0} copy(%n)\n"
		  "}\n",
		  "cp", VERDICT_NONE, VERDICT_REMOVABLE);
	/* a copy inside a loop body protecting the induction variable
	 * (DependentTupleElements after copy insertion) */
	char text[4096];
	const char *body_at = strstr(dependent_elements, "  %add = ");
	snprintf(text, sizeof(text), "%.*s  %%cg0 = f32[] copy(%%g0)\n%s", (int)(body_at - dependent_elements),
		 dependent_elements, body_at);
	/* route add and convert through the copy, as XLA does */
	replace_once(text, sizeof(text), "convert(%g0)", "convert(%cg0)");
	replace_once(text, sizeof(text), "add(%g0, %one)", "add(%cg0, %one)");
	assert_non_null(strstr(text, "convert(%cg0)"));
	assert_non_null(strstr(text, "add(%cg0, %one)"));
	/* with the copy, add and convert read cg0, which nobody overwrites ... */
	struct fx f;
	load(&f, text);
	assert_string_equal(tri(&f.r.module), "none");
	unload(&f);
	/* ... and removing it brings back the order dependence */
	copy_case(text, "cg0", VERDICT_NONE, VERDICT_SCHEDULE_DEPENDENT);
}

static void test_copy_text_rewrite(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text("HloModule c\n"
					  "ENTRY %e (p: f32[8]) -> (f32[8], f32[8]) {\n"
					  "  %p = f32[8] parameter(0)\n"
					  "  %n = f32[8] negate(%p)\n"
					  "  %cp = f32[8] copy(%n), control-predecessors={%n}\n"
					  "  %x = f32[8] exponential(%cp), control-predecessors={%cp}\n"
					  "  %y = f32[8] add(%cp, %x), control-predecessors={%n, %cp}\n"
					  "  ROOT %t = (f32[8], f32[8]) tuple(%y, %cp)\n"
					  "}\n");
	char *t = oracle_remove_copy_text(m, hlo_find_instruction_any(m, "cp"));
	assert_non_null(t);
	assert_null(strstr(t, "%cp"));
	assert_non_null(strstr(t, "%x = f32[8] exponential(%n)\n"));
	assert_non_null(strstr(t, "%y = f32[8] add(%n, %x), control-predecessors={%n}\n"));
	assert_non_null(strstr(t, "tuple(%y, %n)"));
	free(t);
	hlo_module_free(m);

	/* a copy at the root hands ROOT to its operand */
	m = parse_text("HloModule c\n"
		       "ENTRY %e (p: f32[8]) -> f32[8] {\n"
		       "  %p = f32[8] parameter(0)\n"
		       "  %n = f32[8] negate(%p)\n"
		       "  ROOT %cp = f32[8] copy(%n)\n"
		       "}\n");
	t = oracle_remove_copy_text(m, hlo_find_instruction_any(m, "cp"));
	assert_non_null(t);
	assert_non_null(strstr(t, "ROOT %n = f32[8] negate(%p)"));
	struct hlo_module *m2 = parse_text(t);
	assert_string_equal(m2->entry->root->name, "n");
	hlo_module_free(m2);
	free(t);
	hlo_module_free(m);
}

/* ---- limits ---- */

static void test_too_many_schedules(void **state)
{
	(void)state;
	/* 8 independent negates: 8! orders */
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof(text), "HloModule big\nENTRY %%e (p: f32[4]) -> f32[4] {\n"
					"  %%p = f32[4] parameter(0)\n");
	for (int k = 0; k < 8; k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "  %%n%d = f32[4] negate(%%p)\n", k);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "  %%a0 = f32[4] add(%%n0, %%n1)\n");
	for (int k = 1; k < 7; k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "  %%a%d = f32[4] add(%%a%d, %%n%d)\n", k,
				      k - 1, k + 1);
	snprintf(text + n, sizeof(text) - n, "  ROOT %%r = f32[4] negate(%%a6)\n}\n");
	struct hlo_module *m = parse_text(text);
	struct oracle_limits lim;
	oracle_default_limits(&lim);
	lim.max_schedules = 1000;
	char err[256];
	struct oracle *o = oracle_new(m, &lim, err, sizeof(err));
	assert_non_null(o);
	assert_true(oracle_count_schedules(o) > 1000);
	struct oracle_module_result r;
	oracle_module(o, &r);
	assert_int_equal(r.status, ORACLE_TOO_MANY);
	oracle_module_result_free(&r);
	oracle_free(o);
	lim.max_schedules = 10000000;
	o = oracle_new(m, &lim, err, sizeof(err));
	/* linear extensions of that order, counted by hand: the adds form a
	 * chain; n_k must precede a_(k-1); 8!/... is what the enumeration says */
	int64_t cnt = oracle_count_schedules(o);
	assert_true(cnt > 1000 && cnt < 10000000);
	oracle_free(o);
	hlo_module_free(m);
}

static void test_schedule_count(void **state)
{
	(void)state;
	/* two independent chains of two: C(4,2) = 6 interleavings, root last */
	struct hlo_module *m = parse_text("HloModule k\n"
					  "ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {\n"
					  "  %p = f32[4] parameter(0)\n"
					  "  %a1 = f32[4] negate(%p)\n"
					  "  %a2 = f32[4] negate(%a1)\n"
					  "  %b1 = f32[4] abs(%p)\n"
					  "  %b2 = f32[4] abs(%b1)\n"
					  "  ROOT %t = (f32[4], f32[4]) tuple(%a2, %b2)\n"
					  "}\n");
	char err[256];
	struct oracle *o = oracle_new(m, NULL, err, sizeof(err));
	assert_int_equal(oracle_count_schedules(o), 6);
	oracle_free(o);
	hlo_module_free(m);
	/* a control edge b2 -> a1 leaves one */
	m = parse_text("HloModule k\n"
		       "ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {\n"
		       "  %p = f32[4] parameter(0)\n"
		       "  %b1 = f32[4] abs(%p)\n"
		       "  %b2 = f32[4] abs(%b1)\n"
		       "  %a1 = f32[4] negate(%p), control-predecessors={%b2}\n"
		       "  %a2 = f32[4] negate(%a1)\n"
		       "  ROOT %t = (f32[4], f32[4]) tuple(%a2, %b2)\n"
		       "}\n");
	o = oracle_new(m, NULL, err, sizeof(err));
	assert_int_equal(oracle_count_schedules(o), 1);
	oracle_free(o);
	hlo_module_free(m);
	/* constants and parameters are not scheduled; a control edge through a
	 * constant still orders its ends */
	m = parse_text("HloModule k\n"
		       "ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {\n"
		       "  %p = f32[4] parameter(0)\n"
		       "  %a1 = f32[4] negate(%p)\n"
		       "  %c = f32[4] constant({1, 2, 3, 4}), control-predecessors={%a1}\n"
		       "  %b1 = f32[4] abs(%c)\n"
		       "  ROOT %t = (f32[4], f32[4]) tuple(%a1, %b1)\n"
		       "}\n");
	o = oracle_new(m, NULL, err, sizeof(err));
	assert_int_equal(oracle_count_schedules(o), 1);
	oracle_free(o);
	hlo_module_free(m);
}

/* oracle_removal: copies removed together, with control edges added. */
static void removal_case(struct hlo_module *m, const char *const *names, int n, const char *const *ef,
			 const char *const *et, int ne, enum verdict given, enum verdict any)
{
	struct oracle_site sites[4];
	const struct hlo_instruction *f[4], *t[4];
	for (int i = 0; i < n; i++) {
		sites[i].copy = hlo_find_instruction_any(m, names[i]);
		sites[i].output = -1;
		assert_non_null(sites[i].copy);
	}
	for (int i = 0; i < ne; i++) {
		f[i] = hlo_find_instruction_any(m, ef[i]);
		t[i] = hlo_find_instruction_any(m, et[i]);
		assert_non_null(f[i]);
		assert_non_null(t[i]);
	}
	struct oracle_copy_result r;
	oracle_removal(m, sites, n, f, t, ne, NULL, &r);
	if (r.status != ORACLE_OK || r.given != given || r.any != any)
		fail_msg("removing %s%s (%d edges): status %d %s, given %s any %s, expected %s / %s\n%s%s", names[0],
			 n > 1 ? " and more" : "", ne, r.status, r.why, r.given ? verdict_name(r.given) : "null",
			 verdict_name(r.any), given ? verdict_name(given) : "null", verdict_name(any),
			 r.witness ? r.witness : "", r.rewritten ? r.rewritten : "");
	oracle_copy_result_free(&r);
}

static void test_removal_joint(void **state)
{
	(void)state;
	/* c1 protects an in-place update of x, c2 a read of it; a chain c3, c4 */
	struct hlo_module *m = parse_text(
		"HloModule j, is_scheduled=true\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %x = f32[8] negate(%p)\n"
		"  %c2 = f32[8] copy(%x)\n"
		"  %r = f32[8] negate(%c2)\n"
		"  %c1 = f32[8] copy(%x)\n"
		"  %d1 = f32[8] dynamic-update-slice(%c1, %u, %i)\n"
		"  %c3 = f32[8] copy(%r)\n"
		"  %c4 = f32[8] copy(%c3)\n"
		"  %q = f32[8] exponential(%c4)\n"
		"  ROOT %out = (f32[8], f32[8], f32[8]) tuple(%d1, %r, %q)\n"
		"}\n");
	const char *c1[] = {"c1"}, *c2[] = {"c2"}, *both[] = {"c1", "c2"}, *chain[] = {"c4", "c3"};
	const char *rf[] = {"r"}, *dt[] = {"d1"};
	removal_case(m, c2, 1, NULL, NULL, 0, VERDICT_REMOVABLE, VERDICT_REMOVABLE);
	/* alone, c1's removal lets d1 overwrite x before c2 copies it */
	removal_case(m, c1, 1, NULL, NULL, 0, VERDICT_REMOVABLE, VERDICT_SCHEDULE_DEPENDENT);
	/* together: d1 overwrites x before r reads it, unless r runs first */
	removal_case(m, both, 2, NULL, NULL, 0, VERDICT_REMOVABLE, VERDICT_SCHEDULE_DEPENDENT);
	removal_case(m, both, 2, rf, dt, 1, VERDICT_REMOVABLE, VERDICT_REMOVABLE);
	removal_case(m, both, 2, dt, rf, 1, VERDICT_NECESSARY, VERDICT_NECESSARY);
	/* a copy of a copy, both removed (each put back after its operand) */
	removal_case(m, chain, 2, NULL, NULL, 0, VERDICT_REMOVABLE, VERDICT_REMOVABLE);
	hlo_module_free(m);
	/* a hazard the module has already does not make a copy necessary: p is
	 * donated, updated in place by d and read by n after d; c copies d */
	m = parse_text("HloModule pre, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		       "ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8], f32[8]) {\n"
		       "  %p = f32[8] parameter(0)\n"
		       "  %u = f32[2] parameter(1)\n"
		       "  %i = s32[] parameter(2)\n"
		       "  %d = f32[8] dynamic-update-slice(%p, %u, %i)\n"
		       "  %n = f32[8] add(%p, %d)\n"
		       "  %c = f32[8] copy(%d)\n"
		       "  %r = f32[8] negate(%c)\n"
		       "  ROOT %out = (f32[8], f32[8], f32[8]) tuple(%d, %n, %r)\n"
		       "}\n");
	const char *c[] = {"c"};
	removal_case(m, c, 1, NULL, NULL, 0, VERDICT_NONE, VERDICT_REMOVABLE);
	hlo_module_free(m);
}

/* ---- the XLA copy-insertion corpus ---- */

struct corpus_row {
	const char *file;
	const char *module;     /* none / some / every, or NULL: not asserted */
	const char *copy;       /* a copy of the file, or NULL */
	enum verdict copy_any;
	int expect_static;      /* -1: not asserted; else an oracle_kind that must be present */
};

static const struct corpus_row corpus_rows[] = {
	{"CopyInsertionTest_SwizzlingWhile.hlo", "every", NULL, 0, OK_READ_ONLY_WRITTEN},
	{"CopyInsertionTest_SwizzlingWhileWithOneOp.hlo", "every", NULL, 0, -1},
	{"CopyInsertionTest_DynamicUpdateSliceCopy.hlo", "some", NULL, 0, -1},
	{"CopyInsertionTest_DynamicUpdateSliceNoCopy.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_FusedDynamicUpdateSliceNoCopy.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_DynamicUpdateSliceParameterShareCopy.hlo", "every", NULL, 0, OK_READ_ONLY_WRITTEN},
	{"CopyInsertionTest_SingleParameter.hlo", "every", NULL, 0, OK_READ_ONLY_OUTPUT},
	{"CopyInsertionTest_SingleConstant.hlo", "every", NULL, 0, OK_READ_ONLY_OUTPUT},
	{"CopyInsertionTest_BitcastParameter.hlo", "every", NULL, 0, OK_READ_ONLY_OUTPUT},
	{"CopyInsertionTest_ParametersAliasing.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_ParameterAndParallelOpsWithPartialAliasing.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_CrossingParameters.hlo", "every", NULL, 0, -1},
	{"CopyInsertionTest_CustomCallAliasingCopyRemoved.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_CustomCallAliasingCopyInsertedAliasedReuse.hlo", "every", NULL, 0, -1},
	{"CopyInsertionTest_FixpointComputationRequired.with_alias.hlo", "none", NULL, 0, -1},
	{"CopyInsertionTest_ExistingCopiesNotRemoved.hlo", "none", "copy_1", VERDICT_NECESSARY, -1},
	{"CopyInsertionTest_ExistingCopiesNotRemoved.hlo", NULL, "copy_3", VERDICT_REMOVABLE, -1},
	{"CopyInsertionTest_ConditionalBranchMustCopy1.hlo", NULL, "copy.1", VERDICT_NECESSARY, -1},
	{"CopyInsertionTest_ConditionalBranchMustCopy3.hlo", "none", "copy.1", VERDICT_NECESSARY, -1},
	{"CopyInsertionTest_RootInstructionNotLast.hlo", NULL, "copy", VERDICT_NECESSARY, -1},
	{"WhileCopyInsertionTest_InitPointsToInterfering.hlo", "every", NULL, 0, -1},
	{"WhileCopyInsertionTest_InitPointsToNonDistinct.hlo", "every", NULL, 0, -1},
	{"WhileCopyInsertionTest_DependentTupleElements.hlo", "every", NULL, 0, OK_READ_ONLY_WRITTEN},
};

static struct hlo_module *corpus_module(const char *file)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "corpus/xla-copy-insertion/%s", file);
	char *path = shared_path(rel);
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(path, &d);
	if (!m)
		fail_msg("%s does not parse", path);
	free(path);
	return m;
}

static void test_corpus_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(corpus_rows) / sizeof(corpus_rows[0]); k++) {
		const struct corpus_row *row = &corpus_rows[k];
		struct fx f;
		f.m = corpus_module(row->file);
		char err[256];
		f.o = oracle_new(f.m, NULL, err, sizeof(err));
		if (!f.o)
			fail_msg("%s: %s", row->file, err);
		oracle_module(f.o, &f.r);
		if (f.r.status != ORACLE_OK)
			fail_msg("%s: %s", row->file, f.r.why);
		if (row->module && strcmp(tri(&f.r.module), row->module))
			fail_msg("%s: hazard in %s schedules, expected %s\n%s", row->file, tri(&f.r.module),
				 row->module, f.r.module.witness ? f.r.module.witness : "");
		if (row->expect_static >= 0 && !has_static(&f, (enum oracle_kind)row->expect_static))
			fail_msg("%s: no %s hazard", row->file, oracle_kind_name((enum oracle_kind)row->expect_static));
		if (row->copy) {
			struct oracle_copy_result cr;
			oracle_copy(f.m, I(&f, row->copy), NULL, &cr);
			if (cr.status != ORACLE_OK || cr.any != row->copy_any)
				fail_msg("%s: copy %s: %s (status %d %s), expected %s", row->file, row->copy,
					 verdict_name(cr.any), cr.status, cr.why, verdict_name(row->copy_any));
			oracle_copy_result_free(&cr);
		}
		unload(&f);
	}
}

/* Every corpus module small enough: what the oracle finds (printed), and
 * nothing that is not an answer. */
static void test_corpus_survey(void **state)
{
	(void)state;
	char *dir = shared_path("corpus/xla-copy-insertion");
	char **files = list_files(dir, ".hlo");
	int n = 0, answered = 0, too_many = 0;
	for (char **p = files; *p; p++, n++) {
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse_file(*p, &d);
		if (!m)
			fail_msg("%s does not parse", *p);
		char err[256];
		struct oracle *o = oracle_new(m, NULL, err, sizeof(err));
		if (!o)
			fail_msg("%s: %s", *p, err);
		struct oracle_module_result r;
		oracle_module(o, &r);
		const char *base = strrchr(*p, '/') ? strrchr(*p, '/') + 1 : *p;
		if (r.status == ORACLE_TOO_MANY) {
			too_many++;
			printf("  oracle %-70s too many: %s\n", base, r.why);
		} else {
			assert_int_equal(r.status, ORACLE_OK);
			answered++;
			assert_true(r.n_schedules >= 1);
			/* every <= some, and a witness exactly when some */
			assert_true(!r.module.every || r.module.some);
			assert_int_equal(r.module.witness != NULL, r.module.some);
			assert_int_equal(r.module.clean != NULL, !r.module.every);
			printf("  oracle %-70s %-5s %6lld schedules, %d static, %d triples\n", base,
			       tri(&r.module), (long long)r.n_schedules, r.n_static, r.n_triples);
		}
		oracle_module_result_free(&r);
		oracle_free(o);
		hlo_module_free(m);
	}
	printf("  oracle corpus: %d modules, %d answered, %d over the schedule limit\n", n, answered,
	       too_many);
	assert_true(answered >= 60);
	free_list(files);
	free(dir);
}

/* ---- the generator ---- */

static void test_generator(void **state)
{
	(void)state;
	int scheduled = 0, loops = 0, conds = 0, copies = 0, aliases = 0, donors = 0, ctrl = 0;
	for (uint64_t s = 1; s <= 200; s++) {
		int at1, at2;
		char *a = gen_small(s, 1000, &at1), *b = gen_small(s, 1000, &at2);
		assert_non_null(a);
		assert_non_null(b);
		assert_string_equal(a, b);
		assert_int_equal(at1, at2);
		struct hlo_module *m = parse_text(a);
		char err[256];
		struct oracle *o = oracle_new(m, NULL, err, sizeof(err));
		assert_non_null(o);
		int64_t n = oracle_count_schedules(o);
		assert_true(n >= 1 && n <= 1000);
		scheduled += m->is_scheduled;
		loops += strstr(a, " while(") != NULL;
		conds += strstr(a, " conditional(") != NULL;
		copies += strstr(a, " copy(") != NULL;
		aliases += m->n_aliases > 0;
		donors += m->n_donors > 0;
		ctrl += strstr(a, "control-predecessors") != NULL;
		int ni = m->entry->n_instrs;
		assert_true(ni >= 2 && ni <= 40);
		/* a scheduled module's printed order must be a schedule */
		if (m->is_scheduled) {
			struct oracle_module_result r;
			oracle_module(o, &r);
			assert_int_equal(r.status, ORACLE_OK);
			assert_true(r.module.given >= 0);
			oracle_module_result_free(&r);
		}
		oracle_free(o);
		hlo_module_free(m);
		free(a);
		free(b);
	}
	printf("  generator, 200 seeds: %d scheduled, %d loops, %d conditionals, %d with copies, "
	       "%d aliased, %d donors, %d control edges\n",
	       scheduled, loops, conds, copies, aliases, donors, ctrl);
	assert_true(scheduled > 60 && scheduled < 140);
	assert_true(loops > 40);
	assert_true(conds > 30);
	assert_true(copies > 100);
	assert_true(aliases > 30);
	assert_true(donors > 10);
	assert_true(ctrl > 10);
}

static void test_donor_as_alias(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule d, input_output_alias={ {1}: (1, {}, may-alias) }, buffer_donor={ (0, {}), (2, {}) }\n"
		"ENTRY %e (p: f32[4], q: f32[4], r: f32[4]) -> (f32[4], f32[4], f32[4]) {\n"
		"  %p = f32[4] parameter(0)\n"
		"  %q = f32[4] parameter(1)\n"
		"  %r = f32[4] parameter(2)\n"
		"  %a = f32[4] negate(%p)\n"
		"  %b = f32[4] add(%a, %p)\n"
		"  %c = f32[4] exponential(%q)\n"
		"  ROOT %t = (f32[4], f32[4], f32[4]) tuple(%a, %c, %b)\n"
		"}\n");
	int32_t zero = 0;
	struct shape_index none = {0, NULL}, out0 = {1, &zero};
	char *t = oracle_donor_text(m, 0, &none, &out0);
	assert_non_null(t);
	struct hlo_module *m2 = parse_text(t);
	assert_int_equal(m2->n_aliases, 2);
	assert_int_equal(m2->n_donors, 1);
	assert_int_equal(m2->donors[0].param, 2);
	hlo_module_free(m2);
	free(t);
	/* a donates to output {0}: a overwrites p before b reads it */
	struct oracle_copy_result r;
	oracle_donor(m, 0, &none, &out0, NULL, 0, NULL, NULL, &r);
	assert_int_equal(r.status, ORACLE_OK);
	assert_int_equal(r.any, VERDICT_UNSAFE);
	oracle_copy_result_free(&r);
	/* no such donor */
	assert_null(oracle_donor_text(m, 1, &none, &out0));
	hlo_module_free(m);
}

static void answer_invariants(const struct oracle_answer *a, const char *what, uint64_t seed)
{
	if ((a->every && !a->some) || (a->given == 1 && !a->some) || (a->given == 0 && a->every) ||
	    (a->witness != NULL) != a->some || (a->clean != NULL) != !a->every)
		fail_msg("seed %llu, %s: given %d some %d every %d witness %d clean %d",
			 (unsigned long long)seed, what, a->given, a->some, a->every, a->witness != NULL,
			 a->clean != NULL);
}

/* Consistency of every answer on generated modules: every => some, the
 * given schedule is one of them, witnesses and clean schedules exactly
 * when claimed, copy verdicts consistent between given and any. */
static void test_oracle_invariants(void **state)
{
	(void)state;
	int64_t copies = 0, sd = 0;
	for (uint64_t s = 1; s <= 300; s++) {
		char *t = gen_small(s, 1000, NULL);
		assert_non_null(t);
		struct fx f;
		load(&f, t);
		answer_invariants(&f.r.module, "module", s);
		int any_buf = 0;
		for (int32_t b = 0; b < f.r.n_buffers; b++) {
			answer_invariants(&f.r.buffer[b], "buffer", s);
			any_buf |= f.r.buffer[b].some;
		}
		assert_int_equal(any_buf, f.r.module.some);
		for (int32_t c = 0; c < f.m->n_comps; c++)
			for (int32_t i = 0; i < f.m->comps[c]->n_instrs; i++) {
				const struct hlo_instruction *x = f.m->comps[c]->instrs[i];
				if (x->opcode != OP_COPY)
					continue;
				struct oracle_copy_result cr;
				oracle_copy(f.m, x, NULL, &cr);
				assert_int_equal(cr.status, ORACLE_OK);
				copies++;
				if (f.m->is_scheduled)
					assert_true(cr.given == VERDICT_REMOVABLE || cr.given == VERDICT_NECESSARY);
				else
					assert_int_equal(cr.given, VERDICT_NONE);
				if (cr.given == VERDICT_NECESSARY)
					assert_int_not_equal(cr.any, VERDICT_REMOVABLE);
				if (cr.given == VERDICT_REMOVABLE)
					assert_int_not_equal(cr.any, VERDICT_NECESSARY);
				if (cr.any == VERDICT_SCHEDULE_DEPENDENT) {
					sd++;
					assert_non_null(cr.witness);
					assert_non_null(cr.clean);
				}
				if (!cr.layout) {
					/* the rewritten module no longer defines the copy */
					char def[64];
					snprintf(def, sizeof(def), "%%%s = ", x->name);
					assert_non_null(cr.rewritten);
					assert_null(strstr(cr.rewritten, def));
				}
				oracle_copy_result_free(&cr);
			}
		unload(&f);
		free(t);
	}
	printf("  invariants: 300 modules, %lld copies (%lld schedule-dependent)\n", (long long)copies,
	       (long long)sd);
	assert_true(sd > 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_donation_read_after_write),
		cmocka_unit_test(test_donation_elementwise_in_place),
		cmocka_unit_test(test_donation_given_schedule),
		cmocka_unit_test(test_counted_loop),
		cmocka_unit_test(test_loop_moves_a_slot),
		cmocka_unit_test(test_dependent_tuple_elements),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_region_two_dims),
		cmocka_unit_test(test_region_views),
		cmocka_unit_test(test_static_hazards),
		cmocka_unit_test(test_copy_verdicts),
		cmocka_unit_test(test_removal_joint),
		cmocka_unit_test(test_copy_text_rewrite),
		cmocka_unit_test(test_donor_as_alias),
		cmocka_unit_test(test_too_many_schedules),
		cmocka_unit_test(test_schedule_count),
		cmocka_unit_test(test_corpus_table),
		cmocka_unit_test(test_corpus_survey),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_oracle_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
