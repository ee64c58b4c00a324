/* lex.c - the HLO text lexer (see lex.h). One pass, no allocation. */
#include "lex.h"
#include "ir.h"
#include <stdio.h>
#include <string.h>

#define ID (LEX_IDENT_START | LEX_IDENT_CHAR)
const unsigned char lex_class[256] = {
	['a' ... 'z'] = ID, ['A' ... 'Z'] = ID, ['_'] = ID,
	['0' ... '9'] = LEX_IDENT_CHAR | LEX_DIGIT, ['.'] = LEX_IDENT_CHAR, ['-'] = LEX_IDENT_CHAR,
	[' '] = LEX_SPACE, ['\t'] = LEX_SPACE, ['\r'] = LEX_SPACE, ['\f'] = LEX_SPACE,
	['\v'] = LEX_SPACE, ['\n'] = LEX_BREAK, ['/'] = LEX_BREAK,
};
#undef ID

void lex_init(struct lexer *lx, const char *file, const char *text, size_t len, struct diag *d)
{
	lx->cur = text;
	lx->end = text + len;
	lx->line_start = text;
	lx->line = 1;
	lx->file = file;
	lx->d = d;
}

static struct srcpos pos_at(const struct lexer *lx, const char *p)
{
	return (struct srcpos){lx->file, lx->line, (int)(p - lx->line_start) + 1};
}

struct srcpos lex_here(const struct lexer *lx)
{
	return pos_at(lx, lx->cur);
}

struct srcpos tok_pos(const struct lexer *lx, const struct token *t)
{
	return (struct srcpos){lx->file, t->line, t->col};
}

static inline void newline(struct lexer *lx, const char *after)
{
	lx->line++;
	lx->line_start = after;
}

void lex_skip_to(struct lexer *lx, const char *p)
{
	const char *q = lx->cur;
	while (q < p) {
		const char *nl = memchr(q, '\n', (size_t)(p - q));
		if (!nl)
			break;
		newline(lx, nl + 1);
		q = nl + 1;
	}
	lx->cur = p;
}

/* Skip a block comment starting at p ("/" "*"); returns the byte after it or
 * NULL after reporting an unterminated comment. */
static const char *skip_block_comment(struct lexer *lx, const char *p)
{
	const char *start = p, *e = lx->end;
	struct srcpos at = pos_at(lx, start);
	for (p += 2; p + 1 < e; p++) {
		if (*p == '*' && p[1] == '/')
			return p + 2;
		if (*p == '\n')
			newline(lx, p + 1);
	}
	error_at(lx->d, at, "unterminated comment");
	return NULL;
}

/* Count the line breaks in [p, end). */
static void newlines_in(struct lexer *lx, const char *p, const char *end)
{
	const char *nl;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		newline(lx, nl + 1);
		p = nl + 1;
	}
}

/* Skip a quoted string starting at p; returns the byte after the closing
 * quote or NULL after reporting. Escapes are skipped, not decoded. memchr
 * finds the quote and the backslashes: op_name strings run to hundreds of
 * bytes, and a byte loop over them was a quarter of gemma's parse. */
static const char *skip_string(struct lexer *lx, const char *p)
{
	char q = *p;
	const char *e = lx->end;
	struct srcpos at = pos_at(lx, p);
	for (p++; p < e;) {
		const char *qe = memchr(p, q, (size_t)(e - p));
		const char *stop = qe ? qe : e;
		const char *bs = memchr(p, '\\', (size_t)(stop - p));
		if (!bs) {
			newlines_in(lx, p, stop);
			if (qe)
				return qe + 1;
			break;
		}
		/* an escape: the byte after the backslash is taken as is */
		newlines_in(lx, p, bs);
		if (bs + 1 < e && bs[1] == '\n')
			newline(lx, bs + 2);
		p = bs + 2;
	}
	error_at(lx->d, at, "unterminated string");
	return NULL;
}

/* Whitespace and comments. Returns -1 after reporting an error. Out of
 * line: lex_next skips plain spaces itself. */
static __attribute__((noinline)) int skip_space(struct lexer *lx)
{
	const char *p = lx->cur, *e = lx->end;
	while (p < e) {
		char c = *p;
		unsigned k = lex_class[(unsigned char)c];
		if (k & LEX_SPACE) {
			p++;
		} else if (!(k & LEX_BREAK)) {
			break;
		} else if (c == '\n') {
			p++;
			newline(lx, p);
		} else if (c == '/' && p + 1 < e && p[1] == '*') {
			if (!(p = skip_block_comment(lx, p)))
				return -1;
		} else if (c == '/' && p + 1 < e && p[1] == '/') {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			p = nl ? nl : e;
		} else {
			break;
		}
	}
	lx->cur = p;
	return 0;
}

static inline int is_digit(unsigned char c)
{
	return lex_class[c] & LEX_DIGIT;
}

/* Tokens of one byte. */
static const unsigned char punct_tok[256] = {
	['('] = TOK_LPAREN, [')'] = TOK_RPAREN, ['{'] = TOK_LBRACE, ['}'] = TOK_RBRACE,
	['['] = TOK_LBRACKET, [']'] = TOK_RBRACKET, [','] = TOK_COMMA, [':'] = TOK_COLON,
	['='] = TOK_EQUAL, ['?'] = TOK_QUESTION, ['*'] = TOK_STAR,
};

/* The length of the valid UTF-8 sequence at p (before e) and its code
 * point, or 0: overlong forms, surrogates and values past U+10FFFF are
 * not valid (RFC 3629). */
static int utf8_decode(const char *p, const char *e, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned c = u[0];
	int n;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07, min = 0x10000;
	else
		return 0;
	if (e - p < n)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (u[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Names of the code points that slip into HLO text pasted from a web page
 * or a document, where they look like a space or an ASCII character. */
static const char *code_point_name(uint32_t cp)
{
	static const struct {
		uint32_t cp;
		const char *name;
	} names[] = {
		{0x00a0, "no-break space"}, {0x00ad, "soft hyphen"},
		{0x2002, "en space"}, {0x2003, "em space"}, {0x2009, "thin space"},
		{0x200b, "zero-width space"}, {0x200c, "zero-width non-joiner"},
		{0x200d, "zero-width joiner"}, {0x2013, "en dash"}, {0x2014, "em dash"},
		{0x2018, "left single quotation mark"}, {0x2019, "right single quotation mark"},
		{0x201c, "left double quotation mark"}, {0x201d, "right double quotation mark"},
		{0x2028, "line separator"}, {0x2029, "paragraph separator"},
		{0x202f, "narrow no-break space"}, {0x2060, "word joiner"}, {0x2212, "minus sign"},
		{0x3000, "ideographic space"}, {0xfeff, "byte order mark"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].cp == cp)
			return names[i].name;
	return NULL;
}

/* The tokens lex_next leaves to this: numbers, strings, '->', '<=', other
 * bytes and errors. s is the token's first byte; t->line/col are set. */
static __attribute__((noinline)) enum tok lex_rare(struct lexer *lx, struct token *t, const char *s)
{
	const char *p = s, *e = lx->end;
	unsigned char c = (unsigned char)*p;
	enum tok k;
	if (is_digit(c) || (c == '-' && p + 1 < e && is_digit((unsigned char)p[1]))) {
		k = TOK_INT;
		p++;
		while (p < e && is_digit((unsigned char)*p))
			p++;
		if (p + 1 < e && *p == '.' && is_digit((unsigned char)p[1])) {
			k = TOK_FLOAT;
			for (p++; p < e && is_digit((unsigned char)*p); p++)
				;
		}
		if (p < e && (*p == 'e' || *p == 'E')) {
			const char *q = p + 1;
			if (q < e && (*q == '+' || *q == '-'))
				q++;
			if (q < e && is_digit((unsigned char)*q)) {
				k = TOK_FLOAT;
				for (p = q; p < e && is_digit((unsigned char)*p); p++)
					;
			}
		}
		/* compound words such as 3x3 or 0_1x1_0 */
		if (p < e && lex_is_ident_start((unsigned char)*p)) {
			while (p < e && lex_is_ident_char((unsigned char)*p))
				p++;
			k = TOK_IDENT;
		}
	} else {
		p++;
		switch (c) {
		case '"':
		case '\'':
			if (!(p = skip_string(lx, s))) {
				t->p = s;
				t->len = 0;
				return t->kind = TOK_ERROR;
			}
			k = TOK_STRING;
			break;
		case '-':
			if (p < e && *p == '>') {
				p++;
				k = TOK_ARROW;
			} else {
				k = TOK_OTHER;
			}
			break;
		case '<':
			if (p < e && *p == '=') {
				p++;
				k = TOK_LEQ;
			} else {
				k = TOK_OTHER;
			}
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				error_at(lx->d, pos_at(lx, s), "stray byte 0x%02x in input", c);
				t->p = s;
				t->len = 0;
				return t->kind = TOK_ERROR;
			}
			k = TOK_OTHER;
			/* one whole UTF-8 sequence, so a message names its code
			 * point; an invalid one is its first byte alone */
			if (c >= 0x80) {
				uint32_t cp;
				int n = utf8_decode(s, e, &cp);
				p = s + (n ? n : 1);
			}
			break;
		}
	}
	t->p = s;
	t->len = (uint32_t)(p - s);
	lx->cur = p;
	return t->kind = k;
}

/* Identifiers, %names, attribute names and one-byte tokens here; the rest
 * in lex_rare and skip_space, so this path keeps few registers live. */
enum tok lex_next(struct lexer *lx, struct token *t)
{
	const char *p = lx->cur, *e = lx->end;
	while (p < e && *p == ' ')
		p++;
	if (p < e && (lex_class[(unsigned char)*p] & (LEX_SPACE | LEX_BREAK))) {
		lx->cur = p;
		if (skip_space(lx) < 0) {
			t->kind = TOK_ERROR;
			t->p = lx->cur;
			t->len = 0;
			return TOK_ERROR;
		}
		p = lx->cur;
	}
	const char *s = p;
	t->line = lx->line;
	t->col = (int)(p - lx->line_start) + 1;
	if (p >= e) {
		lx->cur = p;
		t->p = p;
		t->len = 0;
		return t->kind = TOK_EOF;
	}
	unsigned char c = (unsigned char)*p;
	enum tok k;
	if (lex_is_ident_start(c)) {
		/* no bound check: *end is never an identifier byte (see lex_init) */
		p++;
		while (lex_is_ident_char((unsigned char)*p))
			p++;
		/* "name->" : the '-' belongs to the arrow */
		if (p < e && *p == '>' && p[-1] == '-')
			p--;
		if (p < e && *p == '=' && !(p + 1 < e && p[1] == '=')) {
			t->p = s;
			t->len = (uint32_t)(p - s);
			lx->cur = p + 1;
			return t->kind = TOK_ATTR;
		}
		k = TOK_IDENT;
	} else if (c == '%' && p + 1 < e && lex_is_ident_char((unsigned char)p[1])) {
		p++;
		s = p;
		while (lex_is_ident_char((unsigned char)*p))
			p++;
		k = TOK_NAME;
	} else if (punct_tok[c]) {
		p++;
		k = (enum tok)punct_tok[c];
	} else {
		lx->cur = p;
		return lex_rare(lx, t, p);
	}
	t->p = s;
	t->len = (uint32_t)(p - s);
	lx->cur = p;
	return t->kind = k;
}

/* Bytes raw_scan stops at; every other byte is part of the value. */
static const unsigned char raw_special[256] = {
	[','] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, ['('] = 1, [')'] = 1,
	['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, ['"'] = 1, ['\''] = 1, ['/'] = 1,
	['\0'] = 1,
};

static int raw_scan(struct lexer *lx, int stop_at_top, char close, const char **vs, const char **ve)
{
	char stack[HLO_MAX_NESTING];
	int depth = 0;
	const char *p = lx->cur, *e = lx->end;
	*vs = p;
	while (p < e) {
		char c = *p;
		if (!raw_special[(unsigned char)c]) {
			p++;
			continue;
		}
		if (depth == 0) {
			if (stop_at_top && (c == ',' || c == ' ' || c == '\t' || c == '\r' ||
					    c == '\n' || c == ')' || c == '}' || c == ']'))
				break;
			if (!stop_at_top && (c == ')' || c == '}' || c == ']')) {
				if (c != close) {
					error_at(lx->d, pos_at(lx, p), "expected '%c' but found '%c'", close, c);
					return -1;
				}
				*ve = p;
				lx->cur = p + 1;
				return 0;
			}
		}
		switch (c) {
		case '(':
		case '[':
		case '{':
			if (depth >= HLO_MAX_NESTING) {
				error_at(lx->d, pos_at(lx, p), "brackets nested deeper than %d", HLO_MAX_NESTING);
				return -1;
			}
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
			p++;
			break;
		case ')':
		case ']':
		case '}':
			if (c != stack[depth - 1]) {
				error_at(lx->d, pos_at(lx, p), "expected '%c' but found '%c'", stack[depth - 1], c);
				return -1;
			}
			depth--;
			p++;
			break;
		case '"':
		case '\'':
			if (!(p = skip_string(lx, p)))
				return -1;
			break;
		case '/':
			if (p + 1 < e && p[1] == '*') {
				if (!(p = skip_block_comment(lx, p)))
					return -1;
			} else if (p + 1 < e && p[1] == '/') {
				const char *nl = memchr(p, '\n', (size_t)(e - p));
				p = nl ? nl : e;
			} else {
				p++;
			}
			break;
		case '\n':
			p++;
			newline(lx, p);
			break;
		case '\0':
			error_at(lx->d, pos_at(lx, p), "stray byte 0x00 in input");
			return -1;
		default:
			p++;
			break;
		}
	}
	if (depth > 0 || !stop_at_top) {
		error_at(lx->d, pos_at(lx, p), "expected '%c' but found end of input",
			 depth > 0 ? stack[depth - 1] : close);
		return -1;
	}
	*ve = p;
	lx->cur = p;
	if (p == *vs) {
		error_at(lx->d, pos_at(lx, p), "expected attribute value");
		return -1;
	}
	return 0;
}

int lex_raw_value(struct lexer *lx, const char **vs, const char **ve)
{
	/* XLA lexes an attribute value as tokens, so spaces, line breaks and
	 * comments after the '=' are skipped ("dimensions= {1}") */
	if (skip_space(lx) < 0)
		return -1;
	return raw_scan(lx, 1, 0, vs, ve);
}

int lex_raw_until(struct lexer *lx, char close, const char **vs, const char **ve)
{
	if (raw_scan(lx, 0, close, vs, ve) < 0)
		return -1;
	const char *s = *vs, *e = *ve;
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	*vs = s;
	*ve = e;
	return 0;
}

const char *tok_kind_name(enum tok k)
{
	static const char *const names[] = {
		[TOK_EOF] = "end of input", [TOK_ERROR] = "error", [TOK_IDENT] = "identifier",
		[TOK_NAME] = "name", [TOK_ATTR] = "attribute name", [TOK_INT] = "integer",
		[TOK_FLOAT] = "number", [TOK_STRING] = "string", [TOK_LPAREN] = "'('",
		[TOK_RPAREN] = "')'", [TOK_LBRACE] = "'{'", [TOK_RBRACE] = "'}'",
		[TOK_LBRACKET] = "'['", [TOK_RBRACKET] = "']'", [TOK_COMMA] = "','",
		[TOK_COLON] = "':'", [TOK_EQUAL] = "'='", [TOK_ARROW] = "'->'", [TOK_LEQ] = "'<='",
		[TOK_QUESTION] = "'?'", [TOK_STAR] = "'*'", [TOK_OTHER] = "character",
	};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "token";
}

void tok_describe(const struct token *t, char *buf, size_t cap)
{
	if (t->kind == TOK_EOF) {
		snprintf(buf, cap, "end of input");
		return;
	}
	unsigned char c0 = t->len ? (unsigned char)t->p[0] : 0;
	if (t->kind == TOK_OTHER && c0 >= 0x80) {
		/* quoted, a no-break space or a BOM would read as ' ' or '' */
		uint32_t cp;
		const char *name;
		if (!utf8_decode(t->p, t->p + t->len, &cp))
			snprintf(buf, cap, "byte 0x%02X", c0);
		else if ((name = code_point_name(cp)))
			snprintf(buf, cap, "byte 0x%02X (U+%04X %s)", c0, (unsigned)cp, name);
		else
			snprintf(buf, cap, "byte 0x%02X (U+%04X)", c0, (unsigned)cp);
		return;
	}
	const char *pre = t->kind == TOK_NAME ? "%" : "";
	const char *post = t->kind == TOK_ATTR ? "=" : "";
	int n = t->len > 40 ? 40 : (int)t->len;
	snprintf(buf, cap, "'%s%.*s%s%s'", pre, n, t->p, t->len > 40 ? "..." : "", post);
}
