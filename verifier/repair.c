/* repair.c - repair claims checked on the module with the edges added (repair.h). */
#include "repair.h"
#include "copies.h"
#include "hazard.h"
#include "hzview.h"
#include "rewrite.h"
#include "diag.h"
#include "shape.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPAIR_CACHED 4

struct repair_entry {
	char *key;               /* the edge set, as "comp:a>b;..." */
	struct hlo_module *w;    /* NULL when it could not be built */
	struct analysis *aw;     /* NULL when it could not be analysed */
	int cycle;
};

/* Instructions analysed again per module for the one-hazard checks
 * (explain --hazards: one per hazard, thousands on a large module): past it
 * such a claim is not checked, and so not made (a module of 50,000
 * instructions gets 40 checks; a check costs the module's analysis) */
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

/* The analysed module with the edges added, built once per edge set; NULL
 * with *cycle set when the edges close a cycle, or when it failed. */
static struct analysis *with_edges(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
				   const struct hlo_instruction *const *to, const struct hlo_instruction *const *strip,
				   int32_t n_strip, int *cycle, int budgeted)
{
	*cycle = 0;
	if (n <= 0)
		return NULL;
	char *key = edges_key(n, from, to, strip, n_strip);
	if (!key)
		return NULL;
	if (!an->repairs) {
		an->repairs = calloc(1, sizeof(*an->repairs));
		if (!an->repairs) {
			free(key);
			return NULL;
		}
	}
	struct repair_cache *c = an->repairs;
	for (int i = 0; i < REPAIR_CACHED; i++)
		if (c->e[i].key && !strcmp(c->e[i].key, key)) {
			free(key);
			*cycle = c->e[i].cycle;
			return c->e[i].aw;
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
	struct diag d;
	diag_init(&d, NULL);
	/* the donation decider analyses a module whose header has the alias
	 * each matched donor will become (donation.c): that donor entry is
	 * printed as the alias alone, as the pass leaves the module */
	struct hlo_module *m = an->m;
	struct buffer_donor *donors = m->donors;
	int32_t n_donors = m->n_donors;
	struct buffer_donor *kept = calloc((size_t)n_donors + 1, sizeof(*kept));
	if (!kept)
		return NULL;
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
	e->w = hlo_module_with_edges_stripped(m, n, from, to, strip, n_strip, &e->cycle, &d);
	m->donors = donors;
	m->n_donors = n_donors;
	free(kept);
	*cycle = e->cycle;
	if (!e->w)
		return NULL;
	/* the rewritten module's verdicts claim no repairs of their own, and
	 * show no witnesses */
	struct analysis_options o = an->opt;
	o.no_repair_check = 1;
	o.witness_limit = 1;
	o.smt_dump_dir = NULL;
	e->aw = analysis_run(e->w, &o, &d);
	if (!e->aw)
		*cycle = d.errors > 0 && e->w; /* a dependency cycle is the usual failure */
	return e->aw;
}

/* The id in aw of the value that value v of an is (same instruction, sub,
 * phi or not); -1 when none. */
static int32_t same_value(const struct analysis *an, int32_t v, const struct analysis *aw)
{
	if (v < 0 || v >= an->df->n_values)
		return -1;
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

int repair_avoids_value_hazards(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
				const struct hlo_instruction *const *to, const struct hazard_report *h,
				unsigned kind_mask, int exact)
{
	int cycle;
	struct analysis *aw = with_edges(an, n, from, to, NULL, 0, &cycle, 1); /* every claim of a finding or explain line */
	if (!aw)
		return cycle ? 0 : -1;
	int32_t v = same_value(an, h->v, aw);
	if (v < 0)
		return -1;
	struct hazard_report *r;
	int32_t k = hazards_in_buffer(aw, aw->bufs->buffer_of[v], &r);
	if (k < 0)
		return -1;
	for (int32_t i = 0; i < k; i++)
		if (r[i].v == v && ((kind_mask >> r[i].kind) & 1) && (r[i].in_some || r[i].unknown) &&
		    (!exact || (same_name(r[i].def_w, h->def_w) && same_name(r[i].use, h->use))))
			return 0;
	return 1;
}

int repair_makes_removable(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to, const struct hlo_instruction *copy)
{
	int cycle;
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
	struct analysis *aw = with_edges(an, n, from, to, strip, n_strip, &cycle, 0);
	if (!aw)
		return cycle ? 0 : -1;
	const struct hlo_computation *k = hlo_find_computation(aw->m, copy->parent->name);
	const struct hlo_instruction *c = k ? hlo_find_instruction(k, copy->name) : NULL;
	struct copy_report r;
	if (!c || copy_analyse_one(aw, c, &r) < 0)
		return -1;
	return r.any == VERDICT_REMOVABLE;
}

int repair_makes_safe(struct analysis *an, int32_t n, const struct hlo_instruction *const *from,
		      const struct hlo_instruction *const *to, int32_t value)
{
	int cycle;
	struct analysis *aw = with_edges(an, n, from, to, NULL, 0, &cycle, 0);
	if (!aw)
		return cycle ? 0 : -1;
	int32_t v = same_value(an, value, aw);
	if (v < 0)
		return -1;
	struct buffer_verdict bv;
	memset(&bv, 0, sizeof(bv));
	if (hazards_decide_buffer(aw, aw->bufs->buffer_of[v], &bv) < 0)
		return -1;
	return bv.any == VERDICT_SAFE;
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
	for (const char *p = ev ? ev : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (!strncmp(p, "repair", 6))
			fputs(mark, f);
		fwrite(p, 1, n, f);
		p += n;
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
