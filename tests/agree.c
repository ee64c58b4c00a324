/* agree.c - deciders against the oracle on one module (see agree.h). */
#include "agree.h"
#include "oracle.h"
#include "copies.h"
#include "hazard.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *vn(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "null";
}

struct ctx {
	const char *text, *label;
	FILE *err;
	int dumped;
	int fails;
};

/* Start a disagreement report; the module text goes out once. */
static void fail_head(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_head(struct ctx *c, const char *fmt, ...)
{
	c->fails++;
	if (!c->err)
		return;
	fprintf(c->err, "=== DISAGREEMENT %s: ", c->label);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
}

static void fail_text(struct ctx *c, const char *what, const char *s)
{
	if (c->err && s)
		fprintf(c->err, "%s:\n%s%s", what, s, s[0] && s[strlen(s) - 1] == '\n' ? "" : "\n");
}

static void fail_module(struct ctx *c)
{
	if (c->err && !c->dumped) {
		fprintf(c->err, "--- module (%s):\n%s--- end of module\n", c->label, c->text);
		c->dumped = 1;
	}
}

static enum verdict from_answer(const struct oracle_answer *a, int given)
{
	if (given)
		return a->given < 0 ? VERDICT_NONE : a->given ? VERDICT_UNSAFE : VERDICT_SAFE;
	return !a->some ? VERDICT_SAFE : a->every ? VERDICT_UNSAFE : VERDICT_SCHEDULE_DEPENDENT;
}

/* The control edges of the decider's repair as its evidence lists them
 * ("repair ...: control edges a -> b, c -> d"): the API carries one edge,
 * a repair may need several. Returns the count (at most cap). */
#define MAX_REPAIR 8
static int parse_repair(const char *ev, char from[][128], char to[][128], int cap)
{
	const char *p = ev ? strstr(ev, "repair") : NULL;
	p = p ? strstr(p, "control edge") : NULL;
	if (!p)
		return 0;
	p += 12;
	if (*p == 's')
		p++;
	int n = 0;
	while (n < cap) {
		while (*p == ' ' || *p == ',')
			p++;
		char a[128], b[128];
		int used = 0;
		if (sscanf(p, "%127[A-Za-z0-9_.-] -> %127[A-Za-z0-9_.-]%n", a, b, &used) != 2 || !used)
			break;
		snprintf(from[n], 128, "%s", a);
		snprintf(to[n], 128, "%s", b);
		n++;
		p += used;
		if (*p != ',')
			break;
	}
	return n;
}

static void check_copy(struct ctx *c, struct analysis *an, struct hlo_module *m,
		       const struct hlo_instruction *copy, const struct oracle_limits *lim,
		       struct agree_stats *st)
{
	double t0 = now();
	struct copy_report rep;
	memset(&rep, 0, sizeof(rep));
	int rc = copy_analyse_one(an, copy, &rep);
	double t1 = now();
	st->decider_copies_s += t1 - t0;
	struct oracle_copy_result cr;
	oracle_copy(m, copy, lim, &cr);
	double t2 = now();
	st->decider_s += t1 - t0;
	st->oracle_s += t2 - t1;
	if (cr.status != ORACLE_OK) {
		st->skipped++;
		if (c->err)
			fprintf(c->err, "%s: copy %s: oracle has no answer: %s\n", c->label, copy->name, cr.why);
		oracle_copy_result_free(&cr);
		return;
	}
	st->copies++;
	if (rc < 0) {
		fail_head(c, "copy %s: copy_analyse_one failed", copy->name);
		fail_module(c);
		oracle_copy_result_free(&cr);
		return;
	}
	if (rep.any == VERDICT_UNKNOWN || rep.given == VERDICT_UNKNOWN) {
		st->unknown++;
		fail_head(c, "copy %s: decider says unknown: %s", copy->name,
			  rep.unknown_reason ? rep.unknown_reason : "(no reason given)");
		fail_module(c);
	} else if (rep.any != cr.any || rep.given != cr.given) {
		fail_head(c, "copy %s@%s: decider given=%s any=%s, oracle given=%s any=%s", copy->name,
			  copy->parent->name, vn(rep.given), vn(rep.any), vn(cr.given), vn(cr.any));
		fail_text(c, "decider evidence", rep.evidence);
		fail_text(c, "oracle witness (a hazardous schedule)", cr.witness);
		fail_text(c, "oracle clean schedule", cr.clean);
		fail_text(c, "rewritten module", cr.rewritten);
		fail_module(c);
	} else if (rep.any == VERDICT_SCHEDULE_DEPENDENT) {
		st->edges_checked++;
		int ok = rep.edge_from && rep.edge_to
			 ? oracle_copy_edge_ok(m, copy, lim, rep.edge_from->name, rep.edge_to->name) : 0;
		char f[MAX_REPAIR][128], t[MAX_REPAIR][128];
		int ne = ok == 1 ? 0 : parse_repair(rep.evidence, f, t, MAX_REPAIR);
		if (ne > 1) {
			const char *fp[MAX_REPAIR], *tp[MAX_REPAIR];
			for (int k = 0; k < ne; k++)
				fp[k] = f[k], tp[k] = t[k];
			ok = oracle_copy_edges_ok(m, copy, lim, fp, tp, ne);
			if (ok == 1)
				st->multi_edge_repairs++;
		}
		if (ok != 1) {
			fail_head(c, "copy %s: repair edge %s -> %s leaves a hazard (or a cycle)", copy->name,
				  rep.edge_from ? rep.edge_from->name : "(none)",
				  rep.edge_to ? rep.edge_to->name : "(none)");
			fail_text(c, "decider evidence", rep.evidence);
			fail_module(c);
		}
	}
	oracle_copy_result_free(&cr);
}

/* Decider buffer id of oracle buffer ob, through the value ids (both sides
 * run the same alias analysis on the same module). */
static int32_t map_buffer(const struct buffers *db, const struct buffers *ob, int32_t b)
{
	const struct hlo_buffer *hb = &ob->buffers[b];
	return hb->n_values ? db->buffer_of[hb->values[0]] : -1;
}

static void check_buffer(struct ctx *c, struct analysis *an, struct oracle *o,
			 const struct oracle_module_result *r, int32_t ob, const char *what,
			 struct agree_stats *st)
{
	int32_t db = map_buffer(an->bufs, oracle_buffers(o), ob);
	struct buffer_verdict bv;
	memset(&bv, 0, sizeof(bv));
	double t0 = now();
	int rc = hazards_decide_buffer(an, db, &bv);
	st->decider_s += now() - t0;
	st->decider_buffers_s += now() - t0;
	enum verdict og = from_answer(&r->buffer[ob], 1), oa = from_answer(&r->buffer[ob], 0);
	if (rc < 0) {
		fail_head(c, "%s (buffer %d): hazards_decide_buffer failed", what, ob);
		fail_module(c);
		return;
	}
	if (bv.any == VERDICT_UNKNOWN || bv.given == VERDICT_UNKNOWN) {
		st->unknown++;
		fail_head(c, "%s (buffer %d): decider says unknown: %s", what, ob,
			  bv.unknown_reason ? bv.unknown_reason : "(no reason given)");
		fail_module(c);
		return;
	}
	if (bv.given != og || bv.any != oa) {
		fail_head(c, "%s (buffer %d): decider given=%s any=%s, oracle given=%s any=%s", what, ob,
			  vn(bv.given), vn(bv.any), vn(og), vn(oa));
		fail_text(c, "decider evidence", bv.evidence);
		fail_text(c, "oracle witness (a hazardous schedule)", r->buffer[ob].witness);
		fail_text(c, "oracle clean schedule", r->buffer[ob].clean);
		fail_module(c);
		return;
	}
	if (bv.any == VERDICT_SCHEDULE_DEPENDENT) {
		st->edges_checked++;
		t0 = now();
		int ok = bv.edge_from && bv.edge_to ? oracle_buffer_edge_ok(o, ob, bv.edge_from, bv.edge_to) : 0;
		char f[MAX_REPAIR][128], t[MAX_REPAIR][128];
		int ne = ok == 1 ? 0 : parse_repair(bv.evidence, f, t, MAX_REPAIR);
		if (ne > 1) {
			const struct hlo_instruction *fi[MAX_REPAIR], *ti[MAX_REPAIR];
			int found = 1;
			for (int k = 0; k < ne; k++) {
				/* the first computation that has both names */
				fi[k] = ti[k] = NULL;
				for (int32_t q = 0; (!fi[k] || !ti[k]) && q < an->m->n_comps; q++) {
					fi[k] = hlo_find_instruction(an->m->comps[q], f[k]);
					ti[k] = hlo_find_instruction(an->m->comps[q], t[k]);
				}
				found &= fi[k] && ti[k];
			}
			ok = found ? oracle_buffer_edges_ok(o, ob, fi, ti, ne) : 0;
			if (ok == 1)
				st->multi_edge_repairs++;
		}
		st->oracle_s += now() - t0;
		if (ok != 1) {
			fail_head(c, "%s (buffer %d): repair edge %s -> %s leaves a hazard (or a cycle)", what, ob,
				  bv.edge_from ? bv.edge_from->name : "(none)",
				  bv.edge_to ? bv.edge_to->name : "(none)");
			fail_text(c, "decider evidence", bv.evidence);
			fail_module(c);
		}
	}
}

/* The decider's and the oracle's hazard triples of the module as given. */
static void check_module(struct ctx *c, struct analysis *an, const struct oracle_module_result *r,
			 struct agree_stats *st)
{
	struct hazard_report *hr = NULL;
	double t0 = now();
	int32_t n = hazards_analyse(an, &hr);
	st->decider_s += now() - t0;
	st->decider_module_s += now() - t0;
	if (n < 0) {
		fail_head(c, "hazards_analyse failed");
		fail_module(c);
		return;
	}
	int given = -1, some = 0, unknown = 0;
	if (an->m->is_scheduled)
		given = 0;
	for (int32_t k = 0; k < n; k++) {
		if (hr[k].unknown)
			unknown = 1;
		if (hr[k].in_some)
			some = 1;
		if (hr[k].in_given > 0)
			given = 1;
	}
	if (unknown) {
		st->unknown++;
		fail_head(c, "module: hazards_analyse says unknown");
		fail_module(c);
		return;
	}
	if (some != r->module.some || given != r->module.given) {
		fail_head(c, "module hazard: decider given=%d some=%d, oracle given=%d some=%d every=%d",
			  given, some, r->module.given, r->module.some, r->module.every);
		for (int32_t k = 0; k < n && c->err; k++)
			fprintf(c->err, "  decider: %s %s\n", hazard_kind_name(hr[k].kind),
				hr[k].witness ? hr[k].witness : "");
		fail_text(c, "oracle witness", r->module.witness);
		fail_module(c);
	}
	/* trace triples, one by one (informational: counted, not failed) */
	for (int32_t k = 0; k < r->n_triples; k++) {
		const struct oracle_triple *t = &r->triples[k];
		st->triples++;
		int found = 0;
		for (int32_t j = 0; j < n && !found; j++) {
			const struct hazard_report *h = &hr[j];
			if (h->v != t->v || h->w != t->w || (int)h->kind != (int)t->kind)
				continue;
			if (h->use == t->at || (t->end_read && !h->use))
				found = h->in_some == t->some && h->in_every == t->every &&
					(given < 0 || h->in_given == t->given);
		}
		if (!found)
			st->triple_mismatch++;
	}
}

int agree_module(const char *text, const char *label, unsigned flags, struct agree_stats *st,
		 FILE *err)
{
	struct ctx c = {text, label, err, 0, 0};
	st->modules++;
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse(label, text, strlen(text), &d);
	if (!m) {
		fail_head(&c, "does not parse: %d:%d: %s", d.first_pos.line, d.first_pos.col, d.first);
		fail_module(&c);
		st->disagreed++;
		return c.fails;
	}
	struct oracle_limits lim;
	oracle_default_limits(&lim);
	char why[256];
	double t0 = now();
	struct oracle *o = oracle_new(m, &lim, why, sizeof(why));
	struct oracle_module_result r;
	memset(&r, 0, sizeof(r));
	if (o)
		oracle_module(o, &r);
	st->oracle_s += now() - t0;
	if (!o || r.status != ORACLE_OK) {
		st->skipped++;
		if (err)
			fprintf(err, "%s: oracle has no answer: %s\n", label, o ? r.why : why);
		oracle_module_result_free(&r);
		oracle_free(o);
		hlo_module_free(m);
		return 0;
	}
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.cross_check = (flags & AGREE_CROSS_CHECK) != 0;
	struct diag dd;
	diag_init(&dd, err);
	t0 = now();
	struct analysis *an = analysis_run(m, &opt, &dd);
	st->decider_s += now() - t0;
	if (!an) {
		fail_head(&c, "analysis_run failed");
		fail_module(&c);
		goto out;
	}
	if (an->df->n_values != oracle_dataflow(o)->n_values ||
	    an->bufs->n_buffers != oracle_buffers(o)->n_buffers) {
		fail_head(&c, "the two alias analyses differ (%d/%d values, %d/%d buffers)",
			  an->df->n_values, oracle_dataflow(o)->n_values, an->bufs->n_buffers,
			  oracle_buffers(o)->n_buffers);
		fail_module(&c);
		goto out;
	}
	check_module(&c, an, &r, st);
	/* Every buffer with AGREE_ALL_BUFFERS; otherwise (to keep the test
	 * fast) those that can hold a trace hazard (two values) or where the
	 * oracle finds one. A decider claiming a hazard in a one-value buffer
	 * still shows in the module-level comparison. */
	for (int32_t b = 0; b < r.n_buffers; b++) {
		if (!(flags & AGREE_ALL_BUFFERS) && oracle_buffers(o)->buffers[b].n_values < 2 &&
		    !r.buffer[b].some)
			continue;
		st->buffers++;
		check_buffer(&c, an, o, &r, b, "buffer", st);
	}
	for (int32_t a = 0; a < m->n_aliases; a++) {
		const struct io_alias *al = &m->aliases[a];
		int32_t ob = oracle_param_buffer(o, al->param, &al->param_index);
		if (ob < 0)
			continue;
		st->donations++;
		char what[64];
		snprintf(what, sizeof(what), "donation of parameter %d", al->param);
		check_buffer(&c, an, o, &r, ob, what, st);
	}
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *comp = m->comps[k];
		if (comp->context & CALL_EMBEDDED)
			continue;
		for (int32_t i = 0; i < comp->n_instrs; i++)
			if (comp->instrs[i]->opcode == OP_COPY)
				check_copy(&c, an, m, comp->instrs[i], &lim, st);
	}
	if (an->cross_check_failed) {
		fail_head(&c, "the graph decider and the SMT decider disagreed (cross_check)");
		fail_module(&c);
	}
out:
	analysis_free(an);
	oracle_module_result_free(&r);
	oracle_free(o);
	hlo_module_free(m);
	if (c.fails)
		st->disagreed++;
	else
		st->agreed++;
	return c.fails;
}
