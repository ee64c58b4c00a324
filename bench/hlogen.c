/* hlogen.c - synthetic benchmark input: a deterministic, valid, scheduled
 * HLO module of about N instructions, shaped like real XLA output.
 *
 *   hlogen --instructions N [--seed S] [--copies-percent P]
 *
 * The module has, in definition order (every computation before its use,
 * every name before its use):
 *  - a scalar reducer %add_f32 (to_apply of every reduce);
 *  - two kLoop fusions: %fused_dus (root dynamic-update-slice, in place on
 *    its first operand) and %fused_ew (elementwise, not in place);
 *  - chunks of ~B instructions each: while loops (condition + body; the
 *    body carries (s32[] i, f32[128,256] buf, f32[256] vec), writes a row of
 *    buf in place with a dynamic-update-slice or an in-place fusion, and
 *    counts i up) and called computations, two whiles for each call;
 *  - a large entry computation (about N/20 instructions of its own) that
 *    threads a donated buffer through every while loop, updates a second
 *    donated buffer in place with %fused_dus, and returns both (outputs
 *    {0} and {1} alias parameters 0 and 2, may-alias).
 * About P% of the work instructions are copies: same-layout copies of
 * vectors, layout copies {1,0} -> {0,1} of matrices, and copies that protect
 * a matrix value across a later in-place update of it. Most instructions
 * carry metadata; every shape carries a layout. Half the computations use
 * the old style (`%` names, operand shapes, signature), the other half the
 * terse one (no `%`, no operand shapes, no signature).
 *
 * Standalone on purpose (no library dependency): it is the benchmark's
 * input, not part of the tool. Output goes through one large buffer with
 * hand-rolled integer formatting so 1M instructions take about a second. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC "f32[256]{0}"
#define MAT "f32[128,256]{1,0}"
#define MAT_T "f32[128,256]{0,1}"
#define ROW "f32[1,256]{1,0}"
#define S32 "s32[]"
#define F32 "f32[]"
#define STATE "(s32[], " MAT ", " VEC ")"
#define RESULT "(" MAT ", " MAT ", " VEC ", " F32 ")"
#define RING 8

/* ---- output ----------------------------------------------------------------- */

static char obuf[1 << 20];
static size_t olen;

static void flush_out(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen) {
		fprintf(stderr, "hlogen: write error: %s\n", strerror(errno));
		exit(1);
	}
	olen = 0;
}

static void put(const char *s)
{
	size_t n = strlen(s);
	if (olen + n > sizeof(obuf))
		flush_out();
	if (n > sizeof(obuf)) {
		fwrite(s, 1, n, stdout);
		return;
	}
	memcpy(obuf + olen, s, n);
	olen += n;
}

static void put_u(uint64_t v)
{
	char t[24];
	int i = sizeof(t);
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (olen + sizeof(t) > sizeof(obuf))
		flush_out();
	memcpy(obuf + olen, t + i, sizeof(t) - (size_t)i);
	olen += sizeof(t) - (size_t)i;
}

/* ---- generator state ------------------------------------------------------- */

struct value {
	const char *op;   /* name prefix, an opcode name */
	uint32_t id;      /* suffix: unique over the module */
	const char *type; /* shape text */
};

struct gen {
	uint64_t rng;
	uint32_t next_id;
	long long emitted;    /* instructions so far */
	long long copies;     /* copy instructions so far */
	int copies_percent;
	/* per computation */
	int pct;              /* old style: % names, operand shapes */
	const char *scope;    /* op_name scope for metadata */
	struct value ring[RING]; /* recent f32[256] values */
	int ring_n, ring_pos;
	struct value zero;    /* f32[] 0 for reduces */
	struct value mat;     /* a matrix readable here (or op == NULL) */
};

static uint64_t next_rand(struct gen *g)
{
	/* splitmix64: deterministic for a seed on every platform */
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static unsigned pick(struct gen *g, unsigned n)
{
	return (unsigned)(next_rand(g) % n);
}

static void put_name(const struct gen *g, struct value v)
{
	if (g->pct)
		put("%");
	put(v.op);
	put(".");
	put_u(v.id);
}

static void put_operand(const struct gen *g, struct value v)
{
	if (g->pct) {
		put(v.type);
		put(" ");
	}
	put_name(g, v);
}

/* Start "  [ROOT ]name = TYPE opcode(" and return the new value. */
static struct value begin(struct gen *g, int root, const char *type, const char *op)
{
	struct value v = {op, g->next_id++, type};
	put(root ? "  ROOT " : "  ");
	put_name(g, v);
	put(" = ");
	put(type);
	put(" ");
	put(op);
	put("(");
	g->emitted++;
	return v;
}

static void put_metadata(struct gen *g, const char *op)
{
	if (pick(g, 10) == 0)
		return;
	put(", metadata={op_name=\"jit(step)/");
	put(g->scope);
	put("/");
	put(op);
	put("\" source_file=\"model.py\" source_line=");
	put_u(10 + pick(g, 2000));
	put("}");
}

static void end(struct gen *g, const char *op)
{
	put(")");
	put_metadata(g, op);
	put("\n");
}

static struct value emit1(struct gen *g, int root, const char *type, const char *op, struct value a)
{
	struct value v = begin(g, root, type, op);
	put_operand(g, a);
	end(g, op);
	return v;
}

static struct value emit2(struct gen *g, int root, const char *type, const char *op,
			  struct value a, struct value b)
{
	struct value v = begin(g, root, type, op);
	put_operand(g, a);
	put(", ");
	put_operand(g, b);
	end(g, op);
	return v;
}

static struct value emit_constant(struct gen *g, const char *type, const char *literal)
{
	struct value v = begin(g, 0, type, "constant");
	put(literal);
	put(")\n");
	return v;
}

/* Parameters are named Arg_N.ID with ids reserved before the signature. */
static const char *const arg_names[] = {"Arg_0", "Arg_1", "Arg_2", "Arg_3"};

static struct value emit_param(struct gen *g, const char *type, int n, uint32_t id)
{
	struct value v = {arg_names[n], id, type};
	put("  ");
	put_name(g, v);
	put(" = ");
	put(type);
	put(" parameter(");
	put_u((uint64_t)n);
	put(")\n");
	g->emitted++;
	return v;
}

static struct value emit_gte(struct gen *g, const char *type, struct value t, int index)
{
	struct value v = begin(g, 0, type, "get-tuple-element");
	put_operand(g, t);
	put("), index=");
	put_u((uint64_t)index);
	put("\n");
	return v;
}

static struct value emit_reduce(struct gen *g, const char *type, struct value a, int dim)
{
	struct value v = begin(g, 0, type, "reduce");
	put_operand(g, a);
	put(", ");
	put_operand(g, g->zero);
	put("), dimensions={");
	put_u((uint64_t)dim);
	put("}, to_apply=");
	put(g->pct ? "%add_f32" : "add_f32");
	put_metadata(g, "reduce_sum");
	put("\n");
	return v;
}

static struct value emit_broadcast(struct gen *g, struct value scalar)
{
	struct value v = begin(g, 0, VEC, "broadcast");
	put_operand(g, scalar);
	put("), dimensions={}");
	put_metadata(g, "broadcast_in_dim");
	put("\n");
	return v;
}

static struct value emit_fusion_dus(struct gen *g, int root, struct value buf, struct value row,
				    struct value idx)
{
	struct value v = begin(g, root, MAT, "fusion");
	put_operand(g, buf);
	put(", ");
	put_operand(g, row);
	put(", ");
	put_operand(g, idx);
	put("), kind=kLoop, calls=");
	put(g->pct ? "%fused_dus" : "fused_dus");
	put_metadata(g, "dynamic_update_slice");
	put("\n");
	return v;
}

/* ---- computations ------------------------------------------------------------ */

/* Reserves ids for the parameters (Arg_N.base+N, unique over the module like
 * every name) and prints the header: old style with a signature, the terse
 * style as `name {` like newer XLA. */
static uint32_t comp_begin(struct gen *g, int entry, const char *name, uint32_t k, int np,
			   const char *const *ptypes, const char *result)
{
	uint32_t base = g->next_id;
	g->next_id += (uint32_t)np;
	if (entry)
		put("ENTRY ");
	if (g->pct)
		put("%");
	put(name);
	if (k) {
		put(".");
		put_u(k);
	}
	if (g->pct) {
		put(" (");
		for (int i = 0; i < np; i++) {
			put(i ? ", " : "");
			put(arg_names[i]);
			put(".");
			put_u(base + (uint32_t)i);
			put(": ");
			put(ptypes[i]);
		}
		put(") -> ");
		put(result);
	}
	put(" {\n");
	g->ring_n = g->ring_pos = 0;
	g->mat.op = NULL;
	return base;
}

static void comp_end(void)
{
	put("}\n\n");
}

static void ring_push(struct gen *g, struct value v)
{
	g->ring[g->ring_pos] = v;
	g->ring_pos = (g->ring_pos + 1) % RING;
	if (g->ring_n < RING)
		g->ring_n++;
}

static struct value ring_last(const struct gen *g)
{
	return g->ring[(g->ring_pos + RING - 1) % RING];
}

static struct value ring_any(struct gen *g)
{
	return g->ring[pick(g, (unsigned)g->ring_n)];
}

/* About n instructions of vector work on the ring (which must be non-empty). */
static void emit_work(struct gen *g, long long n)
{
	static const char *const bin[] = {"add", "multiply", "subtract", "maximum"};
	static const char *const un[] = {"tanh", "exponential", "negate", "abs"};
	static const char *const lit[] = {"0.5", "1", "-2", "0.125", "3"};
	long long stop = g->emitted + n;
	while (g->emitted < stop) {
		unsigned r = pick(g, 100);
		/* keep copies at copies_percent of all instructions, at random spots */
		if (g->copies * 100 < g->copies_percent * g->emitted && pick(g, 4) == 0) {
			g->copies++;
			if (g->mat.op && pick(g, 3) == 0) {
				/* layout copy {1,0} -> {0,1}, read by a column reduce */
				struct value t = emit1(g, 0, MAT_T, "copy", g->mat);
				ring_push(g, emit_reduce(g, VEC, t, 0));
			} else {
				ring_push(g, emit1(g, 0, VEC, "copy", ring_any(g)));
			}
		} else if (r < 45) {
			const char *op = bin[pick(g, 4)];
			ring_push(g, emit2(g, 0, VEC, op, ring_any(g), ring_any(g)));
		} else if (r < 65) {
			const char *op = un[pick(g, 4)];
			ring_push(g, emit1(g, 0, VEC, op, ring_any(g)));
		} else if (r < 77) {
			struct value c = emit_constant(g, F32, lit[pick(g, 5)]);
			struct value b = emit_broadcast(g, c);
			ring_push(g, emit2(g, 0, VEC, "multiply", ring_any(g), b));
		} else if (r < 85) {
			struct value s = emit_reduce(g, F32, ring_any(g), 0);
			ring_push(g, emit_broadcast(g, s));
		} else if (r < 92) {
			struct value v = begin(g, 0, VEC, "fusion");
			put_operand(g, ring_any(g));
			put(", ");
			put_operand(g, ring_any(g));
			put("), kind=kLoop, calls=");
			put(g->pct ? "%fused_ew" : "fused_ew");
			put_metadata(g, "mul_add");
			put("\n");
			ring_push(g, v);
		} else if (g->mat.op) {
			ring_push(g, emit_reduce(g, VEC, g->mat, 0));
		} else {
			ring_push(g, emit1(g, 0, VEC, "sqrt", ring_any(g)));
		}
	}
}

static void emit_helpers(struct gen *g)
{
	g->pct = 1;
	g->scope = "reduce";
	static const char *const p_add[] = {F32, F32};
	uint32_t id = comp_begin(g, 0, "add_f32", 0, 2, p_add, F32);
	struct value a = emit_param(g, F32, 0, id), b = emit_param(g, F32, 1, id + 1);
	emit2(g, 1, F32, "add", a, b);
	comp_end();

	g->pct = 0;
	g->scope = "fused";
	static const char *const p_dus[] = {MAT, ROW, S32};
	id = comp_begin(g, 0, "fused_dus", 0, 3, p_dus, MAT);
	struct value buf = emit_param(g, MAT, 0, id), row = emit_param(g, ROW, 1, id + 1);
	struct value i = emit_param(g, S32, 2, id + 2), z = emit_constant(g, S32, "0");
	struct value v = begin(g, 1, MAT, "dynamic-update-slice");
	put_operand(g, buf); put(", "); put_operand(g, row); put(", ");
	put_operand(g, i); put(", "); put_operand(g, z);
	end(g, "dynamic_update_slice");
	(void)v;
	comp_end();

	g->pct = 1;
	static const char *const p_ew[] = {VEC, VEC};
	id = comp_begin(g, 0, "fused_ew", 0, 2, p_ew, VEC);
	struct value x = emit_param(g, VEC, 0, id), y = emit_param(g, VEC, 1, id + 1);
	struct value m = emit2(g, 0, VEC, "multiply", x, y);
	emit2(g, 1, VEC, "add", m, x);
	comp_end();
}

static void emit_condition(struct gen *g, uint32_t k, int trip)
{
	g->pct = (int)pick(g, 2);
	g->scope = "while/cond";
	static const char *const p_st[] = {STATE};
	uint32_t id = comp_begin(g, 0, "cond", k, 1, p_st, "pred[]");
	struct value st = emit_param(g, STATE, 0, id);
	struct value i = emit_gte(g, S32, st, 0);
	char lit[16];
	snprintf(lit, sizeof(lit), "%d", trip);
	struct value n = emit_constant(g, S32, lit);
	struct value c = begin(g, 1, "pred[]", "compare");
	put_operand(g, i); put(", "); put_operand(g, n);
	put("), direction=LT");
	put_metadata(g, "lt");
	put("\n");
	(void)c;
	comp_end();
}

static void emit_body(struct gen *g, uint32_t k, long long work)
{
	g->pct = (int)pick(g, 2);
	g->scope = "while/body";
	static const char *const p_st[] = {STATE};
	uint32_t id = comp_begin(g, 0, "body", k, 1, p_st, STATE);
	struct value st = emit_param(g, STATE, 0, id);
	struct value i = emit_gte(g, S32, st, 0);
	struct value buf = emit_gte(g, MAT, st, 1);
	ring_push(g, emit_gte(g, VEC, st, 2));
	g->zero = emit_constant(g, F32, "0");
	g->mat = buf;
	emit_work(g, work);
	struct value row = emit1(g, 0, ROW, "reshape", ring_last(g));
	struct value upd;
	if (pick(g, 2)) {
		upd = emit_fusion_dus(g, 0, buf, row, i);
	} else {
		struct value z = emit_constant(g, S32, "0");
		upd = begin(g, 0, MAT, "dynamic-update-slice");
		put_operand(g, buf); put(", "); put_operand(g, row); put(", ");
		put_operand(g, i); put(", "); put_operand(g, z);
		end(g, "dynamic_update_slice");
	}
	struct value one = emit_constant(g, S32, "1");
	struct value i1 = emit2(g, 0, S32, "add", i, one);
	begin(g, 1, STATE, "tuple");
	put_operand(g, i1); put(", "); put_operand(g, upd); put(", "); put_operand(g, ring_last(g));
	put(")\n");
	comp_end();
}

static void emit_call_chunk(struct gen *g, uint32_t k, long long work)
{
	g->pct = (int)pick(g, 2);
	g->scope = "jvp(block)";
	static const char *const p_chunk[] = {VEC, MAT};
	uint32_t id = comp_begin(g, 0, "chunk", k, 2, p_chunk, VEC);
	struct value v = emit_param(g, VEC, 0, id);
	g->mat = emit_param(g, MAT, 1, id + 1);
	ring_push(g, v);
	g->zero = emit_constant(g, F32, "0");
	emit_work(g, work);
	emit2(g, 1, VEC, "add", ring_last(g), v);
	comp_end();
}

struct plan {
	long long body;       /* work instructions per chunk */
	long long entry_work; /* work instructions in the entry, over all chunks */
	int chunks;
};

static struct plan make_plan(long long n)
{
	struct plan p;
	p.body = n / 50;
	if (p.body < 20)
		p.body = 20;
	if (p.body > 5000)
		p.body = 5000;
	p.entry_work = n / 20 > 20 ? n / 20 : 20;
	/* per chunk besides its work: ~14 in a body, 4 in a condition, 6 in the entry */
	long long rest = n - p.entry_work - 40;
	p.chunks = rest > 0 ? (int)(rest / (p.body + 22)) : 0;
	return p;
}

static void emit_module(struct gen *g, long long n)
{
	struct plan p = make_plan(n);
	put("HloModule synth_");
	put_u((uint64_t)n);
	put(", is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (2, {}, "
	    "may-alias) }, entry_computation_layout={(" MAT ", " VEC ", " MAT ", " S32 ")->(" MAT
	    ", " MAT ", " VEC ", " F32 ")}\n\n");
	emit_helpers(g);

	/* chunk k: a call every third, else a while loop (condition + body) */
	for (int k = 0; k < p.chunks; k++) {
		if (k % 3 == 2) {
			emit_call_chunk(g, (uint32_t)k + 1, p.body);
		} else {
			emit_condition(g, (uint32_t)k + 1, 2 + (int)pick(g, 30));
			emit_body(g, (uint32_t)k + 1, p.body);
		}
	}

	g->pct = (int)pick(g, 2);
	g->scope = "main";
	static const char *const p_main[] = {MAT, VEC, MAT, S32};
	uint32_t id = comp_begin(g, 1, "main", 0, 4, p_main, RESULT);
	struct value buf_a = emit_param(g, MAT, 0, id);
	ring_push(g, emit_param(g, VEC, 1, id + 1));
	struct value buf_b = emit_param(g, MAT, 2, id + 2);
	struct value step = emit_param(g, S32, 3, id + 3);
	g->zero = emit_constant(g, F32, "0");
	struct value izero = emit_constant(g, S32, "0");
	g->mat = buf_b;
	int nc = p.chunks > 0 ? p.chunks : 1;
	long long per = p.entry_work / nc;
	for (int k = 0; k < p.chunks; k++) {
		emit_work(g, per);
		if (k % 3 == 2) {
			struct value c = begin(g, 0, VEC, "call");
			put_operand(g, ring_last(g)); put(", "); put_operand(g, buf_b);
			put("), to_apply=");
			put(g->pct ? "%chunk." : "chunk.");
			put_u((uint64_t)k + 1);
			put_metadata(g, "block");
			put("\n");
			ring_push(g, c);
		} else {
			/* the counter starts from a copy of the constant: the loop
			 * writes its state in place, a constant buffer is read-only */
			struct value i0 = emit1(g, 0, S32, "copy", izero);
			g->copies++;
			struct value t = begin(g, 0, STATE, "tuple");
			put_operand(g, i0); put(", "); put_operand(g, buf_a); put(", ");
			put_operand(g, ring_last(g));
			put(")\n");
			struct value w = begin(g, 0, STATE, "while");
			put_operand(g, t);
			put("), condition=");
			put(g->pct ? "%cond." : "cond.");
			put_u((uint64_t)k + 1);
			put(", body=");
			put(g->pct ? "%body." : "body.");
			put_u((uint64_t)k + 1);
			put_metadata(g, "while");
			put("\n");
			buf_a = emit_gte(g, MAT, w, 1);
			/* the loop updated its state in place: older vectors, among
			 * them the one it was given, are not read again */
			g->ring_n = g->ring_pos = 0;
			ring_push(g, emit_gte(g, VEC, w, 2));
		}
		if (k % 16 == 15) {
			/* a protecting copy: the old buf_b is read after the in-place update */
			struct value keep = emit1(g, 0, MAT, "copy", buf_b);
			g->copies++;
			struct value row = emit1(g, 0, ROW, "reshape", ring_last(g));
			buf_b = emit_fusion_dus(g, 0, buf_b, row, step);
			g->mat = buf_b;
			ring_push(g, emit_reduce(g, VEC, keep, 0));
		}
	}
	emit_work(g, p.entry_work - per * p.chunks);
	struct value row = emit1(g, 0, ROW, "reshape", ring_last(g));
	buf_b = emit_fusion_dus(g, 0, buf_b, row, step);
	struct value loss = emit_reduce(g, F32, ring_last(g), 0);
	begin(g, 1, RESULT, "tuple");
	put_operand(g, buf_a); put(", "); put_operand(g, buf_b); put(", ");
	put_operand(g, ring_last(g)); put(", "); put_operand(g, loss);
	put(")\n");
	comp_end();
}

static void usage(void)
{
	fprintf(stderr, "usage: hlogen --instructions N [--seed S] [--copies-percent P]\n");
	exit(2);
}

static long long number(const char *s, long long lo, long long hi)
{
	char *e;
	errno = 0;
	long long v = strtoll(s, &e, 10);
	if (errno || e == s || *e || v < lo || v > hi)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	long long n = -1;
	struct gen g;
	memset(&g, 0, sizeof(g));
	g.rng = 1;
	g.copies_percent = 1;
	g.next_id = 1;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--instructions"))
			n = number(argv[++i], 1, 100000000);
		else if (!strcmp(argv[i], "--seed"))
			g.rng = (uint64_t)number(argv[++i], 0, INT64_MAX);
		else if (!strcmp(argv[i], "--copies-percent"))
			g.copies_percent = (int)number(argv[++i], 0, 100);
		else
			usage();
	}
	if (n < 0)
		usage();
	emit_module(&g, n);
	flush_out();
	if (fflush(stdout) != 0) {
		fprintf(stderr, "hlogen: write error: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "hlogen: %lld instructions\n", g.emitted);
	return 0;
}
