/* annotations.h - what the user expects of the module's donations, from an
 * XML file (docs/annotations.md, schema docs/annotations.rng): which
 * arguments are donated, which outputs must reuse which argument, and which
 * donations honored only through a copy are accepted (with a reason).
 *
 * The file is untrusted: it is read with the hardened loader (xmlload.h:
 * size bound, no DTD, no entities, no network) and validated against the
 * embedded schema; errors are FILE:LINE: error: ... */
#ifndef HLOPROOF_ANNOTATIONS_H
#define HLOPROOF_ANNOTATIONS_H
#include <stdint.h>
#include "arena.h"
#include "diag.h"
#include "ir.h"

struct donation_report;

enum annotation_kind { ANNOT_DONATED = 0, ANNOT_REUSE, ANNOT_ACCEPT_COPY };

struct annotation {
	enum annotation_kind kind;
	const char *module;          /* fnmatch glob over the module name, or NULL: every module */
	int32_t param;               /* -1 when the argument is named by `arg` */
	struct shape_index index;    /* with param; {} when not given */
	const char *arg;             /* JAX argument path, or NULL */
	struct shape_index output;   /* ANNOT_REUSE */
	const char *reason;          /* accept-copy: reason; others: the optional note */
	int line;                    /* in the annotations file */
};

struct annotations {
	struct arena arena;
	const char *path;
	int32_t n;
	struct annotation *items;
};

/* Load and validate. Returns 0, or -1 after reporting FILE:LINE: error: ... */
int annotations_load(struct annotations *a, const char *path, struct diag *d);
int annotations_load_memory(struct annotations *a, const char *name, const char *buf, size_t len,
			    struct diag *d);
void annotations_free(struct annotations *a);

/* The accept-copy item covering parameter leaf (p, ix) of module m, or NULL. */
const struct annotation *annotations_accepted_copy(const struct annotations *a,
						   const struct hlo_module *m, int32_t p,
						   const struct shape_index *ix);

/* One broken expectation. */
struct annotation_violation {
	const struct annotation *item;
	const struct hlo_instruction *param;   /* the parameter concerned, or NULL */
	const struct donation_report *report;  /* the donation concerned, or NULL */
	char message[1024];
};

/* Check the expectations that apply to module m against its donation
 * reports; calls `found` once per violation in file order. Returns the
 * number of violations. */
int32_t annotations_check(const struct annotations *a, const struct hlo_module *m,
			  const struct donation_report *r, int32_t n,
			  void (*found)(void *ctx, const struct annotation_violation *v), void *ctx);

#endif
