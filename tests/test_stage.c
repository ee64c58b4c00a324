/* test_stage.c - before or after optimization (stage.h), and the copies
 * XLA's simplifier removes before layout assignment. */
#include "testutil.h"
#include "stage.h"
#include <stdlib.h>
#include <string.h>

static enum module_stage stage_of(const char *text, const char **why)
{
	struct hlo_module *m = parse_text(text);
	enum module_stage s = module_stage_detect(m, why);
	hlo_module_free(m);
	return s;
}

static void test_detect(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(stage_of("HloModule m\nENTRY e {\n  p = f32[4,8]{0,1} parameter(0)\n"
				  "  ROOT c = f32[4,8]{1,0} copy(p)\n}\n", &why),
			 STAGE_BEFORE); /* a permuted entry layout alone says nothing */
	assert_int_equal(stage_of("HloModule m, is_scheduled=true\nENTRY e {\n"
				  "  p = f32[4] parameter(0)\n  ROOT c = f32[4] copy(p)\n}\n", &why),
			 STAGE_AFTER);
	assert_non_null(strstr(why, "scheduled"));
	assert_int_equal(stage_of("HloModule m\nENTRY e {\n  p = f32[4,8] parameter(0)\n"
				  "  ROOT b = f32[8,4]{0,1} bitcast(p)\n}\n", &why),
			 STAGE_AFTER);
	assert_non_null(strstr(why, "bitcast"));
	assert_int_equal(stage_of("HloModule m\nf {\n  x = f32[4] parameter(0)\n"
				  "  ROOT c = f32[4] copy(x)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n"
				  "  ROOT w = f32[4] fusion(p), kind=kLoop, calls=f\n}\n", &why),
			 STAGE_AFTER);
	assert_int_equal(stage_of("HloModule m\nENTRY e {\n  p = f32[4]{0:S(5)} parameter(0)\n"
				  "  ROOT c = f32[4] copy(p)\n}\n", &why),
			 STAGE_AFTER);
	assert_non_null(strstr(why, "memory space"));

	enum module_stage s;
	assert_int_equal(module_stage_parse("before", &s), 0);
	assert_int_equal(s, STAGE_BEFORE);
	assert_int_equal(module_stage_parse("after", &s), 0);
	assert_int_equal(s, STAGE_AFTER);
	assert_int_equal(module_stage_parse("later", &s), -1);
}

static int noop(const char *text, const char *copy)
{
	struct hlo_module *m = parse_text(text);
	const struct hlo_instruction *c = hlo_find_instruction_any(m, copy);
	assert_non_null(c);
	int r = copy_is_simplifier_noop(c);
	hlo_module_free(m);
	return r;
}

static void test_noop(void **state)
{
	(void)state;
	/* same shape, and a layout change: layouts are not compared before
	 * layout assignment (ShapeUtil::Compatible) */
	const char *plain = "HloModule m\nENTRY e {\n  p = f32[4,8] parameter(0)\n"
			    "  a = f32[4,8]{1,0} copy(p)\n  b = f32[4,8]{0,1} copy(a)\n"
			    "  ROOT t = (f32[4,8], f32[4,8]) tuple(a, b)\n}\n";
	assert_true(noop(plain, "a"));
	assert_true(noop(plain, "b"));
	/* a control predecessor keeps it (ReplaceInstructionIfCompatible) */
	assert_false(noop("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
			  "  n = f32[4] negate(p)\n"
			  "  ROOT c = f32[4] copy(p), control-predecessors={n}\n}\n", "c"));
	/* the entry root with a sharding stays */
	assert_false(noop("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
			  "  ROOT c = f32[4] copy(p), sharding={replicated}\n}\n", "c"));
	/* ... but a sharded copy elsewhere goes */
	assert_true(noop("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
			 "  c = f32[4] copy(p), sharding={replicated}\n  ROOT n = f32[4] negate(c)\n}\n",
			 "c"));
	/* a move to another memory space is not a no-op */
	assert_false(noop("HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
			  "  ROOT c = f32[4]{0:S(5)} copy(p)\n}\n", "c"));
	/* not a copy */
	assert_false(noop("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
			  "  ROOT c = f32[4] negate(p)\n}\n", "c"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_noop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
