/* test_lex.c - the HLO lexer: token kinds, spans, positions, raw values, errors. */
#include "testutil.h"
#include "lex.h"
#include <string.h>

struct lexed {
	struct lexer lx;
	struct diag d;
};

static void start(struct lexed *l, const char *text)
{
	diag_init(&l->d, NULL);
	lex_init(&l->lx, "<t>", text, strlen(text), &l->d);
}

/* Next token must be of kind k with text s (NULL: any text). */
static struct token want(struct lexed *l, enum tok k, const char *s)
{
	struct token t;
	lex_next(&l->lx, &t);
	if (t.kind != k)
		fail_msg("token '%.*s': kind %s, want %s", (int)t.len, t.p, tok_kind_name(t.kind),
			 tok_kind_name(k));
	if (s && (t.len != strlen(s) || memcmp(t.p, s, t.len) != 0))
		fail_msg("token text '%.*s', want '%s'", (int)t.len, t.p, s);
	return t;
}

static void test_instruction_tokens(void **state)
{
	struct lexed l;
	start(&l, "ROOT %all-reduce-start.3 = f32[8,<=4,?]{1,0} add(x.1, %y), dimensions={0}");
	want(&l, TOK_IDENT, "ROOT");
	struct token n = want(&l, TOK_NAME, "all-reduce-start.3");
	assert_int_equal(n.col, 6); /* the '%' */
	want(&l, TOK_EQUAL, "=");
	want(&l, TOK_IDENT, "f32");
	want(&l, TOK_LBRACKET, "[");
	want(&l, TOK_INT, "8");
	want(&l, TOK_COMMA, ",");
	want(&l, TOK_LEQ, "<=");
	want(&l, TOK_INT, "4");
	want(&l, TOK_COMMA, ",");
	want(&l, TOK_QUESTION, "?");
	want(&l, TOK_RBRACKET, "]");
	want(&l, TOK_LBRACE, "{");
	want(&l, TOK_INT, "1");
	want(&l, TOK_COMMA, NULL);
	want(&l, TOK_INT, "0");
	want(&l, TOK_RBRACE, NULL);
	want(&l, TOK_IDENT, "add");
	want(&l, TOK_LPAREN, NULL);
	want(&l, TOK_IDENT, "x.1");
	want(&l, TOK_COMMA, NULL);
	want(&l, TOK_NAME, "y");
	want(&l, TOK_RPAREN, NULL);
	want(&l, TOK_COMMA, NULL);
	struct token a = want(&l, TOK_ATTR, "dimensions");
	assert_int_equal(a.col, 60);
	want(&l, TOK_LBRACE, NULL);
	want(&l, TOK_INT, "0");
	want(&l, TOK_RBRACE, NULL);
	want(&l, TOK_EOF, NULL);
	want(&l, TOK_EOF, NULL); /* stays at EOF */
	assert_int_equal(l.d.errors, 0);
}

static void test_numbers_strings_arrows(void **state)
{
	struct lexed l;
	start(&l, "-12 3.5e-2 1e9 3x3 0_1x1_0 \"a\\\"b\" 'c' (a: f32[])->f32[] b01f_01io->b01f");
	want(&l, TOK_INT, "-12");
	want(&l, TOK_FLOAT, "3.5e-2");
	want(&l, TOK_FLOAT, "1e9");
	want(&l, TOK_IDENT, "3x3");
	want(&l, TOK_IDENT, "0_1x1_0");
	want(&l, TOK_STRING, "\"a\\\"b\"");
	want(&l, TOK_STRING, "'c'");
	want(&l, TOK_LPAREN, NULL);
	want(&l, TOK_IDENT, "a");
	want(&l, TOK_COLON, NULL);
	want(&l, TOK_IDENT, "f32");
	want(&l, TOK_LBRACKET, NULL);
	want(&l, TOK_RBRACKET, NULL);
	want(&l, TOK_RPAREN, NULL);
	want(&l, TOK_ARROW, "->");
	want(&l, TOK_IDENT, "f32");
	want(&l, TOK_LBRACKET, NULL);
	want(&l, TOK_RBRACKET, NULL);
	want(&l, TOK_IDENT, "b01f_01io"); /* the '-' of '->' is not part of the name */
	want(&l, TOK_ARROW, NULL);
	want(&l, TOK_IDENT, "b01f");
	want(&l, TOK_EOF, NULL);
}

static void test_comments_and_positions(void **state)
{
	struct lexed l;
	start(&l, "// header comment\n  a /*index=5*/b\n/* multi\nline */ c // tail\n\td");
	struct token t = want(&l, TOK_IDENT, "a");
	assert_int_equal(t.line, 2);
	assert_int_equal(t.col, 3);
	t = want(&l, TOK_IDENT, "b");
	assert_int_equal(t.line, 2);
	assert_int_equal(t.col, 16);
	t = want(&l, TOK_IDENT, "c");
	assert_int_equal(t.line, 4);
	assert_int_equal(t.col, 9);
	t = want(&l, TOK_IDENT, "d");
	assert_int_equal(t.line, 5);
	assert_int_equal(t.col, 2); /* a tab counts as one column */
	want(&l, TOK_EOF, NULL);
}

/* Strings are skipped with memchr: escaped quotes and backslashes, line
 * breaks inside (raw and escaped), and the lines counted for what follows. */
static void test_strings_and_lines(void **state)
{
	struct lexed l;
	start(&l, "\"a\\\"b\\\\\" x 'q\\'\"' \"l1\nl2\\\nl3\" y\n \"\\\\\" z");
	want(&l, TOK_STRING, "\"a\\\"b\\\\\"");
	struct token t = want(&l, TOK_IDENT, "x");
	assert_int_equal(t.line, 1);
	assert_int_equal(t.col, 10);
	want(&l, TOK_STRING, "'q\\'\"'");
	want(&l, TOK_STRING, "\"l1\nl2\\\nl3\"");
	t = want(&l, TOK_IDENT, "y");
	assert_int_equal(t.line, 3);
	assert_int_equal(t.col, 5);
	want(&l, TOK_STRING, "\"\\\\\"");
	t = want(&l, TOK_IDENT, "z");
	assert_int_equal(t.line, 4);
	assert_int_equal(t.col, 7);
	want(&l, TOK_EOF, NULL);
	/* long strings (past the byte-by-byte prefix): an escape or a line
	 * break at every position around the switch to memchr */
	for (int at = 25; at < 40; at++) {
		char buf[128];
		memset(buf, 'a', sizeof(buf));
		buf[0] = '"';
		buf[at] = '\\';
		buf[at + 1] = '"';   /* escaped quote */
		buf[at + 5] = '\n'; /* raw line break */
		buf[at + 9] = '\\';
		buf[at + 10] = '\n'; /* escaped line break */
		memcpy(buf + 60, "\" w", 3);
		buf[63] = 0;
		start(&l, buf);
		t = want(&l, TOK_STRING, NULL);
		assert_int_equal(t.len, 61);
		t = want(&l, TOK_IDENT, "w");
		assert_int_equal(t.line, 3);
		assert_int_equal(t.col, 62 - (at + 11) + 1);
		want(&l, TOK_EOF, NULL);
	}
	/* a backslash as the last byte leaves the string open */
	start(&l, "\"abc\\");
	struct token u;
	assert_int_equal(lex_next(&l.lx, &u), TOK_ERROR);
	assert_string_equal(l.d.first, "unterminated string");
	assert_int_equal(l.d.first_pos.col, 1);
}

static void test_lex_errors(void **state)
{
	struct lexed l;
	start(&l, "a\n  /* never closed");
	want(&l, TOK_IDENT, "a");
	want(&l, TOK_ERROR, NULL);
	assert_int_equal(l.d.errors, 1);
	assert_string_equal(l.d.first, "unterminated comment");
	assert_int_equal(l.d.first_pos.line, 2);
	assert_int_equal(l.d.first_pos.col, 3);

	start(&l, "x = \"abc");
	want(&l, TOK_IDENT, "x");
	want(&l, TOK_EQUAL, NULL);
	want(&l, TOK_ERROR, NULL);
	assert_string_equal(l.d.first, "unterminated string");
	assert_int_equal(l.d.first_pos.col, 5);

	start(&l, "a \x01");
	want(&l, TOK_IDENT, "a");
	want(&l, TOK_ERROR, NULL);
	assert_string_equal(l.d.first, "stray byte 0x01 in input");
}

/* A byte >= 0x80 is a token of its own: one whole valid UTF-8 sequence,
 * or the byte alone; messages name the byte and the code point. */
static void describe_other(const char *text, uint32_t len, const char *want_desc)
{
	struct lexed l;
	start(&l, text);
	struct token t = want(&l, TOK_OTHER, NULL);
	assert_int_equal(t.len, len);
	assert_int_equal(t.col, 1);
	char buf[80];
	tok_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, want_desc);
	assert_int_equal(l.d.errors, 0);
}

static void test_non_ascii(void **state)
{
	describe_other("\xc2\xa0" "p", 2, "byte 0xC2 (U+00A0 no-break space)");
	describe_other("\xe2\x80\x8b" "p", 3, "byte 0xE2 (U+200B zero-width space)");
	describe_other("\xef\xbb\xbfHloModule", 3, "byte 0xEF (U+FEFF byte order mark)");
	describe_other("\xe2\x80\x9c" "x\xe2\x80\x9d", 3, "byte 0xE2 (U+201C left double quotation mark)");
	describe_other("\xc3\xa9" "t\xc3\xa9", 2, "byte 0xC3 (U+00E9)");
	describe_other("\xf0\x9f\x98\x80", 4, "byte 0xF0 (U+1F600)");
	/* not UTF-8: the first byte alone */
	describe_other("\xff", 1, "byte 0xFF");
	describe_other("\xc2 x", 1, "byte 0xC2");           /* a lead byte without its continuation */
	describe_other("\xc0\x80", 1, "byte 0xC0");        /* overlong NUL */
	describe_other("\xed\xa0\x80", 1, "byte 0xED");    /* a UTF-16 surrogate */
	describe_other("\xf4\x90\x80\x80", 1, "byte 0xF4"); /* past U+10FFFF */
	describe_other("\x80" "abc", 1, "byte 0x80");          /* a continuation byte alone */
	describe_other("\xe2\x80", 1, "byte 0xE2");        /* cut short by the end */

	/* what follows a sequence is lexed from the byte after it */
	struct lexed l;
	start(&l, "a\xc2\xa0" "b \xc0\x80" "c");
	want(&l, TOK_IDENT, "a");
	want(&l, TOK_OTHER, "\xc2\xa0");
	struct token t = want(&l, TOK_IDENT, "b");
	assert_int_equal(t.col, 4);
	want(&l, TOK_OTHER, "\xc0");
	want(&l, TOK_OTHER, "\x80");
	want(&l, TOK_IDENT, "c");
	want(&l, TOK_EOF, NULL);
}

static void raw_ok(const char *text, const char *value, char after)
{
	struct lexed l;
	start(&l, text);
	const char *vs, *ve;
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), 0);
	assert_int_equal((int)(ve - vs), (int)strlen(value));
	assert_memory_equal(vs, value, strlen(value));
	assert_int_equal(*l.lx.cur, after);
}

static void test_raw_values(void **state)
{
	raw_ok("{devices=[4,4,1]<=[16]}, next", "{devices=[4,4,1]<=[16]}", ',');
	raw_ok("kLoop, calls=x", "kLoop", ',');
	raw_ok("1_0x0_0\n  %next = ", "1_0x0_0", '\n');
	/* strings may hold unbalanced brackets and commas */
	raw_ok("{op_name=\"jvp(f))/g, h\" source_line=3}}", "{op_name=\"jvp(f))/g, h\" source_line=3}", '}');
	raw_ok("{\"a\":{\"b\":[1,2]},\"c\":\"}\"} x", "{\"a\":{\"b\":[1,2]},\"c\":\"}\"}", ' ');
	raw_ok("\"\\000\\001\\\"\"", "\"\\000\\001\\\"\"", 0);
	raw_ok("{{0,1},/*index=5*/{2,3}})", "{{0,1},/*index=5*/{2,3}}", ')');
	/* spaces, line breaks and comments after the '=' are skipped, as
	 * XLA's lexer does (issue 19) */
	raw_ok(" {1}, x", "{1}", ',');
	raw_ok("\n\t  {1}}", "{1}", '}');
	raw_ok(" /* c */ // d\n  kLoop\n", "kLoop", '\n');

	struct lexed l;
	const char *vs, *ve;
	start(&l, "{a=(1]}");
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "expected ')' but found ']'");
	assert_int_equal(l.d.first_pos.col, 6);

	start(&l, "{a=(1)");
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "expected '}' but found end of input");

	start(&l, ", x");
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "expected attribute value");
	start(&l, "  \n  , x");
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "expected attribute value");
	assert_int_equal(l.d.first_pos.line, 2);
	assert_int_equal(l.d.first_pos.col, 3);
	start(&l, " /* open");
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "unterminated comment");

	char deep[200];
	memset(deep, '{', 100);
	deep[100] = 0;
	start(&l, deep);
	assert_int_equal(lex_raw_value(&l.lx, &vs, &ve), -1);
	assert_string_equal(l.d.first, "brackets nested deeper than 64");
}

static void test_raw_until(void **state)
{
	struct lexed l;
	const char *vs, *ve;
	start(&l, "  (1.1, 0) ), next");
	assert_int_equal(lex_raw_until(&l.lx, ')', &vs, &ve), 0);
	assert_int_equal((int)(ve - vs), 8);
	assert_memory_equal(vs, "(1.1, 0)", 8);
	assert_int_equal(*l.lx.cur, ',');

	start(&l, "{...})");
	assert_int_equal(lex_raw_until(&l.lx, ')', &vs, &ve), 0);
	assert_memory_equal(vs, "{...}", 5);

	start(&l, "1, 2}");
	assert_int_equal(lex_raw_until(&l.lx, ')', &vs, &ve), -1);
	assert_string_equal(l.d.first, "expected ')' but found '}'");
}

static void test_skip_to_tracks_lines(void **state)
{
	struct lexed l;
	const char *text = "a\nbc\nd e";
	start(&l, text);
	lex_skip_to(&l.lx, text + 7);
	struct token t = want(&l, TOK_IDENT, "e");
	assert_int_equal(t.line, 3);
	assert_int_equal(t.col, 3);
}

static void test_describe(void **state)
{
	struct token t = {.kind = TOK_NAME, .p = "foo", .len = 3};
	char buf[64];
	tok_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "'%foo'");
	t.kind = TOK_ATTR;
	tok_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "'foo='");
	t.kind = TOK_EOF;
	tok_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "end of input");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instruction_tokens),
		cmocka_unit_test(test_numbers_strings_arrows),
		cmocka_unit_test(test_comments_and_positions),
		cmocka_unit_test(test_strings_and_lines),
		cmocka_unit_test(test_lex_errors),
		cmocka_unit_test(test_non_ascii),
		cmocka_unit_test(test_raw_values),
		cmocka_unit_test(test_raw_until),
		cmocka_unit_test(test_skip_to_tracks_lines),
		cmocka_unit_test(test_describe),
	};
	return cmocka_run_group_tests_name("lex", tests, NULL, NULL);
}
