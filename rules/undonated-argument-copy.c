/* undonated-argument-copy (HP105): a copy XLA makes because an in-place op,
 * or an entry output, would otherwise write an entry parameter that is not
 * donated, reported only when donating the argument is proven to let XLA
 * drop it: the module with the copy removed and the parameter donated (as
 * JAX donates it: aliased to the output of its dtype and shape, else the one
 * XLA's donor matching gives it) has no schedule that reads a value of the
 * parameter's buffer after it was overwritten (copies.h donate_drops,
 * repair.h repair_donation_drops_copy). When the parameter is still read
 * after the update, donating it would not avoid the copy: no finding. */
#include "lint.h"
#include "copies.h"
#include "source.h"   /* param_arg_path */
#include "timeline.h" /* tl_format_bytes */
#include <stdio.h>
#include <string.h>

#define EVIDENCE_LINES 24

/* What writes the parameter: "the custom call pfft3d", "dynamic-update-slice d0". */
static void writer_words(const struct copy_report *r, char *buf, size_t cap)
{
	const struct hlo_instruction *u = r->in_place_writer;
	if (r->family == FAMILY_OUTPUT || !u)
		snprintf(buf, cap, "it is returned as an output");
	else if (u->opcode == OP_CUSTOM_CALL && u->ext->custom_call_target)
		snprintf(buf, cap, "the custom call %s updates it in place", u->ext->custom_call_target);
	else
		snprintf(buf, cap, "%s %s updates it in place", opcode_name((enum opcode)u->opcode), u->name);
}

static int check(struct rule_ctx *ctx)
{
	const struct copy_list *cl = rule_copies(ctx);
	const struct hlo_module *m = ctx->module;
	if (!cl || !m->entry)
		return 0; /* the module could not be analysed */
	for (int32_t i = 0; i < cl->n; i++) {
		const struct copy_report *r = &cl->items[i];
		if (r->donate_drops <= 0)
			continue;
		const struct donation_fix *dx = &r->donate;
		const struct hlo_instruction *p = m->entry->params[dx->param];
		const char *arg = param_arg_path(m, dx->param);
		char what[300], b[32], nm[512], wr[300], ix[128], out[128];
		shape_index_to_string(&dx->index, ix, sizeof(ix));
		shape_index_to_string(&dx->output, out, sizeof(out));
		if (arg)
			snprintf(what, sizeof(what), "argument %s", arg);
		else if (dx->index.n)
			snprintf(what, sizeof(what), "parameter %s at %s", p->name, ix);
		else
			snprintf(what, sizeof(what), "parameter %s", p->name);
		tl_format_bytes(r->bytes, b, sizeof(b));
		writer_words(r, wr, sizeof(wr));
		struct finding *f = finding_add(ctx, r->copy,
						"XLA copies %s (%s) because %s and it is not donated: "
						"donate it to drop the copy", what, b, wr);
		if (!f)
			continue;
		finding_facts(f, (long long)r->bytes, copy_family_name(r->family), verdict_name(r->any));
		finding_trips(f, r->copy->parent, (long long)r->bytes);
		finding_evidence(ctx->findings, f, "in JAX: donate %s with jax.jit(..., donate_argnums=...) "
				 "(or donate_argnames); its buffer then becomes output %s",
				 arg ? arg : "this argument", out);
		finding_evidence(ctx->findings, f, "checked on the module with copy %s removed and entry "
				 "parameter %lld %s donated (may-alias output %s): no schedule reads the "
				 "parameter's buffer after it is overwritten",
				 copy_site_name(&r->site, nm, sizeof(nm)), (long long)dx->param, ix, out);
		finding_evidence(ctx->findings, f, "why the copy is there: %s", r->family_evidence);
		finding_evidence_text(ctx->findings, f, r->evidence, EVIDENCE_LINES);
		finding_accept_copy(ctx, f, dx->param, &dx->index);
	}
	return 0;
}

const struct rule rule_undonated_argument_copy = {
	.id = "HP105",
	.slug = "undonated-argument-copy",
	.severity = SEV_WARNING,
	.summary = "a copy of an argument that is updated in place (or returned) and not donated; "
		   "donating it drops the copy",
	.check = check,
	.flags = RULE_ABOUT_COPY,
};
