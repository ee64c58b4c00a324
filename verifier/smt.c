/* smt.c - slices of the schedule space as Z3 problems (smt.h). */
#include "smt.h"
#include "xalloc.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

struct smt {
	Z3_context ctx;
	int timeout_ms;
	char *dump_dir;
	char *module;
	uint64_t n_queries, n_unknown;
	int32_t last_size;
	char reason[256];
	/* every check: constraints asserted and wall time, for --stats */
	int32_t n_log, cap_log;
	int32_t *log_size;
	uint32_t *log_us;
};

struct node {
	const struct hlo_instruction *x;
	Z3_ast pos;
};

struct triple {
	int32_t first, n; /* atoms in p->atoms */
	Z3_ast happens;    /* literal: the triple happens */
	Z3_ast avoided;    /* literal: it does not */
};

struct smt_problem {
	struct smt *s;
	struct depview *dv;
	char label[96];
	char last[160];
	Z3_solver solver;
	int dead;     /* Z3 refused a context or a term (memory limit): every check is unknown */
	int32_t n_nodes, cap_nodes;
	struct node *nodes;
	int32_t n_atoms, cap_atoms;
	struct atom *atoms;
	int32_t n_triples, cap_triples;
	struct triple *triples;
	int32_t n_edges, cap_edges;
	struct atom *edges;
	int built;
	Z3_ast some; /* literal: some triple happens */
	int (*prec)(void *, const struct hlo_instruction *, const struct hlo_instruction *);
	void *prec_ctx;
	Z3_model model;
	int32_t n_asserted;
	/* declared constants (ints then bools in creation order) and assertions, for dumps */
	int32_t n_decls, cap_decls;
	Z3_ast *decls;
	uint8_t *decl_bool;
	int32_t n_asserts, cap_asserts;
	Z3_ast *asserts;
	/* every AST we hold a reference to */
	int32_t n_refs, cap_refs;
	Z3_ast *refs;
};

static void grow(void **v, int32_t *cap, int32_t need, size_t size)
{
	if (need <= *cap)
		return;
	int32_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *n = xrealloc(*v, (size_t)c * size, 1);
	*v = n;
	*cap = c;
}

static void on_z3_error(Z3_context c, Z3_error_code e)
{
	(void)c;
	(void)e; /* checked with Z3_get_error_code after each call that matters */
}

const char *smt_answer_name(enum smt_answer a)
{
	return a == SMT_SAT ? "sat" : a == SMT_UNSAT ? "unsat" : "unknown";
}

/* Z3's memory bound is process-wide (memory_max_size, in megabytes, read by
 * Z3's allocator for every context): set once, before the first context.
 * Past it a check returns unknown ("max. memory exceeded"), which the
 * deciders report as unknown with that reason. HLOPROOF_Z3_MEMORY_MB lowers
 * it (the tests use 1 to reach the path). */
#define SMT_MEMORY_MAX_MB 2048
static pthread_once_t z3_limits_once = PTHREAD_ONCE_INIT;

static void set_z3_limits(void)
{
	char mb[32];
	const char *env = getenv("HLOPROOF_Z3_MEMORY_MB");
	long v = env ? strtol(env, NULL, 10) : 0;
	snprintf(mb, sizeof(mb), "%ld", v > 0 && v < SMT_MEMORY_MAX_MB ? v : (long)SMT_MEMORY_MAX_MB);
	Z3_global_param_set("memory_max_size", mb);
}

struct smt *smt_new(int timeout_ms, const char *dump_dir, const char *module_name)
{
	pthread_once(&z3_limits_once, set_z3_limits);
	struct smt *s = xcalloc(1, sizeof(*s));
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	s->ctx = Z3_mk_context_rc(cfg);
	Z3_del_config(cfg);
	if (s->ctx)
		Z3_set_error_handler(s->ctx, on_z3_error);
	s->timeout_ms = timeout_ms > 0 ? timeout_ms : 2000;
	s->dump_dir = dump_dir ? strdup(dump_dir) : NULL;
	s->module = strdup(module_name ? module_name : "module");
	for (char *c = s->module; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '-' || *c == '.'))
			*c = '_';
	return s;
}

void smt_free(struct smt *s)
{
	if (!s)
		return;
	if (s->ctx)
		Z3_del_context(s->ctx);
	free(s->log_size);
	free(s->log_us);
	free(s->dump_dir);
	free(s->module);
	free(s);
}

uint64_t smt_queries(const struct smt *s)
{
	return s ? s->n_queries : 0;
}

int32_t smt_last_size(const struct smt *s)
{
	return s ? s->last_size : 0;
}

int32_t smt_query_log(const struct smt *s, const int32_t **sizes, const uint32_t **us)
{
	*sizes = s ? s->log_size : NULL;
	*us = s ? s->log_us : NULL;
	return s ? s->n_log : 0;
}

static Z3_ast keep(struct smt_problem *p, Z3_ast a)
{
	if (!a || p->dead) {
		p->dead = 1;
		return NULL;
	}
	Z3_inc_ref(p->s->ctx, a);
	grow((void **)&p->refs, &p->cap_refs, p->n_refs + 1, sizeof(Z3_ast));
	p->refs[p->n_refs++] = a;
	return a;
}

struct smt_problem *smt_problem_new(struct smt *s, struct depview *dv, const char *label)
{
	struct smt_problem *p = xcalloc(1, sizeof(*p));
	p->s = s;
	p->dv = dv;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "query");
	for (char *c = p->label; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '-' || *c == '.'))
			*c = '_';
	if (!s->ctx || !(p->solver = Z3_mk_simple_solver(s->ctx))) {
		p->dead = 1;
		return p;
	}
	/* no tactic front end: ~20x cheaper per check */
	Z3_solver_inc_ref(s->ctx, p->solver);
	Z3_params prm = Z3_mk_params(s->ctx);
	Z3_params_inc_ref(s->ctx, prm);
	Z3_params_set_uint(s->ctx, prm, Z3_mk_string_symbol(s->ctx, "timeout"),
			   (unsigned)s->timeout_ms);
	Z3_solver_set_params(s->ctx, p->solver, prm);
	Z3_params_dec_ref(s->ctx, prm);
	return p;
}

void smt_problem_free(struct smt_problem *p)
{
	if (!p)
		return;
	Z3_context c = p->s->ctx;
	if (p->model)
		Z3_model_dec_ref(c, p->model);
	for (int32_t i = 0; i < p->n_refs; i++)
		Z3_dec_ref(c, p->refs[i]);
	if (p->solver)
		Z3_solver_dec_ref(c, p->solver);
	free(p->refs);
	free(p->nodes);
	free(p->atoms);
	free(p->triples);
	free(p->edges);
	free(p->decls);
	free(p->decl_bool);
	free(p->asserts);
	free(p);
}

static Z3_ast declare(struct smt_problem *p, const char *name, int is_bool)
{
	Z3_context c = p->s->ctx;
	if (p->dead)
		return NULL;
	Z3_ast a = keep(p, Z3_mk_const(c, Z3_mk_string_symbol(c, name),
				      is_bool ? Z3_mk_bool_sort(c) : Z3_mk_int_sort(c)));
	int32_t cap = p->cap_decls;
	grow((void **)&p->decls, &p->cap_decls, p->n_decls + 1, sizeof(Z3_ast));
	if (p->cap_decls != cap) {
		cap = p->cap_decls;
		uint8_t *nb = xrealloc(p->decl_bool, (size_t)cap, 1);
		p->decl_bool = nb;
	}
	p->decl_bool[p->n_decls] = (uint8_t)is_bool;
	p->decls[p->n_decls++] = a;
	return a;
}

static int32_t node_of(struct smt_problem *p, const struct hlo_instruction *x)
{
	for (int32_t i = 0; i < p->n_nodes; i++)
		if (p->nodes[i].x == x)
			return i;
	grow((void **)&p->nodes, &p->cap_nodes, p->n_nodes + 1, sizeof(struct node));
	struct node *n = &p->nodes[p->n_nodes];
	n->x = x;
	char name[256];
	snprintf(name, sizeof(name), "%s@%s", x->name, x->parent->name);
	n->pos = declare(p, name, 0);
	return p->n_nodes++;
}

int32_t smt_add_triple(struct smt_problem *p, const struct atom *a, int32_t n)
{
	grow((void **)&p->atoms, &p->cap_atoms, p->n_atoms + n, sizeof(struct atom));
	grow((void **)&p->triples, &p->cap_triples, p->n_triples + 1, sizeof(struct triple));
	struct triple *t = &p->triples[p->n_triples];
	t->first = p->n_atoms;
	t->n = n;
	t->happens = t->avoided = NULL;
	for (int32_t i = 0; i < n; i++) {
		p->atoms[p->n_atoms++] = a[i];
		node_of(p, a[i].a);
		node_of(p, a[i].b);
	}
	p->built = 0;
	return p->n_triples++;
}

void smt_set_precedence(struct smt_problem *p,
			int (*prec)(void *ctx, const struct hlo_instruction *a,
				    const struct hlo_instruction *b),
			void *ctx)
{
	p->prec = prec;
	p->prec_ctx = ctx;
	p->built = 0;
}

void smt_add_edge(struct smt_problem *p, const struct hlo_instruction *a,
		  const struct hlo_instruction *b)
{
	grow((void **)&p->edges, &p->cap_edges, p->n_edges + 1, sizeof(struct atom));
	p->edges[p->n_edges].a = a;
	p->edges[p->n_edges].b = b;
	p->n_edges++;
	node_of(p, a);
	node_of(p, b);
	p->built = 0;
}

static void assert_kept(struct smt_problem *p, Z3_ast a)
{
	if (!keep(p, a))
		return;
	Z3_solver_assert(p->s->ctx, p->solver, a);
	p->n_asserted++;
	grow((void **)&p->asserts, &p->cap_asserts, p->n_asserts + 1, sizeof(Z3_ast));
	p->asserts[p->n_asserts++] = a;
}


static Z3_ast lt(struct smt_problem *p, const struct hlo_instruction *a,
		 const struct hlo_instruction *b)
{
	if (p->dead)
		return NULL;
	return keep(p, Z3_mk_lt(p->s->ctx, p->nodes[node_of(p, a)].pos, p->nodes[node_of(p, b)].pos));
}

/* Assert what is not yet asserted: the slice order, then the triples. */
static void build(struct smt_problem *p)
{
	if (p->built || p->dead)
		return;
	Z3_context c = p->s->ctx;
	/* rebuild from scratch: solver reset keeps the terms we hold */
	Z3_solver_reset(c, p->solver);
	p->n_asserted = 0;
	p->n_asserts = 0;
	/* literals are declared again below; node positions stay */
	int32_t keep_decls = 0;
	for (int32_t i = 0; i < p->n_decls; i++)
		if (!p->decl_bool[i])
			p->decls[keep_decls++] = p->decls[i];
	p->n_decls = keep_decls;
	/* positions distinct per computation; dependency order in the slice */
	Z3_ast *group = xmalloc(((size_t)p->n_nodes + 1), sizeof(Z3_ast));
	for (int32_t i = 0; i < p->n_nodes; i++) {
		int32_t ng = 0, seen_before = 0;
		for (int32_t j = 0; j < i; j++)
			if (p->nodes[j].x->parent == p->nodes[i].x->parent)
				seen_before = 1;
		if (seen_before)
			continue;
		for (int32_t j = i; j < p->n_nodes; j++)
			if (p->nodes[j].x->parent == p->nodes[i].x->parent)
				group[ng++] = p->nodes[j].pos;
		if (ng > 1)
			assert_kept(p, Z3_mk_distinct(c, (unsigned)ng, group));
	}
	free(group);
	for (int32_t i = 0; i < p->n_nodes; i++)
		for (int32_t j = 0; j < p->n_nodes; j++)
			if (i != j && p->nodes[i].x->parent == p->nodes[j].x->parent &&
			    (p->prec ? p->prec(p->prec_ctx, p->nodes[i].x, p->nodes[j].x)
				     : must_precede(p->dv, p->nodes[i].x, p->nodes[j].x)))
				assert_kept(p, Z3_mk_lt(c, p->nodes[i].pos, p->nodes[j].pos));
	for (int32_t i = 0; i < p->n_edges; i++)
		assert_kept(p, lt(p, p->edges[i].a, p->edges[i].b));
	Z3_ast *some = xmalloc(((size_t)p->n_triples + 1), sizeof(Z3_ast));
	/* a term Z3 refused (its memory limit) makes the problem dead: no
	 * term is built from it (Z3 does not take NULL), every check is unknown */
	for (int32_t t = 0; t < p->n_triples && !p->dead; t++) {
		struct triple *tr = &p->triples[t];
		char name[64];
		snprintf(name, sizeof(name), "hazard_%d", t);
		tr->happens = declare(p, name, 1);
		snprintf(name, sizeof(name), "avoid_%d", t);
		tr->avoided = declare(p, name, 1);
		Z3_ast conj[COND_MAX_ATOMS + 1], negs[COND_MAX_ATOMS + 1];
		for (int32_t i = 0; i < tr->n; i++) {
			const struct atom *a = &p->atoms[tr->first + i];
			conj[i] = lt(p, a->a, a->b);
			negs[i] = lt(p, a->b, a->a); /* positions are distinct */
		}
		if (p->dead)
			break;
		Z3_ast all = tr->n ? keep(p, Z3_mk_and(c, (unsigned)tr->n, conj)) : keep(p, Z3_mk_true(c));
		Z3_ast none = tr->n ? keep(p, Z3_mk_or(c, (unsigned)tr->n, negs)) : keep(p, Z3_mk_false(c));
		if (p->dead)
			break;
		assert_kept(p, Z3_mk_implies(c, tr->happens, all));
		assert_kept(p, Z3_mk_implies(c, tr->avoided, none));
		some[t] = tr->happens;
	}
	if (p->dead) {
		free(some);
		return;
	}
	p->some = declare(p, "some_hazard", 1);
	Z3_ast any = p->n_triples ? keep(p, Z3_mk_or(c, (unsigned)p->n_triples, some))
				  : keep(p, Z3_mk_false(c));
	assert_kept(p, Z3_mk_implies(c, p->some, any));
	free(some);
	p->built = 1;
}

static void dump(struct smt_problem *p, const Z3_ast *lits, int32_t n, enum smt_answer ans)
{
	struct smt *s = p->s;
	if (!s->dump_dir)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.smt2", s->dump_dir, p->last);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "hloproof: warning: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "; hloproof query %s (module %s)\n; answer: %s\n", p->last, s->module,
		smt_answer_name(ans));
	for (int32_t i = 0; i < p->n_decls; i++)
		fprintf(f, "(declare-fun %s () %s)\n", Z3_ast_to_string(s->ctx, p->decls[i]),
			p->decl_bool[i] ? "Bool" : "Int");
	for (int32_t i = 0; i < p->n_asserts; i++)
		fprintf(f, "(assert %s)\n", Z3_ast_to_string(s->ctx, p->asserts[i]));
	for (int32_t i = 0; i < n; i++)
		fprintf(f, "(assert %s)\n", Z3_ast_to_string(s->ctx, lits[i]));
	fputs("(check-sat)\n", f);
	fclose(f);
}

static enum smt_answer check(struct smt_problem *p, const char *what, const Z3_ast *lits,
			     int32_t n, const char **reason)
{
	struct smt *s = p->s;
	Z3_context c = s->ctx;
	build(p);
	if (p->dead) { /* nothing reaches Z3: not counted as a query */
		s->n_unknown++;
		snprintf(s->reason, sizeof(s->reason),
			 "z3: the solver ran out of its memory limit (memory_max_size) before the query");
		if (reason)
			*reason = s->reason;
		return SMT_UNKNOWN;
	}
	if (p->model) {
		Z3_model_dec_ref(c, p->model);
		p->model = NULL;
	}
	snprintf(p->last, sizeof(p->last), "%s-q%04llu-%s-%s", s->module, (unsigned long long)s->n_queries,
		 what, p->label);
	s->n_queries++;
	s->last_size = p->n_asserted;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	Z3_lbool r = Z3_solver_check_assumptions(c, p->solver, (unsigned)n, lits);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (s->n_log == s->cap_log) {
		int32_t cap = s->cap_log;
		grow((void **)&s->log_size, &cap, s->n_log + 1, sizeof(int32_t));
		cap = s->cap_log;
		grow((void **)&s->log_us, &cap, s->n_log + 1, sizeof(uint32_t));
		s->cap_log = cap;
	}
	int64_t us = ((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec)) / 1000;
	s->log_size[s->n_log] = p->n_asserted + n;
	s->log_us[s->n_log++] = (uint32_t)(us > 0xffffffff ? 0xffffffff : us);
	enum smt_answer ans = r == Z3_L_TRUE ? SMT_SAT : r == Z3_L_FALSE ? SMT_UNSAT : SMT_UNKNOWN;
	if (ans == SMT_UNKNOWN) {
		s->n_unknown++;
		snprintf(s->reason, sizeof(s->reason), "z3: %s",
			 Z3_solver_get_reason_unknown(c, p->solver));
		if (reason)
			*reason = s->reason;
	} else if (ans == SMT_SAT) {
		p->model = Z3_solver_get_model(c, p->solver);
		if (p->model)
			Z3_model_inc_ref(c, p->model);
	}
	dump(p, lits, n, ans);
	return ans;
}

enum smt_answer smt_check_none(struct smt_problem *p, const char **reason)
{
	build(p);
	Z3_ast *lits = xmalloc(((size_t)p->n_triples + 1), sizeof(Z3_ast));
	for (int32_t t = 0; t < p->n_triples; t++)
		lits[t] = p->triples[t].avoided;
	enum smt_answer a = check(p, "none", lits, p->n_triples, reason);
	free(lits);
	return a;
}

enum smt_answer smt_check_triple(struct smt_problem *p, int32_t t, const char **reason)
{
	build(p);
	return check(p, "hazard", &p->triples[t].happens, 1, reason);
}

enum smt_answer smt_check_not_triple(struct smt_problem *p, int32_t t, const char **reason)
{
	build(p);
	return check(p, "avoid", &p->triples[t].avoided, 1, reason);
}

enum smt_answer smt_check_some(struct smt_problem *p, const char **reason)
{
	build(p);
	return check(p, "some", &p->some, 1, reason);
}

int smt_model_before(struct smt_problem *p, const struct hlo_instruction *a,
		     const struct hlo_instruction *b)
{
	if (!p->model)
		return -1;
	Z3_context c = p->s->ctx;
	int32_t ia = -1, ib = -1;
	for (int32_t i = 0; i < p->n_nodes; i++) {
		if (p->nodes[i].x == a)
			ia = i;
		if (p->nodes[i].x == b)
			ib = i;
	}
	if (ia < 0 || ib < 0)
		return -1;
	Z3_ast va = NULL, vb = NULL;
	int64_t xa, xb;
	if (!Z3_model_eval(c, p->model, p->nodes[ia].pos, 1, &va) ||
	    !Z3_model_eval(c, p->model, p->nodes[ib].pos, 1, &vb))
		return -1;
	Z3_inc_ref(c, va);
	Z3_inc_ref(c, vb);
	int ok = Z3_get_numeral_int64(c, va, &xa) && Z3_get_numeral_int64(c, vb, &xb);
	Z3_dec_ref(c, va);
	Z3_dec_ref(c, vb);
	return ok ? xa < xb : -1;
}

const char *smt_last_query_name(const struct smt_problem *p)
{
	return p->last;
}
