/* test_rules.c - every registered rule has its documentation and its corpus
 * cases, fires on corpus/rules/<slug>/fires*.hlo and stays quiet on
 * clean*.hlo, with exactly the findings each case's expect-finding tags
 * state (tests/expect.h; `make fixtures-update` rewrites them); then the two
 * IR rules in detail. */
#include "testutil.h"
#include "expect.h"
#include "annotations.h"
#include "config.h"
#include "findings.h"
#include "lint.h"
#include "session.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A configuration with only rule r enabled. */
static void only(struct lint_config *cfg, const struct rule *r)
{
	config_init(cfg);
	for (int i = 0; rule_registry[i]; i++)
		config_set_rule(cfg, rule_registry[i]->slug, rule_registry[i] == r);
}

/* Run the rules as `check` does (cmd_check.c check_one): one session with
 * check's options, the copy verdicts first, then lint_run. */
static int run_as_check(struct hlo_module *m, const struct lint_config *cfg,
			const struct annotations *ann, enum module_stage stage, struct findings *out)
{
	struct session_options so = {0};
	session_options_for_rules(&so);
	so.annotations = ann;
	so.stage = stage;
	struct session *s = session_open(m, cfg, &so);
	session_copy_verdicts(s);
	int rc = lint_run(s, cfg, out);
	session_close(s);
	return rc;
}

/* Parse a file and run one rule; returns its number of findings (or -1 when
 * the file does not parse). */
static int run_rule_file_q(const struct rule *r, const char *path, struct findings *out, int quiet)
{
	struct diag d;
	diag_init(&d, quiet ? NULL : stderr);
	struct hlo_module *m = hlo_parse_file(path, &d);
	if (!m)
		return -1;
	struct lint_config cfg;
	only(&cfg, r);
	findings_init(out, m);
	/* a case may come with its --annotations file: the same name, .xml */
	char xml[600];
	snprintf(xml, sizeof(xml), "%.*s.xml", (int)(strlen(path) - 4), path);
	struct annotations ann;
	memset(&ann, 0, sizeof(ann));
	FILE *probe = fopen(xml, "r");
	int have_ann = probe != NULL;
	if (probe)
		fclose(probe);
	if (have_ann) {
		struct diag ad;
		diag_init(&ad, stderr);
		if (annotations_load(&ann, xml, &ad) < 0)
			fail_msg("%s: does not load", xml);
	}
	/* the cases are modules as copy insertion sees them (--stage=after),
	 * but for the *preopt* ones: dumps before optimization (auto) */
	enum module_stage stage = strstr(path, "preopt") ? STAGE_AUTO : STAGE_AFTER;
	int rc = run_as_check(m, &cfg, have_ann ? &ann : NULL, stage, out);
	annotations_free(&ann);
	hlo_module_free(m);
	config_free(&cfg);
	if (rc < 0)
		fail_msg("%s: rule %s reported an internal error", path, r->id);
	for (int32_t i = 0; i < out->n; i++)
		assert_ptr_equal(out->items[i].rule, r);
	return out->n;
}

static int run_rule_file(const struct rule *r, const char *path, struct findings *out)
{
	return run_rule_file_q(r, path, out, 0);
}

static int run_rule_text(const struct rule *r, const char *text, struct findings *out,
			 int strict)
{
	struct hlo_module *m = parse_text(text);
	struct lint_config cfg;
	only(&cfg, r);
	cfg.strict_donation = strict;
	findings_init(out, m);
	assert_int_equal(run_as_check(m, &cfg, NULL, STAGE_AFTER, out), 0);
	hlo_module_free(m);
	config_free(&cfg);
	return out->n;
}

static int starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* A finding as its case's expect-finding tag states it (tests/expect.h):
 * "LINE:COL: SEVERITY: HEADLINE [ID slug]", the text report's line without
 * the file name and the source place. */
static void finding_tag(const struct finding *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d:%d: %s: %s [%s %s]", f->line, f->col, severity_name(f->severity),
		 f->message, f->rule->id, f->rule->slug);
}

/* The case's findings are exactly its expect-finding tags, in order ("none"
 * for a clean case). Returns the number of failures; with
 * HLOPROOF_FIXTURES_UPDATE=1 rewrites the tags instead. */
static int check_expected_findings(const char *path, const struct findings *fs)
{
	struct expect_file e;
	if (expect_read(path, &e) < 0) {
		print_error("%s: cannot read\n", path);
		return 1;
	}
	int32_t n = fs->n;
	char **got = calloc((size_t)n + 1, sizeof(*got));
	assert_non_null(got);
	for (int32_t i = 0; i < n; i++) {
		char line[4096];
		finding_tag(&fs->items[i], line, sizeof(line));
		got[i] = strdup(line);
	}
	if (!n)
		got[n++] = strdup("none");
	int failures = 0, want = expect_count(&e, "expect-finding");
	for (int32_t i = 0; i < n || i < want; i++) {
		const char *w = expect_body(&e, "expect-finding", i);
		if (i < n && w && !strcmp(w, got[i]))
			continue;
		if (!expect_updating())
			print_error("%s: finding %d:\n  want: %s\n  got:  %s\n", path, i + 1,
				    w ? w : "(no expect-finding tag)", i < n ? got[i] : "(no finding)");
		failures++;
		break;
	}
	if (failures && expect_updating()) {
		if (expect_rewrite(path, "expect-finding", (const char *const *)got, n) < 0) {
			print_error("%s: cannot rewrite\n", path);
		} else {
			printf("%s: expect-finding tags rewritten\n", path);
			failures = 0;
		}
	}
	for (int32_t i = 0; i < n; i++)
		free(got[i]);
	free(got);
	expect_free(&e);
	return failures;
}

/* The contract of every rule in the registry. Fails when a rule lacks its
 * doc page or its firing/clean cases, or when they disagree with it. */
static void test_every_rule(void **state)
{
	int failures = 0;
	for (int i = 0; rule_registry[i]; i++) {
		const struct rule *r = rule_registry[i];
		char path[512];
		/* id and slug */
		if (strlen(r->id) != 5 || !starts_with(r->id, "HP") || !r->summary || !r->check) {
			print_error("rule %s: bad id, summary or check\n", r->slug);
			failures++;
		}
		/* documentation, in the tree and embedded */
		snprintf(path, sizeof(path), "docs/rules/%s.md", r->slug);
		char *doc = read_file(path, NULL);
		if (!doc) {
			print_error("rule %s: no %s\n", r->id, path);
			failures++;
		} else {
			static const char *const sections[] = {"## Example that fires",
							       "## Example that does not fire",
							       "## How to fix"};
			for (int k = 0; k < 3; k++)
				if (!strstr(doc, sections[k])) {
					print_error("%s: no '%s' section\n", path, sections[k]);
					failures++;
				}
			if (!strstr(doc, r->id)) {
				print_error("%s: does not name %s\n", path, r->id);
				failures++;
			}
			const char *emb = rule_doc(r->slug);
			if (!emb || strcmp(emb, doc)) {
				print_error("rule %s: embedded doc differs from %s (rebuild)\n", r->id, path);
				failures++;
			}
			free(doc);
		}
		/* corpus cases */
		snprintf(path, sizeof(path), "corpus/rules/%s", r->slug);
		char **files = list_files(path, ".hlo");
		int fires = 0, clean = 0;
		for (char **f = files; *f; f++) {
			const char *base = strrchr(*f, '/') + 1;
			int want_fire = starts_with(base, "fires");
			if (!want_fire && !starts_with(base, "clean")) {
				print_error("%s: name must start with fires or clean\n", *f);
				failures++;
				continue;
			}
			struct findings fs;
			int n = run_rule_file(r, *f, &fs);
			if (n < 0) {
				print_error("%s: does not parse\n", *f);
				failures++;
			} else if (want_fire && n == 0) {
				print_error("%s: rule %s does not fire\n", *f, r->id);
				failures++;
			} else if (!want_fire && n > 0) {
				print_error("%s: rule %s fires: %s\n", *f, r->id, fs.items[0].message);
				failures++;
			}
			if (n >= 0) {
				failures += check_expected_findings(*f, &fs);
				findings_free(&fs);
			}
			fires += want_fire;
			clean += !want_fire;
		}
		free_list(files);
		if (!fires || !clean) {
			print_error("rule %s: corpus/rules/%s/ needs a fires*.hlo and a clean*.hlo case "
				    "(%d and %d)\n", r->id, r->slug, fires, clean);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
	assert_true(rule_count() >= 2);
}

static void test_layout_round_trip(void **state)
{
	const struct rule *r = rule_lookup("layout-round-trip");
	assert_non_null(r);
	struct findings fs;
	assert_int_equal(run_rule_file(r, "corpus/rules/layout-round-trip/fires_copy_pair.hlo", &fs), 1);
	const struct finding *f = &fs.items[0];
	assert_string_equal(f->instruction, "copy.1");
	assert_int_equal(f->line, 6);
	assert_int_equal(f->severity, SEV_WARNING);
	assert_non_null(strstr(f->message, "p goes {1,0} -> {0,1} -> {1,0} through 2 copies"));
	assert_non_null(strstr(f->message, "2 copies"));
	assert_non_null(strstr(f->message, "copies, 48 B for nothing; keep one layout")); /* 2 x 24 */
	assert_non_null(f->evidence);
	assert_non_null(strstr(f->evidence, "5:3: p = f32[2,3]{1,0} parameter"));
	assert_non_null(strstr(f->evidence, "8:8: copy.2 = f32[2,3]{1,0} copy  <- relayout {0,1} -> {1,0}, 24 bytes"));
	findings_free(&fs);

	assert_int_equal(run_rule_file(r, "corpus/rules/layout-round-trip/fires_transpose_bitcast.hlo", &fs), 1);
	f = &fs.items[0];
	assert_string_equal(f->instruction, "copy.1");
	assert_non_null(strstr(f->message, "through 2 copies, 36 B for nothing")); /* f32[3,2] 24 + f16[2,3] 12 */
	assert_non_null(strstr(f->evidence, ": copy.1 = "));
	assert_non_null(strstr(f->evidence, ": copy.2 = "));
	assert_non_null(strstr(f->evidence, "t2 = f16[2,3]{0,1} transpose  <- no data movement"));
	findings_free(&fs);

	/* a transpose that really moves data ends the chain */
	assert_int_equal(run_rule_text(r,
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  copy.1 = f32[2,3]{0,1} copy(p)\n"
		"  t = f32[3,2]{0,1} transpose(copy.1), dimensions={1,0}\n"
		"  t2 = f32[2,3]{1,0} transpose(t), dimensions={1,0}\n"
		"  ROOT copy.2 = f32[2,3]{0,1} copy(t2)\n"
		"}\n", &fs, 0), 0);
	findings_free(&fs);

	/* a memory-space copy is not a relayout, and ends the chain */
	assert_int_equal(run_rule_text(r,
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  copy.1 = f32[2,3]{0,1} copy(p)\n"
		"  h = f32[2,3]{0,1:S(5)} copy(copy.1)\n"
		"  ROOT copy.2 = f32[2,3]{1,0:S(5)} copy(h)\n"
		"}\n", &fs, 0), 0);
	findings_free(&fs);

	/* an elementwise op with another operand, a chain through two layouts
	 * and back (A -> B -> C -> A), and two return copies from one start */
	assert_int_equal(run_rule_text(r,
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[2,3,4]{2,1,0} parameter(0)\n"
		"  q = f32[2,3,4]{0,1,2} parameter(1)\n"
		"  copy.1 = f32[2,3,4]{0,1,2} copy(p)\n"
		"  a = f32[2,3,4]{0,1,2} add(copy.1, q)\n"
		"  copy.2 = f32[2,3,4]{1,0,2} copy(a)\n"
		"  copy.3 = f32[2,3,4]{2,1,0} copy(copy.2)\n"
		"  copy.4 = f32[2,3,4]{2,1,0} copy(a)\n"
		"  ROOT t = (f32[2,3,4]{2,1,0}, f32[2,3,4]{2,1,0}) tuple(copy.3, copy.4)\n"
		"}\n", &fs, 0), 2);
	/* from copy.1: back via copy.3 (3 copies) and via copy.4 (2 copies);
	 * from copy.2 ({0,1,2} -> {1,0,2}): no way back to {0,1,2} */
	int via3 = 0, via4 = 0;
	for (int32_t i = 0; i < fs.n; i++) {
		if (strstr(fs.items[i].evidence, ": copy.3 = ")) {
			via3++;
			assert_non_null(strstr(fs.items[i].message, "3 copies"));
		}
		if (strstr(fs.items[i].evidence, ": copy.4 = ")) {
			via4++;
			assert_non_null(strstr(fs.items[i].message, "2 copies"));
		}
	}
	assert_int_equal(via3, 1);
	assert_int_equal(via4, 1);
	/* distinct fingerprints for the two chains from copy.1 */
	assert_string_not_equal(fs.items[0].fingerprint, fs.items[1].fingerprint);
	findings_free(&fs);
}

static void test_donation_not_honored(void **state)
{
	const struct rule *r = rule_lookup("donation-not-honored");
	assert_non_null(r);
	struct findings fs;
	assert_int_equal(run_rule_file(r, "corpus/rules/donation-not-honored/fires_no_output_size.hlo", &fs), 1);
	const struct finding *f = &fs.items[0];
	assert_string_equal(f->instruction, "b");
	assert_int_equal(f->severity, SEV_WARNING);
	assert_string_equal(f->message,
		"donated params['b'] (32 B) is reused by no output: no output has its size; return "
		"one of its shape or stop donating it");
	assert_non_null(strstr(f->evidence, "buffer_donor param 1 {} (params['b']) f32[8]{0}: no output of 32 bytes"));
	/* the candidates considered, with w's output taken */
	assert_non_null(strstr(f->evidence, "output {} f32[16]{0}, 64 bytes: taken by donor param 0 {} (params['w'])"));
	findings_free(&fs);

	assert_int_equal(run_rule_file(r, "corpus/rules/donation-not-honored/fires_taken_and_aliased.hlo", &fs), 2);
	assert_string_equal(fs.items[0].instruction, "t");
	assert_string_equal(fs.items[1].instruction, "t");
	assert_memory_not_equal(fs.items[0].fingerprint, fs.items[1].fingerprint, 16);
	for (int k = 0; k < 2; k++) {
		assert_non_null(strstr(fs.items[k].message, "every output of its size is taken"));
		assert_non_null(strstr(fs.items[k].evidence, "every candidate output of 16 bytes is already "
							"aliased (1 by input_output_alias, 1 by earlier donors)"));
		assert_non_null(strstr(fs.items[k].evidence, "output {1} s32[4]{0}, 16 bytes: already aliased to param 3 {}"));
		assert_non_null(strstr(fs.items[k].evidence, "output {0} s32[4]{0}, 16 bytes: taken by donor param 0 {}"));
		assert_non_null(strstr(fs.items[k].evidence, "output {2} s32[], 4 bytes: free, smaller"));
	}
	assert_non_null(strstr(fs.items[0].message, "param 1 {0}"));
	assert_non_null(strstr(fs.items[1].message, "param 1 {1}"));
	/* the finding sits on the donor entry in the header */
	assert_int_equal(fs.items[0].line, 4);
	findings_free(&fs);

	assert_int_equal(run_rule_file(r, "corpus/rules/donation-not-honored/fires_memory_space.hlo", &fs), 1);
	assert_non_null(strstr(fs.items[0].message, "no output of its size is in its memory space"));
	assert_true(starts_with(fs.items[0].evidence, "buffer_donor param 0 {} f32[32]{0:S(5)}: memory space differs "
				"(donor in S(5), outputs of 128 bytes in S(0))\noutput {} f32[32]{0}, 128 bytes: "
				"free, but in memory space 0\n"));
	/* JAX's own pairing also wants the same memory kind */
	assert_non_null(strstr(fs.items[0].evidence, "JAX (same dtype and shape, §7.5): no free output of type f32[32] in memory space S(5);"));
	findings_free(&fs);

	/* --strict-donation makes it an error */
	const char *dyn =
		"HloModule m, buffer_donor={ (0, {}) }\n"
		"ENTRY main {\n"
		"  p = f32[8]{0} parameter(0)\n"
		"  n = s32[] parameter(1)\n"
		"  ROOT d = f32[<=8]{0} set-dimension-size(p, n), dimensions={0}\n"
		"}\n";
	assert_int_equal(run_rule_text(r, dyn, &fs, 1), 1);
	assert_int_equal(fs.items[0].severity, SEV_ERROR);
	assert_non_null(strstr(fs.items[0].message, "the result is dynamically shaped"));
	assert_non_null(strstr(fs.items[0].evidence, "result shape is dynamic"));
	findings_free(&fs);

}

/* Modules nobody here wrote: XLA's own buffer-donor tests. */
static void test_donation_shared_corpus(void **state)
{
	const struct rule *r = rule_lookup("HP201");
	static const char *const clean[] = {
		"corpus/xla-alias/HloBufferDonorConfigTest_SimpleBufferDonor.with_donor.hlo",
		"corpus/xla-alias/HloBufferDonorConfigTest_SimpleBufferDonorWithTupleInput.with_donor.hlo",
		"corpus/xla-alias/HloBufferDonorConfigTest_BufferDonorInputOutputAliasOverlap.with_donor.hlo",
	};
	for (size_t i = 0; i < sizeof(clean) / sizeof(*clean); i++) {
		char *p = shared_path(clean[i]);
		struct findings fs;
		int n = run_rule_file(r, p, &fs);
		if (n != 0)
			fail_msg("%s: %d findings", p, n);
		findings_free(&fs);
		free(p);
	}
	/* a donor that is also aliased: rejected by XLA's verifier; if the
	 * parser lets it through, the rule says why it is not a donor */
	char *p = shared_path("corpus/xla-alias/HloBufferDonorConfigTest_BufferDonorInputOutputAliasOverlap.with_alias_and_donor.hlo");
	struct findings fs;
	int n = run_rule_file_q(r, p, &fs, 1);
	if (n >= 0) {
		assert_int_equal(n, 1);
		assert_non_null(strstr(fs.items[0].message, "already aliased"));
		findings_free(&fs);
	}
	free(p);
}

/* The tags bite: a wrong headline, a missing finding, a finding too many
 * and a case without tags fail; fixtures-update rewrites them to what the
 * rule says, and only the tags change. */
static void test_expected_findings_bite(void **state)
{
	const struct rule *r = rule_lookup("layout-round-trip");
	int updating = expect_updating(); /* make fixtures-update runs this too */
	unsetenv("HLOPROOF_FIXTURES_UPDATE");
	char tmp[] = "/tmp/hloproof-expect-XXXXXX";
	assert_non_null(mkdtemp(tmp));
	char path[128];
	snprintf(path, sizeof(path), "%s/fires_copy_pair.hlo", tmp);
	size_t len;
	char *orig = read_file("corpus/rules/layout-round-trip/fires_copy_pair.hlo", &len);
	assert_non_null(orig);
	struct expect_file e;
	assert_int_equal(expect_read("corpus/rules/layout-round-trip/fires_copy_pair.hlo", &e), 0);
	const char *right = expect_body(&e, "expect-finding", 0);
	assert_non_null(right);
	const char *const wrong[] = {"6:3: warning: some other words [HP104 layout-round-trip]"};
	const char *const two[] = {right, right};
	struct findings fs;
	for (int k = 0; k < 4; k++) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fwrite(orig, 1, len, f);
		fclose(f);
		if (k == 0)
			assert_int_equal(expect_rewrite(path, "expect-finding", wrong, 1), 0);
		else if (k == 1)
			assert_int_equal(expect_rewrite(path, "expect-finding", two, 2), 0);
		else if (k == 2)
			assert_int_equal(expect_rewrite(path, "expect-finding", NULL, 0), 0);
		else
			assert_int_equal(expect_rewrite(path, "expect-finding", (const char *const[]){"none"}, 1), 0);
		assert_int_equal(run_rule_file_q(r, path, &fs, 1), 1);
		assert_int_equal(check_expected_findings(path, &fs), 1);
		findings_free(&fs);
	}
	/* fixtures-update: the tag becomes the finding; nothing else changes */
	setenv("HLOPROOF_FIXTURES_UPDATE", "1", 1);
	assert_int_equal(run_rule_file_q(r, path, &fs, 1), 1);
	assert_int_equal(check_expected_findings(path, &fs), 0);
	findings_free(&fs);
	unsetenv("HLOPROOF_FIXTURES_UPDATE");
	size_t len2;
	char *now = read_file(path, &len2);
	assert_non_null(now);
	assert_int_equal(len2, len);
	assert_memory_equal(now, orig, len);
	assert_int_equal(run_rule_file_q(r, path, &fs, 1), 1);
	assert_int_equal(check_expected_findings(path, &fs), 0);
	findings_free(&fs);
	free(now);
	free(orig);
	expect_free(&e);
	remove(path);
	rmdir(tmp);
	if (updating)
		setenv("HLOPROOF_FIXTURES_UPDATE", "1", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule),
		cmocka_unit_test(test_expected_findings_bite),
		cmocka_unit_test(test_layout_round_trip),
		cmocka_unit_test(test_donation_not_honored),
		cmocka_unit_test(test_donation_shared_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
