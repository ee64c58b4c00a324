/* lex.h - tokens of HLO text, lexed on demand from an in-memory buffer.
 *
 * The lexer never allocates: a token is a span of the buffer plus its
 * position. It knows three HLO quirks (semantics doc 1.1): `%` glues to the
 * following name, an identifier directly followed by `=` is an attribute
 * name, and attribute values / literals are taken as raw balanced spans
 * (lex_raw_value) rather than tokenized, because their inner syntax
 * (dim labels, windows, JSON, sharding) is not needed to build the IR. */
#ifndef HLOPROOF_LEX_H
#define HLOPROOF_LEX_H
#include <stddef.h>
#include <stdint.h>
#include "diag.h"

enum tok {
	TOK_EOF = 0,
	TOK_ERROR,    /* already reported through the diag */
	TOK_IDENT,    /* [A-Za-z_][A-Za-z0-9_.-]*: names, keywords, types, opcodes */
	TOK_NAME,     /* %name; the text excludes the '%' */
	TOK_ATTR,     /* identifier directly followed by '='; text excludes '=', which is consumed */
	TOK_INT,      /* -?[0-9]+ */
	TOK_FLOAT,    /* -?digits with '.' or exponent */
	TOK_STRING,   /* "..." or '...'; the text includes the quotes, escapes are kept */
	TOK_LPAREN, TOK_RPAREN, TOK_LBRACE, TOK_RBRACE, TOK_LBRACKET, TOK_RBRACKET,
	TOK_COMMA, TOK_COLON, TOK_EQUAL, TOK_ARROW /* -> */, TOK_LEQ /* <= */,
	TOK_QUESTION, TOK_STAR,
	TOK_OTHER,    /* any other single printable character */
};

struct token {
	enum tok kind;
	const char *p;     /* text (after '%' for names) */
	uint32_t len;
	int line, col;     /* of the first character, '%' included; 1-based */
};

struct lexer {
	const char *cur, *end;   /* end: one past the last byte this lexer may read */
	const char *line_start;  /* first byte of the current line */
	int line;
	const char *file;
	struct diag *d;
};

/* text[len] must be readable and not an identifier byte (a NUL, or the byte
 * a raw value stopped at): identifier scans use it as their sentinel. */
void lex_init(struct lexer *lx, const char *file, const char *text, size_t len, struct diag *d);

/* Lex the next token into *t; returns t->kind. Errors (unterminated comment
 * or string, stray byte) are reported and yield TOK_ERROR. */
enum tok lex_next(struct lexer *lx, struct token *t);
/* Position of the next unread byte. */
struct srcpos lex_here(const struct lexer *lx);
struct srcpos tok_pos(const struct lexer *lx, const struct token *t);
/* Take a raw attribute value starting after any whitespace and comments
 * at the next unread byte, as XLA's lexer skips them after '=': a run of
 * characters and balanced (), [], {} groups (strings and comments skipped
 * whole) that ends before ',' or whitespace or a closing bracket at depth 0.
 * Returns 0 with [*vs, *ve) the value, or -1 after reporting an error. */
int lex_raw_value(struct lexer *lx, const char **vs, const char **ve);
/* Take raw balanced text up to the unmatched `close` character, which is
 * consumed; [*vs, *ve) is the trimmed text before it. */
int lex_raw_until(struct lexer *lx, char close, const char **vs, const char **ve);
/* Move to p (>= lx->cur, inside the buffer), keeping line tracking right. */
void lex_skip_to(struct lexer *lx, const char *p);
/* Human-readable token text for messages ("end of input", "'foo'"). */
void tok_describe(const struct token *t, char *buf, size_t cap);
const char *tok_kind_name(enum tok k);

/* Character classes, one table lookup per byte on the hot paths. */
#define LEX_IDENT_START 1u
#define LEX_IDENT_CHAR 2u
#define LEX_DIGIT 4u
#define LEX_SPACE 8u
#define LEX_BREAK 16u  /* '\n' and '/': a line break or a comment may start */
extern const unsigned char lex_class[256];

static inline int lex_is_ident_start(unsigned char c)
{
	return lex_class[c] & LEX_IDENT_START;
}
static inline int lex_is_ident_char(unsigned char c)
{
	return lex_class[c] & LEX_IDENT_CHAR;
}
static inline int tok_is(const struct token *t, const char *s, size_t n)
{
	return t->len == n && __builtin_memcmp(t->p, s, n) == 0;
}
#define TOK_IS(t, lit) tok_is((t), lit, sizeof(lit) - 1)

#endif
