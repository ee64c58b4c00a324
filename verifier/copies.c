/* copies.c - families and removal verdicts of copies (issue 4, docs/hazards.md 4).
 *
 * Removing copy c (operand value s, own value vc) merges the buffer of s and
 * the buffer of vc. The merged buffer of the rewritten module is computed
 * here without re-running the analysis: the union minus vc, where vc's uses
 * and positions go to s, and where loop and branch phis that collapse once
 * vc reads as s (XLA's phi optimization) are replaced by what they collapse
 * to. tests/test_copies.c checks this against a re-parse of the rewritten
 * text on the corpus. */
#include "copies.h"
#include "repair.h"
#include "hazard.h"
#include "hzview.h"
#include "rewrite.h"
#include "xalloc.h"
#include "tripcount.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *shape_str(const struct shape *s, char *buf, size_t cap)
{
	shape_to_string(s, buf, cap);
	return buf;
}

/* ---- family ---- */

static int comp_is_while_body(const struct hlo_computation *k, const struct hlo_instruction **w)
{
	if (k->n_callers == 1 && k->callers[0].instr->opcode == OP_WHILE &&
	    k->callers[0].instr->ext->body == k) {
		*w = k->callers[0].instr;
		return 1;
	}
	return 0;
}

static int comp_is_branch(const struct hlo_computation *k, const struct hlo_instruction **c)
{
	if (k->n_callers == 1 && k->callers[0].instr->opcode == OP_CONDITIONAL) {
		*c = k->callers[0].instr;
		return 1;
	}
	return 0;
}

static void index_str(const struct dataflow *df, const struct hlo_instruction *i, int32_t sub,
		      char *buf, size_t cap)
{
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = shape_tree_index(dataflow_tree(df, i), sub, idx);
	size_t k = 0;
	k += (size_t)snprintf(buf + k, cap - k, "{");
	for (int32_t j = 0; j < n && k < cap; j++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%d", j ? "," : "", idx[j]);
	if (k < cap)
		snprintf(buf + k, cap - k, "}");
}

static const struct io_alias *param_alias(const struct hlo_module *m,
					  const struct hlo_instruction *p, const struct dataflow *df,
					  int32_t sub)
{
	for (int32_t k = 0; k < m->n_aliases; k++) {
		const struct io_alias *al = &m->aliases[k];
		if (al->param == p->parameter_number &&
		    dataflow_sub(df, p, al->param_index.idx, al->param_index.n) == sub)
			return al;
	}
	return NULL;
}

/* The instruction a value came through to the copy, skipping
 * get-tuple-element and bitcast. */
static const struct hlo_instruction *skip_forwarding(const struct hlo_instruction *x)
{
	for (int32_t g = 0; g < 64 && (x->opcode == OP_GET_TUPLE_ELEMENT || x->opcode == OP_BITCAST) &&
			    x->n_operands > 0;
	     g++)
		x = x->operands[0];
	return x;
}

/* The copied instruction of a site (the operand its users read once the
 * copy is gone). */
static const struct hlo_instruction *site_source(const struct copy_site *st)
{
	return st->at->operands[st->operand];
}

/* The value the copy defines: the copy's or the fusion's (at the output),
 * the copy-start's destination {0}. -1 when there is none. */
static int32_t site_value(const struct dataflow *df, const struct copy_site *st)
{
	int32_t sub = 0;
	if (st->kind == COPY_KIND_ASYNC || (st->kind == COPY_KIND_FUSED && st->output >= 0)) {
		int32_t ix = st->kind == COPY_KIND_ASYNC ? 0 : st->output;
		sub = dataflow_sub(df, st->at, &ix, 1);
		if (sub < 0)
			return -1;
	}
	return dataflow_value_defined_at(df, st->at, sub);
}

int32_t copy_site_value(const struct dataflow *df, const struct copy_site *st)
{
	return site_value(df, st);
}

/* The instructions reading the copy's result directly, with the operand
 * slot: users of the copy (fusion, copy-done), or of the fusion output's
 * get-tuple-elements. Returns the count (at most cap). */
static int32_t site_readers(const struct copy_site *st, const struct hlo_instruction **u,
			    int32_t *slot, int32_t cap)
{
	const struct hlo_instruction *from[64];
	int32_t nf = 0, n = 0;
	if (st->result) {
		from[nf++] = st->result;
	} else {
		for (int32_t i = 0; i < st->at->n_users && nf < 64; i++) {
			const struct hlo_instruction *g = st->at->users[i];
			if (g->opcode == OP_GET_TUPLE_ELEMENT && g->tuple_index == st->output)
				from[nf++] = g;
		}
	}
	for (int32_t f = 0; f < nf; f++)
		for (int32_t i = 0; i < from[f]->n_users; i++) {
			const struct hlo_instruction *x = from[f]->users[i];
			for (int32_t k = 0; k < x->n_operands; k++)
				if (x->operands[k] == from[f] && n < cap) {
					u[n] = x;
					slot[n] = k;
					n++;
				}
		}
	return n;
}

#define READERS_MAX 256

static enum copy_family layout_family(struct analysis *an, const struct copy_site *st,
				      const char *cname, int d, struct sbuf *b)
{
	const struct hlo_instruction *s = site_source(st);
	const struct shape *cshape = st->to;
	char sa[512], sb2[512];
	if (d == 1) {
		sb_printf(b, "only the memory space changes: %s %s -> %s %s", s->name,
			  shape_str(s->shape, sa, sizeof(sa)), cname, shape_str(cshape, sb2, sizeof(sb2)));
		if (s->shape->layout.memory_space == 5 || cshape->layout.memory_space == 5)
			sb_printf(b, " (host memory: offload/prefetch)");
		else if (st->kind == COPY_KIND_ASYNC)
			sb_printf(b, " (an asynchronous copy between memory spaces: a prefetch or eviction)");
		return FAMILY_MEMORY_SPACE;
	}
	if (st->kind == COPY_KIND_FUSED)
		sb_printf(b, "layout change in fused computation %s (%s relays out its parameter); ",
			  st->at->ext->calls->name, st->inner->name);
	sb_printf(b, "layout change: producer %s (%s) gives %s, %s gives %s", s->name,
		  opcode_name((enum opcode)s->opcode), shape_str(s->shape, sa, sizeof(sa)), cname,
		  shape_str(st->kind == COPY_KIND_FUSED ? st->inner->shape : cshape, sb2, sizeof(sb2)));
	/* who demands the producer's layout */
	const struct hlo_instruction *src = skip_forwarding(s);
	if (src->opcode == OP_PARAMETER && src->parent->is_entry && an->m->has_entry_layout)
		sb_printf(b, "; the entry_computation_layout fixes parameter %s", src->name);
	else if (s->opcode == OP_BITCAST)
		sb_printf(b, "; %s is a bitcast (a relayout folded into it)", s->name);
	else if (src->opcode == OP_CUSTOM_CALL || src->opcode == OP_DOT ||
		 src->opcode == OP_CONVOLUTION)
		sb_printf(b, "; %s (%s) produces that layout", src->name,
			  src->opcode == OP_CUSTOM_CALL && src->ext->custom_call_target ? src->ext->custom_call_target
										 : opcode_name((enum opcode)src->opcode));
	/* who demands the copy's layout */
	int named = 0;
	const struct hlo_instruction *rd[READERS_MAX];
	int32_t rslot[READERS_MAX];
	int32_t nrd = site_readers(st, rd, rslot, READERS_MAX);
	for (int32_t i = 0; i < nrd; i++) {
		const struct hlo_instruction *u = rd[i];
		{
			int32_t k = rslot[i];
			if (k < u->ext->n_operand_layout_constraints && u->ext->operand_layout_constraints &&
			    u->ext->operand_layout_constraints[k]) {
				sb_printf(b, "; consumer %s demands %s for operand %d (operand_layout_constraints)",
					  u->name, shape_str(u->ext->operand_layout_constraints[k], sa, sizeof(sa)), k);
				named = 1;
			} else if (u->opcode == OP_CUSTOM_CALL || u->opcode == OP_DOT ||
				   u->opcode == OP_CONVOLUTION) {
				sb_printf(b, "; consumer %s (%s) wants the copy's order", u->name,
					  u->opcode == OP_CUSTOM_CALL && u->ext->custom_call_target
						  ? u->ext->custom_call_target
						  : opcode_name((enum opcode)u->opcode));
				named = 1;
			}
		}
	}
	const struct dataflow *df = an->df;
	int32_t vc = site_value(df, st);
	if (vc >= 0 && df->values[vc].live_out) {
		sb_printf(b, "; the copy is an entry output%s", an->m->entry_layout_result
					? " whose layout the entry_computation_layout fixes" : "");
		named = 1;
	}
	if (!named) {
		const struct hlo_instruction *c = st->result;
		if (c) {
			for (int32_t i = 0; i < c->n_users && i < 3; i++)
				sb_printf(b, "%s consumer %s (%s)", i ? "," : ";", c->users[i]->name,
					  opcode_name((enum opcode)c->users[i]->opcode));
			if (c->n_users == 0 && !c->is_root)
				sb_printf(b, "; no consumer (dead copy)");
		} else {
			for (int32_t i = 0; i < nrd && i < 3; i++)
				sb_printf(b, "%s consumer %s (%s)", i ? "," : ";", rd[i]->name,
					  opcode_name((enum opcode)rd[i]->opcode));
		}
	}
	return FAMILY_LAYOUT;
}

/* An entry parameter's name with its argument name from metadata, when
 * the frontend recorded one (jax: op_name="x"). */
static void param_words(const struct hlo_instruction *p, char *buf, size_t cap)
{
	if (p->op_name && *p->op_name && !strchr(p->op_name, '/') && strcmp(p->op_name, p->name))
		snprintf(buf, cap, "%s (argument %s)", p->name, p->op_name);
	else
		snprintf(buf, cap, "%s", p->name);
}

/* ---- in-place users one step away ----
 * XLA's copy insertion adds an operand copy for an in-place HloUse of the
 * value: a use reached past a tuple, a bitcast or a get-tuple-element (they
 * forward the value; the dataflow lists the users they lead to as uses), an
 * async-start whose wrapped computation updates the parameter in place, or
 * a custom call aliasing a tuple operand's leaf. */

/* The wrapped root's in-place pair whose operand, past forwarding, is
 * parameter k of the wrapped computation (at the top, sub 0). */
static const struct hlo_instruction *wrapped_in_place(const struct inplace *ip,
						      const struct hlo_instruction *start, int32_t k,
						      int32_t sub)
{
	const struct hlo_computation *w = async_wrapped_computation(start);
	if (!w || !w->root || sub != 0)
		return NULL;
	const struct hlo_instruction *r = w->root;
	const struct inplace_pair *pr;
	int32_t np = inplace_pairs(ip, r, &pr);
	for (int32_t q = 0; q < np; q++) {
		if (pr[q].operand_sub != 0 || pr[q].operand >= r->n_operands)
			continue;
		const struct hlo_instruction *x = r->operands[pr[q].operand];
		for (int32_t g = 0; g < 64 && x->opcode == OP_BITCAST && x->n_operands > 0; g++)
			x = x->operands[0];
		if (x->opcode == OP_PARAMETER && x->parameter_number == k)
			return r;
	}
	return NULL;
}

/* Names the forwarding step between the copy and the user. */
static void through(struct sbuf *b, const struct hlo_instruction *via)
{
	if (via->opcode == OP_TUPLE || via->opcode == OP_BITCAST ||
	    via->opcode == OP_GET_TUPLE_ELEMENT)
		sb_printf(b, "; the copy reaches it through %s (%s)", via->name,
			  opcode_name((enum opcode)via->opcode));
}

/* Whether one of the value's uses (other than the direct readers, already
 * looked at) is in place; writes the evidence. */
static int step_away_in_place(struct analysis *an, const struct copy_site *st,
			      const struct hlo_value *cv, struct sbuf *b)
{
	const struct dataflow *df = an->df;
	char ix[128];
	for (int32_t u = 0; cv && u < cv->n_uses; u++) {
		const struct value_use *use = &cv->uses[u];
		const struct hlo_instruction *x = use->instr;
		/* uses in the copy's computation only: a use inside a called
		 * computation (a branch's parameter) is a call away, not one step */
		if (use->operand < 0 || use->operand >= x->n_operands || x->parent != st->at->parent)
			continue;
		const struct hlo_instruction *via = x->operands[use->operand];
		index_str(df, via, use->sub, ix, sizeof(ix));
		const struct inplace_pair *pr;
		int32_t np = inplace_pairs(an->ip, x, &pr);
		for (int32_t k = 0; k < np; k++) {
			if (pr[k].operand != use->operand || pr[k].operand_sub != use->sub)
				continue;
			if (x->opcode == OP_CUSTOM_CALL && x->ext->custom_call_target)
				sb_printf(b, "the custom call %s (%s) writes operand %d at %s in place%s",
					  x->name, x->ext->custom_call_target, use->operand, ix,
					  x->ext->n_out_aliases > 0 ? " (output_to_operand_aliasing)" : "");
			else
				sb_printf(b, "%s (%s) updates operand %d at %s in place%s", x->name,
					  opcode_name((enum opcode)x->opcode), use->operand, ix,
					  x->ext->n_out_aliases > 0 ? " (output_to_operand_aliasing)" : "");
			through(b, via);
			return 1;
		}
		if (x->opcode == OP_ASYNC_START) {
			const struct hlo_instruction *r = wrapped_in_place(an->ip, x, use->operand, use->sub);
			if (r) {
				sb_printf(b, "%s wraps %s (%s), which updates parameter %d in place",
					  x->name, r->name, opcode_name((enum opcode)r->opcode), use->operand);
				through(b, via);
				return 1;
			}
		}
	}
	return 0;
}

/* facts (when not NULL) gets the in-place writer the words name, and
 * whether they end on an in-place update of an entry parameter that is not
 * donated: the caller says then whether donating it is the fix. */
static enum copy_family site_family_of(struct analysis *an, const struct copy_site *st,
				       char **evidence, struct copy_report *facts)
{
	const struct dataflow *df = an->df;
	struct arena *A = &an->m->arena;
	char b_buf[SB_STACK_BYTES];
	struct sbuf b;
	sb_borrow(&b, b_buf, sizeof(b_buf));
	enum copy_family f = FAMILY_UNEXPLAINED;
	const struct hlo_instruction *c = st->at;
	const struct hlo_instruction *s = site_source(st);
	char ix[128], cname[600];
	if (st->kind == COPY_KIND_ASYNC)
		snprintf(cname, sizeof(cname), "%s/%s", c->name, st->done ? st->done->name : "?");
	else if (st->output >= 0)
		snprintf(cname, sizeof(cname), "%s{%d}", c->name, st->output);
	else
		snprintf(cname, sizeof(cname), "%s", c->name);
	if (st->kind == COPY_KIND_FUSED)
		sb_printf(&b, "fusion %s copies its operand %s (fused computation %s: %s); ", cname,
			  s->name, c->ext->calls->name, st->inner->name);
	else if (st->kind == COPY_KIND_ASYNC)
		sb_printf(&b, "asynchronous copy %s of %s; ", cname, s->name);
	int d = st->layout_diff;
	if (d) {
		f = layout_family(an, st, cname, d, &b);
		goto done;
	}
	int32_t vc = site_value(df, st);
	const struct hlo_value *cv = vc >= 0 ? &df->values[vc] : NULL;
	const struct hlo_instruction *w = NULL, *cond = NULL;
	/* loop-carry: feeds a while init, sits at a body root, or copies a body parameter slot */
	for (int32_t u = 0; cv && u < cv->n_uses; u++)
		if (cv->uses[u].instr->opcode == OP_WHILE) {
			index_str(df, cv->uses[u].instr->operands[0], cv->uses[u].sub, ix, sizeof(ix));
			sb_printf(&b, "feeds the init of %s at %s", cv->uses[u].instr->name, ix);
			f = FAMILY_LOOP_CARRY;
			goto done;
		}
	for (int32_t p = 0; cv && p < cv->n_positions; p++) {
		const struct hlo_instruction *pi = cv->positions[p].instr;
		if (pi == pi->parent->root && comp_is_while_body(pi->parent, &w)) {
			index_str(df, pi, cv->positions[p].sub, ix, sizeof(ix));
			sb_printf(&b, "sits at %s of the root of %s, the body of %s", ix, pi->parent->name,
				  w->name);
			f = FAMILY_LOOP_CARRY;
			goto done;
		}
	}
	if (comp_is_while_body(c->parent, &w)) {
		const struct hlo_instruction *src = skip_forwarding(s);
		if (src->opcode == OP_PARAMETER) {
			int32_t sv = dataflow_unique_value(df, s, 0);
			if (sv >= 0)
				index_str(df, src, df->values[sv].sub, ix, sizeof(ix));
			else
				snprintf(ix, sizeof(ix), "?");
			sb_printf(&b, "copies loop state %s read from parameter %s of %s (body of %s)",
				  ix, src->name, c->parent->name, w->name);
			f = FAMILY_LOOP_CARRY;
			goto done;
		}
	}
	/* branch */
	for (int32_t p = 0; cv && p < cv->n_positions; p++) {
		const struct hlo_instruction *pi = cv->positions[p].instr;
		if (pi == pi->parent->root && comp_is_branch(pi->parent, &cond)) {
			index_str(df, pi, cv->positions[p].sub, ix, sizeof(ix));
			sb_printf(&b, "sits at %s of the root of %s, a branch of %s", ix, pi->parent->name,
				  cond->name);
			f = FAMILY_BRANCH;
			goto done;
		}
	}
	/* donation */
	int32_t sv = dataflow_unique_value(df, s, 0);
	if (sv >= 0) {
		const struct hlo_value *v = &df->values[sv];
		if (v->def->opcode == OP_PARAMETER && v->def->parent->is_entry) {
			const struct io_alias *al = param_alias(an->m, v->def, df, v->sub);
			if (al) {
				index_str(df, v->def, v->sub, ix, sizeof(ix));
				sb_printf(&b, "copies donated parameter %s at %s (input_output_alias)",
					  v->def->name, ix);
				f = FAMILY_DONATION;
				goto done;
			}
		}
	}
	for (int32_t p = 0; cv && p < cv->n_positions; p++) {
		const struct hlo_instruction *pi = cv->positions[p].instr;
		if (pi != pi->parent->root || !pi->parent->is_entry)
			continue;
		const struct io_alias *al = buffers_output_alias(an->bufs, cv->positions[p].sub);
		index_str(df, pi, cv->positions[p].sub, ix, sizeof(ix));
		if (al) {
			sb_printf(&b, "sits at entry output %s, aliased to parameter %d (input_output_alias)",
				  ix, al->param);
			f = FAMILY_DONATION;
			goto done;
		}
	}
	/* output */
	for (int32_t p = 0; cv && p < cv->n_positions; p++) {
		const struct hlo_instruction *pi = cv->positions[p].instr;
		if (pi != pi->parent->root || !pi->parent->is_entry)
			continue;
		index_str(df, pi, cv->positions[p].sub, ix, sizeof(ix));
		sb_printf(&b, "sits at entry output %s", ix);
		if (sv >= 0) {
			const struct hlo_value *v = &df->values[sv];
			if (v->def->opcode == OP_CONSTANT)
				sb_printf(&b, " and copies constant %s (read-only)", v->def->name);
			else if (v->def->opcode == OP_PARAMETER && v->def->parent->is_entry)
				sb_printf(&b, " and copies entry parameter %s (read-only, not donated)",
					  v->def->name);
			else if (v->live_out)
				sb_printf(&b, " and copies %s, which is itself an output", v->def->name);
			else
				sb_printf(&b, " (copies %s)", v->def->name);
		}
		f = FAMILY_OUTPUT;
		goto done;
	}
	/* in-place */
	const struct hlo_instruction *rd[READERS_MAX];
	int32_t rslot[READERS_MAX];
	int32_t nrd = site_readers(st, rd, rslot, READERS_MAX);
	for (int32_t i = 0; i < nrd; i++) {
		const struct hlo_instruction *u = rd[i];
		const struct inplace_pair *pr;
		int32_t np = inplace_pairs(an->ip, u, &pr);
		for (int32_t k = 0; k < np; k++) {
			if (pr[k].operand != rslot[i])
				continue;
			int by_alias = u->ext->n_out_aliases > 0;
			if (facts)
				facts->in_place_writer = u;
			if (u->opcode == OP_CUSTOM_CALL && u->ext->custom_call_target &&
			    st->kind != COPY_KIND_PLAIN) /* plain copies keep their earlier words */
				sb_printf(&b, "the custom call %s (%s) writes operand %d in place%s", u->name,
					  u->ext->custom_call_target, pr[k].operand,
					  by_alias ? " (output_to_operand_aliasing)" : "");
			else
				sb_printf(&b, "%s (%s) updates operand %d in place%s", u->name,
					  opcode_name((enum opcode)u->opcode), pr[k].operand,
					  by_alias && st->kind != COPY_KIND_PLAIN ? " (output_to_operand_aliasing)" : "");
			const struct hlo_instruction *other = NULL;
			if (sv >= 0)
				for (int32_t q = 0; q < df->values[sv].n_uses && !other; q++)
					if (df->values[sv].uses[q].instr != c &&
					    (!st->done || df->values[sv].uses[q].instr != st->done))
						other = df->values[sv].uses[q].instr;
			const struct hlo_value *v = sv >= 0 ? &df->values[sv] : NULL;
			if (other) {
				sb_printf(&b, "; %s is still read by %s", s->name, other->name);
			} else if (v && v->live_out) {
				sb_printf(&b, "; %s is still an entry output", s->name);
			} else if (st->kind != COPY_KIND_PLAIN && v && v->def->opcode == OP_PARAMETER &&
				   v->def->parent->is_entry) {
				char pw[300];
				param_words(v->def, pw, sizeof(pw));
				sb_printf(&b, "; the operand is entry parameter %lld, %s, which is not donated "
					  "(no input_output_alias), so XLA copies it",
					  (long long)v->def->parameter_number, pw);
				/* the fix, once checked (copy_analyse_site) */
				if (facts)
					facts->undonated_words = 1;
			} else if (st->kind != COPY_KIND_PLAIN && v && v->def->opcode == OP_CONSTANT) {
				sb_printf(&b, "; the operand is constant %s (read-only), so XLA copies it",
					  v->def->name);
			}
			f = FAMILY_IN_PLACE;
			goto done;
		}
	}
	if (step_away_in_place(an, st, cv, &b)) {
		f = FAMILY_IN_PLACE;
		goto done;
	}
	sb_printf(&b, "no layout change, loop, branch, donation, output or in-place use explains it");
	if (c->op_name && strstr(c->op_name, "sharding_constraint"))
		sb_printf(&b, " (a lowered sharding_constraint)");
	else if (strstr(c->name, "sharding_constraint"))
		sb_printf(&b, " (named like a lowered sharding_constraint)");
done:
	if (evidence)
		*evidence = sb_finish(&b, A);
	else
		sb_free(&b);
	return f;
}

/* The site of a plain copy instruction. */
static void plain_site(const struct hlo_instruction *c, struct copy_site *st)
{
	memset(st, 0, sizeof(*st));
	st->kind = COPY_KIND_PLAIN;
	st->at = st->result = c;
	st->output = -1;
	st->to = c->shape;
	st->layout_diff = (c->operands[0]->shape && c->shape)
				  ? copy_layout_diff(c->operands[0]->shape, c->shape) : 0;
}

enum copy_family copy_family_of(struct analysis *an, const struct hlo_instruction *c,
				char **evidence)
{
	struct copy_site st;
	plain_site(c, &st);
	return site_family_of(an, &st, evidence, NULL);
}

/* ---- merged buffer ---- */

struct merged {
	int32_t n_u;
	int32_t *u;      /* union of the two buffers, sorted */
	int32_t *sigma;  /* index into u, or -1 for values outside */
	int32_t copy_value, source_value;
};

static int32_t find_u(const struct merged *M, int32_t v)
{
	int32_t lo = 0, hi = M->n_u - 1;
	while (lo <= hi) {
		int32_t mid = (lo + hi) / 2;
		if (M->u[mid] == v)
			return mid;
		if (M->u[mid] < v)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* sigma* of a value id (values outside the union map to themselves) */
static int32_t resolve(const struct merged *M, int32_t v)
{
	for (int32_t g = 0; g <= M->n_u; g++) {
		int32_t i = find_u(M, v);
		if (i < 0 || M->sigma[i] == v)
			return v;
		v = M->sigma[i];
	}
	return v;
}

/* The inputs of a phi as the final value sets give them. */
static int32_t phi_inputs(const struct dataflow *df, const struct hlo_value *p, int32_t *out,
			  int32_t cap)
{
	int32_t n = 0;
	const struct hlo_instruction *d = p->def;
	const struct hlo_instruction *w = NULL;
	if (d->opcode == OP_WHILE)
		w = d;
	else if (d->opcode == OP_PARAMETER && d->parent->n_callers == 1 &&
		 d->parent->callers[0].instr->opcode == OP_WHILE)
		w = d->parent->callers[0].instr;
	const struct hlo_instruction *src[64];
	int32_t ns = 0;
	if (w) {
		if (w->n_operands > 0)
			src[ns++] = w->operands[0];
		if (w->ext->body && w->ext->body->root)
			src[ns++] = w->ext->body->root;
	} else if (d->opcode == OP_CONDITIONAL) {
		for (int32_t j = 0; j < d->ext->n_branches && ns < 64; j++)
			if (d->ext->branches[j]->root)
				src[ns++] = d->ext->branches[j]->root;
	} else {
		return -1;
	}
	for (int32_t i = 0; i < ns; i++) {
		if (p->sub >= dataflow_tree(df, src[i])->n)
			return -1;
		const struct value_set *vs = dataflow_set(df, src[i], p->sub);
		for (int32_t k = 0; k < vs->n; k++) {
			if (n == cap)
				return -1;
			out[n++] = value_set_ids(vs)[k];
		}
	}
	return n;
}

#define PHI_MAX_INPUTS 256

/* XLA's phi optimization on the union, vc reading as s. Returns -1 when a
 * phi's inputs cannot be reconstructed. */
static int collapse_phis(const struct dataflow *df, struct merged *M)
{
	int32_t in[PHI_MAX_INPUTS];
	int32_t *work = xmalloc((size_t)M->n_u + 1, sizeof(int32_t));
	uint8_t *seen = xcalloc((size_t)M->n_u + 1, 1);
	int rc = 0;
	for (int changed = 1, round = 0; changed && round <= M->n_u + 1; round++) {
		changed = 0;
		for (int32_t i = 0; i < M->n_u; i++) {
			int32_t p = M->u[i];
			const struct hlo_value *pv = &df->values[p];
			if (!pv->is_phi || M->sigma[i] != p)
				continue;
			int32_t n = phi_inputs(df, pv, in, PHI_MAX_INPUTS);
			if (n < 0) {
				rc = -1;
				goto out;
			}
			int32_t only = -1, many = 0;
			for (int32_t k = 0; k < n; k++) {
				int32_t x = resolve(M, in[k]);
				if (x == p)
					continue;
				if (only < 0)
					only = x;
				else if (only != x)
					many = 1;
			}
			if (only >= 0 && !many) {
				M->sigma[i] = only;
				changed = 1;
				continue;
			}
			/* a closed group of phis reaching one non-phi value */
			memset(seen, 0, (size_t)M->n_u);
			int32_t head = 0, tail = 0, non_phi = -1, ok = 1;
			work[tail++] = i;
			seen[i] = 1;
			while (head < tail && ok) {
				int32_t qi = work[head++];
				int32_t m = phi_inputs(df, &df->values[M->u[qi]], in, PHI_MAX_INPUTS);
				if (m < 0) {
					ok = 0;
					break;
				}
				for (int32_t k = 0; k < m && ok; k++) {
					int32_t x = resolve(M, in[k]);
					int32_t xi = find_u(M, x);
					if (xi >= 0 && df->values[x].is_phi && M->sigma[xi] == x) {
						if (!seen[xi]) {
							seen[xi] = 1;
							work[tail++] = xi;
						}
					} else if (non_phi < 0) {
						non_phi = x;
					} else if (non_phi != x) {
						ok = 0;
					}
				}
			}
			if (ok && non_phi >= 0) {
				for (int32_t k = 0; k < tail; k++)
					M->sigma[work[k]] = non_phi;
				changed = 1;
			}
		}
	}
out:
	free(work);
	free(seen);
	return rc;
}

/* Does buffer b hold a loop or branch phi? Asked per copy, kept per buffer
 * (1,024 copies of one buffer each scanned its values). */
static int buffer_has_phi(struct analysis *an, int32_t b)
{
	if (!an->buffer_phis)
		an->buffer_phis = xcalloc((size_t)an->bufs->n_buffers + 1, 1);
	uint8_t *k = &an->buffer_phis[b];
	if (!*k) {
		const struct hlo_buffer *B = &an->bufs->buffers[b];
		*k = 1;
		for (uint32_t i = 0; i < B->n_values && *k == 1; i++)
			if (an->df->values[B->values[i]].is_phi)
				*k = 2;
	}
	return *k == 2;
}

/* The union, sigma and the members of the rewritten buffer. */
static int merge(struct analysis *an, const struct copy_site *st, struct merged *M,
		 int32_t **members, int32_t *n_members, int32_t **abs_from, int32_t **abs_to,
		 int32_t *n_abs)
{
	const struct dataflow *df = an->df;
	const struct buffers *B = an->bufs;
	memset(M, 0, sizeof(*M));
	int32_t s = dataflow_unique_value(df, site_source(st), 0);
	int32_t c = site_value(df, st);
	if (s < 0 || c < 0)
		return -1;
	M->copy_value = c;
	M->source_value = s;
	const struct hlo_buffer *bs = &B->buffers[B->buffer_of[s]], *bc = &B->buffers[B->buffer_of[c]];
	int32_t n = bs->n_values + (bs == bc ? 0 : bc->n_values);
	/* u and sigma in one block, members, abs_from and abs_to in another
	 * (freed with members): a malloc per array was a lock per copy under
	 * --jobs */
	M->u = xmalloc(2 * ((size_t)n + 1), sizeof(int32_t));
	M->sigma = M->u + n + 1;
	M->n_u = n;
	/* both in id order (buffers.h): merged in one pass, not sorted again
	 * per copy (1,024 copies of one buffer) */
	int32_t a = 0, b = 0, k = 0, nb = bs == bc ? 0 : bc->n_values;
	while (a < bs->n_values || b < nb)
		M->u[k++] = b >= nb || (a < bs->n_values && bs->values[a] < bc->values[b]) ? bs->values[a++]
										 : bc->values[b++];
	for (int32_t i = 0; i < n; i++)
		M->sigma[i] = M->u[i];
	M->sigma[find_u(M, c)] = s;
	/* without phis nothing collapses: sigma is c -> s alone */
	int phis = buffer_has_phi(an, B->buffer_of[s]) || buffer_has_phi(an, B->buffer_of[c]);
	if (phis && collapse_phis(df, M) < 0)
		return -2;
	*members = xmalloc(3 * ((size_t)n + 1), sizeof(int32_t));
	*abs_from = *members + n + 1;
	*abs_to = *members + 2 * ((size_t)n + 1);
	*n_members = *n_abs = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t v = M->u[i], r = phis ? resolve(M, v) : v == c ? s : v;
		if (r == v) {
			(*members)[(*n_members)++] = v;
		} else {
			(*abs_from)[*n_abs] = v;
			(*abs_to)[*n_abs] = r;
			(*n_abs)++;
		}
	}
	return 0;
}

static void merged_free(struct merged *M)
{
	free(M->u); /* and sigma */
}

/* ---- when the merged-buffer model does not hold ---- */

/* XLA's phi optimization replaces a closed group of loop or branch phis that
 * reaches exactly one non-phi value by that value. A group that collapsed
 * onto the copy's own value vc (a swizzling loop fed the copy in two slots)
 * reaches the copy's operand s after the removal; when s is itself a phi,
 * the closure runs on through s's inputs, finds several values and the
 * group stays: new phis in the merged buffer, which the model of merge()
 * cannot create. Then the rewritten module is analysed instead. */
static int phis_may_stay(const struct dataflow *df, int32_t s, int32_t vc)
{
	if (!df->values[s].is_phi)
		return 0;
	const struct hlo_value *v = &df->values[vc];
	for (int32_t i = 0; i < v->n_positions; i++) {
		const struct hlo_instruction *x = v->positions[i].instr;
		if (x->opcode == OP_WHILE || x->opcode == OP_CONDITIONAL)
			return 1;
		if (x->opcode == OP_PARAMETER && x->parent->n_callers > 0) {
			enum opcode op = x->parent->callers[0].instr->opcode;
			if (op == OP_WHILE || op == OP_CONDITIONAL)
				return 1;
		}
	}
	return 0;
}

int32_t copy_merged_buffer(struct analysis *an, const struct hlo_instruction *copy,
			   int32_t **values)
{
	struct merged M;
	int32_t *mem = NULL, *af = NULL, *at = NULL, nm = 0, na = 0;
	*values = NULL;
	struct copy_site st;
	if (copy->opcode == OP_COPY && copy->n_operands == 1)
		plain_site(copy, &st);
	else if (copy_sites_named(an->m, &an->m->arena, copy->name, &st, 1) < 1)
		return -1;
	int rc = merge(an, &st, &M, &mem, &nm, &af, &at, &na);
	if (rc == 0 && phis_may_stay(an->df, M.source_value, M.copy_value))
		rc = -1; /* the model does not hold there: decide_by_rewrite */
	merged_free(&M);
	if (rc < 0) {
		free(mem); /* and af, at */
		return -1;
	}
	*values = arena_array(&an->m->arena, (size_t)nm + 1, sizeof(int32_t));
	memcpy(*values, mem, (size_t)nm * sizeof(int32_t));
	free(mem); /* and af, at */
	return nm;
}

/* ---- verdicts ---- */

static enum verdict removal_verdict(enum verdict buffer)
{
	switch (buffer) {
	case VERDICT_SAFE: return VERDICT_REMOVABLE;
	case VERDICT_UNSAFE: return VERDICT_NECESSARY;
	case VERDICT_SCHEDULE_DEPENDENT: return VERDICT_SCHEDULE_DEPENDENT;
	case VERDICT_NONE: return VERDICT_NONE;
	default: return VERDICT_UNKNOWN;
	}
}

#define in_embedded_computation copy_in_embedded_computation

/* Re-analysing a module per copy costs a parse and an analysis: bounded. */
#define REWRITE_MAX_INSTRUCTIONS 50000

static const struct hlo_instruction *same_instr(const struct hlo_module *m,
						const struct hlo_instruction *x)
{
	if (!x)
		return NULL;
	const struct hlo_computation *k = hlo_find_computation(m, x->parent->name);
	return k ? hlo_find_instruction(k, x->name) : NULL;
}

/* The module as given, which the removal of st is compared with: the
 * removed instructions go back right after the copied operand (a pair's
 * copy-start, then its copy-done; one output of a multi-output fusion
 * removes only get-tuple-elements, which no hazard mentions). */
static void origin_of(struct analysis *an, const struct copy_site *st, int32_t copy_value,
		      int32_t source_value, struct hz_origin *org)
{
	memset(org, 0, sizeof(*org));
	org->an = an;
	org->copy_value = copy_value;
	org->source_value = source_value;
	org->source = site_source(st);
	if (st->kind == COPY_KIND_FUSED && !st->result)
		return; /* the fusion stays, its get-tuple-elements go */
	org->removed[org->n_removed++] = st->at;
	if (st->kind == COPY_KIND_ASYNC && st->done)
		org->removed[org->n_removed++] = st->done;
	org->order_kept = 1;
	for (int32_t i = 0; i < org->n_removed; i++) {
		const struct hlo_instruction *x = org->removed[i];
		if (x == x->parent->root || x->ext->n_ctrl_preds > 0 || x->ext->n_ctrl_succs > 0)
			org->order_kept = 0;
	}
}

/* The removal verdict from the rewritten module's own buffer of s.
 * Returns 0 with out filled, -1 when the rewrite is refused (out untouched). */
static int decide_by_rewrite(struct analysis *an, const struct copy_site *st, const char *cause,
			     const char *note, struct copy_report *out)
{
	const struct hlo_instruction *copy = st->at;
	struct arena *A = &an->m->arena;
	int64_t n_instrs = 0;
	for (int32_t k = 0; k < an->m->n_comps; k++)
		n_instrs += an->m->comps[k]->n_instrs;
	const char *why = NULL;
	struct hlo_module *w = NULL;
	struct analysis *aw = NULL;
	struct diag d;
	diag_init(&d, NULL);
	char whyb[1024];
	if (n_instrs > REWRITE_MAX_INSTRUCTIONS) {
		snprintf(whyb, sizeof(whyb), "%s, and the module is too large to analyse again per copy", cause);
		why = arena_strdup(A, whyb);
	} else if (!(w = hlo_module_without_site(an->m, st, &d))) {
		snprintf(whyb, sizeof(whyb), "%s, and the rewritten module could not be built%s%s", cause,
			 d.first[0] ? ": " : "", d.first);
		why = arena_strdup(A, whyb);
	} else if (!(aw = analysis_run(w, &an->opt, &d))) {
		snprintf(whyb, sizeof(whyb), "%s, and the rewritten module could not be analysed", cause);
		why = arena_strdup(A, whyb);
	}
	int scheduled = an->m->is_scheduled;
	if (why) {
		out->any = VERDICT_UNKNOWN;
		out->given = scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		out->unknown_reason = (char *)why;
		struct sbuf b = {0};
		sb_printf(&b, "unknown: %s\n", why);
		out->evidence = sb_finish(&b, A);
		hlo_module_free(w);
		return 0;
	}
	const struct hlo_instruction *src = same_instr(w, site_source(st));
	int32_t s = src ? dataflow_unique_value(aw->df, src, 0) : -1;
	int32_t s0 = dataflow_unique_value(an->df, site_source(st), 0), c0 = site_value(an->df, st);
	struct buffer_verdict bv;
	memset(&bv, 0, sizeof(bv));
	int rc = -1;
	if (s >= 0 && s0 >= 0 && c0 >= 0) {
		/* the rewritten module's buffer of s, judged against the module
		 * as given (hazards.md 4) */
		const struct hlo_buffer *B = &aw->bufs->buffers[aw->bufs->buffer_of[s]];
		struct hz_input in;
		memset(&in, 0, sizeof(in));
		in.values = B->values;
		in.n_values = B->n_values;
		in.label = copy->name;
		in.bytes = out->bytes;
		struct hz_origin org;
		origin_of(an, st, c0, s0, &org);
		in.origin = an->opt.removal_all_hazards ? NULL : &org;
		struct hz_result r;
		rc = hz_decide(aw, &in, &r);
		bv = r.bv;
	}
	if (rc < 0) {
		analysis_free(aw);
		hlo_module_free(w);
		out->any = VERDICT_UNKNOWN;
		out->given = scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		out->unknown_reason = "the rewritten module has no single value for the copy's operand";
		out->evidence = arena_strdup(A, "unknown: the rewritten module has no single value for the copy's operand\n");
		return 0;
	}
	out->any = removal_verdict(bv.any);
	out->given = scheduled ? removal_verdict(bv.given) : VERDICT_NONE;
	out->unknown_reason = bv.unknown_reason ? arena_strdup(A, bv.unknown_reason) : NULL;
	out->n_edges = 0;
	if (bv.n_edges > 0) {
		out->edges_from = arena_array(A, (size_t)bv.n_edges, sizeof(*out->edges_from));
		out->edges_to = arena_array(A, (size_t)bv.n_edges, sizeof(*out->edges_to));
		for (int32_t i = 0; i < bv.n_edges; i++) {
			const struct hlo_instruction *f = same_instr(an->m, bv.edges_from[i]);
			const struct hlo_instruction *t = same_instr(an->m, bv.edges_to[i]);
			if (!f || !t)
				continue;
			out->edges_from[out->n_edges] = f;
			out->edges_to[out->n_edges] = t;
			out->n_edges++;
		}
	}
	out->edge_from = same_instr(an->m, bv.edge_from);
	out->edge_to = same_instr(an->m, bv.edge_to);
	char b_buf[SB_STACK_BYTES];
	struct sbuf b;
	sb_borrow(&b, b_buf, sizeof(b_buf));
	sb_printf(&b, "merged buffer of %s and %s after removal: %d value(s), from the rewritten module "
		  "analysed again (%s)\n%s",
		  site_source(st)->name, copy->name, aw->bufs->buffers[aw->bufs->buffer_of[s]].n_values,
		  note, bv.evidence ? bv.evidence : "");
	out->evidence = sb_finish(&b, A);
	analysis_free(aw);
	hlo_module_free(w);
	return 0;
}

static void set_unknown(struct analysis *an, struct copy_report *out, const char *why)
{
	out->any = VERDICT_UNKNOWN;
	out->given = an->m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
	out->unknown_reason = arena_strdup(&an->m->arena, why);
	struct sbuf b = {0};
	sb_printf(&b, "unknown: %s\n", why);
	out->evidence = sb_finish(&b, &an->m->arena);
}

/* The dimensions agree (what the copy's users see is the operand's shape
 * up to layout). */
static int same_dims(const struct shape *a, const struct shape *b)
{
	return a && b && shape_is_array(a) && shape_is_array(b) && shape_equal_ignoring_layout(a, b);
}

/* The merged-buffer model (and the dependency view, trace.c) removes one
 * instruction whose operand 0 takes its place: a copy, or a single-output
 * fusion with one operand. Other sites are decided on the rewritten module. */
static int site_fits_merge(const struct copy_site *st)
{
	return st->kind == COPY_KIND_PLAIN ||
	       (st->kind == COPY_KIND_FUSED && st->result && st->at->n_operands == 1 && st->operand == 0);
}

static int analyse_site(struct analysis *an, const struct copy_site *st, struct copy_report *out);

/* A necessary copy, in-place or at an entry output, of an entry parameter
 * leaf that is neither aliased nor a donor: would donating it drop the copy
 * (repair_donation_drops_copy)? The family's words say so when they name
 * the undonated parameter. */
static void donation_instead(struct analysis *an, const struct copy_site *st, struct copy_report *out)
{
	out->donate_drops = 0;
	if (an->opt.no_repair_check)
		return;
	copy_donation_instead(an, out);
}

void copy_donation_instead(struct analysis *an, struct copy_report *out)
{
	const struct copy_site *st = &out->site;
	out->donate_drops = 0;
	if ((out->family != FAMILY_IN_PLACE && out->family != FAMILY_OUTPUT) || out->any != VERDICT_NECESSARY)
		return;
	int32_t sv = dataflow_unique_value(an->df, site_source(st), 0);
	if (sv < 0)
		return;
	const struct hlo_value *v = &an->df->values[sv];
	if (v->def->opcode != OP_PARAMETER || !v->def->parent->is_entry)
		return;
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	struct shape_index ix;
	ix.n = dataflow_value_index(an->df, v, idx);
	ix.idx = arena_array(&an->m->arena, (size_t)ix.n + 1, sizeof(int32_t));
	memcpy(ix.idx, idx, (size_t)ix.n * sizeof(int32_t));
	int rc = repair_donation_drops_copy(an, st, (int32_t)v->def->parameter_number, &ix, &out->donate);
	out->donate_drops = rc == 1 ? 1 : rc == 0 ? -1 : 0;
	if (!out->undonated_words || !out->donate_drops)
		return;
	const struct hlo_instruction *p = v->def;
	const char *arg = p->op_name && *p->op_name && !strchr(p->op_name, '/') ? p->op_name : p->name;
	struct sbuf b = {0};
	if (out->donate_drops > 0)
		sb_printf(&b, "%s; the fix is to donate %s", out->family_evidence, arg);
	else
		sb_printf(&b, "%s; donating %s would not avoid it: %s", out->family_evidence, arg,
			  out->donate.why_not);
	out->family_evidence = sb_finish(&b, &an->m->arena);
}

int copy_analyse_site(struct analysis *an, const struct copy_site *st, struct copy_report *out)
{
	int rc = analyse_site(an, st, out);
	/* before optimization, the simplifier removes it first (stage.h); its
	 * removal verdict stays the one decided for the copy as it is */
	if (!rc && an->stage == STAGE_BEFORE && st->kind == COPY_KIND_PLAIN &&
	    copy_is_simplifier_noop(st->at)) {
		out->family = FAMILY_NO_OP;
		out->family_evidence = arena_strdup(&an->m->arena, "XLA's algebraic simplifier removes it "
				"before copy insertion (HandleCopy: the shapes are compatible)");
	}
	if (!rc)
		donation_instead(an, st, out);
	return rc;
}

static int analyse_site(struct analysis *an, const struct copy_site *st, struct copy_report *out)
{
	struct arena *A = &an->m->arena;
	memset(out, 0, sizeof(*out));
	if (!st || !st->at || st->operand < 0 || st->operand >= st->at->n_operands)
		return -1;
	const struct hlo_instruction *copy = st->at;
	out->copy = copy;
	out->site = *st;
	out->bytes = st->to ? st->to->bytes : 0;
	out->family = site_family_of(an, st, &out->family_evidence, out);
	int scheduled = an->m->is_scheduled;
	if (out->family == FAMILY_LAYOUT || out->family == FAMILY_MEMORY_SPACE) {
		out->any = VERDICT_NECESSARY;
		out->given = scheduled ? VERDICT_NECESSARY : VERDICT_NONE;
		struct sbuf b = {0};
		sb_printf(&b, "never removable: %s\n", out->family_evidence);
		out->evidence = sb_finish(&b, A);
		return 0;
	}
	if (in_embedded_computation(copy)) {
		out->any = VERDICT_UNKNOWN;
		out->given = scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		out->unknown_reason = "the copy is inside a fusion or other embedded computation";
		out->evidence = arena_strdup(A, "unknown: the copy is inside an embedded computation\n");
		return 0;
	}
	if (st->kind == COPY_KIND_ASYNC && !st->done) {
		set_unknown(an, out, "the copy-start has no copy-done");
		return 0;
	}
	if (st->kind != COPY_KIND_PLAIN && !same_dims(site_source(st)->shape, st->to)) {
		set_unknown(an, out, "the copy is tuple-shaped or also changes the dimensions (a bitcast "
				     "around it); its users cannot read the operand as it is");
		return 0;
	}
	if (!site_fits_merge(st)) {
		char cause[512];
		if (st->kind == COPY_KIND_ASYNC)
			snprintf(cause, sizeof(cause), "the users of %s read %s instead, the pair removed",
				 st->done->name, site_source(st)->name);
		else
			snprintf(cause, sizeof(cause), "the users of output %d of %s read %s instead", st->output,
				 copy->name, site_source(st)->name);
		return decide_by_rewrite(an, st, cause, cause, out);
	}
	struct merged M;
	int32_t *mem = NULL, *af = NULL, *at = NULL, nm = 0, na = 0;
	int rc = merge(an, st, &M, &mem, &nm, &af, &at, &na);
	if (rc < 0) {
		out->any = VERDICT_UNKNOWN;
		out->given = scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
		out->unknown_reason = rc == -1 ? "the copy's operand holds more than one value"
					       : "a loop or branch phi whose inputs cannot be rebuilt";
		struct sbuf b = {0};
		sb_printf(&b, "unknown: %s\n", out->unknown_reason);
		out->evidence = sb_finish(&b, A);
		merged_free(&M);
		free(mem); /* and af, at */
		return 0;
	}
	if (phis_may_stay(an->df, M.source_value, M.copy_value)) {
		merged_free(&M);
		free(mem); /* and af, at */
		char note[600];
		snprintf(note, sizeof(note), "loop phis that collapse onto %s stay phis once they reach %s, a phi",
			 copy->name, site_source(st)->name);
		if (decide_by_rewrite(an, st, "a loop phi group would no longer collapse after the removal",
				      note, out) < 0)
			return -1;
		repair_check_copy(an, out);
		return 0;
	}
	struct hz_input in;
	memset(&in, 0, sizeof(in));
	in.values = mem;
	in.n_values = nm;
	in.abs_from = af;
	in.abs_to = at;
	in.n_abs = na;
	in.copy = copy;
	in.label = copy->name;
	in.bytes = out->bytes;
	in.no_evidence = an->opt.no_evidence;
	struct hz_origin org;
	origin_of(an, st, M.copy_value, M.source_value, &org);
	in.origin = an->opt.removal_all_hazards ? NULL : &org;
	struct hz_result r;
	hz_decide(an, &in, &r);
	out->any = removal_verdict(r.bv.any);
	out->given = scheduled ? removal_verdict(r.bv.given) : VERDICT_NONE;
	out->edge_from = r.bv.edge_from;
	out->edge_to = r.bv.edge_to;
	out->n_edges = r.bv.n_edges;
	out->edges_from = r.bv.edges_from;
	out->edges_to = r.bv.edges_to;
	out->unknown_reason = r.bv.unknown_reason;
	char b_buf[SB_STACK_BYTES];
	struct sbuf b;
	sb_borrow(&b, b_buf, sizeof(b_buf));
	sb_printf(&b, "merged buffer of %s and %s after removal: %d value(s)", site_source(st)->name,
		  copy->name, nm);
	if (na > 1)
		sb_printf(&b, " (%d loop/branch phi(s) collapse)", na - 1);
	sb_printf(&b, "\n%s", r.bv.evidence ? r.bv.evidence : "");
	out->evidence = sb_finish(&b, A);
	merged_free(&M);
	free(mem); /* and af, at */
	repair_check_copy(an, out); /* docs/verdicts.md, Repairs */
	return 0;
}

int copy_analyse_one(struct analysis *an, const struct hlo_instruction *copy,
		     struct copy_report *out)
{
	memset(out, 0, sizeof(*out));
	if (!copy)
		return -1;
	struct copy_site *all;
	int32_t n = copy_sites_at(copy, &an->m->arena, &all);
	for (int32_t i = 0; i < n; i++)
		if (all[i].at == copy || all[i].done == copy || all[i].inner == copy)
			return copy_analyse_site(an, &all[i], out);
	if (copy->opcode != OP_COPY || copy->n_operands != 1)
		return -1;
	/* a copy in an embedded computation that is not a fused copy */
	struct copy_site st;
	plain_site(copy, &st);
	return copy_analyse_site(an, &st, out);
}

int32_t copies_analyse(struct analysis *an, struct copy_report **out)
{
	const struct hlo_module *m = an->m;
	struct copy_site *sites;
	int32_t n = copy_sites(m, &an->m->arena, &sites);
	*out = arena_array(&an->m->arena, (size_t)n + 1, sizeof(struct copy_report));
	int32_t j = 0;
	for (int32_t i = 0; i < n; i++) {
		const struct copy_site *st = &sites[i];
		if (budget_expired(&an->opt.budget)) {
			/* listed, not decided: no family, no verdict */
			struct copy_report *r = &(*out)[j++];
			memset(r, 0, sizeof(*r));
			r->copy = st->at;
			r->site = *st;
			r->family = FAMILY_UNEXPLAINED;
			r->family_evidence = arena_strdup(&an->m->arena, "not analysed: " BUDGET_EXHAUSTED_REASON);
			r->given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
			r->any = VERDICT_UNKNOWN;
			r->unknown_reason = arena_strdup(&an->m->arena, BUDGET_EXHAUSTED_REASON);
			r->bytes = st->to ? st->to->bytes : 0;
			continue;
		}
		if (copy_analyse_site(an, st, &(*out)[j]) < 0)
			return -1;
		j++;
	}
	return j;
}

/* ---- for the reporters ---- */

struct copy_summaries *copy_summaries_build(const struct copy_verdicts *cv,
					    const struct source_filter *frames, struct arena *a)
{
	struct copy_summaries *s = arena_alloc(a, sizeof(*s));
	s->n = cv ? cv->copies.n : 0;
	s->v = arena_array(a, (size_t)s->n + 1, sizeof(*s->v));
	for (int32_t i = 0; i < s->n; i++) {
		const struct copy_report *r = &cv->copies.items[i];
		struct copy_summary *o = &s->v[i];
		o->name = arena_strdup(a, r->copy->name);
		o->computation = arena_strdup(a, r->copy->parent->name);
		o->kind = r->site.kind;
		o->output = r->site.at ? r->site.output : -1;
		o->done = r->site.done ? arena_strdup(a, r->site.done->name) : NULL;
		o->line = r->copy->pos.line;
		o->family = r->family;
		o->given = r->given;
		o->any = r->any;
		size_t n = strlen(r->family_evidence ? r->family_evidence : "") +
			   strlen(r->evidence ? r->evidence : "") + 16;
		char *e = arena_alloc(a, n);
		snprintf(e, n, "%s: %s\n%s", copy_family_name(r->family),
			 r->family_evidence ? r->family_evidence : "", r->evidence ? r->evidence : "");
		o->evidence = e;
		o->bytes = r->bytes;
		int in_loop;
		int64_t t = computation_trips(r->copy->parent, &in_loop);
		o->trips = in_loop ? t : 0;
		o->source = source_of(r->copy, frames, a);
	}
	return s;
}
