/* diag.c - error and warning printing. */
#include "diag.h"
#include <stdlib.h>
#include <string.h>

void diag_init(struct diag *d, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
}

static void emit(struct diag *d, struct srcpos pos, const char *kind,
		 const char *msg)
{
	if (!d->out)
		return;
	if (pos.file && pos.line > 0)
		fprintf(d->out, "%s:%d:%d: %s: %s\n", pos.file, pos.line,
			pos.col > 0 ? pos.col : 1, kind, msg);
	else if (pos.file)
		fprintf(d->out, "%s: %s: %s\n", pos.file, kind, msg);
	else
		fprintf(d->out, "hloproof: %s: %s\n", kind, msg);
}

int verror_at(struct diag *d, struct srcpos pos, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (d->errors++ == 0) {
		snprintf(d->first, sizeof(d->first), "%s", msg);
		d->first_pos = pos;
	}
	emit(d, pos, "error", msg);
	return -1;
}

int error_at(struct diag *d, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(d, pos, fmt, ap);
	va_end(ap);
	return -1;
}

void warning_at(struct diag *d, struct srcpos pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->warnings++;
	emit(d, pos, "warning", msg);
}

void die(const char *fmt, ...)
{
	va_list ap;
	fputs("hloproof: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}
