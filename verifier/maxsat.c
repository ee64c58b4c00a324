/* maxsat.c - weighted MaxSMT over Z3_optimize (maxsat.h). */
#include "maxsat.h"
#include "xalloc.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>

struct maxsat {
	Z3_context ctx;
	Z3_optimize opt;
	int32_t n_bools, cap_bools, n_ints, cap_ints;
	Z3_ast *bools, *ints;
	uint64_t total;     /* every soft weight, saturated */
	uint32_t objective; /* the soft group's objective index */
	int have_soft;
	int32_t solves;
};

static void on_error(Z3_context c, Z3_error_code e)
{
	(void)c;
	(void)e; /* a failed call shows as an unknown solve */
}

struct maxsat *maxsat_new(int timeout_ms)
{
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	Z3_context c = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	if (!c)
		return NULL;
	Z3_set_error_handler(c, on_error);
	struct maxsat *s = xcalloc(1, sizeof(*s));
	s->ctx = c;
	s->opt = Z3_mk_optimize(c);
	Z3_optimize_inc_ref(c, s->opt);
	if (timeout_ms > 0) {
		Z3_params p = Z3_mk_params(c);
		Z3_params_inc_ref(c, p);
		Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "timeout"), (unsigned)timeout_ms);
		Z3_optimize_set_params(c, s->opt, p);
		Z3_params_dec_ref(c, p);
	}
	return s;
}

void maxsat_free(struct maxsat *s)
{
	if (!s)
		return;
	Z3_optimize_dec_ref(s->ctx, s->opt);
	Z3_del_context(s->ctx);
	free(s->bools);
	free(s->ints);
	free(s);
}

static Z3_ast var(struct maxsat *s, Z3_ast **v, int32_t *n, int32_t *cap, const char *prefix, Z3_sort sort)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, (size_t)*cap, sizeof(**v));
	}
	char name[32];
	snprintf(name, sizeof(name), "%s%d", prefix, *n);
	Z3_ast a = Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), sort);
	(*v)[(*n)++] = a;
	return a;
}

int32_t maxsat_bool(struct maxsat *s)
{
	var(s, &s->bools, &s->n_bools, &s->cap_bools, "x", Z3_mk_bool_sort(s->ctx));
	return s->n_bools - 1;
}

int32_t maxsat_int(struct maxsat *s)
{
	var(s, &s->ints, &s->n_ints, &s->cap_ints, "p", Z3_mk_int_sort(s->ctx));
	return s->n_ints - 1;
}

static Z3_ast lit(struct maxsat *s, int32_t l)
{
	Z3_ast b = s->bools[(l > 0 ? l : -l) - 1];
	return l > 0 ? b : Z3_mk_not(s->ctx, b);
}

void maxsat_clause(struct maxsat *s, const int32_t *lits, int32_t n)
{
	if (n == 0) {
		Z3_optimize_assert(s->ctx, s->opt, Z3_mk_false(s->ctx));
		return;
	}
	Z3_ast *v = xmalloc((size_t)n, sizeof(*v));
	for (int32_t i = 0; i < n; i++)
		v[i] = lit(s, lits[i]);
	Z3_optimize_assert(s->ctx, s->opt, n == 1 ? v[0] : Z3_mk_or(s->ctx, (unsigned)n, v));
	free(v);
}

void maxsat_less(struct maxsat *s, const int32_t *guards, int32_t n, int32_t a, int32_t b)
{
	Z3_ast lt = Z3_mk_lt(s->ctx, s->ints[a], s->ints[b]);
	if (n > 0) {
		Z3_ast g[8];
		int32_t k = 0;
		for (int32_t i = 0; i < n && k < 8; i++)
			g[k++] = lit(s, guards[i]);
		lt = Z3_mk_implies(s->ctx, k == 1 ? g[0] : Z3_mk_and(s->ctx, (unsigned)k, g), lt);
	}
	Z3_optimize_assert(s->ctx, s->opt, lt);
}

void maxsat_soft(struct maxsat *s, int32_t b, uint64_t weight)
{
	char w[32];
	snprintf(w, sizeof(w), "%llu", (unsigned long long)(weight ? weight : 1));
	s->objective = Z3_optimize_assert_soft(s->ctx, s->opt, s->bools[b], w,
					       Z3_mk_string_symbol(s->ctx, "saved"));
	s->have_soft = 1;
	s->total = s->total + weight < s->total ? UINT64_MAX : s->total + weight;
}

/* A numeral AST as a non-negative integer (saturated); -1 when it is not one. */
static int numeral(Z3_context c, Z3_ast a, uint64_t *out)
{
	if (!a || Z3_get_ast_kind(c, a) != Z3_NUMERAL_AST)
		return -1;
	const char *t = Z3_get_numeral_string(c, a);
	if (!t || strchr(t, '/') || *t == '-')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(t, NULL, 10);
	*out = errno ? UINT64_MAX : (uint64_t)v;
	return 0;
}

enum maxsat_status maxsat_solve(struct maxsat *s, uint8_t *value, uint64_t *bound)
{
	Z3_context c = s->ctx;
	s->solves++;
	*bound = s->total;
	Z3_lbool r = Z3_optimize_check(c, s->opt, 0, NULL);
	if (Z3_get_error_code(c) != Z3_OK)
		return MAXSAT_UNKNOWN;
	if (r == Z3_L_FALSE)
		return MAXSAT_NONE;
	uint64_t penalty;
	if (s->have_soft) {
		Z3_ast lo = Z3_optimize_get_lower(c, s->opt, s->objective);
		if (numeral(c, lo, &penalty) == 0)
			*bound = penalty >= s->total ? 0 : s->total - penalty;
	}
	if (r != Z3_L_TRUE)
		return MAXSAT_UNKNOWN;
	Z3_model m = Z3_optimize_get_model(c, s->opt);
	if (!m)
		return MAXSAT_UNKNOWN;
	Z3_model_inc_ref(c, m);
	for (int32_t i = 0; i < s->n_bools; i++) {
		Z3_ast v = NULL;
		value[i] = Z3_model_eval(c, m, s->bools[i], true, &v) && v &&
			   Z3_get_bool_value(c, v) == Z3_L_TRUE;
	}
	Z3_model_dec_ref(c, m);
	return MAXSAT_OPTIMAL;
}

int32_t maxsat_solves(const struct maxsat *s)
{
	return s->solves;
}
