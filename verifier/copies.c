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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layouts ---- */

/* The layout text after ':' without the S(n) memory space. */
static void layout_ext_without_space(const struct layout *l, char *buf, size_t cap)
{
	buf[0] = 0;
	if (!l->ext)
		return;
	size_t n = 0;
	for (const char *p = l->ext; *p && n + 1 < cap;) {
		if (p[0] == 'S' && p[1] == '(') {
			const char *q = strchr(p, ')');
			if (q) {
				p = q + 1;
				continue;
			}
		}
		buf[n++] = *p++;
	}
	buf[n] = 0;
}

/* 0 equal, 1 only the memory space differs, 2 layout differs. */
static int layout_diff(const struct shape *a, const struct shape *b)
{
	if (shape_is_tuple(a) || shape_is_tuple(b)) {
		if (!shape_is_tuple(a) || !shape_is_tuple(b) || a->n_elems != b->n_elems)
			return 2;
		int worst = 0;
		for (int32_t i = 0; i < a->n_elems; i++) {
			int d = layout_diff(&a->elems[i], &b->elems[i]);
			if (d > worst)
				worst = d;
		}
		return worst;
	}
	if (!shape_is_array(a) || !shape_is_array(b))
		return a->type == b->type ? 0 : 2;
	if (a->type != b->type || a->rank != b->rank)
		return 2;
	for (int i = 0; i < a->rank; i++)
		if (shape_minor_to_major(a, i) != shape_minor_to_major(b, i))
			return 2;
	if (a->layout.element_size_bits != b->layout.element_size_bits)
		return 2;
	char ea[256], eb[256];
	layout_ext_without_space(&a->layout, ea, sizeof(ea));
	layout_ext_without_space(&b->layout, eb, sizeof(eb));
	if (strcmp(ea, eb))
		return 2;
	return a->layout.memory_space != b->layout.memory_space ? 1 : 0;
}

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

static enum copy_family layout_family(struct analysis *an, const struct hlo_instruction *c,
				      int d, struct sbuf *b)
{
	const struct hlo_instruction *s = c->operands[0];
	char sa[512], sb2[512];
	if (d == 1) {
		sb_printf(b, "only the memory space changes: %s %s -> %s %s", s->name,
			  shape_str(s->shape, sa, sizeof(sa)), c->name, shape_str(c->shape, sb2, sizeof(sb2)));
		if (s->shape->layout.memory_space == 5 || c->shape->layout.memory_space == 5)
			sb_printf(b, " (host memory: offload/prefetch)");
		return FAMILY_MEMORY_SPACE;
	}
	sb_printf(b, "layout change: producer %s (%s) gives %s, %s gives %s", s->name,
		  opcode_name((enum opcode)s->opcode), shape_str(s->shape, sa, sizeof(sa)), c->name,
		  shape_str(c->shape, sb2, sizeof(sb2)));
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
	for (int32_t i = 0; i < c->n_users; i++) {
		const struct hlo_instruction *u = c->users[i];
		for (int32_t k = 0; k < u->n_operands; k++) {
			if (u->operands[k] != c)
				continue;
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
	int32_t vc = dataflow_value_defined_at(df, c, 0);
	if (vc >= 0 && df->values[vc].live_out) {
		sb_printf(b, "; the copy is an entry output%s", an->m->entry_layout_result
					? " whose layout the entry_computation_layout fixes" : "");
		named = 1;
	}
	if (!named) {
		for (int32_t i = 0; i < c->n_users && i < 3; i++)
			sb_printf(b, "%s consumer %s (%s)", i ? "," : ";", c->users[i]->name,
				  opcode_name((enum opcode)c->users[i]->opcode));
		if (c->n_users == 0 && !c->is_root)
			sb_printf(b, "; no consumer (dead copy)");
	}
	return FAMILY_LAYOUT;
}

enum copy_family copy_family_of(struct analysis *an, const struct hlo_instruction *c,
				char **evidence)
{
	const struct dataflow *df = an->df;
	struct arena *A = &an->m->arena;
	char b_buf[SB_STACK_BYTES];
	struct sbuf b;
	sb_borrow(&b, b_buf, sizeof(b_buf));
	enum copy_family f = FAMILY_UNEXPLAINED;
	const struct hlo_instruction *s = c->operands[0];
	char ix[128];
	int d = (s->shape && c->shape) ? layout_diff(s->shape, c->shape) : 0;
	if (d) {
		f = layout_family(an, c, d, &b);
		goto done;
	}
	int32_t vc = dataflow_value_defined_at(df, c, 0);
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
	for (int32_t i = 0; i < c->n_users; i++) {
		const struct hlo_instruction *u = c->users[i];
		const struct inplace_pair *pr;
		int32_t np = inplace_pairs(an->ip, u, &pr);
		for (int32_t k = 0; k < np; k++) {
			if (u->operands[pr[k].operand] != c)
				continue;
			sb_printf(&b, "%s (%s) updates operand %d in place", u->name,
				  opcode_name((enum opcode)u->opcode), pr[k].operand);
			const struct hlo_instruction *other = NULL;
			if (sv >= 0)
				for (int32_t q = 0; q < df->values[sv].n_uses && !other; q++)
					if (df->values[sv].uses[q].instr != c)
						other = df->values[sv].uses[q].instr;
			if (other)
				sb_printf(&b, "; %s is still read by %s", s->name, other->name);
			else if (sv >= 0 && df->values[sv].live_out)
				sb_printf(&b, "; %s is still an entry output", s->name);
			f = FAMILY_IN_PLACE;
			goto done;
		}
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

/* ---- merged buffer ---- */

struct merged {
	int32_t n_u;
	int32_t *u;      /* union of the two buffers, sorted */
	int32_t *sigma;  /* index into u, or -1 for values outside */
	int32_t copy_value, source_value;
};

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

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
	int32_t *work = malloc(((size_t)M->n_u + 1) * sizeof(int32_t));
	uint8_t *seen = calloc((size_t)M->n_u + 1, 1);
	if (!work || !seen)
		die("out of memory");
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

/* The union, sigma and the members of the rewritten buffer. */
static int merge(struct analysis *an, const struct hlo_instruction *copy, struct merged *M,
		 int32_t **members, int32_t *n_members, int32_t **abs_from, int32_t **abs_to,
		 int32_t *n_abs)
{
	const struct dataflow *df = an->df;
	const struct buffers *B = an->bufs;
	memset(M, 0, sizeof(*M));
	int32_t s = dataflow_unique_value(df, copy->operands[0], 0);
	int32_t c = dataflow_value_defined_at(df, copy, 0);
	if (s < 0 || c < 0)
		return -1;
	M->copy_value = c;
	M->source_value = s;
	const struct hlo_buffer *bs = &B->buffers[B->buffer_of[s]], *bc = &B->buffers[B->buffer_of[c]];
	int32_t n = bs->n_values + (bs == bc ? 0 : bc->n_values);
	/* u and sigma in one block, members, abs_from and abs_to in another
	 * (freed with members): a malloc per array was a lock per copy under
	 * --jobs */
	M->u = malloc(2 * ((size_t)n + 1) * sizeof(int32_t));
	if (!M->u)
		die("out of memory");
	M->sigma = M->u + n + 1;
	memcpy(M->u, bs->values, (size_t)bs->n_values * sizeof(int32_t));
	if (bs != bc)
		memcpy(M->u + bs->n_values, bc->values, (size_t)bc->n_values * sizeof(int32_t));
	M->n_u = n;
	qsort(M->u, (size_t)n, sizeof(int32_t), cmp_i32);
	for (int32_t i = 0; i < n; i++)
		M->sigma[i] = M->u[i];
	M->sigma[find_u(M, c)] = s;
	if (collapse_phis(df, M) < 0)
		return -2;
	*members = malloc(3 * ((size_t)n + 1) * sizeof(int32_t));
	if (!*members)
		die("out of memory");
	*abs_from = *members + n + 1;
	*abs_to = *members + 2 * ((size_t)n + 1);
	*n_members = *n_abs = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t v = M->u[i], r = resolve(M, v);
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
	int rc = merge(an, copy, &M, &mem, &nm, &af, &at, &na);
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

static int in_embedded_computation(const struct hlo_instruction *x)
{
	const struct hlo_computation *k = x->parent;
	for (int32_t g = 0; !k->is_entry && k->n_callers > 0 && g <= k->module->n_comps; g++) {
		if (k->callers[0].context == CALL_EMBEDDED)
			return 1;
		k = k->callers[0].instr->parent;
	}
	return 0;
}

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

/* The removal verdict from the rewritten module's own buffer of s.
 * Returns 0 with out filled, -1 when the rewrite is refused (out untouched). */
static int decide_by_rewrite(struct analysis *an, const struct hlo_instruction *copy,
			     struct copy_report *out)
{
	struct arena *A = &an->m->arena;
	int64_t n_instrs = 0;
	for (int32_t k = 0; k < an->m->n_comps; k++)
		n_instrs += an->m->comps[k]->n_instrs;
	const char *why = NULL;
	struct hlo_module *w = NULL;
	struct analysis *aw = NULL;
	struct diag d;
	diag_init(&d, NULL);
	if (n_instrs > REWRITE_MAX_INSTRUCTIONS)
		why = "a loop phi group would no longer collapse after the removal, and the module is "
		      "too large to analyse again per copy";
	else if (!(w = hlo_module_without_copy(an->m, copy, &d)))
		why = "a loop phi group would no longer collapse after the removal, and the rewritten "
		      "module could not be built";
	else if (!(aw = analysis_run(w, &an->opt, &d)))
		why = "a loop phi group would no longer collapse after the removal, and the rewritten "
		      "module could not be analysed";
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
	const struct hlo_instruction *src = same_instr(w, copy->operands[0]);
	int32_t s = src ? dataflow_unique_value(aw->df, src, 0) : -1;
	struct buffer_verdict bv;
	memset(&bv, 0, sizeof(bv));
	if (s < 0 || hazards_decide_buffer(aw, aw->bufs->buffer_of[s], &bv) < 0) {
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
		  "analysed again (loop phis that collapse onto %s stay phis once they reach %s, a phi)\n%s",
		  copy->operands[0]->name, copy->name, aw->bufs->buffers[aw->bufs->buffer_of[s]].n_values,
		  copy->name, copy->operands[0]->name, bv.evidence ? bv.evidence : "");
	out->evidence = sb_finish(&b, A);
	analysis_free(aw);
	hlo_module_free(w);
	return 0;
}

int copy_analyse_one(struct analysis *an, const struct hlo_instruction *copy,
		     struct copy_report *out)
{
	struct arena *A = &an->m->arena;
	memset(out, 0, sizeof(*out));
	if (!copy || copy->opcode != OP_COPY || copy->n_operands != 1)
		return -1;
	out->copy = copy;
	out->bytes = copy->shape ? copy->shape->bytes : 0;
	out->family = copy_family_of(an, copy, &out->family_evidence);
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
	struct merged M;
	int32_t *mem = NULL, *af = NULL, *at = NULL, nm = 0, na = 0;
	int rc = merge(an, copy, &M, &mem, &nm, &af, &at, &na);
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
		if (decide_by_rewrite(an, copy, out) < 0)
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
	sb_printf(&b, "merged buffer of %s and %s after removal: %d value(s)", copy->operands[0]->name,
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

int32_t copies_analyse(struct analysis *an, struct copy_report **out)
{
	const struct hlo_module *m = an->m;
	int32_t n = 0;
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *c = m->comps[k];
		for (int32_t i = 0; i < c->n_instrs; i++)
			if (c->instrs[i]->opcode == OP_COPY && !in_embedded_computation(c->instrs[i]))
				n++;
	}
	*out = arena_array(&an->m->arena, (size_t)n + 1, sizeof(struct copy_report));
	int32_t j = 0;
	for (int32_t k = 0; k < m->n_comps; k++) {
		const struct hlo_computation *c = m->comps[k];
		for (int32_t i = 0; i < c->n_instrs; i++) {
			const struct hlo_instruction *x = c->instrs[i];
			if (x->opcode != OP_COPY || in_embedded_computation(x))
				continue;
			if (budget_expired(&an->opt.budget)) {
				/* listed, not decided: no family, no verdict */
				struct copy_report *r = &(*out)[j++];
				memset(r, 0, sizeof(*r));
				r->copy = x;
				r->family = FAMILY_UNEXPLAINED;
				r->family_evidence = arena_strdup(&an->m->arena, "not analysed: " BUDGET_EXHAUSTED_REASON);
				r->given = m->is_scheduled ? VERDICT_UNKNOWN : VERDICT_NONE;
				r->any = VERDICT_UNKNOWN;
				r->unknown_reason = arena_strdup(&an->m->arena, BUDGET_EXHAUSTED_REASON);
				r->bytes = x->shape ? x->shape->bytes : 0;
				continue;
			}
			if (copy_analyse_one(an, x, &(*out)[j]) < 0)
				return -1;
			j++;
		}
	}
	return j;
}

/* ---- for the rules and reporters ---- */

struct copy_verdicts *copy_verdicts_run(struct hlo_module *m, const struct analysis_options *opt,
					struct diag *d)
{
	struct analysis *an = analysis_run(m, opt, d);
	if (!an)
		return NULL;
	struct copy_verdicts *cv = calloc(1, sizeof(*cv));
	if (!cv)
		die("out of memory");
	cv->an = an;
	cv->n_copies = copies_analyse(an, &cv->copies);
	cv->n_hazards = hazards_analyse(an, &cv->hazards);
	if (cv->n_copies < 0 || cv->n_hazards < 0) {
		copy_verdicts_free(cv);
		return NULL;
	}
	return cv;
}

void copy_verdicts_free(struct copy_verdicts *cv)
{
	if (!cv)
		return;
	analysis_free(cv->an);
	free(cv);
}

struct copy_summaries *copy_summaries_build(const struct copy_verdicts *cv, struct arena *a)
{
	struct copy_summaries *s = arena_alloc(a, sizeof(*s));
	s->n = cv ? cv->n_copies : 0;
	s->v = arena_array(a, (size_t)s->n + 1, sizeof(*s->v));
	for (int32_t i = 0; i < s->n; i++) {
		const struct copy_report *r = &cv->copies[i];
		struct copy_summary *o = &s->v[i];
		o->name = arena_strdup(a, r->copy->name);
		o->computation = arena_strdup(a, r->copy->parent->name);
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
	}
	return s;
}

const struct copy_verdicts *copy_verdicts_for_rule(const void *given, const struct hlo_module *m,
						   long timeout_ms, int *owned)
{
	*owned = 0;
	if (given)
		return given;
	struct analysis_options opt;
	analysis_default_options(&opt);
	if (timeout_ms > 0)
		opt.timeout_ms = (int)timeout_ms;
	struct diag d;
	diag_init(&d, NULL);
	/* the analyses allocate in the module's arena; the IR itself is not touched */
	struct copy_verdicts *cv = copy_verdicts_run((struct hlo_module *)m, &opt, &d);
	*owned = cv != NULL;
	return cv;
}
