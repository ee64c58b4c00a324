/* test_postopt.c - constructs of after-optimization dumps (issue 19): the
 * async sugar bound as XLA binds it (call graph, values, ordering), the
 * constructs the analysis does not model (unknown with the construct named),
 * and the corpus/postopt expectations. */
#include "testutil.h"
#include "expect.h"
#include "copies.h"
#include "unmodelled.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct hlo_instruction *I(const struct hlo_module *m, const char *name)
{
	struct hlo_instruction *i = hlo_find_instruction_any(m, name);
	if (!i)
		fail_msg("no instruction %s", name);
	return i;
}

static struct analysis *analyse(struct hlo_module *m)
{
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.cross_check = 1;
	opt.stage = STAGE_AFTER; /* after optimization, whatever the module shows */
	struct diag d;
	diag_init(&d, stderr);
	struct analysis *an = analysis_run(m, &opt, &d);
	assert_non_null(an);
	return an;
}

/* The value set at `name`{idx...} as "def{idx}" strings joined by ' '. */
static const char *set_text(const struct dataflow *df, const struct hlo_instruction *in,
			    const int32_t *idx, int32_t n)
{
	static char buf[256];
	int32_t sub = dataflow_sub(df, in, idx, n);
	assert_true(sub >= 0);
	int32_t v = dataflow_unique_value(df, in, sub);
	assert_true(v >= 0);
	const struct hlo_value *x = &df->values[v];
	int32_t vi[SHAPE_MAX_DEPTH + 1];
	int32_t k = dataflow_value_index(df, x, vi);
	size_t o = (size_t)snprintf(buf, sizeof(buf), "%s{", x->def->name);
	for (int32_t j = 0; j < k; j++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", j ? "," : "", vi[j]);
	snprintf(buf + o, sizeof(buf) - o, "}");
	return buf;
}

static int uses_by(const struct dataflow *df, const struct hlo_instruction *def,
		   const struct hlo_instruction *user)
{
	const struct hlo_value *v = &df->values[dataflow_unique_value(df, def, 0)];
	int n = 0;
	for (int32_t u = 0; u < v->n_uses; u++)
		n += v->uses[u].instr == user;
	return n;
}

static const char *sugar_text =
	"HloModule s, is_scheduled=true\n"
	"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
	"fused {\n  fp = f32[8] parameter(0)\n  ROOT fn = f32[8] negate(fp)\n}\n"
	"callee {\n  cp = f32[8] parameter(0)\n  ROOT cn = f32[8] negate(cp)\n}\n"
	"ENTRY main {\n"
	"  x = f32[8] parameter(0)\n"
	"  rs = ((f32[8]), f32[4]) reduce-scatter-start(x), channel_id=1, replica_groups={{0,1}}, "
	"dimensions={0}, to_apply=add\n"
	"  rd = f32[4] reduce-scatter-done(rs)\n"
	"  fs = ((f32[8]), f32[8], s32[]) fusion-start(x), kind=kLoop, calls=fused\n"
	"  fd = f32[8] fusion-done(fs)\n"
	"  cs = ((f32[8]), f32[8], s32[]) call-start(x), to_apply=callee\n"
	"  cd = f32[8] call-done(cs)\n"
	"  ROOT t = (f32[4], f32[8], f32[8]) tuple(rd, fd, cd)\n"
	"}\n";

/* reduce-scatter-start's to_apply is the reducer and fusion-start's calls
 * the fused computation: embedded, called by the start only, no wrapped
 * computation; call-start's to_apply is the wrapped computation, as a
 * generic async-start's calls=. */
static void test_sugar_call_graph(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(sugar_text);
	struct hlo_computation *add = hlo_find_computation(m, "add");
	struct hlo_computation *fused = hlo_find_computation(m, "fused");
	struct hlo_computation *callee = hlo_find_computation(m, "callee");
	struct hlo_instruction *rs = I(m, "rs"), *rd = I(m, "rd"), *fs = I(m, "fs"), *fd = I(m, "fd");
	struct hlo_instruction *cs = I(m, "cs"), *cd = I(m, "cd");
	assert_int_equal(rs->opcode, OP_ASYNC_START);
	assert_int_equal(rs->async_wrapped_opcode, OP_REDUCE_SCATTER);
	assert_true(hlo_async_sugar_embeds(rs));
	assert_true(hlo_async_sugar_embeds(rd));
	assert_ptr_equal(rs->to_apply, add);
	assert_int_equal(add->context, CALL_EMBEDDED);
	assert_int_equal(add->n_callers, 1);
	assert_ptr_equal(add->callers[0].instr, rs);
	assert_int_equal(add->callers[0].context, CALL_EMBEDDED);
	assert_int_equal(rd->n_called, 0); /* nothing inherited */
	assert_int_equal(hlo_call_context(rs), CALL_EMBEDDED);

	assert_ptr_equal(fs->ext->calls, fused);
	assert_int_equal(fused->context, CALL_EMBEDDED);
	assert_int_equal(fused->n_callers, 1);
	assert_int_equal(fd->n_called, 0);

	assert_false(hlo_async_sugar_embeds(cs));
	assert_int_equal(callee->context, CALL_CONTROL_FLOW);
	assert_int_equal(callee->n_callers, 2); /* the start and the done */
	assert_ptr_equal(cd->to_apply, callee);

	struct analysis *an = analyse(m);
	assert_null(async_wrapped_computation(rs));
	assert_null(async_wrapped_computation(rd));
	assert_null(async_wrapped_computation(fd));
	assert_ptr_equal(async_wrapped_computation(cd), callee);
	assert_null(ordering_async_wrapped(rd));
	assert_ptr_equal(ordering_async_wrapped(cd), callee);
	assert_true(ordering_is_fusion_computation(an->dep, fused));
	assert_false(ordering_is_fusion_computation(an->dep, add));
	assert_false(ordering_is_fusion_computation(an->dep, callee));
	analysis_free(an);
	hlo_module_free(m);
}

/* The start defines its output {1} (the wrapped op's result), forwards the
 * operand at {0,0}; the done forwards {1} and reads the operand (late
 * binding); the reducer's parameters are its own values. */
static void test_sugar_values(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(sugar_text);
	struct analysis *an = analyse(m);
	const struct dataflow *df = an->df;
	struct hlo_instruction *x = I(m, "x"), *rs = I(m, "rs"), *rd = I(m, "rd");
	assert_string_equal(set_text(df, rs, (int32_t[]){0, 0}, 2), "x{}");
	assert_string_equal(set_text(df, rs, (int32_t[]){1}, 1), "rs{1}");
	assert_string_equal(set_text(df, rd, NULL, 0), "rs{1}");
	assert_string_equal(set_text(df, I(m, "fd"), NULL, 0), "fs{1}");
	assert_string_equal(set_text(df, I(m, "a"), NULL, 0), "a{}");
	assert_string_equal(set_text(df, I(m, "fp"), NULL, 0), "fp{}");
	/* call-start: the callee's parameter forwards the operand */
	assert_string_equal(set_text(df, I(m, "cp"), NULL, 0), "x{}");
	assert_string_equal(set_text(df, I(m, "cd"), NULL, 0), "cn{}");
	assert_int_equal(uses_by(df, x, rs), 1);
	assert_int_equal(uses_by(df, x, rd), 1);
	assert_int_equal(uses_by(df, x, I(m, "fd")), 1);
	analysis_free(an);
	hlo_module_free(m);
}

/* Every construct analysis_run refuses, with its message and position. */
static void want_unmodelled(const char *text, int line, int col, const char *msg)
{
	struct hlo_module *m = parse_text(text);
	struct diag d;
	diag_init(&d, NULL);
	struct analysis_options opt;
	analysis_default_options(&opt);
	assert_null(analysis_run(m, &opt, &d));
	if (strncmp(d.first, UNMODELLED_PREFIX, strlen(UNMODELLED_PREFIX)) || !strstr(d.first, msg))
		fail_msg("'%s' is not '" UNMODELLED_PREFIX "...%s'", d.first, msg);
	if (d.first_pos.line != line || d.first_pos.col != col)
		fail_msg("'%s' at %d:%d, want %d:%d", d.first, d.first_pos.line, d.first_pos.col, line, col);
	/* the same from the dataflow alone (the buffers command) */
	diag_init(&d, NULL);
	struct arena a;
	arena_init(&a);
	assert_null(dataflow_run(m, &a, &d));
	assert_non_null(strstr(d.first, msg));
	arena_free(&a);
	hlo_module_free(m);
}

static void test_unmodelled(void **state)
{
	(void)state;
	want_unmodelled("ENTRY e {\n  p = s32[2] parameter(0)\n"
			"  ROOT b = (s32[], b(s32[2])) custom-call(p), custom_call_target=\"X\"\n}\n",
			3, 8, "buffer shapes b(...): b is (s32[], b(s32[2]))");
	want_unmodelled("ENTRY e {\n  p = s32[2] parameter(0)\n"
			"  ROOT b = s32[2] custom-call(p), custom_call_target=\"unpin\"\n}\n",
			3, 8, "the unpin custom call (b)");
	want_unmodelled("c {\n  a = s32[] parameter(0)\n  ROOT l = pred[] compare(a, a), direction=LT\n}\n"
			"b {\n  a = s32[] parameter(0)\n  ROOT n = s32[] negate(a)\n}\n"
			"ENTRY e {\n  p = s32[] parameter(0)\n"
			"  ws = ((s32[]), s32[], u32[]) while-start(p), condition=c, body=b\n"
			"  ROOT wd = s32[] while-done(ws)\n}\n",
			11, 3, "async control flow: ws is while-start");
	want_unmodelled("ENTRY e {\n  p = f32[4] parameter(0)\n"
			"  s = ((f32[4]), f32[4], u32[]) custom-call-start(p), custom_call_target=\"X\", "
			"output_to_operand_aliasing={{}: (0, {})}\n"
			"  ROOT d = f32[4] custom-call-done(s)\n}\n",
			3, 3, "writes an operand in place: s (custom-call-start)");
	want_unmodelled("ENTRY e {\n  p = f32[4] parameter(0)\n  v = f32[1] parameter(1)\n"
			"  i = s32[] parameter(2)\n"
			"  s = ((f32[4], f32[1], s32[]), f32[4], u32[]) dynamic-update-slice-start(p, v, i)\n"
			"  ROOT d = f32[4] dynamic-update-slice-done(s)\n}\n",
			5, 3, "writes an operand in place: s (dynamic-update-slice-start)");
	/* an in-place op in a fusion nested in the fused computation */
	want_unmodelled("inner {\n  q = f32[4] parameter(0)\n  w = f32[1] parameter(1)\n"
			"  z = s32[] constant(0)\n  ROOT u = f32[4] dynamic-update-slice(q, w, z)\n}\n"
			"outer {\n  q = f32[4] parameter(0)\n  w = f32[1] parameter(1)\n"
			"  ROOT f = f32[4] fusion(q, w), kind=kLoop, calls=inner\n}\n"
			"ENTRY e {\n  p = f32[4] parameter(0)\n  v = f32[1] parameter(1)\n"
			"  s = ((f32[4], f32[1]), f32[4], u32[]) fusion-start(p, v), kind=kLoop, calls=outer\n"
			"  ROOT d = f32[4] fusion-done(s)\n}\n",
			15, 3, "s (fusion-start), its fusion writes in place at f");
}

/* corpus/postopt: "// expect: NAME family=F given=G any=A" for every copy
 * (as corpus/copies, tests/expect.h), or "// expect-unknown: LINE:COL:
 * message" when the analysis must refuse the module. */
static void check_file(const char *f, int *n_copies, int *n_unknown)
{
	struct expect_file e;
	if (expect_read(f, &e) < 0)
		fail_msg("%s: cannot read", f);
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(f, &d);
	if (!m)
		fail_msg("%s does not parse", f);
	const char *unk = expect_body(&e, "expect-unknown", 0);
	if (unk) {
		int line, col, used = 0;
		if (sscanf(unk, "%d:%d: %n", &line, &col, &used) != 2 || !used)
			fail_msg("%s: bad expect-unknown tag", f);
		const char *msg = unk + used;
		struct analysis_options opt;
		analysis_default_options(&opt);
		diag_init(&d, NULL);
		if (analysis_run(m, &opt, &d))
			fail_msg("%s: analysed, want unknown", f);
		if (strncmp(d.first, msg, strlen(msg)) || d.first_pos.line != line || d.first_pos.col != col)
			fail_msg("%s: %d:%d: %s, want %d:%d: %s", f, d.first_pos.line, d.first_pos.col,
				 d.first, line, col, msg);
		(*n_unknown)++;
	} else {
		struct analysis *an = analyse(m);
		*n_copies += expect_copies(f, an, m);
		if (an->cross_check_failed)
			fail_msg("%s: cross-check failed", f);
		analysis_free(an);
	}
	hlo_module_free(m);
	expect_free(&e);
}

static void test_corpus_postopt(void **state)
{
	(void)state;
	char **files = list_files("corpus/postopt", ".hlo");
	int n_files = 0, n_copies = 0, n_unknown = 0;
	for (char **f = files; *f; f++, n_files++)
		check_file(*f, &n_copies, &n_unknown);
	free_list(files);
	assert_int_equal(n_files, 9);
	assert_int_equal(n_copies, 6);
	assert_int_equal(n_unknown, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sugar_call_graph),
		cmocka_unit_test(test_sugar_values),
		cmocka_unit_test(test_unmodelled),
		cmocka_unit_test(test_corpus_postopt),
	};
	return cmocka_run_group_tests_name("postopt", tests, NULL, NULL);
}
