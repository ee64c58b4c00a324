/* diag.h - gcc-style diagnostics: FILE:LINE:COL: error: message. */
#ifndef HLOPROOF_DIAG_H
#define HLOPROOF_DIAG_H
#include <stdarg.h>
#include <stdio.h>

struct srcpos {
	const char *file;
	int line, col;  /* 1-based; 0 = unknown */
};

/* Where errors go. The parser records the first error and stops; the CLI prints it. */
struct diag {
	FILE *out;        /* NULL: do not print, only record */
	int errors;
	int warnings;
	char first[512];  /* text of the first error, without the position */
	struct srcpos first_pos;
};

void diag_init(struct diag *d, FILE *out);
/* Report an error; returns -1 so callers can `return error_at(...)`. */
int error_at(struct diag *d, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void warning_at(struct diag *d, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int verror_at(struct diag *d, struct srcpos pos, const char *fmt, va_list ap);
/* Fatal: print "hloproof: fatal: ..." and exit 3 (internal error). */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
