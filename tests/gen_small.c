/* gen_small.c - deterministic random small HLO modules (see gen_small.h).
 *
 * Every module is built as a list of computations of instructions, each
 * instruction using only instructions created before it, so the text order
 * is a valid schedule (the root is always printed last). */
#include "gen_small.h"
#include "oracle.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bitcast views of an f32[2,4]{1,0} m: T_V42T transposes (v[a,b] is
 * m[b,a]), T_M42 reshapes (element 2a+b); T_C41, T_Q22, T_R12 are the
 * boxes their slices read and their DUS write. T_ASYNC: a copy-start's
 * (destination, source, context) tuple, never picked */
enum gty {
	T_F8, T_F4, T_M24, T_M24T, T_R14, T_S, T_P, T_TUPLE,
	T_V42T, T_C41, T_Q22, T_M42, T_R12, T_ASYNC, T_NTY
};

static const char *const shape_txt[T_NTY] = {
	"f32[8]", "f32[4]", "f32[2,4]{1,0}", "f32[2,4]{0,1}", "f32[1,4]{1,0}", "s32[]", "pred[]", "",
	"f32[4,2]{0,1}", "f32[4,1]{0,1}", "f32[2,2]{0,1}", "f32[4,2]{1,0}", "f32[1,2]{1,0}", "",
};

#define G_MAX_INS 64
#define G_MAX_COMPS 10

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int rnd(struct rng *r, int n)
{
	return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n);
}

static int chance(struct rng *r, int pct)
{
	return rnd(r, 100) < pct;
}

struct gins {
	char name[32];
	char rhs[320];
	int ty;
	int users;
	int ctrl[2], n_ctrl;
	int is_param;
};

struct gcomp {
	char name[32];
	char sig[640];       /* "(bp: SHAPE) -> SHAPE" */
	struct gins ins[G_MAX_INS];
	int n;
	int root;            /* index of the root (always the last one) */
};

/* A hazard the module as given already has (gen_entry picks at most one):
 * a copy's removal is judged by the hazards it brings beyond those. */
enum pre_hazard {
	PRE_NONE = 0,
	PRE_DONATION,      /* a donated parameter read after its in-place update */
	PRE_DONATION_FLOW, /* ... the update inside a while loop or a branch */
	PRE_LOOP_SLOTS,    /* two loop slots returning one value */
	PRE_OUTPUTS,       /* a value and its in-place update both entry outputs */
	PRE_CONST_OUTPUT,  /* a constant at an entry output */
	PRE_N
};

struct gen {
	struct rng r;
	int uid;
	struct gcomp comps[G_MAX_COMPS];
	int ncomp;
	int overflow;
	enum pre_hazard pre;
	int flow_value;     /* PRE_DONATION_FLOW: the entry value the loop or branch takes (-1: pick) */
	int alias_out;      /* an entry output to alias to parameter 0 (-1: none) */
};

static struct gcomp *new_comp(struct gen *g, const char *prefix)
{
	if (g->ncomp >= G_MAX_COMPS) {
		g->overflow = 1;
		return &g->comps[G_MAX_COMPS - 1];
	}
	struct gcomp *c = &g->comps[g->ncomp++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s.%d", prefix, g->uid++);
	c->root = -1;
	return c;
}

/* Add an instruction "%prefix.N = rhs"; returns its index. */
static int add(struct gen *g, struct gcomp *c, int ty, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int add(struct gen *g, struct gcomp *c, int ty, const char *prefix, const char *fmt, ...)
{
	if (c->n >= G_MAX_INS) {
		g->overflow = 1;
		return c->n - 1;
	}
	struct gins *x = &c->ins[c->n];
	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s.%d", prefix, g->uid++);
	x->ty = ty;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->rhs, sizeof(x->rhs), fmt, ap);
	va_end(ap);
	return c->n++;
}

static const char *nm(const struct gcomp *c, int i)
{
	return c->ins[i].name;
}

static void use(struct gcomp *c, int i)
{
	c->ins[i].users++;
}

/* A value of type ty, recent ones preferred; -1 when there is none. */
static int pick(struct gen *g, struct gcomp *c, int ty)
{
	int cand[G_MAX_INS], n = 0;
	for (int i = 0; i < c->n; i++)
		if (c->ins[i].ty == ty)
			cand[n++] = i;
	if (!n)
		return -1;
	if (chance(&g->r, 50))
		return cand[n - 1];
	return cand[rnd(&g->r, n)];
}

static int const_s32(struct gen *g, struct gcomp *c, int v)
{
	return add(g, c, T_S, "c", "s32[] constant(%d)", v);
}

/* An F4 value: a slice or dynamic-slice of an F8, or a constant. */
static int make_f4(struct gen *g, struct gcomp *c)
{
	int x = pick(g, c, T_F8);
	int k = rnd(&g->r, 3);
	if (x < 0 || k == 0)
		return add(g, c, T_F4, "cu", "f32[4] constant({1, 2, 3, 4})");
	use(c, x);
	if (k == 1) {
		int a = 2 * rnd(&g->r, 3);
		return add(g, c, T_F4, "sl", "f32[4] slice(%%%s), slice={[%d:%d]}", nm(c, x), a, a + 4);
	}
	int i = const_s32(g, c, rnd(&g->r, 8) - 1);
	use(c, i);
	return add(g, c, T_F4, "ds", "f32[4] dynamic-slice(%%%s, %%%s), dynamic_slice_sizes={4}",
		   nm(c, x), nm(c, i));
}

/* A start index: a constant (sometimes out of range, to be clamped) or a
 * value that is not a constant instruction. */
static int make_index(struct gen *g, struct gcomp *c, int maxv)
{
	int s = pick(g, c, T_S);
	int k = rnd(&g->r, 3);
	if (k == 0 && s >= 0 && !strstr(c->ins[s].rhs, "constant"))
		return s;
	if (k == 1) {
		int c0 = const_s32(g, c, rnd(&g->r, 3));
		use(c, c0);
		return add(g, c, T_S, "ix", "s32[] negate(%%%s)", nm(c, c0));
	}
	static const int vals[] = {0, 2, 4, 6, -1, 3, 5};
	int v = vals[rnd(&g->r, 7)];
	return const_s32(g, c, v > maxv + 2 ? maxv : v);
}

static int unary(struct gen *g, struct gcomp *c, int x)
{
	static const char *const ops[] = {"negate", "exponential", "abs"};
	const char *op = ops[rnd(&g->r, 3)];
	use(c, x);
	return add(g, c, c->ins[x].ty, "u", "%s %s(%%%s)", shape_txt[c->ins[x].ty], op, nm(c, x));
}

static int binary(struct gen *g, struct gcomp *c, int x, int y)
{
	static const char *const ops[] = {"add", "multiply", "subtract"};
	const char *op = ops[rnd(&g->r, 3)];
	use(c, x);
	use(c, y);
	return add(g, c, c->ins[x].ty, "b", "%s %s(%%%s, %%%s)", shape_txt[c->ins[x].ty], op, nm(c, x),
		   nm(c, y));
}

/* dynamic-update-slice of base (F8) with an F4 update. */
static int dus_f8(struct gen *g, struct gcomp *c, int base)
{
	int u = chance(&g->r, 50) ? pick(g, c, T_F4) : -1;
	if (u < 0)
		u = make_f4(g, c);
	int i = make_index(g, c, 4);
	use(c, base);
	use(c, u);
	use(c, i);
	return add(g, c, T_F8, "dus", "f32[8] dynamic-update-slice(%%%s, %%%s, %%%s)", nm(c, base),
		   nm(c, u), nm(c, i));
}

static int dus_m24(struct gen *g, struct gcomp *c, int base)
{
	int u = pick(g, c, T_R14);
	if (u < 0) {
		int src = chance(&g->r, 50) ? base : -1;
		if (src >= 0) {
			use(c, src);
			u = add(g, c, T_R14, "sl", "f32[1,4]{1,0} slice(%%%s), slice={[1:2], [0:4]}",
				nm(c, src));
		} else {
			u = add(g, c, T_R14, "cu", "f32[1,4]{1,0} constant({ {1, 2, 3, 4} })");
		}
	}
	int i0 = make_index(g, c, 1), i1 = const_s32(g, c, 0);
	use(c, base);
	use(c, u);
	use(c, i0);
	use(c, i1);
	return add(g, c, T_M24, "dus", "f32[2,4]{1,0} dynamic-update-slice(%%%s, %%%s, %%%s, %%%s)",
		   nm(c, base), nm(c, u), nm(c, i0), nm(c, i1));
}

/* A fused copy: a fusion whose computation copies its parameter (GPU's
 * wrapped_copy; with another layout, a TPU relayout fusion). */
static int fused_copy_of(struct gen *g, struct gcomp *c, int x, int ty)
{
	int from = c->ins[x].ty;
	struct gcomp *fc = new_comp(g, "wrapped_copy_computation");
	snprintf(fc->sig, sizeof(fc->sig), "(fp: %s) -> %s", shape_txt[from], shape_txt[ty]);
	int p = add(g, fc, from, "fp", "%s parameter(0)", shape_txt[from]);
	fc->ins[p].is_param = 1;
	use(fc, p);
	fc->root = add(g, fc, ty, "fcp", "%s copy(%%%s)", shape_txt[ty], nm(fc, p));
	return add(g, c, ty, "wrapped_copy", "%s fusion(%%%s), kind=kLoop, calls=%%%s", shape_txt[ty],
		   nm(c, x), fc->name);
}

/* An asynchronous copy: copy-start / copy-done in one memory space. */
static int async_copy_of(struct gen *g, struct gcomp *c, int x)
{
	const char *st = shape_txt[c->ins[x].ty];
	int cs = add(g, c, T_ASYNC, "cs", "(%s, %s, u32[]) copy-start(%%%s)", st, st, nm(c, x));
	use(c, cs);
	return add(g, c, c->ins[x].ty, "cd", "%s copy-done(%%%s)", st, nm(c, cs));
}

static int copy_of(struct gen *g, struct gcomp *c, int x)
{
	int ty = c->ins[x].ty;
	use(c, x);
	int kind = rnd(&g->r, 100); /* < 25: fused, < 40: asynchronous, else a copy */
	if (ty == T_M24 && chance(&g->r, 40)) {
		if (kind < 25)
			return fused_copy_of(g, c, x, T_M24T);
		return add(g, c, T_M24T, "lcp", "f32[2,4]{0,1} copy(%%%s)", nm(c, x));
	}
	if (kind < 25)
		return fused_copy_of(g, c, x, ty);
	if (kind < 40)
		return async_copy_of(g, c, x);
	return add(g, c, ty, "cp", "%s copy(%%%s)", shape_txt[ty], nm(c, x));
}

static void ctrl_edge(struct gen *g, struct gcomp *c)
{
	int cand[G_MAX_INS], n = 0;
	for (int i = 0; i < c->n; i++)
		if (!c->ins[i].is_param && !strstr(c->ins[i].rhs, " constant("))
			cand[n++] = i;
	if (n < 2)
		return;
	int a = rnd(&g->r, n - 1), b = a + 1 + rnd(&g->r, n - 1 - a);
	struct gins *y = &c->ins[cand[b]];
	if (y->n_ctrl < 2)
		y->ctrl[y->n_ctrl++] = cand[a];
}

/* ---- bitcast views ---- */

static int bitcast_to(struct gen *g, struct gcomp *c, int x, int ty)
{
	use(c, x);
	return add(g, c, ty, "bc", "%s bitcast(%%%s)", shape_txt[ty], nm(c, x));
}

/* A view of a buffer through a bitcast: f32[8] seen as f32[2,4]{1,0}
 * (reshape) and back, f32[2,4]{1,0} seen as f32[4,2]{0,1} (transpose);
 * slices that read a view, a dynamic-update-slice that writes one, and
 * the KV-cache fusion (a kLoop DUS fusion whose operand is bitcast(x)).
 * Boxes of two views meet in memory where their coordinates do not. */
static void gen_view(struct gen *g, struct gcomp *e)
{
	int f8 = pick(g, e, T_F8), m24 = pick(g, e, T_M24), v = pick(g, e, T_V42T);
	int r42 = pick(g, e, T_M42);
	int k = rnd(&g->r, 12);
	if (k == 0 || m24 < 0) {
		if (f8 >= 0)
			bitcast_to(g, e, f8, chance(&g->r, 70) ? T_M24 : T_V42T);
		return;
	}
	switch (k) {
	case 1:
		bitcast_to(g, e, m24, chance(&g->r, 50) ? T_V42T : T_M42);
		return;
	case 2:
		bitcast_to(g, e, chance(&g->r, 50) && v >= 0 ? v : m24, T_F8);
		return;
	case 7:
	case 8: { /* the reshaped view: read a row (elements 2a, 2a+1) or write one */
		if (r42 < 0)
			r42 = bitcast_to(g, e, chance(&g->r, 50) ? m24 : f8, T_M42);
		use(e, r42);
		if (chance(&g->r, 50)) {
			int a = rnd(&g->r, 4);
			add(g, e, T_R12, "sl", "f32[1,2]{1,0} slice(%%%s), slice={[%d:%d], [0:2]}", nm(e, r42), a,
			    a + 1);
			return;
		}
		int u = pick(g, e, T_R12);
		if (u < 0)
			u = add(g, e, T_R12, "cu", "f32[1,2]{1,0} constant({ {1, 2} })");
		int i0 = make_index(g, e, 3), i1 = const_s32(g, e, 0);
		use(e, u);
		use(e, i0);
		use(e, i1);
		add(g, e, T_M42, "dus", "f32[4,2]{1,0} dynamic-update-slice(%%%s, %%%s, %%%s, %%%s)",
		    nm(e, r42), nm(e, u), nm(e, i0), nm(e, i1));
		return;
	}
	case 3: { /* read a row of the 2-D view: elements 4r..4r+3 */
		int r = rnd(&g->r, 2);
		use(e, m24);
		add(g, e, T_R14, "sl", "f32[1,4]{1,0} slice(%%%s), slice={[%d:%d], [0:4]}", nm(e, m24), r,
		    r + 1);
		return;
	}
	case 4: { /* read the transposed view: a column (a row of m) or a 2x2 box */
		if (v < 0)
			v = bitcast_to(g, e, m24, T_V42T);
		use(e, v);
		if (chance(&g->r, 50)) {
			int b = rnd(&g->r, 2);
			add(g, e, T_C41, "sl", "f32[4,1]{0,1} slice(%%%s), slice={[0:4], [%d:%d]}", nm(e, v), b,
			    b + 1);
		} else {
			int a = rnd(&g->r, 3);
			add(g, e, T_Q22, "sl", "f32[2,2]{0,1} slice(%%%s), slice={[%d:%d], [0:2]}", nm(e, v), a,
			    a + 2);
		}
		return;
	}
	case 5: { /* write through the transposed view: column i of v, row i of m */
		if (v < 0)
			v = bitcast_to(g, e, m24, T_V42T);
		int u = pick(g, e, T_C41);
		if (u < 0)
			u = add(g, e, T_C41, "cu", "f32[4,1]{0,1} constant({ {1}, {2}, {3}, {4} })");
		int i0 = const_s32(g, e, 0), i1 = make_index(g, e, 1);
		use(e, v);
		use(e, u);
		use(e, i0);
		use(e, i1);
		add(g, e, T_V42T, "dus", "f32[4,2]{0,1} dynamic-update-slice(%%%s, %%%s, %%%s, %%%s)",
		    nm(e, v), nm(e, u), nm(e, i0), nm(e, i1));
		return;
	}
	case 9:
	case 10: { /* an update in place and a read of another view, in either order */
		int tv = chance(&g->r, 50) ? T_V42T : T_M42;
		int vw = bitcast_to(g, e, m24, tv);
		int rd = -1;
		if (chance(&g->r, 30)) /* the read first: ordered by the data only when it must be */
			rd = tv == T_V42T ? add(g, e, T_Q22, "sl", "f32[2,2]{0,1} slice(%%%s), slice={[%d:%d], [0:2]}",
						nm(e, vw), 1, 3)
					  : add(g, e, T_R12, "sl", "f32[1,2]{1,0} slice(%%%s), slice={[%d:%d], [0:2]}",
						nm(e, vw), 1, 2);
		if (chance(&g->r, 50)) {
			dus_m24(g, e, m24);
		} else { /* write through the view, read m's rows */
			int u = tv == T_V42T ? add(g, e, T_C41, "cu", "f32[4,1]{0,1} constant({ {1}, {2}, {3}, {4} })")
					     : add(g, e, T_R12, "cu", "f32[1,2]{1,0} constant({ {1, 2} })");
			int i0 = tv == T_V42T ? const_s32(g, e, 0) : make_index(g, e, 3);
			int i1 = tv == T_V42T ? make_index(g, e, 1) : const_s32(g, e, 0);
			use(e, vw);
			add(g, e, tv, "dus", "%s dynamic-update-slice(%%%s, %%%s, %%%s, %%%s)", shape_txt[tv],
			    nm(e, vw), nm(e, u), nm(e, i0), nm(e, i1));
			int r = rnd(&g->r, 2);
			use(e, m24);
			add(g, e, T_R14, "sl", "f32[1,4]{1,0} slice(%%%s), slice={[%d:%d], [0:4]}", nm(e, m24), r,
			    r + 1);
			return;
		}
		if (rd < 0) {
			use(e, vw);
			int a = rnd(&g->r, 3);
			if (tv == T_V42T)
				add(g, e, T_Q22, "sl", "f32[2,2]{0,1} slice(%%%s), slice={[%d:%d], [0:2]}", nm(e, vw), a,
				    a + 2);
			else
				add(g, e, T_R12, "sl", "f32[1,2]{1,0} slice(%%%s), slice={[%d:%d], [0:2]}", nm(e, vw), a,
				    a + 1);
		}
		return;
	}
	default: { /* the KV-cache pattern */
		int base = f8 >= 0 && chance(&g->r, 70) ? bitcast_to(g, e, f8, T_M24) : m24;
		int u = pick(g, e, T_R14);
		if (u < 0)
			u = add(g, e, T_R14, "cu", "f32[1,4]{1,0} constant({ {1, 2, 3, 4} })");
		int i = make_index(g, e, 1);
		struct gcomp *fc = new_comp(g, "fused");
		snprintf(fc->sig, sizeof(fc->sig),
			 "(fp: f32[2,4], fu: f32[1,4], fi: s32[]) -> f32[2,4]");
		int fp = add(g, fc, T_M24, "fp", "f32[2,4]{1,0} parameter(0)");
		int fu = add(g, fc, T_R14, "fu", "f32[1,4]{1,0} parameter(1)");
		int fi = add(g, fc, T_S, "fi", "s32[] parameter(2)");
		fc->ins[fp].is_param = fc->ins[fu].is_param = fc->ins[fi].is_param = 1;
		int fz = const_s32(g, fc, 0);
		fc->root = add(g, fc, T_M24, "fd",
			       "f32[2,4]{1,0} dynamic-update-slice(%%%s, %%%s, %%%s, %%%s)", nm(fc, fp),
			       nm(fc, fu), nm(fc, fi), nm(fc, fz));
		use(e, base);
		use(e, u);
		use(e, i);
		add(g, e, T_M24, "fus", "f32[2,4]{1,0} fusion(%%%s, %%%s, %%%s), kind=kLoop, calls=%%%s",
		    nm(e, base), nm(e, u), nm(e, i), fc->name);
		return;
	}
	}
}

/* ---- while loop ---- */

static int gen_while(struct gen *g, struct gcomp *e)
{
	int nslots = g->pre == PRE_LOOP_SLOTS ? 2 : 1 + rnd(&g->r, 2); /* data slots besides the counter */
	char st[128];
	snprintf(st, sizeof(st), "(s32[], f32[8]%s)", nslots == 2 ? ", f32[8]" : "");
	/* init */
	int ci = pick(g, e, T_S);
	if (ci < 0 || chance(&g->r, 80))
		ci = const_s32(g, e, 0);
	int a0 = g->flow_value >= 0 ? g->flow_value : pick(g, e, T_F8);
	int b0 = nslots == 2 ? (chance(&g->r, 25) ? a0 : pick(g, e, T_F8)) : -1;
	if (chance(&g->r, 20))
		a0 = copy_of(g, e, a0);
	use(e, ci);
	use(e, a0);
	if (b0 >= 0)
		use(e, b0);
	int init;
	if (nslots == 2)
		init = add(g, e, T_TUPLE, "init", "%s tuple(%%%s, %%%s, %%%s)", st, nm(e, ci), nm(e, a0),
			   nm(e, b0));
	else
		init = add(g, e, T_TUPLE, "init", "%s tuple(%%%s, %%%s)", st, nm(e, ci), nm(e, a0));

	/* condition */
	struct gcomp *cc = new_comp(g, "cond");
	snprintf(cc->sig, sizeof(cc->sig), "(cp: %s) -> pred[]", st);
	int cp = add(g, cc, T_TUPLE, "cp", "%s parameter(0)", st);
	cc->ins[cp].is_param = 1;
	int cgi = add(g, cc, T_S, "ci", "s32[] get-tuple-element(%%%s), index=0", nm(cc, cp));
	int lim = const_s32(g, cc, 1 + rnd(&g->r, 3));
	cc->root = add(g, cc, T_P, "lt", "pred[] compare(%%%s, %%%s), direction=LT", nm(cc, cgi),
		       nm(cc, lim));

	/* body */
	struct gcomp *bc = new_comp(g, "body");
	snprintf(bc->sig, sizeof(bc->sig), "(bp: %s) -> %s", st, st);
	int bp = add(g, bc, T_TUPLE, "bp", "%s parameter(0)", st);
	bc->ins[bp].is_param = 1;
	int bi = add(g, bc, T_S, "bi", "s32[] get-tuple-element(%%%s), index=0", nm(bc, bp));
	int slot[2], out[2];
	for (int k = 0; k < nslots; k++) {
		slot[k] = add(g, bc, T_F8, "bs", "f32[8] get-tuple-element(%%%s), index=%d", nm(bc, bp), k + 1);
		if (chance(&g->r, 20)) /* a protecting copy of the slot, like XLA's */
			slot[k] = copy_of(g, bc, slot[k]);
	}
	int one = const_s32(g, bc, 1);
	int bi1 = add(g, bc, T_S, "bi", "s32[] add(%%%s, %%%s)", nm(bc, bi), nm(bc, one));
	int swz = nslots == 2 && chance(&g->r, 25);
	for (int k = 0; k < nslots; k++) {
		int a = slot[k], b = slot[nslots == 2 ? 1 - k : k];
		switch (swz ? 0 : rnd(&g->r, 6)) {
		case 0: /* pass through (or swizzle) */
			out[k] = swz ? b : a;
			break;
		case 1:
			out[k] = unary(g, bc, a);
			break;
		case 2:
			out[k] = binary(g, bc, a, b);
			break;
		case 3: { /* in place, index from the counter or a constant */
			int u;
			if (chance(&g->r, 50)) {
				use(bc, b);
				int a4 = 2 * rnd(&g->r, 3);
				u = add(g, bc, T_F4, "sl", "f32[4] slice(%%%s), slice={[%d:%d]}", nm(bc, b), a4, a4 + 4);
			} else {
				u = add(g, bc, T_F4, "cu", "f32[4] constant({5, 6, 7, 8})");
			}
			int i = chance(&g->r, 50) ? bi : const_s32(g, bc, 2 * rnd(&g->r, 4));
			use(bc, a);
			out[k] = add(g, bc, T_F8, "dus", "f32[8] dynamic-update-slice(%%%s, %%%s, %%%s)",
				     nm(bc, a), nm(bc, u), nm(bc, i));
			break;
		}
		case 4: { /* read the slot after updating it */
			int n1 = unary(g, bc, a);
			out[k] = binary(g, bc, a, n1);
			break;
		}
		default: { /* read a slot in a dynamic-slice, then update */
			int i = chance(&g->r, 50) ? bi : const_s32(g, bc, rnd(&g->r, 6));
			use(bc, b);
			int r4 = add(g, bc, T_F4, "ds", "f32[4] dynamic-slice(%%%s, %%%s), dynamic_slice_sizes={4}",
				     nm(bc, b), nm(bc, i));
			int i2 = const_s32(g, bc, 4 * rnd(&g->r, 2));
			use(bc, a);
			out[k] = add(g, bc, T_F8, "dus", "f32[8] dynamic-update-slice(%%%s, %%%s, %%%s)",
				     nm(bc, a), nm(bc, r4), nm(bc, i2));
			break;
		}
		}
		if (chance(&g->r, 15))
			out[k] = copy_of(g, bc, out[k]);
	}
	if (g->pre == PRE_LOOP_SLOTS) /* both slots return one value */
		out[1] = out[chance(&g->r, 50) ? 0 : 1], out[0] = out[1];
	if (chance(&g->r, 15))
		ctrl_edge(g, bc);
	if (nslots == 2)
		bc->root = add(g, bc, T_TUPLE, "broot", "%s tuple(%%%s, %%%s, %%%s)", st, nm(bc, bi1),
			       nm(bc, out[0]), nm(bc, out[1]));
	else
		bc->root = add(g, bc, T_TUPLE, "broot", "%s tuple(%%%s, %%%s)", st, nm(bc, bi1), nm(bc, out[0]));

	use(e, init);
	int w = add(g, e, T_TUPLE, "w", "%s while(%%%s), condition=%%%s, body=%%%s", st, nm(e, init),
		    cc->name, bc->name);
	/* the results */
	use(e, w);
	int r1 = add(g, e, T_F8, "wr", "f32[8] get-tuple-element(%%%s), index=1", nm(e, w));
	if (nslots == 2 && chance(&g->r, 60)) {
		add(g, e, T_F8, "wr", "f32[8] get-tuple-element(%%%s), index=2", nm(e, w));
	}
	if (chance(&g->r, 30))
		add(g, e, T_S, "wi", "s32[] get-tuple-element(%%%s), index=0", nm(e, w));
	return r1;
}

/* ---- conditional ---- */

/* A branch taking an f32[8]; dus: it updates its operand in place. */
static void gen_branch(struct gen *g, struct gcomp *bc, int dus)
{
	snprintf(bc->sig, sizeof(bc->sig), "(bx: f32[8]) -> f32[8]");
	int x = add(g, bc, T_F8, "bx", "f32[8] parameter(0)");
	bc->ins[x].is_param = 1;
	switch (dus ? 2 : rnd(&g->r, 5)) {
	case 0: /* pass the operand through */
		bc->root = x;
		return;
	case 1:
		bc->root = unary(g, bc, x);
		break;
	case 2: {
		int u = add(g, bc, T_F4, "cu", "f32[4] constant({9, 8, 7, 6})");
		int i = const_s32(g, bc, 2 * rnd(&g->r, 4));
		bc->root = add(g, bc, T_F8, "dus", "f32[8] dynamic-update-slice(%%%s, %%%s, %%%s)",
			       nm(bc, x), nm(bc, u), nm(bc, i));
		break;
	}
	case 3:
		bc->root = copy_of(g, bc, x);
		break;
	default: {
		int n1 = unary(g, bc, x);
		bc->root = binary(g, bc, n1, x);
		break;
	}
	}
	if (chance(&g->r, 20))
		bc->root = copy_of(g, bc, bc->root);
}

static int gen_conditional(struct gen *g, struct gcomp *e)
{
	int x = g->flow_value >= 0 ? g->flow_value : pick(g, e, T_F8);
	int y = chance(&g->r, 30) ? x : pick(g, e, T_F8);
	struct gcomp *b0 = new_comp(g, "br"), *b1 = new_comp(g, "br");
	gen_branch(g, b0, g->flow_value >= 0);
	gen_branch(g, b1, 0);
	use(e, x);
	use(e, y);
	if (chance(&g->r, 50)) {
		int s = pick(g, e, T_S);
		int pr;
		if (s >= 0 && chance(&g->r, 70)) {
			int c = const_s32(g, e, rnd(&g->r, 3));
			use(e, s);
			pr = add(g, e, T_P, "pr", "pred[] compare(%%%s, %%%s), direction=LT", nm(e, s), nm(e, c));
		} else {
			pr = add(g, e, T_P, "pr", "pred[] constant(%s)", chance(&g->r, 50) ? "true" : "false");
		}
		use(e, pr);
		return add(g, e, T_F8, "cnd",
			   "f32[8] conditional(%%%s, %%%s, %%%s), true_computation=%%%s, false_computation=%%%s",
			   nm(e, pr), nm(e, x), nm(e, y), b0->name, b1->name);
	}
	int s = pick(g, e, T_S);
	if (s < 0)
		s = const_s32(g, e, rnd(&g->r, 3));
	use(e, s);
	return add(g, e, T_F8, "cnd", "f32[8] conditional(%%%s, %%%s, %%%s), branch_computations={%%%s, %%%s}",
		   nm(e, s), nm(e, x), nm(e, y), b0->name, b1->name);
}

/* ---- the entry ---- */

static int array_ty(int ty)
{
	return ty == T_F8 || ty == T_F4 || ty == T_M24 || ty == T_M24T || ty == T_R14 ||
	       ty == T_V42T || ty == T_C41 || ty == T_Q22 || ty == T_M42 || ty == T_R12;
}

static void gen_entry(struct gen *g, struct gcomp *e, int *n_params, int *param_ty)
{
	int np = 1 + rnd(&g->r, 3);
	char sig[256];
	size_t sl = 0;
	sl += (size_t)snprintf(sig + sl, sizeof(sig) - sl, "(");
	for (int p = 0; p < np; p++) {
		int ty = T_F8;
		if (p > 0) {
			int k = rnd(&g->r, 10);
			ty = k < 5 ? T_F8 : k < 7 ? T_S : T_M24;
		}
		param_ty[p] = ty;
		int i = add(g, e, ty, "p", "%s parameter(%d)", shape_txt[ty], p);
		e->ins[i].is_param = 1;
		sl += (size_t)snprintf(sig + sl, sizeof(sig) - sl, "%s%s: %s", p ? ", " : "", nm(e, i),
				       shape_txt[ty]);
	}
	*n_params = np;
	int target = np + 3 + rnd(&g->r, 10);
	int want_while = chance(&g->r, 45), want_cond = chance(&g->r, 35);
	int while_at = np + rnd(&g->r, 4), cond_at = np + rnd(&g->r, 6);
	/* a hazard the module has already, on a third of them */
	g->pre = chance(&g->r, 35) ? (enum pre_hazard)(1 + rnd(&g->r, PRE_N - 1)) : PRE_NONE;
	int forced[2], n_forced = 0, flow_loop = 0;
	if (g->pre == PRE_DONATION) {
		/* parameter 0 updated in place, donated to output 0, read later */
		forced[n_forced++] = dus_f8(g, e, 0);
		g->alias_out = 0;
	} else if (g->pre == PRE_DONATION_FLOW) {
		/* ... the update inside a loop or a branch that takes it */
		flow_loop = chance(&g->r, 50);
		if (flow_loop)
			want_while = 1, want_cond = 0;
		else
			want_cond = 1, want_while = 0;
		g->flow_value = 0;
		g->alias_out = 0;
	} else if (g->pre == PRE_LOOP_SLOTS) {
		want_while = 1;
	}
	while (e->n < target && !g->overflow) {
		if (want_while && e->n >= while_at) {
			want_while = 0;
			int r = gen_while(g, e);
			if (g->flow_value >= 0 && flow_loop)
				forced[n_forced++] = r;
			g->flow_value = -1;
			continue;
		}
		if (want_cond && e->n >= cond_at) {
			want_cond = 0;
			int r = gen_conditional(g, e);
			if (g->flow_value >= 0 && !flow_loop)
				forced[n_forced++] = r;
			g->flow_value = -1;
			continue;
		}
		int k = rnd(&g->r, 100);
		int x;
		if (k < 14) { /* unary */
			int ty = chance(&g->r, 25) && pick(g, e, T_M24) >= 0 ? T_M24
				 : chance(&g->r, 20) && pick(g, e, T_F4) >= 0 ? T_F4 : T_F8;
			x = pick(g, e, ty);
			unary(g, e, x);
		} else if (k < 28) { /* binary */
			int ty = chance(&g->r, 20) && pick(g, e, T_M24) >= 0 ? T_M24 : T_F8;
			x = pick(g, e, ty);
			int y = chance(&g->r, 20) ? x : pick(g, e, ty);
			binary(g, e, x, y);
		} else if (k < 31) {
			add(g, e, T_F8, "cf", "f32[8] constant({0, 1, 2, 3, 4, 5, 6, 7})");
		} else if (k < 46) { /* in place update, sometimes behind a protecting copy */
			x = pick(g, e, T_F8);
			if (chance(&g->r, 30))
				x = copy_of(g, e, x);
			dus_f8(g, e, x);
		} else if (k < 51 && (x = pick(g, e, T_M24)) >= 0) {
			dus_m24(g, e, x);
		} else if (k < 60) { /* reads of a box */
			make_f4(g, e);
		} else if (k < 74) { /* copies */
			int ty = T_F8;
			int r = rnd(&g->r, 10);
			if (r < 3 && pick(g, e, T_M24) >= 0)
				ty = T_M24;
			else if (r < 4 && pick(g, e, T_F4) >= 0)
				ty = T_F4;
			x = pick(g, e, ty);
			copy_of(g, e, x);
		} else if (k < 80) { /* tuple + get-tuple-element */
			x = pick(g, e, T_F8);
			int y = pick(g, e, T_F8);
			use(e, x);
			use(e, y);
			int t = add(g, e, T_TUPLE, "t", "(f32[8], f32[8]) tuple(%%%s, %%%s)", nm(e, x), nm(e, y));
			use(e, t);
			add(g, e, T_F8, "gt", "f32[8] get-tuple-element(%%%s), index=%d", nm(e, t), rnd(&g->r, 2));
		} else if (k < 85 && (x = pick(g, e, T_M24)) >= 0) {
			copy_of(g, e, x);
		} else if (k >= 85) { /* bitcast views */
			gen_view(g, e);
		} else {
			x = pick(g, e, T_F8);
			unary(g, e, x);
		}
	}
	if (g->pre == PRE_DONATION || g->pre == PRE_DONATION_FLOW) {
		if (!n_forced) /* the loop or branch did not fit */
			g->alias_out = -1;
		/* the donated parameter read after its update (sometimes by a copy) */
		int x = chance(&g->r, 40) ? copy_of(g, e, 0) : 0;
		unary(g, e, x);
	} else if (g->pre == PRE_OUTPUTS) {
		/* a value and its in-place update, both outputs */
		int x = unary(g, e, 0);
		forced[n_forced++] = x;
		forced[n_forced++] = dus_f8(g, e, x);
	} else if (g->pre == PRE_CONST_OUTPUT) {
		forced[n_forced++] = add(g, e, T_F8, "cf", "f32[8] constant({0, 1, 2, 3, 4, 5, 6, 7})");
	}
	/* outputs: values nobody reads first, then any; sometimes a parameter;
	 * sometimes behind a copy */
	int outs[3], no = 1 + rnd(&g->r, 3);
	if (no < n_forced)
		no = n_forced;
	for (int o = 0; o < no; o++) {
		if (o < n_forced) {
			int v = forced[o];
			if (chance(&g->r, 20))
				v = copy_of(g, e, v);
			use(e, v);
			outs[o] = v;
			continue;
		}
		int cand[G_MAX_INS], n = 0;
		for (int i = 0; i < e->n; i++)
			if (array_ty(e->ins[i].ty) && !e->ins[i].users && !e->ins[i].is_param)
				cand[n++] = i;
		int v;
		if (n && !chance(&g->r, 15))
			v = cand[rnd(&g->r, n)];
		else {
			n = 0;
			for (int i = 0; i < e->n; i++)
				if (array_ty(e->ins[i].ty))
					cand[n++] = i;
			v = cand[rnd(&g->r, n)];
		}
		int dup = 0;
		for (int q = 0; q < o; q++)
			dup |= outs[q] == v;
		if (dup && !chance(&g->r, 10)) { /* the same value twice: rarely */
			no = o;
			break;
		}
		if (chance(&g->r, 20))
			v = copy_of(g, e, v);
		use(e, v);
		outs[o] = v;
	}
	if (chance(&g->r, 15))
		ctrl_edge(g, e);
	if (no == 1 && outs[0] == e->n - 1 && !e->ins[outs[0]].is_param && chance(&g->r, 50)) {
		e->root = outs[0];
		snprintf(e->sig, sizeof(e->sig), "%s) -> %s", sig, shape_txt[e->ins[outs[0]].ty]);
		return;
	}
	char rs[160], ops[160];
	size_t rl = 0, ol = 0;
	rl += (size_t)snprintf(rs + rl, sizeof(rs) - rl, "(");
	for (int o = 0; o < no; o++) {
		rl += (size_t)snprintf(rs + rl, sizeof(rs) - rl, "%s%s", o ? ", " : "",
				       shape_txt[e->ins[outs[o]].ty]);
		ol += (size_t)snprintf(ops + ol, sizeof(ops) - ol, "%s%%%s", o ? ", " : "", nm(e, outs[o]));
	}
	snprintf(rs + rl, sizeof(rs) - rl, ")");
	e->root = add(g, e, T_TUPLE, "out", "%s tuple(%s)", rs, ops);
	snprintf(e->sig, sizeof(e->sig), "%s) -> %s", sig, rs);
}

/* Output leaf types of the entry root: count and types. */
static int entry_outputs(const struct gcomp *e, int *ty, int cap)
{
	const struct gins *r = &e->ins[e->root];
	if (r->ty != T_TUPLE) {
		ty[0] = r->ty;
		return 1;
	}
	/* "(A, B) tuple(%x, %y)": look the operands up */
	const char *p = strstr(r->rhs, "tuple(");
	int n = 0;
	for (p = p ? p + 6 : NULL; p && *p && *p != ')' && n < cap;) {
		while (*p == ' ' || *p == ',' || *p == '%')
			p++;
		const char *st = p;
		while (*p && *p != ',' && *p != ')')
			p++;
		for (int i = 0; i < e->n; i++)
			if (strlen(e->ins[i].name) == (size_t)(p - st) && !strncmp(e->ins[i].name, st, (size_t)(p - st)))
				ty[n] = e->ins[i].ty;
		n++;
	}
	return n;
}

static void emit_comp(FILE *f, const struct gcomp *c, int entry)
{
	fprintf(f, "\n%s%%%s %s {\n", entry ? "ENTRY " : "", c->name, c->sig);
	for (int i = 0; i < c->n; i++) {
		const struct gins *x = &c->ins[i];
		fprintf(f, "  %s%%%s = %s", i == c->root ? "ROOT " : "", x->name, x->rhs);
		if (x->n_ctrl) {
			fputs(", control-predecessors={", f);
			for (int k = 0; k < x->n_ctrl; k++)
				fprintf(f, "%s%%%s", k ? ", " : "", c->ins[x->ctrl[k]].name);
			fputc('}', f);
		}
		fputc('\n', f);
	}
	fputs("}\n", f);
}

char *gen_small_attempt(uint64_t seed, int attempt)
{
	struct gen *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->r.s = seed * 0x2545f4914f6cdd1dull + (uint64_t)attempt * 0x9e3779b97f4a7c15ull + 1;
	g->flow_value = -1;
	g->alias_out = -1;
	rng_next(&g->r);
	/* the entry goes last in the text but is built first: reserve slot 0 */
	g->ncomp = 1;
	struct gcomp *e = &g->comps[0];
	snprintf(e->name, sizeof(e->name), "main");
	e->root = -1;
	int np = 0, pty[3];
	gen_entry(g, e, &np, pty);
	if (g->overflow) {
		free(g);
		return NULL;
	}
	/* control edges must follow the text order: move the root last */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "HloModule gen_%llu_%d", (unsigned long long)seed, attempt);
	int scheduled = chance(&g->r, 50);
	if (scheduled)
		fputs(", is_scheduled=true", f);
	/* donations */
	int oty[8];
	int no = entry_outputs(e, oty, 8);
	int tuple_root = e->ins[e->root].ty == T_TUPLE;
	int used_param[3] = {0, 0, 0}, n_alias = 0;
	char al[256];
	size_t ll = 0;
	if (g->alias_out >= 0 && g->alias_out < no && oty[g->alias_out] == pty[0]) {
		/* the module's donation (enum pre_hazard) */
		used_param[0] = 1;
		ll += (size_t)snprintf(al + ll, sizeof(al) - ll, tuple_root ? "{%d}: (0, {}, may-alias)"
									 : "{}: (0, {}, may-alias)", g->alias_out);
		n_alias++;
	}
	for (int o = 0; o < no; o++) {
		if (!chance(&g->r, 40) || o == g->alias_out)
			continue;
		for (int p = 0; p < np; p++)
			if (!used_param[p] && pty[p] == oty[o] && array_ty(pty[p])) {
				used_param[p] = 1;
				if (tuple_root)
					ll += (size_t)snprintf(al + ll, sizeof(al) - ll, "%s{%d}: (%d, {}, may-alias)",
							       n_alias ? ", " : "", o, p);
				else
					ll += (size_t)snprintf(al + ll, sizeof(al) - ll, "%s{}: (%d, {}, may-alias)",
							       n_alias ? ", " : "", p);
				n_alias++;
				break;
			}
	}
	if (n_alias)
		fprintf(f, ", input_output_alias={ %s }", al);
	int n_donor = 0;
	for (int p = 0; p < np; p++)
		if (!used_param[p] && array_ty(pty[p]) && chance(&g->r, 30)) {
			fprintf(f, "%s(%d, {})", n_donor ? ", " : ", buffer_donor={ ", p);
			n_donor++;
		}
	if (n_donor)
		fputs(" }", f);
	fputc('\n', f);
	for (int c = 1; c < g->ncomp; c++)
		emit_comp(f, &g->comps[c], 0);
	emit_comp(f, e, 1);
	fclose(f);
	free(g);
	return buf;
}

char *gen_small(uint64_t seed, int64_t max_schedules, int *attempts)
{
	struct oracle_limits lim;
	oracle_default_limits(&lim);
	lim.max_schedules = max_schedules;
	for (int a = 0; a < 64; a++) {
		char *t = gen_small_attempt(seed, a);
		if (!t)
			continue;
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse("<gen>", t, strlen(t), &d);
		if (!m) {
			fprintf(stderr, "gen_small: seed %llu attempt %d does not parse: %d:%d: %s\n%s",
				(unsigned long long)seed, a, d.first_pos.line, d.first_pos.col, d.first, t);
			free(t);
			return NULL;
		}
		char err[256];
		struct oracle *o = oracle_new(m, &lim, err, sizeof(err));
		int64_t n = o ? oracle_count_schedules(o) : -1;
		oracle_free(o);
		hlo_module_free(m);
		if (n >= 1 && n <= max_schedules) {
			if (attempts)
				*attempts = a;
			return t;
		}
		free(t);
	}
	return NULL;
}
