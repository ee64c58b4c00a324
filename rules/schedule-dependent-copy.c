/* schedule-dependent-copy (HP103): a copy needed under some schedules only
 * (docs/hazards.md section 4): the note names the control edge(s) that make
 * every schedule safe without it, and the evidence shows a hazardous order. */
#include "lint.h"
#include "copies.h"
#include <stdio.h>
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
		char edges[512];
		size_t o = 0;
		edges[0] = 0;
		for (int32_t k = 0; k < r->n_edges && o < sizeof(edges); k++)
			o += (size_t)snprintf(edges + o, sizeof(edges) - o, "%s%s -> %s", k ? ", " : "",
					      r->edges_from[k]->name, r->edges_to[k]->name);
		char nm[512]; /* "f{1}" for one output of a multi-output fusion */
		struct finding *f = finding_add(
			ctx, r->copy, "copy %s (%s, %llu bytes) is needed only in some schedules; with the control edge%s %s it can be removed",
			copy_site_name(&r->site, nm, sizeof(nm)), copy_family_name(r->family), (unsigned long long)r->bytes,
			r->n_edges > 1 ? "s" : "", edges);
		if (!f)
			continue;
		finding_facts(f, (long long)r->bytes, copy_family_name(r->family), verdict_name(r->any));
		finding_trips(f, r->copy->parent, (long long)r->bytes);
		for (const char *e = r->evidence; e && *e;) {
			const char *nl = strchr(e, '\n');
			int len = nl ? (int)(nl - e) : (int)strlen(e);
			finding_evidence(ctx->findings, f, "%.*s", len, e);
			e = nl ? nl + 1 : e + len;
		}
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
