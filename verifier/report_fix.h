/* report_fix.h - the writers of `hloproof fix` (report_fix.c). */
#ifndef HLOPROOF_REPORT_FIX_H
#define HLOPROOF_REPORT_FIX_H
#include <stdio.h>
#include "fix.h"
#include "fixdiff.h"

/* What the fix report shows: the result and how the command was asked. */
struct fix_view {
	const char *file;
	const struct fix_result *result;
	const char *schedule_why;   /* "the module is scheduled", "--schedule=any", ... */
	const char *stage_why;      /* why the module reads as before optimization (stage.h), or NULL */
	const char *output;         /* -o FILE, or NULL */
};

/* The report (docs/fix.md). Return 0, or -1 when the stream fails. */
int report_fix_text(FILE *out, const struct fix_view *v);
int report_fix_json(FILE *out, const struct fix_view *v);
/* The unified diff of the module text, "--- PATH" / "+++ PATH" (patch -p0);
 * nothing when the text does not change. */
int report_fix_diff(FILE *out, const struct fix_diff *d, const char *path);

#endif
