/* report_source.h - the "source" JSON object of findings, copies and
 * donations, one writer for every report (source.h gives the data). */
#ifndef HLOPROOF_REPORT_SOURCE_H
#define HLOPROOF_REPORT_SOURCE_H
#include <jansson.h>
#include "source.h"

/* "source" of a finding, copy or donation (source.h): {"file", "line",
 * "column", "function", "op_name", "arg_path" (an entry parameter's JAX
 * argument path, or null), "framework", "via" (the neighbour whose
 * place this is, or null), "stack": [{"file", "line",
 * "column", "function"}], user frames innermost first}; unknowns are null.
 * json_null() for NULL (no metadata). */
json_t *report_source_json(const struct source_info *s);
/* Add "source" of instruction `in` to object o (filter f, NULL: the
 * default); null when it has no metadata. */
void report_add_source(json_t *o, const struct hlo_instruction *in, const struct source_filter *f);

#endif
