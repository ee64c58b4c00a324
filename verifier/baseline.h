/* baseline.h - accepted findings from an earlier run, by fingerprint.
 *
 * File format (JSON): {"version":1,"findings":[{"fingerprint":"<16 hex>:<n>",
 * "rule":"HP104","file":"...","message":"..."}, ...]}. With --baseline, a
 * finding whose fingerprint is listed is not reported; entries that match no
 * finding of the run are "stale" and listed so the baseline can be pruned. */
#ifndef HLOPROOF_BASELINE_H
#define HLOPROOF_BASELINE_H
#include <stddef.h>
#include "diag.h"

#define BASELINE_MAX_BYTES ((size_t)64 << 20)

struct baseline_entry {
	char *fingerprint, *rule, *file, *message;
	int used;            /* matched a finding of this run */
	int unchecked;       /* names a file this run did not check: never stale */
};

/* Stale: matched nothing, though its file (when it names one) was checked. */
static inline int baseline_entry_stale(const struct baseline_entry *e)
{
	return !e->used && !e->unchecked;
}

struct baseline {
	char *path;
	size_t n;
	struct baseline_entry *entries;
};

struct report;
/* Returns 0, or -1 after reporting FILE: error: ... */
int baseline_load(struct baseline *b, const char *path, struct diag *d);
void baseline_free(struct baseline *b);
/* Mark the report's findings listed in b as baselined and b's entries used.
 * Matching pairs an entry with a finding of the same fingerprint, preferring
 * one in the same file; each entry absorbs one finding. An entry left over
 * whose file is none of the report's modules is marked unchecked. */
void baseline_apply(struct baseline *b, struct report *r);
/* Every reported (not suppressed) finding of r, atomically (temp + rename).
 * Returns the number of entries written, or -1. */
int baseline_write(const char *path, const struct report *r, struct diag *d);

#endif
