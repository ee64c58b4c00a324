/* test_alias_conformance.c - every assertion of
 * ../shared/corpus/xla-alias/EXPECTATIONS.tsv against our analyses.
 *
 * Each row names a module and `;`-separated assertions evaluated in order.
 * Config steps (setup_alias, setup_error, setup_donor, remove_donor) are the
 * C++ edits of XLA's tests: we apply them to the parsed config in memory and
 * re-validate with the parser's hlo_validate (semantics doc 7.2). An
 * assertion that fails must be listed in tests/known-gaps.tsv with the reason;
 * a listed assertion that passes is reported too (the list must stay honest).
 * Closing line: "alias-conformance: N passed, N failed, N skipped" where
 * skipped are the known gaps. */
#include "testutil.h"
#include "liveness.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CFG 64

struct cfg_alias {
	int32_t out[8], n_out, param, pidx[8], n_pidx;
};
struct cfg_donor {
	int32_t param, pidx[8], n_pidx;
};

struct row_state {
	const char *file;
	struct hlo_module *m;
	int parse_failed;       /* the file as written did not parse */
	int config_rejected;    /* it parsed once its alias/donor header was removed */
	struct cfg_alias aliases[MAX_CFG];
	int n_aliases;
	struct cfg_donor donors[MAX_CFG];
	int n_donors;
	/* analyses, rebuilt when the config changes */
	struct arena arena;
	int have_analysis;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct ordering *ord;
	struct liveness lv;
};

/* ---- tiny parser for the assertion language ---- */

struct cur {
	const char *p;
};

static void skip_ws(struct cur *c)
{
	while (*c->p == ' ')
		c->p++;
}

static int eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (*c->p != ch)
		return 0;
	c->p++;
	return 1;
}

static int read_int(struct cur *c, int32_t *out)
{
	skip_ws(c);
	char *end;
	long v = strtol(c->p, &end, 10);
	if (end == c->p)
		return 0;
	*out = (int32_t)v;
	c->p = end;
	return 1;
}

/* {a,b,...} */
static int read_index(struct cur *c, int32_t *idx, int32_t *n)
{
	*n = 0;
	if (!eat(c, '{'))
		return 0;
	if (eat(c, '}'))
		return 1;
	do {
		if (*n >= 8 || !read_int(c, &idx[(*n)++]))
			return 0;
	} while (eat(c, ','));
	return eat(c, '}');
}

/* {o}:(p,{i}) */
static int read_alias(struct cur *c, struct cfg_alias *a)
{
	return read_index(c, a->out, &a->n_out) && eat(c, ':') && eat(c, '(') &&
	       read_int(c, &a->param) && eat(c, ',') && read_index(c, a->pidx, &a->n_pidx) &&
	       eat(c, ')');
}

/* (p,{i}) */
static int read_donor(struct cur *c, struct cfg_donor *d)
{
	return eat(c, '(') && read_int(c, &d->param) && eat(c, ',') &&
	       read_index(c, d->pidx, &d->n_pidx) && eat(c, ')');
}

/* ---- module and config ---- */

static char *strip_config(const char *text)
{
	/* drop ", input_output_alias={...}" and ", buffer_donor={...}" from the header */
	char *out = strdup(text);
	const char *keys[] = {"input_output_alias=", "buffer_donor="};
	for (int k = 0; k < 2; k++) {
		char *at = strstr(out, keys[k]);
		if (!at)
			continue;
		char *start = at;
		while (start > out && (start[-1] == ' ' || start[-1] == ','))
			start--;
		char *p = at + strlen(keys[k]);
		int depth = 0;
		do {
			if (*p == '{')
				depth++;
			else if (*p == '}')
				depth--;
			p++;
		} while (*p && depth > 0);
		memmove(start, p, strlen(p) + 1);
	}
	return out;
}

static struct hlo_module *parse_quiet(const char *name, const char *text)
{
	struct diag d;
	diag_init(&d, NULL);
	return hlo_parse(name, text, strlen(text), &d);
}

static void drop_analysis(struct row_state *s)
{
	if (s->have_analysis)
		arena_free(&s->arena);
	s->have_analysis = 0;
}

static int load(struct row_state *s, const char *path)
{
	char *text = read_file(path, NULL);
	if (!text)
		return -1;
	s->m = parse_quiet(path, text);
	if (!s->m) {
		s->parse_failed = 1;
		char *stripped = strip_config(text);
		s->m = parse_quiet(path, stripped);
		s->config_rejected = s->m != NULL;
		free(stripped);
	}
	free(text);
	if (s->m) {
		for (int32_t k = 0; k < s->m->n_aliases && s->n_aliases < MAX_CFG; k++) {
			struct cfg_alias *a = &s->aliases[s->n_aliases++];
			const struct io_alias *al = &s->m->aliases[k];
			a->n_out = al->output.n < 8 ? al->output.n : 8;
			if (a->n_out)
				memcpy(a->out, al->output.idx, (size_t)a->n_out * sizeof(int32_t));
			a->param = al->param;
			a->n_pidx = al->param_index.n < 8 ? al->param_index.n : 8;
			if (a->n_pidx)
				memcpy(a->pidx, al->param_index.idx, (size_t)a->n_pidx * sizeof(int32_t));
		}
		for (int32_t k = 0; k < s->m->n_donors && s->n_donors < MAX_CFG; k++) {
			struct cfg_donor *d = &s->donors[s->n_donors++];
			const struct buffer_donor *bd = &s->m->donors[k];
			d->param = bd->param;
			d->n_pidx = bd->param_index.n < 8 ? bd->param_index.n : 8;
			if (d->n_pidx)
				memcpy(d->pidx, bd->param_index.idx, (size_t)d->n_pidx * sizeof(int32_t));
		}
	}
	return 0;
}

static int idx_eq(const int32_t *a, int32_t na, const int32_t *b, int32_t nb)
{
	return na == nb && (na == 0 || !memcmp(a, b, (size_t)na * sizeof(int32_t)));
}

/* Write the in-memory config into the module (its arena) for validation and analysis. */
static void apply_config(struct row_state *s)
{
	struct hlo_module *m = s->m;
	m->n_aliases = s->n_aliases;
	m->aliases = arena_array(&m->arena, (size_t)s->n_aliases + 1, sizeof(struct io_alias));
	for (int k = 0; k < s->n_aliases; k++) {
		struct io_alias *al = &m->aliases[k];
		const struct cfg_alias *a = &s->aliases[k];
		al->output.n = a->n_out;
		al->output.idx = arena_array(&m->arena, (size_t)a->n_out + 1, sizeof(int32_t));
		memcpy(al->output.idx, a->out, (size_t)a->n_out * sizeof(int32_t));
		al->param = a->param;
		al->param_index.n = a->n_pidx;
		al->param_index.idx = arena_array(&m->arena, (size_t)a->n_pidx + 1, sizeof(int32_t));
		memcpy(al->param_index.idx, a->pidx, (size_t)a->n_pidx * sizeof(int32_t));
		al->kind = ALIAS_MAY;
		al->pos = m->pos;
	}
	m->n_donors = s->n_donors;
	m->donors = arena_array(&m->arena, (size_t)s->n_donors + 1, sizeof(struct buffer_donor));
	for (int k = 0; k < s->n_donors; k++) {
		struct buffer_donor *bd = &m->donors[k];
		bd->param = s->donors[k].param;
		bd->param_index.n = s->donors[k].n_pidx;
		bd->param_index.idx = arena_array(&m->arena, (size_t)bd->param_index.n + 1, sizeof(int32_t));
		memcpy(bd->param_index.idx, s->donors[k].pidx, (size_t)bd->param_index.n * sizeof(int32_t));
		bd->pos = m->pos;
	}
	drop_analysis(s);
}

/* HloInputOutputAliasConfig::SetUpAlias: output index valid for the result
 * shape, parameter number not negative, output not aliased yet. */
static int setup_alias(struct row_state *s, const struct cfg_alias *a)
{
	const struct hlo_instruction *root = s->m->entry->root;
	struct shape_index oi = {a->n_out, (int32_t *)a->out};
	const struct shape *res = s->m->has_entry_layout ? s->m->entry_layout_result : root->shape;
	if (!shape_subshape(res, &oi) || a->param < 0 || s->n_aliases >= MAX_CFG)
		return 0;
	for (int k = 0; k < s->n_aliases; k++)
		if (idx_eq(s->aliases[k].out, s->aliases[k].n_out, a->out, a->n_out))
			return 0;
	s->aliases[s->n_aliases++] = *a;
	apply_config(s);
	return 1;
}

/* HloBufferDonorConfig::AddBufferDonor: parameter number not negative; a set. */
static int setup_donor(struct row_state *s, const struct cfg_donor *d)
{
	if (d->param < 0 || s->n_donors >= MAX_CFG)
		return 0;
	for (int k = 0; k < s->n_donors; k++)
		if (s->donors[k].param == d->param &&
		    idx_eq(s->donors[k].pidx, s->donors[k].n_pidx, d->pidx, d->n_pidx))
			return 1;
	s->donors[s->n_donors++] = *d;
	apply_config(s);
	return 1;
}

static void remove_donor(struct row_state *s, const struct cfg_donor *d)
{
	for (int k = 0; k < s->n_donors; k++)
		if (s->donors[k].param == d->param &&
		    idx_eq(s->donors[k].pidx, s->donors[k].n_pidx, d->pidx, d->n_pidx)) {
			s->donors[k] = s->donors[--s->n_donors];
			break;
		}
	apply_config(s);
}

/* HloInputOutputAliasConfig::Verify as XLA's config tests call it: with
 * ShapeUtil::ByteSizeOf as the size function, so byte sizes always count.
 * hlo_validate models the HloVerifier, which compares sizes only once layouts
 * are assigned; the config tests are stricter than that. */
static int alias_sizes_match(const struct hlo_module *m)
{
	const struct shape *res = m->has_entry_layout ? m->entry_layout_result : m->entry->root->shape;
	for (int32_t k = 0; k < m->n_aliases; k++) {
		const struct io_alias *al = &m->aliases[k];
		const struct shape *ps = m->has_entry_layout ? m->entry_layout_params[al->param]
							     : m->entry->params[al->param]->shape;
		const struct shape *o = shape_subshape(res, &al->output);
		const struct shape *i = shape_subshape(ps, &al->param_index);
		if (o && i && o->bytes != i->bytes)
			return 0;
	}
	return 1;
}

static int verify_ok(struct row_state *s)
{
	struct diag d;
	diag_init(&d, NULL);
	/* hlo_validate has checked parameter numbers and indices before sizes are looked at */
	return hlo_validate(s->m, &d) == 0 && alias_sizes_match(s->m);
}

static int analyse(struct row_state *s)
{
	if (s->have_analysis)
		return s->df != NULL;
	arena_init(&s->arena);
	s->have_analysis = 1;
	struct diag d;
	diag_init(&d, stderr);
	s->df = dataflow_run(s->m, &s->arena, &d);
	if (!s->df)
		return 0;
	s->ip = inplace_build(s->df, &s->arena);
	s->bufs = buffers_build(s->df, s->ip, &s->arena);
	s->ord = ordering_build_ex(s->m, ORDER_DEPENDENCY, &s->arena, NULL, &d);
	if (!s->ord) {
		s->df = NULL;
		return 0;
	}
	liveness_init(&s->lv, s->df, s->ip, s->ord);
	return 1;
}

/* ---- positions: INSTR[@COMP][{i,j}] ---- */

struct pos {
	const struct hlo_instruction *instr;
	int32_t sub;
};

static int read_name(struct cur *c, char *buf, size_t cap)
{
	skip_ws(c);
	size_t n = 0;
	while (*c->p && (isalnum((unsigned char)*c->p) || strchr("_.-", *c->p)) && n + 1 < cap)
		buf[n++] = *c->p++;
	buf[n] = 0;
	return n > 0;
}

static int read_pos(struct row_state *s, struct cur *c, struct pos *out)
{
	char name[256], comp[256] = "";
	if (!read_name(c, name, sizeof(name)))
		return 0;
	if (*c->p == '@') {
		c->p++;
		if (!read_name(c, comp, sizeof(comp)))
			return 0;
	}
	int32_t idx[8], n = 0;
	if (*c->p == '{' && !read_index(c, idx, &n))
		return 0;
	const struct hlo_instruction *i = NULL;
	if (comp[0]) {
		const struct hlo_computation *cc = !strcmp(comp, "entry") ? s->m->entry
						   : hlo_find_computation(s->m, comp);
		i = cc ? hlo_find_instruction(cc, name) : NULL;
	} else {
		i = hlo_find_instruction_any(s->m, name);
	}
	if (!i)
		return 0;
	out->instr = i;
	out->sub = dataflow_sub(s->df, i, idx, n);
	return out->sub >= 0;
}

/* {pos,pos,...} into an array; returns count or -1 */
static int read_pos_set(struct row_state *s, struct cur *c, struct pos *out, int cap)
{
	int n = 0;
	if (!eat(c, '{'))
		return -1;
	if (eat(c, '}'))
		return 0;
	do {
		if (n >= cap || !read_pos(s, c, &out[n++]))
			return -1;
	} while (eat(c, ','));
	return eat(c, '}') ? n : -1;
}

static int unique_buffer(struct row_state *s, const struct pos *p)
{
	int32_t tmp[64];
	const struct value_set *vs = dataflow_set(s->df, p->instr, p->sub);
	if (vs->n > 64)
		return -1;
	int32_t n = buffers_at(s->bufs, p->instr, p->sub, tmp);
	return n == 1 ? tmp[0] : -1;
}

static int pos_in(const struct pos *set, int n, const struct hlo_instruction *i, int32_t sub)
{
	for (int k = 0; k < n; k++)
		if (set[k].instr == i && set[k].sub == sub)
			return 1;
	return 0;
}

/* positions of a buffer: union of its values' positions */
static int check_positions(struct row_state *s, int buf, const struct pos *want, int nwant)
{
	const struct hlo_buffer *b = &s->bufs->buffers[buf];
	int count = 0;
	struct pos seen[256];
	for (int32_t k = 0; k < b->n_values; k++) {
		const struct hlo_value *v = &s->df->values[b->values[k]];
		for (int32_t p = 0; p < v->n_positions; p++) {
			if (pos_in(seen, count, v->positions[p].instr, v->positions[p].sub))
				continue;
			if (!pos_in(want, nwant, v->positions[p].instr, v->positions[p].sub))
				return 0;
			if (count >= 256)
				return 0;
			seen[count].instr = v->positions[p].instr;
			seen[count].sub = v->positions[p].sub;
			count++;
		}
	}
	return count == nwant;
}

static int check_values(struct row_state *s, int buf, const struct pos *want, int nwant)
{
	const struct hlo_buffer *b = &s->bufs->buffers[buf];
	if (b->n_values != nwant)
		return 0;
	for (int32_t k = 0; k < b->n_values; k++) {
		const struct hlo_value *v = &s->df->values[b->values[k]];
		if (!pos_in(want, nwant, v->def, v->sub))
			return 0;
	}
	return 1;
}

/* One allocation can hold these buffers: no two values of different buffers
 * interfere, and no read-only value (constant or non-donated parameter,
 * which buffer assignment never shares) is among them when there are several. */
static int same_allocation(struct row_state *s, const int *bufs, int n)
{
	for (int x = 0; x < n; x++)
		for (int y = x + 1; y < n; y++) {
			if (bufs[x] == bufs[y])
				continue;
			const struct hlo_buffer *a = &s->bufs->buffers[bufs[x]], *b = &s->bufs->buffers[bufs[y]];
			if ((a->flags | b->flags) & BUF_READ_ONLY)
				return 0;
			for (int32_t i = 0; i < a->n_values; i++)
				for (int32_t j = 0; j < b->n_values; j++)
					if (may_interfere(&s->lv, a->values[i], b->values[j]))
						return 0;
		}
	return 1;
}

/* Evaluate one assertion; 1 pass, 0 fail. */
static int eval(struct row_state *s, const char *a)
{
	struct cur c = {a};
	char key[64];
	size_t kn = 0;
	while (*c.p && (isalnum((unsigned char)*c.p) || *c.p == '_') && kn + 1 < sizeof(key))
		key[kn++] = *c.p++;
	key[kn] = 0;

	if (!strcmp(key, "parse_or_verify"))
		return s->parse_failed && !strcmp(c.p, "=error");
	if (!s->m)
		return 0;
	if (!strcmp(key, "verify")) {
		int ok = s->parse_failed ? 0 : verify_ok(s);
		return !strcmp(c.p, ok ? "=ok" : "=error");
	}
	if (!strcmp(key, "setup_alias") || !strcmp(key, "setup_error")) {
		int want_ok = key[6] == 'a';
		if (!eat(&c, '='))
			return 0;
		do {
			struct cfg_alias al;
			if (!read_alias(&c, &al))
				return 0;
			if (setup_alias(s, &al) != want_ok)
				return 0;
		} while (eat(&c, ','));
		return *c.p == 0;
	}
	if (!strcmp(key, "setup_donor") || !strcmp(key, "remove_donor")) {
		if (!eat(&c, '='))
			return 0;
		do {
			struct cfg_donor d;
			if (!read_donor(&c, &d))
				return 0;
			if (key[0] == 's') {
				if (!setup_donor(s, &d))
					return 0;
			} else {
				remove_donor(s, &d);
			}
		} while (eat(&c, ','));
		return *c.p == 0;
	}
	if (!strcmp(key, "alias_of_output") || !strcmp(key, "no_alias")) {
		int32_t o[8], no;
		struct cfg_donor p;
		if (key[0] == 'a') {
			if (!read_index(&c, o, &no) || !eat(&c, '=') || !read_donor(&c, &p))
				return 0;
		} else {
			char w[16];
			if (!eat(&c, '(') || !read_name(&c, w, sizeof(w)) || strcmp(w, "output") ||
			    !read_index(&c, o, &no) || !eat(&c, ',') || !read_donor(&c, &p) || !eat(&c, ')'))
				return 0;
		}
		int found = 0;
		for (int k = 0; k < s->n_aliases; k++)
			if (idx_eq(s->aliases[k].out, s->aliases[k].n_out, o, no) &&
			    s->aliases[k].param == p.param &&
			    idx_eq(s->aliases[k].pidx, s->aliases[k].n_pidx, p.pidx, p.n_pidx))
				found = 1;
		return key[0] == 'a' ? found : !found;
	}
	if (!strcmp(key, "is_donor") || !strcmp(key, "not_donor")) {
		struct cfg_donor p;
		if (!read_donor(&c, &p))
			return 0;
		int found = 0;
		for (int k = 0; k < s->n_donors; k++)
			if (s->donors[k].param == p.param &&
			    idx_eq(s->donors[k].pidx, s->donors[k].n_pidx, p.pidx, p.n_pidx))
				found = 1;
		return key[0] == 'i' ? found : !found;
	}

	/* analysis assertions */
	if (!analyse(s))
		return 0;
	if (!strcmp(key, "buffers")) {
		int32_t n;
		return eat(&c, '=') && read_int(&c, &n) && n == s->bufs->n_buffers;
	}
	if (!strcmp(key, "interference")) {
		int any = buffers_any_interference(&s->lv, s->bufs, NULL, NULL);
		return !strcmp(c.p, any ? "=true" : "=false");
	}
	if (!strcmp(key, "same_buffer") || !strcmp(key, "distinct_buffer") ||
	    !strcmp(key, "same_allocation")) {
		struct pos ps[32];
		int n = 0;
		if (!eat(&c, '('))
			return 0;
		do {
			if (n >= 32 || !read_pos(s, &c, &ps[n++]))
				return 0;
		} while (eat(&c, ','));
		if (!eat(&c, ')') || n < 2)
			return 0;
		int bufs[32];
		for (int k = 0; k < n; k++)
			if ((bufs[k] = unique_buffer(s, &ps[k])) < 0)
				return 0;
		if (key[0] == 'd')
			return n == 2 && bufs[0] != bufs[1];
		if (!strcmp(key, "same_allocation"))
			return same_allocation(s, bufs, n);
		for (int k = 1; k < n; k++)
			if (bufs[k] != bufs[0])
				return 0;
		return 1;
	}
	if (!strcmp(key, "positions") || !strcmp(key, "values") || !strcmp(key, "buffers_at") ||
	    !strcmp(key, "ambiguous") || !strcmp(key, "distinct_tuple")) {
		struct pos x;
		if (!eat(&c, '(') || !read_pos(s, &c, &x) || !eat(&c, ')') || !eat(&c, '='))
			return 0;
		if (!strcmp(key, "ambiguous"))
			return !strcmp(c.p, buffers_instruction_ambiguous(s->bufs, x.instr) ? "true" : "false");
		if (!strcmp(key, "distinct_tuple"))
			return !strcmp(c.p, buffers_instruction_distinct(s->bufs, x.instr) ? "true" : "false");
		if (!strcmp(key, "buffers_at")) {
			int want[32], nw = 0;
			if (!eat(&c, '{'))
				return 0;
			do {
				char w[8];
				struct pos p;
				if (nw >= 32 || !read_name(&c, w, sizeof(w)) || strcmp(w, "buf") ||
				    !eat(&c, '(') || !read_pos(s, &c, &p) || !eat(&c, ')'))
					return 0;
				if ((want[nw++] = unique_buffer(s, &p)) < 0)
					return 0;
			} while (eat(&c, ','));
			if (!eat(&c, '}'))
				return 0;
			int32_t have[64];
			if (dataflow_set(s->df, x.instr, x.sub)->n > 64)
				return 0;
			int32_t nh = buffers_at(s->bufs, x.instr, x.sub, have);
			for (int k = 0; k < nw; k++) {
				int found = 0;
				for (int32_t q = 0; q < nh; q++)
					found |= have[q] == want[k];
				if (!found)
					return 0;
			}
			for (int32_t q = 0; q < nh; q++) {
				int found = 0;
				for (int k = 0; k < nw; k++)
					found |= have[q] == want[k];
				if (!found)
					return 0;
			}
			return 1;
		}
		struct pos want[256];
		int nw = read_pos_set(s, &c, want, 256);
		int buf = unique_buffer(s, &x);
		if (nw < 0 || buf < 0 || *c.p)
			return 0;
		return key[0] == 'p' ? check_positions(s, buf, want, nw) : check_values(s, buf, want, nw);
	}
	return 0; /* unknown assertion */
}

/* ---- known gaps ---- */

struct gap {
	char *file, *assertion;
	int used;
};

static int load_gaps(struct gap *g, int cap)
{
	char *text = read_file("tests/known-gaps.tsv", NULL);
	if (!text)
		return 0;
	int n = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !strncmp(line, "file\t", 5))
			continue;
		char *t1 = strchr(line, '\t');
		if (!t1 || n >= cap)
			continue;
		*t1 = 0;
		char *t2 = strchr(t1 + 1, '\t');
		if (t2)
			*t2 = 0;
		g[n].file = strdup(line);
		g[n].assertion = strdup(t1 + 1);
		g[n].used = 0;
		n++;
	}
	free(text);
	return n;
}

static void test_conformance(void **state)
{
	(void)state;
	char *path = shared_path("corpus/xla-alias/EXPECTATIONS.tsv");
	char *text = read_file(path, NULL);
	assert_non_null(text);
	free(path);
	struct gap gaps[256];
	int n_gaps = load_gaps(gaps, 256);
	int passed = 0, failed = 0, skipped = 0, stale = 0, rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "file\t", 5))
			continue;
		char *f[4] = {line, NULL, NULL, NULL};
		for (int k = 1; k < 4; k++) {
			f[k] = f[k - 1] ? strchr(f[k - 1], '\t') : NULL;
			if (f[k])
				*f[k]++ = 0;
		}
		if (!f[2])
			continue;
		rows++;
		char rel[512];
		snprintf(rel, sizeof(rel), "corpus/xla-alias/%s", f[0]);
		char *hlo = shared_path(rel);
		struct row_state s;
		memset(&s, 0, sizeof(s));
		s.file = f[0];
		if (load(&s, hlo) < 0)
			fail_msg("cannot read %s", hlo);
		free(hlo);
		char *asave = NULL;
		for (char *a = strtok_r(f[2], ";", &asave); a; a = strtok_r(NULL, ";", &asave)) {
			int ok = eval(&s, a);
			struct gap *g = NULL;
			for (int k = 0; k < n_gaps && !g; k++)
				if (!strcmp(gaps[k].file, f[0]) && !strcmp(gaps[k].assertion, a))
					g = &gaps[k];
			if (g)
				g->used = 1;
			if (ok && !g) {
				passed++;
			} else if (!ok && g) {
				skipped++;
			} else if (ok && g) {
				printf("known gap now passes (remove it from tests/known-gaps.tsv): %s\t%s\n",
				       f[0], a);
				stale++;
				passed++;
			} else {
				printf("FAIL: %s: %s\n", f[0], a);
				failed++;
			}
		}
		drop_analysis(&s);
		if (s.m)
			hlo_module_free(s.m);
	}
	for (int k = 0; k < n_gaps; k++) {
		if (!gaps[k].used) {
			printf("known gap matches no assertion: %s\t%s\n", gaps[k].file, gaps[k].assertion);
			stale++;
		}
		free(gaps[k].file);
		free(gaps[k].assertion);
	}
	free(text);
	printf("alias-conformance: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	fflush(stdout);
	assert_true(rows >= 35);
	assert_int_equal(failed, 0);
	assert_int_equal(stale, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
