/* test_parse.c - the HLO parser: shapes, layouts, header, attributes, scoping,
 * call graph, and the errors it must report (with their positions). */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct hlo_instruction *I(const struct hlo_module *m, const char *spec)
{
	struct hlo_instruction *in = hlo_find_instruction_any(m, spec);
	if (!in)
		fail_msg("no instruction '%s'", spec);
	return in;
}

static const char *attr(const struct hlo_instruction *in, const char *name)
{
	for (int32_t i = 0; i < in->n_attrs; i++)
		if (strcmp(in->attrs[i].name, name) == 0)
			return in->attrs[i].value;
	return NULL;
}

static const char *shape_str(const struct shape *s)
{
	static char buf[512];
	shape_to_string(s, buf, sizeof(buf));
	return buf;
}

/* The error expected for `text`: message substring and position. */
static void want_error(const char *text, int line, int col, const char *msg)
{
	struct diag d = parse_text_error(text);
	if (!strstr(d.first, msg))
		fail_msg("error '%s' does not contain '%s'", d.first, msg);
	if (d.first_pos.line != line || d.first_pos.col != col)
		fail_msg("error '%s' at %d:%d, want %d:%d", d.first, d.first_pos.line,
			 d.first_pos.col, line, col);
	assert_int_equal(d.errors, 1); /* the first error stops parsing */
}

static void test_shapes_and_layouts(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule s\n"
		"ENTRY e {\n"
		"  a = f32[2,3]{0,1} parameter(0)\n"
		"  b = bf16[4,8] parameter(1)\n"
		"  c = f32[14,40,100]{0,2,1:T(8,128)(2,1)S(1)} parameter(2)\n"
		"  d = s4[16]{0:E(4)} parameter(3)\n"
		"  e = f32[]{:T(128)} parameter(4)\n"
		"  f = f32[<=4,?,5] parameter(5)\n"
		"  g = (f32[2]{0}, (s32[], pred[3]), token[]) parameter(6)\n"
		"  h = f8e4m3fn[8] parameter(7)\n"
		"  i = f8e5m2[8]{0} parameter(8)\n"
		"  j = c64[2] parameter(9)\n"
		"  ROOT t = () tuple()\n"
		"}\n");
	const struct shape *s = I(m, "a")->shape;
	assert_int_equal(s->type, PT_F32);
	assert_int_equal(s->rank, 2);
	assert_int_equal(s->dims[0], 2);
	assert_int_equal(s->dims[1], 3);
	assert_int_equal(s->layout.n_m2m, 2);
	assert_int_equal(s->layout.minor_to_major[0], 0);
	assert_int_equal(s->layout.minor_to_major[1], 1);
	assert_true(s->flags & SHAPE_HAS_LAYOUT);
	assert_int_equal(s->bytes, 24);
	assert_int_equal(s->elements, 6);
	assert_int_equal(shape_minor_to_major(s, 0), 0);

	s = I(m, "b")->shape; /* no layout printed: kept absent, default on demand */
	assert_int_equal(s->layout.n_m2m, -1);
	assert_false(s->flags & SHAPE_HAS_LAYOUT);
	assert_int_equal(shape_minor_to_major(s, 0), 1);
	assert_int_equal(shape_minor_to_major(s, 1), 0);
	assert_int_equal(s->bytes, 64);
	assert_string_equal(shape_str(s), "bf16[4,8]");

	s = I(m, "c")->shape;
	assert_int_equal(s->layout.n_m2m, 3);
	assert_int_equal(s->layout.minor_to_major[0], 0);
	assert_int_equal(s->layout.minor_to_major[1], 2);
	assert_int_equal(s->layout.memory_space, 1);
	assert_string_equal(s->layout.ext, "T(8,128)(2,1)S(1)");
	assert_string_equal(shape_str(s), "f32[14,40,100]{0,2,1:T(8,128)(2,1)S(1)}");

	s = I(m, "d")->shape;
	assert_int_equal(s->layout.element_size_bits, 4);
	assert_int_equal(s->bytes, 8); /* 16 elements of 4 bits */

	s = I(m, "e")->shape;
	assert_int_equal(s->rank, 0);
	assert_int_equal(s->layout.n_m2m, 0);
	assert_string_equal(s->layout.ext, "T(128)");

	s = I(m, "f")->shape;
	assert_non_null(s->dim_kinds);
	assert_int_equal(s->dim_kinds[0], DIM_BOUNDED);
	assert_int_equal(s->dims[0], 4);
	assert_int_equal(s->dim_kinds[1], DIM_UNBOUNDED);
	assert_int_equal(s->dims[1], -1);
	assert_int_equal(s->dim_kinds[2], DIM_STATIC);
	assert_string_equal(shape_str(s), "f32[<=4,?,5]");

	s = I(m, "g")->shape;
	assert_true(shape_is_tuple(s));
	assert_int_equal(s->n_elems, 3);
	assert_true(shape_is_tuple(&s->elems[1]));
	assert_int_equal(s->elems[1].n_elems, 2);
	assert_int_equal(s->elems[1].elems[1].type, PT_PRED);
	assert_int_equal(s->elems[2].type, PT_TOKEN);
	assert_int_equal(s->bytes, 24);
	assert_true(strncmp(shape_str(s), "(f32[2]{0}, (s32[], pred[3]), token", 35) == 0);

	assert_int_equal(I(m, "h")->shape->type, PT_F8E4M3FN);
	assert_int_equal(I(m, "i")->shape->type, PT_F8E5M2);
	assert_int_equal(I(m, "j")->shape->bytes, 16);
	assert_int_equal(I(m, "t")->shape->n_elems, 0);
	hlo_module_free(m);
}

static void test_shapes_are_shared(void **state)
{
	struct hlo_module *m = parse_text(
		"ENTRY e {\n"
		"  a = f32[8]{0} parameter(0)\n"
		"  b = f32[8]{0} negate(f32[8]{0} a)\n"
		"  ROOT c = f32[8] negate(b)\n"
		"}\n");
	assert_ptr_equal(I(m, "a")->shape, I(m, "b")->shape);
	assert_ptr_not_equal(I(m, "c")->shape, I(m, "a")->shape); /* different text */
	assert_true(shape_compatible(I(m, "c")->shape, I(m, "a")->shape));
	hlo_module_free(m);
	/* long tuples as XLA prints them, with index comments, are shared too
	 * (parsing each again cost megabytes on the real corpus) */
	m = parse_text(
		"ENTRY e {\n"
		"  p = (s32[], f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0}) parameter(0)\n"
		"  q = (s32[], f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0}) copy(p)\n"
		"  ROOT r = (s32[], f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0}) copy(q)\n"
		"}\n");
	assert_int_equal(I(m, "p")->shape->n_elems, 6);
	assert_ptr_equal(I(m, "p")->shape, I(m, "q")->shape);
	assert_ptr_equal(I(m, "p")->shape, I(m, "r")->shape);
	hlo_module_free(m);
	/* a layout stops at a comment; such shapes are parsed each time */
	m = parse_text(
		"ENTRY e {\n"
		"  p = f32[2]{0 /*x*/} parameter(0)\n"
		"  ROOT q = f32[2]{0 /*x*/} copy(p)\n"
		"}\n");
	assert_ptr_not_equal(I(m, "p")->shape, I(m, "q")->shape);
	assert_true(shape_equal(I(m, "p")->shape, I(m, "q")->shape));
	hlo_module_free(m);
}

/* tuple_index and parameter_number share their place: index= on anything but
 * a get-tuple-element stays a raw attribute and leaves the number alone */
static void test_index_only_for_get_tuple_element(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"ENTRY e {\n"
		"  q = f32[] parameter(0)\n"
		"  p = (f32[4], f32[2]) parameter(1), index=0\n"
		"  g = f32[2] get-tuple-element(p), index=1\n"
		"  ROOT n = f32[2] negate(g)\n"
		"}\n");
	assert_int_equal(I(m, "p")->parameter_number, 1);
	assert_string_equal(attr(I(m, "p"), "index"), "0");
	assert_ptr_equal(m->entry->params[1], I(m, "p"));
	assert_int_equal(I(m, "g")->tuple_index, 1);
	assert_int_equal(I(m, "n")->parameter_number, -1);
	assert_int_equal(I(m, "n")->tuple_index, -1);
	hlo_module_free(m);
}

static void test_header(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (1, {}, may-alias), "
		"{1}: (0, {1}, must-alias), {2}: (2, {}) }, buffer_donor={ (0, {0}) },\n"
		"    entry_computation_layout={\n"
		"    ((f32[4]{0}, f32[4]{0}), f32[4]{0}, /*index=2*/f32[4]{0})->\n"
		"    (f32[4]{0}, f32[4]{0}, f32[4]{0})}, num_partitions=4, "
		"frontend_attributes={fingerprint=\"ab\"}\n"
		"\n"
		"ENTRY main {\n"
		"  p0 = (f32[4], f32[4]) parameter(0)\n"
		"  p1 = f32[4] parameter(1)\n"
		"  p2 = f32[4] parameter(2)\n"
		"  g = f32[4] get-tuple-element(p0), index=1\n"
		"  ROOT t = (f32[4], f32[4], f32[4]) tuple(p1, g, p2)\n"
		"}\n");
	assert_string_equal(m->name, "jit_f");
	assert_true(m->has_header);
	assert_true(m->is_scheduled);
	assert_int_equal(m->n_aliases, 3);
	assert_int_equal(m->aliases[0].output.n, 1);
	assert_int_equal(m->aliases[0].output.idx[0], 0);
	assert_int_equal(m->aliases[0].param, 1);
	assert_int_equal(m->aliases[0].param_index.n, 0);
	assert_int_equal(m->aliases[0].kind, ALIAS_MAY);
	assert_int_equal(m->aliases[1].kind, ALIAS_MUST);
	assert_int_equal(m->aliases[1].param_index.idx[0], 1);
	assert_int_equal(m->aliases[2].kind, ALIAS_MAY); /* kind omitted */
	assert_int_equal(m->aliases[0].pos.line, 1);
	assert_int_equal(m->aliases[0].pos.col, 58);
	assert_int_equal(m->n_donors, 1);
	assert_int_equal(m->donors[0].param, 0);
	assert_int_equal(m->donors[0].param_index.idx[0], 0);
	assert_true(m->has_entry_layout);
	assert_int_equal(m->n_entry_layout_params, 3);
	assert_true(shape_is_tuple(m->entry_layout_params[0]));
	assert_int_equal(m->entry_layout_result->n_elems, 3);
	assert_int_equal(m->n_header_attrs, 6);
	assert_string_equal(m->header_attrs[0].name, "is_scheduled");
	assert_string_equal(m->header_attrs[0].value, "true");
	assert_string_equal(m->header_attrs[4].name, "num_partitions");
	assert_string_equal(m->header_attrs[4].value, "4");
	assert_string_equal(m->header_attrs[5].value, "{fingerprint=\"ab\"}");
	assert_int_equal(m->header_attrs[3].pos.line, 2);
	hlo_module_free(m);
}

/* XLA lexes attribute values as tokens: spaces, line breaks and comments
 * after the '=' are skipped (issue 19). */
static void test_whitespace_after_equal(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule w, is_scheduled= true, input_output_alias= { {2}: (1, {}, must-alias) },\n"
		"  buffer_donor=\n  { (0, {}) }\n"
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
		"ENTRY e {\n"
		"  p = f32[4,3] parameter(0)\n"
		"  q = f32[4,3] parameter(1)\n"
		"  t = f32[3,4] transpose(p), dimensions= {1,0}\n"
		"  z = f32[] constant(0)\n"
		"  r = f32[3] reduce(t, z), dimensions=\n      {1}, to_apply=\t%add, "
		"metadata={op_name= \"jit(f)/r\" source_line=\n 7}\n"
		"  s = f32[2,3] slice(t), slice= /* rows */ {[0:2], [0:3]}\n"
		"  ROOT o = (f32[3], f32[2,3], f32[4,3]) tuple(r, s, q), sharding= {replicated}\n"
		"}\n");
	assert_true(m->is_scheduled);
	assert_int_equal(m->n_aliases, 1);
	assert_int_equal(m->aliases[0].kind, ALIAS_MUST);
	assert_int_equal(m->aliases[0].param, 1);
	assert_int_equal(m->aliases[0].output.idx[0], 2);
	assert_int_equal(m->n_donors, 1);
	assert_int_equal(m->donors[0].param, 0);
	assert_string_equal(m->header_attrs[1].value, "{ {2}: (1, {}, must-alias) }");
	struct hlo_instruction *t = I(m, "t"), *r = I(m, "r"), *s = I(m, "s");
	assert_int_equal(t->n_dimensions, 2);
	assert_int_equal(t->dimensions[0], 1);
	assert_string_equal(attr(t, "dimensions"), "{1,0}");
	assert_int_equal(r->n_dimensions, 1);
	assert_int_equal(r->dimensions[0], 1);
	assert_ptr_equal(r->to_apply, hlo_find_computation(m, "add"));
	assert_string_equal(r->op_name, "jit(f)/r");
	assert_int_equal(r->source_line, 7);
	assert_int_equal(s->ext->n_slice, 2);
	assert_int_equal(s->ext->slice[0].limit, 2);
	assert_string_equal(attr(I(m, "o"), "sharding"), "{replicated}");
	hlo_module_free(m);
	/* nothing after the '=' is still an error, where the value should be;
	 * a space before the '=' is not an attribute (as in XLA) */
	want_error("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p), sharding=  \n}\n",
		   4, 1, "expected attribute value");
	want_error("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p), sharding= , x=1\n}\n",
		   3, 40, "expected attribute value");
	want_error("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p), sharding ={replicated}\n}\n",
		   3, 30, "expected an attribute name but found 'sharding'");
	want_error("ENTRY e {\n  ROOT c = f32[] constant(1), metadata={op_name=\"a\" source_line=  x1}\n}\n",
		   2, 67, "bad source_line 'x1'");
}

static void test_no_header_no_root_no_entry(void **state)
{
	struct hlo_module *m = parse_text(
		"%sub (a: f32[], b: f32[]) -> f32[] {\n"
		"  %a = f32[] parameter(0)\n"
		"  %b = f32[] parameter(1)\n"
		"  %s = f32[] subtract(f32[] %a, f32[] %b)\n"
		"}\n"
		"main {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] call(x, x), to_apply=%sub\n"
		"  z = f32[] negate(y)\n"
		"}\n");
	assert_string_equal(m->name, "module_main");
	assert_false(m->has_header);
	assert_string_equal(m->entry->name, "main");
	assert_true(m->entry->is_entry);
	assert_false(m->comps[0]->is_entry);
	assert_string_equal(m->comps[0]->root->name, "s");
	assert_string_equal(m->entry->root->name, "z");
	assert_false(m->entry->root->is_root); /* not printed ROOT */
	assert_true(m->comps[0]->has_signature);
	assert_false(m->entry->has_signature);
	assert_int_equal(m->comps[0]->n_params, 2);
	assert_string_equal(m->comps[0]->params[1]->name, "b");
	assert_int_equal(m->n_instrs, 6);
	assert_int_equal(I(m, "z")->gid, 5);
	assert_int_equal(I(m, "z")->index, 2);
	hlo_module_free(m);
}

static void test_operands_users_and_scoping(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule u\n"
		"ENTRY e {\n"
		"  x = f32[4]{0} parameter(0)\n"
		"  y = f32[4]{0} multiply(x, x)\n"
		"  z = f32[4]{0} add(f32[4]{0} y, /*index=1*/ f32[4] x)\n"
		"  ROOT t = (f32[4], f32[4]) tuple(\n"
		"      z,\n"
		"      y)\n"
		"}\n");
	struct hlo_instruction *x = I(m, "x"), *y = I(m, "y"), *z = I(m, "z"), *t = I(m, "t");
	assert_int_equal(y->n_operands, 2);
	assert_ptr_equal(y->operands[0], x);
	assert_ptr_equal(y->operands[1], x);
	assert_int_equal(x->n_users, 2); /* y once (distinct), then z */
	assert_ptr_equal(x->users[0], y);
	assert_ptr_equal(x->users[1], z);
	assert_int_equal(y->n_users, 2);
	assert_ptr_equal(y->users[0], z);
	assert_ptr_equal(y->users[1], t);
	assert_int_equal(t->n_users, 0);
	assert_null(t->users);
	assert_true(t->is_root);
	assert_int_equal(t->pos.line, 6);
	assert_int_equal(t->pos.col, 8);
	hlo_module_free(m);
}

static void test_names_with_and_without_percent(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule n\n"
		"ENTRY %main.1 {\n"
		"  %Arg_0.1 = f32[] parameter(0)\n"
		"  get-tuple-element.1 = f32[] negate(Arg_0.1)\n"
		"  ROOT %all-reduce.2 = f32[] negate(%get-tuple-element.1)\n"
		"}\n");
	assert_string_equal(m->entry->name, "main.1");
	assert_ptr_equal(I(m, "all-reduce.2")->operands[0], I(m, "get-tuple-element.1"));
	assert_ptr_equal(I(m, "get-tuple-element.1")->operands[0], I(m, "Arg_0.1"));
	hlo_module_free(m);
}

static void test_typed_attributes(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule a\n"
		"add (a: f32[], b: f32[]) -> f32[] {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n"
		"}\n"
		"fused {\n"
		"  p = f32[8,8] parameter(0)\n"
		"  ROOT n = f32[8,8] negate(p)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[8,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}\n"
		"  z = f32[] constant(0)\n"
		"  r = f32[8] reduce(x, z), dimensions={1}, to_apply=add, "
		"metadata={op_type=\"r\" op_name=\"jit(f)/reduce(\\'y\\',)\" source_file=\"/a/b.py\" source_line=14}\n"
		"  sl = f32[4,2] slice(x), slice={[0:8:2], [2:4]}\n"
		"  ds = f32[2,2] dynamic-slice(x, z, z), dynamic_slice_sizes={2,2}\n"
		"  f = f32[8,8] fusion(x), kind=kLoop, calls=fused, frontend_attributes={_xla_a=\"1\",b=\"x y\"}\n"
		"  cc = f32[8,8] custom-call(f, x), custom_call_target=\"Foo\\\"Bar\", "
		"operand_layout_constraints={f32[8,8]{1,0}, f32[8,8]{0,1}}, "
		"output_to_operand_aliasing={{}: (1, {})}, api_version=API_VERSION_STATUS_RETURNING, "
		"backend_config={\"k\":[1,{\"n\":\"}\"}]}\n"
		"  bc = f32[8,8] negate(cc), backend_config=\"\\000\\001\\\"x\", control-predecessors={f, r}\n"
		"  ROOT t = (f32[8], f32[4,2]) tuple(r, sl), unknown_attr={weird [stuff] (here)}\n"
		"}\n");
	struct hlo_instruction *r = I(m, "r");
	assert_int_equal(r->n_dimensions, 1);
	assert_int_equal(r->dimensions[0], 1);
	assert_ptr_equal(r->to_apply, hlo_find_computation(m, "add"));
	assert_int_equal(r->n_called, 1);
	assert_ptr_equal(r->called[0], r->to_apply);
	assert_string_equal(r->op_name, "jit(f)/reduce('y',)");
	assert_string_equal(r->source_file, "/a/b.py");
	assert_int_equal(r->source_line, 14);
	assert_int_equal(r->n_attrs, 3);
	assert_string_equal(r->attrs[0].name, "dimensions");
	assert_string_equal(r->attrs[0].value, "{1}");
	assert_string_equal(r->attrs[2].name, "metadata");
	assert_string_equal(r->attrs[2].value,
			    "{op_type=\"r\" op_name=\"jit(f)/reduce(\\'y\\',)\" source_file=\"/a/b.py\" source_line=14}");

	struct hlo_instruction *sl = I(m, "sl");
	assert_int_equal(sl->ext->n_slice, 2);
	assert_int_equal(sl->ext->slice[0].start, 0);
	assert_int_equal(sl->ext->slice[0].limit, 8);
	assert_int_equal(sl->ext->slice[0].stride, 2);
	assert_int_equal(sl->ext->slice[1].start, 2);
	assert_int_equal(sl->ext->slice[1].limit, 4);
	assert_int_equal(sl->ext->slice[1].stride, 1);

	struct hlo_instruction *ds = I(m, "ds");
	assert_int_equal(ds->ext->n_dynamic_slice_sizes, 2);
	assert_int_equal(ds->ext->dynamic_slice_sizes[1], 2);

	struct hlo_instruction *f = I(m, "f");
	assert_string_equal(f->ext->fusion_kind, "kLoop");
	assert_ptr_equal(f->ext->calls, hlo_find_computation(m, "fused"));
	assert_int_equal(f->ext->n_frontend_attrs, 2);
	assert_string_equal(f->ext->frontend_attrs[0].key, "_xla_a");
	assert_string_equal(f->ext->frontend_attrs[0].value, "1");
	assert_string_equal(f->ext->frontend_attrs[1].value, "x y");

	struct hlo_instruction *cc = I(m, "cc");
	assert_string_equal(cc->ext->custom_call_target, "Foo\"Bar");
	assert_int_equal(cc->ext->n_operand_layout_constraints, 2);
	assert_int_equal(cc->ext->operand_layout_constraints[1]->layout.minor_to_major[0], 0);
	assert_int_equal(cc->ext->n_out_aliases, 1);
	assert_int_equal(cc->ext->out_aliases[0].output.n, 0);
	assert_int_equal(cc->ext->out_aliases[0].operand, 1);
	assert_string_equal(cc->ext->backend_config, "{\"k\":[1,{\"n\":\"}\"}]}");
	assert_string_equal(attr(cc, "api_version"), "API_VERSION_STATUS_RETURNING");

	struct hlo_instruction *bc = I(m, "bc");
	assert_string_equal(bc->ext->backend_config, "\"\\000\\001\\\"x\"");
	assert_int_equal(bc->ext->n_ctrl_preds, 2);
	assert_ptr_equal(bc->ext->ctrl_preds[0], f);
	assert_ptr_equal(bc->ext->ctrl_preds[1], r);
	assert_int_equal(f->ext->n_ctrl_succs, 1);
	assert_ptr_equal(f->ext->ctrl_succs[0], bc);

	assert_string_equal(attr(I(m, "x"), "sharding"), "{devices=[4,1]<=[4]}");
	assert_string_equal(attr(I(m, "t"), "unknown_attr"), "{weird [stuff] (here)}");
	assert_int_equal(I(m, "t")->tuple_index, -1);
	assert_int_equal(I(m, "x")->parameter_number, 0);
	assert_int_equal(I(m, "z")->parameter_number, -1);
	assert_string_equal(I(m, "z")->literal, "0");
	hlo_module_free(m);
}

static void test_control_flow_and_call_graph(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule cf\n"
		"ENTRY main {\n"
		"  p = (s32[], f32[4]) parameter(0)\n"
		"  w = (s32[], f32[4]) while(p), condition=cond, body=body\n"
		"  i = s32[] get-tuple-element(w), index=0\n"
		"  k = pred[] parameter(1)\n"
		"  c = f32[4] conditional(k, w, w), true_computation=br_t, false_computation=br_f\n"
		"  n = s32[] parameter(2)\n"
		"  c2 = f32[4] conditional(n, w, w, w), branch_computations={br_t, br_f, br_t}\n"
		"  ROOT g = f32[4] get-tuple-element(w), index=1\n"
		"}\n"
		/* defined after their first use: XLA's own test modules do this */
		"cond {\n"
		"  cp = (s32[], f32[4]) parameter(0)\n"
		"  ROOT lt = pred[] constant(true)\n"
		"}\n"
		"body {\n"
		"  bp = (s32[], f32[4]) parameter(0)\n"
		"  bi = s32[] get-tuple-element(bp), index=0\n"
		"  bv = f32[4] get-tuple-element(bp), index=1\n"
		"  bf = f32[4] fusion(bv), kind=kLoop, calls=fz\n"
		"  ROOT bt = (s32[], f32[4]) tuple(bi, bf)\n"
		"}\n"
		"fz {\n"
		"  fp = f32[4] parameter(0)\n"
		"  ROOT fc = f32[4] call(fp), to_apply=leaf\n"
		"}\n"
		"leaf {\n"
		"  lp = f32[4] parameter(0)\n"
		"  ROOT ln = f32[4] negate(lp)\n"
		"}\n"
		"br_t {\n"
		"  tp = (s32[], f32[4]) parameter(0)\n"
		"  ROOT tg = f32[4] get-tuple-element(tp), index=1\n"
		"}\n"
		"br_f {\n"
		"  fp2 = (s32[], f32[4]) parameter(0)\n"
		"  ROOT f1 = f32[4] fusion(fp2), kind=kLoop, calls=fz\n"
		"}\n");
	/* the ENTRY mark wins over "last computation" */
	assert_string_equal(m->entry->name, "main");
	struct hlo_instruction *w = I(m, "w@main");
	assert_ptr_equal(w->ext->condition, hlo_find_computation(m, "cond"));
	assert_ptr_equal(w->ext->body, hlo_find_computation(m, "body"));
	assert_int_equal(w->n_called, 2);
	struct hlo_instruction *c = I(m, "c");
	assert_int_equal(c->ext->n_branches, 2);
	assert_string_equal(c->ext->branches[0]->name, "br_t");
	assert_string_equal(c->ext->branches[1]->name, "br_f");
	struct hlo_instruction *c2 = I(m, "c2");
	assert_int_equal(c2->ext->n_branches, 3);
	assert_string_equal(c2->ext->branches[2]->name, "br_t");
	assert_int_equal(I(m, "g")->tuple_index, 1);

	const struct hlo_computation *body = hlo_find_computation(m, "body");
	assert_int_equal(body->n_callers, 1);
	assert_ptr_equal(body->callers[0].instr, w);
	assert_int_equal(body->callers[0].context, CALL_CONTROL_FLOW);
	assert_int_equal(body->context, CALL_CONTROL_FLOW);
	const struct hlo_computation *brt = hlo_find_computation(m, "br_t");
	assert_int_equal(brt->n_callers, 2); /* c and c2, one callsite each */
	const struct hlo_computation *fz = hlo_find_computation(m, "fz");
	assert_int_equal(fz->n_callers, 2);
	assert_int_equal(fz->callers[0].context, CALL_EMBEDDED);
	assert_int_equal(fz->context, CALL_EMBEDDED);
	/* a call inside an embedded computation is embedded too */
	assert_int_equal(hlo_find_computation(m, "leaf")->context, CALL_EMBEDDED);
	assert_int_equal(m->entry->context, CALL_CONTROL_FLOW);
	assert_int_equal(m->entry->n_callers, 0);

	assert_ptr_equal(I(m, "bp@body"), body->params[0]);
	assert_ptr_equal(I(m, "g@entry"), m->entry->root);
	assert_null(hlo_find_instruction_any(m, "g@nosuch"));
	assert_null(hlo_find_instruction_any(m, "nosuch"));
	hlo_module_free(m);
}

static void test_both_contexts(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule b\n"
		"add {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n"
		"}\n"
		"ENTRY main {\n"
		"  x = f32[] parameter(0)\n"
		"  v = f32[4] parameter(1)\n"
		"  c = f32[] call(x, x), to_apply=add\n"
		"  ROOT r = f32[] reduce(v, c), dimensions={0}, to_apply=add\n"
		"}\n");
	const struct hlo_computation *add = hlo_find_computation(m, "add");
	assert_int_equal(add->n_callers, 2);
	assert_int_equal(add->context, CALL_BOTH);
	hlo_module_free(m);
}

static void test_async_sugar_and_constants(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule s, is_scheduled=true\n"
		"wrapped {\n"
		"  wp = f32[4] parameter(0)\n"
		"  ROOT wn = f32[4] negate(wp)\n"
		"}, execution_thread=\"side\"\n"
		"ENTRY main {\n"
		"  x = f32[4]{0} parameter(0)\n"
		"  s = ((f32[4]{0}), f32[4]{0}) all-to-all-start(f32[4]{0} x), channel_id=1, "
		"replica_groups={{0,1}}, dimensions={0}, backend_config={\"operation_queue_id\":\"0\"}\n"
		"  d = f32[4]{0} all-to-all-done(((f32[4]{0}), f32[4]{0}) s)\n"
		"  ars = f32[4] all-reduce-start(d), to_apply=add\n"
		"  ard = f32[4] all-reduce-done(ars)\n"
		"  as = ((f32[4]), f32[4], u32[]) async-start(ard), calls=wrapped\n"
		"  ad = f32[4] async-done(as), calls=wrapped\n"
		"  big = f32[2,2] constant({...})\n"
		"  cx = c64[] constant((1.1, 0))\n"
		"  m2 = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })\n"
		"  ROOT t = (f32[4], f32[2,2]) tuple(ad, big)\n"
		"}\n"
		"add {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT r = f32[] add(a, b)\n"
		"}\n");
	struct hlo_instruction *s = I(m, "s"), *d = I(m, "d");
	assert_int_equal(s->opcode, OP_ASYNC_START);
	assert_int_equal(s->async_wrapped_opcode, OP_ALL_TO_ALL);
	assert_string_equal(hlo_opcode_text(s), "all-to-all-start");
	assert_int_equal(d->opcode, OP_ASYNC_DONE);
	assert_int_equal(d->async_wrapped_opcode, OP_ALL_TO_ALL);
	assert_true(shape_is_tuple(d->operands[0]->shape));
	assert_int_equal(I(m, "ars")->opcode, OP_ALL_REDUCE_START); /* registered wins */
	assert_int_equal(I(m, "ars")->async_wrapped_opcode, 0);
	assert_string_equal(hlo_opcode_text(I(m, "ars")), "all-reduce-start");
	assert_int_equal(I(m, "as")->opcode, OP_ASYNC_START);
	assert_int_equal(hlo_find_computation(m, "wrapped")->context, CALL_CONTROL_FLOW);
	assert_string_equal(hlo_find_computation(m, "wrapped")->execution_thread, "side");
	assert_null(m->entry->execution_thread);
	assert_string_equal(I(m, "big")->literal, "{...}");
	assert_string_equal(I(m, "cx")->literal, "(1.1, 0)");
	assert_string_equal(I(m, "m2")->literal, "{ { 1, 2 }, { 3, 4 } }");
	hlo_module_free(m);
}

static void test_async_done_inherits_calls(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule a\n"
		"wrapped {\n"
		"  wp = f32[4] parameter(0)\n"
		"  ROOT wn = f32[4] negate(wp)\n"
		"}\n"
		"ENTRY main {\n"
		"  x = f32[4] parameter(0)\n"
		"  as = ((f32[4]), f32[4], u32[]) async-start(x), calls=wrapped\n"
		"  au = ((f32[4]), f32[4], u32[]) async-update(as)\n"
		"  ROOT ad = f32[4] async-done(au)\n"
		"}\n");
	const struct hlo_computation *w = hlo_find_computation(m, "wrapped");
	assert_ptr_equal(I(m, "ad")->ext->calls, w);
	assert_int_equal(I(m, "ad")->n_called, 1);
	assert_ptr_equal(I(m, "au")->ext->calls, w);
	assert_int_equal(w->n_callers, 3);
	assert_int_equal(w->context, CALL_CONTROL_FLOW);
	hlo_module_free(m);
	want_error("ENTRY main {\n  x = f32[4] parameter(0)\n  ROOT d = f32[4] async-done(x, x)\n}\n", 3, 19,
		   "async-done takes one operand, not 2");
}

static void test_inferred_shapes(void **state)
{
	struct hlo_module *m = parse_text(
		"ENTRY main {\n"
		"  p = (f32[2], s32[]) parameter(0)\n"
		"  g = get-tuple-element(p), index=1\n"
		"  ROOT t = tuple(g, p)\n"
		"}\n");
	assert_false(I(m, "g")->has_result_shape);
	assert_int_equal(I(m, "g")->shape->type, PT_S32);
	assert_string_equal(shape_str(I(m, "t")->shape), "(s32[], (f32[2], s32[]))");
	hlo_module_free(m);
}

static void test_stack_frames(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule sf\n"
		"\n"
		"FileNames\n"
		"1 \"a.py\"\n"
		"2 \"<embedded \\'x\\'>\"\n"
		"\n"
		"FunctionNames\n"
		"1 \"f\"\n"
		"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=2 end_column=9}\n"
		"\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=1}\n"
		"\n"
		"ENTRY main {\n"
		"  ROOT c = f32[] constant(1), metadata={op_name=\"c\" stack_frame_id=1}\n"
		"}\n");
	assert_non_null(m->stack_frames);
	assert_true(strncmp(m->stack_frames, "FileNames\n1 \"a.py\"", 18) == 0);
	size_t n = strlen(m->stack_frames);
	assert_string_equal(m->stack_frames + n - 40, "1 {file_location_id=1 parent_frame_id=1}");
	assert_string_equal(I(m, "c")->op_name, "c");
	hlo_module_free(m);
}

static void test_alias_validation(void **state)
{
	/* sizes differ but no layout is printed: XLA compares sizes only after
	 * layout assignment, so this config is valid (as in XLA's own tests) */
	struct hlo_module *m = parse_text(
		"HloModule v, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}) }\n"
		"ENTRY main {\n"
		"  a = f32[8] parameter(0)\n"
		"  b = s32[] parameter(1)\n"
		"  c = pred[] constant(true)\n"
		"  ROOT t = (pred[]) tuple(c)\n"
		"}\n");
	assert_int_equal(m->n_aliases, 1);
	assert_int_equal(m->n_donors, 1);
	hlo_module_free(m);
	/* with layouts in entry_computation_layout the sizes must agree */
	want_error("HloModule v, input_output_alias={ {0}: (0, {}, may-alias) }, "
		   "entry_computation_layout={(f32[8]{0})->(pred[])}\n"
		   "ENTRY main {\n  a = f32[8] parameter(0)\n  c = pred[] constant(true)\n"
		   "  ROOT t = (pred[]) tuple(c)\n}\n",
		   1, 35, "size mismatch: output {0} is 1 bytes but parameter 0 at {} is 32 bytes");
	/* the entry_computation_layout shapes are the ones checked */
	want_error("HloModule v, input_output_alias={ {0}: (0, {2}, may-alias) }, "
		   "entry_computation_layout={((f32[2]{0}, s32[]))->(f32[2])}\n"
		   "ENTRY main {\n  a = (f32[2], s32[]) parameter(0)\n  g = f32[2] get-tuple-element(a), index=0\n"
		   "  ROOT t = (f32[2]) tuple(g)\n}\n",
		   1, 35, "input_output_alias parameter index {2} is not valid");
	/* a donor leaf that is also aliased */
	want_error("HloModule v, input_output_alias={ {0}: (0, {}) }, buffer_donor={ (0, {}) }\n"
		   "ENTRY main {\n  a = f32[2] parameter(0)\n  ROOT t = (f32[2]) tuple(a)\n}\n",
		   1, 66, "buffer_donor parameter 0 at {} is also an input_output_alias source");
	/* a donor on a tuple-shaped parameter */
	want_error("HloModule v, buffer_donor={ (0, {}) }\n"
		   "ENTRY main {\n  a = (f32[2]) parameter(0)\n  ROOT g = f32[2] get-tuple-element(a), index=0\n}\n",
		   1, 29, "buffer_donor parameter 0 at {} is not an array");
}

static void test_errors(void **state)
{
	/* computation references are resolved at the end; the message still
	 * points at the name (a second one, after a newline in the value) */
	want_error("b {\n  ROOT p = f32[] parameter(0)\n}\n\nENTRY e {\n  x = f32[] parameter(0)\n"
		   "  c = pred[] constant(true)\n"
		   "  ROOT r = f32[] conditional(c, x, x), branch_computations={b,\n      nosuch}\n}\n",
		   9, 7, "use of undefined computation 'nosuch'");
	want_error("HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] add(x, q)\n}\n",
		   4, 25, "use of undefined instruction 'q'");
	want_error("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x), dimensions={0}, dimensions={1}\n}\n",
		   3, 45, "duplicate attribute 'dimensions'");
	want_error("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(f32[] negate(x))\n}\n",
		   3, 31, "nested instruction 'negate' as an operand is not supported");
	want_error("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x) dimensions={0}\n}\n",
		   3, 28, "expected ',' or an instruction but found 'dimensions='");
	want_error("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x), 7\n}\n",
		   3, 29, "expected an attribute name but found '7'");
	want_error("ENTRY e {\n  x = f32[3 parameter(0)\n}\n", 2, 13,
		   "expected ',' or ']' in dimensions but found 'parameter'");
	want_error("ENTRY e {\n  x = f32[-3] parameter(0)\n}\n", 2, 11, "dimension -3 is out of range");
	want_error("ENTRY e {\n  x = f32[99999999999999999999] parameter(0)\n}\n", 2, 11,
		   "integer '99999999999999999999' is out of range");
	want_error("ENTRY e (a: f32[]) -> f32[] {\n  ROOT c = f32[] constant(1)\n}\n", 1, 7,
		   "computation 'e' declares 1 parameters but has 0");
	want_error("ENTRY e {\n  ROOT c = f32[] constant()\n}\n", 2, 18, "constant without a literal");
	want_error("ENTRY e {\n  x = (f32[], s32[]) parameter(0)\n  ROOT g = get-tuple-element(x)\n}\n",
		   3, 12, "get-tuple-element without index=");
	want_error("ENTRY e {\n  ROOT c = f32[] constant(1), metadata={op_name=\"a\" source_line=x1}\n}\n",
		   2, 65, "bad source_line 'x1'");
	want_error("ENTRY e {\n  ROOT c = f32[] constant(1), slice={[0:1}\n}\n", 2, 42,
		   "expected ']' but found '}'");
	want_error("ENTRY e {\n  ROOT c = f32[] constant(1), index=x\n}\n", 2, 37,
		   "expected an integer but found 'x'");
	want_error("ENTRY e {\n  ROOT c = f32[2]{1:T(8)} constant(1)\n}\n", 2, 19,
		   "layout entry 1 is not a dimension of a rank-1 shape");
	want_error("ENTRY e {\n  ROOT c = f32[2]{0:Q} constant(1)\n}\n", 2, 18, "malformed layout 'Q'");
	want_error("HloModule m, is_scheduled=maybe\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n", 1, 27,
		   "expected 'true' or 'false' but found 'maybe'");
	want_error("HloModule m\n", 2, 1, "expected a computation but found end of input");
	want_error("   \n\t\n", 1, 1, "empty input");
	want_error("ENTRY e {\n  ROOT c = f32[] constant(1)\n} junk\n", 4, 1,
		   "expected '{' to start the computation body but found end of input");
	want_error("HloModule m, input_output_alias={ {0}: (0, {}, maybe-alias) }\n"
		   "ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n", 1, 48,
		   "expected 'may-alias' or 'must-alias' but found 'maybe-alias'");
	want_error("HloModule m, entry_computation_layout={(f32[2])->f32[3]}\n"
		   "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT c = f32[2] negate(p)\n}\n", 1, 14,
		   "entry_computation_layout result is f32[3] but the root of 'e' is f32[2]");
}

static void test_nesting_and_limits(void **state)
{
	/* deep tuple nesting is rejected, not a stack overflow */
	char text[4096];
	int n = 0;
	n += snprintf(text + n, sizeof(text) - (size_t)n, "ENTRY e {\n  ROOT p = ");
	for (int i = 0; i < 200; i++)
		text[n++] = '(';
	n += snprintf(text + n, sizeof(text) - (size_t)n, "f32[]");
	for (int i = 0; i < 200; i++)
		text[n++] = ')';
	snprintf(text + n, sizeof(text) - (size_t)n, " parameter(0)\n}\n");
	struct diag d = parse_text_error(text);
	assert_string_equal(d.first, "shape nested deeper than 64");

	/* 64 levels of tuple is still fine */
	n = snprintf(text, sizeof(text), "ENTRY e {\n  ROOT p = ");
	for (int i = 0; i < 63; i++)
		text[n++] = '(';
	n += snprintf(text + n, sizeof(text) - (size_t)n, "f32[]");
	for (int i = 0; i < 63; i++)
		text[n++] = ')';
	snprintf(text + n, sizeof(text) - (size_t)n, " parameter(0)\n}\n");
	struct hlo_module *m = parse_text(text);
	hlo_module_free(m);

	/* NUL byte */
	struct diag d2;
	diag_init(&d2, NULL);
	const char bin[] = "ENTRY e {\n  ROOT c = f32[] constant(1)\0\n}\n";
	assert_null(hlo_parse("<bin>", bin, sizeof(bin) - 1, &d2));
	assert_string_equal(d2.first, "input contains a NUL byte (binary file?)");
	assert_int_equal(d2.first_pos.line, 2);
	assert_int_equal(d2.first_pos.col, 29);
}

static void test_parse_file(void **state)
{
	struct diag d;
	diag_init(&d, NULL);
	assert_null(hlo_parse_file("/nonexistent/x.hlo", &d));
	assert_true(strstr(d.first, "cannot open") != NULL);
	struct hlo_module *m = hlo_parse_file("corpus/demo/step.hlo", &d);
	assert_non_null(m);
	assert_string_equal(m->name, "step");
	assert_string_equal(m->file, "corpus/demo/step.hlo");
	assert_string_equal(I(m, "w")->pos.file, "corpus/demo/step.hlo");
	assert_int_equal(m->source_len, strlen(m->source));
	hlo_module_free(m);
}

/* The parser reuses one scratch list for frontend attributes (16-byte
 * entries) and output_to_operand_aliasing (40-byte entries): the second use
 * must not take the first one's capacity for its own (it overran the heap). */
static void test_scratch_list_reuse(void **state)
{
	char text[4096], *p = text;
	p += sprintf(p, "ENTRY e {\n  p = f32[] parameter(0)\n"
			"  a = f32[] add(p, p), frontend_attributes={x=\"1\"}\n  ROOT c = (");
	for (int i = 0; i < 40; i++)
		p += sprintf(p, "%sf32[]", i ? ", " : "");
	p += sprintf(p, ") custom-call(p), custom_call_target=\"t\", output_to_operand_aliasing={");
	for (int i = 0; i < 40; i++)
		p += sprintf(p, "%s{%d}: (0, {})", i ? ", " : "", i);
	sprintf(p, "}\n}\n");
	struct hlo_module *m = parse_text(text);
	const struct hlo_instruction *c = I(m, "c");
	assert_int_equal(c->ext->n_out_aliases, 40);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(c->ext->out_aliases[i].output.n, 1);
		assert_int_equal(c->ext->out_aliases[i].output.idx[0], i);
		assert_int_equal(c->ext->out_aliases[i].operand, 0);
		assert_int_equal(c->ext->out_aliases[i].operand_index.n, 0);
	}
	assert_int_equal(I(m, "a")->ext->n_frontend_attrs, 1);
	assert_string_equal(I(m, "a")->ext->frontend_attrs[0].value, "1");
	hlo_module_free(m);
}

/* Files of one page and around it (a page multiple has no zero byte after a
 * mapped text): the text arrives whole and NUL-terminated, and a token that
 * runs into the end of the file stops there. */
static void test_parse_file_sizes(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *body = "ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n";
	char path[] = "/tmp/hloproof-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	for (long size = page - 1; size <= 2 * page + 1; size++) {
		if (size > page + 1 && size < 2 * page - 1)
			continue;
		for (int tail = 0; tail < 2; tail++) {
			/* the text, a comment filling up to size, then "}" or "xyz" */
			size_t bl = strlen(body), n = (size_t)size;
			char *buf = malloc(n);
			assert_non_null(buf);
			memcpy(buf, body, bl);
			memcpy(buf + bl, "//", 2);
			memset(buf + bl + 2, 'x', n - bl - 2);
			buf[n - 4] = '\n';
			memcpy(buf + n - 3, tail ? "xyz" : "// ", 3);
			assert_int_equal(ftruncate(fd, 0), 0);
			assert_int_equal(pwrite(fd, buf, n, 0), (ssize_t)n);
			struct diag d;
			diag_init(&d, NULL);
			struct hlo_module *m = hlo_parse_file(path, &d);
			if (tail) {
				/* "xyz" is lexed whole as a computation name */
				assert_null(m);
				assert_non_null(strstr(d.first, "but found end of input"));
				assert_int_equal(d.first_pos.col, 4);
			} else {
				assert_non_null(m);
				assert_int_equal(m->source_len, n);
				assert_int_equal(strlen(m->source), n);
				assert_memory_equal(m->source, buf, n);
				assert_string_equal(m->entry->root->literal, "1");
				hlo_module_free(m);
			}
			free(buf);
		}
	}
	close(fd);
	unlink(path);
}

static void test_opcode_table(void **state)
{
	assert_int_equal(opcode_from_name("add", 3), OP_ADD);
	assert_int_equal(opcode_from_name("get-tuple-element", 17), OP_GET_TUPLE_ELEMENT);
	assert_int_equal(opcode_from_name("addx", 3), OP_ADD);
	assert_int_equal(opcode_from_name("nope", 4), OP_UNKNOWN);
	for (int i = 1; i < OP_COUNT; i++) {
		const char *s = opcode_name((enum opcode)i);
		assert_int_equal(opcode_from_name(s, strlen(s)), i);
	}
	assert_true(opcode_flags(OP_ADD) & OPF_E);
	assert_false(opcode_flags(OP_DOT) & OPF_E);
	assert_string_equal(opcode_name(OP_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_and_layouts),
		cmocka_unit_test(test_shapes_are_shared),
		cmocka_unit_test(test_index_only_for_get_tuple_element),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_whitespace_after_equal),
		cmocka_unit_test(test_no_header_no_root_no_entry),
		cmocka_unit_test(test_operands_users_and_scoping),
		cmocka_unit_test(test_names_with_and_without_percent),
		cmocka_unit_test(test_typed_attributes),
		cmocka_unit_test(test_control_flow_and_call_graph),
		cmocka_unit_test(test_both_contexts),
		cmocka_unit_test(test_async_sugar_and_constants),
		cmocka_unit_test(test_async_done_inherits_calls),
		cmocka_unit_test(test_inferred_shapes),
		cmocka_unit_test(test_stack_frames),
		cmocka_unit_test(test_alias_validation),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nesting_and_limits),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_parse_file_sizes),
		cmocka_unit_test(test_scratch_list_reuse),
		cmocka_unit_test(test_opcode_table),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
