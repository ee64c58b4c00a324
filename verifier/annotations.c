/* annotations.c - load alias annotation files and check a module's
 * donations against them (annotations.h). */
#include "annotations.h"
#include "donation.h"
#include "donormatch.h"
#include "embed.h"
#include "xmlload.h"
#include "xalloc.h"
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/tree.h>

static int is_element(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static const char *attr(struct annotations *a, xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	const char *s = arena_strdup(&a->arena, (const char *)v);
	xmlFree(v);
	return s;
}

/* "{}", "{1}", "{0, 2}" (the schema has checked the form). */
static int parse_index(struct annotations *a, const char *s, struct shape_index *out)
{
	int32_t buf[SHAPE_MAX_DEPTH + 1];
	int32_t n = 0;
	const char *p = strchr(s, '{');
	if (!p)
		return -1;
	p++;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',')
			p++;
		if (*p == '}')
			break;
		if (*p < '0' || *p > '9' || n > SHAPE_MAX_DEPTH)
			return -1;
		long v = 0;
		while (*p >= '0' && *p <= '9' && v < 1000000000L)
			v = v * 10 + (*p++ - '0');
		buf[n++] = (int32_t)v;
	}
	out->n = n;
	out->idx = arena_array(&a->arena, (size_t)n + 1, sizeof(int32_t));
	if (n)
		memcpy(out->idx, buf, (size_t)n * sizeof(int32_t));
	return 0;
}

static int load_doc(struct annotations *a, const char *file, xmlDocPtr doc, struct diag *d)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);
	if (!root || !is_element(root, "annotations"))
		return xml_error(d, file, root ? xmlGetLineNo(root) : 0,
				 "root element must be <annotations>");
	int32_t cap = 0;
	for (xmlNodePtr n = root->children; n; n = n->next)
		cap += n->type == XML_ELEMENT_NODE;
	a->items = arena_array(&a->arena, (size_t)cap + 1, sizeof(*a->items));
	for (xmlNodePtr n = root->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		struct annotation *it = &a->items[a->n];
		memset(it, 0, sizeof(*it));
		it->line = (int)xmlGetLineNo(n);
		if (is_element(n, "donated"))
			it->kind = ANNOT_DONATED;
		else if (is_element(n, "reuse"))
			it->kind = ANNOT_REUSE;
		else if (is_element(n, "accept-copy"))
			it->kind = ANNOT_ACCEPT_COPY;
		else
			return xml_error(d, file, it->line, "unknown element <%s>", (const char *)n->name);
		it->module = attr(a, n, "module");
		it->arg = attr(a, n, "arg");
		it->param = -1;
		const char *p = attr(a, n, "param");
		if (p) {
			char *end;
			long v = strtol(p, &end, 10);
			if (*end || v < 0 || v > 2147483646L)
				return xml_error(d, file, it->line, "bad parameter number '%s'", p);
			it->param = (int32_t)v;
		}
		const char *ix = attr(a, n, "index");
		if (ix ? parse_index(a, ix, &it->index) < 0 : parse_index(a, "{}", &it->index) < 0)
			return xml_error(d, file, it->line, "bad shape index '%s'", ix);
		const char *out = attr(a, n, "output");
		if (out && parse_index(a, out, &it->output) < 0)
			return xml_error(d, file, it->line, "bad output index '%s'", out);
		it->reason = attr(a, n, it->kind == ANNOT_ACCEPT_COPY ? "reason" : "note");
		if ((it->param < 0) == (it->arg == NULL))
			return xml_error(d, file, it->line, "give either param (with index) or arg");
		if (it->kind == ANNOT_ACCEPT_COPY && (!it->reason || !*it->reason))
			return xml_error(d, file, it->line, "accept-copy needs a reason");
		a->n++;
	}
	return 0;
}

static void init(struct annotations *a)
{
	memset(a, 0, sizeof(*a));
	arena_init(&a->arena);
}

int annotations_load_memory(struct annotations *a, const char *name, const char *buf, size_t len,
			    struct diag *d)
{
	init(a);
	xmlDocPtr doc = xml_load_memory(name, buf, len, embedded_annotations_rng,
					embedded_annotations_rng_len, d);
	if (!doc)
		return -1;
	a->path = arena_strdup(&a->arena, name);
	int rc = load_doc(a, a->path, doc, d);
	xmlFreeDoc(doc);
	return rc;
}

int annotations_load(struct annotations *a, const char *path, struct diag *d)
{
	init(a);
	xmlDocPtr doc = xml_load_file(path, embedded_annotations_rng,
				      embedded_annotations_rng_len, d);
	if (!doc)
		return -1;
	a->path = arena_strdup(&a->arena, path);
	int rc = load_doc(a, a->path, doc, d);
	xmlFreeDoc(doc);
	return rc;
}

void annotations_free(struct annotations *a)
{
	if (!a)
		return;
	arena_free(&a->arena);
	memset(a, 0, sizeof(*a));
}

/* ---- matching items to a module ---- */

static int applies(const struct annotation *it, const struct hlo_module *m)
{
	return !it->module || fnmatch(it->module, m->name ? m->name : "", 0) == 0;
}

/* The argument path names parameter p: equal, or a pytree prefix of its
 * path ("params" covers "params['w']" and "params.w"). */
static int arg_matches(const char *want, const char *have)
{
	if (!have)
		return 0;
	size_t n = strlen(want);
	return !strncmp(want, have, n) && (have[n] == 0 || have[n] == '[' || have[n] == '.');
}

static const struct shape *param_shape(const struct hlo_module *m, int32_t p)
{
	const struct hlo_computation *e = m->entry;
	return m->has_entry_layout && m->n_entry_layout_params == e->n_params
		       ? m->entry_layout_params[p] : e->params[p]->shape;
}

/* ix is a prefix of (or equal to) leaf. */
static int index_covers(const struct shape_index *ix, const struct shape_index *leaf)
{
	if (ix->n > leaf->n)
		return 0;
	for (int32_t i = 0; i < ix->n; i++)
		if (ix->idx[i] != leaf->idx[i])
			return 0;
	return 1;
}

/* The item names parameter leaf (p, leaf). */
static int item_covers(const struct annotation *it, const struct hlo_module *m, int32_t p,
		       const struct shape_index *leaf)
{
	if (it->arg)
		return arg_matches(it->arg, param_arg_path(m, p));
	return it->param == p && index_covers(&it->index, leaf);
}

const struct annotation *annotations_accepted_copy(const struct annotations *a,
						   const struct hlo_module *m, int32_t p,
						   const struct shape_index *ix)
{
	if (!a)
		return NULL;
	for (int32_t i = 0; i < a->n; i++) {
		const struct annotation *it = &a->items[i];
		if (it->kind == ANNOT_ACCEPT_COPY && applies(it, m) && item_covers(it, m, p, ix))
			return it;
	}
	return NULL;
}

struct checker {
	const struct annotations *a;
	const struct hlo_module *m;
	const struct donation_report *r;
	int32_t n;
	void (*found)(void *, const struct annotation_violation *);
	void *ctx;
	int32_t count;
};

static void violation(struct checker *c, const struct annotation *it,
		      const struct hlo_instruction *param, const struct donation_report *rep,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void violation(struct checker *c, const struct annotation *it,
		      const struct hlo_instruction *param, const struct donation_report *rep,
		      const char *fmt, ...)
{
	struct annotation_violation v = {it, param, rep, {0}};
	/* plain words, then the expectation's place: the file's name (its
	 * path is evidence, annotations_where) */
	const char *path = c->a->path ? c->a->path : "annotations", *base = strrchr(path, '/');
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(v.message, sizeof(v.message), fmt, ap);
	va_end(ap);
	if (k >= 0 && (size_t)k < sizeof(v.message))
		snprintf(v.message + k, sizeof(v.message) - (size_t)k, " (expected by %s:%d)", base ? base + 1 : path,
			 it->line);
	c->count++;
	if (c->found)
		c->found(c->ctx, &v);
}

static const struct donation_report *report_of(const struct checker *c, int32_t p,
					       const struct shape_index *ix)
{
	for (int32_t i = 0; i < c->n; i++)
		if (c->r[i].param == p && shape_index_equal(&c->r[i].param_index, ix))
			return &c->r[i];
	return NULL;
}

/* The donation saves no memory: observed (the parameter's only readers are
 * copies) or, before copy insertion, predicted (the hazard XLA's dependency
 * ordering cannot rule out makes copy insertion copy the parameter). */
static const char *copy_kind(const struct hlo_module *m, const struct donation_report *r)
{
	if (r->copied)
		return "is copied";
	if (donation_copy_predicted(m, r))
		return "will be copied";
	return NULL;
}

/* Array leaves under (p, ix): visit each. Bounded by the shape's size. */
struct leaf_list {
	int32_t n, cap;
	struct shape_index *v;
	int32_t *param;
};

static void push_leaf(struct leaf_list *l, int32_t p, const int32_t *path, int depth)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, (size_t)l->cap, sizeof(*l->v));
		l->param = xrealloc(l->param, (size_t)l->cap, sizeof(*l->param));
	}
	int32_t *idx = xmalloc(((size_t)depth + 1), sizeof(int32_t));
	if (depth)
		memcpy(idx, path, (size_t)depth * sizeof(int32_t));
	l->v[l->n] = (struct shape_index){depth, idx};
	l->param[l->n++] = p;
}

static void leaves_of(const struct shape *s, int32_t p, int32_t *path, int depth,
		      struct leaf_list *out)
{
	if (depth > SHAPE_MAX_DEPTH)
		return;
	if (shape_is_tuple(s)) {
		for (int32_t i = 0; i < s->n_elems; i++) {
			path[depth] = i;
			leaves_of(&s->elems[i], p, path, depth + 1, out);
		}
	} else if (shape_is_array(s)) {
		push_leaf(out, p, path, depth);
	}
}

static void leaves_free(struct leaf_list *l)
{
	for (int32_t i = 0; i < l->n; i++)
		free(l->v[i].idx);
	free(l->v);
	free(l->param);
}

/* Resolve the item's argument to parameter leaves; reports a violation and
 * returns -1 when it names nothing in this module. */
static int resolve(struct checker *c, const struct annotation *it, struct leaf_list *out)
{
	const struct hlo_module *m = c->m;
	const struct hlo_computation *e = m->entry;
	int32_t path[SHAPE_MAX_DEPTH + 1];
	memset(out, 0, sizeof(*out));
	if (it->arg) {
		for (int32_t p = 0; p < e->n_params; p++)
			if (arg_matches(it->arg, param_arg_path(m, p)))
				leaves_of(param_shape(m, p), p, path, 0, out);
		if (!out->n) {
			violation(c, it, NULL, NULL, "no argument %s in this module's op_name metadata",
				  it->arg);
			return -1;
		}
		return 0;
	}
	if (it->param >= e->n_params) {
		violation(c, it, NULL, NULL, "no param %d: the entry computation has %d parameters",
			  it->param, e->n_params);
		return -1;
	}
	const struct shape *s = shape_subshape(param_shape(m, it->param), &it->index);
	if (!s) {
		char is[128], ss[256];
		shape_index_to_string(&it->index, is, sizeof(is));
		shape_text(param_shape(m, it->param), ss, sizeof(ss));
		violation(c, it, e->params[it->param], NULL, "param %d has no index %s: its shape "
			  "is %s", it->param, is, ss);
		return -1;
	}
	memcpy(path, it->index.idx, (size_t)it->index.n * sizeof(int32_t));
	leaves_of(s, it->param, path, it->index.n, out);
	if (!out->n) {
		violation(c, it, e->params[it->param], NULL, "param %d has no array leaf at that index",
			  it->param);
		return -1;
	}
	return 0;
}

static void check_copy(struct checker *c, const struct annotation *it,
		       const struct donation_report *rep, const char *pd)
{
	const char *how = copy_kind(c->m, rep);
	if (!how || annotations_accepted_copy(c->a, c->m, rep->param, &rep->param_index))
		return;
	violation(c, it, rep->param_instr, rep, "donated %s %s: no memory saved", pd, how);
}

static void check_donated(struct checker *c, const struct annotation *it)
{
	struct leaf_list l;
	if (resolve(c, it, &l) < 0) {
		leaves_free(&l);
		return;
	}
	for (int32_t i = 0; i < l.n; i++) {
		char pd[256];
		param_short_name(pd, sizeof(pd), c->m, l.param[i], &l.v[i]);
		const struct donation_report *rep = report_of(c, l.param[i], &l.v[i]);
		const struct hlo_instruction *pi = c->m->entry->params[l.param[i]];
		if (!rep)
			violation(c, it, pi, NULL, "%s is not donated; donate it", pd);
		else if (rep->any == VERDICT_NOT_HONORED)
			violation(c, it, pi, rep, "donated %s is reused by no output: %s", pd,
				  rep->reason ? rep->reason : "not honored");
		else
			check_copy(c, it, rep, pd);
	}
	leaves_free(&l);
}

static void check_reuse(struct checker *c, const struct annotation *it)
{
	const struct hlo_module *m = c->m;
	char oi[128];
	shape_index_to_string(&it->output, oi, sizeof(oi));
	struct leaf_list l;
	if (resolve(c, it, &l) < 0) {
		leaves_free(&l);
		return;
	}
	if (l.n != 1) {
		violation(c, it, NULL, NULL, "output %s can reuse one array, but %s has %d",
			  oi, it->arg ? it->arg : "the parameter", l.n);
		leaves_free(&l);
		return;
	}
	const struct shape *res = m->has_entry_layout && m->entry_layout_result
					  ? m->entry_layout_result : m->entry->root->shape;
	char pd[256];
	param_short_name(pd, sizeof(pd), m, l.param[0], &l.v[0]);
	const struct hlo_instruction *pi = m->entry->params[l.param[0]];
	if (!shape_subshape(res, &it->output)) {
		violation(c, it, pi, NULL, "no output %s in the entry result", oi);
		leaves_free(&l);
		return;
	}
	const struct donation_report *got = NULL;
	for (int32_t i = 0; i < c->n && !got; i++)
		if (c->r[i].output_index && shape_index_equal(c->r[i].output_index, &it->output))
			got = &c->r[i];
	if (!got) {
		violation(c, it, pi, NULL, "output %s reuses no argument's buffer; donate %s", oi, pd);
	} else if (got->param != l.param[0] || !shape_index_equal(&got->param_index, &l.v[0])) {
		char other[256];
		param_short_name(other, sizeof(other), m, got->param, &got->param_index);
		violation(c, it, pi, got, "output %s reuses %s, not %s", oi, other, pd);
	} else {
		check_copy(c, it, got, pd);
	}
	leaves_free(&l);
}

int32_t annotations_check(const struct annotations *a, const struct hlo_module *m,
			  const struct donation_report *r, int32_t n,
			  void (*found)(void *ctx, const struct annotation_violation *v), void *ctx)
{
	if (!a || !m->entry || !m->entry->root)
		return 0;
	struct checker c = {a, m, r, n, found, ctx, 0};
	for (int32_t i = 0; i < a->n; i++) {
		const struct annotation *it = &a->items[i];
		if (!applies(it, m))
			continue;
		if (it->kind == ANNOT_DONATED) {
			check_donated(&c, it);
		} else if (it->kind == ANNOT_REUSE) {
			check_reuse(&c, it);
		} else {
			struct leaf_list l;
			resolve(&c, it, &l);  /* an accepted copy of nothing is stale */
			leaves_free(&l);
		}
	}
	return c.count;
}
