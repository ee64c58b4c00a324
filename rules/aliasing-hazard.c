/* aliasing-hazard (HP101): the module as given reads a value after another
 * value of its buffer was written (docs/hazards.md section 3), or breaks a
 * static rule (read-only buffer written or returned, one buffer at two
 * outputs).
 *
 * A scheduled module is checked in its printed order: a hazard there means
 * the compiled program reads corrupted data (error). A module that is not
 * scheduled (before copy insertion) gets a warning that predicts the copy
 * XLA will insert, with its family and bytes, when some schedule has the
 * hazard; it says whether every schedule has it or which control edges
 * avoid it, checked on the module with them added (repair.h). Hazards are grouped per overwritten value (one predicted copy
 * each); the evidence lists the first few of each group. */
#include "lint.h"
#include "copies.h"
#include "hazard.h"
#include "repair.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIDENCE_MAX HAZARD_WITNESSES_SHOWN /* hazard.h: the witnesses there are */

/* group of a hazard: the protected value and the kind of conflict */
static int32_t klass(const struct hazard_report *h)
{
	switch (h->kind) {
	case HAZARD_READ_ONLY_WRITTEN: return 1;
	case HAZARD_READ_ONLY_OUTPUT: return 2;
	case HAZARD_OUTPUTS_NOT_DISTINCT: return 3;
	default: return 0;
	}
}

static const struct hlo_instruction *where(const struct hlo_module *m, const struct hazard_report *h)
{
	switch (h->kind) {
	case HAZARD_READ_ONLY_WRITTEN:
	case HAZARD_READ_ONLY_OUTPUT:
		return h->def_v;
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		return m->entry ? m->entry->root : h->def_v;
	default:
		return h->def_w ? h->def_w : h->def_v;
	}
}

/* Per group (value * 4 + class): how many hazards, and whether reported.
 * A table over the groups that have hazards, grown as they come, not an
 * array over every value of the module (10^6: 24 MB cleared for a few
 * thousand groups; a table sized by the reports faulted in 8 MB). */
struct group {
	int64_t key; /* -1: empty */
	int32_t count;
	uint8_t done;
};

struct groups {
	struct group *g;
	size_t mask, n;
};

static size_t group_slot(const struct groups *G, int64_t key)
{
	size_t h = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20) & G->mask;
	while (G->g[h].key >= 0 && G->g[h].key != key)
		h = (h + 1) & G->mask;
	return h;
}

static int groups_init(struct groups *G, size_t cap)
{
	G->g = malloc(cap * sizeof(*G->g));
	if (!G->g)
		return -1;
	G->mask = cap - 1;
	G->n = 0;
	for (size_t i = 0; i < cap; i++)
		G->g[i].key = -1;
	return 0;
}

/* The group of key, added when new; NULL when out of memory. */
static struct group *group_of(struct groups *G, int64_t key)
{
	size_t h = group_slot(G, key);
	if (G->g[h].key == key)
		return &G->g[h];
	if (2 * (G->n + 1) > G->mask + 1) {
		struct groups N;
		if (groups_init(&N, 2 * (G->mask + 1)) < 0)
			return NULL;
		for (size_t i = 0; i <= G->mask; i++)
			if (G->g[i].key >= 0)
				N.g[group_slot(&N, G->g[i].key)] = G->g[i];
		N.n = G->n;
		free(G->g);
		*G = N;
		h = group_slot(G, key);
	}
	G->n++;
	G->g[h] = (struct group){key, 0, 0};
	return &G->g[h];
}

/* The group's hazards that some schedule has, from i on. */
static int in_group(const struct hazard_report *g, int64_t key)
{
	return (int64_t)g->v * 4 + klass(g) == key && g->in_some;
}

static unsigned kinds_of(int32_t k)
{
	switch (k) {
	case 1: return 1u << HAZARD_READ_ONLY_WRITTEN;
	case 2: return 1u << HAZARD_READ_ONLY_OUTPUT;
	case 3: return 1u << HAZARD_OUTPUTS_NOT_DISTINCT;
	default:
		return 1u << HAZARD_OVERWRITE | 1u << HAZARD_SAME_TIME | 1u << HAZARD_SAME_INSTRUCTION;
	}
}

/* What a module that is not scheduled can do about the group of hazard i
 * (docs/verdicts.md "Repairs"): a repair is named only when the module with
 * its edges added, analysed again, has none of the group's hazards. Tried:
 * the first hazard's edge alone, then every hazard's edge together. */
static void put_repair(FILE *s, struct analysis *an, const struct hazard_report *H, int32_t n, int32_t i,
		       int64_t key)
{
	enum { MAX_EDGES = 64 };
	const struct hlo_instruction *from[MAX_EDGES], *to[MAX_EDGES];
	int32_t ne = 0;
	int every = 0, edgeless = 0;
	for (int32_t j = i; j < n; j++) {
		const struct hazard_report *g = &H[j];
		if (!in_group(g, key))
			continue;
		every |= g->in_every;
		if (!g->edge_from || !g->edge_to) {
			edgeless = 1;
			continue;
		}
		int32_t e = 0;
		while (e < ne && !(from[e] == g->edge_from && to[e] == g->edge_to))
			e++;
		if (e == ne && ne < MAX_EDGES) {
			from[ne] = g->edge_from;
			to[ne] = g->edge_to;
			ne++;
		} else if (e == ne) {
			edgeless = 1; /* too many to try */
		}
	}
	if (every) {
		fprintf(s, "every schedule has it, so no control edge avoids it");
		return;
	}
	unsigned kinds = kinds_of(klass(&H[i]));
	int rc = edgeless || ne == 0 ? 0 : repair_avoids_value_hazards(an, 1, from, to, &H[i], kinds, 0);
	if (rc == 1) {
		fprintf(s, "the control edge %s -> %s avoids it", from[0]->name, to[0]->name);
		return;
	}
	if (rc == 0 && ne > 1)
		rc = repair_avoids_value_hazards(an, ne, from, to, &H[i], kinds, 0);
	if (rc == 1) {
		fprintf(s, "the control edges");
		for (int32_t e = 0; e < ne; e++)
			fprintf(s, "%s %s -> %s", e ? "," : "", from[e]->name, to[e]->name);
		fprintf(s, " together avoid it");
		return;
	}
	if (rc < 0)
		fprintf(s, "some schedules have it; no repair by control edges was checked (the module "
			   "could not be analysed again with them, or the repair checks' budget is spent)");
	else
		fprintf(s, "some schedules have it; no set of control edges that avoids it was found");
}

static int check(struct rule_ctx *ctx)
{
	const struct hazard_list *hl = rule_hazards(ctx);
	if (!hl)
		return 0; /* the module could not be analysed */
	const struct hlo_module *m = ctx->module;
	int scheduled = m->is_scheduled;
	enum severity sev = ctx->severity;
	if (sev == SEV_ERROR && !scheduled)
		sev = SEV_WARNING; /* a prediction, before copy insertion */
	const struct hazard_report *H = hl->items;
	int32_t n = hl->n;
	struct groups G;
	int oom = groups_init(&G, 64) < 0;
	for (int32_t i = 0; i < n && !oom; i++)
		if (scheduled ? H[i].in_given > 0 : H[i].in_some) {
			struct group *grp = group_of(&G, (int64_t)H[i].v * 4 + klass(&H[i]));
			if (grp)
				grp->count++;
			oom = !grp;
		}
	if (oom) {
		free(G.g);
		return -1;
	}
	for (int32_t i = 0; i < n; i++) {
		const struct hazard_report *h = &H[i];
		int64_t key = (int64_t)h->v * 4 + klass(h);
		if (!(scheduled ? h->in_given > 0 : h->in_some))
			continue;
		struct group *grp = group_of(&G, key); /* counted above: never NULL */
		if (grp->done)
			continue;
		grp->done = 1;
		int32_t count = grp->count;
		char more[96] = "";
		if (count > 1)
			snprintf(more, sizeof(more), " (%d hazards on this value)", count);
		char fkey[160];
		snprintf(fkey, sizeof(fkey), "%s/%d", h->def_v->name, (int)klass(h));
		char *msg = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&msg, &len);
		if (!s)
			continue;
		if (scheduled) {
			fprintf(s, "the printed schedule reads corrupted data: %s%s", h->witness, more);
		} else {
			fprintf(s, "%s; XLA will insert a copy (family %s, %llu bytes); ", h->witness,
				copy_family_name(h->predicted_family), (unsigned long long)h->bytes);
			put_repair(s, rule_analysis(ctx), H, n, i, key);
			fprintf(s, "%s", more);
		}
		fclose(s);
		struct finding *f = findings_add(ctx->findings, ctx->rule, sev, where(m, h),
						 (struct srcpos){0}, fkey, msg);
		free(msg);
		if (!f)
			continue;
		/* the module's own hazard: unsafe in the printed (or every) schedule */
		finding_facts(f, (long long)h->bytes,
			      scheduled ? NULL : copy_family_name(h->predicted_family),
			      verdict_name(scheduled || h->in_every ? VERDICT_UNSAFE : VERDICT_SCHEDULE_DEPENDENT));
		int shown = 0;
		for (int32_t j = i; j < n && shown < EVIDENCE_MAX && count > 1; j++) {
			const struct hazard_report *g = &H[j];
			if ((int64_t)g->v * 4 + klass(g) != key || !(scheduled ? g->in_given > 0 : g->in_some))
				continue;
			finding_evidence(ctx->findings, f, "%s: %s%s", hazard_kind_name(g->kind), g->witness,
					 g->in_every ? " [every schedule]" : "");
			shown++;
		}
		if (count > shown && shown > 0)
			finding_evidence(ctx->findings, f, "... and %d more", count - shown);
	}
	free(G.g);
	return 0;
}

const struct rule rule_aliasing_hazard = {
	.id = "HP101",
	.slug = "aliasing-hazard",
	.severity = SEV_ERROR,
	.summary = "the module as given reads a value after its buffer was overwritten",
	.check = check,
	.flags = RULE_ABOUT_COPY,
};
