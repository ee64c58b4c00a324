/* oracle_joint.c - the joint removal question by brute force (oracle_joint.h). */
#include "oracle_joint.h"
#include "rewrite.h"
#include "values.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct hlo_instruction *find(const struct hlo_module *m, const char *comp, const char *name)
{
	const struct hlo_computation *k = hlo_find_computation(m, comp);
	return k ? hlo_find_instruction(k, name) : NULL;
}

/* The instructions removing c drops, by name: the copy, a pair's
 * copy-done, one output's get-tuple-elements. Is x one of them? */
static int drops(const struct oj_copy *c, const struct hlo_instruction *x)
{
	if (strcmp(x->parent->name, c->comp))
		return 0;
	if (c->output >= 0)
		return x->opcode == OP_GET_TUPLE_ELEMENT && x->n_operands == 1 &&
		       !strcmp(x->operands[0]->name, c->name) && x->tuple_index == c->output;
	if (!strcmp(x->name, c->name))
		return 1;
	return x->opcode == OP_COPY_DONE && x->n_operands == 1 && !strcmp(x->operands[0]->name, c->name);
}

static int dropped_by(const struct oj_question *q, uint32_t set, const struct hlo_instruction *x)
{
	for (int32_t i = 0; i < q->n; i++)
		if ((set >> i & 1) && drops(&q->c[i], x))
			return i;
	return -1;
}

/* The value copy c defines in the module as given (-1: none). */
static int32_t copy_value(const struct dataflow *df, const struct hlo_instruction *at, const struct oj_copy *c)
{
	int32_t sub = 0;
	if (c->output >= 0 || at->opcode == OP_COPY_START) {
		int32_t ix = c->output >= 0 ? c->output : 0;
		sub = dataflow_sub(df, at, &ix, 1);
		if (sub < 0)
			return -1;
	}
	return dataflow_value_defined_at(df, at, sub);
}

/* v's key as the rewritten module names it: a removed copy's value is its
 * operand's (along chains). */
static void value_key(const struct oj_question *q, uint32_t set, const struct dataflow *df, int32_t v,
		      int map, char *buf, size_t cap)
{
	for (int g = 0; map && g < 64 && v >= 0; g++) {
		const struct hlo_instruction *d = df->values[v].def;
		int32_t i = dropped_by(q, set, d);
		if (i < 0 || copy_value(df, d, &q->c[i]) != v)
			break;
		const struct hlo_instruction *s = find(q->m, q->c[i].comp, q->c[i].source);
		v = s ? dataflow_unique_value(df, s, 0) : -1;
	}
	if (v < 0) {
		snprintf(buf, cap, "?");
		return;
	}
	const struct hlo_value *x = &df->values[v];
	snprintf(buf, cap, "%s/%s#%u", x->def->parent->name, x->def->name, (unsigned)x->sub);
}

/* The read's place as the rewritten module names it; NULL when the read
 * goes with a removed copy (a read at a removed root is the new root's). */
static const char *read_key(const struct oj_question *q, uint32_t set, const struct oracle_triple *t,
			    char *buf, size_t cap, int map)
{
	const struct hlo_instruction *at = t->at;
	for (int g = 0; map && at && g < 64; g++) {
		int32_t i = dropped_by(q, set, at);
		if (i < 0)
			break;
		if (!t->end_read)
			return NULL;
		at = find(q->m, q->c[i].comp, q->c[i].source);
	}
	snprintf(buf, cap, "%s/%s", at ? at->parent->name : "-", at ? at->name : "-");
	return buf;
}


struct keylist {
	int32_t n, cap;
	char **k;
};

static void keys_add(struct keylist *L, const char *k)
{
	if (L->n == L->cap) {
		L->cap = L->cap ? 2 * L->cap : 16;
		L->k = realloc(L->k, (size_t)L->cap * sizeof(char *));
	}
	L->k[L->n++] = strdup(k);
}

static void keys_free(struct keylist *L)
{
	for (int32_t i = 0; i < L->n; i++)
		free(L->k[i]);
	free(L->k);
}

/* The static hazards of a module result by identity (verdicts.md, as
 * tests/oracle.c static_keys reads it): read-only-written, the value;
 * read-only-output, the value and the output leaf; outputs-not-distinct,
 * the two output leaves (subs of the entry root, which a removal keeps:
 * a removed root's operand has its shape). */
static void static_keys(const struct oj_question *q, uint32_t set, const struct hlo_module *m,
			const struct oracle *o, const struct oracle_module_result *r, int map,
			struct keylist *out)
{
	const struct dataflow *df = oracle_dataflow(o);
	const struct buffers *bf = oracle_buffers(o);
	const struct hlo_instruction *root = m->entry ? m->entry->root : NULL;
	const struct shape_tree *t = root ? dataflow_tree(df, root) : NULL;
	char vk[600], key[1400];
	for (int32_t i = 0; i < r->n_static; i++) {
		const struct oracle_static *st = &r->statics[i];
		if (st->kind == OK_OUTPUTS_NOT_DISTINCT)
			continue;
		value_key(q, set, df, st->v, map, vk, sizeof(vk));
		if (st->kind == OK_READ_ONLY_WRITTEN || !t) {
			snprintf(key, sizeof(key), "%d|%s", (int)st->kind, vk);
			keys_add(out, key);
			continue;
		}
		for (int32_t s = 0; s < t->n; s++) {
			if (t->nk[s] >= 0)
				continue;
			const struct value_set *vs = dataflow_set(df, root, s);
			for (int32_t k = 0; k < vs->n; k++)
				if (value_set_ids(vs)[k] == st->v) {
					snprintf(key, sizeof(key), "%d|%s|%d", (int)st->kind, vk, (int)s);
					keys_add(out, key);
				}
		}
	}
	for (int32_t s = 0; t && s < t->n; s++) {
		const struct shape *ss = dataflow_subshape(df, root, s);
		if (t->nk[s] >= 0 || !ss || !shape_is_array(ss))
			continue;
		const struct value_set *vs = dataflow_set(df, root, s);
		for (int32_t s0 = 0; s0 < s; s0++) {
			const struct shape *s0s = dataflow_subshape(df, root, s0);
			if (t->nk[s0] >= 0 || !s0s || !shape_is_array(s0s))
				continue;
			if (oracle_sets_share_buffer(bf, vs, dataflow_set(df, root, s0))) {
				snprintf(key, sizeof(key), "%d|%d|%d", (int)OK_OUTPUTS_NOT_DISTINCT, (int)s0, (int)s);
				keys_add(out, key);
			}
		}
	}
}

static int key_in(const struct keylist *L, const char *k)
{
	for (int32_t i = 0; i < L->n; i++)
		if (!strcmp(L->k[i], k))
			return 1;
	return 0;
}

/* Given: every hazard of w's printed schedule is one of q->m's. */
static int given_compare(const struct oj_question *q, uint32_t set, const struct hlo_module *w,
			 const struct oracle *ow, const struct oracle_module_result *rw, char *why, size_t cap)
{
	const struct dataflow *df = oracle_dataflow(q->o), *dw = oracle_dataflow(ow);
	const struct oracle_module_result *r = q->r;
	struct keylist keys = {0}, wst = {0};
	char vk[600], rk[600], key[1400];
	for (int32_t i = 0; i < r->n_triples; i++) {
		const struct oracle_triple *t = &r->triples[i];
		if (!t->given)
			continue;
		value_key(q, set, df, t->v, 1, vk, sizeof(vk));
		if (!read_key(q, set, t, rk, sizeof(rk), 1))
			continue;
		snprintf(key, sizeof(key), "%d|%s|%s|%d", (int)t->kind, vk, rk, t->end_read);
		keys_add(&keys, key);
	}
	static_keys(q, set, q->m, q->o, r, 1, &keys);
	int ok = 1;
	for (int32_t i = 0; i < rw->n_triples && ok; i++) {
		const struct oracle_triple *t = &rw->triples[i];
		if (!t->given)
			continue;
		value_key(q, 0, dw, t->v, 0, vk, sizeof(vk));
		read_key(q, 0, t, rk, sizeof(rk), 0);
		snprintf(key, sizeof(key), "%d|%s|%s|%d", (int)t->kind, vk, rk, t->end_read);
		if (!key_in(&keys, key)) {
			snprintf(why, cap, "new %s hazard on %s read at %s in the printed schedule",
				 oracle_kind_name(t->kind), vk, rk);
			ok = 0;
		}
	}
	static_keys(q, 0, w, ow, rw, 0, &wst);
	for (int32_t i = 0; i < wst.n && ok; i++)
		if (!key_in(&keys, wst.k[i])) {
			snprintf(why, cap, "new static hazard %s", wst.k[i]);
			ok = 0;
		}
	keys_free(&keys);
	keys_free(&wst);
	return ok;
}

/* Judge the rewritten module w as it prints (given: its printed schedule;
 * any: every schedule). */
static int judge_printed(const struct oj_question *q, uint32_t set, struct hlo_module *w, char *why, size_t cap)
{
	char err[256];
	struct oracle *ow = oracle_new(w, q->lim, err, sizeof(err));
	if (!ow) {
		snprintf(why, cap, "the rewritten module cannot be analysed: %s", err);
		return 0;
	}
	int rc;
	struct oracle_module_result rw;
	oracle_module(ow, &rw);
	if (rw.status != ORACLE_OK) {
		rc = rw.status == ORACLE_TOO_MANY ? -1 : 0;
		snprintf(why, cap, "the oracle cannot read the rewritten module: %s", rw.why);
	} else if (q->use_given) {
		rc = given_compare(q, set, w, ow, &rw, why, cap);
	} else {
		rc = !rw.module.some;
		if (!rc)
			snprintf(why, cap, "a hazard in some schedule: %s", rw.module.witness ? rw.module.witness : "?");
	}
	oracle_module_result_free(&rw);
	oracle_free(ow);
	return rc;
}

/* The edges by name as instructions of w, into f[] and t[]: 1, or 0 (why)
 * when one names an instruction that is gone. */
static int edges_in(struct hlo_module *w, int32_t ne, const char **from, const char **to, const char **comp,
		    const struct hlo_instruction **f, const struct hlo_instruction **t, char *why, size_t cap)
{
	for (int32_t k = 0; k < ne; k++) {
		f[k] = find(w, comp[k], from[k]);
		t[k] = find(w, comp[k], to[k]);
		if (!f[k] || !t[k]) {
			snprintf(why, cap, "the edge %s -> %s names an instruction that is gone", from[k], to[k]);
			return 0;
		}
	}
	return 1;
}

/* Judge the rewritten module w (edges: those still to add, by name).
 * Under the given schedule the edges are added as fix adds them (rewrite.h:
 * the computation reordered by the fewest moves that respect them, which
 * test_fix checks on its own) and the new printed schedule is judged; under
 * every schedule, each buffer in every schedule with the edges. */
static int judge(const struct oj_question *q, uint32_t set, struct hlo_module *w, int32_t ne,
		 const char **from, const char **to, const char **comp, char *why, size_t cap)
{
	if (ne <= 0)
		return judge_printed(q, set, w, why, cap);
	const struct hlo_instruction **f = calloc((size_t)ne, sizeof(*f)), **t = calloc((size_t)ne, sizeof(*t));
	int rc = edges_in(w, ne, from, to, comp, f, t, why, cap);
	if (rc == 1 && q->use_given) {
		struct diag d;
		diag_init(&d, NULL);
		int cycle = 0;
		struct hlo_module *w2 = hlo_module_with_edges(w, ne, f, t, &cycle, &d);
		if (!w2) {
			snprintf(why, cap, "the edges %s", cycle ? "close a cycle" : "cannot be added");
			rc = 0;
		} else {
			rc = judge_printed(q, set, w2, why, cap);
			hlo_module_free(w2);
		}
	} else if (rc == 1) {
		char err[256];
		struct oracle *ow = oracle_new(w, q->lim, err, sizeof(err));
		if (!ow) {
			snprintf(why, cap, "the rewritten module cannot be analysed: %s", err);
			rc = 0;
		}
		for (int32_t b = 0; ow && b < oracle_buffers(ow)->n_buffers && rc == 1; b++) {
			int ok = oracle_buffer_edges_ok(ow, b, f, t, ne);
			if (ok < 0)
				rc = -1;
			else if (!ok) {
				snprintf(why, cap, "a hazard on buffer %d in a schedule with the edges, or a cycle", (int)b);
				rc = 0;
			}
		}
		oracle_free(ow);
	}
	free(f);
	free(t);
	return rc;
}

/* The instructions that read copy c's result (its users; a pair's
 * copy-done's; one output's get-tuple-elements' users). */
static int32_t readers_of(const struct oj_question *q, const struct oj_copy *c,
			  const struct hlo_instruction **out, int32_t cap)
{
	const struct hlo_instruction *at = find(q->m, c->comp, c->name);
	int32_t n = 0;
	if (!at)
		return 0;
	for (int32_t u = 0; u < at->n_users; u++) {
		const struct hlo_instruction *x = at->users[u];
		int via = c->output >= 0 ? x->opcode == OP_GET_TUPLE_ELEMENT && x->tuple_index == c->output
					 : x->opcode == OP_COPY_DONE;
		if (!via) {
			if (c->output < 0 && n < cap)
				out[n++] = x;
			continue;
		}
		for (int32_t k = 0; k < x->n_users && n < cap; k++)
			out[n++] = x->users[k];
	}
	return n;
}

struct oj_edges {
	int32_t n, cap;
	const char **from, **to, **comp;
};

static void oj_edge(struct oj_edges *E, const char *a, const char *b, const char *comp)
{
	for (int32_t k = 0; k < E->n; k++)
		if (!strcmp(E->from[k], a) && !strcmp(E->to[k], b) && !strcmp(E->comp[k], comp))
			return;
	if (E->n == E->cap) {
		E->cap = E->cap ? 2 * E->cap : 16;
		E->from = realloc(E->from, (size_t)E->cap * sizeof(char *));
		E->to = realloc(E->to, (size_t)E->cap * sizeof(char *));
		E->comp = realloc(E->comp, (size_t)E->cap * sizeof(char *));
	}
	E->from[E->n] = a;
	E->to[E->n] = b;
	E->comp[E->n] = comp;
	E->n++;
}

int oracle_joint_set(const struct oj_question *q, uint32_t set, char *why, size_t cap)
{
	why[0] = 0;
	/* the edges: none may end at a removed instruction; one from a removed
	 * copy stands for edges from that copy's readers (they read its
	 * operand once it is gone), as the problem fix solves states them */
	struct oj_edges E = {0};
	int rc = 1;
	for (int32_t i = 0; i < q->n && rc == 1; i++) {
		if (!(set >> i & 1))
			continue;
		for (int32_t k = 0; k < q->c[i].n_edges && rc == 1; k++) {
			const struct hlo_instruction *a = find(q->m, q->c[i].ecomp[k], q->c[i].from[k]);
			const struct hlo_instruction *b = find(q->m, q->c[i].ecomp[k], q->c[i].to[k]);
			if (!a || !b || dropped_by(q, set, b) >= 0) {
				snprintf(why, cap, "an edge of %s ends at a removed copy", q->c[i].name);
				rc = 0;
				break;
			}
			const struct hlo_instruction *stack[256];
			int32_t ns = 0;
			stack[ns++] = a;
			for (int g = 0; ns > 0 && g < 4096; g++) {
				const struct hlo_instruction *x = stack[--ns];
				int32_t j = dropped_by(q, set, x);
				if (j < 0) {
					oj_edge(&E, x->name, b->name, b->parent->name);
					continue;
				}
				const struct hlo_instruction *rd[64];
				int32_t nr = readers_of(q, &q->c[j], rd, 64);
				for (int32_t r = 0; r < nr && ns < 256; r++)
					if (rd[r] != b && rd[r]->parent == b->parent)
						stack[ns++] = rd[r];
			}
		}
	}
	int32_t ne = E.n;
	const char **from = E.from, **to = E.to, **comp = E.comp;
	/* the copies removed one after the other, by the oracle's text rewrite */
	struct hlo_module *cur = q->m;
	for (int32_t i = 0; i < q->n && rc == 1; i++) {
		if (!(set >> i & 1))
			continue;
		const struct hlo_instruction *x = find(cur, q->c[i].comp, q->c[i].name);
		char *t = !x ? NULL : q->c[i].output >= 0 ? oracle_remove_copy_output_text(cur, x, q->c[i].output)
							   : oracle_remove_copy_text(cur, x);
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *next = t ? hlo_parse("joint", t, strlen(t), &d) : NULL;
		free(t);
		if (cur != q->m)
			hlo_module_free(cur);
		cur = next;
		if (!cur) {
			snprintf(why, cap, "the oracle could not remove %s", q->c[i].name);
			rc = 0;
		}
	}
	if (rc == 1)
		rc = judge(q, set, cur, ne, from, to, comp, why, cap);
	if (cur && cur != q->m)
		hlo_module_free(cur);
	free(from);
	free(to);
	free(comp);
	return rc;
}

int oracle_joint_text(const struct oj_question *q, const char *text, uint32_t set, char *why, size_t cap)
{
	why[0] = 0;
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *w = hlo_parse("fixed", text, strlen(text), &d);
	if (!w) {
		snprintf(why, cap, "the text does not parse: %s", d.first);
		return 0;
	}
	int rc = judge(q, set, w, 0, NULL, NULL, NULL, why, cap);
	hlo_module_free(w);
	return rc;
}
