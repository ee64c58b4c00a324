/* inplace.c - in-place input/output pairs, following xla/hlo/analysis/alias_info.cc
 * with the default (CPU) AliasInfo: no backend overrides, bitcast is the only
 * no-op wrapper skipped while tracing fusions. */
#include "inplace.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int contains_ignore_case(const char *hay, const char *needle)
{
	if (!hay || !needle)
		return 0;
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++) {
		size_t k = 0;
		while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)needle[k]))
			k++;
		if (k == n)
			return 1;
	}
	return 0;
}

/* A shape index small enough for the stack. */
struct sidx {
	int32_t n;
	int32_t v[SHAPE_MAX_DEPTH + 1];
};

struct pairvec {
	struct inplace_pair *v;
	int32_t n, cap;
};

static void pv_add(struct pairvec *p, struct inplace_pair x)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->v = xrealloc(p->v, (size_t)p->cap, sizeof(*p->v));
	}
	p->v[p->n++] = x;
}

static void pv_push(struct pairvec *p, int32_t k, int32_t osub, int32_t outsub)
{
	if (osub < 0 || outsub < 0)
		return;
	pv_add(p, (struct inplace_pair){k, osub, outsub});
}

/* Instructions are done in the order fusions need them, not by gid: their
 * pairs go to `all` as they come, then to the index in gid order. */
struct ctx {
	struct inplace *ip;
	uint8_t *state;  /* [gid]: 0 not done, 1 in progress, 2 done */
	int32_t *start;  /* [gid]: first pair in all */
	int32_t *count;  /* [gid] */
	struct pairvec all;
};

/* Pair q of a done instruction (by value: `all` moves as it grows). */
static struct inplace_pair pair_at(const struct ctx *c, const struct hlo_instruction *i, int32_t q)
{
	return c->all.v[c->start[i->gid] + q];
}

static void compute(struct ctx *c, const struct hlo_instruction *i, int depth);

static int32_t sub_at(const struct dataflow *df, const struct hlo_instruction *i,
		      const struct sidx *x)
{
	return dataflow_sub(df, i, x->v, x->n);
}

static int32_t sub_of_index(const struct dataflow *df, const struct hlo_instruction *i,
			    const struct shape_index *x)
{
	return dataflow_sub(df, i, x->idx, x->n);
}

/* FollowTupleIndirection then FollowNoOpIndirection (bitcast only). */
static const struct hlo_instruction *follow(const struct hlo_instruction *i, struct sidx *x)
{
	while (i->opcode == OP_TUPLE && x->n > 0) {
		if (x->v[0] < 0 || x->v[0] >= i->n_operands)
			return i;
		i = i->operands[x->v[0]];
		memmove(x->v, x->v + 1, (size_t)(x->n - 1) * sizeof(int32_t));
		x->n--;
	}
	while (i->opcode == OP_GET_TUPLE_ELEMENT && i->n_operands == 1) {
		if (x->n > SHAPE_MAX_DEPTH - 1 || i->tuple_index < 0 || i->tuple_index > INT32_MAX)
			return i;
		memmove(x->v + 1, x->v, (size_t)x->n * sizeof(int32_t));
		x->v[0] = (int32_t)i->tuple_index;
		x->n++;
		i = i->operands[0];
	}
	while (x->n == 0 && i->opcode == OP_BITCAST && i->n_operands >= 1)
		i = i->operands[0];
	return i;
}

static void index_of_sub(const struct dataflow *df, const struct hlo_instruction *i, int32_t sub,
			 struct sidx *x)
{
	x->n = shape_tree_index(dataflow_tree(df, i), sub, x->v);
}

static void add_out_aliases(const struct dataflow *df, const struct hlo_instruction *i,
			    struct pairvec *p)
{
	for (int32_t k = 0; k < i->ext->n_out_aliases; k++) {
		const struct operand_alias *oa = &i->ext->out_aliases[k];
		if (oa->operand < 0 || oa->operand >= i->n_operands)
			continue;
		pv_push(p, oa->operand, sub_of_index(df, i->operands[oa->operand], &oa->operand_index),
			sub_of_index(df, i, &oa->output));
	}
}

static void fusion_pairs(struct ctx *c, const struct hlo_instruction *f, struct pairvec *p,
			 int depth)
{
	const struct dataflow *df = c->ip->df;
	struct hlo_computation *fc = f->ext->calls ? f->ext->calls : (f->n_called > 0 ? f->called[0] : NULL);
	if (!fc || !fc->root)
		return;
	const struct shape_tree *t = dataflow_tree(df, f);
	for (int32_t o = 0; o < t->n; o++) {
		if (t->nk[o] >= 0)
			continue; /* leaves only */
		struct sidx x;
		index_of_sub(df, f, o, &x);
		const struct hlo_instruction *src = follow(fc->root, &x);
		compute(c, src, depth + 1);
		int32_t src_sub = sub_at(df, src, &x);
		const struct hlo_instruction *in_src = NULL;
		struct sidx in_idx = {0};
		int32_t ns = c->count[src->gid];
		for (int32_t q = 0; q < ns; q++) {
			struct inplace_pair sp = pair_at(c, src, q);
			if (sp.output_sub != src_sub)
				continue;
			in_src = src->operands[sp.operand];
			index_of_sub(df, in_src, sp.operand_sub, &in_idx);
			in_src = follow(in_src, &in_idx);
			if (in_src->opcode == OP_FUSION) {
				/* peephole through a nested fusion's matching pair */
				compute(c, in_src, depth + 1);
				const struct hlo_instruction *nested = in_src;
				int32_t nn = c->count[nested->gid];
				/* as XLA: each later pair is matched against the index
				 * reached so far, and indexes the source reached so far */
				for (int32_t r = 0; r < nn; r++) {
					struct inplace_pair np = pair_at(c, nested, r);
					struct sidx out;
					index_of_sub(df, nested, np.output_sub, &out);
					if (out.n != in_idx.n ||
					    memcmp(out.v, in_idx.v, (size_t)out.n * sizeof(int32_t)) ||
					    np.operand >= in_src->n_operands)
						continue;
					const struct hlo_instruction *next = in_src->operands[np.operand];
					index_of_sub(df, nested->operands[np.operand], np.operand_sub,
						     &in_idx);
					in_src = follow(next, &in_idx);
				}
			}
		}
		if (in_src && in_src->opcode == OP_PARAMETER && in_src->parameter_number >= 0 &&
		    in_src->parameter_number < f->n_operands) {
			int32_t k = (int32_t)in_src->parameter_number;
			pv_push(p, k, sub_at(df, f->operands[k], &in_idx), o);
		}
	}
}

/* Fusion nesting deeper than this is not traced (no pairs); real fusions nest
 * a few levels at most. */
#define INPLACE_MAX_FUSION_DEPTH 256

static void compute(struct ctx *c, const struct hlo_instruction *i, int depth)
{
	if (c->state[i->gid])
		return; /* done, or a cycle through malformed input */
	c->state[i->gid] = 1;
	const struct dataflow *df = c->ip->df;
	struct pairvec p = {0};
	int32_t n = i->n_operands;
	switch ((enum opcode)i->opcode) {
	case OP_ALL_REDUCE_START:
		if (contains_ignore_case(i->ext->backend_config, "nvshmem"))
			break;
		/* fall through */
	case OP_DYNAMIC_UPDATE_SLICE:
	case OP_SCATTER: {
		int32_t k = n;
		if (i->opcode == OP_SCATTER)
			k = (n - 1) / 2;
		else if (i->opcode == OP_DYNAMIC_UPDATE_SLICE)
			k = 1;
		if (k == 1) {
			if (n >= 1)
				pv_push(&p, 0, 0, 0);
		} else {
			for (int32_t q = 0; q < k && q < n; q++) {
				int32_t idx[1] = {q};
				pv_push(&p, q, 0, dataflow_sub(df, i, idx, 1));
			}
		}
		break;
	}
	case OP_COLLECTIVE_PERMUTE:
	case OP_COLLECTIVE_PERMUTE_START: {
		if (n != 4)
			break;
		int start = i->opcode == OP_COLLECTIVE_PERMUTE_START;
		const struct shape_tree *t1 = dataflow_tree(df, i->operands[1]);
		int32_t top[1] = {1};
		pv_push(&p, 1, 0, start ? dataflow_sub(df, i, top, 1) : 0);
		for (int32_t q = 0; t1->nk[0] >= 0 && q < t1->nk[0]; q++) {
			int32_t out[2] = {1, q};
			pv_push(&p, 1, shape_tree_child(t1, 0, q),
				start ? dataflow_sub(df, i, out, 2) : dataflow_sub(df, i, &q, 1));
		}
		break;
	}
	case OP_CUSTOM_CALL:
	case OP_ASYNC_START:
		add_out_aliases(df, i, &p);
		break;
	case OP_FUSION:
		if (depth < INPLACE_MAX_FUSION_DEPTH)
			fusion_pairs(c, i, &p, depth);
		add_out_aliases(df, i, &p);
		break;
	case OP_SET_DIMENSION_SIZE:
		if (n >= 1)
			pv_push(&p, 0, 0, 0);
		break;
	case OP_RAGGED_ALL_TO_ALL:
		if (n >= 2)
			pv_push(&p, 1, 0, 0);
		break;
	default:
		break;
	}
	c->start[i->gid] = c->all.n;
	c->count[i->gid] = p.n;
	for (int32_t q = 0; q < p.n; q++)
		pv_add(&c->all, p.v[q]);
	free(p.v);
	c->state[i->gid] = 2;
}

struct inplace *inplace_build(const struct dataflow *df, struct arena *a)
{
	struct inplace *ip = arena_alloc(a, sizeof(*ip));
	ip->df = df;
	size_t n = (size_t)df->n_instrs + 1;
	struct ctx c = {ip, heap_calloc_huge(n, 1), heap_calloc_huge(n, sizeof(int32_t)),
			heap_calloc_huge(n, sizeof(int32_t)), {0}};
	for (int32_t g = 0; g < df->n_instrs; g++)
		compute(&c, df->instr[g], 0);
	ip->off = arena_array(a, n, sizeof(int32_t));
	ip->pairs = arena_array(a, (size_t)c.all.n + 1, sizeof(*ip->pairs));
	int32_t k = 0;
	for (int32_t g = 0; g < df->n_instrs; g++) {
		ip->off[g] = k;
		if (c.count[g])
			memcpy(ip->pairs + k, c.all.v + c.start[g], (size_t)c.count[g] * sizeof(*ip->pairs));
		k += c.count[g];
	}
	ip->off[df->n_instrs] = k;
	free(c.state);
	free(c.start);
	free(c.count);
	free(c.all.v);
	return ip;
}
