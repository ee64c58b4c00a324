/* test_donation.c - donation verdicts (donation.h), XLA's donor matching
 * (donormatch.h) and the annotation files (annotations.h).
 *
 * The modules in corpus/donation carry their expected verdicts in expect tags
 * (tests/expect.h):
 *   // expect: param=P index={..} given=G any=A [output={..}|none] [copied=1]
 * one tag per donation, in report order (aliases, then donors). */
#include "testutil.h"
#include "expect.h"
#include "analysis.h"
#include "annotations.h"
#include "donation.h"
#include "donormatch.h"
#include "xmlload.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expect {
	int param;
	char index[64], output[64], given[32], any[32];
	int copied;
};

/* The file's "// expect:" tags (tests/expect.h). Returns the count. */
static int read_expects(const char *path, struct expect *ex, int cap)
{
	struct expect_file e;
	if (expect_read(path, &e) < 0)
		fail_msg("%s: cannot read", path);
	int n = expect_count(&e, "expect");
	if (n > cap)
		fail_msg("%s: more than %d expect tags", path, cap);
	for (int i = 0; i < n; i++) {
		const char *body = expect_body(&e, "expect", i);
		struct expect *x = &ex[i];
		memset(x, 0, sizeof(*x));
		char w[128], v[16];
		for (int k = 0; expect_word(body, k, w, sizeof(w)); k++)
			if (strncmp(w, "param=", 6) && strncmp(w, "index=", 6) && strncmp(w, "given=", 6) &&
			    strncmp(w, "any=", 4) && strncmp(w, "output=", 7) && strcmp(w, "copied=1"))
				fail_msg("%s: bad expect token '%s'", path, w);
		if (!expect_field(body, "param", v, sizeof(v)) ||
		    !expect_field(body, "index", x->index, sizeof(x->index)) ||
		    !expect_field(body, "given", x->given, sizeof(x->given)) ||
		    !expect_field(body, "any", x->any, sizeof(x->any)))
			fail_msg("%s: expect tag without param, index, given or any: %s", path, body);
		x->param = atoi(v);
		if (!expect_field(body, "output", x->output, sizeof(x->output)))
			strcpy(x->output, "?");
		x->copied = expect_field(body, "copied", v, sizeof(v)) && !strcmp(v, "1");
	}
	expect_free(&e);
	return n;
}

static const char *vn(enum verdict v)
{
	return verdict_name(v) ? verdict_name(v) : "null";
}

/* Analyse a parsed module's donations; *an is set (free with analysis_free). */
static int32_t analyse(struct hlo_module *m, struct analysis **an, struct donation_report **r)
{
	struct diag d;
	diag_init(&d, NULL);
	*an = analysis_run(m, NULL, &d);
	return *an ? donations_analyse(*an, r) : donations_unanalysed(m, d.first, r);
}

static void test_project_corpus(void **state)
{
	char **files = list_files("corpus/donation", ".hlo");
	int n_files = 0, failures = 0;
	for (char **f = files; *f; f++) {
		struct expect ex[16];
		int ne = read_expects(*f, ex, 16);
		if (ne == 0) {
			print_error("%s: no // expect: line\n", *f);
			failures++;
			continue;
		}
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		assert_non_null(m);
		struct analysis *an;
		struct donation_report *r;
		int32_t n = analyse(m, &an, &r);
		if (n != ne) {
			print_error("%s: %d donations, %d expected\n", *f, n, ne);
			failures++;
		}
		for (int i = 0; i < ne && i < n; i++) {
			char ix[64], oi[64] = "none";
			shape_index_to_string(&r[i].param_index, ix, sizeof(ix));
			if (r[i].output_index)
				shape_index_to_string(r[i].output_index, oi, sizeof(oi));
			int ok = r[i].param == ex[i].param && !strcmp(ix, ex[i].index) &&
				 !strcmp(vn(r[i].given), ex[i].given) && !strcmp(vn(r[i].any), ex[i].any) &&
				 (!strcmp(ex[i].output, "?") || !strcmp(oi, ex[i].output)) &&
				 r[i].copied == ex[i].copied;
			if (!ok) {
				print_error("%s: donation %d: got param=%d index=%s given=%s any=%s output=%s%s, "
					    "want param=%d index=%s given=%s any=%s output=%s%s\n%s\n",
					    *f, i, r[i].param, ix, vn(r[i].given), vn(r[i].any), oi,
					    r[i].copied ? " copied=1" : "", ex[i].param, ex[i].index,
					    ex[i].given, ex[i].any, ex[i].output, ex[i].copied ? " copied=1" : "",
					    r[i].evidence ? r[i].evidence : "");
				failures++;
			}
			/* every verdict comes with evidence; schedule-dependent with an edge */
			assert_non_null(r[i].evidence);
			assert_true(strlen(r[i].evidence) > 0);
			if (r[i].any == VERDICT_SCHEDULE_DEPENDENT) {
				assert_non_null(r[i].edge_from);
				assert_non_null(r[i].edge_to);
			}
			if (r[i].any == VERDICT_NOT_HONORED) {
				assert_non_null(r[i].reason);
				assert_null(r[i].output_index);
			}
		}
		analysis_free(an);
		hlo_module_free(m);
		n_files++;
	}
	free_list(files);
	assert_true(n_files >= 15);
	assert_int_equal(failures, 0);
}

/* Details the expect lines do not cover. */
static void test_evidence_details(void **state)
{
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file("corpus/donation/unsafe_scheduled.hlo", &d);
	assert_non_null(m);
	struct analysis *an;
	struct donation_report *r;
	assert_int_equal(analyse(m, &an, &r), 1);
	/* the late reader and the writer are named */
	assert_non_null(r[0].reader);
	assert_non_null(r[0].writer);
	assert_string_equal(r[0].reader->name, "b");
	assert_string_equal(r[0].writer->name, "a");
	assert_int_equal(r[0].late_read, 1);
	assert_string_equal(r[0].arg_path, "params['w']");
	assert_int_equal(r[0].bytes, 16);
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/donation/copied.hlo", &d);
	assert_int_equal(analyse(m, &an, &r), 1);
	assert_int_equal(r[0].copied, 1);
	assert_string_equal(r[0].copy->name, "cp");
	assert_int_equal(r[0].copy_bytes, 16);
	assert_non_null(strstr(r[0].evidence, "honored only through a copy"));
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/donation/must_alias_late_read.hlo", &d);
	assert_int_equal(analyse(m, &an, &r), 1);
	assert_int_equal(r[0].kind, DONATION_MUST_ALIAS);
	assert_non_null(strstr(r[0].evidence, "callers must donate"));
	assert_true(r[0].late_read != 0);
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/donation/schedule_dependent.hlo", &d);
	assert_int_equal(analyse(m, &an, &r), 1);
	/* the repair edge: b (the late reader) before a (the writer) */
	assert_string_equal(r[0].edge_from->name, "b");
	assert_string_equal(r[0].edge_to->name, "a");
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/donation/donor_matched_and_unmatched.hlo", &d);
	assert_int_equal(analyse(m, &an, &r), 2);
	assert_int_equal(r[1].donor_outcome, DONOR_NO_OUTPUT_SIZE);
	assert_non_null(strstr(r[1].evidence, "output {} f32[16]{0}, 64 bytes: taken by donor param 0 {} (params['w'])"));
	assert_non_null(strstr(r[0].evidence, "predicts may-alias output {}"));
	assert_non_null(strstr(r[0].evidence, "JAX (same dtype and shape, §7.5) pairs it with output {} too"));
	/* the header entries are restored after the predicted-alias analysis */
	assert_int_equal(m->n_aliases, 0);
	analysis_free(an);
	hlo_module_free(m);

	m = hlo_parse_file("corpus/donation/donor_dtype_differs.hlo", &d);
	assert_int_equal(analyse(m, &an, &r), 1);
	assert_non_null(strstr(r[0].evidence, "JAX (same dtype and shape, §7.5): no free output of type f32[4]"));
	analysis_free(an);
	hlo_module_free(m);

	/* no analysis: aliases unknown with the reason, donors still matched */
	m = hlo_parse_file("corpus/donation/donor_all_taken.hlo", &d);
	assert_int_equal(donations_unanalysed(m, "test", &r), 3);
	assert_int_equal(r[0].any, VERDICT_UNKNOWN);
	assert_string_equal(r[0].reason, "test");
	assert_int_equal(r[1].any, VERDICT_UNKNOWN);
	assert_non_null(r[1].output_index);
	assert_int_equal(r[2].any, VERDICT_NOT_HONORED);
	hlo_module_free(m);
}

/* XLA's walk: largest first, stable, per memory space; JAX's pairing. */
static void test_donor_match(void **state)
{
	struct hlo_module *m = parse_text(
		"HloModule m, buffer_donor={ (0, {}), (1, {}), (2, {}), (2, {}), (3, {}) }\n"
		"ENTRY main {\n"
		"  a = f32[2]{0} parameter(0)\n"
		"  b = f32[8]{0} parameter(1)\n"
		"  c = s32[8]{0} parameter(2)\n"
		"  d = f32[3]{0} parameter(3)\n"
		"  x = s32[8]{0} negate(c)\n"
		"  y = f32[2]{0} negate(a)\n"
		"  z = f32[8]{0} negate(b)\n"
		"  ROOT t = (s32[8]{0}, f32[2]{0}, f32[8]{0}) tuple(x, y, z)\n"
		"}\n");
	struct arena a;
	arena_init(&a);
	struct donor_matching dm;
	assert_int_equal(donor_match(m, &a, &dm), 0);
	/* (2, {}) registered twice: one leaf */
	assert_int_equal(dm.n_donors, 4);
	assert_int_equal(dm.leaf_of_entry[2], dm.leaf_of_entry[3]);
	assert_int_equal(dm.n_outputs, 3);
	/* 32-byte donors b, c (in parameter order) take the 32-byte outputs {0},
	 * {2} in output order: b -> {0} (s32! XLA looks at bytes only), c -> {2} */
	assert_int_equal(dm.donors[1].outcome, DONOR_MATCHED);
	assert_int_equal(dm.donors[1].output, 0);
	assert_int_equal(dm.donors[2].output, 2);
	assert_int_equal(dm.donors[0].output, 1);
	assert_int_equal(dm.donors[3].outcome, DONOR_NO_OUTPUT_SIZE);
	/* JAX pairs by dtype and dims: output {0} s32[8] takes c, {2} f32[8] takes b */
	assert_int_equal(dm.donors[2].jax_output, 0);
	assert_int_equal(dm.donors[1].jax_output, 2);
	assert_int_equal(dm.donors[3].jax_output, -1);
	char buf[400];
	donor_jax_note(m, &dm, 1, buf, sizeof(buf));
	assert_string_equal(buf, "JAX (same dtype and shape, §7.5) would pair it with output {2}");
	donor_reason(&dm, 3, buf, sizeof(buf));
	assert_string_equal(buf, "no output of 12 bytes");
	arena_free(&a);
	hlo_module_free(m);

	/* argument paths: op_name, unless it is an operation path */
	m = parse_text("HloModule m\nENTRY main {\n"
		       "  p = f32[2]{0} parameter(0), metadata={op_name=\"params['w']\"}\n"
		       "  q = f32[2]{0} parameter(1), metadata={op_name=\"jit(f)/add\"}\n"
		       "  ROOT r = f32[2]{0} add(p, q)\n}\n");
	assert_string_equal(param_arg_path(m, 0), "params['w']");
	assert_null(param_arg_path(m, 1));
	assert_null(param_arg_path(m, 2));
	struct shape_index ix = {0, NULL};
	describe_param(buf, sizeof(buf), m, 0, &ix);
	assert_string_equal(buf, "param 0 {} (params['w'])");
	hlo_module_free(m);
}

static int is_rejected_variant(const char *path)
{
	return strstr(path, "with_bad_donor") || strstr(path, "DoNotAliasTwice.with_alias") ||
	       strstr(path, "with_alias_and_donor");
}

/* Every alias and donor of the shared corpus gets a verdict. */
static void test_shared_corpus(void **state)
{
	static const char *const dirs[] = {"corpus/real", "corpus/xla-alias",
					   "corpus/xla-copy-insertion"};
	int32_t counts[VERDICT_NOT_HONORED + 1] = {0};
	int files = 0, rejected = 0, aliases = 0, donors = 0, reports = 0, analysed = 0;
	for (size_t k = 0; k < sizeof(dirs) / sizeof(*dirs); k++) {
		char *dir = shared_path(dirs[k]);
		char **list = list_files(dir, ".hlo");
		for (char **f = list; *f; f++) {
			size_t len;
			char *text = read_file(*f, &len);
			assert_non_null(text);
			int has = strstr(text, "input_output_alias=") || strstr(text, "buffer_donor=");
			free(text);
			if (!has)
				continue;
			struct diag d;
			diag_init(&d, NULL);
			struct hlo_module *m = hlo_parse_file(*f, &d);
			if (!m) {
				/* only the variants XLA itself rejects */
				if (!is_rejected_variant(*f))
					fail_msg("%s does not parse: %s", *f, d.first);
				rejected++;
				continue;
			}
			files++;
			struct analysis *an;
			struct donation_report *r;
			int32_t n = analyse(m, &an, &r);
			analysed += an != NULL;
			/* one report per alias and per distinct donor leaf */
			int32_t distinct = 0;
			for (int32_t i = 0; i < m->n_donors; i++) {
				int dup = 0;
				for (int32_t j = 0; j < i; j++)
					dup |= m->donors[j].param == m->donors[i].param &&
					       shape_index_equal(&m->donors[j].param_index, &m->donors[i].param_index);
				distinct += !dup;
			}
			assert_int_equal(n, m->n_aliases + distinct);
			aliases += m->n_aliases;
			donors += distinct;
			reports += n;
			for (int32_t i = 0; i < n; i++) {
				assert_true(r[i].any != VERDICT_NONE);
				assert_true(r[i].any >= VERDICT_SCHEDULE_DEPENDENT);
				assert_int_equal(r[i].given == VERDICT_NONE, !m->is_scheduled);
				assert_non_null(r[i].evidence);
			}
			donations_count(r, n, counts);
			analysis_free(an);
			hlo_module_free(m);
		}
		free_list(list);
		free(dir);
	}
	print_message("shared corpus: %d files with donations parsed (%d analysed), %d rejected as "
		      "XLA rejects them; %d aliases + %d donor leaves = %d verdicts: %d safe, %d unsafe, "
		      "%d schedule-dependent, %d unknown, %d not-honored\n",
		      files, analysed, rejected, aliases, donors, reports, counts[VERDICT_SAFE],
		      counts[VERDICT_UNSAFE], counts[VERDICT_SCHEDULE_DEPENDENT],
		      counts[VERDICT_UNKNOWN], counts[VERDICT_NOT_HONORED]);
	assert_int_equal(rejected, 5);
	assert_true(files >= 30);
	assert_int_equal(reports, counts[VERDICT_SAFE] + counts[VERDICT_UNSAFE] +
			 counts[VERDICT_SCHEDULE_DEPENDENT] + counts[VERDICT_UNKNOWN] +
			 counts[VERDICT_NOT_HONORED]);
}

/* ---- annotations ---- */

static int load_ann(const char *path, struct annotations *a, struct diag *d)
{
	diag_init(d, NULL);
	return annotations_load(a, path, d);
}

static void test_annotations_load(void **state)
{
	struct annotations a;
	struct diag d;
	assert_int_equal(load_ann("corpus/annotations/valid.xml", &a, &d), 0);
	assert_int_equal(a.n, 5);
	assert_int_equal(a.items[0].kind, ANNOT_DONATED);
	assert_int_equal(a.items[0].param, 0);
	assert_int_equal(a.items[0].index.n, 0);
	assert_int_equal(a.items[1].kind, ANNOT_DONATED);
	assert_string_equal(a.items[1].arg, "params['b']");
	assert_int_equal(a.items[2].kind, ANNOT_REUSE);
	assert_int_equal(a.items[2].output.n, 1);
	assert_int_equal(a.items[2].output.idx[0], 0);
	assert_int_equal(a.items[3].kind, ANNOT_ACCEPT_COPY);
	assert_string_equal(a.items[3].reason, "b is read by the loss after its update");
	assert_int_equal(a.items[4].index.n, 2);
	assert_int_equal(a.items[4].index.idx[1], 3);
	assert_string_equal(a.items[4].module, "jit_*");
	annotations_free(&a);

	/* invalid and hostile files: FILE:LINE: error, never a crash or a fetch */
	static const struct {
		const char *file;
		int line;          /* 0: no line */
		const char *msg;
	} bad[] = {
		{"corpus/annotations/invalid_unknown_element.xml", 3, "does not match the schema"},
		{"corpus/annotations/invalid_no_reason.xml", 3, "does not match the schema"},
		{"corpus/annotations/invalid_param_and_arg.xml", 3, "does not match the schema"},
		{"corpus/annotations/invalid_index.xml", 3, "does not match the schema"},
		{"corpus/annotations/invalid_version.xml", 2, "does not match the schema"},
		{"corpus/annotations/invalid_malformed.xml", 4, ""},
		{"corpus/annotations/hostile_xxe.xml", 2, "document type declarations and entities are not allowed"},
		{"corpus/annotations/hostile_billion_laughs.xml", 2, "document type declarations and entities are not allowed"},
		{"corpus/annotations/hostile_external_dtd.xml", 2, "document type declarations and entities are not allowed"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (load_ann(bad[i].file, &a, &d) == 0)
			fail_msg("%s loaded", bad[i].file);
		annotations_free(&a);
		if (d.first_pos.line != bad[i].line)
			fail_msg("%s: error on line %d, want %d (%s)", bad[i].file, d.first_pos.line,
				 bad[i].line, d.first);
		if (!strstr(d.first, bad[i].msg))
			fail_msg("%s: '%s' lacks '%s'", bad[i].file, d.first, bad[i].msg);
	}
	/* oversized: generated, over the 1 MiB bound */
	size_t big = XML_MAX_FILE_BYTES + 16;
	char *buf = malloc(big + 1);
	assert_non_null(buf);
	memset(buf, ' ', big);
	memcpy(buf, "<annotations version=\"1\">", 25);
	memcpy(buf + big - 14, "</annotations>", 14);
	buf[big] = 0;
	diag_init(&d, NULL);
	assert_int_equal(annotations_load_memory(&a, "big.xml", buf, big, &d), -1);
	annotations_free(&a);
	assert_non_null(strstr(d.first, "over the"));
	free(buf);
}

struct vio {
	int n;
	char msg[8][1024];
};

static void collect_vio(void *p, const struct annotation_violation *v)
{
	struct vio *s = p;
	if (s->n < 8)
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", v->message);
	s->n++;
}

static int has_msg(const struct vio *v, const char *needle)
{
	for (int i = 0; i < v->n && i < 8; i++)
		if (strstr(v->msg[i], needle))
			return 1;
	return 0;
}

static void test_annotations_check(void **state)
{
	struct annotations a;
	struct diag d;
	const char *xml =
		"<annotations version=\"1\">\n"
		"  <donated arg=\"params['w']\"/>\n"                 /* 2: through a copy, not accepted */
		"  <donated param=\"1\"/>\n"                          /* 3: not donated */
		"  <reuse output=\"{0}\" param=\"0\"/>\n"             /* 4: holds, but copied */
		"  <reuse output=\"{1}\" param=\"1\"/>\n"             /* 5: output {1} reuses nothing */
		"  <donated arg=\"params['nope']\"/>\n"               /* 6: no such argument */
		"  <donated param=\"7\"/>\n"                          /* 7: out of range */
		"  <donated param=\"0\" module=\"other_*\"/>\n"       /* 8: another module */
		"</annotations>\n";
	diag_init(&d, stderr);
	assert_int_equal(annotations_load_memory(&a, "t.xml", xml, strlen(xml), &d), 0);
	/* corpus/donation/copied.hlo with a second, undonated parameter */
	struct hlo_module *m = parse_text(
		"HloModule copied2, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		"ENTRY main {\n"
		"  p0 = f32[4]{0} parameter(0), metadata={op_name=\"params['w']\"}\n"
		"  p1 = f32[4]{0} parameter(1)\n"
		"  cp = f32[4]{0} copy(p0)\n"
		"  a = f32[4]{0} negate(cp)\n"
		"  b = f32[4]{0} add(a, cp)\n"
		"  c = f32[4]{0} add(b, p1)\n"
		"  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, c)\n"
		"}\n");
	struct analysis *an;
	struct donation_report *r;
	int32_t n = analyse(m, &an, &r);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].copied, 1);
	struct vio v = {0};
	int32_t k = annotations_check(&a, m, r, n, collect_vio, &v);
	assert_int_equal(k, 6);
	assert_true(has_msg(&v, "donated params['w'] is copied: no memory saved (expected by t.xml:2)"));
	assert_true(has_msg(&v, "param 1 is not donated; donate it (expected by t.xml:3)"));
	assert_true(has_msg(&v, "donated params['w'] is copied: no memory saved (expected by t.xml:4)"));
	assert_true(has_msg(&v, "output {1} reuses no argument's buffer; donate param 1 (expected by t.xml:5)"));
	assert_true(has_msg(&v, "no argument params['nope'] in this module's op_name metadata (expected by t.xml:6)"));
	assert_true(has_msg(&v, "no param 7: the entry computation has 2 parameters (expected by t.xml:7)"));
	annotations_free(&a);

	/* an accepted copy silences the copy complaints */
	const char *ok =
		"<annotations version=\"1\">\n"
		"  <donated arg=\"params\"/>\n"
		"  <reuse output=\"{0}\" arg=\"params['w']\"/>\n"
		"  <accept-copy param=\"0\" reason=\"b reads w after the update\"/>\n"
		"</annotations>\n";
	assert_int_equal(annotations_load_memory(&a, "ok.xml", ok, strlen(ok), &d), 0);
	v.n = 0;
	assert_int_equal(annotations_check(&a, m, r, n, collect_vio, &v), 0);
	assert_non_null(annotations_accepted_copy(&a, m, 0, &r[0].param_index));
	assert_null(annotations_accepted_copy(&a, m, 1, &r[0].param_index));
	annotations_free(&a);
	analysis_free(an);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_donor_match),
		cmocka_unit_test(test_project_corpus),
		cmocka_unit_test(test_evidence_details),
		cmocka_unit_test(test_shared_corpus),
		cmocka_unit_test(test_annotations_load),
		cmocka_unit_test(test_annotations_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
