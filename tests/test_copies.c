/* test_copies.c - copy families, removal verdicts and evidence (issue 4):
 * hand-written cases, the corpus/copies expectations, and the merged buffer
 * against alias analysis re-run on the rewritten module. */
#include "testutil.h"
#include "copies.h"
#include "rewrite.h"
#include "smt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct analysis *analyse_as(struct hlo_module *m, int cross, enum module_stage stage)
{
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.cross_check = cross;
	/* the cases are modules as copy insertion sees them; the expect lines
	 * with stage=auto are analysed as detected (analyse_as) */
	opt.stage = stage;
	struct diag d;
	diag_init(&d, stderr);
	struct analysis *an = analysis_run(m, &opt, &d);
	assert_non_null(an);
	return an;
}

static struct analysis *analyse(struct hlo_module *m, int cross)
{
	return analyse_as(m, cross, STAGE_AFTER);
}

static const struct hlo_instruction *I(struct hlo_module *m, const char *name)
{
	const struct hlo_instruction *i = hlo_find_instruction_any(m, name);
	if (!i)
		fail_msg("no instruction %s", name);
	return i;
}

static void report(struct analysis *an, const char *name, struct copy_report *r)
{
	assert_int_equal(copy_analyse_one(an, I(an->m, name), r), 0);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!hay || !strstr(hay, needle))
		fail_msg("'%s' not in:\n%s", needle, hay ? hay : "(null)");
}

/* ---- families and their evidence ---- */

static const char *layout_text =
	"HloModule t\n"
	"ENTRY %e (p: f32[2,3]) -> f32[3,2] {\n"
	"  %p = f32[2,3]{1,0} parameter(0)\n"
	"  %bc = f32[3,2]{0,1} bitcast(%p)\n"
	"  %copy = f32[3,2]{1,0} copy(%bc)\n"
	"  ROOT %d = f32[3,3]{1,0} dot(%copy, %bc), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n"
	"}\n";

static void test_family_layout(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(layout_text);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "copy", &r);
	assert_int_equal(r.family, FAMILY_LAYOUT);
	assert_contains(r.family_evidence, "bc");
	assert_contains(r.family_evidence, "{0,1}");
	assert_contains(r.family_evidence, "{1,0}");
	assert_contains(r.family_evidence, "consumer d (dot)");
	assert_int_equal(r.any, VERDICT_NECESSARY);
	assert_int_equal(r.given, VERDICT_NONE);
	assert_contains(r.evidence, "never removable");
	assert_int_equal(r.bytes, 24);
	analysis_free(an);
	hlo_module_free(m);
}

static void test_family_memory_space(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text("HloModule t\n"
					  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
					  "  %p = f32[8]{0} parameter(0)\n"
					  "  %h = f32[8]{0:S(5)} copy(%p)\n"
					  "  ROOT %b = f32[8]{0} copy(%h)\n"
					  "}\n");
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "h", &r);
	assert_int_equal(r.family, FAMILY_MEMORY_SPACE);
	assert_contains(r.family_evidence, "host memory");
	assert_int_equal(r.any, VERDICT_NECESSARY);
	report(an, "b", &r);
	assert_int_equal(r.family, FAMILY_MEMORY_SPACE);
	analysis_free(an);
	hlo_module_free(m);
}

/* The swap loop: slot 0 is overwritten while the old value moves to slot 1. */
static const char *swap_text =
	"HloModule t\n"
	"%body (s: (f32[8], f32[8])) -> (f32[8], f32[8]) {\n"
	"  %s = (f32[8], f32[8]) parameter(0)\n"
	"  %a = f32[8] get-tuple-element(%s), index=0\n"
	"  %b = f32[8] get-tuple-element(%s), index=1\n"
	"  %n = f32[8] add(%a, %b)\n"
	"  %ca = f32[8] copy(%a)\n"
	"  ROOT %t = (f32[8], f32[8]) tuple(%n, %ca)\n"
	"}\n"
	"%cond (s: (f32[8], f32[8])) -> pred[] {\n"
	"  %s = (f32[8], f32[8]) parameter(0)\n"
	"  ROOT %c = pred[] constant(true)\n"
	"}\n"
	"ENTRY %e (x: f32[8], y: f32[8]) -> f32[8] {\n"
	"  %x = f32[8] parameter(0)\n"
	"  %y = f32[8] parameter(1)\n"
	"  %cx = f32[8] copy(%x)\n"
	"  %e1 = f32[8] exponential(%y)\n"
	"  %init = (f32[8], f32[8]) tuple(%cx, %e1)\n"
	"  %w = (f32[8], f32[8]) while(%init), condition=%cond, body=%body\n"
	"  ROOT %r = f32[8] get-tuple-element(%w), index=0\n"
	"}\n";

static void test_family_loop_carry(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(swap_text);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "ca", &r);
	assert_int_equal(r.family, FAMILY_LOOP_CARRY);
	assert_contains(r.family_evidence, "root of body, the body of w");
	assert_int_equal(r.any, VERDICT_NECESSARY);
	/* both slots' parameter phis land in one buffer: defined at once */
	assert_contains(r.evidence, "s{0}@body and s{1}@body are defined into one buffer at once");
	report(an, "cx", &r);
	assert_int_equal(r.family, FAMILY_LOOP_CARRY);
	assert_contains(r.family_evidence, "feeds the init of w at {0}");
	assert_int_equal(r.any, VERDICT_NECESSARY);
	assert_contains(r.evidence, "read-only value x");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

static void test_family_branch_in_place_donation_output(void **state)
{
	(void)state;
	char *p = strdup("corpus/copies/branch.hlo");
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(p, &d);
	assert_non_null(m);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "bc", &r);
	assert_int_equal(r.family, FAMILY_BRANCH);
	assert_contains(r.family_evidence, "a branch of c");
	assert_contains(r.evidence, "n@b1 (defined at n@b1) overwrites y (defined at y) before the read at later");
	analysis_free(an);
	hlo_module_free(m);
	free(p);

	m = hlo_parse_file("corpus/copies/in_place.hlo", &d);
	assert_non_null(m);
	an = analyse(m, 1);
	report(an, "c1", &r);
	assert_int_equal(r.family, FAMILY_IN_PLACE);
	assert_contains(r.family_evidence, "d1 (dynamic-update-slice) updates operand 0 in place; x is still read by r1");
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/copies/donation.hlo", &d);
	assert_non_null(m);
	an = analyse(m, 1);
	report(an, "cp", &r);
	assert_int_equal(r.family, FAMILY_DONATION);
	assert_contains(r.family_evidence, "donated parameter p");
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/copies/output.hlo", &d);
	assert_non_null(m);
	an = analyse(m, 1);
	report(an, "cc", &r);
	assert_int_equal(r.family, FAMILY_OUTPUT);
	assert_contains(r.family_evidence, "constant k");
	assert_contains(r.evidence, "read-only value k (constant) is an entry output");
	report(an, "cd", &r);
	assert_contains(r.evidence, "appears at two entry outputs {2} and {3}");
	analysis_free(an);
	hlo_module_free(m);
}

static void test_family_unexplained_removable(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text("HloModule t\n"
					  "ENTRY %e (p: f32[8]) -> f32[8] {\n"
					  "  %p = f32[8] parameter(0)\n"
					  "  %x = f32[8] negate(%p)\n"
					  "  %sharding_constraint.3 = f32[8] copy(%x)\n"
					  "  ROOT %a = f32[8] add(%sharding_constraint.3, %x)\n"
					  "}\n");
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "sharding_constraint.3", &r);
	assert_int_equal(r.family, FAMILY_UNEXPLAINED);
	assert_contains(r.family_evidence, "sharding_constraint");
	assert_int_equal(r.any, VERDICT_REMOVABLE);
	assert_contains(r.evidence, "proof");
	assert_contains(r.evidence, "the buffer holds no other value");
	analysis_free(an);
	hlo_module_free(m);
}

/* ---- verdicts ---- */

static const char *sched_dep_text =
	"HloModule t\n"
	"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8]) {\n"
	"  %p = f32[8] parameter(0)\n"
	"  %u = f32[2] parameter(1)\n"
	"  %i = s32[] parameter(2)\n"
	"  %y = f32[8] exponential(%p)\n"
	"  %c = f32[8] copy(%y)\n"
	"  %d = f32[8] dynamic-update-slice(%c, %u, %i)\n"
	"  %r = f32[8] sqrt(%y)\n"
	"  ROOT %out = (f32[8], f32[8]) tuple(%d, %r)\n"
	"}\n";

static void test_verdict_schedule_dependent_edge(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(sched_dep_text);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "c", &r);
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_non_null(r.edge_from);
	assert_string_equal(r.edge_from->name, "r");
	assert_string_equal(r.edge_to->name, "d");
	assert_int_equal(r.n_edges, 1);
	assert_contains(r.evidence, "d (defined at d) overwrites y (defined at y) before the read at r");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);

	/* with that control edge in the module the copy is removable */
	char *t = strdup(sched_dep_text);
	char *at = strstr(t, "%r = f32[8] sqrt(%y)");
	assert_non_null(at);
	size_t n = strlen(t) + 64;
	char *t2 = malloc(n);
	snprintf(t2, n, "%.*s%s", (int)(at - t), t, "");
	char *d_line = strstr(t2, "  %d = f32[8] dynamic-update-slice(%c, %u, %i)\n");
	assert_non_null(d_line);
	/* rebuild: r before d, and d control-depends on r */
	free(t2);
	const char *fixed =
		"HloModule t\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %y = f32[8] exponential(%p)\n"
		"  %c = f32[8] copy(%y)\n"
		"  %r = f32[8] sqrt(%y)\n"
		"  %d = f32[8] dynamic-update-slice(%c, %u, %i), control-predecessors={%r}\n"
		"  ROOT %out = (f32[8], f32[8]) tuple(%d, %r)\n"
		"}\n";
	free(t);
	m = parse_text(fixed);
	an = analyse(m, 1);
	report(an, "c", &r);
	assert_int_equal(r.any, VERDICT_REMOVABLE);
	assert_contains(r.evidence, "r must run before d: r => d");
	analysis_free(an);
	hlo_module_free(m);
}

static void test_verdict_given_scheduled(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file("corpus/copies/scheduled.hlo", &d);
	assert_non_null(m);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "c1", &r);
	assert_int_equal(r.given, VERDICT_NECESSARY);
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_contains(r.evidence, "in the given schedule: d1");
	report(an, "c2", &r);
	assert_int_equal(r.given, VERDICT_REMOVABLE);
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_contains(r.evidence, "proof for the given schedule");
	analysis_free(an);
	hlo_module_free(m);
}

/* Two writes into one buffer, each read together with the other: every
 * order has a hazard but none is forced. Avoiding each needs one order
 * (d2 before d1, d1 before d2): the graph finds the cycle; the cross-check
 * asks Z3 the same question and must agree. */
static void test_verdict_necessary_by_smt(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file("corpus/copies/smt_unsat.hlo", &d);
	assert_non_null(m);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "c1", &r);
	assert_int_equal(r.any, VERDICT_NECESSARY);
	assert_contains(r.evidence, "close a cycle");
	assert_int_equal(an->n_smt_queries, 0);      /* decided without the solver */
	assert_true(smt_queries(an->smt) > 0);       /* ... and Z3 was asked by --cross-check */
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);

	/* the same question sent whole to Z3 (HLOPROOF_SMT_NONE=1): same verdict */
	m = hlo_parse_file("corpus/copies/smt_unsat.hlo", &d);
	assert_non_null(m);
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.smt_none = 1;
	an = analysis_run(m, &opt, &d);
	assert_non_null(an);
	report(an, "c1", &r);
	assert_int_equal(r.any, VERDICT_NECESSARY);
	assert_contains(r.evidence, "z3: unsat");
	assert_true(an->n_smt_queries > 0);
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/copies/smt_edges.hlo", &d);
	assert_non_null(m);
	an = analyse(m, 1);
	report(an, "c", &r);
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_int_equal(r.n_edges, 2); /* no single edge orders d after both readers */
	assert_string_equal(r.edges_to[0]->name, "d");
	assert_string_equal(r.edges_to[1]->name, "d");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

static void test_verdict_unknown(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file("corpus/unknown/not_flattened.hlo", &d);
	assert_non_null(m);
	struct analysis *an = analyse(m, 0);
	struct copy_report r;
	report(an, "cc", &r);
	assert_int_equal(r.any, VERDICT_UNKNOWN);
	assert_contains(r.unknown_reason, "not flattened");
	assert_int_equal(expect_copies("corpus/unknown/not_flattened.hlo", an, m), 1); /* its tag */
	analysis_free(an);
	hlo_module_free(m);
	/* not a copy */
	m = parse_text(sched_dep_text);
	an = analyse(m, 0);
	assert_int_equal(copy_analyse_one(an, I(m, "d"), &r), -1);
	analysis_free(an);
	hlo_module_free(m);
}

/* A removed copy's control edges go with it (XLA strips them): an order
 * that only held through the copy no longer holds. */
static void test_removed_copy_control_edges_dropped(void **state)
{
	(void)state;
	const char *text =
		"HloModule t\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> (f32[8], f32[8]) {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %y = f32[8] exponential(%p)\n"
		"  %r = f32[8] sqrt(%y)\n"
		"  %c = f32[8] copy(%y), control-predecessors={%r}\n"
		"  %d = f32[8] dynamic-update-slice(%c, %u, %i)\n"
		"  ROOT %out = (f32[8], f32[8]) tuple(%d, %r)\n"
		"}\n";
	struct hlo_module *m = parse_text(text);
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	/* r => c -> d orders the read before the write only through c */
	report(an, "c", &r);
	assert_int_equal(r.any, VERDICT_SCHEDULE_DEPENDENT);
	assert_string_equal(r.edge_from->name, "r");
	assert_string_equal(r.edge_to->name, "d");
	assert_false(an->cross_check_failed);
	analysis_free(an);
	hlo_module_free(m);
}

/* When the copy is the root, its operand becomes the root and runs last. */
static void test_removed_root_copy(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(
		"HloModule t, input_output_alias={ {}: (0, {}, may-alias) }\n"
		"ENTRY %e (p: f32[8], u: f32[2], i: s32[]) -> f32[8] {\n"
		"  %p = f32[8] parameter(0)\n"
		"  %u = f32[2] parameter(1)\n"
		"  %i = s32[] parameter(2)\n"
		"  %d = f32[8] dynamic-update-slice(%p, %u, %i)\n"
		"  %n = f32[8] negate(%p)\n"
		"  ROOT %c = f32[8] copy(%d)\n"
		"}\n");
	struct analysis *an = analyse(m, 1);
	struct copy_report r;
	report(an, "c", &r);
	/* d becomes the root: it runs after the read of p at n */
	assert_int_equal(r.any, VERDICT_REMOVABLE);
	assert_contains(r.evidence, "n must run before d: d is the root of e and runs last");
	analysis_free(an);
	hlo_module_free(m);
}

/* ---- corpus/copies: the expect tags (tests/expect.h) ---- */

static void test_corpus_expectations(void **state)
{
	(void)state;
	char **files = list_files("corpus/copies", ".hlo");
	int n_files = 0, n_checked = 0;
	for (char **f = files; *f; f++) {
		n_files++;
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (!m)
			fail_msg("%s does not parse", *f);
		/* "stage=auto" on an expect tag: the stage as detected */
		struct analysis *an = analyse_as(m, 1, expect_stage_auto(*f) ? STAGE_AUTO : STAGE_AFTER);
		n_checked += expect_copies(*f, an, m);
		if (an->cross_check_failed)
			fail_msg("%s: cross-check failed", *f);
		analysis_free(an);
		hlo_module_free(m);
	}
	free_list(files);
	assert_true(n_files >= 14);
	assert_true(n_checked >= 25);
}

/* ---- the merged buffer against alias analysis of the rewritten module ---- */

/* The module with `copy` removed (verifier/rewrite.c: its users read its
 * operand, the operand becomes the root where the copy was, the copy's
 * control edges are dropped; printed and parsed again). */
static struct hlo_module *rewrite_without(const char *path, const char *copy_name,
					  const char *comp_name)
{
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(path, &d);
	assert_non_null(m);
	struct hlo_computation *k = hlo_find_computation(m, comp_name);
	assert_non_null(k);
	struct hlo_instruction *c = hlo_find_instruction(k, copy_name);
	assert_non_null(c);
	struct hlo_module *m2 = hlo_module_without_copy(m, c, &d);
	if (!m2)
		fail_msg("%s without %s does not parse: %s", path, copy_name, d.first);
	hlo_module_free(m);
	return m2;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "name@computation{index}" per value, sorted, joined */
static char *value_keys(const struct dataflow *df, const int32_t *v, int32_t n)
{
	char **keys = calloc((size_t)n + 1, sizeof(char *));
	size_t total = 1;
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_value *x = &df->values[v[i]];
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		int32_t k = dataflow_value_index(df, x, idx);
		char b[512];
		size_t o = (size_t)snprintf(b, sizeof(b), "%s@%s{", x->def->name, x->def->parent->name);
		for (int32_t j = 0; j < k && o < sizeof(b); j++)
			o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%d", j ? "," : "", idx[j]);
		snprintf(b + o, sizeof(b) - o, "}%s", x->is_phi ? "phi" : "");
		keys[i] = strdup(b);
		total += strlen(b) + 1;
	}
	qsort(keys, (size_t)n, sizeof(char *), cmp_str);
	char *out = malloc(total);
	out[0] = 0;
	for (int32_t i = 0; i < n; i++) {
		strcat(out, keys[i]);
		strcat(out, " ");
		free(keys[i]);
	}
	free(keys);
	return out;
}

static int check_merged_on_file(const char *path, int *n_copies)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse_file(path, &d);
	if (!m)
		return 0;
	struct analysis_options opt;
	analysis_default_options(&opt);
	diag_init(&d, NULL);
	struct analysis *an = analysis_run(m, &opt, &d);
	if (!an) {
		hlo_module_free(m);
		return 0;
	}
	int checked = 0;
	/* plain copies and single-output fused copies with one operand: the
	 * sites the merged-buffer model decides (copies.c, site_fits_merge) */
	struct copy_site *sites;
	int32_t n_sites = copy_sites(m, &m->arena, &sites);
	for (int32_t si = 0; si < n_sites && checked < 200; si++) {
		const struct copy_site *st = &sites[si];
		const struct hlo_instruction *c = st->at;
		const struct hlo_computation *comp = c->parent;
		if (st->kind == COPY_KIND_ASYNC || (st->kind == COPY_KIND_FUSED && (!st->result || c->n_operands != 1)))
			continue;
		{
			int32_t *mine;
			int32_t n = copy_merged_buffer(an, c, &mine);
			if (n < 0)
				continue;
			struct hlo_module *m2 = st->kind == COPY_KIND_PLAIN
							? rewrite_without(path, c->name, comp->name)
							: hlo_module_without_site(m, st, &d);
			assert_non_null(m2);
			struct diag d2;
			diag_init(&d2, stderr);
			struct arena a;
			arena_init(&a);
			struct dataflow *df2 = dataflow_run(m2, &a, &d2);
			assert_non_null(df2);
			struct inplace *ip2 = inplace_build(df2, &a);
			struct buffers *b2 = buffers_build(df2, ip2, &a);
			const struct hlo_instruction *s2 =
				hlo_find_instruction(hlo_find_computation(m2, comp->name), c->operands[0]->name);
			assert_non_null(s2);
			int32_t v2 = dataflow_unique_value(df2, s2, 0);
			assert_true(v2 >= 0);
			const struct hlo_buffer *buf = &b2->buffers[b2->buffer_of[v2]];
			char *want = value_keys(df2, buf->values, buf->n_values);
			char *got = value_keys(an->df, mine, n);
			if (strcmp(want, got))
				fail_msg("%s: removing %s: merged buffer\n  computed: %s\n  re-run:   %s", path,
					 c->name, got, want);
			free(want);
			free(got);
			arena_free(&a);
			hlo_module_free(m2);
			checked++;
		}
	}
	*n_copies += checked;
	analysis_free(an);
	hlo_module_free(m);
	return 1;
}

static void test_merged_buffer_equals_rewrite(void **state)
{
	(void)state;
	const char *dirs[] = {"corpus/copies", NULL, NULL, NULL};
	char *shared[3] = {shared_path("corpus/xla-copy-insertion"), shared_path("corpus/real"),
			   shared_path("corpus/xla-alias")};
	dirs[1] = shared[0];
	dirs[2] = shared[1];
	dirs[3] = shared[2];
	int n_copies = 0, n_files = 0;
	for (int i = 0; i < 4; i++) {
		char **files = list_files(dirs[i], ".hlo");
		for (char **f = files; *f; f++) {
			/* the big real modules: their copies are counted elsewhere; a
			 * re-parse per copy would take minutes */
			if (strstr(*f, "maxtext_") || strstr(*f, "keras_gemma2"))
				continue;
			n_files += check_merged_on_file(*f, &n_copies);
		}
		free_list(files);
	}
	for (int i = 0; i < 3; i++)
		free(shared[i]);
	assert_true(n_files > 50);
	assert_true(n_copies > 60);
}

/* copies_analyse: every copy in a non-fusion computation, in text order */
static void test_copies_analyse_order(void **state)
{
	(void)state;
	struct hlo_module *m = parse_text(swap_text);
	struct analysis *an = analyse(m, 0);
	struct copy_report *r;
	int32_t n = copies_analyse(an, &r);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].copy->name, "ca");
	assert_string_equal(r[1].copy->name, "cx");
	analysis_free(an);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_layout),
		cmocka_unit_test(test_family_memory_space),
		cmocka_unit_test(test_family_loop_carry),
		cmocka_unit_test(test_family_branch_in_place_donation_output),
		cmocka_unit_test(test_family_unexplained_removable),
		cmocka_unit_test(test_verdict_schedule_dependent_edge),
		cmocka_unit_test(test_verdict_given_scheduled),
		cmocka_unit_test(test_verdict_necessary_by_smt),
		cmocka_unit_test(test_verdict_unknown),
		cmocka_unit_test(test_removed_copy_control_edges_dropped),
		cmocka_unit_test(test_removed_root_copy),
		cmocka_unit_test(test_corpus_expectations),
		cmocka_unit_test(test_merged_buffer_equals_rewrite),
		cmocka_unit_test(test_copies_analyse_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
