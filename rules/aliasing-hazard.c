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
#include "analysis.h"
#include "lint.h"
#include "copies.h"
#include "donation.h"
#include "hazard.h"
#include "repair.h"
#include "htab.h"
#include "xalloc.h"
#include "timeline.h" /* tl_format_bytes */
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

/* Why XLA copies the value and what a JAX user can do about it, in a few
 * words (the HLO details are evidence). `param`: the value is an entry
 * parameter (an argument); `fix`: a checked control edge avoids the hazard,
 * so reading the value first is a repair. */
static void reason(const struct hazard_report *h, int param, int fix, char *out, size_t cap)
{
	int loop = h->predicted_family == FAMILY_LOOP_CARRY;
	switch (h->kind) {
	case HAZARD_READ_ONLY_WRITTEN:
		snprintf(out, cap, "%s", param ? "updated in place; donate it"
				  : loop ? "a constant used as loop state"
				  : "a constant updated in place");
		break;
	case HAZARD_READ_ONLY_OUTPUT:
		snprintf(out, cap, "%s", param ? "returned as is; donate it"
				  : "a constant returned as an output");
		break;
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		snprintf(out, cap, "returned at two outputs");
		break;
	case HAZARD_SAME_TIME:
		snprintf(out, cap, "%s", loop ? "two loop slots hold it"
				  : "shares a buffer with another value");
		break;
	case HAZARD_SAME_INSTRUCTION:
		snprintf(out, cap, "an op reads it while overwriting it%s", fix ? "; read it first" : "");
		break;
	default:
		snprintf(out, cap, "overwritten before a read%s", fix ? "; read it first" : "");
	}
}

/* "{1,0}" of sub `sub` of instruction i's shape ("" for the whole shape). */
static void sub_text(const struct dataflow *df, const struct hlo_instruction *i, int32_t sub,
		     char *out, size_t cap)
{
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = shape_tree_index(dataflow_tree(df, i), sub, idx);
	size_t k = (size_t)snprintf(out, cap, "{");
	for (int32_t q = 0; q < n && k < cap; q++)
		k += (size_t)snprintf(out + k, cap - k, "%s%d", q ? "," : "", idx[q]);
	if (k < cap)
		snprintf(out + k, cap - k, "}");
}

/* The while loop (op OP_WHILE) or conditional (OP_CONDITIONAL) whose
 * output holds value v's buffer, and the index (as sub of its shape): a
 * value of the buffer defined by it, or for a loop by its body's parameter;
 * v itself first, then the one of computation `c`. */
static const struct hlo_instruction *holder(const struct analysis *an, int32_t v, enum opcode op,
					    const struct hlo_computation *c, int32_t *sub)
{
	const struct hlo_buffer *b = &an->bufs->buffers[an->bufs->buffer_of[v]];
	const struct hlo_instruction *best = NULL;
	/* v itself first: one buffer may hold several slots */
	for (int64_t k = -1; k < (int64_t)b->n_values; k++) {
		const struct hlo_value *x = &an->df->values[k < 0 ? v : b->values[k]];
		const struct hlo_instruction *w = NULL;
		if (x->def->opcode == op) {
			w = x->def;
		} else if (op == OP_WHILE && x->def->opcode == OP_PARAMETER && !x->def->parent->is_entry) {
			const struct hlo_computation *pc = x->def->parent;
			for (int32_t i = 0; i < pc->n_callers && !w; i++)
				if (pc->callers[i].instr && pc->callers[i].instr->opcode == OP_WHILE)
					w = pc->callers[i].instr;
		}
		if (!w)
			continue;
		int here = k < 0 || x->def->parent == c;
		if (!best || here) {
			best = w;
			*sub = (int32_t)x->sub;
		}
		if (here)
			break;
	}
	return best;
}

/* The entry output leaves (subs of the root) that hold a value of v's
 * buffer: the first two into *first and *second (-1 when none). */
static void output_leaves(const struct analysis *an, int32_t v, int32_t *first, int32_t *second)
{
	const struct hlo_instruction *root = an->m->entry ? an->m->entry->root : NULL;
	*first = *second = -1;
	if (!root)
		return;
	const struct hlo_buffer *b = &an->bufs->buffers[an->bufs->buffer_of[v]];
	const struct shape_tree *t = dataflow_tree(an->df, root);
	for (int32_t s = 0; s < t->n; s++) {
		if (t->nk[s] >= 0)
			continue;
		const struct value_set *vs = dataflow_set(an->df, root, s);
		const int32_t *ids = value_set_ids(vs);
		int hit = 0;
		for (int32_t i = 0; i < vs->n && !hit; i++)
			hit = an->bufs->buffer_of[ids[i]] == b->id;
		if (!hit)
			continue;
		if (*first < 0)
			*first = s;
		else if (*second < 0)
			*second = s;
	}
}

/* The in-place operand of `w` that holds a value of v's buffer: its
 * operand number, or -1. */
static int32_t inplace_operand(const struct analysis *an, const struct hlo_instruction *w, int32_t v)
{
	const struct inplace_pair *pr;
	int32_t n = inplace_pairs(an->ip, w, &pr), buf = an->bufs->buffer_of[v];
	for (int32_t i = 0; i < n; i++) {
		const struct value_set *vs = dataflow_set(an->df, w->operands[pr[i].operand], pr[i].operand_sub);
		const int32_t *ids = value_set_ids(vs);
		for (int32_t k = 0; k < vs->n; k++)
			if (an->bufs->buffer_of[ids[k]] == buf)
				return pr[i].operand;
	}
	return n > 0 ? pr[0].operand : -1;
}

/* Where the copy goes (JSON copy_place): "loop state {5} of while.3",
 * "operand 0 of dynamic-update-slice.2", "entry output {1}",
 * "output {0} of conditional.4", else the value itself ("x{1}, after its
 * definition"). */
static void place(const struct analysis *an, const struct hlo_module *m,
		  const struct hazard_report *h, const char *vix, const struct hlo_computation *c,
		  char *out, size_t cap)
{
	char ix[128];
	int32_t sub = 0, a, b;
	const struct hlo_instruction *x;
	if (!an || h->v < 0 || h->v >= an->df->n_values) {
		snprintf(out, cap, "%s%s, after its definition", h->def_v->name, vix);
		return;
	}
	switch (h->kind) {
	case HAZARD_READ_ONLY_OUTPUT:
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		output_leaves(an, h->v, &a, &b);
		if (a < 0)
			break;
		/* two leaves: XLA keeps the first and copies into the second */
		sub_text(an->df, m->entry->root, h->kind == HAZARD_OUTPUTS_NOT_DISTINCT && b >= 0 ? b : a,
			 ix, sizeof(ix));
		snprintf(out, cap, "entry output %s", ix);
		return;
	default:
		break;
	}
	if (h->predicted_family == FAMILY_LOOP_CARRY && (x = holder(an, h->v, OP_WHILE, c, &sub))) {
		sub_text(an->df, x, sub, ix, sizeof(ix));
		snprintf(out, cap, "loop state %s of %s", ix, x->name);
		return;
	}
	if (h->predicted_family == FAMILY_BRANCH && (x = holder(an, h->v, OP_CONDITIONAL, c, &sub))) {
		sub_text(an->df, x, sub, ix, sizeof(ix));
		snprintf(out, cap, "output %s of %s", ix, x->name);
		return;
	}
	if (h->def_w && (a = inplace_operand(an, h->def_w, h->v)) >= 0) {
		snprintf(out, cap, "operand %d of %s", (int)a, h->def_w->name);
		return;
	}
	/* no holder or in-place writer: the value, copied where it is
	 * defined (XLA copies an aliased parameter or a shared value there) */
	if (h->def_w && h->def_w != h->def_v && h->kind != HAZARD_SAME_TIME)
		snprintf(out, cap, "%s%s, before %s writes its buffer", h->def_v->name, vix, h->def_w->name);
	else
		snprintf(out, cap, "%s%s, after its definition", h->def_v->name, vix);
}

/* A hazard on a donated parameter's value that a donation rule reports as
 * its reading (donation.h): before copy insertion the copy of the parameter
 * that donation-copied (HP203) predicts, whatever the hazard's kind (an
 * in-place writer, the loop, the donation itself); in a scheduled module
 * the corrupted read that donation-unsafe (HP202) reports. One value, one
 * finding, not two. */
static int reported_as_donation(struct rule_ctx *ctx, const struct hazard_report *h)
{
	int scheduled = ctx->module->is_scheduled;
	const struct rule *by = rule_lookup(scheduled ? "donation-unsafe" : "donation-copied");
	const struct donation_list *dl;
	if (h->def_v->opcode != OP_PARAMETER || !h->def_v->parent->is_entry || !by ||
	    !config_rule_enabled(ctx->config, by) || !(dl = rule_donations(ctx)))
		return 0;
	const struct dataflow *df = rule_dataflow(ctx);
	int32_t idx[SHAPE_MAX_DEPTH + 1], n = df ? dataflow_value_index(df, &df->values[h->v], idx) : 0;
	struct shape_index ix = {n, idx};
	for (int32_t i = 0; i < dl->n; i++) {
		const struct donation_report *r = &dl->items[i];
		if (r->param == h->def_v->parameter_number && shape_index_equal(&r->param_index, &ix))
			return donation_reading(ctx->module, r) ==
			       (scheduled ? READING_UNSAFE : READING_COPY_PREDICTED);
	}
	return 0;
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
	enum severity sev = ctx->severity; /* a warning before copy insertion: RULE_PREDICTS */
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
		if (reported_as_donation(ctx, h))
			continue;
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
		/* what is copied: the argument's path, else the HLO name */
		const char *arg = instr_arg_path(h->def_v);
		char size[80], why[160], at[300], vname[120], b[32];
		if (arg)
			snprintf(vname, sizeof(vname), "%.36s%s%s", arg, strlen(arg) > 36 ? "..." : "", ix);
		else
			snprintf(vname, sizeof(vname), "%.32s%s%s", h->def_v->name,
				 strlen(h->def_v->name) > 32 ? "..." : "", ix);
		/* how much: inside a loop the copy runs every iteration */
		const struct hlo_computation *lc = where(m, lead)->parent;
		int in_loop;
		int64_t trips = computation_trips(lc, &in_loop);
		tl_format_bytes(lead->bytes, b, sizeof(b));
		if (in_loop && trips > 1)
			snprintf(size, sizeof(size), "%lld x %s", (long long)trips, b);
		else if (in_loop && trips < 0)
			snprintf(size, sizeof(size), "%s per iteration", b);
		else
			snprintf(size, sizeof(size), "%s", b);
		struct analysis *an = rule_analysis(ctx);
		place(an, m, lead, ix, lc, at, sizeof(at));
		/* a repair is named only once the module with its edge added,
		 * analysed again, no longer has the hazard (docs/verdicts.md) */
		int edge_ok = !scheduled && !grp->every && lead->edge_from && lead->edge_to &&
			      repair_avoids_value_hazards(an, 1, &lead->edge_from, &lead->edge_to, lead,
							  1u << lead->kind, 1) == 1;
		int param = h->def_v->opcode == OP_PARAMETER && h->def_v->parent->is_entry;
		reason(lead, param, edge_ok && count == 1, why, sizeof(why));
		char *msg = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&msg, &len);
		if (!s)
			continue;
		if (scheduled)
			fprintf(s, "the printed schedule reads corrupted data: %s (%s), %s", vname, size, why);
		else
			fprintf(s, "XLA %s %s (%s): %s", grp->every ? "copies" : "may copy", vname, size, why);
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
		finding_subject(ctx->findings, f, vname);
		finding_trips(f, lc, (long long)lead->bytes);
		char per[64] = "";
		if (in_loop && trips > 0)
			snprintf(per, sizeof(per), " per iteration, %lld iteration%s per step",
				 (long long)trips, trips == 1 ? "" : "s");
		else if (in_loop)
			snprintf(per, sizeof(per), " per iteration (trip count unknown)");
		if (!scheduled)
			finding_evidence(ctx->findings, f, "predicted copy: family %s, %llu bytes%s, at %s",
					 copy_family_name(lead->predicted_family),
					 (unsigned long long)lead->bytes, per, at);
		if (edge_ok)
			finding_evidence(ctx->findings, f, "the control edge %s -> %s avoids %s (checked on "
					 "the module with it added)", lead->edge_from->name, lead->edge_to->name,
					 count == 1 ? "it" : "the first hazard");
		else if (!scheduled && !grp->every)
			finding_evidence(ctx->findings, f, "no control edge that avoids it was found and checked");
		if (!scheduled && !grp->every)
			finding_evidence(ctx->findings, f, "in some schedules only; assumes copy insertion "
					 "orders by dependencies only "
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
	.flags = RULE_ABOUT_COPY | RULE_PREDICTS,
};
