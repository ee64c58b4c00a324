/* fix.c - choose copies to remove together, verify the choice by analysing
 * the rewritten module again (fix.h, docs/fix.md). */
#include "fix.h"
#include "satmath.h"
#include "hazard.h"
#include "hzview.h"
#include "instrmap.h"
#include "maxsat.h"
#include "reorder.h"
#include "rewrite.h"
#include "tripcount.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Candidate edge endpoints of one computation above which the positions
 * are not encoded (the pairs are quadratic): a cycle is then found when
 * the rewritten module is built, and learned. */
#define FIX_POS_MAX 128
/* Verifications of the greedy choice once the search stops. */
#define FIX_GREEDY_ROUNDS 16

/* ---- a set of strings ---- */

struct strset {
	size_t n, cap;
	char **v;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int strset_has(const struct strset *S, const char *k)
{
	if (!S->cap)
		return 0;
	for (size_t i = str_hash(k) & (S->cap - 1);; i = (i + 1) & (S->cap - 1)) {
		if (!S->v[i])
			return 0;
		if (!strcmp(S->v[i], k))
			return 1;
	}
}

static void strset_add(struct strset *S, const char *k)
{
	if (2 * (S->n + 1) > S->cap) {
		size_t cap = S->cap ? 2 * S->cap : 64;
		char **v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < S->cap; i++) {
			if (!S->v[i])
				continue;
			size_t j = str_hash(S->v[i]) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = S->v[i];
		}
		free(S->v);
		S->v = v;
		S->cap = cap;
	}
	size_t i = str_hash(k) & (S->cap - 1);
	for (; S->v[i]; i = (i + 1) & (S->cap - 1))
		if (!strcmp(S->v[i], k))
			return;
	S->v[i] = xmalloc(strlen(k) + 1, 1);
	strcpy(S->v[i], k);
	S->n++;
}

static void strset_free(struct strset *S)
{
	for (size_t i = 0; i < S->cap; i++)
		free(S->v[i]);
	free(S->v);
	memset(S, 0, sizeof(*S));
}

/* ---- the search ---- */

/* A learned constraint: not all of these copies (with the witness). */
struct nogood {
	int32_t n;
	int32_t *copies;
	char *witness;
};

/* A buffer of the rewritten module with a new hazard (or undecided), and
 * the components whose removals it involves. */
struct failure {
	int32_t n;
	int32_t *comps;        /* malloc'd */
	char *witness;         /* arena */
	int unknown;
	/* the hazard's read, value and writer (instructions of the module as
	 * given; NULL where none) */
	const struct hlo_instruction *touch[3];
};

/* What one verification found for one component. */
/* ranked: a failure explains more than an unknown */
enum comp_state { COMP_IDLE = 0, COMP_PASS, COMP_UNKNOWN, COMP_FAIL };

struct fixer {
	struct analysis *an;
	const struct copy_list *cl;
	const struct hazard_list *hl;
	const struct fix_options *o;
	struct fix_result *out;
	struct arena *A;
	struct instr_map names;  /* the module as given, by name */
	int32_t n;
	int32_t *var;          /* [copy]: its Boolean, -1 when not a candidate */
	int32_t *comp;         /* [copy]: its component (dense), -1 */
	int32_t *src_value;    /* [copy]: the copied value */
	int32_t *copy_value;   /* [copy]: the value the copy defines */
	int32_t n_comps;
	int32_t *comp_of_buffer; /* [buffer of the module as given]: component, -1 */
	int32_t *owner;        /* [gid]: the candidate whose removal drops the instruction, -1 */
	/* edge conflicts (a candidate's edge names another's copy): pairs */
	int32_t n_pairs, cap_pairs;
	int32_t *pairs;
	int32_t n_nogoods, cap_nogoods;
	struct nogood *nogoods;
	struct maxsat *ms;
	int unknown_learned;   /* a constraint learned from an unknown: no optimality */
	int conservative_learned; /* from a hazard not proven new (is_new 2): none either */
	/* the last verification */
	uint8_t *sel;          /* [copy] */
	enum comp_state *cst;  /* [component] */
	/* the new hazards (or undecided buffers) found, each with the
	 * components whose removals made the buffer: one learned constraint each */
	int32_t n_fails, cap_fails;
	struct failure *fails;
	int global_fail;       /* a new hazard no component explains */
	char *global_why;
	int cycle;             /* the edges closed a cycle */
	struct rewrite_info rw; /* what the last rewrite moved */
	uint8_t *edged;        /* [computation]: the last rewrite added an edge there */
};

static int64_t trips_of(const struct hlo_instruction *x)
{
	int in_loop;
	int64_t t = computation_trips(x->parent, &in_loop);
	return in_loop ? t : 0;
}


static int32_t uf_find(int32_t *p, int32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

/* Copy r goes only with the control edges of its schedule-dependent
 * verdict: under every schedule when that is its verdict; under the given
 * one when the printed order has the hazard and some order does not (the
 * schedule then changes, by the fewest moves the edges allow). */
static int goes_with_edges(const struct copy_report *r, int use_given)
{
	if (r->any != VERDICT_SCHEDULE_DEPENDENT)
		return 0;
	return !use_given || r->given != VERDICT_REMOVABLE;
}

/* The edges of candidate i (its verdict's). */
static int32_t cand_edges(const struct fixer *F, int32_t i, const struct hlo_instruction *const **from,
			  const struct hlo_instruction *const **to)
{
	const struct copy_report *r = &F->cl->items[i];
	if (!goes_with_edges(r, F->o->use_given)) {
		*from = *to = NULL;
		return 0;
	}
	if (r->n_edges > 0) {
		*from = r->edges_from;
		*to = r->edges_to;
		return r->n_edges;
	}
	*from = &r->edge_from;
	*to = &r->edge_to;
	return r->edge_from && r->edge_to ? 1 : 0;
}

/* The instructions removing copy i drops: its site's copy, a pair's
 * copy-done, one output's get-tuple-elements. Returns the count (<= cap). */
static int32_t drops_of(const struct copy_report *r, const struct hlo_instruction **d, int32_t cap)
{
	const struct copy_site *st = &r->site;
	int32_t n = 0;
	if (st->kind == COPY_KIND_FUSED && st->output >= 0) {
		for (int32_t u = 0; u < st->at->n_users && n < cap; u++)
			if (st->at->users[u]->opcode == OP_GET_TUPLE_ELEMENT &&
			    st->at->users[u]->tuple_index == st->output)
				d[n++] = st->at->users[u];
		return n;
	}
	d[n++] = st->at;
	if (st->done && n < cap)
		d[n++] = st->done;
	return n;
}

/* A set of control edges, each once. */
struct edge_set {
	int32_t n, cap;
	const struct hlo_instruction **from, **to;
	struct strset seen; /* "gid>gid" */
};

static void edge_set_add(struct edge_set *E, const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	char key[32];
	snprintf(key, sizeof(key), "%d>%d", (int)a->gid, (int)b->gid);
	if (strset_has(&E->seen, key))
		return;
	strset_add(&E->seen, key);
	if (E->n == E->cap) {
		E->cap = E->cap ? 2 * E->cap : 64;
		E->from = xrealloc(E->from, (size_t)E->cap, sizeof(*E->from));
		E->to = xrealloc(E->to, (size_t)E->cap, sizeof(*E->to));
	}
	E->from[E->n] = a;
	E->to[E->n] = b;
	E->n++;
}

static void edge_set_free(struct edge_set *E)
{
	free(E->from);
	free(E->to);
	strset_free(&E->seen);
	memset(E, 0, sizeof(*E));
}

/* The instructions that read copy j's result in computation k (its users;
 * a pair's copy-done's; one output's get-tuple-elements' users). When the
 * copy goes they read its operand instead: an edge from the copy becomes
 * edges from them. Returns the count (<= cap). */
static int32_t readers(const struct copy_report *r, const struct hlo_computation *k,
		       const struct hlo_instruction **out, int32_t cap)
{
	const struct copy_site *st = &r->site;
	const struct hlo_instruction *from[64];
	int32_t nf = 0, n = 0;
	if (st->kind == COPY_KIND_FUSED && st->output >= 0) {
		for (int32_t u = 0; u < st->at->n_users && nf < 64; u++)
			if (st->at->users[u]->opcode == OP_GET_TUPLE_ELEMENT && st->at->users[u]->tuple_index == st->output)
				from[nf++] = st->at->users[u];
	} else {
		from[nf++] = st->done ? st->done : st->at;
	}
	for (int32_t f = 0; f < nf; f++)
		for (int32_t u = 0; u < from[f]->n_users && n < cap; u++)
			if (from[f]->users[u]->parent == k)
				out[n++] = from[f]->users[u];
	return n;
}

/* The edges candidate i adds when the selected copies go: an edge from a
 * removed copy stands for edges from its readers (along chains); an edge
 * from a removed root (no readers) orders nothing. */
static void concrete_edges(const struct fixer *F, int32_t i, struct edge_set *E)
{
	const struct hlo_instruction *const *ef, *const *et;
	int32_t ne = cand_edges(F, i, &ef, &et);
	for (int32_t e = 0; e < ne; e++) {
		const struct hlo_instruction *stack[256];
		int32_t ns = 0;
		stack[ns++] = ef[e];
		for (int g = 0; ns > 0 && g < 4096; g++) {
			const struct hlo_instruction *a = stack[--ns];
			int32_t j = F->owner[a->gid];
			if (j < 0 || !F->sel[j]) {
				edge_set_add(E, a, et[e]);
				continue;
			}
			const struct hlo_instruction *rd[64];
			int32_t nr = readers(&F->cl->items[j], et[e]->parent, rd, 64);
			for (int32_t q = 0; q < nr && ns < 256; q++)
				if (rd[q] != et[e])
					stack[ns++] = rd[q];
		}
	}
}

static void why_set(struct fixer *F, int32_t i, enum fix_kept k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void why_set(struct fixer *F, int32_t i, enum fix_kept k, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	F->out->copies[i].kept = k;
	F->out->copies[i].why = arena_strdup(F->A, buf);
}

/* The first line of a text, into buf. */
static const char *first_line(const char *s, char *buf, size_t cap)
{
	if (!s)
		s = "";
	size_t n = strcspn(s, "\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

/* The line of a verdict's evidence that says why a copy stays whatever the
 * order (fix may change the given one): "never removable: ..." or its
 * witness ("hazard in every schedule: ..."), else the first line. */
static const char *reason_line(const char *s, char *buf, size_t cap)
{
	static const char *const lead[] = {"never removable", "hazard in every schedule", "hazard in some schedules"};
	for (int k = 0; s && k < 3; k++) {
		for (const char *l = s; *l;) {
			if (!strncmp(l, lead[k], strlen(lead[k])))
				return first_line(l, buf, cap);
			const char *nl = strchr(l, '\n');
			if (!nl)
				break;
			l = nl + 1;
		}
	}
	return first_line(s, buf, cap);
}

static const char *site_label(const struct copy_report *r, char *buf, size_t cap)
{
	return copy_site_name(&r->site, buf, cap);
}

/* A copy kept whatever the others do because it protects an undonated
 * argument: would donating the argument let XLA drop it? (The session's
 * verdicts leave it undecided when fix skips the repair re-checks.) */
static void donation_hint(struct fixer *F, int32_t i)
{
	const struct copy_report *r = &F->cl->items[i];
	struct fix_copy *c = &F->out->copies[i];
	struct copy_report local = *r;
	if (r->donate_drops == 0) {
		int had = F->an->opt.no_repair_check;
		F->an->opt.no_repair_check = 0;
		copy_donation_instead(F->an, &local);
		F->an->opt.no_repair_check = had;
	}
	c->donate_drops = local.donate_drops > 0;
	c->donate = local.donate;
}

/* Candidates, weights, components, the owners of dropped instructions. */
static void setup(struct fixer *F)
{
	struct analysis *an = F->an;
	const struct buffers *B = an->bufs;
	int32_t n = F->n;
	F->var = xmalloc((size_t)n + 1, sizeof(int32_t));
	F->comp = xmalloc((size_t)n + 1, sizeof(int32_t));
	F->src_value = xmalloc((size_t)n + 1, sizeof(int32_t));
	F->copy_value = xmalloc((size_t)n + 1, sizeof(int32_t));
	F->owner = xmalloc((size_t)an->m->n_instrs + 1, sizeof(int32_t));
	for (int32_t g = 0; g <= an->m->n_instrs; g++)
		F->owner[g] = -1;
	char eb[600];
	for (int32_t i = 0; i < n; i++) {
		const struct copy_report *r = &F->cl->items[i];
		struct fix_copy *c = &F->out->copies[i];
		c->r = r;
		c->trips = trips_of(r->copy);
		uint64_t w = F->o->count ? 1 : r->bytes;
		if (!F->o->count && c->trips > 0)
			w = sat_mul(w, (uint64_t)c->trips);
		c->weight = w ? w : 1;
		F->var[i] = F->comp[i] = -1;
		const struct hlo_instruction *s = r->site.at->operands[r->site.operand];
		F->src_value[i] = dataflow_unique_value(an->df, s, 0);
		F->copy_value[i] = copy_site_value(an->df, &r->site);
		if (r->family == FAMILY_NO_OP) {
			/* XLA's simplifier removes it before copy insertion: it is
			 * not in the compiled program, so removing it saves nothing */
			F->out->n_noop++;
			F->out->noop_bytes = sat_add(F->out->noop_bytes, r->bytes);
			why_set(F, i, FIX_KEPT_NOOP, "no-op: %s", r->family_evidence ? r->family_evidence
				: "XLA's algebraic simplifier removes it before copy insertion");
			continue;
		}
		enum verdict v = F->o->use_given ? r->given : r->any;
		int ok = v == VERDICT_REMOVABLE || (F->o->use_given && r->any == VERDICT_REMOVABLE);
		int with_edges = !ok && v != VERDICT_UNKNOWN && goes_with_edges(r, F->o->use_given);
		if (!ok && !with_edges) {
			/* under the given schedule an order that avoids the hazard
			 * is asked of the verdict for every schedule */
			enum verdict u = v == VERDICT_UNKNOWN || !F->o->use_given ? v : r->any;
			if (u == VERDICT_UNKNOWN) {
				F->out->n_unknown++;
				why_set(F, i, FIX_KEPT_VERDICT, "unknown: %s%s",
					v == VERDICT_UNKNOWN ? "" : "whether another order would let it go: ",
					r->unknown_reason ? r->unknown_reason : "not decided");
			}
			else
				why_set(F, i, FIX_KEPT_VERDICT, "%s: %s", verdict_name(u) ? verdict_name(u) : "no verdict",
					reason_line(r->evidence, eb, sizeof(eb)));
			donation_hint(F, i);
			continue;
		}
		const struct hlo_instruction *const *ef, *const *et;
		int32_t ne = cand_edges(F, i, &ef, &et);
		if (with_edges && ne == 0) {
			why_set(F, i, FIX_KEPT_VERDICT, "schedule-dependent, and no control edge was verified");
			continue;
		}
		const struct hlo_instruction *noop_end = NULL;
		for (int32_t e = 0; e < ne && !noop_end && an->stage == STAGE_BEFORE; e++)
			noop_end = copy_is_simplifier_noop(ef[e]) ? ef[e] : copy_is_simplifier_noop(et[e]) ? et[e] : NULL;
		if (noop_end) {
			/* the compiled program has no such instruction to order */
			why_set(F, i, FIX_KEPT_VERDICT, "its control edge names %s, a no-op copy that XLA's "
				"simplifier removes before copy insertion", noop_end->name);
			continue;
		}
		if (F->src_value[i] < 0 || F->copy_value[i] < 0) {
			why_set(F, i, FIX_KEPT_VERDICT, "the copied operand holds more than one value");
			continue;
		}
		c->edges = ne > 0;
		F->var[i] = 1; /* numbered below */
		c->candidate = 1;
	}
	/* components: copies whose merged buffers share a buffer */
	int32_t nb = B->n_buffers;
	int32_t *p = xmalloc((size_t)nb + 1, sizeof(int32_t));
	for (int32_t b = 0; b < nb; b++)
		p[b] = b;
	for (int32_t i = 0; i < n; i++)
		if (F->var[i] >= 0) {
			int32_t a = uf_find(p, B->buffer_of[F->src_value[i]]);
			int32_t b = uf_find(p, B->buffer_of[F->copy_value[i]]);
			if (a != b)
				p[a] = b;
		}
	F->comp_of_buffer = xmalloc((size_t)nb + 1, sizeof(int32_t));
	int32_t *dense = xmalloc((size_t)nb + 1, sizeof(int32_t));
	for (int32_t b = 0; b < nb; b++)
		F->comp_of_buffer[b] = dense[b] = -1;
	for (int32_t i = 0; i < n; i++)
		if (F->var[i] >= 0) {
			int32_t root = uf_find(p, B->buffer_of[F->src_value[i]]);
			if (dense[root] < 0)
				dense[root] = F->n_comps++;
			F->comp[i] = dense[root];
		}
	for (int32_t b = 0; b < nb; b++) {
		int32_t root = uf_find(p, b);
		F->comp_of_buffer[b] = dense[root];
	}
	free(p);
	free(dense);
	for (int32_t i = 0; i < n; i++) {
		if (F->var[i] < 0)
			continue;
		const struct hlo_instruction *d[64];
		int32_t nd = drops_of(&F->cl->items[i], d, 64);
		for (int32_t k = 0; k < nd; k++)
			F->owner[d[k]->gid] = i;
	}
	F->sel = xcalloc((size_t)n + 1, 1);
	F->cst = xcalloc((size_t)F->n_comps + 1, sizeof(*F->cst));
	F->edged = xcalloc((size_t)an->m->n_comps + 1, 1);

}

static void add_pair(struct fixer *F, int32_t i, int32_t j)
{
	if (F->n_pairs == F->cap_pairs) {
		F->cap_pairs = F->cap_pairs ? 2 * F->cap_pairs : 16;
		F->pairs = xrealloc(F->pairs, (size_t)F->cap_pairs * 2, sizeof(int32_t));
	}
	F->pairs[2 * F->n_pairs] = i;
	F->pairs[2 * F->n_pairs + 1] = j;
	F->n_pairs++;
}

/* Some candidate's removal in k drops a control edge (a removed copy's
 * control edges go with it, as XLA's StripControlDependenciesFrom): the
 * dependencies between k's instructions are then not all kept. */
static int removal_drops_ctrl(const struct fixer *F, const struct hlo_computation *k)
{
	for (int32_t i = 0; i < k->n_instrs; i++) {
		const struct hlo_instruction *x = k->instrs[i];
		int32_t j = F->owner[x->gid];
		if (j >= 0 && F->var[j] >= 0 && (x->ext->n_ctrl_preds > 0 || x->ext->n_ctrl_succs > 0))
			return 1;
	}
	return 0;
}

/* Mark with `mark` in stamp[] what a reaches in its computation through the
 * dependencies every rewritten module keeps: operand edges (a removed
 * copy's users read its operand: the path stays) and the control edges
 * that do not touch an instruction a candidate's removal drops. */
static void kept_reach(const struct fixer *F, const struct hlo_instruction *a, int32_t *stamp, int32_t mark)
{
	const struct hlo_computation *k = a->parent;
	const struct hlo_instruction **q = xmalloc((size_t)k->n_instrs + 1, sizeof(*q));
	int32_t nq = 0;
	stamp[a->gid] = mark;
	q[nq++] = a;
	for (int32_t h = 0; h < nq; h++) {
		const struct hlo_instruction *x = q[h];
		int dropped = F->owner[x->gid] >= 0 && F->var[F->owner[x->gid]] >= 0;
		for (int32_t u = 0; u < x->n_users + x->ext->n_ctrl_succs; u++) {
			int ctrl = u >= x->n_users;
			const struct hlo_instruction *y = ctrl ? x->ext->ctrl_succs[u - x->n_users] : x->users[u];
			if (y->parent != k || stamp[y->gid] == mark)
				continue;
			if (ctrl && (dropped || (F->owner[y->gid] >= 0 && F->var[F->owner[y->gid]] >= 0)))
				continue;
			stamp[y->gid] = mark;
			q[nq++] = y;
		}
	}
	free(q);
}

/* The MaxSMT problem: Booleans, weights, the edges' conflicts and orders. */
static int build_problem(struct fixer *F)
{
	struct analysis *an = F->an;
	int timeout = F->o->timeout_ms > 0 ? F->o->timeout_ms : 0;
	if (F->o->budget)
		timeout = budget_cap_ms(F->o->budget, timeout > 0 ? timeout : 60000);
	F->ms = maxsat_new(timeout);
	if (!F->ms)
		return -1;
	for (int32_t i = 0; i < F->n; i++)
		if (F->var[i] >= 0) {
			F->var[i] = maxsat_bool(F->ms);
			maxsat_soft(F->ms, F->var[i], F->out->copies[i].weight);
		}
	/* an edge into another candidate's copy: not both (an edge from one
	 * stands for edges from its readers once it goes) */
	for (int32_t i = 0; i < F->n; i++) {
		if (F->var[i] < 0)
			continue;
		const struct hlo_instruction *const *ef, *const *et;
		int32_t ne = cand_edges(F, i, &ef, &et);
		for (int32_t e = 0; e < ne; e++) {
			int32_t j = F->owner[et[e]->gid];
			if (j < 0 || j == i)
				continue;
			int32_t cl[2] = {maxsat_neg(F->var[i]), maxsat_neg(F->var[j])};
			maxsat_clause(F->ms, cl, 2);
			add_pair(F, i, j);
		}
	}
	/* positions of the edges' endpoints (and of the readers standing for
	 * a removed source), per computation */
	int32_t *pos = xmalloc((size_t)an->m->n_instrs + 1, sizeof(int32_t));
	int32_t *stamp = xcalloc((size_t)an->m->n_instrs + 1, sizeof(int32_t));
	for (int32_t g = 0; g <= an->m->n_instrs; g++)
		pos[g] = -1;
	for (int32_t k = 0; k < an->m->n_comps; k++) {
		const struct hlo_computation *comp = an->m->comps[k];
		const struct hlo_instruction **ends = NULL;
		int32_t n_ends = 0, cap_ends = 0;
		for (int32_t i = 0; i < F->n && n_ends <= FIX_POS_MAX; i++) {
			if (F->var[i] < 0)
				continue;
			const struct hlo_instruction *const *ef, *const *et;
			int32_t ne = cand_edges(F, i, &ef, &et);
			for (int32_t e = 0; e < ne && n_ends <= FIX_POS_MAX; e++) {
				if (et[e]->parent != comp)
					continue;
				const struct hlo_instruction *end[66];
				int32_t nend = 0;
				end[nend++] = ef[e];
				end[nend++] = et[e];
				int32_t j = F->owner[ef[e]->gid];
				if (j >= 0)
					nend += readers(&F->cl->items[j], comp, end + nend, 64);
				for (int32_t q = 0; q < nend; q++) {
					if (pos[end[q]->gid] != -1)
						continue;
					pos[end[q]->gid] = -2;
					if (n_ends == cap_ends) {
						cap_ends = cap_ends ? 2 * cap_ends : 16;
						ends = xrealloc(ends, (size_t)cap_ends, sizeof(*ends));
					}
					ends[n_ends++] = end[q];
				}
			}
		}
		if (n_ends > 0 && n_ends <= FIX_POS_MAX) {
			for (int32_t a = 0; a < n_ends; a++)
				pos[ends[a]->gid] = maxsat_int(F->ms);
			int fragile = removal_drops_ctrl(F, comp);
			for (int32_t a = 0; a < n_ends; a++) {
				if (fragile)
					kept_reach(F, ends[a], stamp, a + 1);
				for (int32_t b = 0; b < n_ends; b++)
					if (a != b && (fragile ? stamp[ends[b]->gid] == a + 1
							       : ordering_reaches(an->dep, ends[a], ends[b])))
						maxsat_less(F->ms, NULL, 0, pos[ends[a]->gid], pos[ends[b]->gid]);
			}
			if (fragile)
				memset(stamp, 0, ((size_t)an->m->n_instrs + 1) * sizeof(int32_t));
			for (int32_t i = 0; i < F->n; i++) {
				if (F->var[i] < 0)
					continue;
				const struct hlo_instruction *const *ef, *const *et;
				int32_t ne = cand_edges(F, i, &ef, &et);
				for (int32_t e = 0; e < ne; e++) {
					if (et[e]->parent != comp || ef[e]->parent != comp)
						continue;
					int32_t j = F->owner[ef[e]->gid];
					int32_t g[2] = {maxsat_pos(F->var[i]), 0};
					if (j < 0) {
						maxsat_less(F->ms, g, 1, pos[ef[e]->gid], pos[et[e]->gid]);
						continue;
					}
					const struct hlo_instruction *rd[64];
					int32_t nr = readers(&F->cl->items[j], comp, rd, 64);
					int32_t ng = 1;
					if (j != i) { /* the source stays unless j goes too */
						g[1] = maxsat_neg(F->var[j]);
						maxsat_less(F->ms, g, 2, pos[ef[e]->gid], pos[et[e]->gid]);
						g[1] = maxsat_pos(F->var[j]);
						ng = 2;
					}
					for (int32_t q = 0; q < nr; q++)
						if (rd[q] != et[e])
							maxsat_less(F->ms, g, ng, pos[rd[q]->gid], pos[et[e]->gid]);
				}
			}
		} else {
			for (int32_t a = 0; a < n_ends; a++)
				pos[ends[a]->gid] = -1;
		}
		free(ends);
	}
	free(pos);
	free(stamp);
	return 0;
}

/* ---- verification ---- */

/* Removing r's copy changes its computation's root. */
static int removes_root(const struct copy_report *r)
{
	const struct hlo_instruction *d[64];
	int32_t nd = drops_of(r, d, 64);
	for (int32_t k = 0; k < nd; k++)
		if (d[k]->is_root)
			return 1;
	return 0;
}

/* The value an original value stands for once the selected copies are
 * gone: a removed copy's value is its operand's (along chains). */
static int32_t mapped_value(const struct fixer *F, int32_t v)
{
	const struct dataflow *df = F->an->df;
	for (int g = 0; g < 64 && v >= 0; g++) {
		int32_t i = F->owner[df->values[v].def->gid];
		if (i < 0 || !F->sel[i] || F->copy_value[i] != v)
			return v;
		v = F->src_value[i];
	}
	return v;
}

static void value_key(const struct dataflow *df, int32_t v, char *buf, size_t cap)
{
	if (v < 0) {
		snprintf(buf, cap, "-");
		return;
	}
	const struct hlo_value *x = &df->values[v];
	snprintf(buf, cap, "%s/%s#%u", x->def->parent->name, x->def->name, (unsigned)x->sub);
}

static void instr_key(const struct hlo_instruction *x, char *buf, size_t cap)
{
	if (!x)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%s/%s", x->parent->name, x->name);
}

/* What a read at a removed root becomes: the root the rewrite gives its
 * computation (the removed copy's operand, along chains). */
static const struct hlo_instruction *mapped_use(const struct fixer *F, const struct hlo_instruction *u)
{
	for (int g = 0; g < 64 && u; g++) {
		int32_t i = F->owner[u->gid];
		if (i < 0 || !F->sel[i])
			return u;
		if (!u->is_root)
			return NULL; /* the read is gone with the copy */
		const struct copy_site *st = &F->cl->items[i].site;
		u = st->at->operands[st->operand];
	}
	return u;
}

struct keysets {
	/* identities (hazard_identity) in the given schedule, in every
	 * schedule, in some; exact triples in some */
	struct strset given, every, possible, some;
};

/* A hazard's identity (verdicts.md: the same kind, on the same value, at
 * the same read; for the static kinds the same read-only value, the same
 * value at the same output leaf, the same pair of output leaves), with the
 * value and the read already keyed. */
static void hazard_identity(const struct hazard_report *h, const char *vk, const char *uk, char *key,
			    size_t cap)
{
	switch (h->kind) {
	case HAZARD_READ_ONLY_WRITTEN:
		snprintf(key, cap, "%d|%s", (int)h->kind, vk);
		break;
	case HAZARD_READ_ONLY_OUTPUT:
		snprintf(key, cap, "%d|%s|%d", (int)h->kind, vk, (int)h->leaf[0]);
		break;
	case HAZARD_OUTPUTS_NOT_DISTINCT:
		snprintf(key, cap, "%d|%d|%d", (int)h->kind, (int)h->leaf[0], (int)h->leaf[1]);
		break;
	default:
		snprintf(key, cap, "%d|%s|%s", (int)h->kind, vk, uk);
	}
}

/* The hazards of the module as given, as the rewritten module names them. */
static void original_keys(const struct fixer *F, struct keysets *K)
{
	const struct dataflow *df = F->an->df;
	memset(K, 0, sizeof(*K));
	char vk[1200], wk[1200], uk[1200], key[4000];
	for (int32_t i = 0; i < F->hl->n; i++) {
		const struct hazard_report *h = &F->hl->items[i];
		const struct hlo_instruction *u = mapped_use(F, h->use);
		if (h->use && !u)
			continue;
		value_key(df, mapped_value(F, h->v), vk, sizeof(vk));
		instr_key(u, uk, sizeof(uk));
		hazard_identity(h, vk, uk, key, sizeof(key));
		if (F->o->use_given) {
			if (h->in_given == 1)
				strset_add(&K->given, key);
			continue;
		}
		if (h->in_every)
			strset_add(&K->every, key);
		if (h->in_some)
			strset_add(&K->possible, key);
		/* the very triple, none of its instructions removed: it happens in
		 * exactly the same schedules with the copies or without */
		int32_t dv = F->owner[h->def_v->gid], dw = h->def_w ? F->owner[h->def_w->gid] : -1;
		int32_t du = h->use ? F->owner[h->use->gid] : -1;
		if (h->in_some && (dv < 0 || !F->sel[dv]) && (dw < 0 || !F->sel[dw]) && (du < 0 || !F->sel[du])) {
			value_key(df, h->v, vk, sizeof(vk));
			value_key(df, h->w, wk, sizeof(wk));
			instr_key(h->use, uk, sizeof(uk));
			snprintf(key, sizeof(key), "%d|%s|%s|%s", (int)h->kind, vk, wk, uk);
			strset_add(&K->some, key);
		}
	}
}

static void keysets_free(struct keysets *K)
{
	strset_free(&K->given);
	strset_free(&K->every);
	strset_free(&K->possible);
	strset_free(&K->some);
}

/* Is hazard h of the rewritten module new? 0: no; 1: yes; 2: counted as
 * new without proof that it is (under `any`, the module as given has the
 * same hazard in some schedules, not in every one, and not as the very same
 * triple: whether in the same schedules is not compared), so a choice
 * refused for it is no optimality proof. */
static int is_new(const struct fixer *F, const struct keysets *K, const struct analysis *aw,
		  const struct hazard_report *h)
{
	char vk[1200], wk[1200], uk[1200], key[4000];
	value_key(aw->df, h->v, vk, sizeof(vk));
	instr_key(h->use, uk, sizeof(uk));
	hazard_identity(h, vk, uk, key, sizeof(key));
	if (F->o->use_given)
		return h->in_given == 1 && !strset_has(&K->given, key);
	if (!h->in_some)
		return 0;
	if (strset_has(&K->every, key))
		return 0;
	int possible = strset_has(&K->possible, key);
	value_key(aw->df, h->w, wk, sizeof(wk));
	snprintf(key, sizeof(key), "%d|%s|%s|%s", (int)h->kind, vk, wk, uk);
	if (strset_has(&K->some, key))
		return 0;
	return possible ? 2 : 1;
}

static void fails_clear(struct fixer *F)
{
	for (int32_t i = 0; i < F->n_fails; i++)
		free(F->fails[i].comps);
	F->n_fails = 0;
}

/* A failure of the components cs[0..n) (n == 0: not explained by one). */
static void fail_add(struct fixer *F, const int32_t *cs, int32_t n, int unknown, const char *witness,
		     const struct hlo_instruction *const *touch)
{
	for (int32_t k = 0; k < n; k++) {
		enum comp_state s = unknown ? COMP_UNKNOWN : COMP_FAIL;
		if (s > F->cst[cs[k]])
			F->cst[cs[k]] = s;
	}
	if (!n) {
		F->global_fail = 1;
		F->global_why = arena_strdup(F->A, witness);
	}
	if (F->n_fails == F->cap_fails) {
		F->cap_fails = F->cap_fails ? 2 * F->cap_fails : 8;
		F->fails = xrealloc(F->fails, (size_t)F->cap_fails, sizeof(*F->fails));
	}
	struct failure *f = &F->fails[F->n_fails++];
	f->n = n;
	f->comps = xmalloc((size_t)n + 1, sizeof(int32_t));
	memcpy(f->comps, cs, (size_t)n * sizeof(int32_t));
	f->witness = arena_strdup(F->A, witness);
	f->unknown = unknown;
	for (int k = 0; k < 3; k++)
		f->touch[k] = touch ? touch[k] : NULL;
}

/* Compare the hazards of aw (the rewritten module) with the module's as
 * given, over the buffers holding a value of a component with a removal
 * (every buffer when full). Marks the components; returns the buffers
 * compared. */
static int32_t compare(struct fixer *F, struct analysis *aw, int full)
{
	struct analysis *an = F->an;
	const struct buffers *B = an->bufs, *BW = aw->bufs;
	const struct dataflow *dw = aw->df;
	/* the instructions of aw as the module as given has them */
	const struct hlo_instruction **orig = xmalloc((size_t)aw->m->n_instrs + 1, sizeof(*orig));
	for (int32_t k = 0; k < aw->m->n_comps; k++)
		for (int32_t i = 0; i < aw->m->comps[k]->n_instrs; i++) {
			const struct hlo_instruction *x = aw->m->comps[k]->instrs[i];
			orig[x->gid] = instr_map_twin(&F->names, x);
		}
	uint8_t *active = xcalloc((size_t)F->n_comps + 1, 1);
	/* a removed root makes its operand the root, which runs last: reads
	 * of other buffers move (hazards.md 1); their hazards are those
	 * removals' */
	int32_t *rootc = xmalloc((size_t)F->n_comps + 1, sizeof(int32_t));
	uint8_t *in_rootc = xcalloc((size_t)F->n_comps + 1, 1);
	int32_t n_rootc = 0;
	/* under the given schedule, edges that move instructions move reads
	 * and writes of any buffer of their computations: the hazards in the
	 * new schedule are (also) those edges' copies' */
	int moves = F->o->use_given && F->rw.moved > 0;
	for (int32_t i = 0; i < F->n; i++) {
		if (!F->sel[i])
			continue;
		if (!in_rootc[F->comp[i]] && (removes_root(&F->cl->items[i]) || (moves && F->out->copies[i].edges))) {
			in_rootc[F->comp[i]] = 1;
			rootc[n_rootc++] = F->comp[i];
		}
		active[F->comp[i]] = 1;
	}
	free(in_rootc);
	full = full || n_rootc > 0;
	struct keysets K;
	original_keys(F, &K);
	int32_t compared = 0;
	int32_t *cs = xmalloc(2 * (size_t)F->n_comps + 2, sizeof(int32_t));
	uint8_t *seen = xcalloc((size_t)F->n_comps + 1, 1);
	for (int32_t b = 0; b < BW->n_buffers; b++) {
		const struct hlo_buffer *buf = &BW->buffers[b];
		if (buf->n_values == 1 && !dw->values[buf->values[0]].live_out)
			continue; /* cannot have a hazard */
		/* the components its values come from */
		int32_t ncs = 0, unmapped = 0, first_orig = -1;
		for (uint32_t k = 0; k < buf->n_values; k++) {
			const struct hlo_value *x = &dw->values[buf->values[k]];
			const struct hlo_instruction *oi = orig[x->def->gid];
			int32_t ov = oi ? dataflow_value_defined_at(an->df, oi, (int32_t)x->sub) : -1;
			if (ov < 0) {
				unmapped = 1;
				continue;
			}
			if (first_orig < 0)
				first_orig = ov;
			int32_t c = F->comp_of_buffer[B->buffer_of[ov]];
			if (c >= 0 && active[c] && !seen[c]) {
				seen[c] = 1;
				cs[ncs++] = c;
			}
		}
		for (int32_t k = 0; k < ncs; k++)
			seen[cs[k]] = 0;
		int touched = ncs > 0 || unmapped;
		/* a moved root reads other buffers, moved instructions touch
		 * them: those removals join every group */
		for (int32_t k = 0; k < n_rootc; k++) {
			int in = 0;
			for (int32_t q = 0; q < ncs && !in; q++)
				in = cs[q] == rootc[k];
			if (!in)
				cs[ncs++] = rootc[k];
		}
		if (!touched && !full)
			continue;
		compared++;
		struct buffer_verdict bv;
		memset(&bv, 0, sizeof(bv));
		struct hazard_report *r = NULL;
		int32_t nr = hazards_decide_buffer(aw, b, &bv) < 0 ? -1 : hazards_in_buffer(aw, b, &r);
		int unknown = nr < 0 || (F->o->use_given ? bv.given == VERDICT_UNKNOWN : bv.any == VERDICT_UNKNOWN);
		for (int32_t k = 0; k < nr && !unknown; k++)
			unknown = r[k].unknown;
		if (unknown) {
			/* a decision the budget cut short has its reason, and no reports */
			const char *why = bv.unknown_reason ? bv.unknown_reason
					  : nr < 0 ? "the hazard decider failed on the rewritten module"
						   : "not decided";
			if (!touched) {
				/* as it was in the module as given? */
				struct buffer_verdict ob;
				if (first_orig >= 0 && hazards_decide_buffer(an, B->buffer_of[first_orig], &ob) == 0 &&
				    (F->o->use_given ? ob.given : ob.any) == VERDICT_UNKNOWN)
					continue;
			}
			char wb[1200];
			snprintf(wb, sizeof(wb), "not decided on the rewritten module: %s", why);
			fail_add(F, cs, ncs, 1, wb, NULL);
			continue;
		}
		for (int32_t k = 0; k < nr; k++) {
			int isnew = is_new(F, &K, aw, &r[k]);
			if (!isnew)
				continue;
			if (isnew == 2)
				F->conservative_learned = 1;
			char wb[2400];
			snprintf(wb, sizeof(wb), "%s hazard: %s", hazard_kind_name(r[k].kind),
				 r[k].witness ? r[k].witness : "(no witness text)");
			const struct hlo_instruction *touch[3] = {
				r[k].use ? orig[r[k].use->gid] : NULL,
				r[k].def_v ? orig[r[k].def_v->gid] : NULL,
				r[k].def_w ? orig[r[k].def_w->gid] : NULL,
			};
			fail_add(F, cs, ncs, 0, wb, touch);
			break;
		}
	}
	for (int32_t c = 0; c < F->n_comps; c++)
		if (active[c] && F->cst[c] == COMP_IDLE)
			F->cst[c] = COMP_PASS;
	keysets_free(&K);
	free(rootc);
	free(cs);
	free(seen);
	free(active);
	free(orig);
	return compared;
}

/* The selected copies removed and their edges added: built, analysed and
 * compared. Returns the analysis of the rewritten module (and *w) when it
 * could be built and analysed, else NULL with F->cycle or F->global_why. */
static struct analysis *verify(struct fixer *F, int full, struct hlo_module **w)
{
	struct analysis *an = F->an;
	memset(F->cst, 0, (size_t)F->n_comps * sizeof(*F->cst));
	fails_clear(F);
	F->global_fail = 0;
	F->global_why = NULL;
	F->cycle = 0;
	*w = NULL;
	int32_t ns = 0;
	struct copy_site *sites = xmalloc((size_t)F->n + 1, sizeof(*sites));
	struct edge_set E = {0};
	for (int32_t i = 0; i < F->n; i++) {
		if (!F->sel[i])
			continue;
		sites[ns++] = F->cl->items[i].site;
		concrete_edges(F, i, &E);
	}
	struct diag d;
	diag_init(&d, NULL);
	int cycle = 0;
	memset(F->edged, 0, (size_t)an->m->n_comps + 1);
	for (int32_t k = 0; k < E.n; k++)
		F->edged[E.to[k]->parent->index] = 1;
	struct hlo_module *m = hlo_module_rewrite(an->m, ns, sites, E.n, E.from, E.to, &cycle, &F->rw, &d);
	free(sites);
	edge_set_free(&E);
	if (!m) {
		F->cycle = cycle;
		char b[1200];
		snprintf(b, sizeof(b), "the rewritten module could not be built%s%s",
			 d.first[0] ? ": " : "", d.first);
		F->global_why = arena_strdup(F->A, cycle ? "the control edges close a cycle" : b);
		return NULL;
	}
	struct analysis_options opt = an->opt;
	opt.no_repair_check = 1;
	opt.witness_limit = 2;
	opt.smt_dump_dir = NULL;
	struct analysis *aw = analysis_run(m, &opt, &d);
	if (!aw) {
		char b[1200];
		snprintf(b, sizeof(b), "the rewritten module could not be analysed%s%s",
			 d.first[0] ? ": " : "", d.first);
		F->global_why = arena_strdup(F->A, b);
		hlo_module_free(m);
		return NULL;
	}
	F->out->buffers_compared = compare(F, aw, full);
	*w = m;
	return aw;
}

static int all_pass(const struct fixer *F)
{
	if (F->global_fail)
		return 0;
	for (int32_t c = 0; c < F->n_comps; c++)
		if (F->cst[c] == COMP_FAIL || F->cst[c] == COMP_UNKNOWN)
			return 0;
	return 1;
}

/* Is x's computation c, or one that calls c's callers up the chain? */
static int encloses(const struct hlo_computation *c, const struct hlo_instruction *x)
{
	const struct hlo_computation *k = x ? x->parent : NULL;
	for (int g = 0; k && g < 64; g++) {
		if (k == c)
			return 1;
		k = k->n_callers > 0 ? k->callers[0].instr->parent : NULL;
	}
	return 0;
}

/* Whether adding candidate j (not selected) could take the failure's
 * hazard away: its removal drops the read, or the copy defining the value
 * or the writer, or one of its control edges orders a computation the
 * hazard runs in, or (the given schedule) its removal changes the order of
 * a computation the edges reordered, where the hazard runs. An undecided
 * buffer: any copy of its components. */
static int could_undo(const struct fixer *F, const struct failure *f, int32_t j)
{
	if (!f) /* a cycle, or a failure no component explains: none counted */
		return 0;
	if (f->unknown || (!f->touch[0] && !f->touch[1])) {
		for (int32_t q = 0; q < f->n; q++)
			if (F->comp[j] == f->comps[q])
				return 1;
		return !f->n;
	}
	for (int k = 0; k < 3; k++)
		if (f->touch[k] && F->owner[f->touch[k]->gid] == j)
			return 1;
	const struct hlo_instruction *const *ef, *const *et;
	int32_t ne = cand_edges(F, j, &ef, &et);
	for (int32_t e = 0; e < ne; e++)
		for (int k = 0; k < 3; k++)
			if (encloses(ef[e]->parent, f->touch[k]))
				return 1;
	const struct hlo_computation *c = F->cl->items[j].copy->parent;
	if (F->o->use_given && F->edged[c->index])
		for (int k = 0; k < 3; k++)
			if (encloses(c, f->touch[k]))
				return 1;
	return 0;
}

/* Learn "not all of the selected copies of these components (in[c]; NULL:
 * every selected copy), unless a copy that could undo the failure goes
 * too"; edges_only: of the selected copies with edges, for a cycle. */
static void learn(struct fixer *F, const uint8_t *in, int edges_only, const struct failure *f,
		  const char *witness)
{
	int32_t *lits = xmalloc((size_t)F->n + 1, sizeof(int32_t));
	int32_t *mem = xmalloc((size_t)F->n + 1, sizeof(int32_t));
	int32_t n = 0, nm = 0;
	for (int32_t i = 0; i < F->n; i++) {
		if (F->var[i] < 0)
			continue;
		if (!F->sel[i]) {
			if (could_undo(F, f, i))
				lits[n++] = maxsat_pos(F->var[i]);
			continue;
		}
		if (in && !in[F->comp[i]])
			continue;
		if (edges_only) {
			const struct hlo_instruction *const *ef, *const *et;
			if (cand_edges(F, i, &ef, &et) == 0)
				continue;
		}
		lits[n++] = maxsat_neg(F->var[i]);
		mem[nm++] = i;
	}
	maxsat_clause(F->ms, lits, n);
	if (F->n_nogoods == F->cap_nogoods) {
		F->cap_nogoods = F->cap_nogoods ? 2 * F->cap_nogoods : 16;
		F->nogoods = xrealloc(F->nogoods, (size_t)F->cap_nogoods, sizeof(*F->nogoods));
	}
	struct nogood *g = &F->nogoods[F->n_nogoods++];
	g->n = nm;
	g->copies = arena_array(F->A, (size_t)nm + 1, sizeof(int32_t));
	memcpy(g->copies, mem, (size_t)nm * sizeof(int32_t));
	g->witness = witness ? arena_strdup(F->A, witness) : NULL;
	F->out->conflicts++;
	free(lits);
	free(mem);
}

/* Learn from the last verification: one constraint per failure. */
static void learn_from(struct fixer *F)
{
	if (F->cycle) {
		learn(F, NULL, 1, NULL, "their control edges close a cycle with the dependencies");
		return;
	}
	uint8_t *in = xcalloc((size_t)F->n_comps + 1, 1);
	for (int32_t k = 0; k < F->n_fails; k++) {
		const struct failure *f = &F->fails[k];
		if (f->unknown)
			F->unknown_learned = 1; /* not a hazard: no optimality claim */
		memset(in, 0, (size_t)F->n_comps + 1);
		for (int32_t q = 0; q < f->n; q++)
			in[f->comps[q]] = 1;
		learn(F, f->n ? in : NULL, 0, f, f->witness);
	}
	if (!F->n_fails) {
		F->unknown_learned = 1;
		learn(F, NULL, 0, NULL, F->global_why);
	}
	free(in);
}

/* The instructions of the module as given that the edges moved: in each
 * computation w's edges reordered, those off one longest run that keeps
 * its printed order (reorder.h). */
static void moved_of(struct fixer *F, const struct hlo_module *w, struct fix_result *out)
{
	const struct hlo_module *m = F->an->m;
	out->n_moved = 0;
	out->moved = arena_array(F->A, (size_t)m->n_instrs + 1, sizeof(*out->moved));
	out->moves_minimal = !F->rw.not_minimal;
	for (int32_t k = 0; w && k < w->n_comps; k++) {
		const struct hlo_computation *wk = w->comps[k];
		const struct hlo_computation *ok = hlo_find_computation(m, wk->name);
		if (!ok || !F->edged[ok->index])
			continue;
		int32_t n = wk->n_instrs;
		int32_t *pos = xmalloc((size_t)n + 1, sizeof(int32_t));
		const struct hlo_instruction **was = xmalloc((size_t)n + 1, sizeof(*was));
		uint8_t *mv = xmalloc((size_t)n + 1, 1);
		int32_t np = 0;
		for (int32_t i = 0; i < n; i++) {
			const struct hlo_instruction *x = instr_map_twin(&F->names, wk->instrs[i]);
			if (x) {
				was[np] = x;
				pos[np++] = x->index;
			}
		}
		reorder_moved(np, pos, mv);
		for (int32_t i = 0; i < np; i++)
			if (mv[i])
				out->moved[out->n_moved++] = was[i];
		free(pos);
		free(was);
		free(mv);
	}
}

static void set_answer(struct fixer *F, struct analysis *aw, struct hlo_module *w)
{
	struct fix_result *out = F->out;
	out->fixed = w;
	out->fixed_an = aw;
	out->n_removed = 0;
	out->saved = out->saved_bytes = 0;
	struct edge_set E = {0};
	for (int32_t i = 0; i < F->n; i++) {
		if (!F->sel[i])
			continue;
		out->copies[i].kept = FIX_REMOVED;
		out->copies[i].why = NULL;
		out->n_removed++;
		out->saved = sat_add(out->saved, out->copies[i].weight);
		out->saved_bytes = sat_add(out->saved_bytes, F->cl->items[i].bytes);
		concrete_edges(F, i, &E);
	}
	out->n_edges = E.n;
	moved_of(F, w, out);
	out->edge_from = arena_array(F->A, (size_t)E.n + 1, sizeof(*out->edge_from));
	out->edge_to = arena_array(F->A, (size_t)E.n + 1, sizeof(*out->edge_to));
	if (E.n) {
		memcpy(out->edge_from, E.from, (size_t)E.n * sizeof(*E.from));
		memcpy(out->edge_to, E.to, (size_t)E.n * sizeof(*E.to));
	}
	edge_set_free(&E);
}

/* The greedy choice once the search stops: the components that passed
 * last, then one more copy per component per round, heaviest first, each
 * round verified. Leaves the verified set in F->sel. */
static struct analysis *greedy(struct fixer *F, const uint8_t *last_pass, struct hlo_module **w)
{
	uint8_t *acc = xcalloc((size_t)F->n + 1, 1), *tried = xcalloc((size_t)F->n + 1, 1);
	if (last_pass)
		memcpy(acc, last_pass, (size_t)F->n);
	int rounds = budget_expired(F->o->budget) ? 1 : FIX_GREEDY_ROUNDS;
	struct analysis *best = NULL;
	struct hlo_module *best_w = NULL;
	for (int r = 0; r < rounds; r++) {
		memcpy(F->sel, acc, (size_t)F->n);
		/* the heaviest untried candidate of each component */
		int32_t *pick = xmalloc((size_t)F->n_comps + 1, sizeof(int32_t));
		for (int32_t c = 0; c < F->n_comps; c++)
			pick[c] = -1;
		for (int32_t i = 0; i < F->n && r > 0; i++) {
			if (F->var[i] < 0 || acc[i] || tried[i])
				continue;
			int32_t c = F->comp[i];
			if (pick[c] < 0 || F->out->copies[i].weight > F->out->copies[pick[c]].weight)
				pick[c] = i;
		}
		int added = 0;
		for (int32_t c = 0; c < F->n_comps; c++)
			if (pick[c] >= 0) {
				F->sel[pick[c]] = tried[pick[c]] = 1;
				added = 1;
			}
		if (r > 0 && !added) {
			free(pick);
			break;
		}
		struct hlo_module *m;
		struct analysis *aw = verify(F, 0, &m);
		F->out->rounds++;
		if (aw && all_pass(F)) {
			memcpy(acc, F->sel, (size_t)F->n);
		} else if (aw && !F->global_fail) {
			for (int32_t i = 0; i < F->n; i++)
				if (F->sel[i] && F->cst[F->comp[i]] == COMP_PASS)
					acc[i] = 1;
		}
		analysis_free(aw);
		hlo_module_free(m);
		free(pick);
		if (budget_expired(F->o->budget))
			break;
	}
	/* the accepted set on its own */
	memcpy(F->sel, acc, (size_t)F->n);
	best = verify(F, 1, &best_w);
	if (!best || !all_pass(F)) {
		analysis_free(best);
		hlo_module_free(best_w);
		memset(F->sel, 0, (size_t)F->n);
		best = verify(F, 1, &best_w);
	}
	free(acc);
	free(tried);
	*w = best_w;
	return best;
}

/* Why each kept candidate stays. */
static void explain_kept(struct fixer *F)
{
	char lb[600], ob[600];
	for (int32_t i = 0; i < F->n; i++) {
		struct fix_copy *c = &F->out->copies[i];
		if (!c->candidate || F->sel[i])
			continue;
		/* a learned conflict whose other members were removed, else the
		 * smallest one it is in */
		const struct nogood *best = NULL;
		int best_rank = 0;
		for (int32_t g = 0; g < F->n_nogoods; g++) {
			const struct nogood *ng = &F->nogoods[g];
			int in = 0, others_kept = 0;
			for (int32_t k = 0; k < ng->n; k++) {
				if (ng->copies[k] == i)
					in = 1;
				else if (!F->sel[ng->copies[k]])
					others_kept++;
			}
			if (!in)
				continue;
			int rank = others_kept * 100000 + ng->n;
			if (!best || rank < best_rank) {
				best = ng;
				best_rank = rank;
			}
		}
		/* an edge conflict, with a removed copy first */
		int32_t pick = -1;
		for (int32_t p = 0; !best && p < F->n_pairs; p++) {
			int32_t a = F->pairs[2 * p], b = F->pairs[2 * p + 1];
			if (a != i && b != i)
				continue;
			int32_t j = a == i ? b : a;
			if (pick < 0 || (F->sel[j] && !F->sel[F->pairs[2 * pick] == i ? F->pairs[2 * pick + 1]
										   : F->pairs[2 * pick]]))
				pick = p;
		}
		if (!best && pick >= 0) {
			int32_t a = F->pairs[2 * pick], b = F->pairs[2 * pick + 1];
			int32_t j = a == i ? b : a;
			c->with = arena_array(F->A, 1, sizeof(int32_t));
			c->with[0] = j;
			c->n_with = 1;
			site_label(&F->cl->items[j], ob, sizeof(ob));
			if (F->sel[j] && a == i)
				why_set(F, i, FIX_KEPT_EDGES, "its control edges name %s, which is removed", ob);
			else if (F->sel[j])
				why_set(F, i, FIX_KEPT_EDGES, "%s, which is removed, needs a control edge that names it", ob);
			else
				why_set(F, i, FIX_KEPT_EDGES, "it cannot go together with %s (a control edge of one names "
					"the other), and the removals chosen save at least as much", ob);
		}
		if (best) {
			char list[1600];
			size_t at = 0;
			list[0] = 0;
			c->with = arena_array(F->A, (size_t)best->n + 1, sizeof(int32_t));
			c->n_with = 0;
			for (int32_t k = 0; k < best->n; k++) {
				int32_t j = best->copies[k];
				if (j == i)
					continue;
				c->with[c->n_with++] = j;
				if (at < sizeof(list) - 64)
					at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s%s",
							       c->n_with > 1 ? ", " : "",
							       site_label(&F->cl->items[j], lb, sizeof(lb)),
							       F->sel[j] ? "" : " (kept too)");
			}
			if (c->n_with == 0)
				why_set(F, i, FIX_KEPT_CONFLICT, "its removal, analysed with the others chosen, "
					"introduces a hazard: %s", best->witness ? best->witness : "?");
			else
				why_set(F, i, FIX_KEPT_CONFLICT, "removing it together with %s introduces a hazard: %s",
					list, best->witness ? best->witness : "?");
		} else if (!c->n_with && F->out->optimal) {
			why_set(F, i, FIX_KEPT_EDGES, "its control edges, with those of the copies removed, "
				"would close a cycle with the dependencies");
		} else if (!c->n_with) {
			why_set(F, i, FIX_KEPT_UNTRIED, "not chosen before the search stopped");
		}
	}
}

int fix_run(struct analysis *an, const struct copy_list *cl, const struct hazard_list *hl,
	    const struct fix_options *o, struct fix_result *out)
{
	memset(out, 0, sizeof(*out));
	struct fixer F;
	memset(&F, 0, sizeof(F));
	F.an = an;
	F.cl = cl;
	F.hl = hl;
	F.o = o;
	F.out = out;
	F.A = &an->m->arena;
	F.n = cl->n;
	out->use_given = o->use_given;
	out->count = o->count;
	out->n_copies = cl->n;
	out->copies = arena_array(F.A, (size_t)cl->n + 1, sizeof(*out->copies));
	memset(out->copies, 0, ((size_t)cl->n + 1) * sizeof(*out->copies));
	instr_map_build(&F.names, an->m);
	setup(&F);
	int rc = 0;
	if (build_problem(&F) < 0) {
		out->failed = 1;
		out->failure = "Z3 refused to create an optimization context";
		rc = 0;
		goto done;
	}
	int max_rounds = o->max_rounds > 0 ? o->max_rounds : FIX_MAX_ROUNDS;
	uint8_t *value = xcalloc((size_t)F.n + 1, 1);
	uint8_t *last_pass = NULL;
	struct analysis *aw = NULL;
	struct hlo_module *w = NULL;
	const char *stop = NULL;
	uint64_t bound = 0;
	for (;;) {
		if (out->rounds >= max_rounds) {
			stop = "the search reached its limit of verifications";
			break;
		}
		if (budget_expired(o->budget)) {
			stop = BUDGET_EXHAUSTED_REASON;
			break;
		}
		enum maxsat_status st = maxsat_solve(F.ms, value, &bound);
		out->solves++;
		out->bound = bound;
		if (st != MAXSAT_OPTIMAL) {
			stop = st == MAXSAT_NONE ? "the learned constraints admit no choice"
						 : "the optimizer did not finish (timeout)";
			break;
		}
		for (int32_t i = 0; i < F.n; i++)
			F.sel[i] = F.var[i] >= 0 && value[F.var[i]];
		aw = verify(&F, 0, &w);
		out->rounds++;
		if (aw && all_pass(&F))
			break;
		if (!aw && !F.cycle) {
			stop = F.global_why;
			break;
		}
		/* the components that passed, for the greedy fallback */
		if (aw) {
			if (!last_pass)
				last_pass = xcalloc((size_t)F.n + 1, 1);
			for (int32_t i = 0; i < F.n; i++)
				last_pass[i] = F.sel[i] && !F.global_fail && F.cst[F.comp[i]] == COMP_PASS;
		}
		learn_from(&F);
		analysis_free(aw);
		hlo_module_free(w);
		aw = NULL;
		w = NULL;
	}
	if (stop) {
		aw = greedy(&F, last_pass, &w);
		char b[600];
		snprintf(b, sizeof(b), "not proven optimal: %s", stop);
		out->not_optimal = arena_strdup(F.A, b);
		out->optimal = 0;
	} else {
		/* the whole module compared, not only the merged buffers */
		out->buffers_compared = compare(&F, aw, 1);
		if (!all_pass(&F)) {
			out->failed = 1;
			out->failure = arena_strdup(F.A, F.global_why ? F.global_why
						     : "the fixed module, analysed again in full, has a hazard "
						       "the module as given does not have");
		}
		out->optimal = !F.unknown_learned && !F.conservative_learned;
		if (F.unknown_learned)
			out->not_optimal = "not proven optimal: a choice was refused because the rewritten "
					   "module could not be decided, not for a hazard";
		else if (F.conservative_learned)
			out->not_optimal = "not proven optimal: a choice was refused for a hazard the module "
					   "as given has too in some schedules (not compared schedule by schedule)";
	}
	if (!aw) {
		out->failed = 1;
		out->failure = F.global_why ? F.global_why : "the module could not be rewritten";
	} else {
		set_answer(&F, aw, w);
	}
	if (out->optimal && out->n_unknown) {
		/* a copy not decided might go too: nothing is claimed about it */
		char b[200];
		snprintf(b, sizeof(b), "not proven optimal: %d cop%s could not be decided (listed as kept, unknown)",
			 out->n_unknown, out->n_unknown == 1 ? "y" : "ies");
		out->not_optimal = arena_strdup(F.A, b);
		out->optimal = 0;
		out->bound = UINT64_MAX; /* unknown */
	}
	if (out->optimal)
		out->bound = out->saved;
	else if (out->bound < out->saved)
		out->bound = out->saved;
	explain_kept(&F);
	free(value);
	free(last_pass);
done:
	out->solves = F.ms ? maxsat_solves(F.ms) : 0;
	maxsat_free(F.ms);
	instr_map_free(&F.names);
	free(F.var);
	free(F.comp);
	free(F.src_value);
	free(F.copy_value);
	free(F.comp_of_buffer);
	free(F.owner);
	free(F.pairs);
	free(F.nogoods);
	free(F.sel);
	free(F.cst);
	free(F.edged);
	fails_clear(&F);
	free(F.fails);
	return rc;
}

void fix_result_free(struct fix_result *r)
{
	if (!r)
		return;
	analysis_free(r->fixed_an);
	hlo_module_free(r->fixed);
	r->fixed_an = NULL;
	r->fixed = NULL;
}

/* The instruction of `to` named as x is in its own module. */
static const struct hlo_instruction *same_in(const struct hlo_module *to, const struct hlo_instruction *x)
{
	if (!x)
		return NULL;
	const struct hlo_computation *k = hlo_find_computation(to, x->parent->name);
	return k ? hlo_find_instruction(k, x->name) : NULL;
}

int fix_joint_reports(struct analysis *an, const struct fix_result *fr, struct copy_report *out)
{
	struct arena *A = &an->m->arena;
	char lb[600];
	for (int32_t i = 0; i < fr->n_copies; i++) {
		const struct fix_copy *c = &fr->copies[i];
		struct copy_report *o = &out[i];
		*o = *c->r;
		struct sbuf b = {0};
		if (c->kept == FIX_REMOVED) {
			int own_edges = !fr->use_given && c->r->any == VERDICT_SCHEDULE_DEPENDENT;
			if (fr->use_given)
				o->given = VERDICT_REMOVABLE;
			else
				o->any = own_edges ? VERDICT_SCHEDULE_DEPENDENT : VERDICT_REMOVABLE;
			o->unknown_reason = NULL;
			if (fr->n_removed == 1)
				sb_printf(&b, "jointly (%s schedule): the one copy hloproof fix removes%s",
					  fr->use_given ? "the given" : "every", fr->optimal ? " (an optimal choice)" : "");
			else
				sb_printf(&b, "jointly (%s schedule): removed together with the %d other cop%s that "
					  "hloproof fix removes%s", fr->use_given ? "the given" : "every",
					  fr->n_removed - 1, fr->n_removed == 2 ? "y" : "ies",
					  fr->optimal ? " (an optimal choice)" : "");
			sb_printf(&b, "; the module with %s removed%s%s, analysed again, has no hazard the module "
				  "as given does not have\n", fr->n_removed == 1 ? "it" : "all of them",
				  fr->n_edges ? " and the control edges added" : "",
				  fr->use_given && fr->n_moved ? " (the printed schedule changed by moving the instructions "
				  "they order)" : "");
			sb_printf(&b, "its own verdict: %s", c->r->evidence ? c->r->evidence : "\n");
			o->evidence = sb_finish(&b, A);
			continue;
		}
		const struct hlo_instruction *at = fr->fixed ? same_in(fr->fixed, c->r->site.at) : NULL;
		struct copy_site st[2];
		int32_t ns = at ? copy_sites_named(fr->fixed, &fr->fixed->arena,
						   copy_site_name(&c->r->site, lb, sizeof(lb)), st, 2) : 0;
		struct copy_report jr;
		int had = fr->fixed_an ? fr->fixed_an->opt.no_repair_check : 0;
		if (fr->fixed_an)
			fr->fixed_an->opt.no_repair_check = 0; /* its repairs are claims: checked */
		int ok = ns == 1 && copy_analyse_site(fr->fixed_an, &st[0], &jr) == 0;
		if (fr->fixed_an)
			fr->fixed_an->opt.no_repair_check = had;
		if (!ok) {
			o->any = VERDICT_UNKNOWN;
			o->given = an->m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
			o->unknown_reason = "the copy could not be decided in the module with the other removals";
			sb_printf(&b, "jointly: unknown: %s\n", o->unknown_reason);
			o->evidence = sb_finish(&b, A);
			continue;
		}
		o->given = jr.given;
		o->any = jr.any;
		o->unknown_reason = jr.unknown_reason ? arena_strdup(A, jr.unknown_reason) : NULL;
		o->edge_from = same_in(an->m, jr.edge_from);
		o->edge_to = same_in(an->m, jr.edge_to);
		o->n_edges = 0;
		o->edges_from = arena_array(A, (size_t)jr.n_edges + 1, sizeof(*o->edges_from));
		o->edges_to = arena_array(A, (size_t)jr.n_edges + 1, sizeof(*o->edges_to));
		for (int32_t e = 0; e < jr.n_edges; e++) {
			const struct hlo_instruction *f = same_in(an->m, jr.edges_from[e]);
			const struct hlo_instruction *t = same_in(an->m, jr.edges_to[e]);
			if (f && t) {
				o->edges_from[o->n_edges] = f;
				o->edges_to[o->n_edges] = t;
				o->n_edges++;
			}
		}
		sb_printf(&b, "jointly (%s schedule): decided in the module with the %d cop%s hloproof fix "
			  "removes already removed%s\n", fr->use_given ? "the given" : "every", fr->n_removed,
			  fr->n_removed == 1 ? "y" : "ies", fr->n_edges ? " and its control edges added" : "");
		if (c->why)
			sb_printf(&b, "kept by fix: %s\n", c->why);
		sb_printf(&b, "%s", jr.evidence ? jr.evidence : "");
		o->evidence = sb_finish(&b, A);
	}
	return 0;
}
