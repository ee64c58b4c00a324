/* test_source.c - metadata into the IR (both styles, hostile tables), the
 * frame filter, the display form and the argument paths (source.h). */
#include "testutil.h"
#include "diag.h"
#include "source.h"
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct hlo_instruction *I(const struct hlo_module *m, const char *spec)
{
	struct hlo_instruction *in = hlo_find_instruction_any(m, spec);
	if (!in)
		fail_msg("no instruction '%s'", spec);
	return in;
}

static void expect_place(const struct source_info *s, const char *want)
{
	char buf[256];
	source_place_text(s, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_old_style(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule old\n"
		"ENTRY main {\n"
		"  p = f32[4] parameter(0), metadata={op_name=\"state.params['w']\"}\n"
		"  n = f32[4] negate(p), metadata={op_type=\"neg\" op_name=\"jit(f)/neg\" "
		"source_file=\"/home/u/model.py\" source_line=88 source_end_line=88 source_column=11 "
		"source_end_column=38}\n"
		"  ROOT c = f32[4] copy(n), metadata={op_name=\"jit(f)/dynamic_update_slice\" "
		"source_file=\"/opt/venv/lib/python3.11/site-packages/flax/core/axes_scan.py\" "
		"source_line=177}\n"
		"}\n");
	struct arena a;
	arena_init(&a);
	const struct hlo_instruction *n = I(m, "n");
	assert_int_equal(n->source_line, 88);
	assert_int_equal(n->source_column, 11);
	assert_int_equal(n->stack_frame_id, 0);
	struct source_info *s = source_of(n, NULL, &a);
	assert_non_null(s);
	assert_string_equal(s->op_name, "jit(f)/neg");
	assert_string_equal(s->place.file, "/home/u/model.py");
	assert_int_equal(s->place.line, 88);
	assert_int_equal(s->place.column, 11);
	assert_null(s->place.function);
	assert_int_equal(s->framework, 0);
	assert_int_equal(s->n_stack, 1);
	expect_place(s, "at /home/u/model.py:88");

	/* one framework file: no user frame, the framework's place is said */
	s = source_of(I(m, "c"), NULL, &a);
	assert_int_equal(s->framework, 1);
	assert_int_equal(s->n_stack, 0);
	assert_int_equal(s->place.line, 177);
	expect_place(s, "in flax/core/axes_scan.py:177");
	struct source_filter all = {FRAMES_ALL, 0, NULL};
	s = source_of(I(m, "c"), &all, &a);
	assert_int_equal(s->framework, 0);
	assert_int_equal(s->n_stack, 1);
	expect_place(s, "at flax/core/axes_scan.py:177");

	/* op_name only: a source without a place */
	s = source_of(I(m, "p"), NULL, &a);
	assert_non_null(s);
	assert_null(s->place.file);
	expect_place(s, "");
	arena_free(&a);
	hlo_module_free(m);
}

/* The tables as jaxlib prints them (jax_mass_matrix_stackframes_preopt.hlo):
 * parent_frame_id one above the proto's, a root frame showing its own id 1. */
static const char new_style[] =
	"HloModule sf, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
	"\n"
	"FileNames\n"
	"1 \"<frozen runpy>\"\n"
	"2 \"/home/u/train.py\"\n"
	"3 \"/usr/lib/python3/dist-packages/jax/_src/numpy/lax_numpy.py\"\n"
	"\n"
	"FunctionNames\n"
	"1 \"_run_code\"\n"
	"2 \"<module>\"\n"
	"3 \"step\"\n"
	"4 \"where\"\n"
	"\n"
	"FileLocations\n"
	"1 {file_name_id=1 function_name_id=1 line=88 end_line=88 column=4 end_column=9}\n"
	"2 {file_name_id=2 function_name_id=2 line=40 end_line=40 column=1 end_column=20}\n"
	"3 {file_name_id=2 function_name_id=3 line=12 end_line=12 column=9 end_column=30}\n"
	"4 {file_name_id=3 function_name_id=4 line=700 end_line=700 column=5 end_column=11}\n"
	"\n"
	"StackFrames\n"
	"1 {file_location_id=1 parent_frame_id=1}\n"
	"2 {file_location_id=2 parent_frame_id=2}\n"
	"3 {file_location_id=3 parent_frame_id=3}\n"
	"4 {file_location_id=4 parent_frame_id=4}\n"
	"\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0), metadata={op_name=\"x\"}\n"
	"  ROOT w = f32[4] negate(p), metadata={op_name=\"jit(step)/where\" stack_frame_id=4}\n"
	"}\n";

static void test_new_style(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(new_style);
	const struct hlo_stack_index *x = &m->stack;
	assert_int_equal(x->n_files, 3);
	assert_int_equal(x->n_functions, 4);
	assert_int_equal(x->n_locations, 4);
	assert_int_equal(x->n_frames, 4);
	assert_string_equal(x->files[0], "<frozen runpy>");
	assert_int_equal(x->locations[2].line, 12);
	assert_int_equal(x->locations[2].column, 9);
	assert_int_equal(x->locations[3].end_column, 11);
	/* the shift undone: 1 is a root, 4's caller is 3 */
	assert_int_equal(x->frames[0].parent, 0);
	assert_int_equal(x->frames[3].parent, 3);
	assert_int_equal(x->frames[3].location, 4);
	const struct hlo_instruction *w = I(m, "w");
	assert_int_equal(w->stack_frame_id, 4);

	struct arena a;
	arena_init(&a);
	struct source_info *s = source_of(w, NULL, &a);
	/* jax's where and the frozen runner are the framework's */
	assert_int_equal(s->framework, 0);
	assert_int_equal(s->n_stack, 2);
	assert_string_equal(s->stack[0].file, "/home/u/train.py");
	assert_string_equal(s->stack[0].function, "step");
	assert_int_equal(s->stack[0].line, 12);
	assert_int_equal(s->stack[0].column, 9);
	assert_string_equal(s->stack[1].function, "<module>");
	assert_int_equal(s->stack[1].line, 40);
	expect_place(s, "at /home/u/train.py:12 (step)");
	struct source_filter all = {FRAMES_ALL, 0, NULL};
	s = source_of(w, &all, &a);
	assert_int_equal(s->n_stack, 4);
	expect_place(s, "at jax/_src/numpy/lax_numpy.py:700 (where)");
	assert_string_equal(s->stack[3].file, "<frozen runpy>");
	/* a configured prefix takes train.py out too: the framework's place */
	const char *pre[] = {"/home/u"};
	struct source_filter more = {FRAMES_USER, 1, pre};
	s = source_of(w, &more, &a);
	assert_int_equal(s->framework, 1);
	assert_int_equal(s->n_stack, 0);
	expect_place(s, "in jax/_src/numpy/lax_numpy.py:700 (where)");
	arena_free(&a);
	hlo_module_free(m);
}

/* The proto's own convention (parent 0 = none) is read as printed. */
static void test_unshifted_parents(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule u\n"
		"FileNames\n1 \"a.py\"\n"
		"FunctionNames\n1 \"f\"\n2 \"g\"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=3}\n"
		"2 {file_name_id=1 function_name_id=2 line=7}\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=0}\n"
		"2 {file_location_id=2 parent_frame_id=1}\n"
		"ENTRY main {\n"
		"  ROOT c = f32[] constant(1), metadata={op_name=\"c\" stack_frame_id=2}\n"
		"}\n");
	assert_int_equal(m->stack.frames[1].parent, 1);
	struct arena a;
	arena_init(&a);
	struct source_info *s = source_of(I(m, "c"), NULL, &a);
	assert_int_equal(s->n_stack, 2);
	expect_place(s, "at a.py:7 (g)");
	assert_string_equal(s->stack[1].function, "f");
	arena_free(&a);
	hlo_module_free(m);
}

/* Bad references read as none, cycles end, out-of-range rows are dropped:
 * never a crash or a hang, never an error for what XLA would load. */
static void test_hostile_tables(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule h\n"
		"FileNames\n1 \"a.py\"\n2 \"b.py\"\n99 \"dropped.py\"\n2 \"repeat.py\"\n"
		"FunctionNames\n1 \"f\"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=3 future_field=5}\n"
		"2 {file_name_id=7 function_name_id=-3 line=9}\n"
		"3 {file_name_id=2 function_name_id=0 line=2147483647 column=-1}\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=3}\n"
		"2 {file_location_id=1 parent_frame_id=2}\n"
		"3 {file_location_id=3 parent_frame_id=-5}\n"
		"4 {file_location_id=2 parent_frame_id=9999999999}\n"
		"5 {file_location_id=12 parent_frame_id=1}\n"
		"ENTRY main {\n"
		"  a = f32[] constant(1), metadata={op_name=\"a\" stack_frame_id=1}\n"
		"  b = f32[] constant(2), metadata={stack_frame_id=2147483647}\n"
		"  c = f32[] constant(3), metadata={op_name=\"c\" stack_frame_id=4}\n"
		"  d = f32[] constant(4), metadata={stack_frame_id=5 source_file=\"old.py\" source_line=6}\n"
		"  ROOT e = f32[] add(a, b), metadata={stack_frame_id=3}\n"
		"}\n");
	const struct hlo_stack_index *x = &m->stack;
	assert_int_equal(x->n_files, 4);
	assert_string_equal(x->files[1], "b.py"); /* the first row with id 2 */
	assert_null(x->files[2]);
	struct arena a;
	arena_init(&a);
	/* shifted (1's parent 3 >= 1): 1 -> 2 -> 1 is a cycle; it ends */
	struct source_info *s = source_of(I(m, "a"), NULL, &a);
	assert_int_equal(s->n_stack, 2);
	assert_int_equal(s->stack[0].line, 3);
	assert_int_equal(s->stack[1].line, 3);
	/* no such frame, no op_name: its user e's place, said to be a neighbour's */
	s = source_of(I(m, "b"), NULL, &a);
	assert_string_equal(s->via, "e");
	expect_place(s, "near b.py:2147483647");
	/* a location with a missing file: no frames, op_name only */
	s = source_of(I(m, "c"), NULL, &a);
	assert_non_null(s);
	assert_null(s->place.file);
	/* a frame with a missing location: the old-style fields instead */
	s = source_of(I(m, "d"), NULL, &a);
	expect_place(s, "at old.py:6");
	/* line 2^31-1 kept, column -1 and function 0 read as unknown */
	s = source_of(I(m, "e"), NULL, &a);
	expect_place(s, "at b.py:2147483647");
	assert_int_equal(s->place.column, 0);
	assert_int_equal(s->n_stack, 1);
	arena_free(&a);
	hlo_module_free(m);
}

/* Without a place of its own: a body parameter takes its while's, a
 * constant its first user's, an entry parameter none (its arguments's op_name
 * only). */
static void test_neighbour_place(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule nb\n"
		"cond {\n"
		"  cp = (s32[], f32[4]) parameter(0)\n"
		"  ci = s32[] get-tuple-element(cp), index=0\n"
		"  k = s32[] constant(3)\n"
		"  ROOT lt = pred[] compare(ci, k), direction=LT, metadata={op_name=\"lt\" source_file=\"/u/m.py\" source_line=7}\n"
		"}\n"
		"body {\n"
		"  bp = (s32[], f32[4]) parameter(0)\n"
		"  bi = s32[] get-tuple-element(bp), index=0\n"
		"  bx = f32[4] get-tuple-element(bp), index=1\n"
		"  ROOT bt = (s32[], f32[4]) tuple(bi, bx)\n"
		"}\n"
		"ENTRY main {\n"
		"  p = f32[4] parameter(0), metadata={op_name=\"params['w']\"}\n"
		"  q = f32[4] parameter(1)\n"
		"  z = s32[] constant(0)\n"
		"  t = (s32[], f32[4]) tuple(z, p)\n"
		"  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body, "
		"metadata={op_name=\"jit(f)/while\" source_file=\"/u/m.py\" source_line=12}\n"
		"}\n");
	struct arena a;
	arena_init(&a);
	struct source_info *s = source_of(I(m, "bp@body"), NULL, &a);
	assert_string_equal(s->via, "w");
	assert_string_equal(s->op_name, "jit(f)/while");
	expect_place(s, "near /u/m.py:12");
	s = source_of(I(m, "k@cond"), NULL, &a);
	assert_string_equal(s->via, "lt");
	expect_place(s, "near /u/m.py:7");
	s = source_of(I(m, "p"), NULL, &a);
	assert_null(s->via);
	assert_null(s->place.file);
	assert_string_equal(s->op_name, "params['w']");
	assert_string_equal(s->arg_path, "params['w']");
	assert_null(source_of(I(m, "q"), NULL, &a));
	/* z's only user t has no place, and that is as far as it looks */
	assert_null(source_of(I(m, "z"), NULL, &a));
	s = source_of(I(m, "w"), NULL, &a);
	assert_null(s->via);
	assert_null(s->arg_path);
	expect_place(s, "at /u/m.py:12");
	arena_free(&a);
	hlo_module_free(m);
}

static void expect_error(const char *text, const char *msg, int line, int col)
{
	struct diag d = parse_text_error(text);
	if (!strstr(d.first, msg))
		fail_msg("error '%s' does not contain '%s'", d.first, msg);
	if (d.first_pos.line != line || d.first_pos.col != col)
		fail_msg("error '%s' at %d:%d, want %d:%d", d.first, d.first_pos.line,
			 d.first_pos.col, line, col);
}

static void test_table_errors(void **state)
{
	(void)state;
	expect_error("HloModule e\nFileLocations\n1 {file_name_id=x line=3}\n"
		     "ENTRY m {\n  ROOT c = f32[] constant(1)\n}\n",
		     "expected an integer", 3, 17);
	expect_error("HloModule e\nFileLocations\n1 \"a.py\"\n"
		     "ENTRY m {\n  ROOT c = f32[] constant(1)\n}\n",
		     "expected '{' in the stack frame table", 3, 3);
	expect_error("HloModule e\nFileNames\n1 {x=1}\n"
		     "ENTRY m {\n  ROOT c = f32[] constant(1)\n}\n",
		     "expected a string in the stack frame table", 3, 3);
	expect_error("HloModule e\nStackFrames\n1 {file_location_id=1 2}\n"
		     "ENTRY m {\n  ROOT c = f32[] constant(1)\n}\n",
		     "expected a field 'name=' in the stack frame table", 3, 23);
	expect_error("ENTRY m {\n  ROOT c = f32[] constant(1), metadata={stack_frame_id=x1}\n}\n",
		     "bad stack_frame_id 'x1'", 2, 56);
	expect_error("ENTRY m {\n  ROOT c = f32[] constant(1), metadata={source_column=99999999999}\n}\n",
		     "bad source_column '99999999999'", 2, 55);
}

static void test_frame_filter(void **state)
{
	(void)state;
	assert_true(source_is_framework("/usr/lib/python3/site-packages/foo.py", NULL));
	assert_true(source_is_framework("/x/dist-packages/a/b.py", NULL));
	assert_true(source_is_framework("jax/_src/lax/lax.py", NULL));
	assert_true(source_is_framework("/opt/flax/flax/core/axes_scan.py", NULL));
	assert_true(source_is_framework("/w/optax/_src/alias.py", NULL));
	assert_true(source_is_framework("/w/equinox/_module.py", NULL));
	assert_true(source_is_framework("/w/jaxlib/xla_client.py", NULL));
	assert_true(source_is_framework("<frozen runpy>", NULL));
	assert_false(source_is_framework("jax_tests/example_a.py", NULL));
	assert_false(source_is_framework("/home/u/myjax/x.py", NULL));
	assert_false(source_is_framework("/home/u/jax.py", NULL)); /* a file, not the package */
	assert_false(source_is_framework("<embedded module '_launcher'>", NULL));
	assert_false(source_is_framework("third_party/py/absl/app.py", NULL));
	assert_false(source_is_framework(NULL, NULL));
	const char *pre[] = {"third_party/py/absl/", "/opt"};
	struct source_filter f = {FRAMES_USER, 2, pre};
	assert_true(source_is_framework("third_party/py/absl/app.py", &f));
	assert_true(source_is_framework("/x/third_party/py/absl/app.py", &f));
	assert_false(source_is_framework("/x/third_party/py/abslx/app.py", &f));
	assert_true(source_is_framework("/opt/model.py", &f));
	assert_false(source_is_framework("/x/opt/model.py", &f));
	assert_false(source_is_framework("/optimal/model.py", &f));
}

static void test_config_frames(void **state)
{
	(void)state;
	static const char xml[] =
		"<hloproof version=\"1\"><frames all=\"true\">"
		"<framework path=\"third_party/py/absl\"/><framework path=\"/opt\"/>"
		"</frames></hloproof>";
	struct lint_config c;
	config_init(&c);
	assert_int_equal(c.frames.mode, FRAMES_USER);
	assert_int_equal(c.frames.n_prefixes, 0);
	struct diag d;
	diag_init(&d, NULL);
	assert_int_equal(config_load_memory(&c, "t.xml", xml, sizeof(xml) - 1, &d), 0);
	assert_int_equal(c.frames.mode, FRAMES_ALL);
	assert_int_equal(c.frames.n_prefixes, 2);
	assert_string_equal(c.frames.prefixes[0], "third_party/py/absl");
	assert_true(source_is_framework("/opt/a.py", &c.frames));
	config_free(&c);
	/* the schema: a <framework> needs a path */
	static const char bad[] = "<hloproof version=\"1\"><frames><framework/></frames></hloproof>";
	config_init(&c);
	diag_init(&d, NULL);
	assert_int_equal(config_load_memory(&c, "t.xml", bad, sizeof(bad) - 1, &d), -1);
	assert_int_equal(d.errors, 1);
	config_free(&c);
}

static void test_display_path(void **state)
{
	(void)state;
	assert_string_equal(source_display_path("/usr/lib/python3.11/site-packages/flax/core/axes_scan.py"),
			    "flax/core/axes_scan.py");
	assert_string_equal(source_display_path("/a/site-packages/x/dist-packages/y.py"), "y.py");
	/* the package root of a framework outside site-packages */
	assert_string_equal(source_display_path("/opt/flax/flax/core/axes_scan.py"),
			    "flax/core/axes_scan.py");
	assert_string_equal(source_display_path("third_party/py/equinox/internal/_loop/x.py"),
			    "equinox/internal/_loop/x.py");
	/* a checkout of its package */
	assert_string_equal(source_display_path("torax/torax/_src/tridiagonal.py"), "torax/_src/tridiagonal.py");
	assert_string_equal(source_display_path("/home/u/model/train.py"), "/home/u/model/train.py");
	assert_string_equal(source_display_path("/home/jax"), "/home/jax");
	assert_string_equal(source_display_path("/a/my-site-packages/y.py"), "/a/my-site-packages/y.py");
	assert_string_equal(source_display_path("/a/site-packages/"), "/a/site-packages/");
	assert_null(source_display_path(NULL));
}

static void test_arg_paths(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule args\n"
		"inner {\n"
		"  q = f32[] parameter(0), metadata={op_name=\"state.params['x']\"}\n"
		"  ROOT r = f32[] negate(q)\n"
		"}\n"
		"ENTRY main {\n"
		"  p0 = f32[] parameter(0), metadata={op_name=\"state.params['decoder']['kernel']\"}\n"
		"  p1 = f32[] parameter(1), metadata={op_name=\"jit(f)/op\"}\n"
		"  p2 = f32[] parameter(2), metadata={op_name=\"\"}\n"
		"  p3 = f32[] parameter(3)\n"
		"  s = f32[] add(p0, p1), metadata={op_name=\"params\"}\n"
		"  c = f32[] call(p2), to_apply=inner\n"
		"  ROOT t = (f32[], f32[], f32[]) tuple(s, c, p3)\n"
		"}\n");
	assert_string_equal(param_arg_path(m, 0), "state.params['decoder']['kernel']");
	assert_null(param_arg_path(m, 1));
	assert_null(param_arg_path(m, 2));
	assert_null(param_arg_path(m, 3));
	assert_null(param_arg_path(m, 4));
	assert_null(param_arg_path(m, -1));
	assert_string_equal(instr_arg_path(I(m, "p0")), "state.params['decoder']['kernel']");
	assert_null(instr_arg_path(I(m, "s")));            /* not a parameter */
	assert_null(instr_arg_path(I(m, "q@inner")));      /* not the entry's */
	assert_null(instr_arg_path(NULL));
	hlo_module_free(m);

	/* one op_name on several parameters (PyTorch/XLA's xla__device_data)
	 * names none of them */
	m = parse_text("HloModule same\n"
		       "ENTRY main {\n"
		       "  a = f32[] parameter(0), metadata={op_name=\"xla__device_data\"}\n"
		       "  b = f32[] parameter(1), metadata={op_name=\"xla__device_data\"}\n"
		       "  c = f32[] parameter(2), metadata={op_name=\"lr\"}\n"
		       "  ROOT t = (f32[], f32[], f32[]) tuple(a, b, c)\n"
		       "}\n");
	assert_null(param_arg_path(m, 0));
	assert_null(param_arg_path(m, 1));
	assert_string_equal(param_arg_path(m, 2), "lr");
	hlo_module_free(m);
}

/* The headline's place: a long path cut at a component, a long qualified
 * function name cut to its last parts, framework code said with "in". */
static void test_place_short(void **state)
{
	(void)state;
	struct source_info s;
	memset(&s, 0, sizeof(s));
	s.place = (struct source_frame){"torax/torax/_src/transport_model/quasilinear_transport_model.py",
					"QuasilinearTransportModel._make_core_transport.<locals>.Dscaled_approach",
					479, 3};
	expect_place(&s, "at .../quasilinear_transport_model.py:479 (Dscaled_approach)");
	s.place = (struct source_frame){"/home/u/proj/step_function.py", "SimulationStepFn.__call__.<locals>._step", 256, 0};
	expect_place(&s, "at /home/u/proj/step_function.py:256 (__call__._step)");
	s.place = (struct source_frame){"/pscratch/sd/c/carag/LINX/scripts/inkernel_mwe_short.py", NULL, 14, 0};
	expect_place(&s, "at .../scripts/inkernel_mwe_short.py:14");
	s.framework = 1;
	s.place = (struct source_frame){"/opt/flax/flax/core/axes_scan.py", "scan_fn", 177, 0};
	expect_place(&s, "in flax/core/axes_scan.py:177 (scan_fn)");
	s.via = "p";
	expect_place(&s, "near flax/core/axes_scan.py:177 (scan_fn)");
}

static const struct hlo_instruction *first_with_frame(const struct hlo_module *m, int32_t id)
{
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t i = 0; i < m->comps[c]->n_instrs; i++)
			if (m->comps[c]->instrs[i]->stack_frame_id == id)
				return m->comps[c]->instrs[i];
	fail_msg("no instruction with stack_frame_id=%d", id);
	return NULL;
}

/* The real module: stack_frame_id=9 is mass_matrix at line 9 of
 * jax_tests/example_a.py (FileLocations 9: line=9 column=35), called from
 * mass_matrix_35 line 17 (frame 7) and main line 22 (frame 6). */
static void test_real_stack_frames(void **state)
{
	(void)state;
	char *path = shared_path("corpus/real/jax_mass_matrix_stackframes_preopt.hlo");
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse_file(path, &d);
	free(path);
	if (!m)
		skip();
	assert_int_equal(m->stack.n_frames, 19);
	const struct hlo_instruction *in = first_with_frame(m, 9);
	struct arena a;
	arena_init(&a);
	struct source_info *s = source_of(in, NULL, &a);
	expect_place(s, "at jax_tests/example_a.py:9 (mass_matrix)");
	assert_int_equal(s->place.column, 35);
	assert_true(s->n_stack >= 3);
	assert_string_equal(s->stack[1].function, "mass_matrix_35");
	assert_int_equal(s->stack[1].line, 17);
	assert_string_equal(s->stack[2].function, "main");
	assert_int_equal(s->stack[2].line, 22);
	/* to the root: 8 frames, the launcher's last */
	assert_int_equal(s->n_stack, 8);
	assert_string_equal(s->stack[7].function, "run_filename_as_main");
	/* by hand from the tables: frame 12 is FileLocations 12 (line 11, column
	 * 41), frame 19 is 19 (line 12, column 16), frame 8 is 8 (line 7, column
	 * 8); all three called from frame 7 (printed parent_frame_id=8) */
	static const struct { int32_t frame, line, column; } want[] = {{12, 11, 41}, {19, 12, 16}, {8, 7, 8}};
	for (size_t k = 0; k < sizeof(want) / sizeof(*want); k++) {
		s = source_of(first_with_frame(m, want[k].frame), NULL, &a);
		assert_string_equal(s->place.file, "jax_tests/example_a.py");
		assert_string_equal(s->place.function, "mass_matrix");
		assert_int_equal(s->place.line, want[k].line);
		assert_int_equal(s->place.column, want[k].column);
		assert_int_equal(s->stack[1].line, 17);
		assert_int_equal(s->n_stack, 8);
	}
	arena_free(&a);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_style),
		cmocka_unit_test(test_new_style),
		cmocka_unit_test(test_unshifted_parents),
		cmocka_unit_test(test_hostile_tables),
		cmocka_unit_test(test_neighbour_place),
		cmocka_unit_test(test_table_errors),
		cmocka_unit_test(test_frame_filter),
		cmocka_unit_test(test_config_frames),
		cmocka_unit_test(test_display_path),
		cmocka_unit_test(test_place_short),
		cmocka_unit_test(test_arg_paths),
		cmocka_unit_test(test_real_stack_frames),
	};
	return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
