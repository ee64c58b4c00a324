/* test_gate.c - the gate's summaries, comparison and dump pairing (gate.h). */
#include "testutil.h"
#include "config.h"
#include "gate.h"
#include <stdlib.h>
#include <string.h>

static int ir_only; /* build with --no-deciders */

static void build(const char *text, struct gate_module *g)
{
	struct hlo_module *m = parse_text(text);
	struct lint_config cfg;
	config_init(&cfg);
	assert_int_equal(gate_module_build(m, &cfg, &(struct gate_build_options){.ann = NULL, .no_deciders = ir_only}, g), 0);
	config_free(&cfg);
	hlo_module_free(m); /* the summary outlives the module */
}

static const struct gate_donation *donation(const struct gate_module *g, int32_t p, const char *ix)
{
	for (int32_t i = 0; i < g->n_donations; i++)
		if (g->donations[i].param == p && !strcmp(g->donations[i].param_index, ix))
			return &g->donations[i];
	return NULL;
}

static const char *const copies_base =
	"HloModule m, entry_computation_layout={(f32[4]{0}, f32[2,3]{1,0})->(f32[4]{0}, f32[4]{0}, f32[2,3]{0,1})}\n"
	"body.3 {\n"
	"  p = f32[4]{0} parameter(0)\n"
	"  c.1 = f32[4]{0} copy(p)\n"
	"  ROOT n = f32[4]{0} negate(c.1)\n"
	"}\n"
	"fused.4 {\n"
	"  q = f32[4]{0} parameter(0)\n"
	"  ROOT inner = f32[4]{0} copy(q)\n"
	"}\n"
	"ENTRY e.5 {\n"
	"  a = f32[4]{0} parameter(0)\n"
	"  b = f32[2,3]{1,0} parameter(1)\n"
	"  copy.7 = f32[4]{0} copy(a)\n"
	"  copy.8 = f32[4]{0} copy(a)\n"
	"  t.9 = f32[2,3]{0,1} copy(b)\n"
	"  k = f32[4]{0} call(copy.7), to_apply=body.3\n"
	"  f = f32[4]{0} fusion(copy.8), kind=kLoop, calls=fused.4\n"
	"  ROOT r = (f32[4]{0}, f32[4]{0}, f32[2,3]{0,1}) tuple(k, f, t.9)\n"
	"}\n";

/* IR facts: fusion bodies are skipped, a fusion that only copies its
 * parameter is a fused copy; shapes give the layout family; bytes. */
static void test_copies_collected(void **state)
{
	(void)state;
	struct gate_module g;
	ir_only = 1;
	build(copies_base, &g);
	ir_only = 0;
	assert_false(g.decided_copies);
	assert_string_equal(g.name, "m");
	assert_int_equal(g.n_copies, 5); /* c.1 in the called body, copy.7, copy.8, t.9, fused f */
	assert_string_equal(g.copies[0].name, "c.1");
	assert_string_equal(g.copies[0].computation, "body.3");
	assert_null(g.copies[0].family);
	assert_int_equal(g.copies[0].bytes, 16);
	assert_string_equal(g.copies[3].name, "t.9");
	assert_string_equal(g.copies[3].family, "layout");
	assert_string_equal(g.copies[3].operand, "b");
	assert_string_equal(g.copies[3].operand_opcode, "parameter");
	assert_int_equal(g.copies[3].bytes, 24);
	assert_int_equal(g.copies[1].key, g.copies[2].key); /* copy.7 and copy.8 look alike */
	assert_true(g.copies[0].key != g.copies[1].key);
	assert_null(g.copies[3].verdict);
	assert_string_equal(g.copies[3].kind, "copy");
	assert_string_equal(g.copies[4].name, "f");
	assert_string_equal(g.copies[4].kind, "fused");
	assert_string_equal(g.copies[4].operand, "copy.8");
	assert_int_equal(g.copies[4].bytes, 16);
	assert_null(g.copies[4].family);
	gate_module_free(&g);
}

/* The copy decider: the same copies, with families and verdicts. */
static void test_copies_decided(void **state)
{
	(void)state;
	struct gate_module g, f;
	build(copies_base, &g);
	ir_only = 1;
	build(copies_base, &f);
	ir_only = 0;
	assert_true(g.decided_copies);
	assert_int_equal(g.n_copies, f.n_copies);
	for (int32_t i = 0; i < g.n_copies; i++) {
		assert_string_equal(g.copies[i].name, f.copies[i].name);
		assert_int_equal(g.copies[i].key, f.copies[i].key); /* one identity, either way */
		assert_int_equal(g.copies[i].bytes, f.copies[i].bytes);
		assert_non_null(g.copies[i].family);
		assert_non_null(g.copies[i].verdict);
	}
	assert_string_equal(g.copies[3].family, "layout");
	assert_string_equal(g.copies[3].verdict, "necessary");
	assert_null(g.copies[3].verdict_given); /* not scheduled */
	assert_string_equal(g.copies[1].verdict, "removable");
	gate_module_free(&g);
	gate_module_free(&f);
}

/* Renumbering keeps every identity; a third look-alike copy is added; a
 * changed layout is a removed copy and an added one. */
static void test_copies_compared(void **state)
{
	(void)state;
	struct gate_module b, h;
	build(copies_base, &b);
	build("HloModule m\n"
	      "body.30 {\n"
	      "  p = f32[4]{0} parameter(0)\n"
	      "  c.10 = f32[4]{0} copy(p)\n"
	      "  ROOT n = f32[4]{0} negate(c.10)\n"
	      "}\n"
	      "ENTRY e.50 {\n"
	      "  a = f32[4]{0} parameter(0)\n"
	      "  b = f32[2,3]{1,0} parameter(1)\n"
	      "  copy.70 = f32[4]{0} copy(a)\n"
	      "  copy.71 = f32[4]{0} copy(a)\n"
	      "  copy.72 = f32[4]{0} copy(a)\n"
	      "  t.90 = f32[2,3]{1,0} copy(b)\n"
	      "  k = f32[4]{0} call(copy.70), to_apply=body.30\n"
	      "  ROOT r = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[2,3]{1,0}) tuple(k, copy.71, copy.72, t.90)\n"
	      "}\n",
	      &h);
	struct gate_diff d;
	assert_int_equal(gate_compare(&b, &h, &d), 0);
	assert_int_equal(d.n_kept, 3);
	assert_int_equal(d.n_added, 2);
	assert_string_equal(d.added[0]->name, "copy.72"); /* the excess one, in text order */
	assert_string_equal(d.added[1]->name, "t.90");
	assert_string_not_equal(d.added[1]->family, "layout"); /* same layout as b now */
	assert_int_equal(d.added_bytes, 16 + 24);
	assert_int_equal(d.n_removed, 2); /* t.9 and the fused copy f */
	assert_string_equal(d.removed[0]->name, "t.9");
	assert_string_equal(d.removed[1]->name, "f");
	assert_int_equal(d.removed_bytes, 24 + 16);
	gate_diff_free(&d);
	/* and the other way round */
	assert_int_equal(gate_compare(&h, &b, &d), 0);
	assert_int_equal(d.n_added, 2);
	assert_int_equal(d.n_removed, 2);
	gate_diff_free(&d);
	gate_module_free(&b);
	gate_module_free(&h);
}

static void test_memory_space_family(void **state)
{
	(void)state;
	struct gate_module g;
	ir_only = 1;
	build("HloModule m\n"
	      "ENTRY e {\n"
	      "  a = f32[8]{0} parameter(0)\n"
	      "  ROOT h = f32[8]{0:S(5)} copy(a)\n"
	      "}\n",
	      &g);
	ir_only = 0;
	assert_int_equal(g.n_copies, 1);
	assert_string_equal(g.copies[0].family, "memory-space");
	gate_module_free(&g);
}

static const char *const donors_text =
	"HloModule m, input_output_alias={ {2}: (3, {}, must-alias) }, "
	"buffer_donor={ (1, {}), (0, {}), (2, {1}), (0, {}) }\n"
	"ENTRY e {\n"
	"  a = f32[16]{0} parameter(0)\n"
	"  b = f32[8]{0} parameter(1)\n"
	"  c = (f32[2]{0}, s32[4]{0}) parameter(2)\n"
	"  d = f32[4]{0} parameter(3)\n"
	"  n = f32[16]{0} negate(a)\n"
	"  g = s32[4]{0} get-tuple-element(c), index=1\n"
	"  f = f32[4]{0} bitcast-convert(g)\n"
	"  ROOT r = (f32[16]{0}, f32[4]{0}, f32[4]{0}) tuple(n, f, d)\n"
	"}\n";

static void check_donors(const struct gate_module *g)
{
	assert_int_equal(g->n_donations, 4);
	const struct gate_donation *al = donation(g, 3, "{}");
	assert_non_null(al);
	assert_string_equal(al->kind, "must-alias");
	assert_true(al->honored);
	assert_string_equal(al->output_index, "{2}");
	const struct gate_donation *a = donation(g, 0, "{}"), *b = donation(g, 1, "{}"),
				   *c = donation(g, 2, "{1}");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_string_equal(a->kind, "buffer-donor");
	assert_true(a->honored);
	assert_string_equal(a->output_index, "{0}");
	assert_int_equal(a->bytes, 64);
	assert_false(b->honored); /* 32 bytes: no output of that size */
	assert_non_null(b->reason);
	assert_non_null(strstr(b->reason, "32 bytes"));
	assert_true(c->honored); /* s32[4] gives its 16 bytes to f32[4] output {1} */
	assert_string_equal(c->output_index, "{1}");
}

/* The donation decider and the IR facts agree on which donor is honored. */
static void test_donor_matching_decided(void **state)
{
	(void)state;
	struct gate_module g;
	build(donors_text, &g);
	assert_true(g.decided_donations);
	check_donors(&g);
	assert_string_equal(donation(&g, 1, "{}")->verdict, "not-honored");
	gate_module_free(&g);
}

/* IR facts: XLA's matching (7.3), by bytes descending within a memory
 * space; aliases are honored; a duplicated donor is one donation. */
static void test_donor_matching(void **state)
{
	(void)state;
	struct gate_module g;
	ir_only = 1;
	build(donors_text, &g);
	ir_only = 0;
	assert_false(g.decided_donations);
	check_donors(&g);
	assert_null(donation(&g, 1, "{}")->verdict);
	gate_module_free(&g);
}

/* Lost and gained donations: an alias entry dropped, a donor that no longer
 * matches, a donor that became an alias (still honored: neither). */
static void test_donations_compared(void **state)
{
	(void)state;
	struct gate_module b, h;
	build("HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}), (2, {}) }\n"
	      "ENTRY e {\n"
	      "  a = f32[16]{0} parameter(0)\n"
	      "  x = f32[8]{0} parameter(1)\n"
	      "  y = f32[2]{0} parameter(2)\n"
	      "  n = f32[16]{0} negate(a)\n"
	      "  m = f32[8]{0} negate(x)\n"
	      "  ROOT r = (f32[16]{0}, f32[8]{0}) tuple(n, m)\n"
	      "}\n",
	      &b);
	build("HloModule m, input_output_alias={ {1}: (1, {}, may-alias) }, buffer_donor={ (2, {}) }\n"
	      "ENTRY e {\n"
	      "  a = f32[16]{0} parameter(0)\n"
	      "  x = f32[8]{0} parameter(1)\n"
	      "  y = f32[2]{0} parameter(2)\n"
	      "  n = f32[16]{0} negate(a)\n"
	      "  m = f32[8]{0} negate(x)\n"
	      "  z = f32[2]{0} negate(y)\n"
	      "  ROOT r = (f32[16]{0}, f32[8]{0}, f32[2]{0}) tuple(n, m, z)\n"
	      "}\n",
	      &h);
	struct gate_diff d;
	assert_int_equal(gate_compare(&b, &h, &d), 0);
	assert_int_equal(d.n_lost, 1);
	assert_int_equal(d.lost[0]->param, 0);
	assert_null(d.lost_head[0]);
	assert_int_equal(d.lost_bytes, 64);
	assert_int_equal(d.n_gained, 1); /* y's donor now finds f32[2] output {2} */
	assert_int_equal(d.gained[0]->param, 2);
	assert_string_equal(d.gained[0]->output_index, "{2}");
	assert_non_null(d.gained_base[0]);
	assert_false(d.gained_base[0]->honored);
	gate_diff_free(&d);
	gate_module_free(&b);
	gate_module_free(&h);
}

/* Honored in both, but only through a copy of the parameter in HEAD: the
 * donation is "now copied" (not lost), and the copy is added. */
static void test_donation_now_copied(void **state)
{
	(void)state;
	struct gate_module b, h;
	build("HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
	      "ENTRY main {\n"
	      "  p0 = f32[4]{0} parameter(0)\n"
	      "  a = f32[4]{0} negate(p0)\n"
	      "  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, a)\n"
	      "}\n",
	      &b);
	build("HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
	      "ENTRY main {\n"
	      "  p0 = f32[4]{0} parameter(0)\n"
	      "  cp = f32[4]{0} copy(p0)\n"
	      "  a = f32[4]{0} negate(cp)\n"
	      "  b = f32[4]{0} add(a, cp)\n"
	      "  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)\n"
	      "}\n",
	      &h);
	struct gate_diff d;
	assert_int_equal(gate_compare(&b, &h, &d), 0);
	assert_int_equal(d.n_lost, 0);
	assert_int_equal(d.n_gained, 0);
	assert_int_equal(d.n_copied, 1);
	assert_true(d.copied[0]->copied);
	assert_false(d.copied_base[0]->copied);
	assert_int_equal(d.n_added, 1);
	assert_string_equal(d.added[0]->name, "cp");
	assert_string_equal(d.added[0]->family, "donation");
	gate_diff_free(&d);
	gate_module_free(&b);
	gate_module_free(&h);
}

static void test_file_stem(void **state)
{
	(void)state;
	assert_string_equal(gate_file_stem("d/module_0006.jit_step.before_optimizations.txt"),
			    "jit_step.before_optimizations.txt");
	assert_string_equal(gate_file_stem("module_12.a.txt"), "a.txt");
	assert_string_equal(gate_file_stem("x/module_.a.txt"), "module_.a.txt");
	assert_string_equal(gate_file_stem("module_0006."), "module_0006.");
	assert_string_equal(gate_file_stem("step.hlo"), "step.hlo");
}

static void test_pairing(void **state)
{
	(void)state;
	const struct gate_input base[] = {
		{"b/module_0001.jit_f.before_optimizations.txt", "jit_f"},
		{"b/module_0001.jit_f.after_optimizations.txt", "jit_f"},
		{"b/module_0002.jit_g.after_optimizations.txt", "jit_g"},
		{"b/module_0003.jit_h.after_optimizations.txt", "jit_h"},
		{"b/module_0004.gone.txt", "gone"},
		{"b/broken.txt", NULL},
	};
	const struct gate_input head[] = {
		{"h/module_0009.jit_f.after_optimizations.txt", "jit_f"},
		{"h/module_0008.jit_f.before_optimizations.txt", "jit_f"},
		{"h/module_0007.renamed_file.txt", "jit_g"},           /* by module name */
		{"h/module_0005.jit_h.after_optimizations.txt", "jit_h_v2"}, /* by file stem */
		{"h/module_0006.new.txt", "new"},
		{"h/broken.txt", NULL},
	};
	int32_t pairs[6];
	assert_int_equal(gate_pair(base, 6, head, 6, pairs), 0);
	assert_int_equal(pairs[0], 1);
	assert_int_equal(pairs[1], 0);
	assert_int_equal(pairs[2], 2);
	assert_int_equal(pairs[3], 3);
	assert_int_equal(pairs[4], -1);
	assert_int_equal(pairs[5], -1); /* unparsed modules pair with nothing, even by stem */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_collected),
		cmocka_unit_test(test_copies_decided),
		cmocka_unit_test(test_copies_compared),
		cmocka_unit_test(test_memory_space_family),
		cmocka_unit_test(test_donor_matching),
		cmocka_unit_test(test_donor_matching_decided),
		cmocka_unit_test(test_donations_compared),
		cmocka_unit_test(test_donation_now_copied),
		cmocka_unit_test(test_file_stem),
		cmocka_unit_test(test_pairing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
