/* smt.h - the Z3 side of the hazard deciders.
 *
 * One Z3 context per analysis (struct smt), one solver per problem. A problem
 * is a slice: the instructions some hazard triples mention, each with an
 * integer position; positions are distinct per computation and respect the
 * dependency order between slice members (reachability, the root last), so
 * any model extends to a full schedule. Each triple is a conjunction of atoms
 * "a before b"; it gets two assumption literals: one implying the triple
 * happens, one implying it does not. Queries check under assumptions (no
 * push/pop), with a per-query timeout, and can be dumped as SMT-LIB2. */
#ifndef HLOPROOF_SMT_H
#define HLOPROOF_SMT_H
#include "trace.h"

struct smt;
struct smt_problem;

enum smt_answer { SMT_SAT = 0, SMT_UNSAT, SMT_UNKNOWN };

const char *smt_answer_name(enum smt_answer a);

struct smt *smt_new(int timeout_ms, const char *dump_dir, const char *module_name);
void smt_free(struct smt *s);
/* Number of checks sent so far; of those, unknown. */
uint64_t smt_queries(const struct smt *s);
/* Every check so far: constraints (assertions and assumptions) and wall
 * time in microseconds; returns how many. */
int32_t smt_query_log(const struct smt *s, const int32_t **sizes, const uint32_t **us);
/* Size of the last problem checked (constraints asserted). */
int32_t smt_last_size(const struct smt *s);

struct smt_problem *smt_problem_new(struct smt *s, struct depview *dv, const char *label);
void smt_problem_free(struct smt_problem *p);
/* A triple (conjunction of atoms); returns its number. */
int32_t smt_add_triple(struct smt_problem *p, const struct atom *a, int32_t n);
/* The order between slice members the problem is to keep: prec(ctx, a, b)
 * says a runs before b in every schedule considered (same computation,
 * a != b). Default: must_precede over the view. Set it to the dependencies
 * together with edges already decided, and the slice is only the open part
 * of a question. */
void smt_set_precedence(struct smt_problem *p,
			int (*prec)(void *ctx, const struct hlo_instruction *a,
				    const struct hlo_instruction *b),
			void *ctx);
/* A hard ordering edge a -> b (a repair control edge being verified). */
void smt_add_edge(struct smt_problem *p, const struct hlo_instruction *a,
		  const struct hlo_instruction *b);

/* Is there a schedule with none of the triples? */
enum smt_answer smt_check_none(struct smt_problem *p, const char **reason);
/* Is there a schedule with triple t? */
enum smt_answer smt_check_triple(struct smt_problem *p, int32_t t, const char **reason);
/* Is there a schedule where triple t does not happen? */
enum smt_answer smt_check_not_triple(struct smt_problem *p, int32_t t, const char **reason);
/* Is there a schedule with at least one of the triples? */
enum smt_answer smt_check_some(struct smt_problem *p, const char **reason);
/* After a SAT answer: does a run before b in the model? (-1 when unknown) */
int smt_model_before(struct smt_problem *p, const struct hlo_instruction *a,
		     const struct hlo_instruction *b);
/* Name of the last query ("q0003-none-copy.3"), for evidence; the dump file
 * is DIR/<name>.smt2 when dumping. */
const char *smt_last_query_name(const struct smt_problem *p);

#endif
