/* testutil.h - helpers shared by the cmocka suites. */
#ifndef HLOPROOF_TESTUTIL_H
#define HLOPROOF_TESTUTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "ir.h"

/* ../shared (or $HLOPROOF_SHARED) joined with a relative path; static buffer per call site is not
 * thread-safe, so the result is malloc'd: free it. */
char *shared_path(const char *rel);
/* Parse HLO text given inline; fails the test on a parse error. */
struct hlo_module *parse_text(const char *text);
/* Parse inline text expecting an error; returns the diag (first error, position). */
struct diag parse_text_error(const char *text);
/* Read a whole file (malloc'd, NUL-terminated); NULL if unreadable. */
char *read_file(const char *path, size_t *len);
/* List files under dir ending in suffix, sorted; NULL-terminated malloc'd array. */
char **list_files(const char *dir, const char *suffix);
void free_list(char **v);

struct analysis;
/* A module's copies against its "// expect: NAME family=F given=G any=A
 * [kind=K]" tags (tests/expect.h; corpus/copies, corpus/postopt): each tag
 * names one copy site whose kind (default copy), family and verdicts agree,
 * and every copy site of the module has a tag. Fails the test otherwise;
 * returns the number of tags. */
int expect_copies(const char *path, struct analysis *an, struct hlo_module *m);
/* Whether the file's expect tags ask for the stage as detected (stage=auto). */
int expect_stage_auto(const char *path);

#endif
