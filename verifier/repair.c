/* repair.c - repair claims checked on the module with the edges added (repair.h). */
#include "repair.h"
#include "copies.h"
#include "hazard.h"
#include "hzview.h"
#include "lines.h"
#include "rewrite.h"
#include "diag.h"
#include "donormatch.h"
#include "shape.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPAIR_CACHED 4

/* A module with the edges added, analysed. The edges go into the module
 * itself for the time of a question (rewrite.h hlo_edges_prepare_stripped,
 * a removal's own control edges dropped first): they change the orderings
 * and what is decided over them, not the dataflow values, in-place pairs or
 * buffers, so the analysis with the edges shares those with the analysis
 * as given and has its own dependency ordering (the edges over the
 * computations' indices, ordering_build_with_edges), liveness and hazard
 * caches. Every question asked here is about every schedule, where the
 * printed order (of a scheduled module) takes no part, so scheduled modules
 * are checked so too. When only edges were added, the analysis with them
 * has the analysis as given for its base (analysis.h): the hazard deciders
 * take the reads and each buffer's triples from it, and keep those the
 * edges leave possible (hazard.h hazards_left_with_edges). Under
 * --cross-check every edge set is also printed into the module, parsed and
 * analysed again in full (rewrite.h hlo_module_with_edges_stripped), and the
 * two answers must agree. */
struct repair_entry {
	char *key;               /* the edge set, as "comp:a>b;..." */
	int cycle;
	int in_place;            /* the edges in the module itself (fast) */
	/* edges in the module itself */
	struct arena arena;      /* the edge set's fields and its ordering */
	struct hlo_edge_set *edges;
	struct analysis *fast;   /* shares an's values and buffers */
	/* the rewritten module */
	struct hlo_module *w;    /* NULL when it could not be built */
	struct analysis *aw;     /* NULL when it could not be analysed */
	int w_cycle;
	struct diag d;
};

/* Instructions analysed again per module for the one-hazard checks
 * (explain --hazards: one per hazard, thousands on a large module): past it
 * such a claim is not checked, and so not made (a module of 50,000
 * instructions gets 40 checks). Counted as before the checks shared the
 * values and buffers (a whole module per check), so that the same claims
 * are checked: a check now costs one computation's reachability index and
 * one buffer's hazards (nv_maxtext_deepseek: 143 checks, check 22 s -> 0.5 s). */
#define REPAIR_BUDGET_INSTRS 2000000

struct repair_cache {
	struct repair_entry e[REPAIR_CACHED];
	int next;
	int64_t spent;
};

static void entry_free(struct repair_entry *e)
{
	analysis_free(e->aw);
	hlo_module_free(e->w);
	if (e->fast) {
		analysis_free(e->fast);
		free(e->fast);
	}
	if (e->key)
		arena_free(&e->arena);
	free(e->key);
	memset(e, 0, sizeof(*e));
}

void repair_cache_free(struct repair_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < REPAIR_CACHED; i++)
		entry_free(&c->e[i]);
	free(c);
}

static char *edges_key(int32_t n, const struct hlo_instruction *const *from,
		       const struct hlo_instruction *const *to, const struct hlo_instruction *const *strip,
		       int32_t n_strip)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	for (int32_t i = 0; i < n; i++)
		fprintf(f, "%s:%s>%s;", to[i]->parent->name, from[i]->name, to[i]->name);
	for (int32_t i = 0; i < n_strip; i++)
		fprintf(f, "-%s:%s;", strip[i]->parent->name, strip[i]->name);
	fclose(f);
	return s;
}

/* The rewritten module, printed with the edges (and without the control
 * edges of strip[0..n_strip)) and parsed again. */
static void build_rewritten(struct analysis *an, struct repair_entry *e, int32_t n,
			    const struct hlo_instruction *const *from,
			    const struct hlo_instruction *const *to,
			    const struct hlo_instruction *const *strip, int32_t n_strip)
{
	/* the donation decider analyses a module whose header has the alias
	 * each matched donor will become (donation.c): that donor entry is
	 * printed as the alias alone, as the pass leaves the module */
	struct hlo_module *m = an->m;
	struct buffer_donor *donors = m->donors;
	int32_t n_donors = m->n_donors;
	struct buffer_donor *kept = xcalloc((size_t)n_donors + 1, sizeof(*kept));
	int32_t nk = 0;
	for (int32_t i = 0; i < n_donors; i++) {
		int aliased = 0;
		for (int32_t j = 0; j < m->n_aliases && !aliased; j++)
			aliased = m->aliases[j].param == donors[i].param &&
				  shape_index_equal(&m->aliases[j].param_index, &donors[i].param_index);
		if (!aliased)
			kept[nk++] = donors[i];
	}
	m->donors = kept;
	m->n_donors = nk;
	e->w = hlo_module_with_edges_stripped(m, n, from, to, strip, n_strip, &e->w_cycle, &e->d);
	m->donors = donors;
	m->n_donors = n_donors;
	free(kept);
	if (!e->w)
		return;
	/* the rewritten module's verdicts claim no repairs of their own, and
	 * show no witnesses */
	struct analysis_options o = an->opt;
	o.no_repair_check = 1;
	o.witness_limit = 1;
	o.smt_dump_dir = NULL;
	e->aw = analysis_run(e->w, &o, &e->d);
	if (!e->aw)
		e->w_cycle = e->d.errors > 0; /* a dependency cycle is the usual failure */
}

/* The edges in the module itself (the control edges of strip[] dropped
 * first), and the analysis over them. */
static void build_in_place(struct analysis *an, struct repair_entry *e, int32_t n,
			   const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to,
			   const struct hlo_instruction *const *strip, int32_t n_strip)
{
	e->edges = hlo_edges_prepare_stripped(an->m, n, from, to, strip, n_strip, &e->arena, &e->cycle);
	if (!e->edges)
		return;
	struct analysis *aw = xcalloc(1, sizeof(*aw));
	aw->m = an->m;
	aw->df = an->df;
	aw->ip = an->ip;
	aw->bufs = an->bufs;
	aw->opt = an->opt;
	aw->opt.no_repair_check = 1;
	aw->opt.no_evidence = 1;
	aw->opt.witness_limit = 1;
	aw->opt.smt_dump_dir = NULL;
	aw->stage = an->stage;
	aw->stage_why = an->stage_why;
	aw->d = &e->d;
	/* the computations whose control edges were dropped get a new
	 * reachability index; the edges added go over the index as it is
	 * where they are few (ordering_build_with_edges) */
	const struct hlo_computation **changed = xmalloc((size_t)n_strip + 1, sizeof(*changed));
	for (int32_t i = 0; i < n_strip; i++)
		changed[i] = strip[i]->parent;
	hlo_edges_on(e->edges);
	aw->dep = ordering_build_with_edges(an->dep, n, from, to, changed, n_strip, &e->arena, &e->d);
	hlo_edges_off(e->edges);
	free(changed);
	if (!aw->dep) {
		free(aw);
		e->cycle = e->d.errors > 0; /* the edges close a cycle */
		return;
	}
	liveness_init(&aw->lv_dep, aw->df, aw->ip, aw->dep);
	/* edges only added: the base's decisions serve (analysis.h) */
	if (!n_strip) {
		aw->base = an;
		aw->edge_from = arena_array(&e->arena, (size_t)n, sizeof(*aw->edge_from));
		aw->edge_to = arena_array(&e->arena, (size_t)n, sizeof(*aw->edge_to));
		memcpy(aw->edge_from, from, (size_t)n * sizeof(*from));
		memcpy(aw->edge_to, to, (size_t)n * sizeof(*to));
		aw->n_edges = n;
	}
	e->fast = aw;
}

/* The entry of the module with the edges added, analysed once per edge set
 * (the last few kept); NULL when the edges could not be added, or the
 * budget is spent. */
static struct repair_entry *with_edges(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
				       const struct hlo_instruction *const *to,
				       const struct hlo_instruction *const *strip, int32_t n_strip, int budgeted)
{
	if (n <= 0)
		return NULL;
	char *key = edges_key(n, from, to, strip, n_strip);
	if (!key)
		return NULL;
	if (!an->repairs)
		an->repairs = xcalloc(1, sizeof(*an->repairs));
	struct repair_cache *c = an->repairs;
	for (int i = 0; i < REPAIR_CACHED; i++)
		if (c->e[i].key && !strcmp(c->e[i].key, key)) {
			free(key);
			return &c->e[i];
		}
	if (budgeted && c->spent + an->m->n_instrs > REPAIR_BUDGET_INSTRS) {
		free(key);
		return NULL; /* not checked: -1 */
	}
	c->spent += budgeted ? an->m->n_instrs : 0;
	struct repair_entry *e = &c->e[c->next];
	c->next = (c->next + 1) % REPAIR_CACHED;
	entry_free(e);
	e->key = key;
	arena_init(&e->arena);
	/* most edge sets hold a few swaps: 256 KiB zeroed per copy re-checked
	 * was 5% of checking 1,024 copies */
	e->arena.first_chunk = 16 * 1024;
	diag_init(&e->d, NULL);
	/* the edges go into the module itself, scheduled or not: the
	 * questions asked (repair.h) are about every schedule, which the
	 * printed order takes no part in; --cross-check also asks the module
	 * printed with them and parsed again */
	e->in_place = 1;
	build_in_place(an, e, n, from, to, strip, n_strip);
	if (an->opt.cross_check)
		build_rewritten(an, e, n, from, to, strip, n_strip);
	return e;
}

/* The id in aw of the value that value v of an is (same instruction, sub,
 * phi or not); -1 when none. */
static int32_t same_value(const struct analysis *an, int32_t v, const struct analysis *aw)
{
	if (v < 0 || v >= an->df->n_values)
		return -1;
	if (aw->df == an->df)
		return v;
	const struct hlo_value *x = &an->df->values[v];
	const struct hlo_computation *k = hlo_find_computation(aw->m, x->def->parent->name);
	const struct hlo_instruction *d = k ? hlo_find_instruction(k, x->def->name) : NULL;
	if (!d)
		return -1;
	for (int32_t i = 0; i < aw->df->n_values; i++) {
		const struct hlo_value *y = &aw->df->values[i];
		if (y->def == d && y->sub == x->sub && y->is_phi == x->is_phi)
			return i;
	}
	return -1;
}

static int same_name(const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a->name, b->name) && !strcmp(a->parent->name, b->parent->name);
}

/* What a repair claim asks of the module with its edges. */
struct question {
	enum { Q_VALUE_HAZARDS, Q_REMOVABLE, Q_SAFE } kind;
	const struct hazard_report *h; /* Q_VALUE_HAZARDS */
	unsigned kind_mask;
	int exact;
	const struct hlo_instruction *copy; /* Q_REMOVABLE */
	int32_t value;                      /* Q_SAFE */
};

/* 1, 0 or -1 (could not be decided), asked of aw */
static int answer(struct analysis *an, struct analysis *aw, const struct question *q)
{
	switch (q->kind) {
	case Q_VALUE_HAZARDS: {
		int32_t v = same_value(an, q->h->v, aw);
		if (v < 0)
			return -1;
		if (aw->base) { /* the base's triples the edges leave (hazard.h) */
			int32_t unk, k = hazards_left_with_edges(aw, aw->bufs->buffer_of[v], v, q->kind_mask,
								 q->exact, q->h->def_w, q->h->use, &unk);
			return k < 0 ? -1 : k == 0 && unk == 0; /* an unknown one is not avoided */
		}
		struct hazard_report *r;
		int32_t k = hazards_in_buffer(aw, aw->bufs->buffer_of[v], &r);
		if (k < 0)
			return -1;
		for (int32_t i = 0; i < k; i++)
			if (r[i].v == v && ((q->kind_mask >> r[i].kind) & 1) && (r[i].in_some || r[i].unknown) &&
			    (!q->exact || (same_name(r[i].def_w, q->h->def_w) && same_name(r[i].use, q->h->use))))
				return 0;
		return 1;
	}
	case Q_REMOVABLE: {
		/* the same module (edges added in place): the same instruction;
		 * a name lookup scans the computation (mixtral: 12M instructions) */
		const struct hlo_instruction *c = q->copy;
		if (aw->m != an->m) {
			const struct hlo_computation *k = hlo_find_computation(aw->m, q->copy->parent->name);
			c = k ? hlo_find_instruction(k, q->copy->name) : NULL;
		}
		struct copy_report r;
		if (!c || copy_analyse_one(aw, c, &r) < 0)
			return -1;
		return r.any == VERDICT_REMOVABLE;
	}
	case Q_SAFE: {
		int32_t v = same_value(an, q->value, aw);
		if (v < 0)
			return -1;
		if (aw->base) { /* safe: no triple left, none unknown (hazard.h) */
			int32_t unk, k = hazards_left_with_edges(aw, aw->bufs->buffer_of[v], -1, ~0u, 0, NULL,
								 NULL, &unk);
			return k < 0 ? -1 : k == 0 && unk == 0;
		}
		struct buffer_verdict bv;
		memset(&bv, 0, sizeof(bv));
		if (hazards_decide_buffer(aw, aw->bufs->buffer_of[v], &bv) < 0)
			return -1;
		return bv.any == VERDICT_SAFE;
	}
	}
	return -1;
}

static int answer_rewritten(struct analysis *an, struct repair_entry *e, const struct question *q)
{
	if (!e->aw)
		return e->w_cycle ? 0 : -1;
	return answer(an, e->aw, q);
}

/* Ask q of the module with the edges: 1 yes, 0 no (or the edges close a
 * cycle), -1 not decided. */
static int ask(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
	       const struct hlo_instruction *const *to, const struct hlo_instruction *const *strip,
	       int32_t n_strip, const struct question *q, int budgeted)
{
	struct repair_entry *e = with_edges(an, n, from, to, strip, n_strip, budgeted);
	if (!e)
		return -1;
	if (!e->in_place)
		return answer_rewritten(an, e, q);
	int r;
	if (e->fast) {
		hlo_edges_on(e->edges);
		r = answer(an, e->fast, q);
		hlo_edges_off(e->edges);
	} else {
		r = e->cycle ? 0 : -1;
	}
	if (an->opt.cross_check) {
		int slow = answer_rewritten(an, e, q);
		if (slow != r) {
			fprintf(stderr, "hloproof: cross-check failed: the repair %s is %d with the edges "
				"in the module, %d on the module printed with them and parsed again\n",
				e->key, r, slow);
			an->cross_check_failed = 1;
		}
	}
	return r;
}

int repair_avoids_value_hazards(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
				const struct hlo_instruction *const *to, const struct hazard_report *h,
				unsigned kind_mask, int exact)
{
	struct question q = {.kind = Q_VALUE_HAZARDS, .h = h, .kind_mask = kind_mask, .exact = exact};
	return ask(an, n, from, to, NULL, 0, &q, 1); /* every claim of a finding or explain line */
}

int repair_makes_removable(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to, const struct hlo_instruction *copy)
{
	struct question q = {.kind = Q_REMOVABLE, .copy = copy};
	/* the removal drops the copy's control edges (a pair's: both halves'):
	 * the edges go into the module without them (docs/hazards.md 4) */
	const struct hlo_instruction *strip[2];
	int32_t n_strip = 0;
	if (!shape_is_tuple(copy->shape) || copy->opcode == OP_COPY_START) /* a multi-output fusion stays */
		strip[n_strip++] = copy;
	if (copy->opcode == OP_COPY_START && copy->n_users == 1 && copy->users[0]->opcode == OP_COPY_DONE)
		strip[n_strip++] = copy->users[0];
	int32_t n_ctrl = 0;
	for (int32_t i = 0; i < n_strip; i++)
		n_ctrl += strip[i]->ext->n_ctrl_preds + strip[i]->ext->n_ctrl_succs;
	if (!n_ctrl)
		n_strip = 0; /* the module as it is: shared with the other claims on these edges */
	return ask(an, n, from, to, strip, n_strip, &q, 0);
}

int repair_makes_safe(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
		      const struct hlo_instruction *const *to, int32_t value)
{
	struct question q = {.kind = Q_SAFE, .value = value};
	return ask(an, n, from, to, NULL, 0, &q, 0);
}

/* ---- donating instead of copying ---- */

static int same_leaf(int32_t pa, const struct shape_index *a, int32_t pb, const struct shape_index *b)
{
	return pa == pb && shape_index_equal(a, b);
}

/* The first line of a multi-line text, in A. */
static const char *first_line(struct arena *A, const char *s)
{
	size_t n;
	const char *l = line_next(&s, &n);
	return l ? arena_strndup(A, l, n) : NULL;
}

int repair_donation_drops_copy(struct analysis *an, const struct copy_site *st, int32_t param,
			       const struct shape_index *ix, struct donation_fix *fix)
{
	struct hlo_module *m = an->m;
	struct arena *A = &m->arena;
	memset(fix, 0, sizeof(*fix));
	fix->param = param;
	fix->index = *ix;
	if (an->opt.no_repair_check || !m->entry || param < 0 || param >= m->entry->n_params)
		return -1;
	for (int32_t i = 0; i < m->n_aliases; i++)
		if (same_leaf(m->aliases[i].param, &m->aliases[i].param_index, param, ix))
			return -1; /* donated already */
	for (int32_t i = 0; i < m->n_donors; i++)
		if (same_leaf(m->donors[i].param, &m->donors[i].param_index, param, ix))
			return -1;
	if (!an->repairs)
		an->repairs = xcalloc(1, sizeof(*an->repairs));
	struct repair_cache *c = an->repairs;
	if (c->spent + m->n_instrs > REPAIR_BUDGET_INSTRS)
		return -1;
	c->spent += m->n_instrs;
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *w = hlo_module_without_site(m, st, &d);
	if (!w)
		return -1;
	/* the leaf registered as a donor, then matched as JAX and XLA match it */
	struct buffer_donor *dn = arena_array(&w->arena, (size_t)w->n_donors + 1, sizeof(*dn));
	if (w->n_donors)
		memcpy(dn, w->donors, (size_t)w->n_donors * sizeof(*dn));
	dn[w->n_donors] = (struct buffer_donor){param, *ix, w->pos};
	w->donors = dn;
	w->n_donors++;
	struct donor_matching dm;
	int rc = -1;
	struct analysis *aw = NULL;
	if (donor_match(w, &w->arena, &dm) < 0)
		goto out;
	int32_t me = -1;
	for (int32_t i = 0; i < dm.n_donors; i++)
		if (same_leaf(dm.donors[i].param, &dm.donors[i].index, param, ix))
			me = i;
	if (me < 0)
		goto out;
	int32_t to = dm.donors[me].jax_output >= 0 ? dm.donors[me].jax_output
		   : dm.donors[me].outcome == DONOR_MATCHED ? dm.donors[me].output : -1;
	if (to < 0) {
		char reason[320];
		donor_reason(&dm, me, reason, sizeof(reason));
		fix->why_not = arena_strdup(A, reason);
		rc = 0;
		goto out;
	}
	struct io_alias *al = arena_array(&w->arena, (size_t)(w->n_aliases + dm.n_donors) + 1, sizeof(*al));
	if (w->n_aliases)
		memcpy(al, w->aliases, (size_t)w->n_aliases * sizeof(*al));
	int32_t na = w->n_aliases;
	for (int32_t i = 0; i < dm.n_donors; i++) {
		const struct donor_leaf *dl = &dm.donors[i];
		int32_t o = i == me ? to : dl->outcome == DONOR_MATCHED ? dl->output : -1;
		if (o < 0 || (i != me && o == to))
			continue;
		al[na++] = (struct io_alias){dm.outputs[o].index, dl->param, dl->index, ALIAS_MAY, w->pos};
	}
	w->aliases = al;
	w->n_aliases = na;
	struct analysis_options o = an->opt;
	o.no_repair_check = 1;
	o.witness_limit = 1;
	o.smt_dump_dir = NULL;
	aw = analysis_run(w, &o, &d);
	if (!aw)
		goto out;
	const struct hlo_instruction *pi = w->entry->params[param];
	int32_t sub = dataflow_sub(aw->df, pi, ix->idx, ix->n);
	int32_t pv = sub < 0 ? -1 : dataflow_value_defined_at(aw->df, pi, sub);
	struct buffer_verdict bv;
	memset(&bv, 0, sizeof(bv));
	if (pv < 0 || hazards_decide_buffer(aw, aw->bufs->buffer_of[pv], &bv) < 0 ||
	    bv.any == VERDICT_UNKNOWN)
		goto out;
	if (bv.any == VERDICT_SAFE) {
		fix->output.n = dm.outputs[to].index.n;
		fix->output.idx = arena_array(A, (size_t)fix->output.n + 1, sizeof(int32_t));
		if (fix->output.n)
			memcpy(fix->output.idx, dm.outputs[to].index.idx, (size_t)fix->output.n * sizeof(int32_t));
		rc = 1;
	} else if (bv.any == VERDICT_UNSAFE && !(st->kind == COPY_KIND_FUSED && st->output >= 0)) {
		/* in every schedule; one output of a multi-output fusion is
		 * removed with the fusion still reading the operand, a read
		 * that XLA, with the donation, would not have made: only a
		 * proof (safe even with that read) counts there */
		fix->why_not = first_line(A, bv.evidence);
		if (!fix->why_not || !*fix->why_not)
			fix->why_not = "a hazard remains in the parameter's buffer";
		rc = 0;
	}
out:
	analysis_free(aw);
	hlo_module_free(w);
	return rc;
}

/* The evidence with its repair lines marked as refuted. */
static char *refuted(struct arena *A, const char *ev)
{
	static const char mark[] = "not a repair (checked on the module with these edges added: a hazard "
				   "remains, or they close a cycle): ";
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return (char *)ev;
	size_t n;
	for (const char *p = ev, *l; (l = line_next(&p, &n));) {
		if (!strncmp(l, "repair", 6))
			fputs(mark, f);
		fwrite(l, 1, n + (l[n] == '\n'), f);
	}
	fclose(f);
	char *r = arena_strdup(A, s);
	free(s);
	return r;
}

#define NOT_VERIFIED "no ordering by control edges was verified: the edges found, added to the module, " \
		     "leave a hazard or close a cycle (docs/verdicts.md, Repairs)"

void repair_check_copy(struct analysis *an, struct copy_report *r)
{
	if (r->any != VERDICT_SCHEDULE_DEPENDENT || an->opt.no_repair_check)
		return;
	if (r->n_edges > 0 &&
	    repair_makes_removable(an, r->n_edges, r->edges_from, r->edges_to, r->copy) == 1)
		return;
	struct arena *A = &an->m->arena;
	r->any = VERDICT_UNKNOWN;
	r->unknown_reason = NOT_VERIFIED;
	r->evidence = refuted(A, r->evidence);
	struct sbuf b = {0};
	sb_printf(&b, "%sunknown: %s\n", r->evidence ? r->evidence : "", NOT_VERIFIED);
	r->evidence = sb_finish(&b, A);
	r->edge_from = r->edge_to = NULL;
	r->n_edges = 0;
}

int repair_check_buffer(struct analysis *an, int32_t buffer, struct buffer_verdict *bv)
{
	if (bv->any != VERDICT_SCHEDULE_DEPENDENT || an->opt.no_repair_check)
		return 1;
	const struct hlo_buffer *B = &an->bufs->buffers[buffer];
	if (bv->n_edges > 0 && B->n_values > 0 &&
	    repair_makes_safe(an, bv->n_edges, bv->edges_from, bv->edges_to, B->values[0]) == 1)
		return 1;
	struct arena *A = &an->m->arena;
	bv->any = VERDICT_UNKNOWN;
	bv->unknown_reason = NOT_VERIFIED;
	struct sbuf b = {0};
	sb_printf(&b, "%sunknown: %s\n", refuted(A, bv->evidence), NOT_VERIFIED);
	bv->evidence = sb_finish(&b, A);
	bv->edge_from = bv->edge_to = NULL;
	bv->n_edges = 0;
	return 0;
}
