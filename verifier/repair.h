/* repair.h - a repair claim checked before it is printed (docs/verdicts.md
 * "Repairs"): the module with the claimed control edges added must have no
 * cycle and none of the hazards the claim is about, decided by running the
 * same analysis again on the rewritten module (rewrite.h).
 *
 * Each check analyses the module with the edges once per distinct edge set;
 * the last few are kept on the analysis (an->repairs), so claims sharing an
 * edge set (a copy and a donation of one buffer, say) pay once. The edges
 * are put into the module itself for the time of a question (rewrite.h
 * hlo_edges_prepare_stripped), scheduled or not (every question here is
 * about every schedule, which the printed order takes no part in), and the
 * analysis with them shares the values, in-place pairs and buffers, which
 * control edges do not change, and has its own ordering (ordering.h
 * ordering_build_with_edges) and hazard caches; with edges only added, the
 * hazards of the module as given, less those the edges rule out (hazard.h
 * hazards_left_with_edges). Under --cross-check every edge set is also
 * printed with the edges, parsed and analysed again in full, and both
 * answers must agree. The analyses with the edges make no repair claims
 * themselves. The one-hazard checks (exact) have a budget of instructions
 * analysed again per module, counted as when each check analysed the whole
 * module; past it they answer -1 (not checked), and the caller claims no
 * repair. */
#ifndef HLOPROOF_REPAIR_H
#define HLOPROOF_REPAIR_H
#include "analysis.h"
#include "copysite.h"

struct hazard_report;
struct repair_cache;

/* 1: with the edges, no schedule has a hazard of a kind in kind_mask (bit
 * per enum hazard_kind) on the value that hazard h is about (exact: that
 * very hazard, the same writer and read); 0: some schedule still has one,
 * or the edges close a cycle; -1: the rewritten module could not be
 * analysed. */
int repair_avoids_value_hazards(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
				const struct hlo_instruction *const *to, const struct hazard_report *h,
				unsigned kind_mask, int exact);

/* 1: with the edges, removing `copy` is `removable` under every schedule; 0:
 * not, or a cycle; -1: the rewritten module could not be analysed. */
int repair_makes_removable(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to, const struct hlo_instruction *copy);

/* 1: with the edges, the buffer of value `value` (an id of an->df; a
 * donated parameter's, say) is `safe` under every schedule; 0: not, or a
 * cycle; -1: the rewritten module could not be analysed. */
int repair_makes_safe(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
		      const struct hlo_instruction *const *to, int32_t value);

struct copy_report;
struct buffer_verdict;

/* A schedule-dependent copy verdict keeps its edges only when they make the
 * removal removable (repair_makes_removable); otherwise it becomes unknown,
 * with the reason, and its evidence says the edges were no repair. Nothing
 * to do for other verdicts, or in an analysis made to check a repair. */
void repair_check_copy(struct analysis *an, struct copy_report *r);
/* The same for the verdict of one buffer of the module as given (a
 * donation's): its edges together must make it safe. Returns 1 when the
 * verdict stands, 0 when it became unknown. */
int repair_check_buffer(struct analysis *an, int32_t buffer, struct buffer_verdict *bv);

/* Would donating an entry parameter leaf let XLA drop a copy of it (a copy
 * made because an in-place op, or an entry output, would otherwise write
 * the read-only parameter)? Decided on the module with the copy site
 * removed (rewrite.h) and the leaf donated as JAX donates it: aliased to
 * the output of its dtype and shape JAX pairs it with (hlo-semantics.md
 * 7.5), else to the output XLA's donor matching gives it (donormatch.h), the
 * module's other donors matched as XLA matches them. 1: no schedule of that
 * module reads a value of the parameter's buffer after it was overwritten
 * (hazards_decide_buffer: safe), so copy insertion has nothing to copy
 * for it; 0: not (fix->why_not says why: no output to reuse, or a hazard
 * that remains in every schedule, e.g. the parameter read after the in-place
 * update); -1: not decided (the removal cannot be written, the analysis
 * failed or gave unknown, a hazard remains in some schedules only or where
 * the rewrite keeps a read XLA would not make, or the repair budget is
 * spent). Strings in an->m's arena. */
struct donation_fix {
	int32_t param;
	struct shape_index index;      /* the parameter leaf */
	struct shape_index output;     /* the output it would be written into (1) */
	const char *why_not;           /* 0 */
};
int repair_donation_drops_copy(struct analysis *an, const struct copy_site *st, int32_t param,
			       const struct shape_index *ix, struct donation_fix *fix);

/* analysis_free's part */
void repair_cache_free(struct repair_cache *c);

#endif
