/* test_values.c - dataflow values per opcode family (hlo-semantics.md section 2). */
#include "testutil.h"
#include "values.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fx {
	struct hlo_module *m;
	struct arena a;
	struct dataflow *df;
};

static void load(struct fx *f, const char *text)
{
	f->m = parse_text(text);
	arena_init(&f->a);
	struct diag d;
	diag_init(&d, stderr);
	f->df = dataflow_run(f->m, &f->a, &d);
	assert_non_null(f->df);
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

/* "name{idx}" of a value, with " phi" for phis; computation added when not entry. */
static void value_name(struct fx *f, int32_t v, char *buf, size_t cap)
{
	const struct hlo_value *val = &f->df->values[v];
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	struct shape_index si = {dataflow_value_index(f->df, val, idx), idx};
	char ix[64];
	shape_index_to_string(&si, ix, sizeof(ix));
	snprintf(buf, cap, "%s%s%s%s%s", val->def->name, val->def->parent->is_entry ? "" : "@",
		 val->def->parent->is_entry ? "" : val->def->parent->name, ix, val->is_phi ? " phi" : "");
}

/* The value set at (instr, index) as "a{},b{0} phi" in id order. */
static char *set_at(struct fx *f, const char *spec, int32_t n, ...)
{
	static char out[1024];
	int32_t idx[8];
	va_list ap;
	va_start(ap, n);
	for (int32_t k = 0; k < n; k++)
		idx[k] = va_arg(ap, int32_t);
	va_end(ap);
	const struct hlo_instruction *i = I(f, spec);
	int32_t sub = dataflow_sub(f->df, i, idx, n);
	assert_true(sub >= 0);
	const struct value_set *vs = dataflow_set(f->df, i, sub);
	out[0] = 0;
	for (int32_t k = 0; k < vs->n; k++) {
		char nm[128];
		value_name(f, value_set_ids(vs)[k], nm, sizeof(nm));
		if (k)
			strcat(out, ",");
		strncat(out, nm, sizeof(out) - strlen(out) - 1);
	}
	return out;
}

/* Uses of the unique value at (instr, sub 0) as "user:operand{idx}" joined by spaces. */
static char *uses_of(struct fx *f, const char *spec)
{
	static char out[1024];
	int32_t v = dataflow_unique_value(f->df, I(f, spec), 0);
	assert_true(v >= 0);
	const struct hlo_value *val = &f->df->values[v];
	out[0] = 0;
	for (int32_t u = 0; u < val->n_uses; u++) {
		char one[128], ix[64];
		const struct value_use *use = &val->uses[u];
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		struct shape_index si = {
			shape_tree_index(dataflow_tree(f->df, use->instr->operands[use->operand]), use->sub, idx),
			idx};
		shape_index_to_string(&si, ix, sizeof(ix));
		snprintf(one, sizeof(one), "%s%s:%d%s", u ? " " : "", use->instr->name, use->operand, ix);
		strncat(out, one, sizeof(out) - strlen(out) - 1);
	}
	return out;
}

static int32_t count_values_defined_by(struct fx *f, const char *spec)
{
	const struct hlo_instruction *i = I(f, spec);
	int32_t n = 0;
	for (int32_t v = 0; v < f->df->n_values; v++)
		n += f->df->values[v].def == i;
	return n;
}

static void test_tuple_gte(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p0 = f32[4] parameter(0)\n"
		 "  p1 = f32[4] parameter(1)\n"
		 "  in = (f32[4], f32[4]) tuple(p1, p0)\n"
		 "  t = (f32[4], (f32[4], f32[4])) tuple(p0, in)\n"
		 "  g = (f32[4], f32[4]) get-tuple-element(t), index=1\n"
		 "  g1 = f32[4] get-tuple-element(g), index=1\n"
		 "  ROOT n = f32[4] negate(g1)\n"
		 "}\n");
	assert_string_equal(set_at(&f, "t", 0), "t{}");
	assert_string_equal(set_at(&f, "t", 1, 0), "p0{}");
	assert_string_equal(set_at(&f, "t", 2, 1, 0), "p1{}");
	assert_string_equal(set_at(&f, "t", 2, 1, 1), "p0{}");
	assert_string_equal(set_at(&f, "g", 0), "in{}");
	assert_string_equal(set_at(&f, "g1", 0), "p0{}");
	assert_int_equal(count_values_defined_by(&f, "g"), 0);
	assert_int_equal(count_values_defined_by(&f, "g1"), 0);
	/* p0 is read only by the negate (tuple and gte forward it) */
	assert_string_equal(uses_of(&f, "p0"), "n:0{}");
	/* tuples are read at their top level by get-tuple-element only */
	assert_string_equal(uses_of(&f, "t"), "g:0{}");
	assert_string_equal(uses_of(&f, "in"), "g1:0{}");
	assert_false(f.df->values[dataflow_unique_value(f.df, I(&f, "n"), 0)].live_out == 0);
	unload(&f);
}

static void test_bitcast_copy_domain_barrier(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p = (f32[4], f32[2,2]) parameter(0)\n"
		 "  c = (f32[4], f32[2,2]) copy(p)\n"
		 "  d = (f32[4], f32[2,2]) domain(c), domain={kind=\"sharding\", entry={maximal device=0}, exit={maximal device=1}}\n"
		 "  b = (f32[4], f32[2,2]) opt-barrier(d)\n"
		 "  x = f32[2,2] get-tuple-element(b), index=1\n"
		 "  y = f32[4] bitcast(x)\n"
		 "  z = f32[4] add-dependency(y, p)\n"
		 "  ROOT r = f32[4] negate(z)\n"
		 "}\n");
	/* copy defines only its top level */
	assert_string_equal(set_at(&f, "c", 0), "c{}");
	assert_string_equal(set_at(&f, "c", 1, 1), "p{1}");
	assert_int_equal(count_values_defined_by(&f, "c"), 1);
	/* domain and opt-barrier forward every index including the top */
	assert_string_equal(set_at(&f, "d", 0), "c{}");
	assert_string_equal(set_at(&f, "b", 0), "c{}");
	assert_string_equal(set_at(&f, "b", 1, 0), "p{0}");
	/* bitcast and add-dependency define nothing */
	assert_string_equal(set_at(&f, "y", 0), "p{1}");
	assert_string_equal(set_at(&f, "z", 0), "p{1}");
	assert_int_equal(count_values_defined_by(&f, "y"), 0);
	assert_int_equal(count_values_defined_by(&f, "z"), 0);
	/* p{1}: the copy (nested), domain and get-tuple-element (nested) pass it
	 * through; add-dependency reads its operand 1 (all of p), opt-barrier,
	 * bitcast, add-dependency again (operand 0) and negate read it */
	int32_t v = dataflow_unique_value(f.df, I(&f, "x"), 0);
	const struct hlo_value *val = &f.df->values[v];
	char buf[256] = "";
	for (int32_t u = 0; u < val->n_uses; u++) {
		strcat(buf, val->uses[u].instr->name);
		strcat(buf, " ");
	}
	assert_string_equal(buf, "z b y z r ");
	unload(&f);
}

static void test_call(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "sub {\n"
		 "  a = f32[] parameter(0)\n"
		 "  b = f32[] parameter(1)\n"
		 "  ROOT s = f32[] add(a, b)\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  c1 = f32[] constant(1)\n"
		 "  c2 = f32[] constant(2)\n"
		 "  ROOT k = f32[] call(c1, c2), to_apply=sub\n"
		 "}\n");
	assert_string_equal(set_at(&f, "a", 0), "c1{}");
	assert_string_equal(set_at(&f, "b", 0), "c2{}");
	assert_string_equal(set_at(&f, "k", 0), "s@sub{}");
	assert_int_equal(count_values_defined_by(&f, "a"), 0);
	/* the call is a use, and so is the add in the callee (positions in
	 * module order after the defining one: c1, then a@sub) */
	assert_string_equal(uses_of(&f, "c1"), "k:0{} s:0{}");
	unload(&f);
}

static const char *single_while =
	"HloModule m\n"
	"body {\n"
	"  s = (f32[], f32[]) parameter(0)\n"
	"  g0 = f32[] get-tuple-element(s), index=0\n"
	"  g1 = f32[] get-tuple-element(s), index=1\n"
	"  a = f32[] add(g0, g1)\n"
	"  ROOT t = (f32[], f32[]) tuple(g0, a)\n"
	"}\n"
	"cond {\n"
	"  s = (f32[], f32[]) parameter(0)\n"
	"  ROOT k = pred[] constant(false)\n"
	"}\n"
	"ENTRY e {\n"
	"  c1 = f32[] constant(1)\n"
	"  c2 = f32[] constant(2)\n"
	"  init = (f32[], f32[]) tuple(c1, c2)\n"
	"  ROOT w = (f32[], f32[]) while(init), condition=cond, body=body\n"
	"}\n";

static void test_while_phis(void **state)
{
	(void)state;
	struct fx f;
	load(&f, single_while);
	/* element 0 passes through unchanged: the phis collapse to c1 */
	assert_string_equal(set_at(&f, "w", 1, 0), "c1{}");
	assert_string_equal(set_at(&f, "s@body", 1, 0), "c1{}");
	assert_string_equal(set_at(&f, "s@cond", 1, 0), "c1{}");
	/* element 1 changes: phis at the while and both parameters */
	assert_string_equal(set_at(&f, "w", 1, 1), "w{1} phi");
	assert_string_equal(set_at(&f, "s@body", 1, 1), "s@body{1} phi");
	assert_string_equal(set_at(&f, "s@cond", 1, 1), "s@cond{1} phi");
	assert_string_equal(set_at(&f, "g1@body", 0), "s@body{1} phi");
	/* top level tuples differ (init vs body root): phis too */
	assert_string_equal(set_at(&f, "w", 0), "w{} phi");
	/* the tuple only forwards c1; the body root uses what it returns; the
	 * while is a use of what it is given */
	assert_string_equal(uses_of(&f, "c1"), "a:0{} t:0{} w:0{0}");
	int32_t v = dataflow_unique_value(f.df, I(&f, "c1"), 0);
	assert_true(f.df->values[v].live_out);
	unload(&f);
}

static void test_conditional(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "b0 {\n"
		 "  x = f32[] parameter(0)\n"
		 "  ROOT n = f32[] negate(x)\n"
		 "}\n"
		 "b1 {\n"
		 "  y = f32[] parameter(0)\n"
		 "  ROOT y2 = f32[] copy(y)\n"
		 "}\n"
		 "b2 {\n"
		 "  z = f32[] parameter(0)\n"
		 "  ROOT z2 = f32[] exponential(z)\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  i = s32[] parameter(0)\n"
		 "  a = f32[] parameter(1)\n"
		 "  b = f32[] parameter(2)\n"
		 "  ROOT c = f32[] conditional(i, a, b, a), branch_computations={b0, b1, b2}\n"
		 "}\n");
	/* a branch parameter has a single input: no phi, the operand's value */
	assert_string_equal(set_at(&f, "x", 0), "a{}");
	assert_string_equal(set_at(&f, "y", 0), "b{}");
	assert_string_equal(set_at(&f, "z", 0), "a{}");
	assert_string_equal(set_at(&f, "c", 0), "c{} phi");
	assert_int_equal(count_values_defined_by(&f, "x"), 0);
	unload(&f);
	/* a conditional whose branches return the same outside value: one input
	 * id repeated is still a phi (duplicates count), which then collapses */
	load(&f, "HloModule m\n"
		 "b0 {\n"
		 "  x = (f32[]) parameter(0)\n"
		 "  ROOT g = f32[] get-tuple-element(x), index=0\n"
		 "}\n"
		 "b1 {\n"
		 "  y = (f32[]) parameter(0)\n"
		 "  ROOT g = f32[] get-tuple-element(y), index=0\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  p = pred[] parameter(0)\n"
		 "  a = f32[] parameter(1)\n"
		 "  t = (f32[]) tuple(a)\n"
		 "  ROOT c = f32[] conditional(p, t, t), true_computation=b0, false_computation=b1\n"
		 "}\n");
	assert_string_equal(set_at(&f, "c", 0), "a{}");
	unload(&f);
}

static void test_copy_start_done_send_recv(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  cs = (f32[4], f32[4], u32[]) copy-start(p)\n"
		 "  cd = f32[4] copy-done(cs)\n"
		 "  tok = token[] after-all()\n"
		 "  s = (f32[4], u32[], token[]) send(cd, tok), channel_id=1\n"
		 "  sd = token[] send-done(s), channel_id=1\n"
		 "  r = (f32[4], u32[], token[]) recv(tok), channel_id=2\n"
		 "  rd = (f32[4], token[]) recv-done(r), channel_id=2\n"
		 "  ROOT o = (f32[4], token[]) tuple(cd, sd)\n"
		 "}\n");
	assert_string_equal(set_at(&f, "cs", 0), "cs{}");
	assert_string_equal(set_at(&f, "cs", 1, 0), "cs{0}");
	assert_string_equal(set_at(&f, "cs", 1, 1), "p{}");
	assert_string_equal(set_at(&f, "cs", 1, 2), "cs{2}");
	assert_string_equal(set_at(&f, "cd", 0), "cs{0}");
	assert_string_equal(set_at(&f, "s", 1, 0), "cs{0}");
	assert_string_equal(set_at(&f, "s", 1, 1), "s{1}");
	assert_string_equal(set_at(&f, "s", 1, 2), "s{2}");
	assert_string_equal(set_at(&f, "sd", 0), "sd{}");
	assert_string_equal(set_at(&f, "r", 1, 0), "r{0}");
	assert_string_equal(set_at(&f, "rd", 0), "rd{}");
	assert_string_equal(set_at(&f, "rd", 1, 0), "r{0}");
	assert_string_equal(set_at(&f, "rd", 1, 1), "rd{1}");
	unload(&f);
}

static void test_async(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "wrapped {\n"
		 "  wp = f32[4] parameter(0)\n"
		 "  ROOT wn = f32[4] negate(wp)\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  st = ((f32[4]), f32[4], s32[]) async-start(p), calls=wrapped\n"
		 "  up = ((f32[4]), f32[4], s32[]) async-update(st)\n"
		 "  ROOT dn = f32[4] async-done(up)\n"
		 "}\n");
	/* start: tuples and the context defined, {0,0} forwards the operand,
	 * {1} forwards the wrapped root */
	assert_string_equal(set_at(&f, "st", 0), "st{}");
	assert_string_equal(set_at(&f, "st", 1, 0), "st{0}");
	assert_string_equal(set_at(&f, "st", 2, 0, 0), "p{}");
	assert_string_equal(set_at(&f, "st", 1, 1), "wn@wrapped{}");
	assert_string_equal(set_at(&f, "st", 1, 2), "st{2}");
	/* update: tuple indices defined, leaves forwarded */
	assert_string_equal(set_at(&f, "up", 0), "up{}");
	assert_string_equal(set_at(&f, "up", 1, 2), "st{2}");
	assert_string_equal(set_at(&f, "up", 1, 1), "wn@wrapped{}");
	/* done: the wrapped root's value; wrapped parameter gets the operand */
	assert_string_equal(set_at(&f, "dn", 0), "wn@wrapped{}");
	assert_string_equal(set_at(&f, "wp", 0), "p{}");
	assert_int_equal(count_values_defined_by(&f, "dn"), 0);
	/* async-done reads only {1,...}; update reads all leaves */
	int32_t v = dataflow_unique_value(f.df, I(&f, "st"), dataflow_sub(f.df, I(&f, "st"), (int32_t[]){2}, 1));
	const struct hlo_value *ctxv = &f.df->values[v];
	int done_uses = 0, update_uses = 0;
	for (int32_t u = 0; u < ctxv->n_uses; u++) {
		done_uses += ctxv->uses[u].instr == I(&f, "dn");
		update_uses += ctxv->uses[u].instr == I(&f, "up");
	}
	assert_int_equal(done_uses, 0);
	assert_int_equal(update_uses, 1);
	unload(&f);
}

static void test_collectives(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  q = f32[4] parameter(1)\n"
		 "  ag = (f32[4], f32[16]) all-gather-start(p), dimensions={0}, replica_groups={}\n"
		 "  agd = f32[16] all-gather-done(ag)\n"
		 "  cp = (f32[4], f32[4], u32[], u32[]) collective-permute-start(q), source_target_pairs={{0,1}}\n"
		 "  cpd = f32[4] collective-permute-done(cp)\n"
		 "  ag2 = ((f32[4], f32[4]), (f32[16], f32[16])) all-gather-start(p, q), dimensions={0}, replica_groups={}\n"
		 "  ag2d = (f32[16], f32[16]) all-gather-done(ag2)\n"
		 "  ROOT o = (f32[16], f32[4], (f32[16], f32[16])) tuple(agd, cpd, ag2d)\n"
		 "}\n");
	assert_string_equal(set_at(&f, "ag", 1, 0), "p{}");
	assert_string_equal(set_at(&f, "ag", 1, 1), "ag{1}");
	assert_string_equal(set_at(&f, "agd", 0), "ag{1}");
	assert_string_equal(set_at(&f, "cp", 1, 0), "q{}");
	assert_string_equal(set_at(&f, "cp", 1, 1), "cp{1}");
	assert_string_equal(set_at(&f, "cp", 1, 3), "cp{3}");
	assert_string_equal(set_at(&f, "cpd", 0), "cp{1}");
	assert_string_equal(set_at(&f, "ag2", 2, 0, 1), "q{}");
	assert_string_equal(set_at(&f, "ag2", 1, 1), "ag2{1}");
	assert_string_equal(set_at(&f, "ag2", 2, 1, 1), "ag2{1,1}");
	assert_string_equal(set_at(&f, "ag2d", 0), "ag2d{}");
	assert_string_equal(set_at(&f, "ag2d", 1, 1), "ag2{1,1}");
	unload(&f);
}

static void test_custom_call_defines_all(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "ENTRY e {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  ROOT cc = (f32[4], f32[2]) custom-call(p), custom_call_target=\"foo\", "
		 "output_to_operand_aliasing={{0}: (0, {})}\n"
		 "}\n");
	/* aliasing is an in-place relation (inplace.c), not dataflow */
	assert_string_equal(set_at(&f, "cc", 0), "cc{}");
	assert_string_equal(set_at(&f, "cc", 1, 0), "cc{0}");
	assert_string_equal(set_at(&f, "cc", 1, 1), "cc{1}");
	unload(&f);
}

/* A phi closure: two nested loops whose state element passes through both
 * bodies unchanged collapses to the outer init value. */
static void test_phi_closure(void **state)
{
	(void)state;
	struct fx f;
	load(&f, "HloModule m\n"
		 "c_in {\n  s = (f32[], f32[]) parameter(0)\n  ROOT k = pred[] constant(false)\n}\n"
		 "c_out {\n  s = (f32[], f32[]) parameter(0)\n  ROOT k = pred[] constant(false)\n}\n"
		 "inner {\n"
		 "  s = (f32[], f32[]) parameter(0)\n"
		 "  a = f32[] get-tuple-element(s), index=0\n"
		 "  b = f32[] get-tuple-element(s), index=1\n"
		 "  n = f32[] negate(b)\n"
		 "  ROOT t = (f32[], f32[]) tuple(a, n)\n"
		 "}\n"
		 "outer {\n"
		 "  s = (f32[], f32[]) parameter(0)\n"
		 "  ROOT w = (f32[], f32[]) while(s), condition=c_in, body=inner\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  x = f32[] parameter(0)\n"
		 "  y = f32[] parameter(1)\n"
		 "  init = (f32[], f32[]) tuple(x, y)\n"
		 "  ROOT w = (f32[], f32[]) while(init), condition=c_out, body=outer\n"
		 "}\n");
	assert_string_equal(set_at(&f, "w@e", 1, 0), "x{}");
	assert_string_equal(set_at(&f, "s@inner", 1, 0), "x{}");
	assert_string_equal(set_at(&f, "w@outer", 1, 0), "x{}");
	assert_string_equal(set_at(&f, "w@e", 1, 1), "w{1} phi");
	assert_string_equal(set_at(&f, "w@outer", 1, 1), "w@outer{1} phi");
	/* no phi survives anywhere for element 0 */
	for (int32_t v = 0; v < f.df->n_values; v++) {
		const struct hlo_value *val = &f.df->values[v];
		if (!val->is_phi)
			continue;
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		int32_t n = dataflow_value_index(f.df, val, idx);
		assert_false(n == 1 && idx[0] == 0);
	}
	unload(&f);
}

static void test_positions_order(void **state)
{
	(void)state;
	struct fx f;
	load(&f, single_while);
	/* the defining position first, then module order (computations, instructions) */
	int32_t v = dataflow_unique_value(f.df, I(&f, "c1"), 0);
	const struct hlo_value *val = &f.df->values[v];
	char buf[512] = "";
	for (int32_t p = 0; p < val->n_positions; p++) {
		strcat(buf, val->positions[p].instr->name);
		strcat(buf, "@");
		strcat(buf, val->positions[p].instr->parent->name);
		strcat(buf, " ");
	}
	assert_string_equal(buf, "c1@e s@body g0@body t@body s@cond init@e w@e ");
	unload(&f);
}

static void test_called_in_both_contexts_is_an_error(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text("HloModule m\n"
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
					  "}\n");
	struct arena a;
	arena_init(&a);
	struct diag d;
	diag_init(&d, NULL);
	assert_null(dataflow_run(m, &a, &d));
	assert_int_equal(d.errors, 1);
	assert_non_null(strstr(d.first, "both"));
	arena_free(&a);
	hlo_module_free(m);
}

static void test_shape_trees_are_shared(void **state)
{
	(void)state;
	struct fx f;
	load(&f, single_while);
	/* every (f32[], f32[]) instruction shares one interned tree */
	assert_ptr_equal(dataflow_tree(f.df, I(&f, "init")), dataflow_tree(f.df, I(&f, "w")));
	assert_ptr_equal(dataflow_tree(f.df, I(&f, "s@body")), dataflow_tree(f.df, I(&f, "t")));
	assert_int_equal(f.df->n_trees, 1);
	const struct shape_tree *t = dataflow_tree(f.df, I(&f, "w"));
	assert_int_equal(t->n, 3);
	int32_t idx[2] = {1};
	assert_int_equal(shape_tree_sub(t, idx, 1), 2);
	idx[0] = 2;
	assert_int_equal(shape_tree_sub(t, idx, 1), -1);
	unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tuple_gte),
		cmocka_unit_test(test_bitcast_copy_domain_barrier),
		cmocka_unit_test(test_call),
		cmocka_unit_test(test_while_phis),
		cmocka_unit_test(test_conditional),
		cmocka_unit_test(test_copy_start_done_send_recv),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_custom_call_defines_all),
		cmocka_unit_test(test_phi_closure),
		cmocka_unit_test(test_positions_order),
		cmocka_unit_test(test_called_in_both_contexts_is_an_error),
		cmocka_unit_test(test_shape_trees_are_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
