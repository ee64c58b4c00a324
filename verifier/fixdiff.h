/* fixdiff.h - the fixed module as an edit of the module's own text
 * (`hloproof fix --diff`): the lines of the removed instructions deleted,
 * their uses renamed, control-predecessors added or trimmed, ROOT moved,
 * and the instruction lines of a computation whose order had to change put
 * in that order. The edits are read off the difference between the module
 * as given and the fixed one (fix.h), and the edited text is parsed and
 * compared with the fixed module before anything is written. */
#ifndef HLOPROOF_FIXDIFF_H
#define HLOPROOF_FIXDIFF_H
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

enum diff_kind { DIFF_EQUAL = 0, DIFF_DELETE, DIFF_INSERT };

/* One line of the unified diff: an old line kept or deleted, a new line. */
struct diff_op {
	enum diff_kind kind;
	int32_t old_line;   /* 0-based: the old line (or, inserted, the old line after it) */
	int32_t new_line;   /* 0-based: the new line (or, deleted, the new line after it) */
	const char *text;   /* the line without its newline */
	size_t len;
	int no_newline;     /* the file's last line has none */
};

struct fix_diff {
	int32_t n_ops;
	struct diff_op *ops;
	char *new_text;     /* the edited module text */
	size_t new_len;
	/* storage */
	char *old_text;     /* the module text, when read again from its file */
	int32_t n_bufs;
	char **bufs;
};

/* The edit of m's text (m->source, else m->file read again) that gives
 * `fixed`. Returns 0, or -1 with the reason in err (the text cannot be
 * edited line by line: two instructions on one line, say; or the edited
 * text does not give the fixed module). */
int fix_diff_build(const struct hlo_module *m, const struct hlo_module *fixed, struct fix_diff *out,
		   char *err, size_t cap);
void fix_diff_free(struct fix_diff *d);

#endif
