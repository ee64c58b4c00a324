/* trace.h - the execution-trace model of docs/hazards.md section 2, reduced to
 * ordering atoms.
 *
 * An event is where a value is defined or read: at an instruction, at the
 * start or end of a control-flow instruction (while / conditional / call read
 * their operands at their start; while and conditional phis are defined at
 * their end), at the start or end of a computation's run (body and condition
 * parameter phis; reads of loop state at a body root, of live-out values at
 * the end of the program), or at time 0 (entry parameters and constants).
 *
 * The question "is there a trace of schedule S with t1 < t2 < t3" for three
 * events reduces to a conjunction of atoms "a runs before b" between two
 * instructions of one computation (each computation is scheduled on its own),
 * or to a constant: the walk down the call chains below decides everything
 * the call structure decides (iterations, branches, phases). */
#ifndef HLOPROOF_TRACE_H
#define HLOPROOF_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "ordering.h"

enum ev_phase {
	EV_TIME0 = 0, /* entry parameter or constant: before everything */
	EV_KSTART,    /* start of a computation's run (body / condition parameter phi) */
	EV_START,     /* start of a control-flow instruction (its operand reads) */
	EV_AT,        /* an ordinary instruction */
	EV_INSIDE,    /* (in paths only) something nested in a control-flow instruction */
	EV_END,       /* end of a while / conditional (its phis) */
	EV_KEND,      /* end of a computation's run (body root reads, program end) */
	EV_NEVER,     /* in a computation no execution reaches */
};

struct event {
	const struct hlo_instruction *x;  /* EV_START / EV_AT / EV_END; defining instr for EV_TIME0 */
	const struct hlo_computation *k;  /* EV_KSTART / EV_KEND */
	uint8_t phase;
};

int event_equal(const struct event *a, const struct event *b);
/* "add.3", "start of body.1", "end of the program", ... into buf. */
const char *event_format(const struct event *e, char *buf, size_t cap);

/* Levels of a path (the entry's included) past which an event is not
 * traced: its triples are unknown. Deciding a buffer carried through d
 * nested loops costs about d^3 (docs/performance.md), so hostile nesting
 * ends here rather than in minutes of work and gigabytes of paths. */
#define TRACE_MAX_DEPTH 128
#define TRACE_MAX_DEPTH_TEXT "128"

struct path_level {
	const struct hlo_computation *k;
	const struct hlo_instruction *x; /* NULL for EV_KSTART / EV_KEND */
	uint8_t phase;
};

/* The call chain of an event from the entry down: a level per control-flow
 * instruction it runs inside, however deep (a module of 64 nested loops is
 * a module like another), allocated by the caller (path_bytes). */
struct path {
	int32_t n;
	int ok;               /* 0: the chain is unsupported (see why) */
	int never;            /* the event never executes */
	const char *why;
	struct path_level l[]; /* n */
};

/* The levels e's path has (trace_path writes that many). */
int32_t trace_path_levels(const struct event *e);
/* Bytes of a path of n levels. */
static inline size_t path_bytes(int32_t n)
{
	return sizeof(struct path) + (size_t)(n > 0 ? n : 0) * sizeof(struct path_level);
}
/* e's path into p, which has room for trace_path_levels(e) levels. */
void trace_path(const struct event *e, struct path *p);
/* p was not traced because its control flow nests past TRACE_MAX_DEPTH. */
int path_too_deep(const struct path *p);

/* The deepest level at which events d and u run in one run of one
 * computation (their paths agree above it, inside the same instructions
 * and callees): u reads, in that run, the instance of a value defined at
 * d. 0 (the entry's one run) when d is at time 0. */
int32_t path_shared_run(const struct path *d, const struct path *u);
/* Paths a and b run in the same runs down to level L (the computation at L
 * included: inside the same instructions and callees above it). */
int path_same_run_to(const struct path *a, const struct path *b, int32_t L);
/* Event w happens exactly once in every run of the computation at level L
 * of path d (d's runs above it, and w directly in it: not inside one of its
 * loops, branches or calls). */
int path_direct_at(const struct path *d, const struct path *w, int32_t L);

/* An atom: instruction a runs before instruction b (one computation). */
struct atom {
	const struct hlo_instruction *a, *b;
};

#define COND_MAX_ATOMS 12
enum cond_kind { COND_FALSE = 0, COND_ATOMS, COND_UNKNOWN };

/* A conjunction of atoms (COND_ATOMS with n == 0 is true), false, or unknown. */
struct cond {
	uint8_t kind;
	uint8_t n;
	struct atom a[COND_MAX_ATOMS];
	const char *why;                      /* why false / unknown (static text) */
	const struct hlo_instruction *why_at; /* the instruction that explains it */
};

/* t1 < t2 < t3 for definition D of v, definition W of w, and the read U of
 * the instance of v defined at D. */
void cond_overwrite(const struct path *D, const struct path *W, const struct path *U,
		    struct cond *out);
/* cond_overwrite with its first levels skipped: skip =
 * min(cond_shared_levels(D, W), cond_shared_levels(W, U)), the levels all
 * three run inside of with the next level in one computation (settling
 * nothing), which a pair of paths shares however many triples ask;
 * skip < 0: walked here. */
int32_t cond_shared_levels(const struct path *A, const struct path *B);
void cond_overwrite_from(const struct path *D, const struct path *W, const struct path *U,
			 int32_t skip, struct cond *c);

/* ---- the dependency relation with the root last ---- */

/* The dependency order a decision runs on: the module's (operand and
 * control edges, each computation's root after everything, edges out of a
 * root dropped), or the module after a copy removal (the copy gone, its
 * users reading its operand, its control edges dropped, its operand the new
 * root when the copy was one). */
struct dv_scratch;
struct depview {
	struct ordering *dep;
	const struct hlo_instruction *removed; /* the removed copy, or NULL */
	struct dv_scratch *scratch;            /* search state (one per analysis) */
};

struct dv_scratch *dv_scratch_new(const struct hlo_module *m);
void dv_scratch_free(struct dv_scratch *s);
/* The scratch's cached answers are about one ordering at a time: another
 * depview's dep flushes them (in O(1)). An analysis that borrows its base's
 * scratch (the same module with control edges added) calls this first, so
 * that an ordering at a freed one's address is not taken for it. */
void dv_scratch_disown(struct dv_scratch *s);
/* In computation k, is must_precede(dv, a, b) just "b is k's root, or a is
 * not and b is reachable from a" (ordering_reaches)? So when nothing
 * follows k's root and no removed copy changes k. */
int dv_order_is_reach(const struct depview *dv, const struct hlo_computation *k);
/* The root of computation k in the view. */
const struct hlo_instruction *dv_root(const struct depview *dv, const struct hlo_computation *k);

/* b runs after a in every schedule of their computation (same computation,
 * a != b): a path of operand / control edges, or b is the root. */
int must_precede(struct depview *dv, const struct hlo_instruction *a,
		 const struct hlo_instruction *b);
/* Position in the given (printed) schedule, the root last. */
int32_t given_position(const struct depview *dv, const struct hlo_instruction *x);
/* The atoms of a conjunction can all hold in one schedule (together with
 * the extra edges, which may be NULL). */
int atoms_possible(struct depview *dv, const struct atom *a, int32_t n, const struct atom *extra,
		   int32_t n_extra);
int atom_forced(struct depview *dv, const struct atom *a);
int atom_given(const struct depview *dv, const struct atom *a);
/* A dependency path a ->* b written as "a -> x => y -> b" (=> a control
 * edge), or "b is the root of C", into buf. */
const char *dependency_path(struct depview *dv, const struct hlo_instruction *a,
			    const struct hlo_instruction *b, char *buf, size_t cap);

#endif
