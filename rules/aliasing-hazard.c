/* aliasing-hazard (HP101): the module as given reads a value after another
 * value of its buffer was written (docs/hazards.md section 3), or breaks a
 * static rule (read-only buffer written or returned, one buffer at two
 * outputs).
 *
 * A scheduled module is checked in its printed order: a hazard there means
 * the compiled program reads corrupted data (error). A module that is not
 * scheduled (before copy insertion) gets a warning that predicts the copy
 * XLA will insert, with its family and bytes, when some schedule has the
 * hazard; it says whether every schedule has it or which control edge
 * avoids it. Hazards are grouped per copied value, whatever their kinds:
 * one finding per predicted copy, its value (JSON copied_value) and place,
 * the hazards behind it as evidence lines (the first few). The headline is
 * plain words; the HLO details are in the evidence. */
#include "lint.h"
#include "copies.h"
#include "hazard.h"
#include "repair.h"
#include "htab.h"
#include "xalloc.h"
#include "tripcount.h"
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

/* Per group (the copied value): how many hazards, and whether reported.
 * A table over the groups that have hazards, grown as they come, not an
 * array over every value of the module (10^6: 24 MB cleared for a few
 * thousand groups; a table sized by the reports faulted in 8 MB). */
struct group {
	int32_t count;
	uint8_t done;
	uint8_t every; /* one of its hazards is in every schedule */
};

struct groups {
	struct htab index; /* value id -> g[] index */
	struct group *g;
	size_t n, cap;
};

/* The group of value v, added when new. */
static struct group *group_of(struct groups *G, int32_t v)
{
	int added;
	uint64_t *ix = htab_put(&G->index, (uint64_t)(uint32_t)v, &added);
	if (added) {
		if (G->n == G->cap) {
			G->cap = G->cap ? 2 * G->cap : 64;
			G->g = xrealloc(G->g, G->cap, sizeof(*G->g));
		}
		G->g[G->n] = (struct group){0, 0, 0};
		*ix = G->n++;
	}
	return &G->g[*ix];
}

static void groups_free(struct groups *G)
{
	htab_free(&G->index);
	free(G->g);
}

/* "8.0 KiB", "32 bytes": the headline's size in plain words */
static void human_bytes(uint64_t b, char *out, size_t cap)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	if (b < 1024) {
		snprintf(out, cap, "%llu byte%s", (unsigned long long)b, b == 1 ? "" : "s");
		return;
	}
	double v = (double)b / 1024;
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(out, cap, "%.1f %s", v, units[u]);
}

/* Why XLA copies the value, in plain words (the HLO details are evidence). */
static void reason(const struct hazard_report *h, char *out, size_t cap)
{
	switch (h->kind) {
	case HAZARD_READ_ONLY_WRITTEN:
		snprintf(out, cap, "it is read-only (a constant or an undonated parameter) and "
				   "is updated in place");
		break;
	case HAZARD_READ_ONLY_OUTPUT:
		snprintf(out, cap, "it is read-only and also returned as an output");
		break;
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		snprintf(out, cap, "one buffer is returned at two outputs");
		break;
	default:
		if (h->predicted_family == FAMILY_LOOP_CARRY)
			snprintf(out, cap, "the loop updates it in place while the old value is still read");
		else
			snprintf(out, cap, "it is overwritten in place while it is still read");
	}
}

/* Where the copy goes, in words (JSON copy_place). */
static void place(const struct hlo_module *m, const struct hazard_report *h, char *out, size_t cap)
{
	switch (h->kind) {
	case HAZARD_READ_ONLY_OUTPUT:
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		snprintf(out, cap, "an entry output (%s)", m->entry && m->entry->root ? m->entry->root->name : "?");
		break;
	default:
		if (h->predicted_family == FAMILY_LOOP_CARRY && h->def_w)
			snprintf(out, cap, "the while-state slot that %s writes", h->def_w->name);
		else if (h->def_w)
			snprintf(out, cap, "the operand of %s (before it writes in place)", h->def_w->name);
		else
			snprintf(out, cap, "the value %s", h->def_v->name);
	}
}

/* A hazard the rule reports: in the printed schedule, or in some schedule
 * before copy insertion. */
static int shown_hazard(const struct hazard_report *h, int scheduled)
{
	return scheduled ? h->in_given > 0 : h->in_some;
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
	/* one group per copied value: XLA inserts one copy for it, whatever
	 * the number and kinds of the hazards behind it */
	struct groups G = {0};
	for (int32_t i = 0; i < n; i++)
		if (shown_hazard(&H[i], scheduled)) {
			struct group *grp = group_of(&G, H[i].v);
			grp->count++;
			grp->every |= (uint8_t)(H[i].in_every != 0);
		}
	for (int32_t i = 0; i < n; i++) {
		const struct hazard_report *h = &H[i];
		int64_t key = (int64_t)h->v;
		if (!shown_hazard(h, scheduled))
			continue;
		struct group *grp = group_of(&G, h->v); /* counted above */
		if (grp->done)
			continue;
		grp->done = 1;
		int32_t count = grp->count;
		/* the headline's hazard: an every-schedule one when there is one,
		 * so that the finding never says both "every" and "this edge" */
		const struct hazard_report *lead = h;
		for (int32_t j = i; grp->every && !lead->in_every && j < n; j++)
			if ((int64_t)H[j].v == key && shown_hazard(&H[j], scheduled) && H[j].in_every)
				lead = &H[j];
		char fkey[160];
		snprintf(fkey, sizeof(fkey), "%s/%d", h->def_v->name, (int)klass(h));
		/* the leaf too ("param{1,0}@body"): one copy per value, and a
		 * tuple's leaves are values of one instruction */
		char cv[400], ix[200] = "";
		const struct dataflow *df = rule_dataflow(ctx);
		if (df && h->v >= 0 && h->v < df->n_values && df->values[h->v].sub != 0) {
			int32_t idx[SHAPE_MAX_DEPTH + 1];
			int32_t ni = dataflow_value_index(df, &df->values[h->v], idx);
			size_t k = (size_t)snprintf(ix, sizeof(ix), "{");
			for (int32_t q = 0; q < ni && k < sizeof(ix); q++)
				k += (size_t)snprintf(ix + k, sizeof(ix) - k, "%s%d", q ? "," : "", idx[q]);
			if (k < sizeof(ix))
				snprintf(ix + k, sizeof(ix) - k, "}");
		}
		snprintf(cv, sizeof(cv), "%s%s@%s", h->def_v->name, ix, h->def_v->parent->name);
		char size[64], why[160], at[300], vname[120];
		human_bytes(lead->bytes, size, sizeof(size));
		/* inside a loop the copy runs every iteration */
		const struct hlo_computation *lc = where(m, lead)->parent;
		int in_loop;
		int64_t trips = computation_trips(lc, &in_loop);
		if (in_loop && trips > 0) {
			size_t k = strlen(size);
			snprintf(size + k, sizeof(size) - k, " per step, %lld step%s", (long long)trips,
				 trips == 1 ? "" : "s");
		} else if (in_loop) {
			size_t k = strlen(size);
			snprintf(size + k, sizeof(size) - k, " per iteration");
		}
		reason(lead, why, sizeof(why));
		place(m, lead, at, sizeof(at));
		snprintf(vname, sizeof(vname), "%.60s%s%.40s", h->def_v->name, strlen(h->def_v->name) > 60 ? "..." : "", ix);
		char *msg = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&msg, &len);
		if (!s)
			continue;
		/* a repair is named only once the module with its edge added,
		 * analysed again, no longer has the hazard (docs/verdicts.md) */
		int edge_ok = !scheduled && !grp->every && lead->edge_from && lead->edge_to &&
			      repair_avoids_value_hazards(rule_analysis(ctx), 1, &lead->edge_from,
							  &lead->edge_to, lead, 1u << lead->kind, 1) == 1;
		if (scheduled)
			fprintf(s, "the printed schedule reads corrupted data: %s (%s): %s", vname, size, why);
		else if (grp->every)
			fprintf(s, "XLA will insert a copy of %s (%s): %s, in every schedule", vname, size, why);
		else if (edge_ok && count == 1)
			fprintf(s, "XLA will insert a copy of %s (%s): %s, unless %s runs before %s", vname,
				size, why, lead->edge_from->name, lead->edge_to->name);
		else
			fprintf(s, "XLA will insert a copy of %s (%s): %s, in some schedules", vname, size, why);
		fclose(s);
		struct finding *f = findings_add(ctx->findings, ctx->rule, sev, where(m, lead),
						 (struct srcpos){0}, fkey, msg);
		free(msg);
		if (!f)
			continue;
		/* the module's own hazard: unsafe in the printed (or every) schedule */
		finding_facts(f, (long long)lead->bytes,
			      scheduled ? NULL : copy_family_name(lead->predicted_family),
			      verdict_name(scheduled || grp->every ? VERDICT_UNSAFE : VERDICT_SCHEDULE_DEPENDENT));
		finding_copy(ctx->findings, f, cv, at);
		finding_trips(f, lc, (long long)lead->bytes);
		if (!scheduled)
			finding_evidence(ctx->findings, f, "predicted copy: family %s, %llu bytes, at %s",
					 copy_family_name(lead->predicted_family),
					 (unsigned long long)lead->bytes, at);
		if (edge_ok)
			finding_evidence(ctx->findings, f, "the control edge %s -> %s avoids %s (checked on "
					 "the module with it added)", lead->edge_from->name, lead->edge_to->name,
					 count == 1 ? "it" : "the first hazard");
		else if (!scheduled && !grp->every)
			finding_evidence(ctx->findings, f, "no control edge that avoids it was found and checked");
		if (!scheduled && !grp->every)
			finding_evidence(ctx->findings, f, "assumes copy insertion orders by dependencies only "
					 "(on GPU, copy removal runs again after scheduling and may drop the copy)");
		int shown = 0;
		for (int32_t j = i; j < n && shown < EVIDENCE_MAX; j++) {
			const struct hazard_report *g = &H[j];
			if ((int64_t)g->v != key || !shown_hazard(g, scheduled))
				continue;
			finding_evidence(ctx->findings, f, "%s: %s%s", hazard_kind_name(g->kind),
					 g->witness ? g->witness : "(witness not formatted)",
					 g->in_every ? " [every schedule]" : "");
			shown++;
		}
		if (count > shown && shown > 0)
			finding_evidence(ctx->findings, f, "... and %d more", count - shown);
	}
	groups_free(&G);
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
