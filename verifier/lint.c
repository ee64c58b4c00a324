/* lint.c - the rule runner (lint.h): one session's module through every
 * enabled rule. */
#include "lint.h"
#include "annotations.h"
#include "budget.h"
#include "session.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct copy_list *rule_copies(struct rule_ctx *ctx)
{
	const struct copy_verdicts *cv = session_copy_verdicts(ctx->session);
	return cv ? &cv->copies : NULL;
}

struct analysis *rule_analysis(struct rule_ctx *ctx)
{
	return session_copy_verdicts(ctx->session) ? session_analysis_built(ctx->session) : NULL;
}

const struct hazard_list *rule_hazards(struct rule_ctx *ctx)
{
	/* with the copies, in the order check builds them */
	const struct copy_verdicts *cv = session_copy_verdicts(ctx->session);
	return cv ? &cv->hazards : NULL;
}

const struct dataflow *rule_dataflow(struct rule_ctx *ctx)
{
	const struct copy_verdicts *cv = session_copy_verdicts(ctx->session);
	return cv && cv->an ? cv->an->df : NULL;
}

enum module_stage rule_stage(struct rule_ctx *ctx)
{
	return session_stage(ctx->session, NULL);
}

const struct donation_list *rule_donations(struct rule_ctx *ctx)
{
	if (session_options(ctx->session)->no_donations)
		return NULL;
	const struct donation_list *dl = session_donations(ctx->session);
	/* a module that donates nothing has an empty list, not none: the
	 * annotation rule (HP204) still checks what it declares donated */
	static const struct donation_list no_donations = {0};
	if (!dl && session_why(ctx->session, NULL) == SESSION_OK)
		return &no_donations;
	return dl;
}

struct finding *finding_vadd_at(struct rule_ctx *ctx, const struct hlo_instruction *instr,
				struct srcpos pos, const char *key, const char *fmt, va_list ap)
{
	char small[512];
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	char *msg = small;
	if ((size_t)n >= sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (!msg)
			return NULL;
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
	}
	if (pos.line <= 0 && !instr && ctx->module)
		pos = ctx->module->pos;
	struct finding *f = findings_add(ctx->findings, ctx->rule, ctx->severity, instr, pos, key, msg);
	if (msg != small)
		free(msg);
	return f;
}

struct finding *finding_add_at(struct rule_ctx *ctx, const struct hlo_instruction *instr,
			       struct srcpos pos, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct finding *f = finding_vadd_at(ctx, instr, pos, key, fmt, ap);
	va_end(ap);
	return f;
}

void finding_accept_copy(struct rule_ctx *ctx, struct finding *f, int32_t p, const struct shape_index *ix)
{
	const struct annotation *acc = annotations_accepted_copy(ctx->annotations, ctx->module, p, ix);
	if (!f || !acc)
		return;
	char buf[4200];
	snprintf(buf, sizeof(buf), "%s (%s:%d)", acc->reason,
		 ctx->annotations->path ? ctx->annotations->path : "annotations", acc->line);
	f->suppressed = arena_strdup(&ctx->findings->arena, buf);
}

struct finding *finding_add(struct rule_ctx *ctx, const struct hlo_instruction *instr,
			    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct finding *f = finding_vadd_at(ctx, instr, (struct srcpos){0, 0, 0}, NULL, fmt, ap);
	va_end(ap);
	return f;
}

int lint_run(struct session *s, const struct lint_config *cfg, struct findings *out)
{
	const struct session_options *so = session_options(s);
	struct rule_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.module = session_module(s);
	ctx.config = cfg;
	ctx.findings = out;
	ctx.annotations = so->annotations;
	ctx.budget = so->budget;
	ctx.session = s;
	int rc = 0;
	/* the donations before the rules, as the reports need them anyway */
	if (!so->no_donations && !session_donations(s) && session_why(s, NULL) == SESSION_FAILED)
		rc = -1;
	int not_checked = 0;
	for (int i = 0; rule_registry[i]; i++) {
		const struct rule *r = rule_registry[i];
		if (!config_rule_enabled(cfg, r) || !r->check ||
		    ((r->flags & RULE_SCHEDULED_ONLY) && !ctx.module->is_scheduled))
			continue;
		ctx.rule = r;
		/* the severity in this module's context (rule.h) */
		ctx.severity = rule_severity_in(r, config_rule_severity(cfg, r), ctx.module->is_scheduled);
		if (budget_expired(ctx.budget)) {
			/* reported, never dropped: the rule's verdicts are unknown */
			findings_add(out, r, SEV_NOTE, NULL, (struct srcpos){0}, "budget", LINT_NOT_CHECKED);
			not_checked = 1;
			continue;
		}
		if (r->check(&ctx) < 0)
			rc = -1;
	}
	out->stage = module_stage_name(session_stage(s, &out->stage_why));
	/* the copies the rules skipped as no-op, for the report's stage note */
	const struct copy_verdicts *cv = session_analysis_built(s) ? session_copy_verdicts(s) : NULL;
	for (int32_t i = 0; cv && i < cv->copies.n; i++)
		out->n_noop += cv->copies.items[i].family == FAMILY_NO_OP;
	findings_finalize(out);
	for (int32_t i = 0; i < out->n; i++) {
		const struct accept_item *a = config_accepted(cfg, &out->items[i]);
		if (a)
			out->items[i].suppressed = arena_strdup(&out->arena, a->reason);
	}
	return rc < 0 ? rc : not_checked;
}
