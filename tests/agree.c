/* agree.c - deciders against the oracle on one module (see agree.h). */
#include "agree.h"
#include "oracle.h"
#include "copies.h"
#include "hazard.h"
#include "donation.h"
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
	unsigned flags;
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

/* A decider `unknown`: a failure, unless AGREE_UNKNOWN_OK and it gives a
 * reason (an unsupported construct, reported as such). */
static void unknown_answer(struct ctx *c, struct agree_stats *st, const char *what,
			   const char *reason)
{
	st->unknown++;
	if ((c->flags & AGREE_UNKNOWN_OK) && reason && *reason) {
		if (c->err)
			fprintf(c->err, "%s: %s: decider says unknown: %s\n", c->label, what, reason);
		return;
	}
	fail_head(c, "%s: decider says unknown: %s", what, reason ? reason : "(no reason given)");
	fail_module(c);
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
#define MAX_REPAIR 32
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

/* The decider's site for (copy, output), or NULL (copysite.h). */
static const struct copy_site *decider_site(struct analysis *an, const struct hlo_instruction *copy,
					    int32_t output)
{
	struct copy_site *sites;
	int32_t n = copy_sites(an->m, &an->m->arena, &sites);
	for (int32_t i = 0; i < n; i++)
		if (sites[i].at == copy && sites[i].output == output)
			return &sites[i];
	return NULL;
}

/* The removal leaves a root with users: the copy (or copy-done) is its
 * computation's root and its operand has other users or control successors
 * there (agree_stats.root_users_unverified). */
static int root_with_users(const struct hlo_instruction *copy, const struct copy_site *site)
{
	const struct hlo_instruction *last = site->done ? site->done : copy;
	if (last != last->parent->root || site->operand < 0 || site->operand >= copy->n_operands)
		return 0;
	const struct hlo_instruction *s = copy->operands[site->operand];
	for (int32_t i = 0; i < s->n_users; i++)
		if (s->users[i] != copy && s->users[i]->parent == s->parent)
			return 1;
	return s->ext->n_ctrl_succs > 0;
}

static void check_copy(struct ctx *c, struct analysis *an, struct hlo_module *m,
		       const struct hlo_instruction *copy, int32_t output, const struct oracle_limits *lim,
		       int pre, struct agree_stats *st)
{
	double t0 = now();
	struct copy_report rep;
	memset(&rep, 0, sizeof(rep));
	/* a copy, fused copy or copy-start / copy-done pair as the oracle reads
	 * it; the decider must list the same one */
	const struct copy_site *site = decider_site(an, copy, output);
	if (!site) {
		fail_head(c, "copy %s (output %d): the oracle reads a copy, the decider lists none",
			  copy->name, (int)output);
		fail_module(c);
		return;
	}
	int rc = copy_analyse_site(an, site, &rep);
	double t1 = now();
	st->decider_copies_s += t1 - t0;
	struct oracle_copy_result cr;
	oracle_copy_output(m, copy, output, lim, &cr);
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
	st->copies_pre += pre;
	if (rc < 0) {
		fail_head(c, "copy %s: copy_analyse_one failed", copy->name);
		fail_module(c);
		oracle_copy_result_free(&cr);
		return;
	}
	if (rep.any == VERDICT_UNKNOWN && rep.given == cr.given && cr.any == VERDICT_SCHEDULE_DEPENDENT &&
	    rep.unknown_reason && strstr(rep.unknown_reason, "no ordering by control edges was verified") &&
	    root_with_users(copy, site)) {
		st->root_users_unverified++;
	} else if (rep.any == VERDICT_UNKNOWN || rep.given == VERDICT_UNKNOWN) {
		char what[160];
		snprintf(what, sizeof(what), "copy %s", copy->name);
		unknown_answer(c, st, what, rep.unknown_reason);
	} else if (rep.any != cr.any || rep.given != cr.given) {
		fail_head(c, "copy %s@%s: decider given=%s any=%s, oracle given=%s any=%s", copy->name,
			  copy->parent->name, vn(rep.given), vn(rep.any), vn(cr.given), vn(cr.any));
		fail_text(c, "decider evidence", rep.evidence);
		fail_text(c, "oracle witness (a hazardous schedule)", cr.witness);
		fail_text(c, "oracle clean schedule", cr.clean);
		fail_text(c, "rewritten module", cr.rewritten);
		fail_module(c);
	} else if (rep.any == VERDICT_SCHEDULE_DEPENDENT) {
		/* the whole repair: every edge of edges_from/edges_to (or the one) */
		st->edges_checked++;
		const char *fp[MAX_REPAIR], *tp[MAX_REPAIR];
		int ne = 0;
		if (rep.n_edges > 0 && rep.n_edges <= MAX_REPAIR && rep.edges_from && rep.edges_to)
			for (; ne < rep.n_edges; ne++)
				fp[ne] = rep.edges_from[ne]->name, tp[ne] = rep.edges_to[ne]->name;
		else if (rep.edge_from && rep.edge_to)
			fp[ne] = rep.edge_from->name, tp[ne++] = rep.edge_to->name;
		t1 = now();
		int ok = ne ? oracle_copy_output_edges_ok(m, copy, output, lim, fp, tp, ne) : 0;
		st->oracle_s += now() - t1;
		if (ok == 1 && ne > 1)
			st->multi_edge_repairs++;
		if (ok != 1) {
			fail_head(c, "copy %s: repair (%d edge(s), first %s -> %s) leaves a hazard (or a cycle)",
				  copy->name, ne, ne ? fp[0] : "(none)", ne ? tp[0] : "(none)");
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
		char w2[160];
		snprintf(w2, sizeof(w2), "%s (buffer %d)", what, ob);
		unknown_answer(c, st, w2, bv.unknown_reason);
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
		const struct hlo_instruction *fi[MAX_REPAIR], *ti[MAX_REPAIR];
		int ne = 0;
		if (bv.n_edges > 0 && bv.n_edges <= MAX_REPAIR && bv.edges_from && bv.edges_to)
			for (; ne < bv.n_edges; ne++)
				fi[ne] = bv.edges_from[ne], ti[ne] = bv.edges_to[ne];
		else if (bv.edge_from && bv.edge_to)
			fi[ne] = bv.edge_from, ti[ne++] = bv.edge_to;
		t0 = now();
		int ok = ne ? oracle_buffer_edges_ok(o, ob, fi, ti, ne) : 0;
		st->oracle_s += now() - t0;
		if (ok == 1 && ne > 1)
			st->multi_edge_repairs++;
		if (ok != 1) {
			fail_head(c, "%s (buffer %d): repair (%d edge(s), first %s -> %s) leaves a hazard (or a cycle)",
				  what, ob, ne, ne ? fi[0]->name : "(none)", ne ? ti[0]->name : "(none)");
			fail_text(c, "decider evidence", bv.evidence);
			fail_module(c);
		}
	}
}

static int same_index(const struct shape_index *a, const struct shape_index *b)
{
	return a->n == b->n && (a->n == 0 || !memcmp(a->idx, b->idx, (size_t)a->n * sizeof(int32_t)));
}

/* A repair's edges (the one the API carries, or all that the evidence
 * lists) as names. Returns the count. */
static int repair_edges(const struct hlo_instruction *ef, const struct hlo_instruction *et,
			const char *evidence, char f[][128], char t[][128])
{
	int n = parse_repair(evidence, f, t, MAX_REPAIR);
	if (n <= 1 && ef && et) {
		snprintf(f[0], 128, "%s", ef->name);
		snprintf(t[0], 128, "%s", et->name);
		n = 1;
	}
	return n;
}

/* donations_analyse (verifier/donation.h) against the oracle: an alias by
 * its buffer in the module as given; a donor with a predicted output by the
 * module in which that donor is an alias. */
static void check_donations(struct ctx *c, struct analysis *an, struct hlo_module *m,
			    struct oracle *o, const struct oracle_module_result *r,
			    const struct oracle_limits *lim, struct agree_stats *st)
{
	struct donation_report *dr = NULL;
	double t0 = now();
	int32_t n = donations_analyse(an, &dr);
	st->decider_s += now() - t0;
	if (n < 0) {
		fail_head(c, "donations_analyse failed");
		fail_module(c);
		return;
	}
	for (int32_t k = 0; k < n; k++) {
		const struct donation_report *d = &dr[k];
		char what[96];
		snprintf(what, sizeof(what), "%s of parameter %d", donation_kind_name(d->kind), d->param);
		if (d->any == VERDICT_UNKNOWN || d->given == VERDICT_UNKNOWN) {
			unknown_answer(c, st, what, d->reason);
			continue;
		}
		enum verdict og = VERDICT_NONE, oa = VERDICT_UNKNOWN;
		char *witness = NULL, *clean = NULL, *rewritten = NULL;
		if (d->kind != DONATION_BUFFER_DONOR) {
			int32_t a = -1;
			for (int32_t q = 0; q < m->n_aliases && a < 0; q++)
				if (m->aliases[q].param == d->param && same_index(&m->aliases[q].param_index, &d->param_index))
					a = q;
			if (a < 0) {
				fail_head(c, "%s: no such input_output_alias entry", what);
				continue;
			}
			oracle_donation(o, r, a, &og, &oa);
			st->donations++;
		} else if (d->any == VERDICT_NOT_HONORED) {
			st->donors_not_honored++; /* a prediction, not a hazard question */
			continue;
		} else {
			if (!d->output_index) {
				fail_head(c, "%s: honored without an output index", what);
				continue;
			}
			struct oracle_copy_result res;
			t0 = now();
			oracle_donor(m, d->param, &d->param_index, d->output_index, lim, 0, NULL, NULL, &res);
			st->oracle_s += now() - t0;
			if (res.status != ORACLE_OK) {
				st->skipped++;
				if (c->err)
					fprintf(c->err, "%s: %s: oracle has no answer: %s\n", c->label, what, res.why);
				oracle_copy_result_free(&res);
				continue;
			}
			og = res.given;
			oa = res.any;
			witness = res.witness;
			clean = res.clean;
			rewritten = res.rewritten;
			st->donors++;
		}
		if (d->given != og || d->any != oa) {
			fail_head(c, "%s: decider given=%s any=%s, oracle given=%s any=%s", what, vn(d->given),
				  vn(d->any), vn(og), vn(oa));
			fail_text(c, "decider evidence", d->evidence);
			fail_text(c, "oracle witness", witness);
			fail_text(c, "oracle clean schedule", clean);
			fail_text(c, "module with the donor as an alias", rewritten);
			fail_module(c);
		} else if (d->any == VERDICT_SCHEDULE_DEPENDENT) {
			char f[MAX_REPAIR][128], t[MAX_REPAIR][128];
			const char *fp[MAX_REPAIR], *tp[MAX_REPAIR];
			int ne = repair_edges(d->edge_from, d->edge_to, d->evidence, f, t);
			for (int q = 0; q < ne; q++)
				fp[q] = f[q], tp[q] = t[q];
			int ok = 0;
			st->edges_checked++;
			t0 = now();
			if (ne > 0 && d->kind != DONATION_BUFFER_DONOR) {
				const struct hlo_instruction *fi[MAX_REPAIR], *ti[MAX_REPAIR];
				int found = 1;
				for (int q = 0; q < ne; q++) {
					fi[q] = ti[q] = NULL;
					for (int32_t z = 0; (!fi[q] || !ti[q]) && z < m->n_comps; z++) {
						fi[q] = hlo_find_instruction(m->comps[z], f[q]);
						ti[q] = hlo_find_instruction(m->comps[z], t[q]);
					}
					found &= fi[q] && ti[q];
				}
				int32_t b = oracle_param_buffer(o, d->param, &d->param_index);
				ok = found && b >= 0 ? oracle_buffer_edges_ok(o, b, fi, ti, ne) : 0;
			} else if (ne > 0) {
				struct oracle_copy_result res;
				oracle_donor(m, d->param, &d->param_index, d->output_index, lim, ne, fp, tp, &res);
				ok = res.status == ORACLE_OK && res.any == VERDICT_SAFE;
				oracle_copy_result_free(&res);
			}
			st->oracle_s += now() - t0;
			if (ne > 1 && ok)
				st->multi_edge_repairs++;
			if (!ok) {
				fail_head(c, "%s: repair edge %s -> %s leaves a hazard (or a cycle)", what,
					  ne ? f[0] : "(none)", ne ? t[0] : "(none)");
				fail_text(c, "decider evidence", d->evidence);
				fail_module(c);
			}
		}
		free(witness);
		free(clean);
		free(rewritten);
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
		unknown_answer(c, st, "module hazards", "a hazard report is marked unknown");
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
	struct ctx c = {text, label, err, 0, 0, flags};
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
	opt.read_block_min_uses = 1; /* the oracle checks the kept reads on every value */
	opt.shared_mats_min_members = 1; /* and the shared member matrices */
	opt.removal_all_hazards = (flags & AGREE_OLD_RULE) != 0;
	opt.no_proof_samples = (flags & AGREE_BY_CLASS) != 0;
	opt.read_reach_min_traced = (flags & AGREE_BY_CLASS) ? 1 : 0;
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
	check_donations(&c, an, m, o, &r, &lim, st);
	int32_t n_oracle_copies = 0;
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *comp = m->comps[k];
		if (comp->context & CALL_EMBEDDED)
			continue;
		for (int32_t i = 0; i < comp->n_instrs; i++) {
			int32_t outs[64];
			int n = oracle_copy_outputs(comp->instrs[i], outs, 64);
			for (int j = 0; j < n && j < 64; j++) {
				n_oracle_copies++;
				if (comp->instrs[i]->opcode != OP_COPY)
					st->fused_async++;
				check_copy(&c, an, m, comp->instrs[i], outs[j], &lim, r.module.some, st);
			}
		}
	}
	{
		struct copy_site *sites;
		int32_t nd = copy_sites(an->m, &an->m->arena, &sites);
		if (nd != n_oracle_copies) {
			fail_head(&c, "the decider lists %d copies, the oracle reads %d", (int)nd,
				  (int)n_oracle_copies);
			fail_module(&c);
		}
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
