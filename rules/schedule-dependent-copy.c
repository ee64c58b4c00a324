/* schedule-dependent-copy (HP103): a copy needed under some schedules only
 * (docs/hazards.md section 4): the note names the control edge(s) that make
 * every schedule safe without it, and the evidence shows a hazardous order. */
#include "lint.h"
#include "copies.h"
#include "timeline.h" /* tl_format_bytes */
#include <string.h>

static int check(struct rule_ctx *ctx)
{
	const struct copy_list *cl = rule_copies(ctx);
	if (!cl)
		return 0; /* the module could not be analysed */
	for (int32_t i = 0; i < cl->n; i++) {
		const struct copy_report *r = &cl->items[i];
		if (r->family == FAMILY_NO_OP || r->any != VERDICT_SCHEDULE_DEPENDENT || !r->edge_from)
			continue;
		char nm[512], b[32]; /* "f{1}" for one output of a multi-output fusion */
		tl_format_bytes(r->bytes, b, sizeof(b));
		struct finding *f = finding_add(
			ctx, r->copy, "copy %s (%s, %s) is avoidable: read the old value before the update",
			copy_site_name(&r->site, nm, sizeof(nm)), b, copy_family_name(r->family));
		if (!f)
			continue;
		finding_evidence(ctx->findings, f, "in JAX: pass the old value through "
				 "jax.lax.optimization_barrier with the read, before the update");
		finding_facts(f, (long long)r->bytes, copy_family_name(r->family), verdict_name(r->any));
		finding_trips(f, r->copy->parent, (long long)r->bytes);
		finding_evidence_text(ctx->findings, f, r->evidence, 0);
	}
	return 0;
}

const struct rule rule_schedule_dependent_copy = {
	.id = "HP103",
	.slug = "schedule-dependent-copy",
	.severity = SEV_NOTE,
	.summary = "a copy needed under some schedules only; the control edge named avoids it",
	.check = check,
	.flags = RULE_ABOUT_COPY,
};
