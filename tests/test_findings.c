/* test_findings.c - fingerprints, severities, accepted items, and the
 * hardened configuration loader. */
#include "testutil.h"
#include "config.h"
#include "findings.h"
#include "lint.h"
#include "session.h"
#include "xmlload.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A rule for the tests: one finding per copy instruction. */
static int check_copies(struct rule_ctx *ctx)
{
	const struct hlo_module *m = ctx->module;
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t i = 0; i < m->comps[c]->n_instrs; i++) {
			const struct hlo_instruction *in = m->comps[c]->instrs[i];
			if (in->opcode == OP_COPY)
				finding_add(ctx, in, "copy %s", in->name);
		}
	return 0;
}

static const struct rule test_rule = {
	.id = "HP999", .slug = "test-copies", .severity = SEV_WARNING,
	.summary = "every copy", .check = check_copies, .flags = RULE_ABOUT_COPY,
};

/* Run test_rule over the text; findings finalized, accepted items marked. */
static void run_test_rule(const char *text, const struct lint_config *cfg, struct findings *fs)
{
	struct hlo_module *m = parse_text(text);
	findings_init(fs, m);
	struct rule_ctx ctx = {0};
	ctx.module = m;
	ctx.config = cfg;
	ctx.findings = fs;
	ctx.rule = &test_rule;
	ctx.severity = config_rule_severity(cfg, &test_rule);
	assert_int_equal(test_rule.check(&ctx), 0);
	findings_finalize(fs);
	for (int32_t i = 0; i < fs->n; i++) {
		const struct accept_item *a = config_accepted(cfg, &fs->items[i]);
		if (a)
			fs->items[i].suppressed = a->reason;
	}
	hlo_module_free(m);
}

static void test_name_stem(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{"copy.12", "copy"}, {"copy", "copy"}, {"Arg_0.1", "Arg_0"}, {"a.1.2", "a"},
		{"12", "12"}, {"x.", "x."}, {"fusion.3.clone", "fusion.3.clone"},
		{"all-reduce-start.3", "all-reduce-start"}, {".5", ".5"}, {"p.05", "p"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t n = name_stem_len(cases[i].in);
		char buf[64];
		snprintf(buf, sizeof(buf), "%.*s", (int)n, cases[i].in);
		assert_string_equal(buf, cases[i].out);
	}
}

static const char *mod_a =
	"HloModule m\n"
	"ENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %p = f32[4]{0} parameter(0)\n"
	"  %c = f32[] constant(1)\n"
	"  %copy.12 = f32[4]{0} copy(%p)\n"
	"  %n.3 = f32[4]{0} negate(%copy.12)\n"
	"  ROOT %t.4 = (f32[4]{0}, f32[4]{0}) tuple(%copy.12, %n.3)\n"
	"}\n";

/* copy.12 -> copy.13 and the other names renumbered */
static const char *mod_a_renumbered =
	"HloModule m\n"
	"ENTRY %main.2 (p: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %p.1 = f32[4]{0} parameter(0)\n"
	"  %c.7 = f32[] constant(1)\n"
	"  %copy.13 = f32[4]{0} copy(%p.1)\n"
	"  %n.9 = f32[4]{0} negate(%copy.13)\n"
	"  ROOT %t.10 = (f32[4]{0}, f32[4]{0}) tuple(%copy.13, %n.9)\n"
	"}\n";

/* the unrelated constant moved below the copy and a new instruction added */
static const char *mod_a_reordered =
	"HloModule m\n"
	"ENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %z = f32[] constant(0)\n"
	"  %c = f32[] constant(1)\n"
	"  %p = f32[4]{0} parameter(0)\n"
	"  %copy.12 = f32[4]{0} copy(%p)\n"
	"  %n.3 = f32[4]{0} negate(%copy.12)\n"
	"  ROOT %t.4 = (f32[4]{0}, f32[4]{0}) tuple(%copy.12, %n.3)\n"
	"}\n";

/* the copy's shape changed: a different finding */
static const char *mod_a_reshaped =
	"HloModule m\n"
	"ENTRY %main (p: f32[8]) -> (f32[8], f32[8]) {\n"
	"  %p = f32[8]{0} parameter(0)\n"
	"  %c = f32[] constant(1)\n"
	"  %copy.12 = f32[8]{0} copy(%p)\n"
	"  %n.3 = f32[8]{0} negate(%copy.12)\n"
	"  ROOT %t.4 = (f32[8]{0}, f32[8]{0}) tuple(%copy.12, %n.3)\n"
	"}\n";

static void test_fingerprint_renumbering(void **state)
{
	struct lint_config cfg;
	config_init(&cfg);
	struct findings a, b, c, d;
	run_test_rule(mod_a, &cfg, &a);
	run_test_rule(mod_a_renumbered, &cfg, &b);
	run_test_rule(mod_a_reordered, &cfg, &c);
	run_test_rule(mod_a_reshaped, &cfg, &d);
	assert_int_equal(a.n, 1);
	assert_int_equal(b.n, 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(d.n, 1);
	assert_string_equal(a.items[0].instruction, "copy.12");
	assert_string_equal(b.items[0].instruction, "copy.13");
	/* format: 16 hex digits, ':', counter */
	assert_int_equal(strlen(a.items[0].fingerprint), 18);
	assert_string_equal(a.items[0].fingerprint + 16, ":1");
	assert_string_equal(a.items[0].fingerprint, b.items[0].fingerprint);
	assert_string_equal(a.items[0].fingerprint, c.items[0].fingerprint);
	assert_int_not_equal(a.items[0].line, c.items[0].line); /* it did move */
	assert_string_not_equal(a.items[0].fingerprint, d.items[0].fingerprint);
	/* position and names come from the instruction */
	assert_int_equal(a.items[0].line, 5);
	assert_int_equal(a.items[0].col, 3);
	assert_string_equal(a.items[0].computation, "main");
	assert_string_equal(a.items[0].message, "copy copy.12");
	findings_free(&a);
	findings_free(&b);
	findings_free(&c);
	findings_free(&d);
	config_free(&cfg);
}

static void test_fingerprint_occurrences(void **state)
{
	/* two identical-looking copies: #1 and #2 in text order */
	const char *two =
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[4]{0} parameter(0)\n"
		"  copy.5 = f32[4]{0} copy(p)\n"
		"  copy.9 = f32[4]{0} copy(p)\n"
		"  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(copy.5, copy.9)\n"
		"}\n";
	const char *two_swapped =
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[4]{0} parameter(0)\n"
		"  copy.9 = f32[4]{0} copy(p)\n"
		"  copy.5 = f32[4]{0} copy(p)\n"
		"  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(copy.5, copy.9)\n"
		"}\n";
	struct lint_config cfg;
	config_init(&cfg);
	struct findings a, b;
	run_test_rule(two, &cfg, &a);
	run_test_rule(two_swapped, &cfg, &b);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.items[0].instruction, "copy.5");
	assert_string_equal(a.items[0].fingerprint + 16, ":1");
	assert_string_equal(a.items[1].fingerprint + 16, ":2");
	assert_memory_equal(a.items[0].fingerprint, a.items[1].fingerprint, 16);
	/* occurrence follows text order, not names */
	assert_string_equal(b.items[0].instruction, "copy.9");
	assert_string_equal(b.items[0].fingerprint, a.items[0].fingerprint);
	assert_string_equal(b.items[1].fingerprint, a.items[1].fingerprint);
	findings_free(&a);
	findings_free(&b);
	config_free(&cfg);
}

static void test_fingerprint_key(void **state)
{
	/* findings_add: the key separates two findings on one instruction */
	struct hlo_module *m = parse_text(mod_a);
	struct findings fs;
	findings_init(&fs, m);
	const struct hlo_instruction *cp = hlo_find_instruction_any(m, "copy.12");
	assert_non_null(cp);
	struct srcpos none = {0, 0, 0};
	findings_add(&fs, &test_rule, SEV_NOTE, cp, none, "{0}", "x");
	findings_add(&fs, &test_rule, SEV_NOTE, cp, none, "{1}", "y");
	findings_add(&fs, &test_rule, SEV_NOTE, NULL, (struct srcpos){"<test>", 1, 1}, NULL, "module");
	findings_finalize(&fs);
	assert_int_equal(fs.n, 3);
	assert_string_equal(fs.items[0].message, "module"); /* line 1 first */
	assert_null(fs.items[0].instruction);
	assert_memory_not_equal(fs.items[1].fingerprint, fs.items[2].fingerprint, 16);
	assert_string_equal(fs.items[1].fingerprint + 16, ":1");
	assert_string_equal(fs.items[2].fingerprint + 16, ":1");
	struct finding *f = &fs.items[1];
	finding_evidence(&fs, f, "line %d", 1);
	finding_evidence(&fs, f, "line %d", 2);
	assert_string_equal(f->evidence, "line 1\nline 2");
	findings_free(&fs);
	hlo_module_free(m);
}

static int load_str(struct lint_config *c, const char *xml, struct diag *d)
{
	diag_init(d, NULL);
	return config_load_memory(c, "cfg.xml", xml, strlen(xml), d);
}

static void test_severity_overrides(void **state)
{
	const struct rule *rt = rule_lookup("layout-round-trip");
	const struct rule *dn = rule_lookup("HP201");
	assert_non_null(rt);
	assert_non_null(dn);
	assert_ptr_equal(rule_lookup("hp104"), rt);
	assert_null(rule_lookup("HP000"));
	struct lint_config cfg;
	config_init(&cfg);
	assert_int_equal(config_rule_severity(&cfg, rt), SEV_WARNING);
	assert_int_equal(config_rule_severity(&cfg, dn), SEV_WARNING);
	cfg.strict_donation = 1;
	assert_int_equal(config_rule_severity(&cfg, dn), SEV_ERROR);
	assert_int_equal(config_rule_severity(&cfg, rt), SEV_WARNING); /* not a donation rule */
	config_free(&cfg);

	config_init(&cfg);
	struct diag d;
	assert_int_equal(load_str(&cfg,
		"<hloproof version=\"1\">\n"
		"  <strict-donation>true</strict-donation>\n"
		"  <rules>\n"
		"    <rule id=\"HP104\" severity=\"error\"/>\n"
		"    <rule id=\"donation-not-honored\" severity=\"note\"/>\n"
		"  </rules>\n"
		"  <fail-on>warning</fail-on>\n"
		"  <solver-timeout-ms>1500</solver-timeout-ms>\n"
		"</hloproof>\n", &d), 0);
	assert_int_equal(config_rule_severity(&cfg, rt), SEV_ERROR);
	/* an explicit severity wins over --strict-donation */
	assert_int_equal(config_rule_severity(&cfg, dn), SEV_NOTE);
	assert_int_equal(cfg.fail_on, FAIL_WARNING);
	assert_int_equal(cfg.timeout_ms, 1500);
	assert_true(cfg.strict_donation);
	assert_true(config_rule_enabled(&cfg, rt));

	/* the override reaches the findings through lint_run */
	struct hlo_module *m = parse_text(
		"HloModule m\n"
		"ENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  copy.1 = f32[2,3]{0,1} copy(p)\n"
		"  n = f32[2,3]{0,1} negate(copy.1)\n"
		"  ROOT copy.2 = f32[2,3]{1,0} copy(n)\n"
		"}\n");
	struct findings fs;
	findings_init(&fs, m);
	struct session_options so = {.stage = STAGE_AFTER}; /* the layout copies are kept */
	struct session *s = session_open(m, &cfg, &so);
	assert_int_equal(lint_run(s, &cfg, &fs), 0);
	session_close(s);
	assert_int_equal(fs.n, 1);
	assert_ptr_equal(fs.items[0].rule, rt);
	assert_int_equal(fs.items[0].severity, SEV_ERROR);
	findings_free(&fs);

	/* disabled: nothing */
	assert_int_equal(config_set_rule(&cfg, "layout-round-trip", 0), 0);
	assert_int_equal(config_set_rule(&cfg, "no-such-rule", 0), -1);
	findings_init(&fs, m);
	s = session_open(m, &cfg, &so);
	assert_int_equal(lint_run(s, &cfg, &fs), 0);
	session_close(s);
	assert_int_equal(fs.n, 0);
	findings_free(&fs);
	hlo_module_free(m);
	config_free(&cfg);
}

static void test_accepted_items(void **state)
{
	struct lint_config cfg;
	config_init(&cfg);
	struct diag d;
	struct findings fs;
	run_test_rule(mod_a, &cfg, &fs);
	char fp[32];
	snprintf(fp, sizeof(fp), "%s", fs.items[0].fingerprint);
	assert_null(fs.items[0].suppressed);
	findings_free(&fs);

	/* a donation item does not touch a copy rule; a copy glob does */
	assert_int_equal(load_str(&cfg,
		"<hloproof version=\"1\"><accept>\n"
		"  <donation instruction=\"copy*\" reason=\"not a donation\"/>\n"
		"  <copy computation=\"other\" reason=\"wrong computation\"/>\n"
		"  <copy computation=\"ma?n\" instruction=\"copy.*\" reason=\"wanted\"/>\n"
		"</accept></hloproof>\n", &d), 0);
	assert_int_equal(cfg.n_accepts, 3);
	assert_int_equal(cfg.accepts[2].line, 4);
	run_test_rule(mod_a, &cfg, &fs);
	assert_int_equal(fs.n, 1);
	assert_non_null(fs.items[0].suppressed);
	assert_string_equal(fs.items[0].suppressed, "wanted");
	findings_free(&fs);
	/* globs see the names as they are: main.2 is not ma?n */
	run_test_rule(mod_a_renumbered, &cfg, &fs);
	assert_null(fs.items[0].suppressed);
	findings_free(&fs);
	config_free(&cfg);

	/* by fingerprint, which survives renumbering */
	config_init(&cfg);
	char xml[512];
	snprintf(xml, sizeof(xml),
		 "<hloproof version=\"1\"><accept><copy fingerprint=\"%s\" reason=\"reviewed\"/>"
		 "</accept></hloproof>", fp);
	assert_int_equal(load_str(&cfg, xml, &d), 0);
	run_test_rule(mod_a_renumbered, &cfg, &fs);
	assert_string_equal(fs.items[0].suppressed, "reviewed");
	findings_free(&fs);
	run_test_rule(mod_a_reshaped, &cfg, &fs);
	assert_null(fs.items[0].suppressed);
	findings_free(&fs);
	config_free(&cfg);
}

/* The loader must refuse these, reporting the line where it can. */
static void expect_reject(const char *xml, size_t len, int line, const char *msg_part)
{
	struct lint_config cfg;
	config_init(&cfg);
	struct diag d;
	diag_init(&d, NULL);
	int rc = config_load_memory(&cfg, "hostile.xml", xml, len, &d);
	if (rc != -1)
		fail_msg("accepted: %.80s", xml);
	assert_int_equal(d.errors, 1);
	if (line >= 0 && d.first_pos.line != line)
		fail_msg("line %d, want %d: %s", d.first_pos.line, line, d.first);
	if (msg_part && !strstr(d.first, msg_part))
		fail_msg("message '%s' lacks '%s'", d.first, msg_part);
	config_free(&cfg);
}

static void reject(const char *xml, int line, const char *msg_part)
{
	expect_reject(xml, strlen(xml), line, msg_part);
}

static void test_config_valid(void **state)
{
	const char *ok =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!-- a comment -->\n"
		"<hloproof version=\"1\">\n"
		"  <accept>\n"
		"    <copy instruction=\"copy.1\" reason=\"layout &amp; fusion\"/>\n"
		"    <donation rule=\"HP201\" fingerprint=\"0123456789abcdef:2\" reason=\"ok\"/>\n"
		"  </accept>\n"
		"  <rules><rule id=\"HP104\" enabled=\"false\"/></rules>\n"
		"  <fail-on>none</fail-on>\n"
		"</hloproof>\n";
	struct lint_config cfg;
	config_init(&cfg);
	struct diag d;
	assert_int_equal(load_str(&cfg, ok, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(cfg.n_accepts, 2);
	assert_string_equal(cfg.accepts[0].reason, "layout & fusion");
	assert_int_equal(cfg.accepts[0].kind, ACCEPT_COPY);
	assert_int_equal(cfg.accepts[1].kind, ACCEPT_DONATION);
	assert_ptr_equal(cfg.accepts[1].rule, rule_lookup("HP201"));
	assert_false(config_rule_enabled(&cfg, rule_lookup("HP104")));
	assert_int_equal(cfg.fail_on, FAIL_NONE);
	config_free(&cfg);

	/* the minimal file */
	config_init(&cfg);
	assert_int_equal(load_str(&cfg, "<hloproof version=\"1\"/>", &d), 0);
	assert_int_equal(cfg.fail_on, FAIL_ERROR);
	config_free(&cfg);
}

static void test_config_hostile(void **state)
{
	/* XXE: external entity */
	reject("<?xml version=\"1.0\"?>\n"
	       "<!DOCTYPE hloproof [\n"
	       "  <!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n"
	       "]>\n"
	       "<hloproof version=\"1\"><fail-on>&xxe;</fail-on></hloproof>\n",
	       2, "not allowed");
	/* external DTD */
	reject("<?xml version=\"1.0\"?>\n"
	       "<!DOCTYPE hloproof SYSTEM \"http://example.com/evil.dtd\">\n"
	       "<hloproof version=\"1\"/>\n", 2, "not allowed");
	/* billion laughs */
	reject("<?xml version=\"1.0\"?>\n"
	       "<!DOCTYPE lolz [\n"
	       " <!ENTITY lol \"lol\">\n"
	       " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
	       " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
	       " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
	       "]>\n"
	       "<hloproof version=\"1\"><fail-on>&lol3;</fail-on></hloproof>\n", 2, "not allowed");
	/* an undeclared entity is a well-formedness error */
	reject("<hloproof version=\"1\">\n<fail-on>&lol;</fail-on></hloproof>\n", 2, NULL);
	/* oversized: rejected before parsing */
	size_t big = XML_MAX_FILE_BYTES + 1;
	char *buf = malloc(big + 1);
	memset(buf, ' ', big);
	memcpy(buf, "<hloproof version=\"1\">", 22);
	memcpy(buf + big - 11, "</hloproof>", 11);
	buf[big] = 0;
	expect_reject(buf, big, 0, "limit");
	free(buf);
	/* schema-invalid: unknown element, with its line */
	reject("<hloproof version=\"1\">\n"
	       "  <fail-on>warning</fail-on>\n"
	       "  <colour>red</colour>\n"
	       "</hloproof>\n", 3, "schema");
	/* schema-invalid: bad enum value, with its line */
	reject("<hloproof version=\"1\">\n\n  <fail-on>sometimes</fail-on>\n</hloproof>\n", 3, "schema");
	/* schema-invalid: accepted copy without reason; blank reason */
	reject("<hloproof version=\"1\">\n<accept>\n<copy instruction=\"c\"/>\n</accept></hloproof>\n", 3,
	       "schema");
	reject("<hloproof version=\"1\">\n<accept>\n<copy instruction=\"c\" reason=\"  \"/>\n</accept></hloproof>\n",
	       3, "schema");
	/* the same element twice */
	reject("<hloproof version=\"1\">\n<fail-on>note</fail-on>\n<fail-on>error</fail-on>\n</hloproof>", 3,
	       "twice");
	/* wrong version, wrong root */
	reject("<hloproof version=\"2\"/>", 1, "schema");
	reject("<config version=\"1\"/>", 1, "schema");
	/* semantic: unknown rule, item without a pattern, copy item for a donation rule */
	reject("<hloproof version=\"1\">\n<rules>\n\n<rule id=\"HP999\"/></rules></hloproof>", 4,
	       "unknown rule");
	reject("<hloproof version=\"1\"><accept>\n<copy reason=\"why\"/></accept></hloproof>", 2,
	       "needs a computation");
	reject("<hloproof version=\"1\"><accept>\n<copy rule=\"HP201\" instruction=\"x\" reason=\"why\"/>"
	       "</accept></hloproof>", 2, "not about copies");
	/* malformed XML: the line of the error */
	reject("<hloproof version=\"1\">\n<rules>\n</hloproof>\n", 3, NULL);
	/* not UTF-8 */
	expect_reject("\xff\xfe<\0h\0", 6, 1, "UTF-8");
	expect_reject("<hloproof version=\"1\">\0</hloproof>", 34, 1, "NUL");
	/* empty */
	expect_reject("", 0, -1, NULL);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/hloproof-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

static void write_text(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

static void test_config_files(void **state)
{
	char *dir = tmpdir();
	char sub[512], path[600], deep[512];
	snprintf(sub, sizeof(sub), "%s/a", dir);
	snprintf(deep, sizeof(deep), "%s/a/b", dir);
	mkdir(sub, 0700);
	mkdir(deep, 0700);
	/* found walking up from a/b */
	snprintf(path, sizeof(path), "%s/.hloproof.xml", dir);
	const char *ok = "<hloproof version=\"1\"><fail-on>note</fail-on></hloproof>\n";
	write_text(path, ok, strlen(ok));
	char *found = config_find(deep);
	assert_non_null(found);
	assert_string_equal(found, path);
	struct lint_config cfg;
	config_init(&cfg);
	struct diag d;
	diag_init(&d, NULL);
	assert_int_equal(config_load(&cfg, found, &d), 0);
	assert_int_equal(cfg.fail_on, FAIL_NOTE);
	config_free(&cfg);
	free(found);

	/* an oversized file is refused by its size, before reading */
	size_t big = (1u << 20) + 100;
	char *buf = malloc(big);
	memset(buf, '\n', big);
	memcpy(buf, "<hloproof version=\"1\">", 22);
	memcpy(buf + big - 12, "</hloproof>\n", 12);
	write_text(path, buf, big);
	free(buf);
	config_init(&cfg);
	diag_init(&d, NULL);
	assert_int_equal(config_load(&cfg, path, &d), -1);
	assert_non_null(strstr(d.first, "limit"));
	config_free(&cfg);

	/* a missing file */
	config_init(&cfg);
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/none.xml", dir);
	assert_int_equal(config_load(&cfg, path, &d), -1);
	assert_non_null(strstr(d.first, "cannot open"));
	config_free(&cfg);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_stem),
		cmocka_unit_test(test_fingerprint_renumbering),
		cmocka_unit_test(test_fingerprint_occurrences),
		cmocka_unit_test(test_fingerprint_key),
		cmocka_unit_test(test_severity_overrides),
		cmocka_unit_test(test_accepted_items),
		cmocka_unit_test(test_config_valid),
		cmocka_unit_test(test_config_hostile),
		cmocka_unit_test(test_config_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
