/* lines.h - the lines of a multi-line text (evidence, reasons, docs).
 *
 * Evidence travels as one string of lines joined by '\n' (no final newline,
 * or one: both read the same). Every writer and rule that splits it does so
 * here:
 *
 *	size_t n;
 *	for (const char *p = text, *l; (l = line_next(&p, &n));)
 *		printf("    %.*s\n", (int)n, l);
 *
 * An empty line in the middle is returned (n = 0); a final newline does not
 * make one. NULL text has no lines. */
#ifndef HLOPROOF_LINES_H
#define HLOPROOF_LINES_H
#include <string.h>

/* The line at *p and its length; *p moves past it. NULL at the end. */
static inline const char *line_next(const char **p, size_t *len)
{
	const char *s = *p;
	if (!s || !*s)
		return NULL;
	const char *nl = strchr(s, '\n');
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*p = nl ? nl + 1 : s + *len;
	return s;
}

/* s appended at buf[n] as snprintf(buf + n, cap - n, "%s", s) would (cut
 * to fit, NUL-terminated); returns n + strlen(s). Names and evidence are
 * many such pieces: snprintf costs ~600-900 instructions each (mixtral: 5%
 * of a check). */
static inline size_t text_put(char *buf, size_t cap, size_t n, const char *s)
{
	size_t len = strlen(s);
	if (n < cap) {
		size_t k = len < cap - n - 1 ? len : cap - n - 1;
		memcpy(buf + n, s, k);
		buf[n + k] = 0;
	}
	return n + len;
}

#endif
