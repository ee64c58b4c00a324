/* gate.c - the gate's per-module summary, its comparison and dump-directory
 * pairing (gate.h). */
#include "gate.h"
#include "analysis.h"
#include "copies.h"
#include "hazard.h"
#include "donation.h"
#include "donormatch.h"
#include "lint.h"
#include "report.h"
#include "session.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- identities -------------------------------------------------------- */

/* The opcode in a copy's identity and report; for the async sugar its
 * opcode (async-start), not hlo_opcode_text()'s printed text, so that the
 * identities and reports stay what earlier versions wrote */
static const char *op_text(const struct hlo_instruction *x)
{
	return x->opcode == OP_UNKNOWN && x->ext->opcode_text ? x->ext->opcode_text
							 : opcode_name((enum opcode)x->opcode);
}

static uint64_t copy_identity(const struct hlo_instruction *c)
{
	struct fp_hash f;
	fp_init(&f);
	fp_str(&f, "hloproof/gate-copy/v1");
	const char *cn = c->parent && c->parent->name ? c->parent->name : "";
	fp_bytes(&f, cn, name_stem_len(cn));
	const char *n = c->name ? c->name : "";
	fp_bytes(&f, n, name_stem_len(n));
	const struct hlo_instruction *op = c->n_operands > 0 ? c->operands[0] : NULL;
	const char *ot = op ? op_text(op) : "";
	fp_bytes(&f, ot, strlen(ot));
	fp_shape(&f, op ? op->shape : NULL);
	fp_shape(&f, c->shape);
	return fp_final(&f);
}

/* A fused or asynchronous copy's identity: a plain copy's fields, the
 * copied operand and result shape of the site, and its kind and output
 * (plain copies keep copy_identity, which baselines and earlier reports
 * hold). */
static uint64_t site_identity(const struct copy_site *st)
{
	if (st->kind == COPY_KIND_PLAIN)
		return copy_identity(st->at);
	const struct hlo_instruction *c = st->at;
	struct fp_hash f;
	fp_init(&f);
	fp_str(&f, "hloproof/gate-copy/v1");
	const char *kn = copy_kind_name(st->kind);
	fp_bytes(&f, kn, strlen(kn));
	const char *cn = c->parent && c->parent->name ? c->parent->name : "";
	fp_bytes(&f, cn, name_stem_len(cn));
	const char *n = c->name ? c->name : "";
	fp_bytes(&f, n, name_stem_len(n));
	char out[16];
	snprintf(out, sizeof(out), "%d", (int)st->output);
	fp_bytes(&f, out, strlen(out));
	const struct hlo_instruction *op = c->operands[st->operand];
	const char *ot = op_text(op);
	fp_bytes(&f, ot, strlen(ot));
	fp_shape(&f, op->shape);
	fp_shape(&f, st->to);
	return fp_final(&f);
}

/* The parameter's argument path, copied: the gate module outlives the IR. */
static const char *arg_path_copy(const struct hlo_module *m, int32_t p, struct arena *a)
{
	const char *s = param_arg_path(m, p);
	return s ? arena_strdup(a, s) : NULL;
}

static char *index_text(struct arena *a, const struct shape_index *ix)
{
	char buf[128];
	size_t need = shape_index_to_string(ix, buf, sizeof(buf));
	if (need < sizeof(buf))
		return arena_strdup(a, buf);
	char *p = arena_alloc(a, need + 1);
	shape_index_to_string(ix, p, need + 1);
	return p;
}

/* ---- IR facts: copies -------------------------------------------------- */

/* From shapes alone: a copy that only changes the memory space, or the
 * layout, is that family (hlo-semantics.md 6.5 step 1, section 8); a copy
 * with its operand's exact shape needs the decider. */
static const char *family_from_shapes(const struct hlo_instruction *c)
{
	const struct shape *a = c->n_operands > 0 ? c->operands[0]->shape : NULL, *b = c->shape;
	if (!a || !b || shape_equal(a, b))
		return NULL;
	if (shape_is_array(a) && shape_is_array(b) && a->rank == b->rank &&
	    a->layout.memory_space != b->layout.memory_space &&
	    a->layout.element_size_bits == b->layout.element_size_bits) {
		int same = 1;
		for (int i = 0; i < a->rank && same; i++)
			same = shape_minor_to_major(a, i) == shape_minor_to_major(b, i);
		if (same)
			return "memory-space";
	}
	return "layout";
}

/* The fields of one copy site that need no decider. */
static void site_facts(const struct copy_site *st, struct gate_module *g, struct gate_copy *c)
{
	const struct hlo_instruction *x = st->at;
	c->computation = arena_strdup(&g->arena, x->parent->name ? x->parent->name : "");
	c->name = copy_site_label(st, &g->arena);
	c->kind = copy_kind_name(st->kind);
	c->done = st->done ? arena_strdup(&g->arena, st->done->name) : NULL;
	const struct hlo_instruction *op = x->operands[st->operand];
	c->operand = arena_strdup(&g->arena, op->name);
	c->operand_opcode = op_text(op);
	c->key = site_identity(st);
	c->bytes = st->to ? st->to->bytes : 0;
	c->line = x->pos.line;
	c->col = x->pos.col;
}

/* Every copy site (copysite.h): plain, fused and asynchronous copies. */
static int copies_from_ir(const struct hlo_module *m, struct gate_module *g)
{
	struct copy_site *sites;
	int32_t n = copy_sites(m, &g->arena, &sites);
	g->copies = arena_array(&g->arena, (size_t)n + 1, sizeof(*g->copies));
	if (!g->copies)
		return -1;
	for (int32_t i = 0; i < n; i++) {
		struct gate_copy *c = &g->copies[g->n_copies++];
		site_facts(&sites[i], g, c);
		c->family = sites[i].kind == COPY_KIND_PLAIN ? family_from_shapes(sites[i].at)
			    : sites[i].layout_diff == 1 ? "memory-space"
			    : sites[i].layout_diff == 2 ? "layout" : NULL;
		c->seq = i;
	}
	return 0;
}

/* ---- IR facts: donations ----------------------------------------------- */

/* The entry signature as the compiler sees it: entry_computation_layout when
 * printed (its layouts decide byte sizes), else the instructions' shapes. */
static const struct shape *param_shape(const struct hlo_module *m, int32_t p)
{
	if (p < 0 || p >= m->entry->n_params)
		return NULL;
	if (p < m->n_entry_layout_params && m->entry_layout_params[p])
		return m->entry_layout_params[p];
	return m->entry->params[p] ? m->entry->params[p]->shape : NULL;
}

static int donations_from_ir(const struct hlo_module *m, struct gate_module *g)
{
	int32_t n = m->n_aliases + m->n_donors;
	g->donations = arena_array(&g->arena, (size_t)n + 1, sizeof(*g->donations));
	if (!g->donations)
		return -1;
	for (int32_t i = 0; i < m->n_aliases; i++) {
		const struct io_alias *al = &m->aliases[i];
		struct gate_donation *d = &g->donations[g->n_donations++];
		d->param = al->param;
		d->arg_path = arg_path_copy(m, al->param, &g->arena);
		d->param_index = index_text(&g->arena, &al->param_index);
		d->output_index = index_text(&g->arena, &al->output);
		d->kind = al->kind == ALIAS_MUST ? "must-alias" : "may-alias";
		d->honored = 1; /* copy insertion always honors an alias (hlo-semantics.md 7.4) */
		const struct shape *ps = param_shape(m, al->param);
		const struct shape *leaf = ps ? shape_subshape(ps, &al->param_index) : NULL;
		d->bytes = leaf ? leaf->bytes : 0;
		d->line = al->pos.line;
		d->col = al->pos.col;
	}
	/* Donors: the prediction the donation decider makes (donormatch.h,
	 * hlo-semantics.md 7.3), IR only */
	struct donor_matching dm;
	if (donor_match(m, &g->arena, &dm) < 0)
		return 0;
	for (int32_t i = 0; i < dm.n_donors; i++) {
		const struct donor_leaf *dl = &dm.donors[i];
		struct gate_donation *d = &g->donations[g->n_donations++];
		d->param = dl->param;
		d->arg_path = arg_path_copy(m, dl->param, &g->arena);
		d->param_index = index_text(&g->arena, &dl->index);
		d->kind = "buffer-donor";
		d->bytes = dl->bytes;
		d->line = dl->donor->pos.line;
		d->col = dl->donor->pos.col;
		if (dl->outcome == DONOR_MATCHED) {
			d->honored = 1;
			d->output_index = index_text(&g->arena, &dm.outputs[dl->output].index);
		} else {
			char reason[320];
			donor_reason(&dm, i, reason, sizeof(reason));
			d->reason = arena_strdup(&g->arena, reason);
		}
	}
	return 0;
}

/* ---- the deciders ----------------------------------------------------- */

static int copies_from_decider(const struct copy_verdicts *cv, struct gate_module *g)
{
	const struct copy_report *r = cv->copies.items;
	int32_t n = cv->copies.n;
	g->copies = arena_array(&g->arena, (size_t)n + 1, sizeof(*g->copies));
	for (int32_t i = 0; i < n; i++) {
		struct gate_copy *c = &g->copies[g->n_copies++];
		site_facts(&r[i].site, g, c);
		c->family = copy_family_name(r[i].family);
		c->verdict = verdict_name(r[i].any);
		c->verdict_given = verdict_name(r[i].given);
		c->bytes = r[i].bytes;
		c->seq = i;
	}
	g->decided_copies = 1;
	return 0;
}

/* Where the header names (param, {index}): the alias entry, else the donor. */
static struct srcpos donation_pos(const struct hlo_module *m, int32_t param, const char *index)
{
	char buf[128];
	for (int32_t i = 0; i < m->n_aliases; i++) {
		shape_index_to_string(&m->aliases[i].param_index, buf, sizeof(buf));
		if (m->aliases[i].param == param && !strcmp(buf, index))
			return m->aliases[i].pos;
	}
	for (int32_t i = 0; i < m->n_donors; i++) {
		shape_index_to_string(&m->donors[i].param_index, buf, sizeof(buf));
		if (m->donors[i].param == param && !strcmp(buf, index))
			return m->donors[i].pos;
	}
	return m->pos;
}

static void donations_from_decider(const struct hlo_module *m, const struct donation_summaries *ds,
				   struct gate_module *g)
{
	g->donations = arena_array(&g->arena, (size_t)ds->n + 1, sizeof(*g->donations));
	for (int32_t i = 0; i < ds->n; i++) {
		const struct donation_summary *r = &ds->items[i];
		struct gate_donation *d = &g->donations[g->n_donations++];
		d->param = r->param;
		d->arg_path = arg_path_copy(m, r->param, &g->arena);
		d->param_index = arena_strdup(&g->arena, r->param_index);
		d->output_index = r->output_index ? arena_strdup(&g->arena, r->output_index) : NULL;
		d->kind = donation_kind_name(r->kind);
		d->honored = r->any != VERDICT_NOT_HONORED;
		d->copied = r->copied;
		d->verdict = verdict_name(r->any);
		if (r->reason)
			d->reason = arena_strdup(&g->arena, r->reason);
		d->bytes = r->bytes;
		struct srcpos pos = donation_pos(m, r->param, r->param_index);
		d->line = pos.line;
		d->col = pos.col;
	}
	g->decided_donations = 1;
}

/* ---- the summary -------------------------------------------------------- */

/* The IR facts only: the rules run without the donation decider's results
 * (the copy rules still ask for the copy verdicts). */
static int build_without_deciders(struct hlo_module *m, const struct lint_config *cfg,
				  const struct gate_build_options *opt, struct gate_module *g)
{
	int rc = 0;
	if (copies_from_ir(m, g) < 0 || (m->entry && donations_from_ir(m, g) < 0))
		rc = -1;
	struct session_options so = {0};
	so.annotations = opt->ann;
	so.no_donations = 1;
	so.stage = (enum module_stage)opt->stage;
	struct session *s = session_open(m, cfg, &so);
	if (lint_run(s, cfg, &g->findings) < 0) {
		g->lint_failed = 1;
		rc = -1;
	}
	session_close(s);
	return rc;
}

int gate_module_build(struct hlo_module *m, const struct lint_config *cfg,
		      const struct gate_build_options *opt, struct gate_module *g)
{
	struct gate_build_options none_opt = {0};
	if (!opt)
		opt = &none_opt;
	memset(g, 0, sizeof(*g));
	arena_init(&g->arena);
	g->file = arena_strdup(&g->arena, m->file ? m->file : "-");
	g->name = arena_strdup(&g->arena, m->name ? m->name : "");
	findings_init(&g->findings, m);
	g->findings.frames = &cfg->frames;
	if (opt->no_deciders)
		return build_without_deciders(m, cfg, opt, g);

	/* As `check` does (cmd_check.c): one session for the copy decider,
	 * the donation decider and the rules, so that the findings and their
	 * fingerprints are the ones `check` reports. */
	int rc = 0;
	struct session_options so = {0};
	session_options_for_rules(&so);
	so.annotations = opt->ann;
	so.stage = (enum module_stage)opt->stage;
	struct session *s = session_open(m, cfg, &so);
	const struct copy_verdicts *cv = session_copy_verdicts(s);
	/* asked now: a later getter resets the reason */
	const char *why = NULL;
	enum session_status st = cv ? SESSION_OK : session_why(s, &why);
	struct srcpos at = session_why_pos(s);
	if (lint_run(s, cfg, &g->findings) < 0) {
		g->lint_failed = 1;
		rc = -1;
	}
	const struct donation_list *dl = session_donations(s);
	struct donation_summaries *ds = dl ? donation_summaries_make(m, dl->items, dl->n, &cfg->frames) : NULL;
	if (cv)
		copies_from_decider(cv, g);
	else if (copies_from_ir(m, g) < 0)
		rc = -1;
	/* doubt is never success: a module the analysis cannot decide has its
	 * copies unknown, with the reason (session_why) */
	if (!cv && st != SESSION_OK) {
		g->unknown = arena_strdup(&g->arena, why && *why ? why : "the analysis did not run");
		g->unknown_line = at.line ? at.line : m->pos.line;
		g->unknown_col = at.line ? at.col : m->pos.col;
		for (int32_t i = 0; i < g->n_copies; i++)
			g->copies[i].verdict = "unknown";
	}
	if (ds)
		donations_from_decider(m, ds, g);
	else if (m->entry && (m->n_aliases || m->n_donors) && donations_from_ir(m, g) < 0)
		rc = -1;
	donation_summaries_free(ds);
	session_close(s);
	return rc;
}

void gate_module_free(struct gate_module *g)
{
	if (!g)
		return;
	findings_free(&g->findings);
	arena_free(&g->arena);
	memset(g, 0, sizeof(*g));
}

/* ---- comparison ----------------------------------------------------------- */

struct keyed {
	uint64_t key;
	int32_t seq;
	int side;   /* 0 base, 1 head */
	int32_t i;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->side != b->side)
		return a->side - b->side;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_copy_seq(const void *pa, const void *pb)
{
	const struct gate_copy *a = *(const struct gate_copy *const *)pa;
	const struct gate_copy *b = *(const struct gate_copy *const *)pb;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int compare_copies(const struct gate_module *B, const struct gate_module *H,
			  struct gate_diff *d)
{
	size_t n = (size_t)B->n_copies + (size_t)H->n_copies;
	struct keyed *k = malloc((n + 1) * sizeof(*k));
	d->added = malloc(((size_t)H->n_copies + 1) * sizeof(*d->added));
	d->removed = malloc(((size_t)B->n_copies + 1) * sizeof(*d->removed));
	if (!k || !d->added || !d->removed) {
		free(k);
		return -1;
	}
	size_t j = 0;
	for (int32_t i = 0; i < B->n_copies; i++)
		k[j++] = (struct keyed){B->copies[i].key, B->copies[i].seq, 0, i};
	for (int32_t i = 0; i < H->n_copies; i++)
		k[j++] = (struct keyed){H->copies[i].key, H->copies[i].seq, 1, i};
	qsort(k, n, sizeof(*k), cmp_keyed);
	/* Within one identity: BASE's occurrences then HEAD's, each in text
	 * order; the first min(nb, nh) of each side pair up. */
	for (size_t a = 0; a < n;) {
		size_t e = a, nb = 0;
		while (e < n && k[e].key == k[a].key) {
			nb += k[e].side == 0;
			e++;
		}
		size_t nh = e - a - nb, kept = nb < nh ? nb : nh;
		for (size_t x = kept; x < nb; x++) {
			const struct gate_copy *c = &B->copies[k[a + x].i];
			d->removed[d->n_removed++] = c;
			d->removed_bytes += c->bytes;
		}
		for (size_t x = kept; x < nh; x++) {
			const struct gate_copy *c = &H->copies[k[a + nb + x].i];
			d->added[d->n_added++] = c;
			d->added_bytes += c->bytes;
		}
		d->n_kept += (int32_t)kept;
		a = e;
	}
	free(k);
	qsort(d->added, (size_t)d->n_added, sizeof(*d->added), cmp_copy_seq);
	qsort(d->removed, (size_t)d->n_removed, sizeof(*d->removed), cmp_copy_seq);
	return 0;
}

static int cmp_donation_key(const struct gate_donation *a, const struct gate_donation *b)
{
	if (a->param != b->param)
		return a->param < b->param ? -1 : 1;
	return strcmp(a->param_index, b->param_index);
}

static int cmp_donation_ptr(const void *pa, const void *pb)
{
	const struct gate_donation *a = *(const struct gate_donation *const *)pa;
	const struct gate_donation *b = *(const struct gate_donation *const *)pb;
	int c = cmp_donation_key(a, b);
	if (c)
		return c;
	/* an honored entry first: it speaks for the leaf */
	if (a->honored != b->honored)
		return b->honored - a->honored;
	return (a > b) - (a < b);
}

/* The entry for a donation key in a sorted list, or NULL. */
static const struct gate_donation *find_donation(const struct gate_donation **v, int32_t n,
						 const struct gate_donation *key)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (cmp_donation_key(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !cmp_donation_key(v[lo], key) ? v[lo] : NULL;
}

static const struct gate_donation **sorted_donations(const struct gate_module *g)
{
	const struct gate_donation **v = malloc(((size_t)g->n_donations + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (int32_t i = 0; i < g->n_donations; i++)
		v[i] = &g->donations[i];
	qsort(v, (size_t)g->n_donations, sizeof(*v), cmp_donation_ptr);
	return v;
}

static int compare_donations(const struct gate_module *B, const struct gate_module *H,
			     struct gate_diff *d)
{
	const struct gate_donation **sb = sorted_donations(B), **sh = sorted_donations(H);
	size_t nb = (size_t)B->n_donations + 1, nh = (size_t)H->n_donations + 1;
	d->lost = malloc(nb * sizeof(*d->lost));
	d->lost_head = malloc(nb * sizeof(*d->lost_head));
	d->gained = malloc(nh * sizeof(*d->gained));
	d->gained_base = malloc(nh * sizeof(*d->gained_base));
	d->copied = malloc(nh * sizeof(*d->copied));
	d->copied_base = malloc(nh * sizeof(*d->copied_base));
	int rc = -1;
	if (!sb || !sh || !d->lost || !d->lost_head || !d->gained || !d->gained_base ||
	    !d->copied || !d->copied_base)
		goto out;
	/* Header order (g->donations), one verdict per leaf: the first entry
	 * of its key in the sorted list (an honored one when there is one). */
	for (int32_t i = 0; i < B->n_donations; i++) {
		const struct gate_donation *b = &B->donations[i];
		if (find_donation(sb, B->n_donations, b) != b || !b->honored)
			continue;
		const struct gate_donation *h = find_donation(sh, H->n_donations, b);
		if (h && h->honored)
			continue;
		d->lost_head[d->n_lost] = h;
		d->lost[d->n_lost++] = b;
		d->lost_bytes += b->bytes;
	}
	for (int32_t i = 0; i < H->n_donations; i++) {
		const struct gate_donation *h = &H->donations[i];
		if (find_donation(sh, H->n_donations, h) != h || !h->honored)
			continue;
		const struct gate_donation *b = find_donation(sb, B->n_donations, h);
		if (b && b->honored) {
			if (h->copied && !b->copied) {
				d->copied_base[d->n_copied] = b;
				d->copied[d->n_copied++] = h;
			}
			continue;
		}
		d->gained_base[d->n_gained] = b;
		d->gained[d->n_gained++] = h;
	}
	rc = 0;
out:
	free(sb);
	free(sh);
	return rc;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Fingerprints of every finding of fs (reported or not), sorted. */
static const char **fingerprints(const struct findings *fs, int32_t *n)
{
	const char **v = malloc(((size_t)fs->n + 1) * sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	for (int32_t i = 0; i < fs->n; i++)
		if (fs->items[i].fingerprint)
			v[(*n)++] = fs->items[i].fingerprint;
	qsort(v, (size_t)*n, sizeof(*v), cmp_str_ptr);
	return v;
}

static int has_fingerprint(const char **v, int32_t n, const char *fp)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid], fp);
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int compare_findings(const struct gate_module *B, const struct gate_module *H,
			    struct gate_diff *d)
{
	int32_t nb, nh;
	const char **fb = fingerprints(&B->findings, &nb), **fh = fingerprints(&H->findings, &nh);
	d->new_findings = malloc(((size_t)H->findings.n + 1) * sizeof(*d->new_findings));
	d->fixed_findings = malloc(((size_t)B->findings.n + 1) * sizeof(*d->fixed_findings));
	int rc = -1;
	if (!fb || !fh || !d->new_findings || !d->fixed_findings)
		goto out;
	for (int32_t i = 0; i < H->findings.n; i++) {
		const struct finding *f = &H->findings.items[i];
		if (finding_reported(f) && f->fingerprint && !has_fingerprint(fb, nb, f->fingerprint))
			d->new_findings[d->n_new++] = f;
	}
	for (int32_t i = 0; i < B->findings.n; i++) {
		const struct finding *f = &B->findings.items[i];
		if (finding_reported(f) && f->fingerprint && !has_fingerprint(fh, nh, f->fingerprint))
			d->fixed_findings[d->n_fixed++] = f;
	}
	rc = 0;
out:
	free(fb);
	free(fh);
	return rc;
}

int gate_compare(const struct gate_module *base, const struct gate_module *head, struct gate_diff *out)
{
	memset(out, 0, sizeof(*out));
	out->base = base;
	out->head = head;
	if (compare_copies(base, head, out) < 0 || compare_donations(base, head, out) < 0 ||
	    compare_findings(base, head, out) < 0)
		return -1;
	return 0;
}

int gate_compare_new(const struct gate_module *head, struct gate_diff *out)
{
	static const struct gate_module empty; /* read only: nothing in it */
	return gate_compare(&empty, head, out);
}

void gate_diff_free(struct gate_diff *d)
{
	if (!d)
		return;
	free(d->added);
	free(d->removed);
	free(d->lost);
	free(d->lost_head);
	free(d->gained);
	free(d->gained_base);
	free(d->copied);
	free(d->copied_base);
	free(d->new_findings);
	free(d->fixed_findings);
	memset(d, 0, sizeof(*d));
}

/* ---- pairing -------------------------------------------------------------- */

const char *gate_file_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (!strncmp(b, "module_", 7)) {
		const char *p = b + 7;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p > b + 7 && *p == '.' && p[1])
			return p + 1;
	}
	return b;
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int gate_pair(const struct gate_input *base, int32_t n_base, const struct gate_input *head,
	      int32_t n_head, int32_t *pairs)
{
	char *taken = calloc((size_t)n_head + 1, 1);
	if (!taken)
		return -1;
	for (int32_t i = 0; i < n_base; i++)
		pairs[i] = -1;
	/* 1: module name and file stem */
	for (int32_t i = 0; i < n_base; i++)
		for (int32_t j = 0; j < n_head && pairs[i] < 0; j++)
			if (!taken[j] && same(base[i].name, head[j].name) &&
			    same(gate_file_stem(base[i].file), gate_file_stem(head[j].file))) {
				pairs[i] = j;
				taken[j] = 1;
			}
	/* 2: module name, when it names one unpaired module on each side */
	for (int32_t i = 0; i < n_base; i++) {
		if (pairs[i] >= 0)
			continue;
		int32_t nb = 0, nh = 0, j_found = -1;
		for (int32_t k = 0; k < n_base; k++)
			nb += pairs[k] < 0 && same(base[k].name, base[i].name);
		for (int32_t j = 0; j < n_head; j++)
			if (!taken[j] && same(head[j].name, base[i].name)) {
				nh++;
				j_found = j;
			}
		if (nb == 1 && nh == 1) {
			pairs[i] = j_found;
			taken[j_found] = 1;
		}
	}
	/* 3: file stem alone (a renamed module); modules that did not parse
	 * (no name) pair with nothing */
	for (int32_t i = 0; i < n_base; i++)
		for (int32_t j = 0; j < n_head && pairs[i] < 0 && base[i].name; j++)
			if (!taken[j] && head[j].name &&
			    same(gate_file_stem(base[i].file), gate_file_stem(head[j].file))) {
				pairs[i] = j;
				taken[j] = 1;
			}
	free(taken);
	return 0;
}
