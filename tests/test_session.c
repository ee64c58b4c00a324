/* test_session.c - one module's run (session.h): the options derived once,
 * each stage built once on first use, NULL with its reason when unavailable. */
#include "testutil.h"
#include "budget.h"
#include "config.h"
#include "lint.h"
#include "session.h"
#include <string.h>

/* A copy whose removal is safe, and a may-alias donation. */
static const char *const DONATING =
	"HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\n"
	"ENTRY main {\n"
	"  p0 = f32[4]{0} parameter(0)\n"
	"  c = f32[4]{0} copy(p0)\n"
	"  a = f32[4]{0} negate(c)\n"
	"  ROOT t = (f32[4]{0}) tuple(a)\n"
	"}\n";

/* dataflow_run refuses it: sub is called in two contexts (values.c) */
static const char *const UNANALYSABLE =
	"HloModule m\n"
	"sub {\n"
	"  a = f32[] parameter(0)\n"
	"  b = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(a, b)\n"
	"}\n"
	"ENTRY e {\n"
	"  c = f32[] constant(1)\n"
	"  k = f32[] call(c, c), to_apply=sub\n"
	"  v = f32[4] broadcast(c), dimensions={}\n"
	"  ROOT r = f32[] reduce(v, k), dimensions={0}, to_apply=sub\n"
	"}\n";

static void test_options_derived_once(void **state)
{
	(void)state;
	struct lint_config cfg;
	config_init(&cfg);
	struct analysis_options ao;
	session_analysis_options(NULL, NULL, &ao);
	assert_int_equal(ao.timeout_ms, 2000);
	assert_int_equal(ao.witness_limit, 0);
	cfg.timeout_ms = 1500; /* the configuration's, under no command line */
	session_analysis_options(&cfg, NULL, &ao);
	assert_int_equal(ao.timeout_ms, 1500);
	struct session_options so = {0};
	so.timeout_ms = 700; /* the command line's wins */
	so.smt_dump_dir = "d";
	so.cross_check = 1;
	session_options_for_rules(&so);
	session_analysis_options(&cfg, &so, &ao);
	assert_int_equal(ao.timeout_ms, 700);
	assert_string_equal(ao.smt_dump_dir, "d");
	assert_int_equal(ao.cross_check, 1);
	assert_int_equal(ao.witness_limit, HAZARD_WITNESSES_SHOWN);
	config_free(&cfg);
}

static void test_stages_built_once(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(DONATING);
	struct session *s = session_open(m, NULL, NULL);
	assert_null(session_analysis_built(s));
	const struct copy_verdicts *cv = session_copy_verdicts(s);
	assert_non_null(cv);
	assert_ptr_equal(session_analysis_built(s), cv->an);
	assert_ptr_equal(session_copy_verdicts(s), cv);
	assert_ptr_equal(session_copies(s), &cv->copies);
	assert_ptr_equal(session_hazards(s), &cv->hazards);
	assert_int_equal(cv->copies.n, 1);
	assert_string_equal(cv->copies.items[0].copy->name, "c");
	assert_int_equal(cv->copies.items[0].any, VERDICT_REMOVABLE);
	const struct donation_list *dl = session_donations(s);
	assert_non_null(dl);
	assert_ptr_equal(session_donations(s), dl);
	assert_int_equal(dl->n, 1);
	assert_int_equal(dl->items[0].any, VERDICT_SAFE);
	assert_int_equal(session_why(s, NULL), SESSION_OK);
	session_close(s);
	hlo_module_free(m);
}

static void test_unavailable_with_reason(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(UNANALYSABLE);
	struct session *s = session_open(m, NULL, NULL);
	const char *why = NULL;
	assert_null(session_analysis(s));
	assert_int_equal(session_why(s, &why), SESSION_UNSUPPORTED);
	assert_non_null(why);
	assert_non_null(strstr(why, "both"));
	assert_null(session_copy_verdicts(s));
	assert_null(session_copies(s));
	assert_int_equal(session_why(s, NULL), SESSION_UNSUPPORTED);
	/* the module donates nothing: no list, and that is no failure */
	assert_null(session_donations(s));
	assert_int_equal(session_why(s, &why), SESSION_OK);
	assert_null(why);
	session_close(s);
	hlo_module_free(m);
}

static void test_time_budget_and_skipped(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(DONATING);
	struct budget b;
	budget_init(&b, 0); /* expired from the start */
	struct session_options so = {0};
	so.budget = &b;
	struct session *s = session_open(m, NULL, &so);
	const char *why = NULL;
	assert_null(session_copy_verdicts(s));
	assert_int_equal(session_why(s, &why), SESSION_TIME_BUDGET);
	assert_string_equal(why, BUDGET_EXHAUSTED_REASON);
	/* the donations are listed, unknown, with the reason */
	const struct donation_list *dl = session_donations(s);
	assert_non_null(dl);
	assert_int_equal(dl->n, 1);
	assert_int_equal(dl->items[0].any, VERDICT_UNKNOWN);
	assert_string_equal(dl->items[0].reason, BUDGET_EXHAUSTED_REASON);
	/* and every rule reports itself not checked */
	struct lint_config cfg;
	config_init(&cfg);
	struct findings fs;
	findings_init(&fs, m);
	assert_int_equal(lint_run(s, &cfg, &fs), 1);
	assert_true(fs.n > 0);
	for (int32_t i = 0; i < fs.n; i++)
		assert_string_equal(fs.items[i].message, LINT_NOT_CHECKED);
	findings_free(&fs);
	config_free(&cfg);
	session_close(s);

	memset(&so, 0, sizeof(so));
	so.no_analysis = "not asked";
	s = session_open(m, NULL, &so);
	assert_null(session_analysis(s));
	assert_int_equal(session_why(s, &why), SESSION_SKIPPED);
	assert_string_equal(why, "not asked");
	dl = session_donations(s);
	assert_non_null(dl);
	assert_string_equal(dl->items[0].reason, "not asked");
	session_close(s);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_derived_once),
		cmocka_unit_test(test_stages_built_once),
		cmocka_unit_test(test_unavailable_with_reason),
		cmocka_unit_test(test_time_budget_and_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
