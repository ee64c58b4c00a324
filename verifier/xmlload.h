/* xmlload.h - load a small, untrusted XML file safely and validate it
 * against a RELAX NG schema. Used for .hloproof.xml and annotation files.
 *
 * Hardening: the file must be at most XML_MAX_FILE_BYTES (checked before
 * parsing) and UTF-8; a DOCTYPE (internal subset: billion laughs; external
 * subset or entities: XXE) is rejected outright; libxml2 runs with
 * XML_PARSE_NONET, without entity substitution or DTD loading, and its
 * messages are captured rather than printed. Errors are reported as
 * FILE:LINE: error: ... through the diag. */
#ifndef HLOPROOF_XMLLOAD_H
#define HLOPROOF_XMLLOAD_H
#include <stddef.h>
#include <libxml/tree.h>
#include "diag.h"

#define XML_MAX_FILE_BYTES ((size_t)1 << 20)  /* 1 MiB */

/* Read and validate `path`. `rng` is the schema text (rng_len bytes), or NULL
 * to skip validation. Returns the document (xmlFreeDoc it) or NULL after
 * reporting the error. */
xmlDocPtr xml_load_file(const char *path, const char *rng, size_t rng_len, struct diag *d);
/* Same for a buffer; `name` is the file name used in messages. */
xmlDocPtr xml_load_memory(const char *name, const char *buf, size_t len, const char *rng,
			  size_t rng_len, struct diag *d);
/* Report FILE:LINE: error: ... (line <= 0: FILE: error: ...) through d;
 * returns -1. For the semantic checks callers run on the loaded document. */
int xml_error(struct diag *d, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
