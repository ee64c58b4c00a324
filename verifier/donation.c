/* donation.c - verdicts for input_output_alias entries and buffer_donor
 * leaves (donation.h). Safety is the hazard decider's (hazard.h): the same
 * model and the same Z3 path as for copies; this file only picks the values,
 * names the verdicts and writes the evidence. */
#include "donation.h"
#include "lines.h"
#include "repair.h"
#include "analysis.h"
#include "donormatch.h"
#include "hazard.h"
#include "hzview.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES_SHOWN 12

const char *donation_kind_name(enum donation_kind k)
{
	switch (k) {
	case DONATION_MAY_ALIAS: return "may-alias";
	case DONATION_MUST_ALIAS: return "must-alias";
	case DONATION_BUFFER_DONOR: return "buffer-donor";
	}
	return "?";
}

/* Evidence text: lines appended with ev(), then moved into the arena. */
struct text {
	struct sbuf sb;
};

static void text_open(struct text *t)
{
	memset(t, 0, sizeof(*t));
}

static void ev(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct text *t, const char *fmt, ...)
{
	if (t->sb.n > 0)
		sb_printf(&t->sb, "\n");
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&t->sb, fmt, ap);
	va_end(ap);
}

/* Append a multi-line text as lines (skipping empty ones). */
static void ev_lines(struct text *t, const char *s)
{
	size_t n;
	for (const char *p = s, *l; (l = line_next(&p, &n));)
		if (n)
			ev(t, "%.*s", (int)n, l);
}

static char *text_close(struct text *t, struct arena *a)
{
	return sb_finish(&t->sb, a);
}

static void line_to_text(void *p, const char *s)
{
	ev(p, "%s", s);
}

static struct shape_index *index_dup(struct arena *a, const struct shape_index *ix)
{
	struct shape_index *c = arena_alloc(a, sizeof(*c));
	c->n = ix->n;
	c->idx = arena_array(a, (size_t)ix->n + 1, sizeof(int32_t));
	if (ix->n)
		memcpy(c->idx, ix->idx, (size_t)ix->n * sizeof(int32_t));
	return c;
}

static const struct shape *param_leaf_shape(const struct hlo_module *m, int32_t p,
					    const struct shape_index *ix)
{
	const struct hlo_computation *e = m->entry;
	const struct shape *ps = m->has_entry_layout && m->n_entry_layout_params == e->n_params
					 ? m->entry_layout_params[p] : e->params[p]->shape;
	return shape_subshape(ps, ix);
}

static const char *iname(const struct hlo_instruction *i)
{
	return i ? i->name : "?";
}

/* ---- the parts that need the analysis ---- */

/* The parameter value at (p, ix), or -1. */
static int32_t param_value(const struct analysis *an, int32_t p, const struct shape_index *ix)
{
	const struct hlo_instruction *pi = an->m->entry->params[p];
	int32_t sub = dataflow_sub(an->df, pi, ix->idx, ix->n);
	return sub < 0 ? -1 : dataflow_value_defined_at(an->df, pi, sub);
}

/* D4: every reader of the parameter value is a copy of it that keeps the
 * layout and memory space (a relayout copy would be needed with or without
 * the donation). Returns the first copy, and the bytes the copies take. */
static const struct hlo_instruction *only_copied(const struct analysis *an, int32_t pv,
						 uint64_t *bytes)
{
	const struct hlo_value *v = &an->df->values[pv];
	const struct hlo_instruction *first = NULL;
	*bytes = 0;
	if (v->n_uses == 0)
		return NULL;
	for (int32_t u = 0; u < v->n_uses; u++) {
		const struct value_use *use = &v->uses[u];
		const struct hlo_instruction *c = use->instr;
		if (c->opcode != OP_COPY)
			return NULL;
		const struct shape *from = dataflow_subshape(an->df, c->operands[use->operand], use->sub);
		const struct shape *to = dataflow_subshape(an->df, c, use->sub);
		if (!from || !to || !shape_equal(from, to))
			return NULL;
		int seen = 0;
		for (int32_t k = 0; k < u; k++)
			seen |= v->uses[k].instr == c;
		if (!seen)
			*bytes += to->bytes;
		if (!first)
			first = c;
	}
	return first;
}

/* The hazard to show: a read-after-write on the parameter value preferred,
 * in the printed schedule (scheduled) or in every schedule, else any read
 * some schedule has; static hazards have no reader and are left to the
 * decider's evidence. Also sets late_read (hlo-semantics §7.6 D5). */
static void pick_witness(struct analysis *an, int32_t buffer, int32_t pv, int scheduled,
			 struct donation_report *r)
{
	struct hazard_report *hr = NULL;
	int32_t n = hazards_in_buffer(an, buffer, &hr);
	int best = -1, best_score = -1;
	for (int32_t i = 0; i < n; i++) {
		const struct hazard_report *h = &hr[i];
		if (!h->use || !(h->in_some || (scheduled && h->in_given == 1)))
			continue;
		int late = h->v == pv && (h->kind == HAZARD_OVERWRITE ||
					  h->kind == HAZARD_SAME_INSTRUCTION);
		int here = scheduled ? h->in_given == 1 : h->in_every;
		if (late)
			r->late_read = r->late_read == 1 || here ? 1 : 2;
		int score = late * 4 + here * 2 + (h->kind == HAZARD_OVERWRITE);
		if (score > best_score) {
			best_score = score;
			best = i;
		}
	}
	if (best >= 0) {
		r->def = hr[best].def_v;
		r->writer = hr[best].def_w;
		r->reader = hr[best].use;
		r->witness_kind = hr[best].kind;
	}
}

/* Name the verdicts and write the evidence shared by aliases and matched donors. */
static void explain_verdict(struct text *t, const struct hlo_module *m,
			    const struct donation_report *r, const struct buffer_verdict *bv)
{
	char pd[256];
	describe_param(pd, sizeof(pd), m, r->param, &r->param_index);
	if (m->is_scheduled) {
		if (r->given == VERDICT_UNSAFE)
			ev(t, "given: unsafe: in the printed schedule %s is read after its donated "
			   "buffer was overwritten; the compiled program reads corrupted data", pd);
		else if (r->given == VERDICT_SAFE)
			ev(t, "given: safe: the printed schedule never reads a value of the donated "
			   "buffer after another was written into it");
	}
	switch (r->any) {
	case VERDICT_SAFE:
		ev(t, "any: safe: no schedule reads a value of the donated buffer after another "
		   "was written into it");
		break;
	case VERDICT_UNSAFE:
		ev(t, "any: unsafe: every schedule overwrites the donated buffer while a value in "
		   "it is still to be read%s", m->is_scheduled ? ""
		   : r->late_read ? "; XLA's copy insertion will copy the parameter (honored, no memory saved)"
		   : "; XLA's copy insertion will add a copy to keep these values apart");
		break;
	case VERDICT_SCHEDULE_DEPENDENT:
		ev(t, "any: schedule-dependent: some schedules overwrite the donated buffer too "
		   "early; the ordering %s (%s) avoids it", r->edges ? r->edges : "?",
		   r->edges && strchr(r->edges, ',') ? "control edges, together" : "a control edge");
		break;
	case VERDICT_UNKNOWN:
		ev(t, "any: unknown: %s", r->reason ? r->reason : "the decider did not settle it");
		break;
	default:
		break;
	}
	if (r->writer && r->reader) {
		if (r->witness_kind == HAZARD_SAME_TIME)
			ev(t, "witness: %s and %s define values into the donated buffer at once, and "
			   "%s reads the one of %s later", iname(r->def), iname(r->writer),
			   iname(r->reader), iname(r->def));
		else if (r->witness_kind == HAZARD_SAME_INSTRUCTION)
			ev(t, "witness: %s reads the value defined at %s and writes its own output "
			   "into the same buffer, which XLA does not allow for that operand",
			   iname(r->reader), iname(r->def));
		else
			ev(t, "witness: %s writes the donated buffer after %s defined the value that "
			   "%s reads", iname(r->writer), iname(r->def), iname(r->reader));
	}
	if (bv && bv->evidence && *bv->evidence)
		ev_lines(t, bv->evidence);
}

static void explain_extras(struct text *t, const struct hlo_module *m,
			   const struct donation_report *r)
{
	if (r->kind == DONATION_MUST_ALIAS)
		ev(t, "must-alias: callers must donate this argument at run time, or execution fails");
	if (r->late_read && r->reader && r->writer)
		ev(t, "the parameter is read by %s after %s wrote into its buffer (%s)%s",
		   iname(r->reader), iname(r->writer),
		   m->is_scheduled ? "in the printed schedule"
		   : r->late_read == 1 ? "in every schedule" : "in some schedules",
		   m->is_scheduled ? "" : ": XLA must copy the parameter first");
	if (r->copied)
		ev(t, "honored only through a copy: %s = copy of the parameter is its only reader; "
		   "the output reuses the donated buffer but the copy takes %llu bytes: no memory saved",
		   iname(r->copy), (unsigned long long)r->copy_bytes);
}

static void decide(struct analysis *an, int32_t buffer, struct donation_report *r,
		   struct buffer_verdict *bv)
{
	memset(bv, 0, sizeof(*bv));
	int rc = hazards_decide_buffer(an, buffer, bv);
	if (rc < 0) {
		r->given = an->m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		r->any = VERDICT_UNKNOWN;
		r->reason = "internal error in the hazard decider";
		return;
	}
	repair_check_buffer(an, buffer, bv); /* docs/verdicts.md, Repairs */
	r->given = an->m->is_scheduled ? bv->given : VERDICT_NONE;
	r->any = bv->any;
	r->edge_from = bv->edge_from;
	r->edge_to = bv->edge_to;
	if (bv->n_edges > 0) {
		struct sbuf e = {0};
		for (int32_t i = 0; i < bv->n_edges; i++)
			sb_printf(&e, "%s%s -> %s", i ? ", " : "", bv->edges_from[i]->name, bv->edges_to[i]->name);
		r->edges = sb_finish(&e, &an->m->arena);
	}
	if (bv->any == VERDICT_UNKNOWN || bv->given == VERDICT_UNKNOWN)
		r->reason = bv->unknown_reason;
}

static void fill_common(struct hlo_module *m, struct donation_report *r, int32_t p,
			const struct shape_index *ix)
{
	r->param = p;
	r->param_index = *index_dup(&m->arena, ix);
	r->arg_path = param_arg_path(m, p);
	r->param_instr = m->entry->params[p];
	const struct shape *s = param_leaf_shape(m, p, ix);
	r->bytes = s ? s->bytes : 0;
	r->donor_outcome = -1;
	r->witness_kind = -1;
}

static void alias_header(struct text *t, const struct hlo_module *m, const struct io_alias *a,
			 const struct donation_report *r)
{
	char pd[256], oi[128], ss[160] = "?";
	describe_param(pd, sizeof(pd), m, a->param, &a->param_index);
	shape_index_to_string(&a->output, oi, sizeof(oi));
	const struct shape *s = param_leaf_shape(m, a->param, &a->param_index);
	if (s)
		shape_text(s, ss, sizeof(ss));
	ev(t, "input_output_alias: output %s is written into %s %s (%llu bytes), %s",
	   oi, pd, ss, (unsigned long long)r->bytes, a->kind == ALIAS_MUST ? "must-alias" : "may-alias");
}

static void analyse_alias(struct analysis *an, const struct io_alias *a, struct donation_report *r)
{
	struct hlo_module *m = an->m;
	fill_common(m, r, a->param, &a->param_index);
	r->kind = a->kind == ALIAS_MUST ? DONATION_MUST_ALIAS : DONATION_MAY_ALIAS;
	r->output_index = index_dup(&m->arena, &a->output);
	r->pos = a->pos;
	struct text t;
	text_open(&t);
	alias_header(&t, m, a, r);
	struct buffer_verdict bv = {0};
	int32_t pv = param_value(an, a->param, &a->param_index);
	if (pv < 0) {
		r->given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		r->any = VERDICT_UNKNOWN;
		r->reason = "the parameter leaf has no dataflow value";
	} else {
		int32_t b = an->bufs->buffer_of[pv];
		decide(an, b, r, &bv);
		if (r->any != VERDICT_SAFE || r->given == VERDICT_UNSAFE)
			pick_witness(an, b, pv, m->is_scheduled, r);
		uint64_t cb = 0;
		const struct hlo_instruction *c = only_copied(an, pv, &cb);
		if (c) {
			r->copied = 1;
			r->copy = c;
			r->copy_bytes = cb;
		}
	}
	explain_verdict(&t, m, r, pv >= 0 ? &bv : NULL);
	explain_extras(&t, m, r);
	r->evidence = text_close(&t, &m->arena);
}

static void donor_report(struct hlo_module *m, struct analysis *an, const char *why,
			 const struct donor_matching *dm, int32_t i, struct donation_report *r)
{
	const struct donor_leaf *dl = &dm->donors[i];
	fill_common(m, r, dl->param, &dl->index);
	r->kind = DONATION_BUFFER_DONOR;
	r->pos = dl->donor->pos;
	r->donor_outcome = dl->outcome;
	struct text t;
	text_open(&t);
	char pd[256], ss[160], jax[400];
	describe_param(pd, sizeof(pd), m, dl->param, &dl->index);
	shape_text(dl->shape, ss, sizeof(ss));
	if (dl->outcome != DONOR_MATCHED) {
		char reason[320];
		donor_reason(dm, i, reason, sizeof(reason));
		r->reason = arena_strdup(&m->arena, reason);
		r->given = m->is_scheduled ? VERDICT_NOT_HONORED : VERDICT_NONE;
		r->any = VERDICT_NOT_HONORED;
		ev(&t, "buffer_donor: %s %s (%llu bytes) will not be reused by any output: %s", pd, ss,
		   (unsigned long long)r->bytes, reason);
		if (dl->outcome == DONOR_NO_OUTPUT_SIZE || dl->outcome == DONOR_MEMORY_SPACE ||
		    dl->outcome == DONOR_ALL_TAKEN) {
			ev(&t, "outputs considered:");
			donor_candidates(m, dm, i, MAX_CANDIDATES_SHOWN, line_to_text, &t);
		}
		donor_jax_note(m, dm, i, jax, sizeof(jax));
		ev(&t, "%s", jax);
		r->evidence = text_close(&t, &m->arena);
		return;
	}
	const struct output_leaf *ol = &dm->outputs[dl->output];
	r->output_index = index_dup(&m->arena, &ol->index);
	char oi[128];
	shape_index_to_string(&ol->index, oi, sizeof(oi));
	ev(&t, "buffer_donor: %s %s (%llu bytes): XLA (§7.3, byte size and memory space, largest "
	   "first) predicts may-alias output %s", pd, ss, (unsigned long long)r->bytes, oi);
	donor_jax_note(m, dm, i, jax, sizeof(jax));
	ev(&t, "%s", jax);
	struct buffer_verdict bv = {0};
	int32_t pv = an ? param_value(an, dl->param, &dl->index) : -1;
	if (!an || pv < 0) {
		r->given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		r->any = VERDICT_UNKNOWN;
		r->reason = an ? "the parameter leaf has no dataflow value" : why;
		explain_verdict(&t, m, r, NULL);
	} else {
		/* `an` was run with the predicted aliases in place: the parameter
		 * and the output share a buffer as they will after the pass */
		int32_t b = an->bufs->buffer_of[pv];
		decide(an, b, r, &bv);
		if (r->any != VERDICT_SAFE || r->given == VERDICT_UNSAFE)
			pick_witness(an, b, pv, m->is_scheduled, r);
		uint64_t cb = 0;
		const struct hlo_instruction *c = only_copied(an, pv, &cb);
		if (c) {
			r->copied = 1;
			r->copy = c;
			r->copy_bytes = cb;
		}
		explain_verdict(&t, m, r, &bv);
		explain_extras(&t, m, r);
	}
	r->evidence = text_close(&t, &m->arena);
}

/* The analysis of the module with the donors' predicted aliases added
 * (XLA's optimize_input_output_buffer_alias runs right before copy
 * insertion). The header's alias list is swapped for one with the predicted
 * entries (arena memory) and the caller restores it once the donors are
 * decided: the rest of the IR is untouched. Returns `an` itself when no
 * donor is matched, NULL when the run fails. */
static struct analysis *analyse_with_predicted(struct analysis *an,
					       const struct donor_matching *dm)
{
	struct hlo_module *m = an->m;
	int32_t extra = 0;
	for (int32_t i = 0; i < dm->n_donors; i++)
		extra += dm->donors[i].outcome == DONOR_MATCHED;
	if (!extra)
		return an;
	struct io_alias *all = arena_array(&m->arena, (size_t)(m->n_aliases + extra) + 1,
					   sizeof(*all));
	if (m->n_aliases)
		memcpy(all, m->aliases, (size_t)m->n_aliases * sizeof(*all));
	int32_t n = m->n_aliases;
	for (int32_t i = 0; i < dm->n_donors; i++) {
		const struct donor_leaf *dl = &dm->donors[i];
		if (dl->outcome != DONOR_MATCHED)
			continue;
		all[n].output = dm->outputs[dl->output].index;
		all[n].param = dl->param;
		all[n].param_index = dl->index;
		all[n].kind = ALIAS_MAY;
		all[n].pos = dl->donor->pos;
		n++;
	}
	m->aliases = all;
	m->n_aliases = n;
	return analysis_run(m, &an->opt, an->d);
}

static int32_t collect(struct hlo_module *m, struct analysis *an, const char *why,
		       struct donation_report **out)
{
	*out = NULL;
	if (!m->entry || !m->entry->root)
		return 0;
	struct donor_matching dm;
	if (donor_match(m, &m->arena, &dm) < 0)
		return 0;
	int32_t n = m->n_aliases + dm.n_donors;
	struct donation_report *r = arena_array(&m->arena, (size_t)n + 1, sizeof(*r));
	int32_t k = 0;
	for (int32_t i = 0; i < m->n_aliases; i++, k++) {
		const struct io_alias *a = &m->aliases[i];
		if (an) {
			analyse_alias(an, a, &r[k]);
			continue;
		}
		fill_common(m, &r[k], a->param, &a->param_index);
		r[k].kind = a->kind == ALIAS_MUST ? DONATION_MUST_ALIAS : DONATION_MAY_ALIAS;
		r[k].output_index = index_dup(&m->arena, &a->output);
		r[k].pos = a->pos;
		r[k].given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		r[k].any = VERDICT_UNKNOWN;
		r[k].reason = why;
		struct text t;
		text_open(&t);
		alias_header(&t, m, a, &r[k]);
		explain_verdict(&t, m, &r[k], NULL);
		explain_extras(&t, m, &r[k]);
		r[k].evidence = text_close(&t, &m->arena);
	}
	/* Donors the pass will match are decided on the module as the pass
	 * leaves it: the predicted may-alias entries added to the header and
	 * the analysis run again, so buffers and read-only flags are XLA's. */
	struct io_alias *saved = m->aliases;
	int32_t saved_n = m->n_aliases;
	struct analysis *predicted = an ? analyse_with_predicted(an, &dm) : NULL;
	const char *pwhy = an && !predicted ? "the module with the predicted aliases could not be analysed" : why;
	/* donors in registration order, each distinct leaf once */
	for (int32_t e = 0; e < m->n_donors; e++) {
		int32_t i = dm.leaf_of_entry[e];
		if (i < 0 || dm.donors[i].donor != &m->donors[e])
			continue;
		donor_report(m, predicted, pwhy, &dm, i, &r[k++]);
	}
	if (predicted != an)
		analysis_free(predicted);
	m->aliases = saved;
	m->n_aliases = saved_n;
	*out = r;
	return k;
}

int32_t donations_analyse(struct analysis *an, struct donation_report **out)
{
	return collect(an->m, an, NULL, out);
}

int32_t donations_unanalysed(struct hlo_module *m, const char *why, struct donation_report **out)
{
	return collect(m, NULL, why ? why : "the module could not be analysed", out);
}

enum donation_reading donation_reading(const struct hlo_module *m, const struct donation_report *r)
{
	if (r->any == VERDICT_NOT_HONORED)
		return READING_NOT_HONORED;
	if (m->is_scheduled && r->given == VERDICT_UNSAFE)
		return READING_UNSAFE;
	if (r->copied)
		return READING_COPIED;
	if (!m->is_scheduled && (r->any == VERDICT_UNSAFE || r->any == VERDICT_SCHEDULE_DEPENDENT))
		return READING_COPY_PREDICTED;
	if (r->any == VERDICT_UNKNOWN || r->given == VERDICT_UNKNOWN)
		return READING_UNKNOWN;
	return READING_HONORED;
}

const char *donation_reading_name(enum donation_reading x)
{
	static const char *const names[] = {"honored", "not-honored", "unsafe", "copied",
					    "copy-predicted", "unknown"};
	return (unsigned)x < sizeof(names) / sizeof(*names) ? names[x] : "unknown";
}

const char *donation_reading_rule(enum donation_reading x)
{
	switch (x) {
	case READING_NOT_HONORED: return "HP201";
	case READING_UNSAFE: return "HP202";
	case READING_COPIED:
	case READING_COPY_PREDICTED: return "HP203";
	default: return NULL;
	}
}

int donation_copy_predicted(const struct hlo_module *m, const struct donation_report *r)
{
	return donation_reading(m, r) == READING_COPY_PREDICTED;
}

void donations_count(const struct donation_report *r, int32_t n, int32_t *counts)
{
	for (int32_t i = 0; i < n; i++)
		if ((unsigned)r[i].any <= VERDICT_NOT_HONORED)
			counts[r[i].any]++;
}

/* ---- detached copies for the reporters ---- */

static char *dup_or_null(const char *s)
{
	if (!s)
		return NULL;
	char *c = xstrdup(s);
	return c;
}

static char *index_text(const struct shape_index *ix)
{
	char buf[256];
	shape_index_to_string(ix, buf, sizeof(buf));
	return dup_or_null(buf);
}

struct donation_summaries *donation_summaries_make(const struct hlo_module *m,
						   const struct donation_report *r, int32_t n,
						   const struct source_filter *frames)
{
	struct donation_summaries *s = xcalloc(1, sizeof(*s));
	s->items = xcalloc((size_t)n + 1, sizeof(*s->items));
	arena_init(&s->arena);
	s->n = n;
	for (int32_t i = 0; i < n; i++) {
		struct donation_summary *d = &s->items[i];
		d->param = r[i].param;
		d->param_index = index_text(&r[i].param_index);
		d->output_index = r[i].output_index ? index_text(r[i].output_index) : NULL;
		d->kind = r[i].kind;
		d->given = r[i].given;
		d->any = r[i].any;
		d->evidence = dup_or_null(r[i].evidence);
		d->arg_path = dup_or_null(r[i].arg_path);
		d->bytes = r[i].bytes;
		d->copied = r[i].copied;
		d->copy_bytes = r[i].copy_bytes;
		d->reading = donation_reading(m, &r[i]);
		char nm[256];
		param_short_name(nm, sizeof(nm), m, r[i].param, &r[i].param_index);
		d->name = dup_or_null(nm);
		d->reason = dup_or_null(r[i].reason);
		d->source = r[i].param_instr ? source_of(r[i].param_instr, frames, &s->arena) : NULL;
		if (r[i].any == VERDICT_SCHEDULE_DEPENDENT && r[i].edges) {
			size_t len = strlen(r[i].edges) + 1;
			d->edge = xmalloc(len, 1);
			snprintf(d->edge, len, "%s", r[i].edges);
		}
	}
	return s;
}

void donation_summaries_free(struct donation_summaries *s)
{
	if (!s)
		return;
	for (int32_t i = 0; i < s->n; i++) {
		struct donation_summary *d = &s->items[i];
		free(d->param_index);
		free(d->output_index);
		free(d->evidence);
		free(d->arg_path);
		free(d->name);
		free(d->edge);
		free(d->reason);
	}
	free(s->items);
	arena_free(&s->arena);
	free(s);
}
