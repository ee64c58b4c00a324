/* expect.h - the one reader (and rewriter) of fixture expectations.
 *
 * Every corpus case states what hloproof must say about it in tag lines,
 * sparse's check-* tags in HLO's comment syntax: a line that starts (at
 * column 0) with "// expect" and a tag, anywhere in the file:
 *
 *   // expect: BODY              what the corpus checks, one line per item:
 *        corpus/copies, corpus/postopt,  NAME family=F given=G any=A [kind=K] [stage=auto]
 *        corpus/unknown
 *        corpus/donation                 param=P index={..} given=G any=A [output={..}|none] [copied=1]
 *        corpus/source                   NAME source=FILE:LINE:COL function=F
 *        corpus/bad                      LINE:COL: message (the first error, exactly)
 *   // expect-unknown: LINE:COL: reason     corpus/postopt: every copy unknown for that reason
 *   // expect-finding: LINE:COL: SEVERITY: HEADLINE [ID slug]
 *        corpus/rules/<slug>: the rule's findings, one tag each, in report
 *        order; a clean case says "// expect-finding: none"
 *
 * The C suites read the tags with expect_read; the shell tests with the
 * tool build/tests/expect (tests/expect_tool.c): `expect get TAG FILE`
 * prints the bodies, `expect set TAG FILE` replaces them with the lines on
 * its input. `make fixtures-update` rewrites the expect-finding tags of
 * corpus/rules and the expect tags of corpus/bad from what hloproof says
 * now (after an intended wording change: the diff is the review). */
#ifndef HLOPROOF_TESTS_EXPECT_H
#define HLOPROOF_TESTS_EXPECT_H
#include <stddef.h>

struct expect_tag {
	char *tag;    /* "expect", "expect-finding", ... */
	char *body;   /* after ": " */
	int line;     /* 1-based */
};

struct expect_file {
	int n;
	struct expect_tag *tags;
};

/* The tags of the file at path, in file order. Returns 0, -1 when the file
 * cannot be read. */
int expect_read(const char *path, struct expect_file *out);
void expect_free(struct expect_file *e);
/* How many tags `tag` the file has, and the i-th one's body (NULL past). */
int expect_count(const struct expect_file *e, const char *tag);
const char *expect_body(const struct expect_file *e, const char *tag, int i);

/* The value of key=VALUE in a body of blank-separated words, copied into
 * buf (cut to cap); NULL when the key is absent. */
const char *expect_field(const char *body, const char *key, char *buf, size_t cap);
/* The i-th blank-separated word of a body (0: the first), or NULL. */
const char *expect_word(const char *body, int i, char *buf, size_t cap);

/* Replace the file's `tag` lines with one line per body: the new lines go
 * where the first old one was, or at the end of the file when there was
 * none (a case's positions stay). Returns 0, -1 on an I/O error. */
int expect_rewrite(const char *path, const char *tag, const char *const *bodies, int n);

/* HLOPROOF_FIXTURES_UPDATE=1: the suites rewrite their tags from what
 * they got instead of failing on wording (make fixtures-update). */
int expect_updating(void);

#endif
