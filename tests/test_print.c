/* test_print.c - the canonical printer round-trips and is a fixpoint;
 * module equality notices every kind of difference. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print a module into a malloc'd string. */
static char *print_to_string(const struct hlo_module *m, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	hlo_print_module(f, m);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

static struct hlo_module *parse_quiet(const char *file, const char *text, size_t len)
{
	struct diag d;
	diag_init(&d, NULL);
	return hlo_parse(file, text, len, &d);
}

/* parse(print(m)) equals m and print(parse(print(m))) == print(m). */
static void check_round_trip(const char *file, const struct hlo_module *m)
{
	size_t len1, len2;
	char *text1 = print_to_string(m, &len1);
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m2 = hlo_parse(file, text1, len1, &d);
	if (!m2)
		fail_msg("%s: printed text does not re-parse: %d:%d: %s", file, d.first_pos.line,
			 d.first_pos.col, d.first);
	char why[512];
	if (!hlo_module_equal(m, m2, why, sizeof(why)))
		fail_msg("%s: re-parsed module differs: %s", file, why);
	char *text2 = print_to_string(m2, &len2);
	if (len1 != len2 || memcmp(text1, text2, len1)) {
		size_t i = 0;
		while (i < len1 && i < len2 && text1[i] == text2[i])
			i++;
		fail_msg("%s: printing is not a fixpoint at byte %zu: '%.60s' vs '%.60s'", file, i,
			 text1 + i, text2 + i);
	}
	hlo_module_free(m2);
	free(text1);
	free(text2);
}

/* Every parseable module of a corpus directory round-trips. Modules that do
 * not parse are rejected on purpose (the parser's own tests cover them). */
static void round_trip_dir(const char *rel)
{
	char *dir = shared_path(rel);
	char **files = list_files(dir, ".hlo");
	int parsed = 0, total = 0;
	for (char **f = files; *f; f++) {
		size_t len;
		char *text = read_file(*f, &len);
		assert_non_null(text);
		total++;
		struct hlo_module *m = parse_quiet(*f, text, len);
		if (m) {
			parsed++;
			check_round_trip(*f, m);
			hlo_module_free(m);
		}
		free(text);
	}
	/* The corpus is there and most of it parses: a vacuous pass is a failure. */
	if (total == 0 || parsed * 2 < total)
		fail_msg("%s: only %d of %d modules parsed", dir, parsed, total);
	free_list(files);
	free(dir);
}

static void test_corpus_real(void **state)
{
	round_trip_dir("corpus/real");
}

static void test_corpus_xla_alias(void **state)
{
	round_trip_dir("corpus/xla-alias");
}

static void test_corpus_xla_copy_insertion(void **state)
{
	round_trip_dir("corpus/xla-copy-insertion");
}

/* Parse, print, compare with the expected text exactly, then round-trip. */
static void expect_print(const char *in, const char *want)
{
	struct hlo_module *m = parse_text(in);
	char *got = print_to_string(m, NULL);
	if (strcmp(got, want))
		fail_msg("printed:\n%s\nwanted:\n%s", got, want);
	check_round_trip("<test>", m);
	free(got);
	hlo_module_free(m);
}

/* Terse style: no %, no signature, no header; the printer adds all three. */
static void test_terse_style(void **state)
{
	expect_print("ENTRY main.1 {\n"
		     "  x = f32[4]{0} parameter(0)\n"
		     "  y = f32[4]{0} parameter(1)\n"
		     "  ROOT a = f32[4]{0} add(x, y)\n"
		     "}\n",
		     "HloModule module_main.1\n\n"
		     "ENTRY %main.1 (x: f32[4]{0}, y: f32[4]{0}) -> f32[4]{0} {\n"
		     "  %x = f32[4]{0} parameter(0)\n"
		     "  %y = f32[4]{0} parameter(1)\n"
		     "  ROOT %a = f32[4]{0} add(%x, %y)\n"
		     "}\n\n");
}

/* Operand shapes are dropped; header attributes print in XLA's order with the
 * raw ones after; references get %; metadata stays raw. */
static void test_old_style_header(void **state)
{
	expect_print(
		"HloModule step, entry_computation_layout={(f32[16]{0}, f32[16]{0})->(f32[16]{0}, f32[])}, "
		"input_output_alias={ {0}: (0, {}, may-alias) }, num_partitions=1, is_scheduled=true\n"
		"\n"
		"%plus (a: f32[], b: f32[]) -> f32[] {\n"
		"  %a = f32[] parameter(0)\n"
		"  %b = f32[] parameter(1)\n"
		"  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n"
		"}\n"
		"\n"
		"ENTRY %main (w: f32[16], g: f32[16]) -> (f32[16], f32[]) {\n"
		"  %w = f32[16]{0} parameter(0), metadata={op_name=\"w\" source_file=\"m.py\" source_line=3}\n"
		"  %g = f32[16]{0} parameter(1)\n"
		"  %upd = f32[16]{0} subtract(f32[16]{0} %w, f32[16]{0} %g)\n"
		"  %zero = f32[] constant(0)\n"
		"  %n = f32[] reduce(f32[16]{0} %upd, f32[] %zero), dimensions={0}, to_apply=plus\n"
		"  ROOT %out = (f32[16]{0}, f32[]) tuple(f32[16]{0} %upd, f32[] %n)\n"
		"}\n",
		"HloModule step, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, "
		"entry_computation_layout={(f32[16]{0}, f32[16]{0})->(f32[16]{0}, f32[])}, num_partitions=1\n"
		"\n"
		"%plus (a: f32[], b: f32[]) -> f32[] {\n"
		"  %a = f32[] parameter(0)\n"
		"  %b = f32[] parameter(1)\n"
		"  ROOT %s = f32[] add(%a, %b)\n"
		"}\n"
		"\n"
		"ENTRY %main (w: f32[16]{0}, g: f32[16]{0}) -> (f32[16]{0}, f32[]) {\n"
		"  %w = f32[16]{0} parameter(0), metadata={op_name=\"w\" source_file=\"m.py\" source_line=3}\n"
		"  %g = f32[16]{0} parameter(1)\n"
		"  %upd = f32[16]{0} subtract(%w, %g)\n"
		"  %zero = f32[] constant(0)\n"
		"  %n = f32[] reduce(%upd, %zero), dimensions={0}, to_apply=%plus\n"
		"  ROOT %out = (f32[16]{0}, f32[]) tuple(%upd, %n)\n"
		"}\n\n");
}

/* Tuples, GTE, while with a tuple state, donors, control predecessors,
 * an execution thread and a literal that is not a number. */
static void test_tuples_while_control(void **state)
{
	expect_print(
		"HloModule w, buffer_donor={ (0, {1}) }\n"
		"cond {\n"
		"  p = (s32[], f32[2]{0}) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  k = s32[] constant(4)\n"
		"  ROOT c = pred[] compare(i, k), direction=LT\n"
		"}\n"
		"body {\n"
		"  p = (s32[], f32[2]{0}) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  v = f32[2]{0} get-tuple-element(p), index=1\n"
		"  one = s32[] constant(1)\n"
		"  j = s32[] add(i, one)\n"
		"  ROOT t = (s32[], f32[2]{0}) tuple(j, v)\n"
		"}, execution_thread=\"host\"\n"
		"ENTRY e {\n"
		"  s = (s32[], f32[2]{0}) parameter(0)\n"
		"  c = f32[2]{0} constant({1, 2})\n"
		"  w = (s32[], f32[2]{0}) while(s), condition=cond, body=body, control-predecessors={c}\n"
		"  ROOT g = f32[2]{0} get-tuple-element(w), index=1\n"
		"}\n",
		"HloModule w, buffer_donor={ (0, {1}) }\n"
		"\n"
		"%cond (p: (s32[], f32[2]{0})) -> pred[] {\n"
		"  %p = (s32[], f32[2]{0}) parameter(0)\n"
		"  %i = s32[] get-tuple-element(%p), index=0\n"
		"  %k = s32[] constant(4)\n"
		"  ROOT %c = pred[] compare(%i, %k), direction=LT\n"
		"}\n"
		"\n"
		"%body (p: (s32[], f32[2]{0})) -> (s32[], f32[2]{0}) {\n"
		"  %p = (s32[], f32[2]{0}) parameter(0)\n"
		"  %i = s32[] get-tuple-element(%p), index=0\n"
		"  %v = f32[2]{0} get-tuple-element(%p), index=1\n"
		"  %one = s32[] constant(1)\n"
		"  %j = s32[] add(%i, %one)\n"
		"  ROOT %t = (s32[], f32[2]{0}) tuple(%j, %v)\n"
		"}, execution_thread=\"host\"\n"
		"\n"
		"ENTRY %e (s: (s32[], f32[2]{0})) -> f32[2]{0} {\n"
		"  %s = (s32[], f32[2]{0}) parameter(0)\n"
		"  %c = f32[2]{0} constant({1, 2})\n"
		"  %w = (s32[], f32[2]{0}) while(%s), condition=%cond, body=%body, control-predecessors={%c}\n"
		"  ROOT %g = f32[2]{0} get-tuple-element(%w), index=1\n"
		"}\n\n");
}

/* TPU layouts (tiles, memory space) and JSON backend_config print verbatim. */
static void test_layouts_and_backend_config(void **state)
{
	expect_print(
		"HloModule t, is_scheduled=true\n"
		"ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n"
		"  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
		"  %c = f32[8,128]{0,1:T(8,128)(2,1)S(1)} copy(f32[8,128]{1,0:T(8,128)} %p), "
		"backend_config={\"flag\":true,\"n\":[1,2]}\n"
		"  ROOT %r = f32[8,128]{1,0:T(8,128)} custom-call(%c), custom_call_target=\"foo\", "
		"output_to_operand_aliasing={{}: (0, {})}\n"
		"}\n",
		"HloModule t, is_scheduled=true\n"
		"\n"
		"ENTRY %e (p: f32[8,128]{1,0:T(8,128)}) -> f32[8,128]{1,0:T(8,128)} {\n"
		"  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
		"  %c = f32[8,128]{0,1:T(8,128)(2,1)S(1)} copy(%p), "
		"backend_config={\"flag\":true,\"n\":[1,2]}\n"
		"  ROOT %r = f32[8,128]{1,0:T(8,128)} custom-call(%c), custom_call_target=\"foo\", "
		"output_to_operand_aliasing={{}: (0, {})}\n"
		"}\n\n");
}

/* Header attributes we do not type and an unknown instruction attribute stay
 * raw; the stack-frame tables are copied; async sugar keeps its spelling; with
 * no ENTRY marker the last computation is the entry and gets one. */
static void test_raw_and_sugar(void **state)
{
	expect_print(
		"HloModule a, frontend_attributes={k=\"v\"}, replica_count=2\n"
		"\n"
		"FileNames\n"
		"1 \"a.py\"\n"
		"FunctionNames\n"
		"1 \"f\"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=3}\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=0}\n"
		"\n"
		"wrapped {\n"
		"  p = f32[4] parameter(0)\n"
		"  ROOT n = f32[4] negate(p)\n"
		"}\n"
		"\n"
		"add {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT z = f32[] add(x, y)\n"
		"}\n"
		"\n"
		"e {\n"
		"  p = f32[4] parameter(0)\n"
		"  s = ((f32[4]), f32[4], s32[]) custom-call-start(p), custom_call_target=\"foo\", some_new_attr={a=1, b=\"x y\"}\n"
		"  d = f32[4] custom-call-done(s)\n"
		"  as = ((f32[4]), f32[4], s32[]) async-start(p), calls=wrapped\n"
		"  ad = f32[4] async-done(as)\n"
		"  c = f32[] constant(1)\n"
		"  r = f32[] reduce(d, c), dimensions={0}, to_apply=add\n"
		"  ROOT t = (f32[4], f32[]) tuple(ad, r)\n"
		"}\n",
		"HloModule a, frontend_attributes={k=\"v\"}, replica_count=2\n"
		"\n"
		"FileNames\n"
		"1 \"a.py\"\n"
		"FunctionNames\n"
		"1 \"f\"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=3}\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=0}\n"
		"\n"
		"%wrapped (p: f32[4]) -> f32[4] {\n"
		"  %p = f32[4] parameter(0)\n"
		"  ROOT %n = f32[4] negate(%p)\n"
		"}\n"
		"\n"
		"%add (x: f32[], y: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  %y = f32[] parameter(1)\n"
		"  ROOT %z = f32[] add(%x, %y)\n"
		"}\n"
		"\n"
		"ENTRY %e (p: f32[4]) -> (f32[4], f32[]) {\n"
		"  %p = f32[4] parameter(0)\n"
		"  %s = ((f32[4]), f32[4], s32[]) custom-call-start(%p), custom_call_target=\"foo\", some_new_attr={a=1, b=\"x y\"}\n"
		"  %d = f32[4] custom-call-done(%s)\n"
		"  %as = ((f32[4]), f32[4], s32[]) async-start(%p), calls=%wrapped\n"
		"  %ad = f32[4] async-done(%as)\n"
		"  %c = f32[] constant(1)\n"
		"  %r = f32[] reduce(%d, %c), dimensions={0}, to_apply=%add\n"
		"  ROOT %t = (f32[4], f32[]) tuple(%ad, %r)\n"
		"}\n"
		"\n");
}

/* hlo_module_equal notices a difference of each kind and names it. */
static void expect_differ(const char *a, const char *b, const char *why_part)
{
	struct hlo_module *ma = parse_text(a), *mb = parse_text(b);
	char why[512];
	if (hlo_module_equal(ma, mb, why, sizeof(why)))
		fail_msg("modules compare equal; wanted a difference about '%s'", why_part);
	if (!strstr(why, why_part))
		fail_msg("difference '%s' does not mention '%s'", why, why_part);
	/* and each is equal to itself */
	assert_true(hlo_module_equal(ma, ma, why, sizeof(why)));
	hlo_module_free(ma);
	hlo_module_free(mb);
}

#define BASE_HEAD "HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\n"
#define BASE_BODY(shape, op2, attr)                                     \
	"ENTRY e {\n"                                                   \
	"  p = f32[4]{0} parameter(0)\n"                                \
	"  q = f32[4]{0} parameter(1)\n"                                \
	"  ROOT a = " shape " add(p, " op2 ")" attr "\n"                \
	"}\n"

static void test_equal_detects_differences(void **state)
{
	const char *base = BASE_HEAD BASE_BODY("f32[4]{0}", "q", ", metadata={op_name=\"x\"}");
	expect_differ(base, BASE_HEAD BASE_BODY("f32[4]{0}", "p", ", metadata={op_name=\"x\"}"),
		      "operand 1");
	expect_differ(base, BASE_HEAD BASE_BODY("f32[4]{0}", "q", ", metadata={op_name=\"y\"}"),
		      "attribute metadata");
	/* kept as fields on one side, as text on the other */
	expect_differ(base, BASE_HEAD BASE_BODY("f32[4]{0}", "q", ", metadata={op_name=\"x\" }"),
		      "attribute metadata: '{op_name=\"x\"}' vs '{op_name=\"x\" }'");
	expect_differ(base, BASE_HEAD BASE_BODY("f32[4]{0}", "q", ""), "attributes");
	expect_differ(base,
		      "HloModule m, input_output_alias={ {}: (0, {}, must-alias) }\n"
			      BASE_BODY("f32[4]{0}", "q", ", metadata={op_name=\"x\"}"),
		      "input_output_alias");
	expect_differ(base,
		      "HloModule n, input_output_alias={ {}: (0, {}, may-alias) }\n"
			      BASE_BODY("f32[4]{0}", "q", ", metadata={op_name=\"x\"}"),
		      "module name");
	expect_differ("HloModule m\nENTRY e {\n  p = f32[2,2]{1,0} parameter(0)\n"
		      "  ROOT c = f32[2,2]{1,0} copy(p)\n}\n",
		      "HloModule m\nENTRY e {\n  p = f32[2,2]{1,0} parameter(0)\n"
		      "  ROOT c = f32[2,2]{0,1} copy(p)\n}\n",
		      "shape");
	expect_differ("HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n"
		      "  c = f32[2]{0} copy(p)\n  ROOT n = f32[2]{0} negate(p), control-predecessors={c}\n}\n",
		      "HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n"
		      "  c = f32[2]{0} copy(p)\n  ROOT n = f32[2]{0} negate(p)\n}\n",
		      "control predecessors");
	expect_differ("HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n"
		      "  ROOT c = f32[2]{0} copy(p)\n}\n",
		      "HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n"
		      "  ROOT c = f32[2]{0} negate(p)\n}\n",
		      "opcode");
}

/* Metadata that reads exactly as its fields print is kept as the fields
 * alone; any other spelling keeps its text. Either way it prints as it was. */
static void test_metadata_kept_as_fields(void **state)
{
	static const struct {
		const char *text;
		int as_fields;
	} cases[] = {
		{"{op_name=\"jit(f)/add\" source_file=\"m.py\" source_line=7}", 1},
		{"{op_name=\"a\"}", 1},
		{"{source_file=\"m.py\" source_line=7}", 1},
		{"{source_line=12}", 1},
		{"{}", 1},
		{"{op_name=\"a\"  source_line=7}", 0},        /* two spaces */
		{"{op_name=\"a\" source_line=07}", 0},        /* leading zero */
		{"{op_name='a'}", 0},                         /* single quotes */
		{"{op_name=\"a\\\"b\"}", 0},                  /* an escape */
		{"{source_line=7 op_name=\"a\"}", 0},         /* another order */
		{"{op_name=\"a\" source_line=0}", 0},         /* line 0 is not printed */
		{"{op_type=\"t\" op_name=\"a\"}", 0},         /* another field */
		{"{ op_name=\"a\" }", 0},                     /* inner spaces */
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	char text[4096], want[4096];
	size_t n = 0, w = 0;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "HloModule m\n\nENTRY e {\n  p = f32[2]{0} parameter(0)\n");
	w += (size_t)snprintf(want + w, sizeof(want) - w,
			      "HloModule m\n\nENTRY %%e (p: f32[2]{0}) -> f32[2]{0} {\n  %%p = f32[2]{0} parameter(0)\n");
	for (int i = 0; i < N; i++) {
		const char *prev = i ? "n" : "p";
		char pb[8];
		snprintf(pb, sizeof(pb), "%s%d", prev, i ? i - 1 : 0);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "  %sn%d = f32[2]{0} negate(%s), metadata=%s\n",
				      i == N - 1 ? "ROOT " : "", i, i ? pb : "p", cases[i].text);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "  %s%%n%d = f32[2]{0} negate(%%%s), metadata=%s\n",
				      i == N - 1 ? "ROOT " : "", i, i ? pb : "p", cases[i].text);
	}
	snprintf(text + n, sizeof(text) - n, "}\n");
	snprintf(want + w, sizeof(want) - w, "}\n\n");
	struct hlo_module *m = parse_text(text);
	for (int i = 0; i < N; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%d", i);
		const struct hlo_instruction *in = hlo_find_instruction(m->entry, name);
		assert_non_null(in);
		assert_int_equal(in->n_attrs, 1);
		if ((in->attrs[0].value == hlo_metadata_from_fields) != cases[i].as_fields)
			fail_msg("%s: kept %s", cases[i].text, cases[i].as_fields ? "as text" : "as fields");
		char *t = in->attrs[0].value == hlo_metadata_from_fields ? hlo_metadata_text(in)
									 : strdup(in->attrs[0].value);
		assert_string_equal(t, cases[i].text);
		free(t);
	}
	hlo_module_free(m);
	expect_print(text, want);
}

/* Reference attributes compare by the names they hold, not by spelling. */
static void test_equal_ignores_reference_spelling(void **state)
{
	struct hlo_module *a = parse_text(
		"HloModule m\nplus {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n}\n"
		"ENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=plus\n}\n");
	struct hlo_module *b = parse_text(
		"HloModule m\n%plus {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
		"  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n"
		"ENTRY %e {\n  %p = f32[4]{0} parameter(0)\n  %z = f32[] constant(0)\n"
		"  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%plus\n}\n");
	char why[512];
	if (!hlo_module_equal(a, b, why, sizeof(why)))
		fail_msg("differ: %s", why);
	hlo_module_free(a);
	hlo_module_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terse_style),
		cmocka_unit_test(test_old_style_header),
		cmocka_unit_test(test_tuples_while_control),
		cmocka_unit_test(test_layouts_and_backend_config),
		cmocka_unit_test(test_raw_and_sugar),
		cmocka_unit_test(test_equal_detects_differences),
		cmocka_unit_test(test_metadata_kept_as_fields),
		cmocka_unit_test(test_equal_ignores_reference_spelling),
		cmocka_unit_test(test_corpus_real),
		cmocka_unit_test(test_corpus_xla_alias),
		cmocka_unit_test(test_corpus_xla_copy_insertion),
	};
	return cmocka_run_group_tests_name("print", tests, NULL, NULL);
}
