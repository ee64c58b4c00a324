/* test_tripcount.c - while trip counts (tripcount.h): XLA's patterns and
 * the cases it leaves unknown, on inline modules and real dumps. */
#include "testutil.h"
#include "tripcount.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A counting loop: slot 0 starts at INIT, the condition is COND (an
 * instruction text over %i and %n), the body adds %k. */
static char *loop_module(const char *init, const char *cond, const char *update,
			 const char *while_attrs)
{
	char *text = NULL;
	int r = asprintf(&text,
		"HloModule m\n"
		"cond {\n"
		"  p = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  n = s32[] constant(10)\n"
		"  ROOT c = pred[] %s\n"
		"}\n"
		"body {\n"
		"  p = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  x = f32[4] get-tuple-element(p), index=1\n"
		"  k = s32[] constant(2)\n"
		"  one = s32[] constant(1)\n"
		"  u = s32[] %s\n"
		"  ROOT t = (s32[], f32[4]) tuple(u, x)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[4] parameter(0)\n"
		"  q = s32[] parameter(1)\n"
		"  z = s32[] %s\n"
		"  s = (s32[], f32[4]) tuple(z, a)\n"
		"  ROOT w = (s32[], f32[4]) while(s), condition=cond, body=body%s\n"
		"}\n",
		cond, update, init, while_attrs);
	assert_true(r > 0);
	return text;
}

static struct trip_count count_of(const char *text)
{
	struct hlo_module *m = parse_text(text);
	struct hlo_instruction *w = hlo_find_instruction_any(m, "w");
	assert_non_null(w);
	struct trip_count t = while_trip_count(w);
	hlo_module_free(m);
	return t;
}

static void expect_count(const char *init, const char *cond, const char *update,
			 const char *attrs, int64_t want, enum trip_source src)
{
	char *text = loop_module(init, cond, update, attrs);
	struct trip_count t = count_of(text);
	if (t.n != want || t.source != src)
		fail_msg("cond %s, update %s, init %s: got %lld (source %d), want %lld (source %d)",
			 cond, update, init, (long long)t.n, (int)t.source, (long long)want, (int)src);
	free(text);
}

static void test_induction_patterns(void **state)
{
	(void)state;
	/* i = 0; i < 10; i += 2: 0 2 4 6 8 */
	expect_count("constant(0)", "compare(i, n), direction=LT", "add(i, k)", "", 5, TRIP_INDUCTION);
	/* i <= 10: 0 2 4 6 8 10 */
	expect_count("constant(0)", "compare(i, n), direction=LE", "add(i, k)", "", 6, TRIP_INDUCTION);
	/* the step on either side of the add */
	expect_count("constant(1)", "compare(i, n), direction=LT", "add(k, i)", "", 5, TRIP_INDUCTION);
	/* starting past the bound: never runs */
	expect_count("constant(12)", "compare(i, n), direction=LT", "add(i, one)", "", 0, TRIP_INDUCTION);
	/* n > i is not the trivial pattern; brute force evaluates it: 0..9 */
	expect_count("constant(0)", "compare(n, i), direction=GT", "add(i, one)", "", 10, TRIP_BRUTE_FORCE);
}

static void test_brute_force_down(void **state)
{
	(void)state;
	const char *text =
		"HloModule m\n"
		"cond {\n"
		"  p = (s32[]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  zero = s32[] constant(0)\n"
		"  ROOT c = pred[] compare(i, zero), direction=GT\n"
		"}\n"
		"body {\n"
		"  p = (s32[]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  k = s32[] constant(2)\n"
		"  u = s32[] subtract(i, k)\n"
		"  ROOT t = (s32[]) tuple(u)\n"
		"}\n"
		"ENTRY e {\n"
		"  z = s32[] constant(10)\n"
		"  s = (s32[]) tuple(z)\n"
		"  ROOT w = (s32[]) while(s), condition=cond, body=body\n"
		"}\n";
	struct trip_count t = count_of(text);
	assert_int_equal(t.source, TRIP_BRUTE_FORCE);
	assert_int_equal(t.n, 5); /* 10 8 6 4 2 */
}

static void test_unknown(void **state)
{
	(void)state;
	/* the start is a parameter: XLA cannot evaluate it */
	expect_count("copy(q)", "compare(i, n), direction=LT", "add(i, one)", "", -1, TRIP_UNKNOWN);
	/* a loop that runs more than 128 times and is not the trivial pattern */
	expect_count("constant(-1000)", "compare(n, i), direction=GT", "add(i, one)", "", -1,
		     TRIP_UNKNOWN);
	/* a step that is not positive */
	expect_count("constant(0)", "compare(i, n), direction=LT", "subtract(i, one)", "", -1,
		     TRIP_UNKNOWN);
	/* NE is neither pattern; brute force 0, 2, ..., 10 stops */
	expect_count("constant(0)", "compare(i, n), direction=NE", "add(i, k)", "", 5,
		     TRIP_BRUTE_FORCE);
	/* ... and one that never reaches the bound is unknown, not a count */
	expect_count("constant(1)", "compare(i, n), direction=NE", "add(i, k)", "", -1, TRIP_UNKNOWN);
}

static void test_backend_config(void **state)
{
	(void)state;
	/* the count XLA recorded wins, even over a pattern that says otherwise */
	expect_count("copy(q)", "compare(i, n), direction=LT", "add(i, one)",
		     ", backend_config={\"known_trip_count\":{\"n\":\"21\"}}", 21, TRIP_BACKEND_CONFIG);
	char buf[128];
	struct trip_count t = {.n = 21, .source = TRIP_BACKEND_CONFIG, .slot = -1};
	trip_count_describe(&t, buf, sizeof buf);
	assert_string_equal(buf, "21 iterations (known_trip_count)");
	t = (struct trip_count){.n = -1, .source = TRIP_UNKNOWN, .slot = -1};
	trip_count_describe(&t, buf, sizeof buf);
	assert_string_equal(buf, "unknown trip count");
}

/* Real dumps: MaxText's layer scan over 8 layers, JAX's fori_loop(0, 100000). */
static void test_real(void **state)
{
	(void)state;
	struct { const char *file, *loop; int64_t n; } cases[] = {
		{"corpus/real/nv_maxtext_gpt3_train_preopt.hlo", "while.569", 8},
		{"corpus/real/jax_inplace_dus_while_preopt.hlo", "while.358", 100000},
		{"corpus/real/maxtext_llama31_405b_fp8_train_preopt.hlo", "while.21", 126},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *path = shared_path(cases[k].file);
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(path, &d);
		if (!m)
			fail_msg("%s does not parse", path);
		struct hlo_instruction *w = hlo_find_instruction_any(m, cases[k].loop);
		assert_non_null(w);
		struct trip_count t = while_trip_count(w);
		if (t.n != cases[k].n)
			fail_msg("%s %s: %lld iterations, want %lld", path, cases[k].loop,
				 (long long)t.n, (long long)cases[k].n);
		hlo_module_free(m);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_induction_patterns),
		cmocka_unit_test(test_brute_force_down),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_backend_config),
		cmocka_unit_test(test_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
