/* copysite.h - where the compiled program copies one buffer into another
 * (docs/copies.md, ../shared/docs/verdicts.md "What counts as a copy"),
 * read from the IR alone: a `copy`; a fusion (or one output of a
 * multi-output fusion) whose fused computation only copies a parameter; a
 * `copy-start` / `copy-done` pair. Every command lists copies through
 * copy_sites(), so check, explain, prove-removal and gate see the same ones. */
#ifndef HLOPROOF_COPYSITE_H
#define HLOPROOF_COPYSITE_H
#include "ir.h"

enum copy_kind { COPY_KIND_PLAIN = 0, COPY_KIND_FUSED, COPY_KIND_ASYNC };

struct copy_site {
	enum copy_kind kind;
	/* the instruction defining the copied value: the copy, the fusion, the
	 * copy-start; it names the copy in reports */
	const struct hlo_instruction *at;
	const struct hlo_instruction *done;  /* async: the copy-done */
	const struct hlo_instruction *inner; /* fused: the copy in the fused computation */
	int32_t output;                      /* fused: output of a multi-output fusion, else -1 */
	int32_t operand;                     /* the operand of `at` that is copied */
	/* what the copy's users read: the copy, the fusion (single output), the
	 * copy-done; NULL for an output of a multi-output fusion (its GTEs) */
	const struct hlo_instruction *result;
	const struct shape *to;              /* the copy's result shape (the output leaf) */
	/* 0 same layout and memory space, 1 only the memory space differs,
	 * 2 the layout differs */
	int layout_diff;
};

/* "copy", "fused", "async" */
const char *copy_kind_name(enum copy_kind k);

/* Every copy site in non-fusion computations, in text order (computations,
 * then instructions; a multi-output fusion's outputs in index order; a pair
 * at its copy-start). *out is allocated in `a`. Returns the count. */
int32_t copy_sites(const struct hlo_module *m, struct arena *a, struct copy_site **out);
/* The sites of copy_sites() that x is part of (a copy, a copy-start or its
 * copy-done, a fusion or the copy inside it), found from x alone: a
 * decision about one copy does not list the module's. */
int32_t copy_sites_at(const struct hlo_instruction *x, struct arena *a, struct copy_site **out);

/* The sites a name denotes: the copy, fusion, copy-start or copy-done's name,
 * the fused computation's inner copy, or "fusion{i}" for one output. Writes
 * up to cap sites; returns how many match (0: none). */
int32_t copy_sites_named(const struct hlo_module *m, struct arena *a, const char *name,
			 struct copy_site *out, int32_t cap);

/* The site's display name: "c", "f", "f{1}" (arena; or into buf). */
const char *copy_site_label(const struct copy_site *s, struct arena *a);
const char *copy_site_name(const struct copy_site *s, char *buf, size_t cap);

/* 0 equal, 1 only the memory space differs, 2 the layout differs. */
int copy_layout_diff(const struct shape *from, const struct shape *to);

/* x is in a computation reached only through fusion or other embedded calls. */
int copy_in_embedded_computation(const struct hlo_instruction *x);

#endif
