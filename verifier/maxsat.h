/* maxsat.h - weighted MaxSMT over Z3's optimizer (Z3_optimize), for
 * `hloproof fix` (fix.h): Booleans with soft weights, hard clauses, and
 * integer positions ordered under a guard ("if this removal is chosen, its
 * control edge a -> b holds"). One problem per fix; constraints may be added
 * between solves (the learned constraints), and each solve starts from all
 * of them. */
#ifndef HLOPROOF_MAXSAT_H
#define HLOPROOF_MAXSAT_H
#include <stdint.h>

struct maxsat;

/* timeout_ms per solve (<= 0: none). NULL when Z3 refuses a context. */
struct maxsat *maxsat_new(int timeout_ms);
void maxsat_free(struct maxsat *s);

/* A new Boolean / integer variable; returns its number (from 0, each kind
 * counted on its own). */
int32_t maxsat_bool(struct maxsat *s);
int32_t maxsat_int(struct maxsat *s);
/* A literal: Boolean b, or its negation. */
static inline int32_t maxsat_pos(int32_t b) { return b + 1; }
static inline int32_t maxsat_neg(int32_t b) { return -(b + 1); }
/* Hard: at least one of the literals holds (n == 0: the problem has no
 * solution). */
void maxsat_clause(struct maxsat *s, const int32_t *lits, int32_t n);
/* Hard: when the literals guards[0..n) all hold (n == 0: always), integer
 * a < integer b. */
void maxsat_less(struct maxsat *s, const int32_t *guards, int32_t n, int32_t a, int32_t b);
/* Soft: Boolean b should hold; missing it costs weight (> 0). */
void maxsat_soft(struct maxsat *s, int32_t b, uint64_t weight);

enum maxsat_status {
	MAXSAT_OPTIMAL = 0,   /* value[] is an optimum of the soft weights */
	MAXSAT_NONE,          /* the hard constraints have no solution */
	MAXSAT_UNKNOWN,       /* timeout or resource limit: no answer */
};

/* Solve: value[b] (room for every Boolean) gets the optimum; *bound gets
 * the largest total weight of held soft constraints any solution can have
 * (exact at the optimum; on MAXSAT_UNKNOWN the bound the solver reached,
 * or the sum of every weight when it reached none). */
enum maxsat_status maxsat_solve(struct maxsat *s, uint8_t *value, uint64_t *bound);
/* Solves so far (for the report). */
int32_t maxsat_solves(const struct maxsat *s);

#endif
