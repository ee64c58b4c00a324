/* donation-copied (HP203): a donation honored only through a copy of the
 * parameter, so no memory is saved (hlo-semantics.md §7.4, §7.6 D4/D5).
 *  - observed: the parameter value's only readers are same-layout copies
 *    (what copy insertion leaves when the parameter is read after the
 *    output is written);
 *  - predicted, in a module not yet scheduled: the parameter is read after
 *    a write into its buffer in every schedule, or in some (copy insertion
 *    orders by dependencies only, so it copies then too unless an ordering
 *    is added).
 * An <accept-copy> in the --annotations file marks the finding accepted. */
#include "donation.h"
#include "donormatch.h"
#include "lint.h"
#include "timeline.h" /* tl_format_bytes */
#include <stdio.h>
#include <string.h>

static int check(struct rule_ctx *ctx)
{
	const struct donation_list *dl = rule_donations(ctx);
	const struct hlo_module *m = ctx->module;
	if (!dl)
		return 0;
	for (int32_t i = 0; i < dl->n; i++) {
		const struct donation_report *r = &dl->items[i];
		if (r->any == VERDICT_NOT_HONORED)
			continue;
		int predicted = donation_copy_predicted(m, r);
		if (!r->copied && !predicted)
			continue;
		char pd[256], oi[128] = "{}", key[300], is[128], what[300];
		describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
		if (r->output_index)
			shape_index_to_string(r->output_index, oi, sizeof(oi));
		shape_index_to_string(&r->param_index, is, sizeof(is));
		snprintf(key, sizeof(key), "%s->%s", is, oi);
		const char *kind = r->kind == DONATION_MUST_ALIAS ? "must-alias donation"
				 : r->kind == DONATION_BUFFER_DONOR ? "predicted donation" : "donation";
		struct finding *f;
		char b[32];
		tl_format_bytes(r->copied ? r->copy_bytes : r->bytes, b, sizeof(b));
		if (r->copied) {
			f = finding_add_at(ctx, r->param_instr, r->pos, key,
					   "donated %s is reused only through a copy (%s): no memory saved; "
					   "read it before the in-place update", pd, b);
			if (f)
				finding_evidence(ctx->findings, f, "%s: output %s is written through copy %s",
						 kind, oi, r->copy ? r->copy->name : "?");
		} else {
			if (r->reader && r->writer)
				snprintf(what, sizeof(what), "%s reads it after %s writes output %s",
					 r->reader->name, r->writer->name, oi);
			else
				snprintf(what, sizeof(what), "it is still read after output %s is written", oi);
			int some = r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges;
			f = finding_add_at(ctx, r->param_instr, r->pos, key,
					   "donated %s will cost a copy (%s): read after the update%s; "
					   "read it first", pd, b,
					   some ? " in some schedules" : "");
			if (f && some)
				finding_evidence(ctx->findings, f, "%s: %s in some schedules, and copy insertion "
						 "orders by dependencies only; the control edge%s %s %s the copy",
						 kind, what, strchr(r->edges, ',') ? "s" : "", r->edges,
						 strchr(r->edges, ',') ? "together avoid" : "avoids");
			else if (f)
				finding_evidence(ctx->findings, f, "%s: %s in every schedule, so XLA copies the "
						 "parameter", kind, what);
		}
		finding_facts(f, (long long)(r->copied ? r->copy_bytes : r->bytes),
			      copy_family_name(FAMILY_DONATION), verdict_name(r->any));
		finding_evidence_text(ctx->findings, f, r->evidence, 0);
		finding_accept_copy(ctx, f, r->param, &r->param_index);
	}
	return 0;
}

const struct rule rule_donation_copied = {
	.id = "HP203",
	.slug = "donation-copied",
	.severity = SEV_WARNING,
	.summary = "a donation honored only through a copy of the parameter: no memory saved",
	.check = check,
	.flags = RULE_ABOUT_DONATION | RULE_STRICT_DONATION,
};
