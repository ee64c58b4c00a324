/* donormatch.h - which buffer_donor leaf becomes which entry output.
 *
 * XLA's pass optimize_input_output_buffer_alias (hlo-semantics.md §7.3) turns
 * registered donors into may-alias entries right before copy insertion:
 * nothing when the result shape is dynamic; donors are the registered array
 * leaves of each parameter in order (pre-order), not dynamic and not already
 * aliased; donees the result's array leaves not already aliased; per memory
 * space both lists are stably sorted by bytes, descending, and walked with two
 * cursors (bigger donor: skip it; bigger donee: skip it; equal: pair them).
 * Only byte size and memory space matter: f32[4] can receive s32[4].
 *
 * For reference the matching JAX did at lowering time (§7.5) is computed too:
 * walking the outputs in order, each takes the earliest still-unpaired donor
 * of identical dtype and dimensions in the same memory space.
 *
 * This is the one implementation of the prediction: rule HP201, the donation
 * reports (donation.h) and `hloproof donation` all use it. IR only: no
 * dataflow needed. */
#ifndef HLOPROOF_DONORMATCH_H
#define HLOPROOF_DONORMATCH_H
#include <stdint.h>
#include "ir.h"
#include "source.h"

/* What the walk decided for one donor leaf. */
enum donor_outcome {
	DONOR_MATCHED = 0,     /* paired with an output: becomes a may-alias */
	DONOR_NO_OUTPUT_SIZE,  /* no output leaf of that byte size at all */
	DONOR_MEMORY_SPACE,    /* outputs of that size exist only in other memory spaces */
	DONOR_ALL_TAKEN,       /* every output of that size and space is already aliased */
	DONOR_DYNAMIC_LEAF,    /* the donated leaf is dynamically shaped */
	DONOR_DYNAMIC_RESULT,  /* the entry result is dynamic: XLA matches nothing */
	DONOR_ALREADY_ALIASED, /* also an input_output_alias source (XLA rejects the module) */
};

const char *donor_outcome_name(enum donor_outcome o);

struct donor_leaf {
	int32_t param;
	struct shape_index index;
	const struct shape *shape;    /* entry_computation_layout's when printed */
	uint64_t bytes;
	int space;                    /* memory space S(n) */
	const struct buffer_donor *donor; /* the first registration of this leaf */
	const struct io_alias *alias; /* for DONOR_ALREADY_ALIASED */
	enum donor_outcome outcome;
	int32_t output;               /* outputs[] index when matched, else -1 */
	int32_t jax_output;           /* §7.5 pairing (dtype + dims), else -1 */
	/* for DONOR_ALL_TAKEN / DONOR_MEMORY_SPACE: the outputs of its size */
	int32_t n_taken_by_alias, n_taken_by_donor;
	int other_space;              /* a memory space holding an output of its size, or -1 */
};

struct output_leaf {
	struct shape_index index;
	const struct shape *shape;
	uint64_t bytes;
	int space;
	const struct io_alias *alias; /* already aliased by input_output_alias, or NULL */
	int32_t donor;                /* donors[] index matched to it, or -1 */
	int32_t jax_donor;            /* §7.5 pairing, or -1 */
};

struct donor_matching {
	int result_dynamic;
	int32_t n_donors, n_outputs;
	struct donor_leaf *donors;    /* distinct registered leaves, parameter order, pre-order */
	struct output_leaf *outputs;  /* result array leaves, pre-order */
	int32_t *leaf_of_entry;       /* [m->n_donors]: donors[] index of each registration */
};

/* Run the prediction. Everything lives in arena `a`. Returns 0, or -1 when the
 * module has no entry (nothing to match). Bounded: O((donors + outputs) log). */
int donor_match(const struct hlo_module *m, struct arena *a, struct donor_matching *out);

/* param_arg_path(): source.h */
/* A headline's name of a parameter leaf: its JAX argument path
 * ("params['w']", cut after 36 characters), else "param 0" or "param 0 {1}". */
void param_short_name(char *buf, size_t cap, const struct hlo_module *m, int32_t p,
		      const struct shape_index *ix);
/* "param 0 {1} (params['w'])" or "param 0 {1}". */
void describe_param(char *buf, size_t cap, const struct hlo_module *m, int32_t p,
		    const struct shape_index *ix);
/* A shape as text, cut with "..." when it does not fit. */
void shape_text(const struct shape *s, char *buf, size_t cap);

/* Why donor leaf i is not honored: "no output of 32 bytes", ... (empty when matched). */
void donor_reason(const struct donor_matching *dm, int32_t i, char *buf, size_t cap);
/* The outputs considered for donor leaf i, most relevant first (same size and
 * space, same size elsewhere, then the rest of its space), one line each,
 * at most `max_lines` then "... and N more outputs". Calls line(ctx, text). */
void donor_candidates(const struct hlo_module *m, const struct donor_matching *dm, int32_t i,
		      int max_lines, void (*line)(void *ctx, const char *text), void *ctx);
/* JAX's view of donor leaf i, one sentence (§7.5). */
void donor_jax_note(const struct hlo_module *m, const struct donor_matching *dm, int32_t i,
		    char *buf, size_t cap);

#endif
