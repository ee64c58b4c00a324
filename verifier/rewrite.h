/* rewrite.h - the module with one copy removed, or with control edges
 * added (a repair to check), parsed again.
 *
 * Used where the merged-buffer model of copies.c cannot follow XLA's phi
 * optimization (a group of loop phis that collapsed onto the copy but would
 * not collapse onto its operand): the copy decider then analyses the
 * rewritten module itself. */
#ifndef HLOPROOF_REWRITE_H
#define HLOPROOF_REWRITE_H
#include "ir.h"
#include "diag.h"
#include "copysite.h"

/* Removing `copy`: its users read its operand, the operand becomes the root
 * where the copy was, the copy's control edges are dropped. The module is
 * re-read from m->source, edited, printed and parsed again, so the result is
 * a fresh module with consistent users, positions and ids (free it with
 * hlo_module_free). NULL, with the reason in d, when that fails. */
struct hlo_module *hlo_module_without_copy(const struct hlo_module *m,
					   const struct hlo_instruction *copy, struct diag *d);

/* Removing a copy site (copysite.h): the users of the copy (a fused
 * copy's fusion, a copy-done, one output's get-tuple-elements) read the
 * copied operand, and the copy goes (a pair: both halves; one output of a
 * multi-output fusion: its get-tuple-elements, the fusion stays). NULL when
 * that cannot be written (a copy-start read by more than its copy-done, a
 * multi-output fusion used whole) or does not parse. */
struct hlo_module *hlo_module_without_site(const struct hlo_module *m, const struct copy_site *st,
					   struct diag *d);
/* What the rewrite moved: instructions moved off their printed order (over
 * every computation an edge reordered), and whether a computation was too
 * large for the least moves (reorder.h REORDER_MAX_BITS: its order is then
 * Kahn's, earliest printed first). */
struct rewrite_info {
	int32_t moved;
	int not_minimal;
};
/* Both at once (hloproof fix): every site of sites[0..n_sites) removed (a
 * site whose operand is another removed site's copy reads that copy's
 * operand), then the control edges from[i] -> to[i] added, and where an
 * edge runs against the printed order, the computation put in an order that
 * respects every data and control edge and moves the fewest instructions
 * from the printed order (reorder.h; a scheduled module's new schedule).
 * NULL when a site cannot be removed by an edit, an edge
 * names a removed instruction or joins two computations, the edges close a
 * cycle (*cycle = 1), or the text does not parse. info may be NULL. */
struct hlo_module *hlo_module_rewrite(const struct hlo_module *m, int32_t n_sites,
				      const struct copy_site *sites, int32_t n_edges,
				      const struct hlo_instruction *const *from,
				      const struct hlo_instruction *const *to, int *cycle,
				      struct rewrite_info *info, struct diag *d);
/* The module with control edges from[i] -> to[i] added (each pair in one
 * computation, named in m), ordered as hlo_module_rewrite orders it. NULL
 * when an edge joins two computations, or the edges close a cycle (*cycle =
 * 1 then), or the text does not parse. */
struct hlo_module *hlo_module_with_edges(const struct hlo_module *m, int32_t n,
					 const struct hlo_instruction *const *from,
					 const struct hlo_instruction *const *to, int *cycle,
					 struct diag *d);
/* The same with the control edges into and out of strip[0..n_strip)
 * dropped first (a copy to be removed with them: the removal drops its
 * control edges, the repair's edges must not cycle through them). */
struct hlo_module *hlo_module_with_edges_stripped(const struct hlo_module *m, int32_t n,
						 const struct hlo_instruction *const *from,
						 const struct hlo_instruction *const *to,
						 const struct hlo_instruction *const *strip, int32_t n_strip,
						 int *cycle, struct diag *d);

/* The same control edges put into m itself for a while, without printing
 * and parsing it again: each to[i] gets from[i] among its control
 * predecessors (and in its printed control-predecessors attribute), each
 * from[i] gets to[i] among its control successors. The text order stays as
 * it is, so this is the module with the edges for the dependency ordering
 * (which follows operand and control edges, not the text), not for a
 * schedule. hlo_edges_on / hlo_edges_off swap the instructions' edged and
 * own fields in and out (pointers: the module's own ext records and
 * attribute arrays are never written), any number of times; the set is
 * returned switched off. Memory from A, which must outlive the set. NULL
 * when an edge joins two computations or an instruction to itself (*cycle
 * = 1 then); a cycle through several edges is the ordering's to find. */
struct hlo_edge_set;
struct hlo_edge_set *hlo_edges_prepare(struct hlo_module *m, int32_t n,
				       const struct hlo_instruction *const *from,
				       const struct hlo_instruction *const *to, struct arena *A,
				       int *cycle);
/* The same with the control edges into and out of strip[0..n_strip) dropped
 * first (hlo_module_with_edges_stripped's module, for the dependency
 * ordering). */
struct hlo_edge_set *hlo_edges_prepare_stripped(struct hlo_module *m, int32_t n,
						const struct hlo_instruction *const *from,
						const struct hlo_instruction *const *to,
						const struct hlo_instruction *const *strip, int32_t n_strip,
						struct arena *A, int *cycle);
void hlo_edges_on(struct hlo_edge_set *E);
void hlo_edges_off(struct hlo_edge_set *E);

#endif
