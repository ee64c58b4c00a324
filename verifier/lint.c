/* lint.c - the rule runner and registry lookups. */
#include "lint.h"
#include "budget.h"
#include "embed.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

const char *severity_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

int rule_count(void)
{
	int n = 0;
	while (rule_registry[n])
		n++;
	return n;
}

int rule_index(const struct rule *r)
{
	for (int i = 0; rule_registry[i]; i++)
		if (rule_registry[i] == r)
			return i;
	return -1;
}

const struct rule *rule_lookup(const char *s)
{
	if (!s)
		return NULL;
	for (int i = 0; rule_registry[i]; i++)
		if (!strcasecmp(rule_registry[i]->id, s) || !strcmp(rule_registry[i]->slug, s))
			return rule_registry[i];
	return NULL;
}

const char *rule_doc(const char *slug)
{
	for (const struct embedded_doc *d = embedded_rule_docs; d->slug; d++)
		if (!strcmp(d->slug, slug))
			return d->text;
	return NULL;
}

int lint_run_stages(const struct hlo_module *m, const struct lint_config *cfg,
		    const struct rule_ctx *stages, struct findings *out)
{
	struct rule_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	if (stages)
		ctx = *stages;
	ctx.module = m;
	ctx.config = cfg;
	ctx.findings = out;
	int rc = 0;
	for (int i = 0; rule_registry[i]; i++) {
		const struct rule *r = rule_registry[i];
		if (!config_rule_enabled(cfg, r) || !r->check)
			continue;
		ctx.rule = r;
		ctx.severity = config_rule_severity(cfg, r);
		if (budget_expired(ctx.budget)) {
			/* reported, never dropped: the rule's verdicts are unknown */
			findings_add(out, r, SEV_NOTE, NULL, (struct srcpos){0}, "budget", LINT_NOT_CHECKED);
			if (rc == 0)
				rc = 1;
			continue;
		}
		if (r->check(&ctx) < 0)
			rc = -1;
	}
	findings_finalize(out);
	for (int32_t i = 0; i < out->n; i++) {
		const struct accept_item *a = config_accepted(cfg, &out->items[i]);
		if (a)
			out->items[i].suppressed = arena_strdup(&out->arena, a->reason);
	}
	return rc;
}

int lint_run(const struct hlo_module *m, const struct lint_config *cfg, struct findings *out)
{
	return lint_run_stages(m, cfg, NULL, out);
}
