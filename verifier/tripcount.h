/* tripcount.h - how many times a while loop runs, when that is known.
 *
 * After optimization XLA writes the count into the while's backend_config
 * ("known_trip_count":{"n":"8"}); before it, XLA's ComputeWhileLoopTripCount
 * (xla/hlo/analysis/while_loop_analysis.cc) finds an induction variable: the
 * condition compares one state slot with a constant, the body adds a positive
 * constant to the same slot, and the loop's initial tuple holds a constant
 * there. This file follows that pattern match and its brute-force fallback
 * (at most WHILE_TRIP_BRUTE_FORCE iterations of the slot's update), and
 * nothing else: a count it returns is the one XLA would compute. */
#ifndef HLOPROOF_TRIPCOUNT_H
#define HLOPROOF_TRIPCOUNT_H
#include <stdint.h>
#include "ir.h"

#define WHILE_TRIP_BRUTE_FORCE 128  /* XLA's max_brute_force_iters default */

enum trip_source {
	TRIP_UNKNOWN = 0,
	TRIP_BACKEND_CONFIG,  /* known_trip_count in backend_config */
	TRIP_INDUCTION,       /* i = init; i < N (or <= N); i += step */
	TRIP_BRUTE_FORCE,     /* the condition evaluated on the slot's updates */
};

struct trip_count {
	int64_t n;                /* -1 when unknown */
	enum trip_source source;
	int64_t init, bound, step; /* TRIP_INDUCTION: the values matched */
	int32_t slot;             /* the induction variable's state slot, or -1 */
};

/* The trip count of `w` (a while instruction); n = -1 and TRIP_UNKNOWN when
 * neither the backend config nor the induction pattern gives it. */
struct trip_count while_trip_count(const struct hlo_instruction *w);

/* One phrase for evidence: "8 iterations (known_trip_count)" and so on;
 * "unknown trip count" when n < 0. Writes at most cap bytes. */
void trip_count_describe(const struct trip_count *t, char *buf, size_t cap);

/* How many times one run of the module runs computation c's body: the
 * product of the trip counts of the while loops that call it as their body
 * (a condition runs once more), through the call graph (nested loops
 * multiply). *in_loop (may be NULL) is set when some while encloses c.
 * Returns 1 outside loops, -1 when a count on the way is unknown or its
 * callers disagree. */
int64_t computation_trips(const struct hlo_computation *c, int *in_loop);

#endif
