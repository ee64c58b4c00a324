/* buffers.c - HloAliasAnalysis: union the values that must share storage
 * (input/output aliases, while and conditional joins, in-place pairs), as in
 * xla/hlo/analysis/hlo_alias_analysis.cc. The partition equals XLA's; buffer
 * ids here follow each buffer's smallest value id. */
#include "buffers.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

static int32_t uf_find(int32_t *p, int32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static void uf_union(int32_t *p, int32_t a, int32_t b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a < b)
		p[b] = a;
	else if (b < a)
		p[a] = b;
}

static void union_with_set(int32_t *p, int32_t v, const struct value_set *s)
{
	const int32_t *ids = value_set_ids(s);
	for (int32_t k = 0; k < s->n; k++)
		uf_union(p, v, ids[k]);
}

/* io alias per entry root sub (NULL where none) */
static const struct io_alias **output_alias_table(const struct dataflow *df, struct arena *a)
{
	const struct hlo_module *m = df->module;
	if (!m->entry || !m->entry->root)
		return NULL;
	const struct hlo_instruction *root = m->entry->root;
	const struct io_alias **t = arena_array(a, (size_t)dataflow_tree(df, root)->n, sizeof(*t));
	for (int32_t k = 0; k < m->n_aliases; k++) {
		int32_t s = dataflow_sub(df, root, m->aliases[k].output.idx, m->aliases[k].output.n);
		if (s >= 0 && !t[s])
			t[s] = &m->aliases[k];
	}
	return t;
}

/* The entry parameter instruction aliased by an io alias, and its sub. */
static const struct hlo_instruction *alias_param(const struct dataflow *df,
						 const struct io_alias *al, int32_t *sub)
{
	const struct hlo_computation *e = df->module->entry;
	if (al->param < 0 || al->param >= e->n_params || !e->params[al->param])
		return NULL;
	const struct hlo_instruction *p = e->params[al->param];
	*sub = dataflow_sub(df, p, al->param_index.idx, al->param_index.n);
	return *sub >= 0 ? p : NULL;
}

struct buffers *buffers_build(const struct dataflow *df, const struct inplace *ip, struct arena *a)
{
	const struct hlo_module *m = df->module;
	struct buffers *b = arena_alloc(a, sizeof(*b));
	b->df = df;
	b->ip = ip;
	int32_t nv = df->n_values;
	int32_t *p = xmalloc(((size_t)nv + 1), sizeof(int32_t));
	for (int32_t v = 0; v < nv; v++)
		p[v] = v;
	const struct hlo_instruction *eroot = m->entry ? m->entry->root : NULL;
	const struct io_alias **ralias = output_alias_table(df, a);

	for (int32_t v = 0; v < nv; v++) {
		const struct hlo_value *val = &df->values[v];
		/* 1. input/output aliases */
		for (int32_t q = 0; ralias && q < val->n_positions; q++) {
			const struct value_position *pos = &val->positions[q];
			if (pos->instr != eroot || !ralias[pos->sub])
				continue;
			int32_t ps;
			const struct hlo_instruction *param = alias_param(df, ralias[pos->sub], &ps);
			if (param)
				union_with_set(p, v, dataflow_set(df, param, ps));
		}
		/* 2. while: uses by a while, body/condition parameters, body roots */
		for (int32_t u = 0; u < val->n_uses; u++) {
			const struct value_use *use = &val->uses[u];
			if (use->instr->opcode == OP_WHILE && use->sub < dataflow_tree(df, use->instr)->n)
				union_with_set(p, v, dataflow_set(df, use->instr, use->sub));
		}
		if (val->def->opcode == OP_PARAMETER) {
			const struct hlo_computation *c = val->def->parent;
			for (int32_t cs = 0; cs < c->n_callers; cs++) {
				const struct hlo_instruction *w = c->callers[cs].instr;
				if (w->opcode == OP_WHILE && val->sub < dataflow_tree(df, w)->n)
					union_with_set(p, v, dataflow_set(df, w, val->sub));
			}
		}
		for (int32_t q = 0; q < val->n_positions; q++) {
			const struct value_position *pos = &val->positions[q];
			const struct hlo_computation *c = pos->instr->parent;
			if (c->root != pos->instr)
				continue;
			for (int32_t cs = 0; cs < c->n_callers; cs++) {
				const struct hlo_instruction *w = c->callers[cs].instr;
				/* 2. body root joins the while; 3. branch roots join the conditional */
				if (((w->opcode == OP_WHILE && w->ext->body == c) || w->opcode == OP_CONDITIONAL) &&
				    pos->sub < dataflow_tree(df, w)->n)
					union_with_set(p, v, dataflow_set(df, w, pos->sub));
			}
		}
		/* 4. in-place pairs, from the output side and from the operand side */
		for (int32_t q = 0; q < val->n_positions; q++) {
			const struct value_position *pos = &val->positions[q];
			const struct inplace_pair *pr;
			int32_t np = inplace_pairs(ip, pos->instr, &pr);
			for (int32_t k = 0; k < np; k++)
				if (pr[k].output_sub == pos->sub)
					union_with_set(p, v, dataflow_set(df, pos->instr->operands[pr[k].operand],
									  pr[k].operand_sub));
		}
		for (int32_t u = 0; u < val->n_uses; u++) {
			const struct value_use *use = &val->uses[u];
			const struct inplace_pair *pr;
			int32_t np = inplace_pairs(ip, use->instr, &pr);
			for (int32_t k = 0; k < np; k++)
				if (pr[k].operand == use->operand && pr[k].operand_sub == use->sub)
					union_with_set(p, v, dataflow_set(df, use->instr, pr[k].output_sub));
		}
	}

	/* number the buffers by smallest value id; values ascending */
	b->buffer_of = arena_array(a, (size_t)nv + 1, sizeof(int32_t));
	int32_t *count = xcalloc((size_t)nv + 1, sizeof(int32_t));
	int32_t nb = 0;
	for (int32_t v = 0; v < nv; v++) {
		int32_t r = uf_find(p, v);
		if (r == v)
			b->buffer_of[v] = nb++;
		else
			b->buffer_of[v] = b->buffer_of[r]; /* r < v: numbered already */
		count[b->buffer_of[v]]++;
	}
	b->n_buffers = nb;
	b->buffers = arena_array(a, (size_t)nb + 1, sizeof(struct hlo_buffer));
	/* every buffer's values in one block: most buffers hold one value, and
	 * an arena allocation of its own takes 16 bytes for those 4 */
	int32_t *block = arena_array(a, (size_t)nv + 1, sizeof(int32_t));
	size_t off = 0;
	for (int32_t k = 0; k < nb; k++) {
		if (count[k] > HLO_BUFFER_MAX_VALUES)
			die("a buffer of more than %d values", HLO_BUFFER_MAX_VALUES);
		b->buffers[k].id = k;
		b->buffers[k].values = block + off;
		off += (size_t)count[k];
	}
	free(count);
	free(p);

	/* read-only values: constants and entry parameters at non-aliased indices */
	b->value_read_only = arena_array(a, (size_t)nv + 1, 1);
	for (int32_t v = 0; v < nv; v++) {
		const struct hlo_value *val = &df->values[v];
		struct hlo_buffer *buf = &b->buffers[b->buffer_of[v]];
		buf->values[buf->n_values++] = v;
		const struct shape *s = dataflow_subshape(df, val->def, val->sub);
		if (s && s->bytes > buf->bytes)
			buf->bytes = s->bytes;
		int entry_param = val->def->opcode == OP_PARAMETER && m->entry &&
				  val->def->parent == m->entry;
		if (entry_param) {
			buf->flags |= BUF_ENTRY_PARAM;
			int aliased = 0;
			int32_t idx[SHAPE_MAX_DEPTH + 1];
			int32_t n = dataflow_value_index(df, val, idx);
			for (int32_t k = 0; k < m->n_aliases && !aliased; k++) {
				const struct io_alias *al = &m->aliases[k];
				aliased = al->param == val->def->parameter_number && al->param_index.n == n &&
					  (n == 0 || !memcmp(al->param_index.idx, idx, (size_t)n * sizeof(int32_t)));
			}
			b->value_read_only[v] = !aliased;
		}
		if (val->def->opcode == OP_CONSTANT)
			b->value_read_only[v] = 1;
		if (b->value_read_only[v])
			buf->flags |= BUF_READ_ONLY;
		if (val->live_out)
			buf->flags |= BUF_LIVE_OUT;
		for (int32_t q = 0; ralias && q < val->n_positions; q++)
			if (val->positions[q].instr == eroot && ralias[val->positions[q].sub])
				buf->flags |= BUF_ALIASED_OUTPUT;
	}
	b->root_alias = ralias;
	return b;
}

int32_t buffers_at(const struct buffers *b, const struct hlo_instruction *i, int32_t sub,
		   int32_t *out)
{
	const struct value_set *vs = dataflow_set(b->df, i, sub);
	const int32_t *ids = value_set_ids(vs);
	int32_t n = 0;
	for (int32_t k = 0; k < vs->n; k++) {
		int32_t id = b->buffer_of[ids[k]], j = n;
		int dup = 0;
		for (int32_t q = 0; q < n && !dup; q++)
			dup = out[q] == id;
		if (dup)
			continue;
		/* insertion sort: value sets are small */
		while (j > 0 && out[j - 1] > id) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = id;
		n++;
	}
	return n;
}

const struct io_alias *buffers_output_alias(const struct buffers *b, int32_t root_sub)
{
	return b->root_alias && root_sub >= 0 ? b->root_alias[root_sub] : NULL;
}

int buffers_instruction_ambiguous(const struct buffers *b, const struct hlo_instruction *i)
{
	const struct shape_tree *t = dataflow_tree(b->df, i);
	for (int32_t s = 0; s < t->n; s++) {
		const struct value_set *vs = dataflow_set(b->df, i, s);
		const int32_t *ids = value_set_ids(vs);
		for (int32_t k = 1; k < vs->n; k++)
			if (b->buffer_of[ids[k]] != b->buffer_of[ids[0]])
				return 1;
	}
	return 0;
}

int buffers_instruction_distinct(const struct buffers *b, const struct hlo_instruction *i)
{
	const struct shape_tree *t = dataflow_tree(b->df, i);
	uint8_t *seen = xcalloc((size_t)b->n_buffers + 1, 1);
	int distinct = 1;
	for (int32_t s = 0; s < t->n && distinct; s++) {
		const struct value_set *vs = dataflow_set(b->df, i, s);
		const int32_t *ids = value_set_ids(vs);
		/* XLA checks every buffer of this index against earlier indices
		 * before adding them, so one buffer twice at one index is fine */
		for (int32_t k = 0; k < vs->n && distinct; k++)
			if (seen[b->buffer_of[ids[k]]] == 1)
				distinct = 0;
		for (int32_t k = 0; k < vs->n; k++)
			seen[b->buffer_of[ids[k]]] = 1;
	}
	free(seen);
	return distinct;
}
