/* rewrite.c - the module with one copy removed (rewrite.h). */
#include "rewrite.h"
#include "htab.h"
#include "instrmap.h"
#include "reorder.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The printer reprints control-predecessors from the attribute's text (it
 * keeps attributes in their printed order): rebuild it from ctrl_preds, or
 * drop it when none is left. */
static void ctrl_attr_in(struct arena *A, struct hlo_instruction *x)
{
	for (int32_t a = 0; a < x->n_attrs; a++) {
		if (strcmp(x->attrs[a].name, "control-predecessors"))
			continue;
		if (x->ext->n_ctrl_preds == 0) {
			memmove(&x->attrs[a], &x->attrs[a + 1], (size_t)(x->n_attrs - a - 1) * sizeof(x->attrs[0]));
			x->n_attrs--;
			return;
		}
		size_t len = 3;
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			len += strlen(x->ext->ctrl_preds[j]->name) + 3;
		char *v = arena_alloc(A, len), *o = v;
		*o++ = '{';
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			o += sprintf(o, "%s%%%s", j ? ", " : "", x->ext->ctrl_preds[j]->name);
		*o++ = '}';
		*o = 0;
		x->attrs[a].value = v;
		return;
	}
}

static void rewrite_ctrl_attr(struct hlo_module *w, struct hlo_instruction *x)
{
	ctrl_attr_in(&w->arena, x);
}

/* x's control-predecessors attribute, added when missing, and its text
 * rewritten from x's predecessors (ctrl_attr_in) */
static void ctrl_attr_ensure(struct arena *A, struct hlo_instruction *x)
{
	int has = 0;
	for (int32_t a = 0; a < x->n_attrs; a++)
		has |= !strcmp(x->attrs[a].name, "control-predecessors");
	if (!has) {
		struct hlo_attr *at = arena_array(A, (size_t)x->n_attrs + 1, sizeof(*at));
		if (x->n_attrs)
			memcpy(at, x->attrs, (size_t)x->n_attrs * sizeof(*at));
		at[x->n_attrs].name = "control-predecessors";
		at[x->n_attrs].value = "{}";
		x->attrs = at;
		x->n_attrs++;
	}
	ctrl_attr_in(A, x);
}

/* Add p to x's control predecessors (once) and to the printed attribute;
 * memory from A. Writes x's ext and attribute array: the caller owns them. */
static void add_ctrl_pred_in(struct arena *A, struct hlo_instruction *x, struct hlo_instruction *p)
{
	struct hlo_instr_ext *e = x->ext;
	for (int32_t j = 0; j < e->n_ctrl_preds; j++)
		if (e->ctrl_preds[j] == p)
			return;
	if (e == HLO_NO_EXT) {
		e = arena_alloc(A, sizeof(*e));
		memset(e, 0, sizeof(*e));
		x->ext = e;
	}
	struct hlo_instruction **v = arena_array(A, (size_t)e->n_ctrl_preds + 1, sizeof(*v));
	if (e->n_ctrl_preds)
		memcpy(v, e->ctrl_preds, (size_t)e->n_ctrl_preds * sizeof(*v));
	v[e->n_ctrl_preds++] = p;
	e->ctrl_preds = v;
	ctrl_attr_ensure(A, x);
}

/* The same for p[0..n) at once, in that order (each once): one array and
 * one attribute text for all of them, where one at a time copied both per
 * predecessor (a repair can order tens of thousands of reads before one
 * write). */
static void add_ctrl_preds_in(struct arena *A, struct hlo_instruction *x, struct hlo_instruction *const *p,
			      int32_t n)
{
	if (n == 1) {
		add_ctrl_pred_in(A, x, p[0]);
		return;
	}
	struct hlo_instr_ext *e = x->ext;
	if (e == HLO_NO_EXT) {
		e = arena_alloc(A, sizeof(*e));
		memset(e, 0, sizeof(*e));
		x->ext = e;
	}
	struct htab seen;
	htab_init(&seen, (size_t)(e->n_ctrl_preds + n));
	struct hlo_instruction **v = arena_array(A, (size_t)(e->n_ctrl_preds + n) + 1, sizeof(*v));
	int32_t k = 0;
	for (int32_t j = 0; j < e->n_ctrl_preds + n; j++) {
		struct hlo_instruction *y = j < e->n_ctrl_preds ? e->ctrl_preds[j] : p[j - e->n_ctrl_preds];
		int added;
		htab_put(&seen, (uint64_t)(uintptr_t)y, &added);
		if (added)
			v[k++] = y;
	}
	htab_free(&seen);
	if (k == e->n_ctrl_preds)
		return;
	e->ctrl_preds = v;
	e->n_ctrl_preds = k;
	ctrl_attr_ensure(A, x);
}

/* x's control successors and s[0..n) (each once) */
static void add_ctrl_succs_in(struct arena *A, struct hlo_instruction *x, struct hlo_instruction *const *s,
			      int32_t n)
{
	struct hlo_instr_ext *e = x->ext;
	struct htab seen;
	htab_init(&seen, (size_t)(e->n_ctrl_succs + n));
	struct hlo_instruction **v = arena_array(A, (size_t)(e->n_ctrl_succs + n) + 1, sizeof(*v));
	int32_t k = 0;
	for (int32_t j = 0; j < e->n_ctrl_succs + n; j++) {
		struct hlo_instruction *y = j < e->n_ctrl_succs ? e->ctrl_succs[j] : s[j - e->n_ctrl_succs];
		int added;
		htab_put(&seen, (uint64_t)(uintptr_t)y, &added);
		if (added)
			v[k++] = y;
	}
	htab_free(&seen);
	e->ctrl_succs = v;
	e->n_ctrl_succs = k;
}

/* The edges a[i] -> b[i] grouped by b (by a when by_from), each group in
 * the edges' order: ord[0..n) are edge indices, runs of one endpoint. */
static int32_t *edges_grouped(int32_t n, struct hlo_instruction *const *a, struct hlo_instruction *const *b,
			      int by_from)
{
	struct hlo_instruction *const *key = by_from ? a : b;
	struct htab first; /* endpoint -> its group's number */
	htab_init(&first, (size_t)n);
	int32_t *grp = xmalloc((size_t)n + 1, sizeof(int32_t)), *cnt = xcalloc((size_t)n + 2, sizeof(int32_t));
	int32_t ng = 0;
	for (int32_t i = 0; i < n; i++) {
		int added;
		uint64_t *g = htab_put(&first, (uint64_t)(uintptr_t)key[i], &added);
		if (added)
			*g = (uint64_t)ng++;
		grp[i] = (int32_t)*g;
		cnt[grp[i] + 1]++;
	}
	htab_free(&first);
	for (int32_t g = 0; g < ng; g++)
		cnt[g + 1] += cnt[g];
	int32_t *ord = xmalloc((size_t)n + 1, sizeof(int32_t));
	for (int32_t i = 0; i < n; i++)
		ord[cnt[grp[i]]++] = i;
	free(grp);
	free(cnt);
	return ord;
}

/* ---- control edges put into a module for a while (rewrite.h) ---- */

struct edge_swap {
	struct hlo_instruction *x;
	struct hlo_instr_ext *ext[2];   /* [0] the module's own, [1] with the edges */
	struct hlo_attr *attrs[2];
	int32_t n_attrs[2];
};

struct hlo_edge_set {
	int32_t n;
	struct edge_swap *s;
	struct htab at; /* instruction -> its record (while the set is prepared) */
};

/* x's record, made on first use: x then holds private copies of its ext
 * and attribute array (the module's own are never written) */
static struct edge_swap *swap_of(struct hlo_edge_set *E, struct arena *A, struct hlo_instruction *x)
{
	int added;
	uint64_t *i = htab_put(&E->at, (uint64_t)(uintptr_t)x, &added);
	if (!added)
		return &E->s[*i];
	*i = (uint64_t)E->n;
	struct edge_swap *s = &E->s[E->n++];
	s->x = x;
	s->ext[0] = x->ext;
	s->attrs[0] = x->attrs;
	s->n_attrs[0] = x->n_attrs;
	struct hlo_instr_ext *e = arena_alloc(A, sizeof(*e));
	*e = *x->ext;
	x->ext = e;
	if (x->n_attrs) {
		x->attrs = arena_array(A, (size_t)x->n_attrs, sizeof(*x->attrs));
		memcpy(x->attrs, s->attrs[0], (size_t)x->n_attrs * sizeof(*x->attrs));
	}
	return s;
}

static void swap_to(struct hlo_edge_set *E, int k)
{
	for (int32_t i = 0; i < E->n; i++) {
		struct edge_swap *s = &E->s[i];
		s->x->ext = s->ext[k];
		s->x->attrs = s->attrs[k];
		s->x->n_attrs = s->n_attrs[k];
	}
}

/* The module's own (non-const) instruction x, or NULL when x is not m's. */
static struct hlo_instruction *own_instr(struct hlo_module *m, const struct hlo_instruction *x)
{
	const struct hlo_computation *k = x->parent;
	if (k->module != m || k->index < 0 || k->index >= m->n_comps || m->comps[k->index] != k ||
	    x->index < 0 || x->index >= k->n_instrs || k->instrs[x->index] != x)
		return NULL;
	return m->comps[k->index]->instrs[x->index];
}

/* v[0..*n) without x, in a new array from A */
static struct hlo_instruction **without(struct arena *A, struct hlo_instruction **v, int32_t *n,
					const struct hlo_instruction *x)
{
	struct hlo_instruction **w = arena_array(A, (size_t)*n + 1, sizeof(*w));
	int32_t k = 0;
	for (int32_t i = 0; i < *n; i++)
		if (v[i] != x)
			w[k++] = v[i];
	*n = k;
	return w;
}

/* x's control edges dropped, in the set's records of x and its neighbours */
static void strip_ctrl_in(struct hlo_edge_set *E, struct arena *A, struct hlo_instruction *x)
{
	struct edge_swap *sx = swap_of(E, A, x);
	for (int32_t i = 0; i < x->ext->n_ctrl_preds; i++) {
		struct hlo_instruction *p = x->ext->ctrl_preds[i];
		struct edge_swap *sp = swap_of(E, A, p);
		p->ext->ctrl_succs = without(A, p->ext->ctrl_succs, &p->ext->n_ctrl_succs, x);
		sp->ext[1] = p->ext;
		sp->attrs[1] = p->attrs;
		sp->n_attrs[1] = p->n_attrs;
	}
	for (int32_t i = 0; i < x->ext->n_ctrl_succs; i++) {
		struct hlo_instruction *y = x->ext->ctrl_succs[i];
		struct edge_swap *sy = swap_of(E, A, y);
		y->ext->ctrl_preds = without(A, y->ext->ctrl_preds, &y->ext->n_ctrl_preds, x);
		ctrl_attr_in(A, y);
		sy->ext[1] = y->ext;
		sy->attrs[1] = y->attrs;
		sy->n_attrs[1] = y->n_attrs;
	}
	x->ext->n_ctrl_preds = x->ext->n_ctrl_succs = 0;
	ctrl_attr_in(A, x);
	sx->ext[1] = x->ext;
	sx->attrs[1] = x->attrs;
	sx->n_attrs[1] = x->n_attrs;
}

struct hlo_edge_set *hlo_edges_prepare(struct hlo_module *m, int32_t n,
				       const struct hlo_instruction *const *from,
				       const struct hlo_instruction *const *to, struct arena *A,
				       int *cycle)
{
	return hlo_edges_prepare_stripped(m, n, from, to, NULL, 0, A, cycle);
}

struct hlo_edge_set *hlo_edges_prepare_stripped(struct hlo_module *m, int32_t n,
						const struct hlo_instruction *const *from,
						const struct hlo_instruction *const *to,
						const struct hlo_instruction *const *strip, int32_t n_strip,
						struct arena *A, int *cycle)
{
	*cycle = 0;
	struct hlo_edge_set *E = arena_alloc(A, sizeof(*E));
	memset(E, 0, sizeof(*E));
	size_t cap = 2 * (size_t)n + 1;
	for (int32_t i = 0; i < n_strip; i++)
		cap += 1 + (size_t)strip[i]->ext->n_ctrl_preds + (size_t)strip[i]->ext->n_ctrl_succs;
	E->s = arena_array(A, cap, sizeof(*E->s));
	htab_init(&E->at, cap);
	struct hlo_instruction **a = xmalloc((size_t)n + 1, sizeof(*a)), **b = xmalloc((size_t)n + 1, sizeof(*b));
	int ok = 1;
	for (int32_t i = 0; i < n_strip && ok; i++) {
		struct hlo_instruction *x = own_instr(m, strip[i]);
		if (x)
			strip_ctrl_in(E, A, x);
		ok = x != NULL;
	}
	for (int32_t i = 0; i < n && ok; i++) {
		a[i] = own_instr(m, from[i]);
		b[i] = own_instr(m, to[i]);
		ok = a[i] && b[i] && a[i]->parent == b[i]->parent && a[i] != b[i];
		if (!ok)
			*cycle = from[i] == to[i];
	}
	/* each instruction's new predecessors, then successors, at once */
	for (int by_from = 0; by_from < 2 && ok && n > 0; by_from++) {
		int32_t *ord = edges_grouped(n, a, b, by_from);
		struct hlo_instruction **other = xmalloc((size_t)n + 1, sizeof(*other));
		for (int32_t i = 0; i < n;) {
			struct hlo_instruction *x = by_from ? a[ord[i]] : b[ord[i]];
			int32_t k = 0;
			for (; i < n && (by_from ? a[ord[i]] : b[ord[i]]) == x; i++)
				other[k++] = by_from ? b[ord[i]] : a[ord[i]];
			struct edge_swap *sx = swap_of(E, A, x);
			if (by_from)
				add_ctrl_succs_in(A, x, other, k);
			else
				add_ctrl_preds_in(A, x, other, k);
			sx->ext[1] = x->ext;
			sx->attrs[1] = x->attrs;
			sx->n_attrs[1] = x->n_attrs;
		}
		free(other);
		free(ord);
	}
	free(a);
	free(b);
	htab_free(&E->at);
	swap_to(E, 0);
	return ok ? E : NULL;
}

void hlo_edges_on(struct hlo_edge_set *E)
{
	swap_to(E, 1);
}

void hlo_edges_off(struct hlo_edge_set *E)
{
	swap_to(E, 0);
}

/* Put k's instructions in an order where each follows its operands and
 * control predecessors in k, moving the fewest from their printed order
 * (reorder.h; the printed order itself when it already is one). Adds to
 * info's counts. Returns -1 on a cycle. */
static int order_computation(struct hlo_module *w, struct hlo_computation *k, struct rewrite_info *info)
{
	int32_t n = k->n_instrs, ne = 0;
	for (int32_t i = 0; i < n; i++) {
		k->instrs[i]->index = i;
		ne += k->instrs[i]->n_operands + k->instrs[i]->ext->n_ctrl_preds;
	}
	int32_t *from = xmalloc((size_t)ne + 1, sizeof(int32_t)), *to = xmalloc((size_t)ne + 1, sizeof(int32_t));
	ne = 0;
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *x = k->instrs[i];
		for (int32_t j = 0; j < x->n_operands; j++)
			if (x->operands[j]->parent == k) {
				from[ne] = x->operands[j]->index;
				to[ne++] = i;
			}
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++) {
			from[ne] = x->ext->ctrl_preds[j]->index;
			to[ne++] = i;
		}
	}
	int32_t *order = xmalloc((size_t)n + 1, sizeof(int32_t)), moved = 0;
	int minimal = 1;
	int rc = reorder_min_moves(n, ne, from, to, order, &moved, &minimal);
	free(from);
	free(to);
	if (rc == 0) {
		struct hlo_instruction **out = arena_array(&w->arena, (size_t)n + 1, sizeof(*out));
		for (int32_t i = 0; i < n; i++)
			out[i] = k->instrs[order[i]];
		memcpy(k->instrs, out, (size_t)n * sizeof(*out));
		for (int32_t i = 0; i < n; i++)
			k->instrs[i]->index = i;
		if (info) {
			info->moved += moved;
			info->not_minimal |= !minimal;
		}
	}
	free(order);
	return rc;
}

#define DROP_MAX 64

/* m printed and parsed again: a private module to edit. */
static struct hlo_module *reparse(const struct hlo_module *m, struct diag *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	hlo_print_module(f, m);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	struct hlo_module *r = hlo_parse(m->file, text, len, d);
	free(text);
	return r;
}

/* The instructions of w that removing site st goes without (its copy, a
 * pair's halves, one output's get-tuple-elements), each with what its users
 * read instead (repl, by gid). Returns 0, or -1 when the site cannot be
 * removed by an edit (see hlo_module_without_site). */
static int site_drops(const struct instr_map *M, const struct copy_site *st, struct hlo_instruction **repl,
		      uint8_t *dropped)
{
	if (!st->at || st->operand < 0 || st->operand >= st->at->n_operands)
		return -1;
	struct hlo_instruction *c = instr_map_twin(M, st->at);
	if (!c || c->opcode != st->at->opcode || c->n_operands != st->at->n_operands)
		return -1;
	struct hlo_instruction *s = c->operands[st->operand];
	struct hlo_instruction *drop[DROP_MAX];
	int32_t nd = 0;
	int ok = 1;
	if (st->kind == COPY_KIND_PLAIN || (st->kind == COPY_KIND_FUSED && st->output < 0)) {
		drop[nd++] = c;
	} else if (st->kind == COPY_KIND_ASYNC) {
		/* the copy-start's only user is its copy-done */
		drop[nd++] = c;
		for (int32_t i = 0; i < c->n_users; i++) {
			if (c->users[i]->opcode != OP_COPY_DONE || nd == DROP_MAX)
				ok = 0;
			else
				drop[nd++] = c->users[i];
		}
		ok = ok && nd == 2 && !c->is_root;
	} else {
		/* one output of a multi-output fusion: its get-tuple-elements go,
		 * the fusion stays (reached only through get-tuple-elements) */
		for (int32_t i = 0; i < c->n_users; i++) {
			struct hlo_instruction *g = c->users[i];
			if (g->opcode != OP_GET_TUPLE_ELEMENT)
				ok = 0;
			else if (g->tuple_index == st->output && nd < DROP_MAX)
				drop[nd++] = g;
			else if (g->tuple_index == st->output)
				ok = 0;
		}
		ok = ok && !c->is_root;
	}
	for (int32_t i = 0; ok && i < nd; i++) {
		repl[drop[i]->gid] = s;
		dropped[drop[i]->gid] = 1;
	}
	return ok ? 0 : -1;
}

/* What x's users read once the dropped instructions are gone: the first
 * replacement along the chain that is not dropped itself (a copy of a
 * removed copy reads the first one's operand). */
static struct hlo_instruction *resolve(struct hlo_instruction *x, struct hlo_instruction *const *repl,
				       const uint8_t *dropped, int32_t n)
{
	for (int32_t g = 0; g <= n && dropped[x->gid]; g++)
		x = repl[x->gid];
	return dropped[x->gid] ? NULL : x;
}

/* Mark in `live` the computations reached from the entry through the
 * instructions that are not dropped. */
static void reach_computations(const struct hlo_module *w, const uint8_t *dropped, uint8_t *live)
{
	memset(live, 0, (size_t)w->n_comps);
	if (!w->entry)
		return;
	struct hlo_computation **stack = xmalloc((size_t)w->n_comps + 1, sizeof(*stack));
	int32_t n = 0;
	live[w->entry->index] = 1;
	stack[n++] = w->entry;
	while (n > 0) {
		struct hlo_computation *k = stack[--n];
		for (int32_t i = 0; i < k->n_instrs; i++) {
			const struct hlo_instruction *x = k->instrs[i];
			if (dropped && dropped[x->gid])
				continue;
			for (int32_t c = 0; c < x->n_called; c++)
				if (!live[x->called[c]->index]) {
					live[x->called[c]->index] = 1;
					stack[n++] = x->called[c];
				}
		}
	}
	free(stack);
}

/* Drop the computations reached before the drops (`before`) and not after. */
static void drop_dead_computations(struct hlo_module *w, uint8_t *before)
{
	uint8_t *after = xcalloc((size_t)w->n_comps + 1, 1);
	reach_computations(w, NULL, after);
	int32_t n = 0;
	for (int32_t c = 0; c < w->n_comps; c++)
		if (!before[c] || after[c])
			w->comps[n++] = w->comps[c];
	w->n_comps = n;
	free(after);
}

struct hlo_module *hlo_module_rewrite(const struct hlo_module *m, int32_t n_sites,
				      const struct copy_site *sites, int32_t n_edges,
				      const struct hlo_instruction *const *from,
				      const struct hlo_instruction *const *to, int *cycle, struct rewrite_info *info,
				      struct diag *d)
{
	*cycle = 0;
	if (info)
		memset(info, 0, sizeof(*info));
	/* a private copy of the module to edit: the printed text parses back to
	 * the same module (the text itself is gone after a large parse) */
	struct hlo_module *w = reparse(m, d);
	if (!w)
		return NULL;
	struct hlo_instruction **repl = arena_array(&w->arena, (size_t)w->n_instrs + 1, sizeof(*repl));
	uint8_t *dropped = arena_array(&w->arena, (size_t)w->n_instrs + 1, 1);
	memset(dropped, 0, (size_t)w->n_instrs + 1);
	int ok = 1;
	struct instr_map M;
	instr_map_build(&M, w);
	/* by computation index (indices stay; dead computations may go below) */
	uint8_t *ordered = arena_array(&w->arena, (size_t)w->n_comps + 1, 1);
	memset(ordered, 0, (size_t)w->n_comps + 1);
	struct hlo_computation **to_order = arena_array(&w->arena, (size_t)w->n_comps + 1, sizeof(*to_order));
	int32_t n_order = 0;
	for (int32_t i = 0; i < n_sites && ok; i++)
		ok = site_drops(&M, &sites[i], repl, dropped) == 0;
	uint8_t *live = arena_array(&w->arena, (size_t)w->n_comps + 1, 1);
	reach_computations(w, NULL, live);
	for (int32_t c = 0; c < w->n_comps && ok && n_sites > 0; c++) {
		struct hlo_computation *k = w->comps[c];
		int32_t n = 0;
		for (int32_t i = 0; i < k->n_instrs && ok; i++) {
			struct hlo_instruction *x = k->instrs[i];
			if (dropped[x->gid])
				continue;
			for (int32_t j = 0; j < x->n_operands && ok; j++)
				if (dropped[x->operands[j]->gid])
					ok = (x->operands[j] = resolve(x->operands[j], repl, dropped, w->n_instrs)) != NULL;
			int32_t kept = 0;
			for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
				if (!dropped[x->ext->ctrl_preds[j]->gid])
					x->ext->ctrl_preds[kept++] = x->ext->ctrl_preds[j];
			if (kept != x->ext->n_ctrl_preds) {
				x->ext->n_ctrl_preds = kept;
				rewrite_ctrl_attr(w, x);
			}
			k->instrs[n++] = x;
		}
		k->n_instrs = n;
		if (ok && k->root && dropped[k->root->gid]) {
			struct hlo_instruction *s = resolve(k->root, repl, dropped, w->n_instrs);
			ok = s != NULL;
			if (s) {
				k->root = s;
				s->is_root = 1;
			}
		}
	}
	/* the computations only the removed instructions called (a fused
	 * copy's) go too, as XLA's HloDCE removes dead computations */
	if (ok && n_sites > 0)
		drop_dead_computations(w, live);
	/* the edges, between instructions that stay */
	struct hlo_instruction **ea = xmalloc((size_t)n_edges + 1, sizeof(*ea));
	struct hlo_instruction **eb = xmalloc((size_t)n_edges + 1, sizeof(*eb));
	for (int32_t i = 0; i < n_edges && ok; i++) {
		if (from[i]->parent != to[i]->parent || from[i] == to[i]) {
			*cycle = from[i] == to[i];
			ok = 0;
			break;
		}
		ea[i] = instr_map_twin(&M, from[i]);
		eb[i] = instr_map_twin(&M, to[i]);
		ok = ea[i] && eb[i] && !dropped[ea[i]->gid] && !dropped[eb[i]->gid];
	}
	if (ok && n_edges > 0) { /* each instruction's new predecessors at once */
		int32_t *ord = edges_grouped(n_edges, ea, eb, 0);
		struct hlo_instruction **preds = xmalloc((size_t)n_edges + 1, sizeof(*preds));
		for (int32_t i = 0; i < n_edges;) {
			struct hlo_instruction *b = eb[ord[i]];
			int32_t k = 0;
			for (; i < n_edges && eb[ord[i]] == b; i++)
				preds[k++] = ea[ord[i]];
			add_ctrl_preds_in(&w->arena, b, preds, k);
			if (!ordered[b->parent->index]) { /* each computation put in order once */
				ordered[b->parent->index] = 1;
				to_order[n_order++] = b->parent;
			}
		}
		free(preds);
		free(ord);
	}
	free(ea);
	free(eb);
	for (int32_t i = 0; i < n_order && ok; i++)
		if (order_computation(w, to_order[i], info) < 0) {
			*cycle = 1;
			ok = 0;
		}
	instr_map_free(&M);
	struct hlo_module *r = ok ? reparse(w, d) : NULL;
	hlo_module_free(w);
	return r;
}

struct hlo_module *hlo_module_without_site(const struct hlo_module *m, const struct copy_site *st,
					   struct diag *d)
{
	int cycle;
	return hlo_module_rewrite(m, 1, st, 0, NULL, NULL, &cycle, NULL, d);
}

struct hlo_module *hlo_module_without_copy(const struct hlo_module *m,
					   const struct hlo_instruction *copy, struct diag *d)
{
	if (copy->opcode != OP_COPY || copy->n_operands != 1)
		return NULL;
	struct copy_site st;
	memset(&st, 0, sizeof(st));
	st.kind = COPY_KIND_PLAIN;
	st.at = st.result = copy;
	st.output = -1;
	st.to = copy->shape;
	return hlo_module_without_site(m, &st, d);
}

struct hlo_module *hlo_module_with_edges(const struct hlo_module *m, int32_t n,
					 const struct hlo_instruction *const *from,
					 const struct hlo_instruction *const *to, int *cycle,
					 struct diag *d)
{
	return hlo_module_rewrite(m, 0, NULL, n, from, to, cycle, NULL, d);
}

/* Drop the control edges into and out of x (an instruction of w). */
static void strip_ctrl(struct hlo_module *w, struct hlo_instruction *x)
{
	struct hlo_computation *k = x->parent;
	if (x->ext->n_ctrl_preds > 0) {
		x->ext->n_ctrl_preds = 0;
		rewrite_ctrl_attr(w, x);
	}
	for (int32_t i = 0; i < k->n_instrs; i++) {
		struct hlo_instruction *y = k->instrs[i];
		int32_t kept = 0;
		for (int32_t j = 0; j < y->ext->n_ctrl_preds; j++)
			if (y->ext->ctrl_preds[j] != x)
				y->ext->ctrl_preds[kept++] = y->ext->ctrl_preds[j];
		if (kept != y->ext->n_ctrl_preds) {
			y->ext->n_ctrl_preds = kept;
			rewrite_ctrl_attr(w, y);
		}
	}
}

struct hlo_module *hlo_module_with_edges_stripped(const struct hlo_module *m, int32_t n,
						 const struct hlo_instruction *const *from,
						 const struct hlo_instruction *const *to,
						 const struct hlo_instruction *const *strip, int32_t n_strip,
						 int *cycle, struct diag *d)
{
	if (n_strip <= 0)
		return hlo_module_with_edges(m, n, from, to, cycle, d);
	*cycle = 0;
	/* the stripped module, printed (so its control-successor lists are
	 * rebuilt by the parser), then the edges added by name */
	struct hlo_module *w = reparse(m, d);
	if (!w)
		return NULL;
	for (int32_t i = 0; i < n_strip; i++) {
		struct hlo_computation *k = hlo_find_computation(w, strip[i]->parent->name);
		struct hlo_instruction *x = k ? hlo_find_instruction(k, strip[i]->name) : NULL;
		if (x)
			strip_ctrl(w, x);
	}
	struct hlo_module *s = reparse(w, d);
	hlo_module_free(w);
	if (!s)
		return NULL;
	struct hlo_module *r = hlo_module_rewrite(s, 0, NULL, n, from, to, cycle, NULL, d);
	hlo_module_free(s);
	return r;
}
