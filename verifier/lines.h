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

#endif
