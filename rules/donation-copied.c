/* donation-copied (HP203): a donation honored only through a copy of the
 * parameter, so no memory is saved (hlo-semantics.md §7.4, §7.6 D4/D5).
 *  - observed: the parameter value's only readers are same-layout copies
 *    (what copy insertion leaves when the parameter is read after the
 *    output is written);
 *  - predicted, in a module not yet scheduled: the donated buffer has a
 *    hazard in every schedule, or in some (copy insertion orders by
 *    dependencies only, so it copies then too unless an ordering is added):
 *    mostly the parameter read after the output is written, else another
 *    value in the buffer at once.
 * Which donations these are is donation_reading's (donation.h), the reading
 * `hloproof donation` gives them.
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
		/* the one reading `donation` gives too (donation.h) */
		enum donation_reading x = donation_reading(m, r);
		if (x != READING_COPIED && x != READING_COPY_PREDICTED)
			continue;
		char pd[256], name[160], oi[128] = "{}", key[300], is[128], what[300];
		describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
		param_short_name(name, sizeof(name), m, r->param, &r->param_index);
		if (r->output_index)
			shape_index_to_string(r->output_index, oi, sizeof(oi));
		shape_index_to_string(&r->param_index, is, sizeof(is));
		snprintf(key, sizeof(key), "%s->%s", is, oi);
		struct finding *f;
		char b[32];
		tl_format_bytes(x == READING_COPIED ? r->copy_bytes : r->bytes, b, sizeof(b));
		int some = r->any == VERDICT_SCHEDULE_DEPENDENT && r->edges;
		if (x == READING_COPIED)
			f = finding_add_at(ctx, r->param_instr, r->pos, key, "donated %s is copied (%s): "
					   "no memory saved; read it before the update", name, b);
		else if (r->late_read)
			f = finding_add_at(ctx, r->param_instr, r->pos, key, "donated %s will be copied (%s): "
					   "read after the update%s", name, b, some ? "; read it first" : "");
		else
			f = finding_add_at(ctx, r->param_instr, r->pos, key, "donating %s costs a copy (%s): "
					   "its buffer holds another value too", name, b);
		if (!f)
			continue;
		/* the user's line: where the update overwrites the parameter */
		finding_place_at(ctx->findings, f, x == READING_COPIED ? r->copy : r->writer);
		if (x == READING_COPIED) {
			finding_evidence(ctx->findings, f, "output %s is written through copy %s", oi,
					 r->copy ? r->copy->name : "?");
		} else {
			if (r->reader && r->writer)
				snprintf(what, sizeof(what), "%s reads it after %s writes output %s",
					 r->reader->name, r->writer->name, oi);
			else
				snprintf(what, sizeof(what), "a value of its buffer is still read after output "
					 "%s is written", oi);
			if (some)
				finding_evidence(ctx->findings, f, "%s in some schedules, and copy insertion "
						 "orders by dependencies only; the control edge%s %s %s the copy",
						 what, strchr(r->edges, ',') ? "s" : "", r->edges,
						 strchr(r->edges, ',') ? "together avoid" : "avoids");
			else
				finding_evidence(ctx->findings, f, "%s in every schedule, so XLA's copy "
						 "insertion adds a copy", what);
		}
		finding_facts(f, (long long)(x == READING_COPIED ? r->copy_bytes : r->bytes),
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
