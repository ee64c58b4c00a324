/* oracle_joint.h - the joint removal question by brute force (tests only):
 * does removing a set of copies together, with the control edges their
 * verdicts need, introduce a hazard? Built on the oracle's API (oracle.h):
 * the copies are removed one after the other by the oracle's own text
 * rewrite (oracle_remove_copy_text), and the rewritten module's hazards are
 * enumerated over every schedule.
 *
 * "Introduces" as ../shared/docs/verdicts.md defines it, restricted to the
 * cases the oracle can settle exactly from its per-triple answers:
 * - given: a hazard of the rewritten module in its printed schedule is new
 *   unless the module as given has the same one (kind, value, read; a
 *   removed copy's value read as its operand's) in its printed schedule;
 *   with control edges, the rewritten module is printed with them as fix
 *   prints it (rewrite.h hlo_module_with_edges: the fewest moves), and that
 *   new printed schedule is judged;
 * - any: the module as given must have no hazard at all (the caller checks
 *   r->module.some == 0); then every hazard of the rewritten module in a
 *   schedule that respects the edges is new. */
#ifndef HLOPROOF_TESTS_ORACLE_JOINT_H
#define HLOPROOF_TESTS_ORACLE_JOINT_H
#include <stdint.h>
#include "oracle.h"

/* One copy that may be removed. */
struct oj_copy {
	const char *comp, *name;   /* its instruction: copy, fusion, copy-start */
	int32_t output;            /* one output of a multi-output fusion, or -1 */
	const char *source;        /* the copied operand (what its users read instead) */
	uint64_t weight;
	int32_t n_edges;           /* control edges from[k] -> to[k] in ecomp[k], by name */
	const char *const *from, *const *to, *const *ecomp;
};

struct oj_question {
	struct hlo_module *m;                  /* the module as given */
	struct oracle *o;                      /* its oracle */
	const struct oracle_module_result *r;  /* its hazards (oracle_module) */
	int use_given;
	const struct oracle_limits *lim;
	int32_t n;
	const struct oj_copy *c;
};

/* 1: removing the copies of `set` (bit i: c[i]) with their edges
 * introduces no hazard; 0: it does, or an edge names a removed copy, or the
 * edges close a cycle (why says which); -1: over the oracle's limits. */
int oracle_joint_set(const struct oj_question *q, uint32_t set, char *why, size_t cap);
/* The same judgment of a rewritten module given as text whose removals
 * (the copies of `set`) and control edges are already made (fix's output). */
int oracle_joint_text(const struct oj_question *q, const char *text, uint32_t set, char *why,
		      size_t cap);

#endif
