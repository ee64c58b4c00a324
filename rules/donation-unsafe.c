/* donation-unsafe (HP202): in a scheduled module, a donated parameter is read
 * after its buffer was overwritten (docs/hazards.md §6: the donation's buffer
 * has a hazard in the printed schedule). The verdict is the hazard decider's
 * (donation.h); this rule names the late reader and the writer. */
#include "donation.h"
#include "donormatch.h"
#include "hazard.h"
#include "lint.h"
#include "timeline.h" /* tl_format_bytes */
#include <stdio.h>
#include <string.h>

static int check(struct rule_ctx *ctx)
{
	const struct donation_list *dl = rule_donations(ctx);
	const struct hlo_module *m = ctx->module;
	if (!dl) /* scheduled modules only: RULE_SCHEDULED_ONLY */
		return 0;
	for (int32_t i = 0; i < dl->n; i++) {
		const struct donation_report *r = &dl->items[i];
		if (donation_reading(m, r) != READING_UNSAFE) /* the one reading (donation.h) */
			continue;
		char pd[256], name[160], oi[128] = "{}", key[300], is[128], b[32];
		describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
		param_short_name(name, sizeof(name), m, r->param, &r->param_index);
		if (r->output_index)
			shape_index_to_string(r->output_index, oi, sizeof(oi));
		shape_index_to_string(&r->param_index, is, sizeof(is));
		snprintf(key, sizeof(key), "%s->%s", is, oi);
		tl_format_bytes(r->bytes, b, sizeof(b));
		struct finding *f = finding_add_at(ctx, r->param_instr, r->pos, key,
						   "the printed schedule reads corrupted data: donated %s "
						   "(%s) is overwritten before a read", name, b);
		if (!f)
			continue;
		finding_place_at(ctx->findings, f, r->writer); /* the user's line: the overwrite */
		if (r->reader && r->writer && r->witness_kind == HAZARD_SAME_INSTRUCTION)
			finding_evidence(ctx->findings, f, "%s reads a value of the donated buffer while "
					 "writing into it", r->reader->name);
		else if (r->reader && r->writer)
			finding_evidence(ctx->findings, f, "%s reads a value of the donated buffer after %s "
					 "overwrote it", r->reader->name, r->writer->name);
		finding_facts(f, (long long)r->bytes, NULL, verdict_name(r->given));
		finding_evidence_text(ctx->findings, f, r->evidence, 0);
	}
	return 0;
}

const struct rule rule_donation_unsafe = {
	.id = "HP202",
	.slug = "donation-unsafe",
	.severity = SEV_ERROR,
	.summary = "a donated buffer overwritten while the parameter is still read (scheduled module)",
	.check = check,
	.flags = RULE_ABOUT_DONATION | RULE_SCHEDULED_ONLY,
};
