/* test_buffers.c - in-place pairs, alias sets, flags, interference, live ranges. */
#include "testutil.h"
#include "liveness.h"
#include <jansson.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fx {
	struct hlo_module *m;
	struct arena a;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *b;
	struct ordering *ord;
	struct liveness lv;
};

static void load_kind(struct fx *f, const char *text, enum order_kind kind)
{
	f->m = parse_text(text);
	arena_init(&f->a);
	struct diag d;
	diag_init(&d, stderr);
	f->df = dataflow_run(f->m, &f->a, &d);
	assert_non_null(f->df);
	f->ip = inplace_build(f->df, &f->a);
	f->b = buffers_build(f->df, f->ip, &f->a);
	f->ord = ordering_build_ex(f->m, kind, &f->a, NULL, &d);
	assert_non_null(f->ord);
	liveness_init(&f->lv, f->df, f->ip, f->ord);
}

static void load(struct fx *f, const char *text)
{
	load_kind(f, text, ORDER_DEPENDENCY);
}

static void unload(struct fx *f)
{
	arena_free(&f->a);
	hlo_module_free(f->m);
}

static const struct hlo_instruction *I(struct fx *f, const char *spec)
{
	const struct hlo_instruction *i = hlo_find_instruction_any(f->m, spec);
	if (!i)
		fail_msg("no instruction %s", spec);
	return i;
}

static int32_t sub(struct fx *f, const char *spec, int32_t n, const int32_t *idx)
{
	int32_t s = dataflow_sub(f->df, I(f, spec), idx, n);
	assert_true(s >= 0);
	return s;
}

/* the value defined at (instr, {}) */
static int32_t V(struct fx *f, const char *spec)
{
	int32_t v = dataflow_value_defined_at(f->df, I(f, spec), 0);
	if (v < 0)
		fail_msg("no value defined at %s", spec);
	return v;
}

static int32_t buf_of(struct fx *f, const char *spec)
{
	int32_t out[16];
	assert_int_equal(buffers_at(f->b, I(f, spec), 0, out), 1);
	return out[0];
}

/* pairs as "k{opidx}->{outidx}" joined by spaces */
static char *pairs_of(struct fx *f, const char *spec)
{
	static char out[512];
	const struct hlo_instruction *i = I(f, spec);
	const struct inplace_pair *p;
	int32_t n = inplace_pairs(f->ip, i, &p);
	out[0] = 0;
	for (int32_t k = 0; k < n; k++) {
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		struct shape_index si;
		char a[64], b[64], one[160];
		si.idx = idx;
		si.n = shape_tree_index(dataflow_tree(f->df, i->operands[p[k].operand]), p[k].operand_sub, idx);
		shape_index_to_string(&si, a, sizeof(a));
		si.n = shape_tree_index(dataflow_tree(f->df, i), p[k].output_sub, idx);
		shape_index_to_string(&si, b, sizeof(b));
		snprintf(one, sizeof(one), "%s%d%s->%s", k ? " " : "", p[k].operand, a, b);
		strncat(out, one, sizeof(out) - strlen(out) - 1);
	}
	return out;
}

static void test_inplace_default_ops(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
		 "ENTRY e {\n"
		 "  p = f32[8] parameter(0)\n"
		 "  q = f32[8] parameter(1)\n"
		 "  u = f32[2] parameter(2)\n"
		 "  i = s32[] parameter(3)\n"
		 "  ix = s32[2,1] parameter(4)\n"
		 "  d = f32[8] dynamic-update-slice(p, u, i)\n"
		 "  s1 = f32[8] scatter(p, ix, u), update_window_dims={}, inserted_window_dims={0}, "
		 "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n"
		 "  s2 = (f32[8], f32[8]) scatter(p, q, ix, u, u), update_window_dims={}, inserted_window_dims={0}, "
		 "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n"
		 "  ar = (f32[8], f32[8]) all-reduce-start(p, q), to_apply=add\n"
		 "  ar2 = f32[8] all-reduce-start(p), to_apply=add, backend_config={\"collective_backend_config\":{\"backend\":\"NVSHMEM\"}}\n"
		 "  cc = (f32[8], f32[2]) custom-call(p, u), custom_call_target=\"x\", output_to_operand_aliasing={{1}: (1, {})}\n"
		 "  sd = f32[8] set-dimension-size(p, i), dimensions={0}\n"
		 "  n = f32[8] negate(p)\n"
		 "  ROOT t = (f32[8], f32[8], (f32[8], f32[8]), (f32[8], f32[8]), f32[8], (f32[8], f32[2]), f32[8], f32[8]) "
		 "tuple(d, s1, s2, ar, ar2, cc, sd, n)\n"
		 "}\n");
	assert_string_equal(pairs_of(&f, "d"), "0{}->{}");
	assert_string_equal(pairs_of(&f, "s1"), "0{}->{}");
	assert_string_equal(pairs_of(&f, "s2"), "0{}->{0} 1{}->{1}");
	assert_string_equal(pairs_of(&f, "ar"), "0{}->{0} 1{}->{1}");
	assert_string_equal(pairs_of(&f, "ar2"), "");
	assert_string_equal(pairs_of(&f, "cc"), "1{}->{1}");
	assert_string_equal(pairs_of(&f, "sd"), "0{}->{}");
	assert_string_equal(pairs_of(&f, "n"), "");
	unload(&f);
}

static void test_inplace_fusion_derivation(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "inner {\n"
		 "  a = f32[8] parameter(0)\n"
		 "  b = f32[2] parameter(1)\n"
		 "  c = s32[] parameter(2)\n"
		 "  ROOT d = f32[8] dynamic-update-slice(a, b, c)\n"
		 "}\n"
		 "fc {\n"
		 "  p0 = f32[8] parameter(0)\n"
		 "  p1 = f32[2] parameter(1)\n"
		 "  p2 = s32[] parameter(2)\n"
		 "  p3 = (f32[8], f32[4]) parameter(3)\n"
		 "  p4 = f32[2,4] parameter(4)\n"
		 "  g = f32[8] get-tuple-element(p3), index=0\n"
		 "  bb = f32[8] bitcast(p4)\n"
		 "  bg = f32[8] bitcast(g)\n"
		 "  nf = f32[8] fusion(p0, p1, p2), kind=kLoop, calls=inner\n"
		 "  d2 = f32[8] dynamic-update-slice(g, p1, p2)\n"
		 "  d3 = f32[8] dynamic-update-slice(bb, p1, p2)\n"
		 "  d4 = f32[8] dynamic-update-slice(bg, p1, p2)\n"
		 "  ad = f32[8] add(p0, p0)\n"
		 "  ROOT t = (f32[8], f32[8], f32[8], f32[8], f32[8]) tuple(nf, d2, ad, d3, d4)\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  x = f32[8] parameter(0)\n"
		 "  y = f32[2] parameter(1)\n"
		 "  z = s32[] parameter(2)\n"
		 "  w = (f32[8], f32[4]) parameter(3)\n"
		 "  v = f32[2,4] parameter(4)\n"
		 "  ROOT f = (f32[8], f32[8], f32[8], f32[8], f32[8]) fusion(x, y, z, w, v), kind=kLoop, calls=fc, "
		 "output_to_operand_aliasing={{2}: (1, {})}\n"
		 "}\n");
	/* {0}: the nested fusion's DUS on parameter 0; {1}: DUS on a tuple
	 * element of parameter 3; {3}: DUS on a bitcast of parameter 4; {4}: a
	 * bitcast of a get-tuple-element is not followed (tuple indirection is
	 * stripped before the no-op wrappers, once each); {2}: the annotation */
	assert_string_equal(pairs_of(&f, "nf"), "0{}->{}");
	assert_string_equal(pairs_of(&f, "f"), "0{}->{0} 3{0}->{1} 4{}->{3} 1{}->{2}");
	unload(&f);
	/* ChainedDynamicUpdateSliceFusion: a DUS fed by another DUS is not in place */
	load(&f, "HloModule m\n"
		 "fc {\n"
		 "  p = f32[8] parameter(0)\n"
		 "  u = f32[2] constant({1, 2})\n"
		 "  i = s32[] constant(0)\n"
		 "  d1 = f32[8] dynamic-update-slice(p, u, i)\n"
		 "  ROOT d2 = f32[8] dynamic-update-slice(d1, u, i)\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  x = f32[8] parameter(0)\n"
		 "  n = f32[8] negate(x)\n"
		 "  ROOT f = f32[8] fusion(n), kind=kLoop, calls=fc\n"
		 "}\n");
	assert_string_equal(pairs_of(&f, "f"), "");
	assert_int_not_equal(buf_of(&f, "n"), buf_of(&f, "f"));
	unload(&f);
}

static void test_collective_permute_inplace(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  a = f32[8] parameter(0)\n"
		 "  b = f32[8] parameter(1)\n"
		 "  i = s32[] parameter(2)\n"
		 "  cp = f32[8] collective-permute(a, b, i, i), source_target_pairs={{0,1}}, slice_sizes={{2}}\n"
		 "  cps = (f32[8], f32[8], u32[], u32[]) collective-permute-start(a, b, i, i), source_target_pairs={{0,1}}, slice_sizes={{2}}\n"
		 "  ROOT t = (f32[8], (f32[8], f32[8], u32[], u32[])) tuple(cp, cps)\n"
		 "}\n");
	assert_string_equal(pairs_of(&f, "cp"), "1{}->{}");
	assert_string_equal(pairs_of(&f, "cps"), "1{}->{1}");
	unload(&f);
}

/* Section 4's example: buffers {p, d}, {q}, {z}, {n}. */
static void test_dus_buffers_and_flags(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  q = f32[4] parameter(1)\n"
		 "  z = s32[] constant(0)\n"
		 "  d = f32[4] dynamic-update-slice(p, q, z)\n"
		 "  ROOT n = f32[4] negate(d)\n"
		 "}\n");
	assert_int_equal(f.b->n_buffers, 4);
	assert_int_equal(buf_of(&f, "p"), buf_of(&f, "d"));
	assert_int_not_equal(buf_of(&f, "q"), buf_of(&f, "p"));
	const struct hlo_buffer *pb = &f.b->buffers[buf_of(&f, "p")];
	assert_int_equal(pb->n_values, 2);
	assert_int_equal(pb->bytes, 16);
	assert_true(pb->flags & BUF_READ_ONLY);
	assert_true(pb->flags & BUF_ENTRY_PARAM);
	assert_false(pb->flags & BUF_LIVE_OUT);
	const struct hlo_buffer *nb = &f.b->buffers[buf_of(&f, "n")];
	assert_int_equal(nb->flags, BUF_LIVE_OUT);
	assert_true(f.b->buffers[buf_of(&f, "z")].flags & BUF_READ_ONLY);
	assert_int_equal(f.b->buffers[buf_of(&f, "z")].bytes, 4);
	/* p (read-only parameter) and d share a buffer but do not interfere */
	assert_false(may_interfere(&f.lv, V(&f, "p"), V(&f, "d")));
	unload(&f);
}

static void test_io_alias_merges_and_flags(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY e {\n"
		 "  p0 = f32[4] parameter(0)\n"
		 "  p1 = f32[4] parameter(1)\n"
		 "  a = f32[4] negate(p0)\n"
		 "  b = f32[4] add(a, p0)\n"
		 "  ROOT t = (f32[4], f32[4], f32[4]) tuple(a, b, p1)\n"
		 "}\n");
	int32_t pa = buf_of(&f, "p0");
	assert_int_equal(pa, buf_of(&f, "a"));
	const struct hlo_buffer *buf = &f.b->buffers[pa];
	assert_int_equal(buf->flags, BUF_ENTRY_PARAM | BUF_ALIASED_OUTPUT | BUF_LIVE_OUT);
	assert_false(buffers_value_read_only(f.b, V(&f, "p0")));
	assert_true(buffers_value_read_only(f.b, V(&f, "p1")));
	/* p0 is still read by b after a overwrote it: interference (7.4) */
	assert_true(may_interfere(&f.lv, V(&f, "p0"), V(&f, "a")));
	int32_t x, y;
	assert_true(buffers_any_interference(&f.lv, f.b, &x, &y));
	/* root tuple: p1 at {2} is read-only and live out */
	assert_true(f.b->buffers[buf_of(&f, "p1")].flags & BUF_READ_ONLY);
	assert_true(f.b->buffers[buf_of(&f, "p1")].flags & BUF_LIVE_OUT);
	assert_true(buffers_instruction_distinct(f.b, I(&f, "t")));
	assert_false(buffers_instruction_ambiguous(f.b, I(&f, "t")));
	unload(&f);
	/* without b, a = negate(p0) may share p0's buffer (elementwise, 7.4) */
	load(&f, "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		 "ENTRY e {\n"
		 "  p0 = f32[4] parameter(0)\n"
		 "  a = f32[4] negate(p0)\n"
		 "  ROOT t = (f32[4]) tuple(a)\n"
		 "}\n");
	assert_false(buffers_any_interference(&f.lv, f.b, NULL, NULL));
	unload(&f);
}

static void test_conditional_buffers(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "b0 {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"
		 "b1 {\n  y = f32[] parameter(0)\n  ROOT e = f32[] exponential(y)\n}\n"
		 "ENTRY e {\n"
		 "  p = pred[] parameter(0)\n"
		 "  a = f32[] parameter(1)\n"
		 "  ROOT c = f32[] conditional(p, a, a), true_computation=b0, false_computation=b1\n"
		 "}\n");
	/* both branch roots and the conditional phi are one buffer */
	int32_t bc = buf_of(&f, "c");
	assert_int_equal(bc, buf_of(&f, "n"));
	assert_int_equal(bc, buf_of(&f, "e@b1"));
	assert_int_equal(f.b->buffers[bc].n_values, 3);
	/* exclusive branches never interfere; the phi is defined after both */
	assert_false(may_interfere(&f.lv, V(&f, "n"), V(&f, "e@b1")));
	assert_true(is_defined_before(&f.lv, V(&f, "n"), V(&f, "c")));
	assert_false(buffers_any_interference(&f.lv, f.b, NULL, NULL));
	unload(&f);
}

static void test_can_share_rules(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "fl {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
		 "  m = f32[4] multiply(a, b)\n  ROOT r = f32[4] negate(m)\n}\n"
		 "fr {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] reverse(a), dimensions={0}\n}\n"
		 "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  q = f32[4] parameter(1)\n"
		 "  k = f32[4] constant({1, 2, 3, 4})\n"
		 "  n = f32[4] negate(p)\n"
		 "  c = f32[4] add(k, n)\n"
		 "  f1 = f32[4] fusion(n, q), kind=kLoop, calls=fl\n"
		 "  f2 = f32[4] fusion(f1), kind=kLoop, calls=fr\n"
		 "  t = f32[2,2] reshape(f2)\n"
		 "  s = f32[4] sort(f2), dimensions={0}, to_apply=cmp\n"
		 "  ROOT o = (f32[4], f32[2,2], f32[4]) tuple(c, t, s)\n"
		 "}\n");
	const struct hlo_instruction *n = I(&f, "n"), *k = I(&f, "k"), *c = I(&f, "c");
	assert_true(can_share_operand_buffer(&f.lv, n, 0, c, 0));          /* elementwise */
	assert_false(can_share_operand_buffer(&f.lv, k, 0, c, 0));         /* constant */
	assert_true(can_share_operand_buffer(&f.lv, n, 0, I(&f, "f1"), 0)); /* loop fusion, elementwise */
	assert_false(can_share_operand_buffer(&f.lv, I(&f, "f1"), 0, I(&f, "f2"), 0)); /* reverse */
	assert_false(can_share_operand_buffer(&f.lv, I(&f, "f2"), 0, I(&f, "t"), 0));  /* shapes differ */
	/* sort: f2 has two users, so no */
	assert_false(can_share_operand_buffer(&f.lv, I(&f, "f2"), 0, I(&f, "s"), 0));
	assert_true(instr_is_elementwise_on_operand(I(&f, "f1"), 1));
	assert_false(instr_is_elementwise_on_operand(I(&f, "f2"), 0));
	unload(&f);
}

static void test_while_loop_state_no_interference(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "body {\n"
		 "  s = (s32[], f32[8]) parameter(0)\n"
		 "  i = s32[] get-tuple-element(s), index=0\n"
		 "  v = f32[8] get-tuple-element(s), index=1\n"
		 "  one = s32[] constant(1)\n"
		 "  i1 = s32[] add(i, one)\n"
		 "  v1 = f32[8] multiply(v, v)\n"
		 "  ROOT t = (s32[], f32[8]) tuple(i1, v1)\n"
		 "}\n"
		 "cond {\n"
		 "  s = (s32[], f32[8]) parameter(0)\n"
		 "  i = s32[] get-tuple-element(s), index=0\n"
		 "  lim = s32[] constant(10)\n"
		 "  ROOT lt = pred[] compare(i, lim), direction=LT\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  x = f32[8] parameter(0)\n"
		 "  zero = s32[] constant(0)\n"
		 "  init = (s32[], f32[8]) tuple(zero, x)\n"
		 "  w = (s32[], f32[8]) while(init), condition=cond, body=body\n"
		 "  ROOT r = f32[8] get-tuple-element(w), index=1\n"
		 "}\n");
	/* zero, the parameter phis, i1 and the while phi share one buffer */
	int32_t one[1] = {0};
	int32_t bz = buf_of(&f, "zero");
	assert_int_equal(bz, buf_of(&f, "i1"));
	int32_t out[4];
	assert_int_equal(buffers_at(f.b, I(&f, "w"), sub(&f, "w", 1, one), out), 1);
	assert_int_equal(out[0], bz);
	assert_int_equal(f.b->buffers[bz].n_values, 5);
	assert_false(buffers_any_interference(&f.lv, f.b, NULL, NULL));
	/* the body parameter phi is defined before everything in the body */
	int32_t sphi = dataflow_unique_value(f.df, I(&f, "s@body"), sub(&f, "s@body", 1, one));
	assert_true(f.df->values[sphi].is_phi);
	assert_true(is_defined_before(&f.lv, sphi, V(&f, "i1")));
	assert_false(is_defined_before(&f.lv, V(&f, "i1"), sphi));
	unload(&f);
}

static void test_swizzling_while_interferes(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "body {\n"
		 "  s = (f32[], f32[]) parameter(0)\n"
		 "  a = f32[] get-tuple-element(s), index=0\n"
		 "  b = f32[] get-tuple-element(s), index=1\n"
		 "  ROOT t = (f32[], f32[]) tuple(b, a)\n"
		 "}\n"
		 "cond {\n  s = (f32[], f32[]) parameter(0)\n  ROOT k = pred[] constant(false)\n}\n"
		 "ENTRY e {\n"
		 "  c1 = f32[] constant(1)\n"
		 "  c2 = f32[] constant(2)\n"
		 "  init = (f32[], f32[]) tuple(c1, c2)\n"
		 "  ROOT w = (f32[], f32[]) while(init), condition=cond, body=body\n"
		 "}\n");
	assert_int_equal(buf_of(&f, "c1"), buf_of(&f, "c2"));
	assert_true(may_interfere(&f.lv, V(&f, "c1"), V(&f, "c2")));
	assert_true(buffers_any_interference(&f.lv, f.b, NULL, NULL));
	unload(&f);
}

static void test_live_ranges(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "body {\n"
		 "  s = (f32[], f32[]) parameter(0)\n"
		 "  g0 = f32[] get-tuple-element(s), index=0\n"
		 "  g1 = f32[] get-tuple-element(s), index=1\n"
		 "  a = f32[] add(g0, g1)\n"
		 "  x = f32[] negate(a)\n"
		 "  ROOT t = (f32[], f32[]) tuple(g0, a)\n"
		 "}\n"
		 "cond {\n  s = (f32[], f32[]) parameter(0)\n  ROOT k = pred[] constant(false)\n}\n"
		 "ENTRY e {\n"
		 "  c1 = f32[] constant(1)\n"
		 "  c2 = f32[] constant(2)\n"
		 "  d = f32[] negate(c2)\n"
		 "  init = (f32[], f32[]) tuple(c1, d)\n"
		 "  w = (f32[], f32[]) while(init), condition=cond, body=body\n"
		 "  junk = f32[] negate(c1)\n"
		 "  ROOT r = f32[] get-tuple-element(w), index=1\n"
		 "}\n");
	struct live_range r;
	/* c2: defined at 1, last read by d at 2 */
	assert_true(value_live_range(f.df, V(&f, "c2"), I(&f, "c2")->parent, &r));
	assert_int_equal(r.first, 1);
	assert_int_equal(r.last, 2);
	/* c1 passes through the loop and is read by junk at 5 */
	assert_true(value_live_range(f.df, V(&f, "c1"), I(&f, "c1")->parent, &r));
	assert_int_equal(r.first, 0);
	assert_int_equal(r.last, 5);
	/* a is at the body root: live to the end of the body */
	assert_true(value_live_range(f.df, V(&f, "a"), I(&f, "a")->parent, &r));
	assert_int_equal(r.first, 3);
	assert_int_equal(r.last, 5);
	/* the value is live inside the body while the while runs */
	assert_true(value_live_at(f.df, V(&f, "c1"), I(&f, "x")));
	assert_false(value_live_at(f.df, V(&f, "c2"), I(&f, "x")));
	assert_false(value_live_at(f.df, V(&f, "c2"), I(&f, "junk")));
	/* nothing of c1 appears in cond's... it does: the parameter phi collapsed to c1 */
	assert_true(value_live_range(f.df, V(&f, "c1"), I(&f, "k")->parent, &r));
	assert_false(value_live_range(f.df, V(&f, "c2"), I(&f, "k")->parent, &r));
	unload(&f);
}

static void test_sequential_vs_dependency(void **state)
{
	(void)state;
	/* two independent negates: unordered by dependency, ordered by the schedule */
	const char *text = "HloModule m, is_scheduled=true\n"
			   "ENTRY e {\n"
			   "  p = f32[4] parameter(0)\n"
			   "  a = f32[4] negate(p)\n"
			   "  b = f32[4] exponential(p)\n"
			   "  c = f32[4] negate(a)\n"
			   "  ROOT t = (f32[4], f32[4]) tuple(c, b)\n"
			   "}\n";
	struct fx f;
	load_kind(&f, text, ORDER_DEPENDENCY);
	assert_true(may_interfere(&f.lv, V(&f, "a"), V(&f, "b")));
	unload(&f);
	load_kind(&f, text, ORDER_SEQUENTIAL);
	/* a's last use is c, which runs after b is defined: still interferes */
	assert_true(may_interfere(&f.lv, V(&f, "a"), V(&f, "b")));
	/* c is defined after a's only use (at c itself, elementwise) */
	assert_false(may_interfere(&f.lv, V(&f, "a"), V(&f, "c")));
	unload(&f);
}


/* ---- the `hloproof buffers` command (binary named by $HLOPROOF) ---- */

static const char *hloproof_bin(void)
{
	const char *h = getenv("HLOPROOF");
	return h && *h ? h : "build/hloproof";
}

static char *write_temp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/hloproof-buffers-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

/* Run the binary; returns its exit status, output in *out (malloc'd). */
static int run(const char *args, char **out)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", hloproof_bin(), args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap);
	while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += r;
		if (cap - n - 1 == 0)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = 0;
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *loop_module =
	"HloModule loop, input_output_alias={ {1}: (0, {1}, may-alias) }\n"
	"body {\n"
	"  s = (f32[], f32[4]) parameter(0)\n"
	"  a = f32[] get-tuple-element(s), index=0\n"
	"  v = f32[4] get-tuple-element(s), index=1\n"
	"  n = f32[4] negate(v)\n"
	"  ROOT t = (f32[], f32[4]) tuple(a, n)\n"
	"}\n"
	"cond {\n  s = (f32[], f32[4]) parameter(0)\n  ROOT k = pred[] constant(false)\n}\n"
	"ENTRY e {\n"
	"  p = (f32[], f32[4]) parameter(0)\n"
	"  ROOT w = (f32[], f32[4]) while(p), condition=cond, body=body\n"
	"}\n";

static void test_cmd_buffers_json(void **state)
{
	(void)state;
	char *path = write_temp(loop_module), args[256], *out;
	snprintf(args, sizeof(args), "buffers --format=json %s", path);
	assert_int_equal(run(args, &out), 0);
	json_error_t err;
	json_t *root = json_loads(out, 0, &err);
	assert_non_null(root);
	assert_int_equal(json_object_size(root), 1);
	json_t *mods = json_object_get(root, "modules");
	assert_int_equal(json_array_size(mods), 1);
	json_t *mod = json_array_get(mods, 0);
	assert_string_equal(json_string_value(json_object_get(mod, "name")), "loop");
	assert_int_equal(json_object_size(mod), 2);
	json_t *bufs = json_object_get(mod, "buffers");
	/* p{} (+ phis), p{0} (passes through), p{1} with the phis and n, k */
	assert_int_equal(json_array_size(bufs), 4);
	int found_elem1 = 0;
	for (size_t i = 0; i < json_array_size(bufs); i++) {
		json_t *b = json_array_get(bufs, i);
		assert_int_equal(json_object_size(b), 4);
		assert_int_equal(json_integer_value(json_object_get(b, "id")), (json_int_t)i);
		json_t *vals = json_object_get(b, "values");
		json_t *v0 = json_array_get(vals, 0);
		assert_int_equal(json_object_size(v0), 4);
		assert_true(json_is_array(json_object_get(v0, "live")));
		json_t *ix = json_object_get(v0, "index");
		if (!strcmp(json_string_value(json_object_get(v0, "instruction")), "p") &&
		    json_array_size(ix) == 1 && json_integer_value(json_array_get(ix, 0)) == 1) {
			found_elem1 = 1;
			/* definition order: p{1}, cond and body parameter phis, n, while phi */
			assert_int_equal(json_array_size(vals), 5);
			assert_string_equal(json_string_value(json_object_get(json_array_get(vals, 3), "instruction")), "n");
			assert_string_equal(json_string_value(json_object_get(json_array_get(vals, 4), "instruction")), "w");
			assert_int_equal(json_integer_value(json_object_get(b, "bytes")), 16);
			json_t *fl = json_object_get(b, "flags");
			char flags[128] = "";
			for (size_t k = 0; k < json_array_size(fl); k++) {
				strcat(flags, json_string_value(json_array_get(fl, k)));
				strcat(flags, " ");
			}
			/* donated: not read-only */
			assert_string_equal(flags, "entry-parameter aliased-output live-out ");
		}
	}
	assert_true(found_elem1);
	json_decref(root);
	free(out);

	/* --at lists only what is live there, one owner per buffer */
	snprintf(args, sizeof(args), "buffers --format=json --at n %s", path);
	assert_int_equal(run(args, &out), 0);
	root = json_loads(out, 0, &err);
	assert_non_null(root);
	bufs = json_object_get(json_array_get(json_object_get(root, "modules"), 0), "buffers");
	assert_true(json_array_size(bufs) >= 2 && json_array_size(bufs) < 4);
	json_decref(root);
	free(out);

	/* text output names the order used */
	snprintf(args, sizeof(args), "buffers %s", path);
	assert_int_equal(run(args, &out), 0);
	assert_non_null(strstr(out, "4 buffers"));
	assert_non_null(strstr(out, "topological"));
	free(out);
	unlink(path);
}

static void test_cmd_buffers_bad_input(void **state)
{
	(void)state;
	char *out, args[256];
	char *path = write_temp("HloModule m\nENTRY e {\n  ROOT x = f32[] negate(nope)\n}\n");
	snprintf(args, sizeof(args), "buffers %s", path);
	assert_int_equal(run(args, &out), 2);
	free(out);
	unlink(path);
	path = write_temp(loop_module);
	snprintf(args, sizeof(args), "buffers --at no_such_instr %s", path);
	assert_int_equal(run(args, &out), 2);
	free(out);
	snprintf(args, sizeof(args), "buffers --ordering=sideways %s", path);
	assert_int_equal(run(args, &out), 2);
	free(out);
	/* sequential ordering needs a schedule */
	snprintf(args, sizeof(args), "buffers --ordering=sequential %s", path);
	assert_int_equal(run(args, &out), 2);
	free(out);
	assert_int_equal(run("buffers /nonexistent/file.hlo", &out), 2);
	free(out);
	unlink(path);
}

/* ---- ported from XLA's hlo_dataflow_analysis_test.cc (SSA form) ---- */

static int interferes(struct fx *f, const char *a, const char *b)
{
	return may_interfere(&f->lv, V(f, a), V(f, b));
}

static void test_xla_elementwise_chain_and_overlap(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule ElementwiseChainInterference\n"
		 "ENTRY main {\n"
		 "  param = f32[42] parameter(0)\n"
		 "  negate = f32[42] negate(param)\n"
		 "  exp = f32[42] exponential(negate)\n"
		 "  ROOT log = f32[42] log(exp)\n"
		 "}\n");
	const char *n[] = {"param", "negate", "exp", "log"};
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (i != j)
				assert_false(interferes(&f, n[i], n[j]));
	assert_true(interferes(&f, "exp", "exp"));
	unload(&f);

	load(&f, "HloModule NonElementwiseOperand\n"
		 "ENTRY main {\n"
		 "  param = f32[42] parameter(0)\n"
		 "  exp = f32[42] exponential(param)\n"
		 "  negate = f32[42] negate(exp)\n"
		 "  ROOT reverse = f32[42] reverse(negate), dimensions={0}\n"
		 "}\n");
	assert_false(interferes(&f, "param", "exp"));
	assert_false(interferes(&f, "param", "negate"));
	assert_false(interferes(&f, "param", "reverse"));
	assert_false(interferes(&f, "exp", "negate"));
	assert_true(interferes(&f, "negate", "reverse"));
	unload(&f);

#define OVERLAP(header)                                  \
	"HloModule OverlappedValues" header "\n"          \
	"ENTRY main {\n"                                  \
	"  param = f32[42] parameter(0)\n"                \
	"  negate = f32[42] negate(param)\n"              \
	"  exp = f32[42] exponential(param)\n"            \
	"  ROOT add = f32[42] add(negate, exp)\n"         \
	"}\n"
	const char *text = OVERLAP("");
	load(&f, text);
	assert_true(interferes(&f, "param", "negate"));
	assert_true(interferes(&f, "param", "exp"));
	assert_false(interferes(&f, "param", "add"));
	assert_true(interferes(&f, "negate", "exp"));
	assert_true(interferes(&f, "exp", "negate"));
	assert_false(interferes(&f, "negate", "add"));
	assert_false(interferes(&f, "add", "negate"));
	assert_false(interferes(&f, "exp", "add"));
	assert_false(interferes(&f, "add", "exp"));
	unload(&f);
	/* sequential order param, negate, exp, add: param dies at exp */
	load_kind(&f, OVERLAP(", is_scheduled=true"), ORDER_SEQUENTIAL);
	assert_true(interferes(&f, "param", "negate"));
	assert_false(interferes(&f, "param", "exp"));
	assert_false(interferes(&f, "param", "add"));
	assert_true(interferes(&f, "negate", "exp"));
	assert_false(interferes(&f, "negate", "add"));
	assert_false(interferes(&f, "exp", "add"));
	unload(&f);
}

static void test_xla_entry_parameters_sequential(void **state)
{
	(void)state;
	struct fx f;
	load_kind(&f, "HloModule MultipleEntryParameters_Sequential, is_scheduled=true\n"
		      "ENTRY main {\n"
		      "  param0 = f32[42] parameter(0)\n"
		      "  negate = f32[42] negate(param0)\n"
		      "  param1 = f32[42] parameter(1)\n"
		      "  exp = f32[42] exponential(param1)\n"
		      "  ROOT add = f32[42] add(negate, exp)\n"
		      "}\n", ORDER_SEQUENTIAL);
	/* entry parameters are all defined at the very beginning */
	assert_true(interferes(&f, "param0", "param1"));
	assert_false(interferes(&f, "param0", "negate"));
	assert_false(interferes(&f, "param0", "exp"));
	assert_false(interferes(&f, "param0", "add"));
	assert_true(interferes(&f, "param1", "param0"));
	assert_true(interferes(&f, "param1", "negate"));
	assert_false(interferes(&f, "param1", "exp"));
	assert_false(interferes(&f, "param1", "add"));
	assert_true(interferes(&f, "negate", "exp"));
	assert_true(interferes(&f, "exp", "negate"));
	assert_false(interferes(&f, "negate", "add"));
	assert_false(interferes(&f, "add", "exp"));
	unload(&f);
}

static void test_xla_while_parameters_sequential(void **state)
{
	(void)state;
	struct fx f;
	load_kind(&f, "HloModule WhileParameters_Sequential, is_scheduled=true\n"
		      "%condition (cond_param: f32[]) -> pred[] {\n"
		      "  cond_param = f32[] parameter(0)\n"
		      "  ROOT cond_constant = pred[] constant(false)\n"
		      "}\n"
		      "%body (body_param: f32[]) -> f32[] {\n"
		      "  constant = f32[] constant(1.0)\n"
		      "  exp = f32[] exponential(constant)\n"
		      "  body_param = f32[] parameter(0)\n"
		      "  ROOT add = f32[] add(exp, body_param)\n"
		      "  dead_constant = f32[] constant(1.0)\n"
		      "  dead_negate = f32[] negate(dead_constant)\n"
		      "}\n"
		      "ENTRY main {\n"
		      "  param = f32[] parameter(0)\n"
		      "  ROOT while = f32[] while(param), condition=%condition, body=%body\n"
		      "}\n", ORDER_SEQUENTIAL);
	/* add is live out of the body: it interferes with what follows the root */
	assert_true(interferes(&f, "add", "dead_constant"));
	assert_true(interferes(&f, "add", "dead_negate"));
	/* the parameter phi is live into the body */
	int32_t bp = dataflow_value_defined_at(f.df, I(&f, "body_param"), 0);
	assert_true(bp >= 0 && f.df->values[bp].is_phi);
	assert_true(interferes(&f, "body_param", "constant"));
	assert_true(interferes(&f, "body_param", "exp"));
	assert_false(interferes(&f, "body_param", "add"));
	/* init, body phi, condition phi, body root and while phi: one buffer, no interference */
	const char *loop[] = {"param", "body_param", "cond_param", "add", "while"};
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++) {
			assert_false(interferes(&f, loop[i], loop[j]));
			assert_int_equal(buf_of(&f, loop[i]), buf_of(&f, loop[j]));
		}
	unload(&f);
}

static void test_xla_embedded_computation_interference(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule EmbeddedComputationInterference\n"
		 "embedded_computation {\n"
		 "  embedded_param = f32[42] parameter(0)\n"
		 "  ROOT embedded_log = f32[42] log(embedded_param)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  param = f32[42] parameter(0)\n"
		 "  negate = f32[42] negate(param)\n"
		 "  exp = f32[42] exponential(param)\n"
		 "  call = f32[42] call(exp), to_apply=embedded_computation\n"
		 "  ROOT add = f32[42] add(negate, call)\n"
		 "}\n");
	/* exp's only use is the call; negate is live across it */
	assert_false(interferes(&f, "exp", "embedded_log"));
	assert_true(interferes(&f, "negate", "embedded_log"));
	unload(&f);
}

static void test_xla_swizzling_while_phis(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule SwizzlingWhile\n"
		 "condition {\n"
		 "  cond_param = (f32[], f32[]) parameter(0)\n"
		 "  ROOT cond_const = pred[] constant(false)\n"
		 "}\n"
		 "body {\n"
		 "  body_param = (f32[], f32[]) parameter(0)\n"
		 "  gte0 = f32[] get-tuple-element(body_param), index=0\n"
		 "  gte1 = f32[] get-tuple-element(body_param), index=1\n"
		 "  ROOT body_root = (f32[], f32[]) tuple(gte1, gte0)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  constant1 = f32[] constant(1.0)\n"
		 "  constant2 = f32[] constant(2.0)\n"
		 "  tuple = (f32[], f32[]) tuple(constant1, constant2)\n"
		 "  ROOT while = (f32[], f32[]) while(tuple), condition=condition, body=body\n"
		 "}\n");
	const char *at[] = {"body_param", "while", "cond_param"};
	for (int k = 0; k < 3; k++)
		for (int32_t e = 0; e < 2; e++) {
			int32_t v = dataflow_value_defined_at(f.df, I(&f, at[k]), sub(&f, at[k], 1, &e));
			assert_true(v >= 0);
			assert_true(f.df->values[v].is_phi);
		}
	assert_false(f.df->values[V(&f, "constant1")].live_out);
	assert_false(f.df->values[V(&f, "constant2")].live_out);
	assert_true(f.df->values[V(&f, "while")].live_out);
	unload(&f);
	/* both elements start as the same constant: the swap is a no-op, no phi */
	load(&f, "HloModule SwizzlingWhileSharedInput\n"
		 "condition {\n"
		 "  cond_param = (f32[], f32[]) parameter(0)\n"
		 "  ROOT cond_const = pred[] constant(false)\n"
		 "}\n"
		 "body {\n"
		 "  body_param = (f32[], f32[]) parameter(0)\n"
		 "  gte0 = f32[] get-tuple-element(body_param), index=0\n"
		 "  gte1 = f32[] get-tuple-element(body_param), index=1\n"
		 "  ROOT body_root = (f32[], f32[]) tuple(gte1, gte0)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  constant1 = f32[] constant(1.0)\n"
		 "  tuple = (f32[], f32[]) tuple(constant1, constant1)\n"
		 "  ROOT while = (f32[], f32[]) while(tuple), condition=condition, body=body\n"
		 "}\n");
	int32_t e0 = 0;
	assert_int_equal(dataflow_value_defined_at(f.df, I(&f, "body_param"), sub(&f, "body_param", 1, &e0)), -1);
	unload(&f);
}

static void test_xla_conditional_values_and_uses(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule ConditionalTakingTupleOperand\n"
		 "true_computation {\n"
		 "  true_param = (f32[], f32[]) parameter(0)\n"
		 "  true_x = f32[] get-tuple-element(true_param), index=0\n"
		 "  true_y = f32[] get-tuple-element(true_param), index=1\n"
		 "  ROOT add = f32[] add(true_x, true_y)\n"
		 "}\n"
		 "false_computation {\n"
		 "  false_param = (f32[], f32[]) parameter(0)\n"
		 "  false_x = f32[] get-tuple-element(false_param), index=0\n"
		 "  false_y = f32[] get-tuple-element(false_param), index=1\n"
		 "  ROOT sub = f32[] subtract(false_x, false_y)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  my_pred = pred[] constant(true)\n"
		 "  constant1 = f32[] constant(56)\n"
		 "  constant2 = f32[] constant(12)\n"
		 "  tuple_operand = (f32[], f32[]) tuple(constant1, constant2)\n"
		 "  ROOT conditional = f32[] conditional(my_pred, tuple_operand, tuple_operand), "
		 "true_computation=true_computation, false_computation=false_computation\n"
		 "}\n");
	assert_int_equal(f.df->n_values, 7);
	assert_true(V(&f, "conditional") >= 0);
	assert_int_equal(dataflow_value_defined_at(f.df, I(&f, "true_param"), 0), -1);
	assert_int_equal(dataflow_unique_value(f.df, I(&f, "true_x"), 0), V(&f, "constant1"));
	assert_int_equal(dataflow_unique_value(f.df, I(&f, "false_y"), 0), V(&f, "constant2"));
	/* uses of constant1: the conditional at both operands {0}, add and sub */
	const struct hlo_value *c1 = &f.df->values[V(&f, "constant1")];
	assert_int_equal(c1->n_uses, 4);
	int cond_uses = 0, add_use = 0, sub_use = 0;
	for (int32_t u = 0; u < c1->n_uses; u++) {
		cond_uses += c1->uses[u].instr == I(&f, "conditional") && c1->uses[u].sub == 1;
		add_use += c1->uses[u].instr == I(&f, "add") && c1->uses[u].operand == 0;
		sub_use += c1->uses[u].instr == I(&f, "sub") && c1->uses[u].operand == 0;
	}
	assert_int_equal(cond_uses, 2);
	assert_int_equal(add_use, 1);
	assert_int_equal(sub_use, 1);
	assert_int_equal(f.df->values[V(&f, "tuple_operand")].n_uses, 6);
	unload(&f);
}

static void test_xla_can_share(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule SortCanShareWithTupleUser\n"
		 "compare {\n"
		 "  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
		 "  p2 = f32[] parameter(2)\n  p3 = f32[] parameter(3)\n"
		 "  ROOT cmp = pred[] compare(p0, p2), direction=LT\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  keys = f32[8] parameter(0)\n"
		 "  values = f32[8] parameter(1)\n"
		 "  ROOT sort = (f32[8], f32[8]) sort(keys, values), dimensions={0}, to_apply=compare\n"
		 "}\n");
	int32_t e0 = 0, e1 = 1;
	const struct hlo_instruction *keys = I(&f, "keys"), *values = I(&f, "values"), *srt = I(&f, "sort");
	assert_true(can_share_operand_buffer(&f.lv, keys, 0, srt, sub(&f, "sort", 1, &e0)));
	assert_true(can_share_operand_buffer(&f.lv, values, 0, srt, sub(&f, "sort", 1, &e1)));
	assert_false(can_share_operand_buffer(&f.lv, keys, 0, srt, sub(&f, "sort", 1, &e1)));
	assert_false(can_share_operand_buffer(&f.lv, values, 0, srt, sub(&f, "sort", 1, &e0)));
	unload(&f);

	load(&f, "HloModule FusedDotAdd\n"
		 "fused_computation {\n"
		 "  p0 = f32[2,2] parameter(0)\n  p1 = f32[2,2] parameter(1)\n  p2 = f32[2,2] parameter(2)\n"
		 "  dot = f32[2,2] dot(p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
		 "  ROOT add = f32[2,2] add(dot, p0)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  a = f32[2,2] constant({{1.0, 0.0}, {0.0, 1.0}})\n"
		 "  b = f32[2,2] constant({{2.0, 2.0}, {2.0, 2.0}})\n"
		 "  one = f32[] constant(1)\n"
		 "  add_operand = f32[2,2] broadcast(one), dimensions={}\n"
		 "  ROOT fusion = f32[2,2] fusion(add_operand, a, b), kind=kOutput, calls=fused_computation\n"
		 "}\n");
	assert_true(can_share_operand_buffer(&f.lv, I(&f, "add_operand"), 0, I(&f, "fusion"), 0));
	unload(&f);

	load(&f, "HloModule OutputFusionCantAliasOperandBuffer\n"
		 "fused_computation {\n"
		 "  p0 = f32[2,2] parameter(0)\n"
		 "  reverse = f32[2,2] reverse(p0), dimensions={0,1}\n"
		 "  two = f32[2,2] constant({{2.0, 2.0}, {2.0, 2.0}})\n"
		 "  ROOT add = f32[2,2] add(reverse, two)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  one = f32[] constant(1)\n"
		 "  operand = f32[2,2] broadcast(one), dimensions={}\n"
		 "  ROOT fusion = f32[2,2] fusion(operand), kind=kOutput, calls=fused_computation\n"
		 "}\n");
	assert_false(can_share_operand_buffer(&f.lv, I(&f, "operand"), 0, I(&f, "fusion"), 0));
	unload(&f);

	load(&f, "HloModule CallToComputationWithFusionRoot\n"
		 "fused_computation {\n"
		 "  p0 = f32[8] parameter(0)\n"
		 "  one = f32[] constant(1)\n"
		 "  ones = f32[8] broadcast(one), dimensions={}\n"
		 "  ROOT add = f32[8] add(p0, ones)\n"
		 "}\n"
		 "sub_computation {\n"
		 "  sub_param = f32[8] parameter(0)\n"
		 "  ROOT fusion = f32[8] fusion(sub_param), kind=kLoop, calls=fused_computation\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  param = f32[8] parameter(0)\n"
		 "  reverse = f32[8] reverse(param), dimensions={0}\n"
		 "  ROOT call = f32[8] call(reverse), to_apply=sub_computation\n"
		 "}\n");
	assert_true(can_share_operand_buffer(&f.lv, I(&f, "reverse"), 0, I(&f, "call"), 0));
	unload(&f);

	load(&f, "HloModule DUSFusionWithOutputOperandAliasing\n"
		 "fused_computation {\n"
		 "  p0 = f32[10] parameter(0)\n  p1 = f32[5] parameter(1)\n  p2 = s32[] parameter(2)\n"
		 "  dus = f32[10] dynamic-update-slice(p0, p1, p2)\n"
		 "  ROOT tuple = (f32[5], f32[10]) tuple(p1, dus)\n"
		 "}\n"
		 "ENTRY test {\n"
		 "  p0 = f32[10] parameter(0)\n  p1 = f32[5] parameter(1)\n  p2 = s32[] parameter(2)\n"
		 "  ROOT fusion = (f32[5], f32[10]) fusion(p0, p1, p2), kind=kLoop, "
		 "output_to_operand_aliasing={{0}: (1, {})}, calls=fused_computation\n"
		 "}\n");
	/* discovered pair first, then the annotated one */
	assert_string_equal(pairs_of(&f, "fusion"), "0{}->{1} 1{}->{0}");
	unload(&f);
}

static int uses_contain(struct fx *f, const char *val, const char *user, int32_t operand, int32_t n,
			const int32_t *idx)
{
	const struct hlo_value *v = &f->df->values[V(f, val)];
	const struct hlo_instruction *u = I(f, user);
	int32_t s = dataflow_sub(f->df, u->operands[operand], idx, n);
	for (int32_t k = 0; k < v->n_uses; k++)
		if (v->uses[k].instr == u && v->uses[k].operand == operand && v->uses[k].sub == s)
			return 1;
	return 0;
}

static void test_xla_collective_start_done(void **state)
{
	(void)state;
	struct fx f;
	int32_t i00[2] = {0, 0}, i01[2] = {0, 1}, i10[2] = {1, 0}, i11[2] = {1, 1}, one[1] = {1},
		zero[1] = {0};
	load(&f, "HloModule test\n"
		 "ENTRY entry {\n"
		 "  p0 = f32[2] parameter(0)\n"
		 "  p1 = f32[2] parameter(1)\n"
		 "  start = ((f32[2], f32[2]), (f32[2], f32[2])) collective-permute-start(p0, p1), "
		 "source_target_pairs={{0,1},{1,0}}\n"
		 "  ROOT done = (f32[2], f32[2]) collective-permute-done(start)\n"
		 "}\n");
	const struct hlo_instruction *st = I(&f, "start"), *dn = I(&f, "done");
	assert_true(dataflow_value_defined_at(f.df, st, 0) >= 0);
	assert_true(dataflow_value_defined_at(f.df, st, sub(&f, "start", 1, one)) >= 0);
	assert_true(dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i10)) >= 0);
	assert_true(dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i11)) >= 0);
	assert_true(dataflow_value_defined_at(f.df, dn, 0) >= 0);
	assert_int_equal(dataflow_value_defined_at(f.df, dn, sub(&f, "done", 1, zero)), -1);
	assert_int_equal(dataflow_unique_value(f.df, dn, sub(&f, "done", 1, zero)),
			 dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i10)));
	assert_int_equal(f.df->values[V(&f, "p0")].n_uses, 2);
	assert_true(uses_contain(&f, "p0", "start", 0, 0, NULL));
	assert_true(uses_contain(&f, "p0", "done", 0, 2, i00));
	assert_true(uses_contain(&f, "p1", "done", 0, 2, i01));
	unload(&f);

	load(&f, "HloModule test\n"
		 "ENTRY entry {\n"
		 "  p0 = f32[2] parameter(0)\n"
		 "  p1 = bf16[2] parameter(1)\n"
		 "  start = ((f32[2], bf16[2]), (f32[4], bf16[4])) all-gather-start(p0, p1), dimensions={0}\n"
		 "  ROOT done = (f32[4], bf16[4]) all-gather-done(start)\n"
		 "}\n");
	st = I(&f, "start");
	dn = I(&f, "done");
	assert_true(dataflow_value_defined_at(f.df, st, sub(&f, "start", 1, zero)) >= 0);
	assert_int_equal(dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i00)), -1);
	assert_true(dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i11)) >= 0);
	assert_true(dataflow_value_defined_at(f.df, dn, 0) >= 0);
	assert_int_equal(dataflow_unique_value(f.df, dn, sub(&f, "done", 1, one)),
			 dataflow_value_defined_at(f.df, st, sub(&f, "start", 2, i11)));
	assert_true(uses_contain(&f, "p1", "done", 0, 2, i01));
	assert_int_equal(f.df->values[V(&f, "p1")].n_uses, 2);
	unload(&f);
}

static void test_xla_phi_in_non_singleton_set(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule OptimizePhiInNonSingletonValueSets\n"
		 "subcomp {\n  sub_param = f32[] parameter(0)\n  ROOT negate = f32[] negate(sub_param)\n}\n"
		 "body {\n  ROOT body_param = f32[] parameter(0)\n}\n"
		 "condition {\n  cond_param = f32[] parameter(0)\n  ROOT cond_root = pred[] constant(false)\n}\n"
		 "ENTRY entry {\n"
		 "  constant1 = f32[] constant(1.0)\n"
		 "  constant2 = f32[] constant(2.0)\n"
		 "  while = f32[] while(constant1), condition=condition, body=body\n"
		 "  call1 = f32[] call(while), to_apply=subcomp\n"
		 "  call2 = f32[] call(constant2), to_apply=subcomp\n"
		 "  ROOT tuple = (f32[], f32[]) tuple(call1, call2)\n"
		 "}\n");
	const struct value_set *vs = dataflow_set(f.df, I(&f, "sub_param"), 0);
	assert_int_equal(vs->n, 2);
	assert_int_equal(value_set_ids(vs)[0], V(&f, "constant1"));
	assert_int_equal(value_set_ids(vs)[1], V(&f, "constant2"));
	for (int32_t v = 0; v < f.df->n_values; v++)
		assert_false(f.df->values[v].is_phi);
	unload(&f);
}

static void test_xla_does_not_use_operand_buffer(void **state)
{
	(void)state;
	struct fx f;
	int32_t zero[1] = {0}, one[1] = {1};
	load(&f, "HloModule FusedDynamicUpdateSlice\n"
		 "fused_computation {\n"
		 "  p0 = (f32[8], f32[8]) parameter(0)\n"
		 "  gte1 = f32[8] get-tuple-element(p0), index=1\n"
		 "  p1 = f32[3] parameter(1)\n"
		 "  p2 = s32[] parameter(2)\n"
		 "  ROOT dynamic_update_slice = f32[8] dynamic-update-slice(gte1, p1, p2)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  my_tuple = (f32[8], f32[8]) parameter(0)\n"
		 "  gte0 = f32[8] get-tuple-element(my_tuple), index=0\n"
		 "  starts = s32[] constant(2)\n"
		 "  update = f32[3] constant({2, 2, 2})\n"
		 "  fusion = f32[8] fusion(my_tuple, update, starts), kind=kLoop, calls=fused_computation\n"
		 "  ROOT result_tuple = (f32[8], f32[8]) tuple(gte0, fusion)\n"
		 "}\n");
	const struct hlo_instruction *t = I(&f, "my_tuple"), *fu = I(&f, "fusion");
	assert_true(does_not_use_operand_buffer(f.df, t, sub(&f, "my_tuple", 1, zero), fu));
	assert_false(does_not_use_operand_buffer(f.df, t, sub(&f, "my_tuple", 1, one), fu));
	assert_false(does_not_use_operand_buffer(f.df, t, 0, I(&f, "gte0")));
	unload(&f);

	load(&f, "HloModule MultiOutputFusionCanAliasOperandBuffer\n"
		 "fused_computation {\n"
		 "  p0 = f32[8] parameter(0)\n  p1 = f32[8] parameter(1)\n"
		 "  copy0 = f32[8] copy(p0)\n  copy1 = f32[8] copy(p1)\n"
		 "  ROOT result_tuple = (f32[8], f32[8]) tuple(copy1, copy0)\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  param0 = f32[8] parameter(0)\n  param1 = f32[8] parameter(1)\n"
		 "  ROOT fusion = (f32[8], f32[8]) fusion(param0, param1), kind=kLoop, calls=fused_computation\n"
		 "}\n");
	for (int k = 0; k < 2; k++)
		for (int32_t o = 0; o < 2; o++)
			assert_true(can_share_operand_buffer(&f.lv, I(&f, k ? "param1" : "param0"), 0,
							     I(&f, "fusion"), sub(&f, "fusion", 1, &o)));
	unload(&f);

	load(&f, "HloModule NonElementwiseLoopFusionCantAliasOperandBuffer\n"
		 "fused_computation {\n"
		 "  p0 = f32[2,2] parameter(0)\n"
		 "  neg = f32[2,2] negate(p0)\n"
		 "  ROOT reverse = f32[2,2] reverse(neg), dimensions={0,1}\n"
		 "}\n"
		 "ENTRY main {\n"
		 "  param0 = f32[2,2] parameter(0)\n"
		 "  ROOT fusion = f32[2,2] fusion(param0), kind=kLoop, calls=fused_computation\n"
		 "}\n");
	assert_false(can_share_operand_buffer(&f.lv, I(&f, "param0"), 0, I(&f, "fusion"), 0));
	unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inplace_default_ops),
		cmocka_unit_test(test_inplace_fusion_derivation),
		cmocka_unit_test(test_collective_permute_inplace),
		cmocka_unit_test(test_dus_buffers_and_flags),
		cmocka_unit_test(test_io_alias_merges_and_flags),
		cmocka_unit_test(test_conditional_buffers),
		cmocka_unit_test(test_can_share_rules),
		cmocka_unit_test(test_while_loop_state_no_interference),
		cmocka_unit_test(test_swizzling_while_interferes),
		cmocka_unit_test(test_live_ranges),
		cmocka_unit_test(test_sequential_vs_dependency),
		cmocka_unit_test(test_xla_elementwise_chain_and_overlap),
		cmocka_unit_test(test_xla_entry_parameters_sequential),
		cmocka_unit_test(test_xla_while_parameters_sequential),
		cmocka_unit_test(test_xla_embedded_computation_interference),
		cmocka_unit_test(test_xla_swizzling_while_phis),
		cmocka_unit_test(test_xla_conditional_values_and_uses),
		cmocka_unit_test(test_xla_can_share),
		cmocka_unit_test(test_xla_collective_start_done),
		cmocka_unit_test(test_xla_phi_in_non_singleton_set),
		cmocka_unit_test(test_xla_does_not_use_operand_buffer),
		cmocka_unit_test(test_cmd_buffers_json),
		cmocka_unit_test(test_cmd_buffers_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
