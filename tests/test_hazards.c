/* test_hazards.c - regions, hazards of the module as given, buffer verdicts,
 * SMT dumps re-checked by the z3 command-line tool, and the graph decider
 * against Z3 (--cross-check) on the whole shared corpus. */
#include "testutil.h"
#include "copies.h"
#include "hazard.h"
#include "hzview.h"
#include <limits.h>
#include "regions.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct analysis *analyse_opt(struct hlo_module *m, const struct analysis_options *opt)
{
	struct diag d;
	diag_init(&d, stderr);
	struct analysis *an = analysis_run(m, opt, &d);
	assert_non_null(an);
	return an;
}

static struct analysis *analyse(struct hlo_module *m)
{
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.cross_check = 1;
	return analyse_opt(m, &opt);
}

static const struct hlo_instruction *I(struct hlo_module *m, const char *name)
{
	const struct hlo_instruction *i = hlo_find_instruction_any(m, name);
	if (!i)
		fail_msg("no instruction %s", name);
	return i;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!hay || !strstr(hay, needle))
		fail_msg("'%s' not in:\n%s", needle, hay ? hay : "(null)");
}

/* ---- regions ---- */

static const char *region_text =
	"HloModule t\n"
	"%f (a: f32[8], b: f32[4], c: s32[]) -> f32[8] {\n"
	"  %a = f32[8] parameter(0)\n"
	"  %b = f32[4] parameter(1)\n"
	"  %c = s32[] parameter(2)\n"
	"  ROOT %d = f32[8] dynamic-update-slice(%a, %b, %c)\n"
	"}\n"
	"ENTRY %e (p: f32[8], u: f32[4], i: s32[], q: f32[6,5]) -> (f32[8], f32[8], f32[8], f32[8], f32[3], f32[2,2], f32[8], f32[2,5], f32[6,5]) {\n"
	"  %p = f32[8] parameter(0)\n"
	"  %u = f32[4] parameter(1)\n"
	"  %i = s32[] parameter(2)\n"
	"  %q = f32[6,5] parameter(3)\n"
	"  %six = s32[] constant(6)\n"
	"  %minus = s32[] constant(-3)\n"
	"  %one = s32[] constant(1)\n"
	"  %d6 = f32[8] dynamic-update-slice(%p, %u, %six)\n"
	"  %dm = f32[8] dynamic-update-slice(%p, %u, %minus)\n"
	"  %dv = f32[8] dynamic-update-slice(%p, %u, %i)\n"
	"  %d1 = f32[8] dynamic-update-slice(%p, %u, %one)\n"
	"  %ds = f32[3] dynamic-slice(%p, %six), dynamic_slice_sizes={3}\n"
	"  %sl = f32[2,2] slice(%q), slice={[1:3], [0:4:2]}\n"
	"  %fu = f32[8] fusion(%p, %u, %six), kind=kLoop, calls=%f\n"
	"  %dq = f32[2,5] dynamic-slice(%q, %i, %one), dynamic_slice_sizes={2,5}\n"
	"  %n = f32[6,5] negate(%q)\n"
	"  ROOT %o = (f32[8], f32[8], f32[8], f32[8], f32[3], f32[2,2], f32[8], f32[2,5], f32[6,5]) tuple(%d6, %dm, %dv, %d1, %ds, %sl, %fu, %dq, %n)\n"
	"}\n";

static void assert_box(const struct region *r, const char *want)
{
	char buf[256];
	region_format(r, buf, sizeof(buf));
	if (strcmp(buf, want))
		fail_msg("region %s, want %s", buf, want);
}

static void test_regions(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(region_text);
	struct region r, s;
	/* the example: index 6, size 4, into f32[8] covers [4,8) */
	region_write(I(m, "d6"), &r);
	assert_box(&r, "[4,8)");
	region_write(I(m, "dm"), &r); /* clamped up to 0 */
	assert_box(&r, "[0,4)");
	region_write(I(m, "dv"), &r); /* unknown start: every position */
	assert_box(&r, "[0,8)");
	region_write(I(m, "d1"), &s);
	assert_box(&s, "[1,5)");
	region_write(I(m, "d6"), &r);
	assert_true(region_overlap(&r, &s));   /* [4,8) and [1,5) */
	region_write(I(m, "dm"), &s);
	assert_false(region_overlap(&r, &s));  /* [4,8) and [0,4) */
	region_read(I(m, "ds"), 0, &r);       /* 6 clamped to 8-3 = 5 */
	assert_box(&r, "[5,8)");
	region_read(I(m, "sl"), 0, &r);       /* strides ignored */
	assert_box(&r, "[1,3)x[0,4)");
	region_write(I(m, "fu"), &r);         /* fused root DUS on the parameter */
	assert_box(&r, "[4,8)");
	region_read(I(m, "dq"), 0, &r);
	assert_box(&r, "[0,6)x[0,5)");        /* size 2 of 6 at an unknown start */
	region_read(I(m, "n"), 0, &r);
	assert_true(r.whole);
	region_read(I(m, "d6"), 1, &r);       /* the update operand is read whole */
	assert_true(r.whole);
	region_write(I(m, "n"), &r);
	assert_true(r.whole);
	assert_true(region_overlap(&r, &s));
	hlo_module_free(m);
}

/* ---- hazards of the module as given ---- */

static int32_t count_kind(const struct hazard_report *h, int32_t n, enum hazard_kind k)
{
	int32_t c = 0;
	for (int32_t i = 0; i < n; i++)
		c += h[i].kind == k;
	return c;
}

static const struct hazard_report *find(const struct hazard_report *h, int32_t n,
					enum hazard_kind k, const char *w, const char *use)
{
	for (int32_t i = 0; i < n; i++)
		if (h[i].kind == k && (!w || (h[i].def_w && !strcmp(h[i].def_w->name, w))) &&
		    (!use || (h[i].use && !strcmp(h[i].use->name, use))))
			return &h[i];
	return NULL;
}

static void test_static_hazards(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8], f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %d = f32[8] dynamic-update-slice(%p, %u, %i)\n"
		"  %k = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})\n"
		"  %x = f32[8] negate(%d)\n"
		"  ROOT %o = (f32[8], f32[8], f32[8], f32[8]) tuple(%d, %k, %x, %x)\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	assert_true(n >= 3);
	assert_int_equal(count_kind(h, n, HAZARD_READ_ONLY_WRITTEN), 1);
	assert_int_equal(count_kind(h, n, HAZARD_READ_ONLY_OUTPUT), 1);
	assert_int_equal(count_kind(h, n, HAZARD_OUTPUTS_NOT_DISTINCT), 1);
	const struct hazard_report *r = find(h, n, HAZARD_READ_ONLY_WRITTEN, NULL, NULL);
	assert_string_equal(r->def_v->name, "p");
	assert_string_equal(r->def_w->name, "d");
	assert_int_equal(r->in_every, 1);
	assert_int_equal(r->in_given, -1);
	assert_int_equal(r->predicted_family, FAMILY_IN_PLACE);
	r = find(h, n, HAZARD_READ_ONLY_OUTPUT, NULL, NULL);
	assert_string_equal(r->def_v->name, "k");
	assert_int_equal(r->predicted_family, FAMILY_OUTPUT);
	assert_int_equal(r->bytes, 32);
	r = find(h, n, HAZARD_OUTPUTS_NOT_DISTINCT, NULL, NULL);
	assert_contains(r->witness, "{2} and {3}");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

static void test_overwrite_some_every(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %a = f32[8] sqrt(%p)\n"
		"  %d = f32[8] dynamic-update-slice(%p, %u, %i)\n"
		"  %b = f32[8] add(%p, %d)\n"
		"  ROOT %o = (f32[8], f32[8], f32[8]) tuple(%d, %a, %b)\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	/* d may run before the read at a: some schedules */
	const struct hazard_report *r = find(h, n, HAZARD_OVERWRITE, "d", "a");
	assert_non_null(r);
	assert_int_equal(r->in_some, 1);
	assert_int_equal(r->in_every, 0);
	assert_string_equal(r->edge_from->name, "a");
	assert_string_equal(r->edge_to->name, "d");
	assert_int_equal(r->predicted_family, FAMILY_IN_PLACE);
	assert_contains(r->witness, "d (defined at d) overwrites p (defined at p (time 0)) before the read at a");
	/* b reads p after d by its own operand: every schedule */
	r = find(h, n, HAZARD_OVERWRITE, "d", "b");
	assert_non_null(r);
	assert_int_equal(r->in_every, 1);
	/* the buffer as a whole: every schedule has a hazard */
	struct buffer_verdict bv;
	int32_t pv = dataflow_unique_value(an->df, I(m, "p"), 0);
	assert_int_equal(hazards_decide_buffer(an, an->bufs->buffer_of[pv], &bv), 0);
	assert_int_equal(bv.any, VERDICT_UNSAFE);
	assert_int_equal(bv.given, VERDICT_NONE);
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

/* A loop element passed through unchanged and updated in place in the body:
 * one iteration writes what the next reads. */
static void test_cross_iteration(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t, input_output_alias={ {0}: (0, {0}, may-alias) }\n"
		"%body (s: (f32[8], s32[])) -> (f32[8], s32[]) {\n"
		"  %s = (f32[8], s32[]) parameter(0)\n"
		"  %v = f32[8] get-tuple-element(%s), index=0\n"
		"  %k = s32[] get-tuple-element(%s), index=1\n"
		"  %u = f32[2] constant({1, 2})\n"
		"  %d = f32[8] dynamic-update-slice(%v, %u, %k)\n"
		"  %z = f32[8] negate(%d)\n"
		"  ROOT %t = (f32[8], s32[]) tuple(%v, %k)\n"
		"}\n"
		"%cond (s: (f32[8], s32[])) -> pred[] {\n"
		"  %s = (f32[8], s32[]) parameter(0)\n"
		"  ROOT %c = pred[] constant(true)\n"
		"}\n"
		"ENTRY %e (p: (f32[8], s32[])) -> (f32[8], s32[]) {\n"
		"  %p = (f32[8], s32[]) parameter(0)\n"
		"  ROOT %w = (f32[8], s32[]) while(%p), condition=%cond, body=%body\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	const struct hazard_report *r = find(h, n, HAZARD_OVERWRITE, "d", "d");
	assert_non_null(r);
	assert_int_equal(r->in_every, 1);
	assert_contains(r->witness, "written in one iteration of the loop and read in the next");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

/* Writes and reads in different branches never meet. */
static void test_branches_exclusive(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t\n"
		"%b0 (a: f32[8]) -> f32[8] {\n"
		"  %a = f32[8] parameter(0)\n"
		"  %u = f32[2] constant({1, 2})\n"
		"  %i = s32[] constant(2)\n"
		"  ROOT %d = f32[8] dynamic-update-slice(%a, %u, %i)\n"
		"}\n"
		"%b1 (a: f32[8]) -> f32[8] {\n"
		"  %a = f32[8] parameter(0)\n"
		"  ROOT %n = f32[8] negate(%a)\n"
		"}\n"
		"ENTRY %e (c: s32[], p: f32[8]) -> f32[8] {\n"
		"  %c = s32[] parameter(0)\n"
		"  %p = f32[8] parameter(1)\n"
		"  %x = f32[8] exponential(%p)\n"
		"  ROOT %k = f32[8] conditional(%c, %x, %x), branch_computations={%b0, %b1}\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	assert_null(find(h, n, HAZARD_OVERWRITE, "d", "n"));
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

/* An in-place op whose output layout differs from its operand's cannot
 * reuse the operand's buffer at the same instruction. */
static void test_same_instruction(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t\n"
		"ENTRY %e (p: f32[2,4], u: f32[1,4], i: s32[]) -> f32[2,4] {\n"
		"  %p = f32[2,4]{1,0} parameter(0)\n"
		"  %u = f32[1,4]{1,0} parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %x = f32[2,4]{0,1} negate(%p)\n"
		"  ROOT %d = f32[2,4]{1,0} dynamic-update-slice(%x, %u, %i, %i)\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	const struct hazard_report *r = find(h, n, HAZARD_SAME_INSTRUCTION, "d", "d");
	assert_non_null(r);
	assert_int_equal(r->in_every, 1);
	assert_contains(r->witness, "may not reuse that operand's buffer");
	analysis_free(an);
	hlo_module_free(m);
}

/* Two loop slots initialised with one value: both parameter phis are
 * defined into one buffer at the start of the body. */
static void test_same_time(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t\n"
		"%body (s: (f32[8], f32[8])) -> (f32[8], f32[8]) {\n"
		"  %s = (f32[8], f32[8]) parameter(0)\n"
		"  %a = f32[8] get-tuple-element(%s), index=0\n"
		"  %b = f32[8] get-tuple-element(%s), index=1\n"
		"  %n = f32[8] negate(%a)\n"
		"  %m = f32[8] exponential(%b)\n"
		"  ROOT %t = (f32[8], f32[8]) tuple(%n, %m)\n"
		"}\n"
		"%cond (s: (f32[8], f32[8])) -> pred[] {\n"
		"  %s = (f32[8], f32[8]) parameter(0)\n"
		"  ROOT %c = pred[] constant(true)\n"
		"}\n"
		"ENTRY %e (p: f32[8]) -> (f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %x = f32[8] sqrt(%p)\n"
		"  %init = (f32[8], f32[8]) tuple(%x, %x)\n"
		"  ROOT %w = (f32[8], f32[8]) while(%init), condition=%cond, body=%body\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	assert_true(count_kind(h, n, HAZARD_SAME_TIME) > 0);
	const struct hazard_report *r = find(h, n, HAZARD_SAME_TIME, NULL, NULL);
	assert_int_equal(r->in_every, 1);
	assert_int_equal(r->predicted_family, FAMILY_LOOP_CARRY);
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

/* A scheduled module: the printed order has the hazard, another does not. */
static void test_given_schedule(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %d = f32[8] dynamic-update-slice(%p, %u, %i)\n"
		"  %a = f32[8] sqrt(%p)\n"
		"  ROOT %o = (f32[8], f32[8]) tuple(%d, %a)\n"
		"}\n");
	struct analysis *an = analyse(m);
	struct buffer_verdict bv;
	int32_t pv = dataflow_unique_value(an->df, I(m, "p"), 0);
	assert_int_equal(hazards_decide_buffer(an, an->bufs->buffer_of[pv], &bv), 0);
	assert_int_equal(bv.given, VERDICT_UNSAFE);
	assert_int_equal(bv.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_string_equal(bv.edge_from->name, "a");
	assert_string_equal(bv.edge_to->name, "d");
	struct hazard_report *h;
	int32_t n = hazards_analyse(an, &h);
	const struct hazard_report *r = find(h, n, HAZARD_OVERWRITE, "d", "a");
	assert_non_null(r);
	assert_int_equal(r->in_given, 1);
	/* hazards_decide_values on the same values agrees */
	const struct hlo_buffer *b = &an->bufs->buffers[an->bufs->buffer_of[pv]];
	struct buffer_verdict bv2;
	assert_int_equal(hazards_decide_values(an, b->values, b->n_values, -1, -1, &bv2), 0);
	assert_int_equal(bv2.any, bv.any);
	assert_int_equal(bv2.given, bv.given);
	analysis_free(an);
	hlo_module_free(m);
}

/* ---- SMT dumps re-checked by the z3 command-line tool ---- */

static int have_z3(void)
{
	return system("z3 -version >/dev/null 2>&1") == 0;
}

static void test_smt_dump_rechecked(void **state)
{
	(void)state;
	char dir[] = "/tmp/hloproof-smt-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.smt_dump_dir = dir;
	opt.cross_check = 1;
	const char *files[] = {"corpus/copies/smt_unsat.hlo", "corpus/copies/smt_edges.hlo",
			       "corpus/copies/scheduled.hlo"};
	for (size_t k = 0; k < 3; k++) {
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(files[k], &d);
		assert_non_null(m);
		struct analysis *an = analyse_opt(m, &opt);
		struct copy_report *r;
		assert_true(copies_analyse(an, &r) > 0);
		analysis_free(an);
		hlo_module_free(m);
	}
	char **dumps = list_files(dir, ".smt2");
	int n = 0, sat = 0, unsat = 0;
	for (char **f = dumps; *f; f++, n++) {
		char *text = read_file(*f, NULL);
		assert_non_null(text);
		assert_contains(text, "(check-sat)");
		const char *ans = strstr(text, "; answer: ");
		assert_non_null(ans);
		char want[16] = {0};
		sscanf(ans + 10, "%15s", want);
		sat += !strcmp(want, "sat");
		unsat += !strcmp(want, "unsat");
		if (have_z3()) {
			char cmd[4200];
			snprintf(cmd, sizeof(cmd), "z3 '%s' 2>&1", *f);
			FILE *p = popen(cmd, "r");
			assert_non_null(p);
			char got[64] = {0};
			if (!fgets(got, sizeof(got), p))
				got[0] = 0;
			pclose(p);
			got[strcspn(got, "\n")] = 0;
			if (strcmp(got, want))
				fail_msg("%s: hloproof says %s, z3 says %s", *f, want, got);
		}
		free(text);
		unlink(*f);
	}
	free_list(dumps);
	rmdir(dir);
	assert_true(n >= 6);
	assert_true(sat > 0 && unsat > 0);
}

/* A timeout too short for any query gives unknown with z3's reason,
 * never a guess. */
static void test_smt_timeout_unknown(void **state)
{
	(void)state;
	/* many independent readers of one value overwritten in place: no
	 * single edge repairs it, so the solver is asked */
	char text[16384];
	size_t o = 0;
	o += (size_t)snprintf(text + o, sizeof(text) - o,
			      "HloModule t\nENTRY %%e (p: f32[8], u: f32[2], i: s32[]) -> f32[8] {\n"
			      "  %%p = f32[8] parameter(0)\n  %%u = f32[2] parameter(1)\n"
			      "  %%i = s32[] parameter(2)\n  %%x = f32[8] negate(%%p)\n"
			      "  %%c = f32[8] copy(%%x)\n"
			      "  %%d = f32[8] dynamic-update-slice(%%c, %%u, %%i)\n");
	for (int k = 0; k < 40; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "  %%r%d = f32[8] sqrt(%%x)\n", k);
	o += (size_t)snprintf(text + o, sizeof(text) - o, "  ROOT %%o = (f32[8]");
	for (int k = 0; k < 40; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, ", f32[8]");
	o += (size_t)snprintf(text + o, sizeof(text) - o, ") tuple(%%d");
	for (int k = 0; k < 40; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, ", %%r%d", k);
	snprintf(text + o, sizeof(text) - o, ")\n}\n");
	char *fixed = strdup(text);
	/* the signature's result type must match the root */
	char *arrow = strstr(fixed, "-> f32[8] {");
	assert_non_null(arrow);
	struct hlo_module *m = NULL;
	{
		size_t n = strlen(fixed) + 1024;
		char *t2 = malloc(n);
		size_t k = (size_t)(arrow - fixed);
		size_t w = (size_t)snprintf(t2, n, "%.*s-> (f32[8]", (int)k, fixed);
		for (int j = 0; j < 40; j++)
			w += (size_t)snprintf(t2 + w, n - w, ", f32[8]");
		snprintf(t2 + w, n - w, ") {%s", arrow + strlen("-> f32[8] {"));
		m = parse_text(t2);
		free(t2);
	}
	free(fixed);
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.timeout_ms = 2000;
	struct analysis *an = analyse_opt(m, &opt);
	struct copy_report r;
	assert_int_equal(copy_analyse_one(an, I(m, "c"), &r), 0);
	/* with time enough: schedule-dependent, 40 edges needed */
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_int_equal(r.n_edges, 40);
	analysis_free(an);
	opt.timeout_ms = 1;
	an = analyse_opt(m, &opt);
	assert_int_equal(copy_analyse_one(an, I(m, "c"), &r), 0);
	/* z3 may still answer within 1 ms; when it does not, the verdict says why */
	if (r.any == VERDICT_UNKNOWN)
		assert_contains(r.unknown_reason, "z3");
	else
		assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	analysis_free(an);
	hlo_module_free(m);
}

/* ---- both deciders on the whole shared corpus ---- */

static void cross_check_dir(const char *dir, int *files, int *copies, int *hazards)
{
	char **v = list_files(dir, ".hlo");
	for (char **f = v; *f; f++) {
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (!m)
			continue; /* the bad inputs of the alias corpus */
		struct analysis_options opt;
		analysis_default_options(&opt);
		opt.cross_check = 1;
		diag_init(&d, NULL);
		struct analysis *an = analysis_run(m, &opt, &d);
		if (!an) {
			hlo_module_free(m);
			continue;
		}
		struct copy_report *r;
		struct hazard_report *h;
		int32_t nc = copies_analyse(an, &r);
		int32_t nh = hazards_analyse(an, &h);
		assert_true(nc >= 0 && nh >= 0);
		if (an->cross_check_failed)
			fail_msg("%s: the graph decider and z3 disagree", *f);
		*files += 1;
		*copies += nc;
		*hazards += nh;
		analysis_free(an);
		hlo_module_free(m);
	}
	free_list(v);
}

static void test_cross_check_shared_corpus(void **state)
{
	(void)state;
	const char *rel[] = {"corpus/xla-copy-insertion", "corpus/xla-alias", "corpus/real"};
	int files = 0, copies = 0, hazards = 0;
	for (int i = 0; i < 3; i++) {
		char *p = shared_path(rel[i]);
		cross_check_dir(p, &files, &copies, &hazards);
		free(p);
	}
	cross_check_dir("corpus/copies", &files, &copies, &hazards);
	assert_true(files > 120);
	assert_true(copies > 2300);
	assert_true(hazards > 1000);
}

/* sb_printf appends what snprintf prints: its own formatter for %s, %d,
 * %llu, %.*s and %%, vsnprintf for anything else; on the heap, and in a
 * borrowed 24-byte buffer that a longer text leaves for the heap */
#define SB_SAME(...)                                                          \
	do {                                                                  \
		char want[1024];                                              \
		snprintf(want, sizeof(want), __VA_ARGS__);                    \
		struct sbuf sb = {0};                                         \
		sb_printf(&sb, "[");                                          \
		sb_printf(&sb, __VA_ARGS__);                                  \
		assert_non_null(sb.s);                                        \
		assert_int_equal(sb.n, strlen(want) + 1);                     \
		assert_memory_equal(sb.s + 1, want, strlen(want));            \
		free(sb.s);                                                   \
		char small[24];                                               \
		struct sbuf bb;                                               \
		sb_borrow(&bb, small, sizeof(small));                         \
		sb_printf(&bb, "[");                                          \
		sb_printf(&bb, __VA_ARGS__);                                  \
		assert_int_equal(bb.n, strlen(want) + 1);                     \
		assert_memory_equal(bb.s + 1, want, strlen(want));            \
		assert_int_equal(bb.s[bb.n], 0);                              \
		assert_int_equal(bb.borrowed, bb.n < sizeof(small));          \
		assert_true(bb.borrowed == (bb.s == small));                  \
		sb_free(&bb);                                                 \
		assert_null(bb.s);                                            \
	} while (0)

static void test_sb_printf(void **state)
{
	(void)state;
	const char *null = getenv("HLOPROOF_TEST_UNSET_VARIABLE"); /* NULL */
	SB_SAME("plain text, no conversion");
	SB_SAME("%s and %s", "a", "bc");
	SB_SAME("%s", null);
	SB_SAME("[%.*s] [%.*s] [%.*s]", 3, null, 6, null, -1, null);
	SB_SAME("%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
	SB_SAME("%llu %llu", 0ull, ULLONG_MAX);
	SB_SAME("100%% %s", "done");
	SB_SAME("[%.*s] [%.*s] [%.*s]", 3, "abcdef", -1, "whole", 9, "short");
	SB_SAME("%5d|%-4s|%x", 42, "ab", 255); /* not its own: vsnprintf */
	char big[300];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	SB_SAME("%s %s", big, big); /* past the first 256 bytes */
	SB_SAME("%s %d", big, 7);
	SB_SAME("%8s %s", "r", big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_printf),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_static_hazards),
		cmocka_unit_test(test_overwrite_some_every),
		cmocka_unit_test(test_cross_iteration),
		cmocka_unit_test(test_branches_exclusive),
		cmocka_unit_test(test_same_instruction),
		cmocka_unit_test(test_same_time),
		cmocka_unit_test(test_given_schedule),
		cmocka_unit_test(test_smt_dump_rechecked),
		cmocka_unit_test(test_smt_timeout_unknown),
		cmocka_unit_test(test_cross_check_shared_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
