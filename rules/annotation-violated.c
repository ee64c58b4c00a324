/* annotation-violated (HP204): the module breaks an expectation of the
 * --annotations file (docs/annotations.md): an argument declared donated is
 * not donated, not reused, or reused only through a copy nobody accepted;
 * an output declared to reuse an argument does not; or an item names an
 * argument the module does not have. The checks are annotations_check's. */
#include "annotations.h"
#include "donation.h"
#include "lint.h"
#include <stdio.h>
#include <string.h>

static void found(void *p, const struct annotation_violation *v)
{
	struct rule_ctx *ctx = p;
	char key[64];
	snprintf(key, sizeof(key), "annotation:%d:%d", v->item->line,
		 v->report ? (int)(v->report - rule_donations(ctx)->items) : -1);
	struct srcpos pos = v->report ? v->report->pos : (struct srcpos){0, 0, 0};
	struct finding *f = finding_add_at(ctx, v->param, pos, key, "%s", v->message);
	if (!f)
		return;
	if (v->report)
		finding_facts(f, (long long)v->report->bytes, NULL, verdict_name(v->report->any));
	finding_evidence(ctx->findings, f, "expected by %s:%d",
			 ctx->annotations->path ? ctx->annotations->path : "annotations", v->item->line);
	if (v->item->reason && v->item->kind != ANNOT_ACCEPT_COPY)
		finding_evidence(ctx->findings, f, "note: %s", v->item->reason);
	if (v->report && v->report->any != VERDICT_NOT_HONORED)
		finding_evidence(ctx->findings, f, "if the copy is intended, say so: <accept-copy> "
				 "with a reason (docs/annotations.md)");
}

static int check(struct rule_ctx *ctx)
{
	const struct donation_list *dl = rule_donations(ctx);
	if (!ctx->annotations || !dl)
		return 0;
	annotations_check(ctx->annotations, ctx->module, dl->items, dl->n, found, ctx);
	return 0;
}

const struct rule rule_annotation_violated = {
	.id = "HP204",
	.slug = "annotation-violated",
	.severity = SEV_ERROR,
	.summary = "the module breaks an expectation of the --annotations file",
	.check = check,
	.flags = RULE_ABOUT_DONATION,
};
