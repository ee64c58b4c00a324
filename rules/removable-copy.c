/* removable-copy (HP102): a copy whose removal is proven safe under every
 * schedule (and under the printed one, when the module is scheduled): no
 * hazard on the merged buffer (docs/hazards.md section 4). The message gives
 * the bytes the copy writes; the evidence is the proof. */
#include "lint.h"
#include "copies.h"
#include "timeline.h" /* tl_format_bytes */
#include <string.h>

#define EVIDENCE_LINES 24

static int check(struct rule_ctx *ctx)
{
	const struct copy_list *cl = rule_copies(ctx);
	if (!cl)
		return 0; /* the module could not be analysed */
	for (int32_t i = 0; i < cl->n; i++) {
		const struct copy_report *r = &cl->items[i];
		if (r->family == FAMILY_NO_OP)
			continue; /* XLA's simplifier removes it anyway: nothing to save */
		if (r->any != VERDICT_REMOVABLE || (r->given != VERDICT_NONE && r->given != VERDICT_REMOVABLE))
			continue;
		char nm[512], b[32]; /* "f{1}" for one output of a multi-output fusion */
		tl_format_bytes(r->bytes, b, sizeof(b));
		struct finding *f = finding_add(ctx, r->copy,
						"copy %s (%s, %s) is needed by no schedule: remove it",
						copy_site_name(&r->site, nm, sizeof(nm)), b,
						copy_family_name(r->family));
		finding_facts(f, (long long)r->bytes, copy_family_name(r->family), verdict_name(r->any));
		finding_trips(f, r->copy->parent, (long long)r->bytes);
		if (f) {
			finding_evidence_text(ctx->findings, f, r->evidence, EVIDENCE_LINES);
			finding_evidence(ctx->findings, f, "hloproof prove-removal FILE %s proves the removal "
					 "on its own (exit 0)", nm);
		}
	}
	return 0;
}

const struct rule rule_removable_copy = {
	.id = "HP102",
	.slug = "removable-copy",
	.severity = SEV_WARNING,
	.summary = "a copy proven removable under every schedule",
	.check = check,
	.flags = RULE_ABOUT_COPY | RULE_UNKNOWN_NOTE,
};
