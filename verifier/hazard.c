/* hazard.c - hazards on a buffer (docs/hazards.md section 3) and the verdict of
 * a set of values taken as one buffer (section 4).
 *
 * Every (v, w, u) triple of the view is reduced by trace.c to a constant or a
 * conjunction of ordering atoms. The graph fast path decides each triple
 * exactly (possible in some schedule: the atoms and the dependency order are
 * acyclic; forced in every schedule: each atom is a dependency path). What
 * needs search - is there one schedule that avoids every possible triple at
 * once - goes to Z3 over the slice of instructions the atoms mention, unless
 * one control edge is found that rules out every triple by itself. */
#include "htab.h"
#include "lines.h"
#include "hzview.h"
#include "smt.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define MATS_KEPT 4
struct member_mats;

/* Marks by id, cleared for a new use in O(1): id is marked while
 * at[id] == gen (marks_next). */
struct marks {
	uint32_t *at;
	int32_t cap;
	uint32_t gen;
};

/* A new generation over ids 0 .. n - 1 (none marked); 1 when the array was
 * made anew (its size changed). */
static int marks_next(struct marks *k, int32_t n)
{
	int grown = 0;
	if (n > k->cap) {
		free(k->at);
		k->at = xcalloc((size_t)n, sizeof(uint32_t));
		k->cap = n;
		k->gen = 0;
		grown = 1;
	}
	if (++k->gen == 0) {
		memset(k->at, 0, (size_t)k->cap * sizeof(uint32_t));
		k->gen = 1;
	}
	return grown;
}

struct hz_cache {
	struct dv_scratch *dv;
	int dv_borrowed; /* dv is the base analysis's (hz_cache_new) */
	/* the decision of each buffer of the module as given, with reports and
	 * evidence: the hazard rule, the donation verdict and its witness all
	 * ask for the same buffer (arena memory). A hash table by buffer id:
	 * few buffers are decided, and an array over every buffer was 8 MB at
	 * 10^6 instructions. */
	struct htab decided; /* buffer id -> struct hz_result * */
	/* buffer -> struct hz_result with every triple (hz_input.keep_all) */
	struct htab keepall; /* buffer id -> struct hz_result * */
	/* the views' arrays, kept between decisions: a large buffer's triples
	 * are tens of MB, grown and faulted in again on every decision otherwise */
	struct hz_read *r;
	struct hz_triple *t;
	struct atom *atoms;
	int32_t cap_r, cap_t, cap_atoms;
	char *pp; /* the reads' paths */
	size_t cap_pp;
	struct hz_member *m; /* the members: 400 KB a view of 1,024 copies' buffer, mapped and
			      * zeroed by the kernel anew for each view when not kept */
	int32_t cap_m;
	/* the uses' reads of values many instructions read, built once: a
	 * chain of in-place updates is decided again for each copy taken from
	 * it (10^6: 11 copies x 23,000 reads, each a cache miss on its reading
	 * instruction). */
	struct htab blocks; /* value id -> struct read_block * */
	size_t block_bytes;
	/* the member matrices of the last value sets decided (member_mats) */
	struct member_mats *mats[MATS_KEPT];
	uint64_t mats_clock;
	/* a removal view's translated old triples and their index (struct
	 * xlate), kept between views (in the origin's cache): mixtral's 63
	 * views of one shared buffer each faulted in a fresh 3 MB array
	 * otherwise */
	struct old_entry *old_e;
	int32_t *old_ord, *old_cnt;
	int32_t cap_old_e, cap_old_idx;
	/* what old_e[0 .. old_n) translates, while old_valid: a repair's
	 * re-check of the same removal (an analysis with edges over this
	 * one) filters them instead of translating again (old_collect) */
	int old_valid;
	int32_t old_n;
	const struct hz_result *old_orig[2];
	struct hz_origin old_org;
	int32_t old_n_m;
	/* per instruction (gid), for the recheck of old triples under a
	 * repair's edges (edge_bits): emark.at[gid] == emark.gen when
	 * ebits[2 gid] says which edges' sources it reaches and ebits[2 gid
	 * + 1] which edges' targets reach it */
	struct marks emark;
	uint64_t *ebits; /* 2 x emark.cap */
	/* what a buffer with nothing to decide has: no triple (origin_results) */
	struct hz_result no_triples;
	/* [value id]: what a view's member of it starts with, made on first
	 * use (member_info) */
	struct value_info **vinfo;
	/* the view's members by value id: vmark.at[id] == vmark.gen (x_value) */
	struct marks vmark;
};

/* The capacity of a grown array: cap (first when 0) doubled until need
 * fits. The callers' arrays and the string builder all grow this way. */
static size_t grown_cap(size_t cap, size_t need, size_t first)
{
	if (!cap)
		cap = first;
	while (cap < need)
		cap *= 2;
	return cap;
}

/* ---- small string builder ---- */

/* Room for n more bytes and a NUL. */
static void sb_reserve(struct sbuf *b, size_t n)
{
	if (b->s && b->n + n < b->cap)
		return;
	/* 1 KB: a first line and most of a view's evidence */
	size_t cap = grown_cap(b->cap, b->n + n + 1, 1024);
	char *s = xrealloc(b->borrowed ? NULL : b->s, cap, 1);
	if (b->borrowed && b->s)
		memcpy(s, b->s, b->n + 1);
	b->borrowed = 0;
	b->s = s;
	b->cap = cap;
}

void sb_borrow(struct sbuf *b, char *buf, size_t cap)
{
	b->s = buf;
	b->n = 0;
	b->cap = cap;
	b->borrowed = 1;
	if (cap)
		buf[0] = 0;
	else
		b->s = NULL; /* nothing to borrow: the heap from the first byte */
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

/* fmt appended as vsnprintf would when it holds only %s, %d, %llu, %.*s
 * and %% (every format the evidence uses); 0, nothing consumed, for any
 * other. vsnprintf cost ~1,500 instructions a line: 14% of a mixtral check. */
static int sb_fast(struct sbuf *b, const char *fmt, va_list ap)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 1, '%')) {
		p++;
		if (*p == 's' || *p == 'd' || *p == '%')
			continue;
		if (!strncmp(p, "llu", 3) || !strncmp(p, ".*s", 3)) {
			p += 2;
			continue;
		}
		return 0;
	}
	sb_reserve(b, 0);
	for (const char *p = fmt;;) {
		const char *q = strchr(p, '%');
		sb_put(b, p, q ? (size_t)(q - p) : strlen(p));
		if (!q)
			return 1;
		char num[24], *e = num + sizeof(num), *d = e;
		switch (q[1]) {
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			sb_put(b, str, strlen(str));
			p = q + 2;
			break;
		}
		case '.': {
			int prec = va_arg(ap, int);
			const char *str = va_arg(ap, const char *);
			if (!str) /* glibc: the whole "(null)" or nothing */
				str = prec < 0 || prec >= 6 ? "(null)" : "";
			sb_put(b, str, prec < 0 ? strlen(str) : strnlen(str, (size_t)prec));
			p = q + 4;
			break;
		}
		case 'd':
		case 'l': {
			unsigned long long u;
			int neg = 0;
			if (q[1] == 'd') {
				int v = va_arg(ap, int);
				neg = v < 0;
				u = neg ? 0ull - (unsigned long long)(long long)v : (unsigned long long)v;
				p = q + 2;
			} else {
				u = va_arg(ap, unsigned long long);
				p = q + 4;
			}
			do
				*--d = (char)('0' + u % 10);
			while (u /= 10);
			if (neg)
				*--d = '-';
			sb_put(b, d, (size_t)(e - d));
			break;
		}
		default: /* %% */
			sb_put(b, "%", 1);
			p = q + 2;
			break;
		}
	}
}

void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int done = sb_fast(b, fmt, aq);
	va_end(aq);
	if (done)
		return;
	sb_reserve(b, 0);
	for (;;) {
		size_t room = b->cap - b->n;
		va_copy(aq, ap);
		int w = vsnprintf(b->s + b->n, room, fmt, aq);
		va_end(aq);
		if (w < 0)
			return;
		if ((size_t)w < room) {
			b->n += (size_t)w;
			return;
		}
		sb_reserve(b, (size_t)w);
	}
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

char *sb_finish(struct sbuf *b, struct arena *a)
{
	char *r = arena_strndup(a, b->s ? b->s : "", b->n);
	sb_free(b);
	return r;
}

void sb_free(struct sbuf *b)
{
	if (!b->borrowed)
		free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
	b->borrowed = 0;
}

/* ---- events of values and reads ---- */

static int is_entry_param(const struct hlo_instruction *x)
{
	return x->opcode == OP_PARAMETER && x->parent->is_entry;
}

void value_def_event(const struct hlo_value *v, struct event *e)
{
	const struct hlo_instruction *d = v->def;
	memset(e, 0, sizeof(*e));
	e->x = d;
	if (d->opcode == OP_CONSTANT || is_entry_param(d)) {
		e->phase = EV_TIME0;
	} else if (v->is_phi && d->opcode == OP_PARAMETER) {
		e->phase = EV_KSTART;
		e->k = d->parent;
		e->x = NULL;
	} else if (v->is_phi) {
		e->phase = EV_END;
	} else {
		e->phase = EV_AT;
	}
}

int value_is_embedded(const struct hlo_value *v)
{
	const struct hlo_computation *k = v->def->parent;
	for (int32_t guard = 0; !k->is_entry && k->n_callers > 0 && guard <= k->module->n_comps;
	     guard++) {
		const struct hlo_callsite *cs = &k->callers[0];
		if (cs->context == CALL_EMBEDDED)
			return 1;
		k = cs->instr->parent;
	}
	return 0;
}

void value_name(const struct dataflow *df, const struct hlo_value *v, char *buf, size_t cap)
{
	/* names repeat across computations: say which, outside the entry */
	int where = !v->def->parent->is_entry;
	if (cap)
		buf[0] = 0;
	size_t k = text_put(buf, cap, 0, v->def->name);
	if (v->sub != 0 && k < cap) {
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		int32_t n = dataflow_value_index(df, v, idx);
		k += (size_t)snprintf(buf + k, cap - k, "{");
		for (int32_t i = 0; i < n && k < cap; i++)
			k += (size_t)snprintf(buf + k, cap - k, "%s%d", i ? "," : "", idx[i]);
		if (k < cap)
			k += (size_t)snprintf(buf + k, cap - k, "}");
	}
	if (where && k < cap)
		text_put(buf, cap, text_put(buf, cap, k, "@"), v->def->parent->name);
}

static int comp_is_while_body(const struct hlo_computation *k)
{
	return k->n_callers == 1 && k->callers[0].instr->opcode == OP_WHILE &&
	       k->callers[0].instr->ext->body == k;
}

static void read_event(const struct hlo_instruction *u, struct event *e)
{
	memset(e, 0, sizeof(*e));
	e->x = u;
	e->phase = (u->opcode == OP_WHILE || u->opcode == OP_CONDITIONAL || u->opcode == OP_CALL)
			   ? EV_START
			   : EV_AT;
}

/* A bitcast forwards its operand and reads nothing (docs/hazards.md 2): the
 * reads are its users', each in the bitcast's view, and a repair ordering
 * the bitcast would leave them unordered. A root still reads what it
 * returns. */
static int use_reads(const struct value_use *use)
{
	const struct hlo_instruction *u = use->instr;
	return u->opcode != OP_BITCAST || u == u->parent->root;
}

/* ---- the view ---- */

struct hz_read {
	struct event ev;
	size_t path_at; /* its path in view.pp (path_bytes of its levels) */
	const struct hlo_instruction *instr; /* NULL for the end-of-run reads */
	int32_t operand, sub;
	int32_t member;
	int32_t rg; /* its region in view.rgs, -1 whole: most reads are whole, and
		     * a region is 264 bytes (10^6: 40,000 reads of one buffer) */
	uint8_t moved; /* a removal moved it: it read the removed copy's value */
};

struct hz_member {
	int32_t id;
	const struct hlo_value *val;
	struct event def;
	const struct path *path; /* member_info's */
	int excluded;
	int32_t first_read, n_reads;
	int32_t n_root_subs;   /* distinct entry-root subs holding it (after the rewrite) */
	int32_t root_sub[2];
	int wr_made;           /* wr is made (member_wr) */
	/* last, not cleared: hz_decide clears a member up to here (a view of
	 * 1,024 members cleared 460 KB, twice per copy) */
	const char *name;    /* "x" or "s{1}" (member_info's) */
	struct region wr;    /* what it writes: member_wr */
};

/* A triple's condition keeps its atoms in view.atoms: most have one or two
 * of the twelve a struct cond holds (10^6: 99,631 triples of one buffer
 * took 23 MB inline) */
struct hz_triple {
	int32_t v, w, r; /* members and read; r = -1 for static hazards */
	uint8_t kind;
	uint8_t possible, forced, given;
	uint8_t ckind, n; /* the condition's kind and atoms */
	uint16_t forced_atoms; /* bit i: atom i holds in every schedule (record()) */
	int32_t at;       /* its atoms: view.atoms[at .. at + n) */
	const char *why;  /* the condition's why and why_at */
	const struct hlo_instruction *why_at;
};

#define FALSE_SAMPLES 40

struct hz_false {
	int32_t v, w, r;
	uint8_t why_kind; /* 0 cond why, 1 atom impossible, 2 disjoint, 3 can share, 4 atoms together */
	struct cond c;
	int32_t atom;
};

struct view {
	struct analysis *an;
	struct depview dv;
	const struct hz_input *in;
	int32_t n_m, cap_m;
	struct hz_member *m;
	int32_t n_r, cap_r;
	struct hz_read *r;
	int32_t n_t, cap_t;
	struct hz_triple *t;
	struct atom *atoms; /* the triples' atoms */
	int32_t n_atoms, cap_atoms;
	char *pp; /* the reads' paths, packed */
	size_t n_pp, cap_pp;
	struct region *rgs; /* the reads' regions that are not whole */
	int32_t n_rgs, cap_rgs;
	int32_t n_false, n_disjoint, n_canshare;
	int32_t n_samples;
	int no_samples; /* nobody reads the proof (hz_input.no_evidence): no samples kept */
	/* read_reaches: per instruction of the entry (its index), the writers
	 * it or what it reaches defines (one bit a member); the row of the
	 * read being decided; rb_state 0 not made, 1 made, -1 not made here */
	int rb_state;
	size_t rb_words;
	uint64_t *rb_bits, *rb_row;
	int32_t n_unknown;
	const char *unknown_why;
	const char *cut;             /* why the view is left undecided (time budget, nesting), or NULL */
	int forced_found; /* a triple every schedule has: the verdict is settled */
	struct buffer_verdict *bv; /* the verdict being decided */
	int sent_smt;              /* a query went to Z3 for it */
	/* cond_shared_levels + 1 (0: not yet) of members' paths (v, w) and of
	 * a member's with a read's (v, r), or NULL (too many to keep) */
	int32_t *skip_mm, *skip_mr;
	int skip_none; /* too large to make */
	/* a removal decided at the reads it moves only (moved_only_ok):
	 * member moved_member's reads with .moved */
	int moved_only;
	int32_t moved_member;
	/* last: hz_decide clears the view up to here (9 KB a view of
	 * mixtral's 3,099, 5% of its check, went to clearing samples) */
	struct hz_false samples[FALSE_SAMPLES];
};

/* What member mi writes, made on first use: a view decided at the reads a
 * removal moves traces few of its writers (hz_decide). */
static const struct region *member_wr(struct view *V, int32_t mi)
{
	struct hz_member *M = &V->m[mi];
	if (!M->wr_made) {
		if (M->def.phase == EV_AT && M->val->sub == 0) {
			region_write(M->val->def, &M->wr);
		} else {
			memset(&M->wr, 0, sizeof(M->wr));
			M->wr.whole = 1;
		}
		M->wr_made = 1;
	}
	return &M->wr;
}

static struct hz_cache *hz_cache_new(struct analysis *an);

/* What a member of a value starts with in every view: its definition's
 * path, its name, whether it takes part and whether it is at a root. Kept
 * per value by the analysis the view's reads come from (read_block_of's):
 * all depend on the values and computations alone, and 1,024 views of one
 * buffer made each again. */
struct value_info {
	struct event def;
	const struct path *path;
	const char *name;
	uint8_t excluded; /* inside an embedded computation, or a token */
	uint8_t at_root;  /* a position at a computation's root */
};

static const struct value_info *member_info(struct view *V, int32_t id)
{
	struct analysis *ban = V->an->base ? V->an->base : V->an;
	if (!ban->cache)
		ban->cache = hz_cache_new(ban);
	struct hz_cache *c = ban->cache;
	if (!c->vinfo)
		c->vinfo = xcalloc((size_t)ban->df->n_values + 1, sizeof(*c->vinfo));
	struct value_info *vi = c->vinfo[id];
	if (vi)
		return vi;
	const struct dataflow *df = ban->df;
	const struct hlo_value *val = &df->values[id];
	vi = arena_alloc(&ban->m->arena, sizeof(*vi));
	value_def_event(val, &vi->def);
	struct path *p = arena_alloc(&ban->m->arena, path_bytes(trace_path_levels(&vi->def)));
	trace_path(&vi->def, p);
	vi->path = p;
	char name[96];
	value_name(df, val, name, sizeof(name));
	vi->name = arena_strdup(&ban->m->arena, name);
	/* values inside fusions and other embedded computations take no part;
	 * nor do tokens, which hold no data (XLA never copies them) */
	const struct shape *sh = dataflow_subshape(df, val->def, val->sub);
	vi->excluded = value_is_embedded(val) || (sh && sh->type == PT_TOKEN);
	for (int32_t p2 = 0; p2 < val->n_positions && !vi->at_root; p2++)
		vi->at_root = val->positions[p2].instr == val->positions[p2].instr->parent->root;
	c->vinfo[id] = vi;
	return vi;
}

/* Room for n more reads, path bytes, regions (add_read, add_block). */
static void reserve_reads(struct view *V, int32_t n)
{
	if (V->n_r + n <= V->cap_r)
		return;
	int32_t cap = (int32_t)grown_cap((size_t)V->cap_r, (size_t)V->n_r + (size_t)n, 16);
	V->r = heap_realloc_huge(V->r, (size_t)cap, sizeof(*V->r));
	V->cap_r = cap;
}

static void reserve_paths(struct view *V, size_t n)
{
	if (V->n_pp + n <= V->cap_pp)
		return;
	size_t cap = grown_cap(V->cap_pp, V->n_pp + n, 4096);
	V->pp = xrealloc(V->pp, cap, 1);
	V->cap_pp = cap;
}

static void reserve_regions(struct view *V, int32_t n)
{
	if (V->n_rgs + n <= V->cap_rgs)
		return;
	int32_t cap = (int32_t)grown_cap((size_t)V->cap_rgs, (size_t)V->n_rgs + (size_t)n, 16);
	V->rgs = xrealloc(V->rgs, (size_t)cap, sizeof(*V->rgs));
	V->cap_rgs = cap;
}

static void add_read(struct view *V, int32_t member, const struct event *ev,
		     const struct hlo_instruction *instr, int32_t operand, int32_t sub)
{
	reserve_reads(V, 1);
	struct hz_read *r = &V->r[V->n_r++];
	r->ev = *ev;
	/* packed: a read's path has a few levels (40,000 reads of one buffer) */
	size_t need = (path_bytes(trace_path_levels(ev)) + 15) & ~(size_t)15;
	reserve_paths(V, need);
	trace_path(ev, (struct path *)(void *)(V->pp + V->n_pp));
	r->path_at = V->n_pp;
	V->n_pp += need;
	r->instr = instr;
	r->operand = operand;
	r->sub = sub;
	r->member = member;
	r->rg = -1;
	r->moved = 0;
	if (instr && sub == 0) {
		struct region rg;
		region_read(instr, operand, &rg);
		if (!rg.whole) {
			reserve_regions(V, 1);
			V->rgs[V->n_rgs] = rg;
			r->rg = V->n_rgs++;
		}
	}
}

static const struct path *rpath(const struct view *V, const struct hz_read *r)
{
	return (const struct path *)(const void *)(V->pp + r->path_at);
}

static const struct region whole_region = {.whole = 1};

static const struct region *rregion(const struct view *V, const struct hz_read *r)
{
	return r->rg < 0 ? &whole_region : &V->rgs[r->rg];
}

static struct hz_triple *add_triple(struct view *V)
{
	if (V->n_t == V->cap_t) {
		V->cap_t = V->cap_t ? 2 * V->cap_t : 16;
		V->t = heap_realloc_huge(V->t, (size_t)V->cap_t, sizeof(*V->t));
	}
	struct hz_triple *t = &V->t[V->n_t++];
	memset(t, 0, sizeof(*t));
	return t;
}

static const struct atom *tatoms(const struct view *V, const struct hz_triple *t)
{
	return t->n ? V->atoms + t->at : NULL; /* no atoms yet: V->atoms may be NULL */
}

/* the condition into triple t: its atoms appended to view.atoms */
static void set_cond(struct view *V, struct hz_triple *t, const struct cond *c)
{
	t->ckind = c->kind;
	t->n = c->n;
	t->why = c->why;
	t->why_at = c->why_at;
	if (V->n_atoms + c->n > V->cap_atoms) {
		int32_t cap = (int32_t)grown_cap((size_t)V->cap_atoms, (size_t)V->n_atoms + c->n, 64);
		V->atoms = heap_realloc_huge(V->atoms, (size_t)cap, sizeof(*V->atoms));
		V->cap_atoms = cap;
	}
	t->at = V->n_atoms;
	if (c->n > 0)
		memcpy(V->atoms + V->n_atoms, c->a, (size_t)c->n * sizeof(*c->a));
	V->n_atoms += c->n;
}

static void add_static(struct view *V, enum hazard_kind kind, int32_t v, int32_t w)
{
	struct hz_triple *t = add_triple(V);
	t->v = v;
	t->w = w;
	t->r = -1;
	t->kind = (uint8_t)kind;
	t->ckind = COND_ATOMS;
	t->at = V->n_atoms;
	t->possible = t->forced = t->given = 1;
}

/* No room for another sample of the proof: the deciders then count the
 * triples they rule out without tracing them where they can (by class). */
static inline int samples_full(const struct view *V)
{
	return V->n_samples >= FALSE_SAMPLES || V->no_samples;
}

static void add_sample(struct view *V, int32_t v, int32_t w, int32_t r, int why_kind,
		       const struct cond *c, int32_t atom)
{
	if (samples_full(V))
		return;
	struct hz_false *s = &V->samples[V->n_samples++];
	s->v = v;
	s->w = w;
	s->r = r;
	s->why_kind = (uint8_t)why_kind;
	if (c)
		s->c = *c;
	s->atom = atom;
}

/* ---- the uses' reads of a value, kept across decisions ---- */

static struct hz_cache *hz_cache_new(struct analysis *an);


#define READ_BLOCK_MIN_USES 64
#define READ_BLOCK_MAX_BYTES ((size_t)64 << 20) /* in all: past it, reads are built each time */

struct read_block {
	int32_t n_r;
	struct hz_read *r; /* member unset; path_at into pp, rg into rgs */
	char *pp;
	size_t n_pp;
	struct region *rgs;
	int32_t n_rgs;
};

/* int32 id -> pointer (htab.h) */
static void *id_map_get(const struct htab *m, int32_t key)
{
	const uint64_t *v = htab_get(m, (uint64_t)(uint32_t)key);
	return v ? (void *)(uintptr_t)*v : NULL;
}

static void id_map_put(struct htab *m, int32_t key, void *val)
{
	*htab_put(m, (uint64_t)(uint32_t)key, NULL) = (uint64_t)(uintptr_t)val;
}

/* The reads of every use of value `vid` (none skipped), built on the first
 * ask; NULL for a value read by few instructions, or past the budget. */
static const struct read_block *read_block_of(struct view *V, int32_t vid)
{
	/* reads follow the values and their uses, which control edges added
	 * to the module (an->base) do not change: the base's blocks serve */
	struct analysis *ban = V->an->base ? V->an->base : V->an;
	if (!ban->cache)
		ban->cache = hz_cache_new(ban);
	struct hz_cache *c = ban->cache;
	const struct hlo_value *val = &V->an->df->values[vid];
	int32_t min_uses = V->an->opt.read_block_min_uses > 0 ? V->an->opt.read_block_min_uses
								: READ_BLOCK_MIN_USES;
	if (val->n_uses < min_uses)
		return NULL;
	struct read_block *got = id_map_get(&c->blocks, vid);
	if (got)
		return got;
	if (c->block_bytes >= READ_BLOCK_MAX_BYTES)
		return NULL;
	struct view *T = xcalloc(1, sizeof(*T));
	struct read_block *b = xcalloc(1, sizeof(*b));
	T->an = V->an;
	for (int32_t u = 0; u < val->n_uses; u++) {
		const struct value_use *use = &val->uses[u];
		if (!use_reads(use))
			continue;
		struct event ev;
		read_event(use->instr, &ev);
		add_read(T, -1, &ev, use->instr, use->operand, use->sub);
	}
	b->n_r = T->n_r;
	b->r = T->r;
	b->pp = T->pp;
	b->n_pp = T->n_pp;
	b->rgs = T->rgs;
	b->n_rgs = T->n_rgs;
	free(T);
	c->block_bytes += (size_t)b->n_r * sizeof(*b->r) + b->n_pp + (size_t)b->n_rgs * sizeof(*b->rgs);
	id_map_put(&c->blocks, vid, b);
	return b;
}

static void blocks_free(struct hz_cache *c)
{
	uint64_t k, v;
	for (size_t i = 0; htab_next(&c->blocks, &i, &k, &v);) {
		struct read_block *b = (struct read_block *)(uintptr_t)v;
		free(b->r);
		free(b->pp);
		free(b->rgs);
		free(b);
	}
	htab_free(&c->blocks);
	c->block_bytes = 0;
}

/* The block's reads as member mi's, but those at instruction `skip`. */
static void add_block(struct view *V, int32_t mi, const struct read_block *b,
		      const struct hlo_instruction *skip)
{
	reserve_paths(V, b->n_pp);
	if (b->n_pp > 0)
		memcpy(V->pp + V->n_pp, b->pp, b->n_pp);
	if (b->n_rgs > 0) {
		reserve_regions(V, b->n_rgs);
		memcpy(V->rgs + V->n_rgs, b->rgs, (size_t)b->n_rgs * sizeof(*b->rgs));
	}
	reserve_reads(V, b->n_r);
	for (int32_t i = 0; i < b->n_r; i++) {
		if (skip && b->r[i].instr == skip)
			continue;
		struct hz_read *r = &V->r[V->n_r++];
		*r = b->r[i];
		r->path_at += V->n_pp;
		if (r->rg >= 0)
			r->rg += V->n_rgs;
		r->member = mi;
	}
	V->n_pp += b->n_pp;
	V->n_rgs += b->n_rgs;
}

/* Members' reads: own uses and those of the values they absorb, the removed
 * copy's own read dropped; end-of-run reads at the entry root and at while
 * body roots. */
enum read_mode {
	READS_AND_OUTPUTS,
	OUTPUTS_ONLY, /* the entry outputs it is at, no read (a moved-only view's other members) */
	READS_ONLY    /* the reads again, the outputs as they were */
};

static void build_reads(struct view *V, int32_t mi, enum read_mode mode)
{
	const struct hz_input *in = V->in;
	const struct dataflow *df = V->an->df;
	struct hz_member *M = &V->m[mi];
	M->first_read = V->n_r;
	if (mode != READS_ONLY)
		M->n_root_subs = 0;
	const struct hlo_computation *kend[16];
	int32_t n_kend = 0;
	for (int32_t s = -1; s < in->n_abs; s++) {
		int32_t vid = s < 0 ? M->id : in->abs_from[s];
		if (s >= 0 && in->abs_to[s] != M->id)
			continue;
		const struct hlo_value *val = &df->values[vid];
		int32_t r0 = V->n_r;
		const struct read_block *blk = mode == OUTPUTS_ONLY ? NULL : read_block_of(V, vid);
		if (blk)
			add_block(V, mi, blk, in->copy);
		for (int32_t u = 0; u < val->n_uses && !blk && mode != OUTPUTS_ONLY; u++) {
			const struct value_use *use = &val->uses[u];
			if ((in->copy && use->instr == in->copy) || !use_reads(use))
				continue;
			struct event ev;
			read_event(use->instr, &ev);
			add_read(V, mi, &ev, use->instr, use->operand, use->sub);
		}
		for (int32_t p = 0; p < val->n_positions; p++) {
			const struct hlo_instruction *pi = val->positions[p].instr;
			if (pi != pi->parent->root)
				continue;
			const struct hlo_computation *k = pi->parent;
			if (k->is_entry && dataflow_tree(df, pi)->nk[val->positions[p].sub] < 0 && mode != READS_ONLY) {
				/* an entry output leaf (XLA copies leaves, not tuple tables) */
				int32_t sub = val->positions[p].sub;
				int dup = 0;
				for (int32_t i = 0; i < M->n_root_subs && i < 2; i++)
					if (M->root_sub[i] == sub)
						dup = 1;
				if (!dup) {
					if (M->n_root_subs < 2)
						M->root_sub[M->n_root_subs] = sub;
					M->n_root_subs++;
				}
			} else if (!k->is_entry && !comp_is_while_body(k)) {
				continue;
			}
			int dup = 0;
			for (int32_t i = 0; i < n_kend; i++)
				if (kend[i] == k)
					dup = 1;
			if (dup || n_kend == 16)
				continue;
			kend[n_kend++] = k;
			struct event ev = {.x = NULL, .k = k, .phase = EV_KEND};
			if (mode != OUTPUTS_ONLY)
				add_read(V, mi, &ev, NULL, -1, -1);
		}
		for (int32_t i = r0; i < V->n_r; i++)
			V->r[i].moved = s >= 0;
	}
	M->n_reads = V->n_r - M->first_read;
}

static int member_read_only(struct view *V, int32_t mi)
{
	return V->an->bufs->value_read_only[V->m[mi].id];
}

/* ---- deciding ---- */

/* overwrite_skip's tables: at most this many entries (4 MiB) */
#define SKIP_TABLE_MAX (1 << 20)

/* Triple (v, w, read) of kind with condition c, flags cleared. */
static struct hz_triple *add_cond_triple(struct view *V, int32_t vi, int32_t wi, int32_t ri,
					 enum hazard_kind kind, const struct cond *c)
{
	struct hz_triple *t = add_triple(V);
	t->v = vi;
	t->w = wi;
	t->r = ri;
	t->kind = (uint8_t)kind;
	set_cond(V, t, c);
	return t;
}

static void record(struct view *V, int32_t vi, int32_t wi, int32_t ri, enum hazard_kind kind,
		   const struct cond *c)
{
	struct analysis *an = V->an;
	if (c->kind == COND_FALSE) {
		V->n_false++;
		add_sample(V, vi, wi, ri, 0, c, -1);
		return;
	}
	an->n_graph_queries++;
	if (c->kind == COND_ATOMS && !atoms_possible(&V->dv, c->a, c->n, NULL, 0)) {
		if (V->in->keep_all) /* kept, not possible here */
			add_cond_triple(V, vi, wi, ri, kind, c);
		V->n_false++;
		if (samples_full(V))
			return; /* no room for its sample: the atom that fails is not looked for */
		int32_t bad = -1;
		for (int32_t i = 0; i < c->n && bad < 0; i++)
			if (must_precede(&V->dv, c->a[i].b, c->a[i].a) || c->a[i].a == c->a[i].b)
				bad = i;
		add_sample(V, vi, wi, ri, bad >= 0 ? 1 : 4, c, bad);
		return;
	}
	struct hz_triple *t = add_cond_triple(V, vi, wi, ri, kind, c);
	if (c->kind == COND_UNKNOWN) {
		V->n_unknown++;
		if (!V->unknown_why)
			V->unknown_why = c->why;
		return;
	}
	t->possible = 1;
	t->forced = 1;
	t->given = 1;
	for (int32_t i = 0; i < c->n; i++) {
		if (atom_forced(&V->dv, &c->a[i]))
			t->forced_atoms |= (uint16_t)(1u << i);
		else
			t->forced = 0;
		if (!atom_given(&V->dv, &c->a[i]))
			t->given = 0;
	}
	V->forced_found |= t->forced;
}

/* The levels cond_overwrite may skip for (v, w, read), from the view's
 * pair tables; -1: let it walk them. */
static int32_t overwrite_skip(struct view *V, int32_t vi, int32_t wi, int32_t ri)
{
	if (!V->skip_mm) {
		/* made on first use: most views (mixtral: 2,086 of 2,149) trace
		 * no overwrite and would only clear them */
		int64_t rows = V->moved_only ? 1 : V->n_m; /* a moved-only view asks one member's row */
		if (V->skip_none || rows * ((int64_t)V->n_m + V->n_r) > SKIP_TABLE_MAX) {
			V->skip_none = 1;
			return -1;
		}
		V->skip_mm = xcalloc((size_t)rows * (size_t)(V->n_m + V->n_r) + 1, sizeof(int32_t));
		V->skip_mr = V->skip_mm + (size_t)rows * (size_t)V->n_m;
	}
	const struct path *D = V->m[vi].path, *W = V->m[wi].path, *U = rpath(V, &V->r[ri]);
	if (!D->ok || !W->ok || !U->ok || D->never || W->never || U->never || !D->n || !W->n || !U->n)
		return -1;
	/* the levels shared are a common prefix (of each path cut at its
	 * first level that does not count), so of the three pairs' counts the
	 * two least are equal: min(DW, WU) = min(DW, DU), and DU is the
	 * read's, whatever the writer */
	size_t row = V->moved_only ? 0 : (size_t)vi;
	int32_t *a = &V->skip_mm[row * (size_t)V->n_m + (size_t)wi];
	int32_t *b = &V->skip_mr[row * (size_t)V->n_r + (size_t)ri];
	if (!*b)
		*b = cond_shared_levels(D, U) + 1;
	if (!*a)
		*a = cond_shared_levels(D, W) + 1;
	return (*a < *b ? *a : *b) - 1;
}

static void decide_triple(struct view *V, int32_t vi, int32_t wi, int32_t ri)
{
	struct analysis *an = V->an;
	struct hz_member *v = &V->m[vi], *w = &V->m[wi];
	struct hz_read *r = &V->r[ri];
	if (!region_overlap(member_wr(V, wi), rregion(V, r))) {
		V->n_disjoint++;
		add_sample(V, vi, wi, ri, 2, NULL, -1);
		return;
	}
	/* t1 < t2 < t3 (also across loop iterations when two events coincide) */
	struct cond c;
	int same_dw = event_equal(&v->def, &w->def);
	int same_wu = r->instr && event_equal(&w->def, &r->ev);
	cond_overwrite_from(v->path, w->path, rpath(V, r), overwrite_skip(V, vi, wi, ri), &c);
	if (c.kind == COND_FALSE && (same_dw || same_wu))
		V->n_false++; /* the same-event hazard below explains this triple */
	else
		record(V, vi, wi, ri, HAZARD_OVERWRITE, &c);
	memset(&c, 0, sizeof(c));
	c.kind = COND_ATOMS;
	if (same_dw) {
		/* t1 == t2 < t3: the read of v always follows its definition */
		record(V, vi, wi, ri, HAZARD_SAME_TIME, &c);
	} else if (same_wu) {
		/* t1 < t2 == t3. Per read slot, not XLA's per operand: only the
		 * pair's own slot is exempt (docs/hazards.md 3); on the module with
		 * the copy removed, which the analyses were not rebuilt for */
		if (can_share_buffer_at(an->df, an->ip, r->instr->operands[r->operand], r->sub,
					r->instr, w->val->sub, r->operand, V->in->copy)) {
			V->n_canshare++;
			V->n_false++;
			add_sample(V, vi, wi, ri, 3, NULL, -1);
			return;
		}
		record(V, vi, wi, ri, HAZARD_SAME_INSTRUCTION, &c);
	}
}

/* One control edge (from the reversed atoms) that rules out every possible
 * triple; returns 1 and the edge. */
static int find_repair_edge(struct view *V, struct atom *edge)
{
	struct analysis *an = V->an;
	int32_t n_possible = 0;
	for (int32_t i = 0; i < V->n_t; i++)
		n_possible += V->t[i].possible && V->t[i].r >= 0;
	if (n_possible > 4096)
		return 0;
	int32_t last_kept = -1;
	for (int32_t i = 0; i < V->n_t; i++) {
		struct hz_triple *t = &V->t[i];
		if (!t->possible || t->r < 0)
			continue;
		const struct atom *ta = tatoms(V, t);
		for (int32_t a = 0; a < t->n; a++) {
			struct atom e = {ta[a].b, ta[a].a}; /* run b before a */
			if ((t->forced_atoms >> a & 1) || e.a == e.a->parent->root)
				continue;
			/* the triple that kept the last candidate possible is
			 * asked first: it often keeps this one too (64 nested
			 * loops: 5,600 queries a view, most after it) */
			int ok = 1;
			if (last_kept >= 0) {
				struct hz_triple *u = &V->t[last_kept];
				an->n_graph_queries++;
				if (atoms_possible(&V->dv, tatoms(V, u), u->n, &e, 1))
					ok = 0;
			}
			for (int32_t j = 0; j < V->n_t && ok; j++) {
				struct hz_triple *u = &V->t[j];
				if (!u->possible || u->r < 0 || j == last_kept)
					continue;
				an->n_graph_queries++;
				if (atoms_possible(&V->dv, tatoms(V, u), u->n, &e, 1)) {
					ok = 0;
					last_kept = j;
				}
			}
			if (ok) {
				*edge = e;
				return 1;
			}
		}
	}
	return 0;
}

/* ---- is there a schedule with none of the possible triples: the graph part ----
 *
 * A triple with one atom a < b is avoided only by running b before a: that
 * edge is forced on every hazard-free schedule. With those edges H added to
 * the dependencies, an atom of a longer triple may become impossible (the
 * triple is avoided for free), certain (drop it from the triple), or stay
 * open; a triple left with one open atom gives another edge of H, one left
 * with none is had by every schedule. H with a cycle: no hazard-free
 * schedule. No triple left with two or more open atoms: one exists (any
 * topological order of the dependencies and H). Both answers are exact; what
 * is left goes to Z3 as a slice: the open triples' instructions, ordered by
 * the dependencies and H. */

#define NONE_MAX_PAIRS (8 * 1024 * 1024) /* must_precede calls per question */
#define NONE_MAX_TARGETS 2048             /* distinct targets of H (closure is cubic) */
#define NONE_MAX_ROUNDS 32

struct hgraph {
	struct depview *dv;
	int32_t n_h, cap_h;
	struct atom *h;              /* hard edges: h[i].a runs before h[i].b */
	struct htab set;             /* the edges, as keys */
	/* the index of h[0..n_indexed): distinct sources p, distinct targets q,
	 * the targets of each source (CSR), and which targets each target
	 * reaches through one or more edges */
	int32_t n_indexed, n_p, n_q;
	const struct hlo_instruction **p, **q;
	const struct hlo_computation **p_parent;
	int32_t *p_off, *p_tq;
	uint8_t *qq;
	uint8_t *mark;
	int32_t *stack;
	int64_t budget;              /* must_precede calls left */
};

static uint64_t hg_key(const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	return (((uint64_t)(uint32_t)a->gid << 32) | (uint32_t)b->gid) + 1;
}

static void hg_add(struct hgraph *G, const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	int added;
	htab_put(&G->set, hg_key(a, b), &added);
	if (!added)
		return;
	if (G->n_h == G->cap_h) {
		G->cap_h = G->cap_h ? 2 * G->cap_h : 64;
		G->h = xrealloc(G->h, (size_t)G->cap_h, sizeof(*G->h));
	}
	G->h[G->n_h].a = a;
	G->h[G->n_h].b = b;
	G->n_h++;
}

static int hg_prec(struct hgraph *G, const struct hlo_instruction *x, const struct hlo_instruction *y)
{
	if (x->parent != y->parent)
		return 0;
	G->budget--;
	return x == y || must_precede(G->dv, x, y);
}

static void hg_free_index(struct hgraph *G)
{
	free(G->p);
	free(G->q);
	free(G->p_parent);
	G->p_parent = NULL;
	free(G->p_off);
	free(G->p_tq);
	free(G->qq);
	free(G->mark);
	free(G->stack);
	G->p = G->q = NULL;
	G->p_off = G->p_tq = G->stack = NULL;
	G->qq = G->mark = NULL;
}

static void hg_free(struct hgraph *G)
{
	hg_free_index(G);
	free(G->h);
	htab_free(&G->set);
	memset(G, 0, sizeof(*G));
}

static int cmp_atom_gid(const void *x, const void *y)
{
	const struct atom *a = x, *b = y;
	if (a->a->gid != b->a->gid)
		return a->a->gid < b->a->gid ? -1 : 1;
	return (a->b->gid > b->b->gid) - (a->b->gid < b->b->gid);
}

/* Index H. Returns 1 when H and the dependencies have a cycle, 0 when not,
 * -1 when over the limits. */
static int hg_index(struct hgraph *G)
{
	hg_free_index(G);
	int32_t n = G->n_h;
	if (n > 1) /* G->h is NULL while H is empty */
		qsort(G->h, (size_t)n, sizeof(*G->h), cmp_atom_gid);
	G->n_indexed = n;
	G->p = xmalloc((size_t)n + 1, sizeof(*G->p));
	G->q = xmalloc((size_t)n + 1, sizeof(*G->q));
	G->p_off = xmalloc((size_t)n + 2, sizeof(int32_t));
	G->p_tq = xmalloc((size_t)n + 1, sizeof(int32_t));
	struct htab qmap; /* target gid -> q index */
	htab_init(&qmap, (size_t)n);
	G->n_p = G->n_q = 0;
	for (int32_t i = 0; i < n; i++) {
		if (i == 0 || G->h[i].a != G->h[i - 1].a) {
			G->p_off[G->n_p] = i;
			G->p[G->n_p++] = G->h[i].a;
		}
		int added;
		uint64_t *q = htab_put(&qmap, (uint64_t)(uint32_t)G->h[i].b->gid, &added);
		if (added) {
			*q = (uint64_t)G->n_q;
			G->q[G->n_q++] = G->h[i].b;
		}
		G->p_tq[i] = (int32_t)*q;
	}
	G->p_off[G->n_p] = n;
	htab_free(&qmap);
	/* the sources' computations in one array: hg_prec compares them first,
	 * and loading each source instruction for it, targets x sources times,
	 * missed the cache (10^6: 126 x 37,601) */
	G->p_parent = xmalloc(((size_t)G->n_p + 1), sizeof(*G->p_parent));
	for (int32_t s = 0; s < G->n_p; s++)
		G->p_parent[s] = G->p[s]->parent;
	if (G->n_q > NONE_MAX_TARGETS || (int64_t)G->n_q * G->n_p > G->budget)
		return -1;
	size_t nq = (size_t)G->n_q;
	G->qq = xcalloc(nq * nq + 1, 1);
	G->mark = xcalloc(nq + 1, 1);
	G->stack = xmalloc(nq + 1, sizeof(int32_t));
	/* topological ranks: a path runs from a lower rank to a higher one, so
	 * a target ranked after a source cannot reach it, unless the source is
	 * its computation's root in the view (every instruction precedes that).
	 * Such pairs are skipped without a query (they still count against
	 * the budget, as before); -1: no rank, ask */
	int32_t *qrank = xmalloc(nq + (size_t)G->n_p + 1, sizeof(int32_t));
	int32_t *prank = qrank + nq; /* one block */
	for (int32_t i = 0; i < G->n_q; i++)
		qrank[i] = ordering_position(G->dv->dep, G->q[i]);
	for (int32_t s = 0; s < G->n_p; s++)
		prank[s] = G->p[s] == dv_root(G->dv, G->p_parent[s]) ? -1
								      : ordering_position(G->dv->dep, G->p[s]);
	/* one step: target i reaches source s, so s's targets follow */
	for (int32_t i = 0; i < G->n_q; i++)
		for (int32_t s = 0; s < G->n_p; s++) {
			if (G->p_parent[s] != G->q[i]->parent)
				continue;
			if (qrank[i] >= 0 && prank[s] >= 0 && prank[s] < qrank[i]) {
				G->budget--;
				continue;
			}
			if (hg_prec(G, G->q[i], G->p[s]))
				for (int32_t k = G->p_off[s]; k < G->p_off[s + 1]; k++)
					G->qq[(size_t)i * nq + (size_t)G->p_tq[k]] = 1;
		}
	free(qrank); /* and prank */
	/* closed transitively (Warshall over bitset rows, nq^3 / 64): qq[i][j]
	 * becomes "i reaches j through one or more edges"; a target that
	 * reaches itself closes a cycle */
	size_t words = (nq + 63) / 64;
	uint64_t *bits = xcalloc(nq * words + 1, sizeof(uint64_t));
	for (size_t i = 0; i < nq; i++)
		for (size_t j = 0; j < nq; j++)
			if (G->qq[i * nq + j])
				bits[i * words + j / 64] |= 1ull << (j % 64);
	for (size_t k = 0; k < nq; k++) {
		const uint64_t *rk = bits + k * words;
		for (size_t i = 0; i < nq; i++) {
			uint64_t *ri = bits + i * words;
			if (ri[k / 64] >> (k % 64) & 1)
				for (size_t w = 0; w < words; w++)
					ri[w] |= rk[w];
		}
	}
	int cycle = 0;
	for (size_t i = 0; i < nq && !cycle; i++)
		cycle = (int)(bits[i * words + i / 64] >> (i % 64) & 1);
	for (size_t i = 0; i < nq && !cycle; i++)
		for (size_t j = 0; j < nq; j++)
			G->qq[i * nq + j] = (uint8_t)(bits[i * words + j / 64] >> (j % 64) & 1);
	free(bits);
	return cycle;
}

/* y runs after x in every schedule that keeps the dependencies and H.
 * Edges added since the index was built wait for the next round: fewer
 * edges only find fewer orders, never a wrong one. */
static int hg_reach(struct hgraph *G, const struct hlo_instruction *x, const struct hlo_instruction *y)
{
	if (x == y || x->parent != y->parent)
		return 0;
	if (must_precede(G->dv, x, y))
		return 1;
	size_t nq = (size_t)G->n_q;
	if (!nq)
		return 0;
	memset(G->mark, 0, nq);
	for (int32_t s = 0; s < G->n_p; s++)
		if (G->p_parent[s] == x->parent && hg_prec(G, x, G->p[s]))
			for (int32_t k = G->p_off[s]; k < G->p_off[s + 1]; k++) {
				int32_t q = G->p_tq[k];
				if (G->mark[q])
					continue;
				G->mark[q] = 1;
				for (int32_t j = 0; j < G->n_q; j++)
					G->mark[j] |= G->qq[(size_t)q * nq + (size_t)j];
			}
	for (int32_t k = 0; k < G->n_q; k++)
		if (G->mark[k] && hg_prec(G, G->q[k], y))
			return 1;
	return 0;
}

enum triple_state { TS_OPEN = 0, TS_EDGE, TS_AVOIDED };

/* The graph part of the question above over the possible triples listed in
 * idx[0..n). Returns SMT_SAT / SMT_UNSAT when settled, SMT_UNKNOWN when open
 * triples remain (state[j] == TS_OPEN) or the index would be too large
 * (*gave_up set). state[j] says how triple idx[j] is avoided, for the
 * repair edges: TS_EDGE by reversing its open atom open[j], TS_AVOIDED by
 * atom open[j] that H makes impossible. */
static enum smt_answer none_by_graph(struct view *V, struct hgraph *G, const int32_t *idx, int32_t n,
				     uint8_t *state, int32_t *open, int *gave_up)
{
	*gave_up = 0;
	/* first on the dependencies alone: most triples are one open atom
	 * (w overwrites before the read) and others that always hold */
	for (int32_t j = 0; j < n; j++) {
		const struct hz_triple *t = &V->t[idx[j]];
		const struct atom *ca = tatoms(V, t);
		int32_t cn = t->n;
		state[j] = TS_OPEN;
		open[j] = -1;
		int32_t n_undecided = 0, last = -1;
		for (int32_t i = 0; i < cn; i++) {
			/* one atom: record()'s atoms_possible was this very
			 * question (a != b and not b before a) */
			if (cn > 1 && (must_precede(G->dv, ca[i].b, ca[i].a) || ca[i].a == ca[i].b)) {
				state[j] = TS_AVOIDED;
				open[j] = i;
				break;
			}
			if (!(t->forced_atoms >> i & 1)) /* record() asked a before b */
				n_undecided++, last = i;
		}
		if (state[j] == TS_AVOIDED)
			continue;
		if (n_undecided == 0)
			return SMT_UNSAT; /* forced: not expected here, but exact */
		if (n_undecided == 1) {
			state[j] = TS_EDGE;
			open[j] = last;
			hg_add(G, ca[last].b, ca[last].a);
		}
	}
	for (int round = 0; round < NONE_MAX_ROUNDS; round++) {
		int cyc = hg_index(G);
		if (cyc < 0) {
			*gave_up = 1;
			return SMT_UNKNOWN;
		}
		if (cyc > 0)
			return SMT_UNSAT;
		int changed = 0, n_open = 0;
		for (int32_t j = 0; j < n; j++) {
			if (state[j] != TS_OPEN)
				continue;
			const struct atom *ca = tatoms(V, &V->t[idx[j]]);
			int32_t cn = V->t[idx[j]].n;
			int32_t n_undecided = 0, last = -1, avoided = -1;
			for (int32_t i = 0; i < cn && avoided < 0; i++) {
				if (hg_reach(G, ca[i].b, ca[i].a))
					avoided = i;
				else if (!hg_reach(G, ca[i].a, ca[i].b))
					n_undecided++, last = i;
			}
			if (G->budget < 0) {
				*gave_up = 1;
				return SMT_UNKNOWN;
			}
			if (avoided >= 0) {
				state[j] = TS_AVOIDED;
				open[j] = avoided;
			} else if (n_undecided == 0) {
				return SMT_UNSAT; /* every schedule keeping H has it */
			} else if (n_undecided == 1) {
				state[j] = TS_EDGE;
				open[j] = last;
				hg_add(G, ca[last].b, ca[last].a);
				changed = 1;
			} else {
				n_open++;
			}
		}
		if (!changed)
			return n_open ? SMT_UNKNOWN : SMT_SAT;
	}
	*gave_up = 1;
	return SMT_UNKNOWN;
}

static int hg_prec_cb(void *ctx, const struct hlo_instruction *a, const struct hlo_instruction *b)
{
	return hg_reach(ctx, a, b);
}

struct smt *analysis_smt(struct analysis *an)
{
	if (!an->smt)
	{
		const char *f = an->m->file ? strrchr(an->m->file, '/') : NULL;
		f = f ? f + 1 : an->m->file ? an->m->file : an->m->name ? an->m->name : "module";
		an->smt = smt_new(an->opt.timeout_ms, an->opt.smt_dump_dir, f);
	}
	return an->smt;
}

static const char *instr_or(const struct hlo_instruction *x, const char *dflt)
{
	return x ? x->name : dflt;
}

static void fmt_event(const struct event *e, char *buf, size_t cap)
{
	event_format(e, buf, cap);
}

static void witness(struct view *V, const struct hz_triple *t, struct sbuf *b)
{
	const struct dataflow *df = V->an->df;
	const struct hz_member *v = &V->m[t->v];
	char dv[160], dw[160], du[160];
	fmt_event(&v->def, dv, sizeof(dv));
	switch (t->kind) {
	case HAZARD_READ_ONLY_WRITTEN: {
		const struct hz_member *w = &V->m[t->w];
		fmt_event(&w->def, dw, sizeof(dw));
		sb_printf(b, "read-only value %s (%s %s) shares its buffer with %s defined at %s, which writes it",
			  v->name, v->val->def->opcode == OP_CONSTANT ? "constant" : "entry parameter",
			  v->name, w->name, dw);
		return;
	}
	case HAZARD_READ_ONLY_OUTPUT:
		sb_printf(b, "read-only value %s (%s) is an entry output: the caller would get its buffer back",
			  v->name, v->val->def->opcode == OP_CONSTANT ? "constant" : "non-donated entry parameter");
		return;
	case HAZARD_OUTPUTS_NOT_DISTINCT: {
		int32_t i0[SHAPE_MAX_DEPTH + 1], i1[SHAPE_MAX_DEPTH + 1];
		const struct hlo_instruction *root = df->module->entry->root;
		int32_t n0 = shape_tree_index(dataflow_tree(df, root), v->root_sub[0], i0);
		int32_t n1 = shape_tree_index(dataflow_tree(df, root), v->root_sub[1], i1);
		sb_printf(b, "one buffer (holding %s) appears at two entry outputs {", v->name);
		for (int32_t i = 0; i < n0; i++)
			sb_printf(b, "%s%d", i ? "," : "", i0[i]);
		sb_printf(b, "} and {");
		for (int32_t i = 0; i < n1; i++)
			sb_printf(b, "%s%d", i ? "," : "", i1[i]);
		sb_printf(b, "}");
		return;
	}
	default:
		break;
	}
	const struct hz_member *w = &V->m[t->w];
	const struct hz_read *r = &V->r[t->r];
	fmt_event(&w->def, dw, sizeof(dw));
	fmt_event(&r->ev, du, sizeof(du));
	if (t->kind == HAZARD_SAME_TIME) {
		sb_printf(b, "%s and %s are defined into one buffer at once (at %s) and %s is read later at %s",
			  v->name, w->name, dv, v->name, du);
	} else if (t->kind == HAZARD_SAME_INSTRUCTION) {
		sb_printf(b, "%s reads %s (defined at %s) and writes %s into the same buffer, and may not reuse that operand's buffer for its output",
			  r->instr->name, v->name, dv, w->name);
	} else {
		sb_printf(b, "%s (defined at %s) overwrites %s (defined at %s) before the read at %s",
			  w->name, dw, v->name, dv, du);
		if (t->n == 0 && t->why)
			sb_printf(b, "; %s %s", t->why, instr_or(t->why_at, ""));
		if (t->n) {
			sb_printf(b, "; order");
			for (int32_t i = 0; i < t->n; i++)
				sb_printf(b, "%s %s < %s in %s", i ? "," : "", tatoms(V, t)[i].a->name,
					  tatoms(V, t)[i].b->name, tatoms(V, t)[i].a->parent->name);
		}
	}
}

static void sample_proof(struct view *V, const struct hz_false *s, struct sbuf *b)
{
	const struct hz_member *v = &V->m[s->v], *w = &V->m[s->w];
	const struct hz_read *r = &V->r[s->r];
	char du[160], path[4096];
	fmt_event(&r->ev, du, sizeof(du));
	sb_printf(b, "  %s vs the read of %s at %s: ", w->name, v->name, du);
	switch (s->why_kind) {
	case 0:
		sb_printf(b, "%s%s%s", s->c.why ? s->c.why : "impossible",
			  s->c.why_at ? " at " : "", s->c.why_at ? s->c.why_at->name : "");
		break;
	case 1: {
		const struct atom *a = &s->c.a[s->atom];
		sb_printf(b, "%s must run before %s: %s", a->b->name, a->a->name,
			  dependency_path(&V->dv, a->b, a->a, path, sizeof(path)));
		break;
	}
	case 2: {
		char rw[256], rr[256], bw[64], br[64];
		const struct region *rg = rregion(V, r);
		const struct region *wr = member_wr(V, s->w);
		if (region_same_view(wr, rg)) {
			sb_printf(b, "disjoint regions: %s writes %s, the read covers %s", w->name,
				  region_format(wr, rw, sizeof(rw)), region_format(rg, rr, sizeof(rr)));
			break;
		}
		/* two views of the buffer (a bitcast between): compared in memory */
		sb_printf(b, "disjoint regions: %s writes %s (%s), the read covers %s (%s) of another view",
			  w->name, region_format(wr, rw, sizeof(rw)),
			  region_format_bytes(wr, bw, sizeof(bw)), region_format(rg, rr, sizeof(rr)),
			  region_format_bytes(rg, br, sizeof(br)));
		break;
	}
	case 3:
		sb_printf(b, "%s may reuse that operand's buffer for its output", r->instr->name);
		break;
	default:
		sb_printf(b, "the orders");
		for (int32_t i = 0; i < s->c.n; i++)
			sb_printf(b, "%s %s < %s", i ? "," : "", s->c.a[i].a->name, s->c.a[i].b->name);
		sb_printf(b, " cannot hold together with the dependencies");
		break;
	}
	sb_printf(b, "\n");
}

/* The control-flow instruction (while or conditional) x runs under, if any. */
static const struct hlo_instruction *enclosing(const struct hlo_instruction *x, enum opcode op)
{
	const struct hlo_computation *k = x->parent;
	for (int32_t g = 0; !k->is_entry && k->n_callers > 0 && g <= k->module->n_comps; g++) {
		const struct hlo_instruction *c = k->callers[0].instr;
		if (c->opcode == op)
			return c;
		k = c->parent;
	}
	return NULL;
}

static int member_is(const struct hz_member *m, enum opcode op)
{
	const struct hlo_value *x = m->val;
	if (x->is_phi && x->def->opcode == op)
		return 1;
	if (op == OP_WHILE && x->is_phi && x->def->opcode == OP_PARAMETER)
		return 1;
	return enclosing(x->def, op) != NULL;
}

/* The family of the copy XLA would insert for a hazard: what the values and
 * the read have to do with loops, branches, in-place ops and donation. */
static enum copy_family triple_family(struct view *V, const struct hz_triple *t)
{
	const struct hz_member *v = &V->m[t->v];
	if (t->kind == HAZARD_READ_ONLY_OUTPUT || t->kind == HAZARD_OUTPUTS_NOT_DISTINCT)
		return FAMILY_OUTPUT;
	const struct hz_member *w = t->w >= 0 ? &V->m[t->w] : NULL;
	if (t->kind == HAZARD_READ_ONLY_WRITTEN) {
		/* the read-only value shares a buffer with the others: why */
		for (int32_t i = 0; i < V->n_m; i++)
			if (!V->m[i].excluded && member_is(&V->m[i], OP_WHILE))
				return FAMILY_LOOP_CARRY;
		for (int32_t i = 0; i < V->n_m; i++)
			if (!V->m[i].excluded && member_is(&V->m[i], OP_CONDITIONAL))
				return FAMILY_BRANCH;
		for (int32_t i = 0; i < V->n_m; i++) {
			const struct inplace_pair *pr;
			if (!V->m[i].excluded && inplace_pairs(V->an->ip, V->m[i].val->def, &pr) > 0)
				return FAMILY_IN_PLACE;
		}
		return FAMILY_OUTPUT;
	}
	const struct hz_read *r = t->r >= 0 ? &V->r[t->r] : NULL;
	int read_at_loop = r && ((r->ev.phase == EV_KEND && !r->ev.k->is_entry) ||
				 (r->instr && (r->instr->opcode == OP_WHILE ||
					       enclosing(r->instr, OP_WHILE))));
	if (member_is(v, OP_WHILE) || (w && member_is(w, OP_WHILE)) || read_at_loop)
		return FAMILY_LOOP_CARRY;
	if (member_is(v, OP_CONDITIONAL) || (w && member_is(w, OP_CONDITIONAL)) ||
	    (r && r->instr && r->instr->opcode == OP_CONDITIONAL))
		return FAMILY_BRANCH;
	if (w) {
		const struct inplace_pair *pr;
		if (inplace_pairs(V->an->ip, w->val->def, &pr) > 0)
			return FAMILY_IN_PLACE;
	}
	if (is_entry_param(v->val->def) && !V->an->bufs->value_read_only[v->id])
		return FAMILY_DONATION;
	return FAMILY_UNEXPLAINED;
}

static void cross_fail(struct view *V, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cross_fail(struct view *V, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hloproof: cross-check failed (%s): ", V->in->label ? V->in->label : "buffer");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	V->an->cross_check_failed = 1;
}

/* Run Z3 on everything the graph decided and compare. */
static void cross_check(struct view *V, const struct buffer_verdict *bv, const struct atom *edges,
			int32_t n_edges)
{
	struct analysis *an = V->an;
	/* nothing ordered to compare: both deciders agree trivially */
	int32_t n_atoms = 0;
	for (int32_t i = 0; i < V->n_t; i++)
		n_atoms += V->t[i].r >= 0 && V->t[i].ckind == COND_ATOMS;
	if (n_atoms == 0)
		return;
	struct smt *s = analysis_smt(an);
	struct smt_problem *p = smt_problem_new(s, &V->dv, V->in->label ? V->in->label : "buffer");
	int32_t *idx = xmalloc(((size_t)V->n_t + 1), sizeof(int32_t));
	int32_t n = 0;
	for (int32_t i = 0; i < V->n_t; i++) {
		struct hz_triple *t = &V->t[i];
		if (t->r < 0 || t->ckind != COND_ATOMS)
			continue;
		idx[n++] = i;
		smt_add_triple(p, tatoms(V, t), t->n);
	}
	const char *why = NULL;
	int32_t limit = n < 64 ? n : 64;
	for (int32_t j = 0; j < limit; j++) {
		struct hz_triple *t = &V->t[idx[j]];
		enum smt_answer a = smt_check_triple(p, j, &why);
		if (a != SMT_UNKNOWN && (a == SMT_SAT) != (t->possible != 0))
			cross_fail(V, "triple possible: graph %s, z3 %s", t->possible ? "yes" : "no",
				   smt_answer_name(a));
		a = smt_check_not_triple(p, j, &why);
		if (a != SMT_UNKNOWN && (a == SMT_UNSAT) != (t->forced != 0))
			cross_fail(V, "triple forced: graph %s, z3 avoid %s", t->forced ? "yes" : "no",
				   smt_answer_name(a));
	}
	int has_static = 0;
	for (int32_t i = 0; i < V->n_t; i++)
		has_static |= V->t[i].r < 0;
	if (!has_static && V->n_unknown == 0) {
		enum smt_answer a = smt_check_none(p, &why);
		if (a != SMT_UNKNOWN) {
			int graph_sat = bv->any != VERDICT_UNSAFE;
			if ((a == SMT_SAT) != graph_sat)
				cross_fail(V, "hazard-free schedule exists: graph %s, z3 %s",
					   graph_sat ? "yes" : "no", smt_answer_name(a));
		}
		a = smt_check_some(p, &why);
		if (a != SMT_UNKNOWN) {
			int graph_some = bv->any != VERDICT_SAFE;
			if ((a == SMT_SAT) != graph_some)
				cross_fail(V, "some hazard possible: graph %s, z3 %s", graph_some ? "yes" : "no",
					   smt_answer_name(a));
		}
	}
	smt_problem_free(p);
	if (n_edges > 0 && n > 0) {
		p = smt_problem_new(s, &V->dv, V->in->label ? V->in->label : "buffer");
		for (int32_t j = 0; j < n; j++)
			smt_add_triple(p, tatoms(V, &V->t[idx[j]]), V->t[idx[j]].n);
		for (int32_t j = 0; j < n_edges; j++)
			smt_add_edge(p, edges[j].a, edges[j].b);
		enum smt_answer a = smt_check_some(p, &why);
		if (a == SMT_SAT)
			cross_fail(V, "repair edge(s) from %s -> %s on leave a hazardous schedule",
				   edges[0].a->name, edges[0].b->name);
		smt_problem_free(p);
	}
	free(idx);
}

/* Some triple is possible, none is forced and no single edge rules them all
 * out: is there a schedule with none of them? The graph decides what it can
 * (none_by_graph), Z3 the open rest. Sets the verdict, evidence and edges. */
/* Room for one more repair edge in *edges (grown by doubling). */
static void edges_reserve(struct atom **edges, int32_t n, int32_t *cap)
{
	if (n < *cap)
		return;
	*cap = (int32_t)grown_cap((size_t)*cap, (size_t)n + 1, 64);
	*edges = xrealloc(*edges, (size_t)*cap, sizeof(**edges));
}

static void decide_none(struct view *V, int32_t n_possible, int32_t first_possible,
			struct sbuf *ev, struct atom **edges, int32_t *n_edges, int32_t *cap_edges,
			struct atom *edge, int *have_edge, const char **unknown_reason)
{
	struct analysis *an = V->an;
	struct buffer_verdict *bv = V->bv;
	int32_t *idx = xmalloc((size_t)n_possible + 1, sizeof(int32_t));
	int32_t *open = xmalloc((size_t)n_possible + 1, sizeof(int32_t));
	uint8_t *state = xmalloc((size_t)n_possible + 1, 1);
	int32_t n = 0;
	for (int32_t i = 0; i < V->n_t && n < n_possible; i++)
		if (V->t[i].possible)
			idx[n++] = i;
	struct hgraph G;
	memset(&G, 0, sizeof(G));
	G.dv = &V->dv;
	G.budget = NONE_MAX_PAIRS;
	int gave_up = 1;
	enum smt_answer a = SMT_UNKNOWN;
	if (!an->opt.smt_none)
		a = none_by_graph(V, &G, idx, n, state, open, &gave_up);
	if (gave_up)
		memset(state, TS_OPEN, (size_t)n);
	struct smt_problem *p = NULL;
	const char *why = NULL;
	if (a == SMT_UNKNOWN) {
		p = smt_problem_new(analysis_smt(an), &V->dv, V->in->label ? V->in->label : "buffer");
		if (!gave_up)
			smt_set_precedence(p, hg_prec_cb, &G);
		for (int32_t j = 0; j < n; j++)
			if (state[j] == TS_OPEN)
				smt_add_triple(p, tatoms(V, &V->t[idx[j]]), V->t[idx[j]].n);
		an->n_smt_queries++;
		V->sent_smt = 1;
		a = smt_check_none(p, &why);
	}
	char how[200];
	if (p)
		snprintf(how, sizeof(how), "z3: %s, query %s", a == SMT_UNSAT ? "unsat" : "sat",
			 smt_last_query_name(p));
	else
		snprintf(how, sizeof(how), "graph: %d ordering(s) forced by the hazards %s",
			 G.n_h, a == SMT_UNSAT ? "close a cycle" : "keep the dependencies acyclic");
	if (a == SMT_UNSAT) {
		bv->any = VERDICT_UNSAFE;
		sb_printf(ev, "every schedule has one of %d hazards (%s), e.g. ", n_possible, how);
		witness(V, &V->t[first_possible], ev);
		sb_printf(ev, "\n");
	} else if (a == SMT_SAT) {
		bv->any = VERDICT_SCHEDULE_DEPENDENT;
		sb_printf(ev, "hazard in some schedules, e.g. ");
		witness(V, &V->t[first_possible], ev);
		if (p)
			sb_printf(ev, "\nrepair (z3 model of query %s): control edges", smt_last_query_name(p));
		else
			sb_printf(ev, "\nrepair (%s): control edges", how);
		int32_t k = 0;
		/* every edge once, printed and kept: all of them are the repair
		 * (a view of K copies of one buffer needs about K; a loop body
		 * read by every layer, tens of thousands) */
		struct hgraph printed;
		memset(&printed, 0, sizeof(printed));
		for (int32_t j = 0; j < n; j++) {
			struct hz_triple *t = &V->t[idx[j]];
			for (int32_t i = 0; i < t->n; i++) {
				if (state[j] != TS_OPEN ? i != open[j]
							: smt_model_before(p, tatoms(V, t)[i].b, tatoms(V, t)[i].a) != 1)
					continue;
				struct atom e = {tatoms(V, t)[i].b, tatoms(V, t)[i].a};
				size_t before = printed.set.n;
				hg_add(&printed, e.a, e.b);
				if (printed.set.n == before)
					break; /* printed already */
				if (!*have_edge) {
					*edge = e;
					*have_edge = 1;
				}
				edges_reserve(edges, *n_edges, cap_edges);
				(*edges)[(*n_edges)++] = e;
				sb_printf(ev, "%s %s -> %s", k++ ? "," : "", e.a->name, e.b->name);
				break;
			}
		}
		hg_free(&printed);
		sb_printf(ev, "\n");
	} else {
		an->n_smt_unknown++;
		bv->any = VERDICT_UNKNOWN;
		*unknown_reason = arena_strdup(&an->m->arena, why ? why : "z3: unknown");
	}
	smt_problem_free(p);
	hg_free(&G);
	free(idx);
	free(open);
	free(state);
}

/* Writers that make others redundant, for a verdict (not for reports: those
 * list every hazard). When v, w' and w are defined at instructions D, W', W
 * of one computation with D before W' before W in every schedule, every
 * trace where w overwrites v before a read also has w' do so (W' runs in
 * the same run as W, after D's run or in it), unless w' misses the region
 * the read covers, or w is defined by the reading instruction itself (the
 * same-instruction case, decided on its own). So (v, w, read) happens only
 * when (v, w', read) does: avoiding the latter avoids the former, and the
 * former possible, given or forced makes the latter so. Dropping it changes
 * no verdict; it only bounds the triples of a long chain of in-place
 * updates (each writer dominates the later ones) by reads x writers instead
 * of reads x writers^2. */
#define DOMINANCE_MAX_MEMBERS 2048

struct dominance {
	int32_t n;
	uint8_t *dom; /* [w' * n + w]: W' before W; [n*n + v * n + w']: D before W' */
	/* the same as bitsets over w': pre_bits[v] (D before W'), dom_bits[w]
	 * (W' before W); words per row */
	uint64_t *pre_bits, *dom_bits;
	size_t words;
	/* skip_bits[v] over w: some W' (not v or w) with D_v before W' before
	 * W_w; a row is filled on its first use (skip_done[v]) and kept with the
	 * matrices, so the views sharing them (the copies of one buffer) fill
	 * it once, where each view scanned the bitset words for every (v, w)
	 * (bench/shapes.sh, 512 copies: 2.87 -> 2.64 s) */
	uint64_t *skip_bits;
	uint8_t *skip_done;
};

static void dominance_free(struct dominance *D)
{
	free(D->dom);
	free(D->pre_bits);
	free(D->skip_bits); /* and skip_done */
}

struct before;
static int before_known(const struct view *V, const struct before *B, int32_t w, int32_t v, int *prec);

/* The dominance matrices; B (or NULL): the before matrix of the same
 * members, whose pairs need not be asked again (must_precede, n^2 of them:
 * 8% of checking 1,024 copies of one buffer). */
static void dominance_build(struct view *V, struct dominance *D, int use, const struct before *Bf)
{
	D->n = 0;
	D->dom = NULL;
	D->pre_bits = D->dom_bits = NULL;
	D->skip_bits = NULL;
	D->skip_done = NULL;
	int32_t n = V->n_m;
	if (!use || n < 3 || n > DOMINANCE_MAX_MEMBERS)
		return;
	D->dom = xcalloc(2 * (size_t)n * (size_t)n + 1, 1);
	D->n = n;
	uint8_t *pre = D->dom + (size_t)n * (size_t)n;
	for (int32_t a = 0; a < n; a++) {
		const struct hz_member *A = &V->m[a];
		if (A->excluded)
			continue;
		int a_time0 = A->def.phase == EV_TIME0;
		int a_at = A->def.phase == EV_AT || A->def.phase == EV_END;
		if (!a_time0 && !a_at)
			continue;
		for (int32_t b = 0; b < n; b++) {
			const struct hz_member *B = &V->m[b];
			if (b == a || B->excluded || !(B->def.phase == EV_AT || B->def.phase == EV_END))
				continue;
			if (a_time0) {
				pre[(size_t)a * (size_t)n + (size_t)b] = 1; /* time 0: before everything */
				continue;
			}
			int prec;
			if (A->def.x->parent != B->def.x->parent ||
			    !(before_known(V, Bf, a, b, &prec) ? prec : must_precede(&V->dv, A->def.x, B->def.x)))
				continue;
			/* A's instruction ends before B's starts (its end, for a phi) */
			pre[(size_t)a * (size_t)n + (size_t)b] = 1;  /* D_a before W_b */
			D->dom[(size_t)a * (size_t)n + (size_t)b] = 1; /* W_a before W_b */
		}
	}
	D->words = ((size_t)n + 63) / 64;
	D->pre_bits = xcalloc(2 * (size_t)n * D->words + 1, sizeof(uint64_t));
	D->dom_bits = D->pre_bits + (size_t)n * D->words;
	for (size_t x = 0; x < (size_t)n; x++)
		for (size_t y = 0; y < (size_t)n; y++) {
			if (pre[x * (size_t)n + y])
				D->pre_bits[x * D->words + y / 64] |= 1ull << (y % 64);
			if (D->dom[y * (size_t)n + x]) /* y before x */
				D->dom_bits[x * D->words + y / 64] |= 1ull << (y % 64);
		}
}

/* Word k of the members W' (not v or w) with D_v before W' before W_w. */
static inline uint64_t between_word(const struct dominance *D, int32_t vi, int32_t wi, size_t k)
{
	uint64_t both = D->pre_bits[(size_t)vi * D->words + k] & D->dom_bits[(size_t)wi * D->words + k];
	if (k == (size_t)vi / 64)
		both &= ~(1ull << (vi % 64));
	if (k == (size_t)wi / 64)
		both &= ~(1ull << (wi % 64));
	return both;
}

/* Row v of skip_bits (struct dominance), filled on first use. */
static const uint64_t *skip_row(struct dominance *D, int32_t vi)
{
	size_t n = (size_t)D->n;
	if (!D->skip_bits) {
		D->skip_bits = xcalloc(n * D->words * sizeof(uint64_t) + n + 1, 1);
		D->skip_done = (uint8_t *)(D->skip_bits + n * D->words);
	}
	uint64_t *row = D->skip_bits + (size_t)vi * D->words;
	if (!D->skip_done[vi]) {
		for (size_t wi = 0; wi < n; wi++)
			for (size_t k = 0; k < D->words; k++)
				if (between_word(D, vi, (int32_t)wi, k)) {
					row[wi / 64] |= 1ull << (wi % 64);
					break;
				}
		D->skip_done[vi] = 1;
	}
	return row;
}

static int dominated(struct view *V, struct dominance *D, int32_t vi, int32_t wi, int32_t ri)
{
	if (!D->dom)
		return 0;
	const struct hz_read *r = &V->r[ri];
	const struct hz_member *w = &V->m[wi];
	if (!(w->def.phase == EV_AT || w->def.phase == EV_END) ||
	    (r->instr && event_equal(&w->def, &r->ev)) || !(skip_row(D, vi)[wi / 64] >> (wi % 64) & 1))
		return 0;
	/* some W_j (not v or w) with D_v before W_j before W_w, writing where
	 * the read reads: the candidates a word at a time */
	const struct region *rg = rregion(V, r);
	for (size_t k = 0; k < D->words; k++)
		for (uint64_t both = between_word(D, vi, wi, k); both; both &= both - 1)
			if (region_overlap(member_wr(V, (int32_t)(k * 64 + (size_t)__builtin_ctzll(both))), rg))
				return 1;
	return 0;
}

/* Writers that run before a value exists, in the same run: w and v defined
 * at (or at the end of) instructions W and D of one computation K, W before
 * D in every schedule; a read of v in the run of K that defined it (at an
 * instruction of K, inside one, or at K's end) cannot see w written between.
 * Once the proof's samples are full, such a triple is only counted, as
 * decide_triple would count it, without tracing it. */
#define BEFORE_MAX_MEMBERS 2048

struct before {
	int32_t n;
	uint8_t *wb; /* [w * n + v]: W before D, same computation and call chain */
};

static int def_at_instr(const struct hz_member *m)
{
	return (m->def.phase == EV_AT || m->def.phase == EV_END) && m->def.x && m->path->ok &&
	       !m->path->never && m->path->n > 0;
}

static int same_prefix(const struct path *a, const struct path *b, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		if (a->l[i].k != b->l[i].k || a->l[i].x != b->l[i].x || a->l[i].phase != b->l[i].phase)
			return 0;
	return 1;
}

/* A pair the before matrix holds: W (member w) and D (member v) defined at
 * instructions of one computation, in the same call chain. */
static int before_pair(const struct view *V, int32_t w, int32_t v)
{
	const struct hz_member *W = &V->m[w], *D = &V->m[v];
	return v != w && !W->excluded && !D->excluded && def_at_instr(W) && def_at_instr(D) &&
	       D->def.x->parent == W->def.x->parent && D->path->n == W->path->n &&
	       same_prefix(D->path, W->path, D->path->n - 1);
}

/* Is W (member w) before D (member v) by B? 1 with *prec its answer
 * (must_precede's), 0 when B does not hold the pair. */
static int before_known(const struct view *V, const struct before *B, int32_t w, int32_t v, int *prec)
{
	if (!B || !B->wb || B->n != V->n_m || !before_pair(V, w, v))
		return 0;
	*prec = B->wb[(size_t)w * (size_t)B->n + (size_t)v];
	return 1;
}

static void before_build(struct view *V, struct before *B)
{
	B->n = 0;
	B->wb = NULL;
	int32_t n = V->n_m;
	if (n < 2 || n > BEFORE_MAX_MEMBERS)
		return;
	B->wb = xcalloc((size_t)n * (size_t)n + 1, 1);
	B->n = n;
	for (int32_t w = 0; w < n; w++) {
		const struct hz_member *W = &V->m[w];
		if (W->excluded || !def_at_instr(W))
			continue;
		for (int32_t v = 0; v < n; v++)
			if (before_pair(V, w, v) && must_precede(&V->dv, W->def.x, V->m[v].def.x))
				B->wb[(size_t)w * (size_t)n + (size_t)v] = 1;
	}
}

/* The read happens in the run of v's computation that defined v. */
static int read_in_def_run(const struct hz_member *v, const struct path *rp)
{
	int32_t L = v->path->n - 1;
	return def_at_instr(v) && rp->ok && !rp->never && rp->n > L &&
	       rp->l[L].k == v->path->l[L].k && same_prefix(v->path, rp, L);
}

static int counted_false(struct view *V, const struct before *B, int32_t vi, int32_t wi, int32_t ri,
			 int same_run)
{
	if (!same_run || !B->wb || !samples_full(V) ||
	    !B->wb[(size_t)wi * (size_t)B->n + (size_t)vi])
		return 0;
	const struct hz_member *w = &V->m[wi];
	const struct hz_read *r = &V->r[ri];
	if (r->instr && event_equal(&w->def, &r->ev))
		return 0; /* the same-instruction case is decided on its own */
	V->n_false++; /* disjoint or not, ruled out: the proof counts them together */
	return 1;
}

/* The deepest instruction both v's definition and this read of it run
 * inside (a while, conditional or call of one computation): its level in
 * their paths, or -1. One execution of it holds both (a value is read in
 * the run that defines it; the next iteration reads a phi), so a writer
 * whose path does not go into the same instruction is written before the
 * definition or after the read: no hazard ("the definition and the read run
 * inside one instruction the write is outside of"). */
static int32_t shared_inside_level(const struct hz_member *v, const struct path *rp)
{
	if (!v->path->ok || v->path->never || !rp->ok || rp->never)
		return -1;
	int32_t L = -1;
	for (int32_t i = 0; i < v->path->n && i < rp->n; i++) {
		const struct path_level *a = &v->path->l[i], *b = &rp->l[i];
		if (a->k != b->k || a->x != b->x || a->phase != b->phase)
			break;
		if (a->phase == EV_INSIDE)
			L = i;
	}
	return L;
}

static int counted_outside(struct view *V, int32_t wi, int32_t ri, int32_t vi, int32_t L)
{
	if (L < 0 || !samples_full(V))
		return 0;
	const struct hz_member *w = &V->m[wi], *v = &V->m[vi];
	const struct hz_read *r = &V->r[ri];
	if (!w->path->ok || w->path->never || (r->instr && event_equal(&w->def, &r->ev)))
		return 0;
	if (w->path->n > L && same_prefix(w->path, v->path, L + 1))
		return 0; /* w runs inside too: trace it */
	V->n_false++; /* disjoint or not, ruled out: the proof counts them together */
	return 1;
}

/* One read of v against every writer: skipped when dominated, counted when
 * structure rules it out, traced otherwise. */
static void decide_read_each_writer(struct view *V, struct dominance *D, const struct before *B,
				    int32_t vi, int32_t ri, int32_t L, int same_run, int stop_early)
{
	for (int32_t wi = 0; wi < V->n_m && !(stop_early && V->forced_found); wi++)
		if (wi != vi && !V->m[wi].excluded && !dominated(V, D, vi, wi, ri) &&
		    !counted_outside(V, wi, ri, vi, L) && !counted_false(V, B, vi, wi, ri, same_run))
			decide_triple(V, vi, wi, ri);
}

/* Once the proof's samples are full, a whole-buffer read of v sees each
 * writer in one of three ways that depend on v, the read's inside level and
 * whether it is in v's defining run, not on the read itself: dominated
 * (skipped), counted as ruled out (outside, or before the definition), or
 * traced. The one exception is a writer defined at the reading instruction,
 * which every check leaves to decide_triple. So the classes are computed
 * once per (v, level, same run) and a read costs its traced writers, not
 * every writer: a buffer carried through many loops has reads x values
 * triples, nearly all outside. Same calls, same order, same counts as the
 * loop over every writer. */
enum { WC_TRACE, WC_SKIP, WC_COUNT };

/* The classes of each member's writers, kept with the member matrices
 * (struct member_mats) for the views that share them: a class depends on
 * the shared dominance and before matrices, the members' paths and the
 * read's level and run, none of which a removed copy changes, so the k
 * views of one buffer's k copies compute each member's classes once, not
 * once per view (n_m writers per member per view: k^3 in all). One key per
 * member is kept, the first one asked; another key is computed as before. */
struct wc_cache {
	int32_t n;
	uint8_t *have;          /* [v]: row v kept */
	int32_t *level;         /* [v]: the key of row v */
	uint8_t *same_run;
	int32_t *n_trace, *n_count;
	int32_t **trace;        /* [v]: the traced writers, in index order */
	/* the members' chains by defining instruction (writer_classes_chains) */
	int have_head;
	struct htab head;
	int32_t *next;
};

static void wc_cache_free(struct wc_cache *C)
{
	if (C->trace)
		for (int32_t v = 0; v < C->n; v++)
			free(C->trace[v]);
	free(C->have);  /* and same_run */
	free(C->level); /* and n_trace, n_count */
	free(C->trace);
	if (C->have_head) {
		htab_free(&C->head);
		free(C->next);
	}
	memset(C, 0, sizeof(*C));
}

struct writer_classes {
	int32_t vi, level, same_run; /* the key of trace; vi = -1: none yet */
	int32_t *trace, n_trace, n_count;
	const int32_t *use_trace; /* trace, or the kept row of cache */
	struct wc_cache *cache;   /* NULL: this view's own classes only */
	/* members by defining instruction: head (instruction -> first member)
	 * and next[] chains, each in index order */
	const struct htab *head;
	const int32_t *next;
	int have_head;      /* head and next made (writer_classes_chains) */
	int own_head_made;  /* ... as own_head and own_next, not the cache's */
	struct htab own_head;
	int32_t *own_next;
};

static int32_t wc_first(const struct writer_classes *WC, const struct hlo_instruction *x)
{
	const uint64_t *h = htab_get(WC->head, (uint64_t)(uintptr_t)x);
	return h ? (int32_t)*h : -1;
}

static void writer_classes_init(struct view *V, struct writer_classes *WC)
{
	memset(WC, 0, sizeof(*WC));
	WC->vi = -1;
	/* one block (a malloc per view is a lock taken under --jobs) */
	size_t m = (size_t)V->n_m + 1;
	int32_t *block = xmalloc(2 * m, sizeof(int32_t));
	WC->trace = block;
	WC->own_next = block + m;
}

/* The members by defining instruction: head (instruction -> first member)
 * and next[] chains, each in index order. */
static void chains_build(const struct view *V, struct htab *head, int32_t *next)
{
	htab_init(head, (size_t)V->n_m);
	/* pushed in reverse so that each chain lists members in index order */
	for (int32_t i = V->n_m - 1; i >= 0; i--) {
		int added;
		uint64_t *h = htab_put(head, (uint64_t)(uintptr_t)V->m[i].def.x, &added);
		next[i] = added ? -1 : (int32_t)*h;
		*h = (uint64_t)i;
	}
}

/* head and next, on the first read decided by class; kept with the member
 * matrices when the view shares them (the same members, the same chains:
 * 1,024 copies of one buffer built them twice each) */
static void writer_classes_chains(struct view *V, struct writer_classes *WC)
{
	if (WC->have_head)
		return;
	WC->have_head = 1;
	struct wc_cache *C = WC->cache;
	if (C) {
		if (!C->have_head) {
			C->next = xmalloc((size_t)V->n_m + 1, sizeof(int32_t));
			chains_build(V, &C->head, C->next);
			C->have_head = 1;
		}
		WC->head = &C->head;
		WC->next = C->next;
		return;
	}
	chains_build(V, &WC->own_head, WC->own_next);
	WC->own_head_made = 1;
	WC->head = &WC->own_head;
	WC->next = WC->own_next;
}

static void writer_classes_free(struct writer_classes *WC)
{
	free(WC->trace); /* the block */
	if (WC->own_head_made)
		htab_free(&WC->own_head);
}

/* dominated(), counted_outside() and counted_false() for a whole-buffer read
 * whose instruction defines none of the writers (region_overlap is then 1) */
static uint8_t writer_class(struct view *V, struct dominance *D, const struct before *B,
			    int32_t vi, int32_t wi, int32_t L, int same_run)
{
	const struct hz_member *w = &V->m[wi], *v = &V->m[vi];
	/* some W' (not v or w) with D_v before W' before W */
	if (D->dom && (w->def.phase == EV_AT || w->def.phase == EV_END) &&
	    (skip_row(D, vi)[wi / 64] >> (wi % 64) & 1))
		return WC_SKIP;
	if (L >= 0 && w->path->ok && !w->path->never &&
	    !(w->path->n > L && same_prefix(w->path, v->path, L + 1)))
		return WC_COUNT;
	if (same_run && B->wb && B->wb[(size_t)wi * (size_t)B->n + (size_t)vi])
		return WC_COUNT;
	return WC_TRACE;
}

/* A read of the entry computation's own level, in a view of the module as
 * given (no removal, whose dropped copy the closure would have to bypass)
 * that keeps no triple this order rules out: the writers defined at the
 * same level that its instruction reaches (users and control successors,
 * closed; nothing leaves the root, as in must_precede's view) run after
 * the read in every schedule, so their triples are ruled out (the atom "w
 * before the read" of cond_overwrite fails) without tracing them. A chain
 * of 1,024 in-place updates read 2,049 times traced each read's later
 * writers one must_precede at a time: 1.2 G instructions of the buffer's
 * 1.7 G. The closure is one pass over the entry per decision, a bitset of
 * writers per instruction, within a budget of words. */
#define READ_REACH_MIN_TRACED 32
#define READ_REACH_MAX_WORDS ((size_t)1 << 22) /* 32 MiB */

/* Successor i of x: its users, then its control successors. */
static const struct hlo_instruction *successor(const struct hlo_instruction *x, int32_t i)
{
	return i < x->n_users ? x->users[i] : x->ext->ctrl_succs[i - x->n_users];
}

static int rb_own(const struct view *V, int32_t wi, const struct hlo_computation *k)
{
	const struct hz_member *w = &V->m[wi];
	return !w->excluded && w->def.phase == EV_AT && w->def.x && w->def.x->parent == k && w->path->ok &&
	       w->path->n == 1;
}

static int rb_make(struct view *V, const struct hlo_computation *k)
{
	size_t words = ((size_t)V->n_m + 63) / 64, n = (size_t)k->n_instrs;
	if (n == 0 || n * words > READ_REACH_MAX_WORDS)
		return 0;
	uint64_t *bits = xcalloc(n * words + words, sizeof(uint64_t));
	for (int32_t wi = 0; wi < V->n_m; wi++)
		if (rb_own(V, wi, k))
			bits[(size_t)V->m[wi].def.x->index * words + (size_t)wi / 64] |= 1ull << (wi % 64);
	/* post-order over successors: a row is final once all of its
	 * successors' are (done[]); an explicit stack of (instruction, next
	 * successor) */
	uint8_t *done = xcalloc(n + 1, 1);
	int32_t *st_x = xmalloc(2 * (n + 1), sizeof(int32_t)), *st_i = st_x + n + 1;
	for (size_t s0 = 0; s0 < n; s0++) {
		if (done[s0])
			continue;
		int32_t top = 0;
		st_x[top] = (int32_t)s0;
		st_i[top] = 0;
		done[s0] = 1; /* on the stack */
		while (top >= 0) {
			const struct hlo_instruction *x = k->instrs[st_x[top]];
			int32_t nu = x == k->root ? 0 : x->n_users, nc = x == k->root ? 0 : x->ext->n_ctrl_succs;
			if (st_i[top] < nu + nc) {
				const struct hlo_instruction *y = successor(x, st_i[top]);
				st_i[top]++;
				if (y->parent == k && !done[y->index]) {
					done[y->index] = 1;
					top++;
					st_x[top] = y->index;
					st_i[top] = 0;
				}
				continue;
			}
			/* all successors final: their rows into x's */
			uint64_t *row = bits + (size_t)x->index * words;
			for (int32_t i = 0; i < nu + nc; i++) {
				const struct hlo_instruction *y = successor(x, i);
				if (y->parent != k)
					continue;
				const uint64_t *yr = bits + (size_t)y->index * words;
				for (size_t w = 0; w < words; w++)
					row[w] |= yr[w];
			}
			done[x->index] = 2;
			top--;
		}
	}
	free(done);
	free(st_x);
	V->rb_bits = bits;
	V->rb_words = words;
	V->rb_row = xmalloc(words + 1, sizeof(uint64_t));
	return 1;
}

/* Marks in V->rb_row the writers read r runs before; 0 when this cannot
 * tell (read_reached then says nothing). */
static int read_reaches(struct view *V, const struct hz_read *r)
{
	const struct hlo_instruction *x = r->instr;
	if (!x || V->in->copy || V->in->keep_all || !x->parent->is_entry || r->ev.phase != EV_AT ||
	    !rpath(V, r)->ok || rpath(V, r)->n != 1 || x == x->parent->root)
		return 0;
	const struct hlo_computation *k = x->parent;
	if (V->rb_state == 0)
		V->rb_state = rb_make(V, k) ? 1 : -1;
	if (V->rb_state < 0)
		return 0;
	size_t words = V->rb_words;
	memset(V->rb_row, 0, words * sizeof(uint64_t));
	for (int32_t i = 0; i < x->n_users + x->ext->n_ctrl_succs; i++) {
		const struct hlo_instruction *y = successor(x, i);
		if (y->parent != k)
			continue;
		const uint64_t *yr = V->rb_bits + (size_t)y->index * words;
		for (size_t w = 0; w < words; w++)
			V->rb_row[w] |= yr[w];
	}
	return 1;
}

/* Writer wi runs after the read read_reaches marked. */
static int read_reached(const struct view *V, int32_t wi)
{
	return V->rb_row[(size_t)wi / 64] >> (wi % 64) & 1;
}

static void decide_read_by_class(struct view *V, struct dominance *D, const struct before *B,
				 struct writer_classes *WC, int32_t vi, int32_t ri, int32_t L,
				 int same_run, int stop_early)
{
	writer_classes_chains(V, WC);
	if (WC->vi != vi || WC->level != L || WC->same_run != same_run) {
		WC->vi = vi;
		WC->level = L;
		WC->same_run = same_run;
		WC->n_trace = WC->n_count = 0;
		WC->use_trace = WC->trace;
		struct wc_cache *C = WC->cache;
		if (C && C->have[vi] && C->level[vi] == L && C->same_run[vi] == (uint8_t)same_run) {
			WC->use_trace = C->trace[vi];
			WC->n_trace = C->n_trace[vi];
			WC->n_count = C->n_count[vi];
		} else {
			for (int32_t wi = 0; wi < V->n_m; wi++) {
				uint8_t c = WC_SKIP;
				if (wi != vi && !V->m[wi].excluded)
					c = writer_class(V, D, B, vi, wi, L, same_run);
				if (c == WC_TRACE)
					WC->trace[WC->n_trace++] = wi;
				else if (c == WC_COUNT)
					WC->n_count++;
			}
			if (C && !C->have[vi]) {
				C->have[vi] = 1;
				C->level[vi] = L;
				C->same_run[vi] = (uint8_t)same_run;
				C->n_trace[vi] = WC->n_trace;
				C->n_count[vi] = WC->n_count;
				C->trace[vi] = xmalloc((size_t)WC->n_trace + 1, sizeof(int32_t));
				memcpy(C->trace[vi], WC->trace, (size_t)WC->n_trace * sizeof(int32_t));
			}
		}
	}
	const struct hz_read *r = &V->r[ri];
	/* writers defined at the reading instruction: always traced */
	int32_t at[8], n_at = 0, n_at_counted = 0;
	if (r->instr) {
		for (int32_t wi = wc_first(WC, r->ev.x); wi >= 0; wi = WC->next[wi]) {
			if (wi == vi || V->m[wi].excluded || !event_equal(&V->m[wi].def, &r->ev))
				continue;
			if (n_at == 8) { /* not expected: every writer, one by one */
				decide_read_each_writer(V, D, B, vi, ri, L, same_run, stop_early);
				return;
			}
			at[n_at++] = wi;
			/* wi != vi and not excluded: its class as computed above */
			n_at_counted += writer_class(V, D, B, vi, wi, L, same_run) == WC_COUNT;
		}
	}
	V->n_false += WC->n_count - n_at_counted;
	int32_t min_traced = V->an->opt.read_reach_min_traced > 0 ? V->an->opt.read_reach_min_traced
								   : READ_REACH_MIN_TRACED;
	int after = WC->n_trace >= min_traced && read_reaches(V, r);
	int32_t i = 0, j = 0;
	const int32_t *trace = WC->use_trace;
	while ((i < WC->n_trace || j < n_at) && !(stop_early && V->forced_found)) {
		int32_t wi;
		if (j >= n_at || (i < WC->n_trace && trace[i] < at[j]))
			wi = trace[i++];
		else if (i < WC->n_trace && trace[i] == at[j])
			wi = trace[i++], j++;
		else
			wi = at[j++];
		if (after && read_reached(V, wi)) {
			V->n_false++; /* as decide_triple would count it: ruled out */
			continue;
		}
		decide_triple(V, vi, wi, ri);
	}
}

/* The member matrices (dominance, before) of a view depend on its members
 * and on must_precede between their definitions, nothing else. A removed
 * copy that is not its computation's root, has no control edges and
 * defines no member leaves must_precede between other instructions as it
 * is (a path through the copy runs through its operand, which the view
 * joins to the copy's users), so every copy taken from one buffer shares
 * them with the others and with the buffer itself: built once, not once
 * per copy (K copies of one buffer were K views of K^2 must_precede
 * calls each: 512 copies took 8.8 s). */
#define MATS_MIN_MEMBERS 16

struct member_mats {
	int32_t n;
	int32_t *ids; /* the members, in view order */
	uint64_t hash, used;
	int have_D, have_B;
	struct dominance D;
	struct before B;
	/* the writer classes under D and B, for the views that use D of the
	 * analysis that built them (owner) or of one over the same values (a
	 * module with edges added, analysis.base): the classes depend on D, B
	 * and the members' paths only */
	const struct analysis *owner;
	struct wc_cache wc;
};

static void member_mats_free(struct member_mats *mm)
{
	if (!mm)
		return;
	free(mm->ids);
	dominance_free(&mm->D);
	free(mm->B.wb);
	wc_cache_free(&mm->wc);
	free(mm);
}

static int removal_keeps_order(const struct view *V)
{
	const struct hlo_instruction *c = V->dv.removed;
	if (!c)
		return 1;
	if (c == c->parent->root || c->ext->n_ctrl_preds > 0 || c->ext->n_ctrl_succs > 0)
		return 0;
	for (int32_t i = 0; i < V->n_m; i++)
		if (V->m[i].def.x == c)
			return 0;
	return 1;
}

/* The matrices of V's members in cache hc, or NULL. */
static struct member_mats *mats_find(struct hz_cache *hc, const struct view *V, uint64_t h)
{
	for (int k = 0; k < MATS_KEPT; k++) {
		struct member_mats *mm = hc->mats[k];
		if (!mm || mm->hash != h || mm->n != V->n_m)
			continue;
		int same = 1;
		for (int32_t i = 0; i < V->n_m && same; i++)
			same = mm->ids[i] == V->m[i].id;
		if (same)
			return mm;
	}
	return NULL;
}

/* The shared matrices of V's members (built on first use by the caller),
 * or NULL: V builds its own. With control edges added to the module
 * (an->base), the base's serve when built already: what they say (D before
 * W, W' before W) holds with more edges too, and a dominance they miss
 * only leaves a triple to be traced, which changes no verdict. They are
 * never built from here into the base (the edges' order is not its). */
static struct member_mats *view_mats(struct view *V, int prune)
{
	struct hz_cache *hc = V->an->cache;
	int32_t min = V->an->opt.shared_mats_min_members > 0 ? V->an->opt.shared_mats_min_members
							     : MATS_MIN_MEMBERS;
	if (V->n_m < min || !removal_keeps_order(V))
		return NULL;
	uint64_t h = (uint64_t)V->n_m;
	for (int32_t i = 0; i < V->n_m; i++)
		h = htab_mix(h ^ (uint64_t)(uint32_t)V->m[i].id);
	struct analysis *base = V->an->base;
	if (base && base->cache && !V->an->opt.cross_check) {
		struct member_mats *bm = mats_find(base->cache, V, h);
		if (bm && bm->have_B && (bm->have_D || !prune))
			return bm;
	}
	int victim = 0;
	for (int k = 0; k < MATS_KEPT; k++) {
		struct member_mats *mm = hc->mats[k];
		if (!mm) {
			victim = k;
			break;
		}
		if (mm->hash == h && mm->n == V->n_m) {
			int same = 1;
			for (int32_t i = 0; i < V->n_m && same; i++)
				same = mm->ids[i] == V->m[i].id;
			if (same) {
				mm->used = ++hc->mats_clock;
				return mm;
			}
		}
		if (hc->mats[victim] && mm->used < hc->mats[victim]->used)
			victim = k;
	}
	member_mats_free(hc->mats[victim]);
	struct member_mats *mm = xcalloc(1, sizeof(*mm));
	mm->ids = xmalloc((size_t)V->n_m, sizeof(int32_t));
	mm->n = V->n_m;
	for (int32_t i = 0; i < V->n_m; i++)
		mm->ids[i] = V->m[i].id;
	mm->hash = h;
	mm->owner = V->an;
	mm->used = ++hc->mats_clock;
	hc->mats[victim] = mm;
	return mm;
}

/* --cross-check: the shared matrices against the view's own */
static void cross_check_mats(struct view *V, const struct member_mats *mm, int use)
{
	struct dominance D;
	struct before B;
	dominance_build(V, &D, use, NULL);
	before_build(V, &B);
	size_t n = (size_t)V->n_m;
	int same = (!D.dom == !mm->D.dom || !use) && !B.wb == !mm->B.wb;
	if (same && use && D.dom)
		same = !memcmp(D.dom, mm->D.dom, 2 * n * n) &&
		       !memcmp(D.pre_bits, mm->D.pre_bits, 2 * n * D.words * sizeof(uint64_t));
	if (same && B.wb)
		same = !memcmp(B.wb, mm->B.wb, n * n);
	if (!same)
		cross_fail(V, "the member matrices shared with other views of these %d values differ from this view's own",
			   V->n_m);
	dominance_free(&D);
	free(B.wb);
}

/* The verdict of the view's triples V->t[0..n_t) (hazards.md 3-4): any,
 * given and the repair edges into bv, the evidence appended to ev, the
 * family the worst hazard predicts into *predicted. */
static void view_verdict(struct view *V, struct buffer_verdict *bv, struct sbuf *ev,
			 enum copy_family *predicted)
{
	struct analysis *an = V->an;
	struct arena *A = &an->m->arena;
	const struct hz_input *in = V->in;
	V->bv = bv;
	int scheduled = an->m->is_scheduled;
	int32_t forced = -1, given = -1, n_possible = 0, first_possible = -1;
	for (int32_t i = 0; i < V->n_t; i++) {
		struct hz_triple *t = &V->t[i];
		if (!t->possible)
			continue;
		n_possible++;
		if (first_possible < 0)
			first_possible = i;
		if (t->forced && forced < 0)
			forced = i;
		if (t->given && given < 0)
			given = i;
	}
	bv->n_hazards = n_possible;
	struct atom edge = {0, 0};
	int have_edge = 0;
	struct atom *edges = NULL;
	int32_t n_edges = 0, cap_edges = 0;
	const char *unknown_reason = NULL;
	if (forced >= 0) {
		bv->any = VERDICT_UNSAFE;
		sb_printf(ev, "hazard in every schedule: ");
		witness(V, &V->t[forced], ev);
		sb_printf(ev, "\n");
		for (int32_t i = 0; i < V->t[forced].n && !in->no_evidence; i++) {
			char path[4096];
			const struct atom *a = &tatoms(V, &V->t[forced])[i];
			sb_printf(ev, "  %s before %s: %s\n", a->a->name, a->b->name,
				  dependency_path(&V->dv, a->a, a->b, path, sizeof(path)));
		}
		*predicted = triple_family(V, &V->t[forced]);
	} else if (n_possible == 0 && V->n_unknown == 0) {
		bv->any = VERDICT_SAFE;
	} else if (V->n_unknown > 0) {
		bv->any = VERDICT_UNKNOWN;
		unknown_reason = V->unknown_why ? V->unknown_why : "unsupported construct";
	} else {
		*predicted = triple_family(V, &V->t[first_possible]);
		if (find_repair_edge(V, &edge)) {
			bv->any = VERDICT_SCHEDULE_DEPENDENT;
			have_edge = 1;
			edges_reserve(&edges, n_edges, &cap_edges);
			edges[n_edges++] = edge;
			sb_printf(ev, "hazard in some schedules, e.g. ");
			witness(V, &V->t[first_possible], ev);
			sb_printf(ev, "\nrepair: control edge %s -> %s (in %s) rules out all %d hazard(s)\n",
				  edge.a->name, edge.b->name, edge.a->parent->name, n_possible);
		} else {
			decide_none(V, n_possible, first_possible, ev, &edges, &n_edges, &cap_edges, &edge,
				    &have_edge, &unknown_reason);
		}
	}
	if (scheduled) {
		if (given >= 0)
			bv->given = VERDICT_UNSAFE;
		else if (V->n_unknown > 0)
			bv->given = VERDICT_UNKNOWN;
		else
			bv->given = VERDICT_SAFE;
		if (given >= 0 && (forced < 0 || given != forced)) {
			sb_printf(ev, "in the given schedule: ");
			witness(V, &V->t[given], ev);
			sb_printf(ev, "\n");
		}
	}
	if (!in->no_evidence && (bv->any == VERDICT_SAFE || (scheduled && bv->given == VERDICT_SAFE))) {
		int32_t n_ruled = V->n_false + V->n_disjoint;
		sb_printf(ev, "%s: %d conflicting (value, write, read) triple(s) ruled out%s\n",
			  bv->any == VERDICT_SAFE ? "proof" : "proof for the given schedule", n_ruled,
			  V->moved_only ? " at the reads the removal moves (the merged buffer's other "
					  "triples are the module as given's own)" : "");
		for (int32_t i = 0; i < V->n_samples; i++)
			sample_proof(V, &V->samples[i], ev);
		if (n_ruled > V->n_samples)
			sb_printf(ev, "  ... and %d more\n", n_ruled - V->n_samples);
		if (n_ruled == 0)
			sb_printf(ev, "  the buffer holds no other value that is written while one is read\n");
	}
	if (have_edge) {
		bv->edge_from = edge.a;
		bv->edge_to = edge.b;
		bv->n_edges = n_edges;
		bv->edges_from = arena_array(A, (size_t)n_edges + 1, sizeof(*bv->edges_from));
		bv->edges_to = arena_array(A, (size_t)n_edges + 1, sizeof(*bv->edges_to));
		for (int32_t i = 0; i < n_edges; i++) {
			bv->edges_from[i] = edges[i].a;
			bv->edges_to[i] = edges[i].b;
		}
	}
	if (unknown_reason) {
		bv->unknown_reason = arena_strdup(A, unknown_reason);
		sb_printf(ev, "unknown: %s\n", unknown_reason);
	}
	if (an->opt.cross_check)
		cross_check(V, bv, edges, n_edges);
	free(edges);
}

/* ---- a removal judged by the hazards it introduces (hazards.md 4) ----
 *
 * The view of a removal is the rewritten module. Each of its triples
 * (v, w, read) is a hazard of kind K on value v at that read; the module as
 * given has the same hazard in the same schedule and run when one of its
 * own triples on that key holds there (the writer is no part of the key).
 * The module as given's triples come from its two buffers that the removal
 * merges (the copy's and its operand's), decided once each (buffer_result,
 * keep_triples), translated into the view: its values (the copy's as its
 * operand's; a phi that collapses in the rewritten module has no identity
 * there), its reads (none at the removed copy), and its ordering atoms (the
 * removed copy runs right after its operand: "a before the copy" is "a is
 * the operand, or runs before it").
 *
 * A triple T of the view is then introduced in a schedule when its atoms
 * hold and, for each old triple O on its key that holds in every run where
 * T does once O's atoms hold (a "universal" O: its write happens exactly
 * once in the run that holds the definition and the read, or it is T's own
 * write), not all of O's atoms hold: T AND NOT O1 AND NOT O2 ..., which is a
 * disjunction of conjunctions of atoms (each NOT O reverses one atom), so
 * each becomes a triple of the usual kind and the deciders below run
 * unchanged. An old triple that is not universal (its write inside a loop or
 * branch the view's write is not in) may hold in some runs only: the
 * introduced hazards lie between "subtract the universal ones" (hi) and
 * "subtract all of them" (lo); when the two verdicts disagree, the verdict
 * is unknown with that reason. Same-time hazards are keyed by the pair of
 * values (and held by any read of v): an old pair covers when it is read
 * directly in the run that defines it, or at the view's read. Static ones
 * by value (read-only written), value and output leaf (read-only output),
 * two output leaves (outputs not distinct). */

#define OLD_IN_SOME_RUNS "the hazard the removal would bring may be in the module as given in some " \
	"runs of the same schedule only (written inside a loop or branch): not settled"

#define SFX_MAX 6

struct hz_trip {
	uint8_t kind;
	uint8_t universal;   /* see above; 1 for static ones */
	uint8_t unknown;     /* its condition is unknown: it may hold anywhere */
	uint8_t n;           /* atoms */
	uint8_t possible;    /* decided possible (record): its atoms hold together */
	/* an overwrite that is not universal: its write's path from the level
	 * where the definition and the read part (esc_level), when it is in
	 * the same run there and the rest is short (n_sfx > 0) */
	uint8_t esc_level, n_sfx;
	struct path_level sfx[SFX_MAX];
	int32_t v, w;        /* value ids; w = -1 for the static kinds without one */
	const struct hlo_instruction *read;      /* the reading instruction, or NULL */
	const struct hlo_computation *read_end;  /* ... the computation whose end reads */
	struct event wdef;   /* w's definition */
	const struct atom *a;
};

/* The possible triples of the view (a buffer of the module as given) into
 * out->trips. */
static void keep_trips(struct view *V, struct hz_result *out)
{
	struct arena *A = &V->an->m->arena;
	int32_t n = 0;
	for (int32_t i = 0; i < V->n_t; i++)
		n += V->t[i].possible || V->t[i].ckind != COND_FALSE;
	out->trips = arena_array(A, (size_t)n + 1, sizeof(*out->trips));
	for (int32_t i = 0; i < V->n_t; i++) {
		const struct hz_triple *t = &V->t[i];
		if (!t->possible && t->ckind == COND_FALSE)
			continue;
		struct hz_trip *o = &out->trips[out->n_trips++];
		memset(o, 0, sizeof(*o));
		o->kind = t->kind;
		o->v = V->m[t->v].id;
		o->w = t->w >= 0 ? V->m[t->w].id : -1;
		o->unknown = t->ckind == COND_UNKNOWN;
		o->possible = t->possible;
		if (t->r < 0) {
			o->universal = 1;
			continue;
		}
		const struct hz_read *r = &V->r[t->r];
		const struct hz_member *v = &V->m[t->v], *w = &V->m[t->w];
		o->read = r->instr;
		o->read_end = r->instr ? NULL : r->ev.k;
		o->wdef = w->def;
		o->n = t->n;
		if (t->n) {
			struct atom *a = arena_array(A, t->n, sizeof(*a));
			memcpy(a, tatoms(V, t), (size_t)t->n * sizeof(*a));
			o->a = a;
		}
		const struct path *rp = rpath(V, r);
		if (t->kind == HAZARD_OVERWRITE) {
			int32_t L = path_shared_run(v->path, rp);
			o->universal = (uint8_t)path_direct_at(v->path, w->path, L);
			if (!o->universal && w->path->ok && !w->path->never && w->path->n > L + 1 &&
			    w->path->n - L <= SFX_MAX && rp->ok && path_same_run_to(rp, w->path, L) &&
			    w->path->l[L].phase == EV_INSIDE) {
				o->esc_level = (uint8_t)L;
				o->n_sfx = (uint8_t)(w->path->n - L);
				memcpy(o->sfx, w->path->l + L, (size_t)o->n_sfx * sizeof(o->sfx[0]));
			}
		}
		else if (t->kind == HAZARD_SAME_INSTRUCTION)
			o->universal = 1;
		else /* same time: read directly in the run that defines the pair */
			o->universal = (uint8_t)path_direct_at(v->path, rp, v->path->n ? v->path->n - 1 : 0);
	}
}

/* An old triple in the view's terms. */
struct old_entry {
	uint8_t kind, universal, unknown, n;
	uint8_t esc_level, n_sfx;          /* hz_trip's, in the view */
	struct path_level sfx[SFX_MAX];
	int32_t v, w;
	const struct hlo_instruction *read;
	const struct hlo_computation *read_end;
	struct event wdef;
	struct atom a[COND_MAX_ATOMS];
	int32_t grp; /* its want key's number (xlate.want), -1 for a static kind */
	const struct hz_trip *src; /* the triple of the module as given */
};

/* The module as given in the view's terms (see above). */
struct xlate {
	struct view *V;
	const struct hz_origin *org;
	int same;                     /* the view runs on the origin's analysis */
	/* the old triples are the base's (analysis.base): those the edges
	 * rule out are not the module as given's (origin_results) */
	int recheck;
	struct depview plain;         /* the origin's order, nothing removed */
	const struct hlo_instruction *source; /* org->source in the view */
	int source_scheduled;         /* not a parameter or constant */
	int32_t n;
	struct old_entry *e;
	struct hz_cache *scratch;     /* holds e[] and ord[] between views */
	/* edges_keep's last computation, and dv_order_is_reach there */
	const struct hlo_computation *reach_k;
	int reach_k_ok;
	/* the keys (kind, value, read) of the view's possible triples that
	 * have a read, hashed (want_key), each to its number: the only runs
	 * subtract_old looks up; a collision only keeps an entry no run asks
	 * for (static ones are all kept) */
	struct htab want;
	/* the entries by want key (old_index): ord[] lists each key's entries
	 * in their order in e[], key g's at ord[run_end[g - 1] .. run_end[g]) */
	int32_t *ord, *run_end;
};

/* A read as old entries name it: the reading instruction, or the
 * computation whose end reads; none for a same-time pair, which any read
 * of the value holds. */
static const void *entry_read(const struct old_entry *e)
{
	if (e->kind == HAZARD_SAME_TIME)
		return NULL;
	return e->read ? (const void *)e->read : (const void *)e->read_end;
}

static const void *view_read(int kind, const struct hz_read *r)
{
	if (kind == HAZARD_SAME_TIME)
		return NULL;
	return r->instr ? (const void *)r->instr : (const void *)r->ev.k;
}

static uint64_t want_key(int kind, int32_t v, const void *read)
{
	return htab_mix((uint64_t)(uintptr_t)read) ^ ((uint64_t)(uint32_t)kind << 32 | (uint32_t)v);
}

/* X->ord and the runs: the entries by their want key's number (a counting
 * sort, so each key's entries keep their order in e[]); static entries
 * (grp < 0) are in no run */
static void old_index(struct xlate *X)
{
	struct hz_cache *c = X->scratch;
	int32_t ng = (int32_t)X->want.n;
	int32_t need = (X->n > ng ? X->n : ng) + 2;
	if (need > c->cap_old_idx) {
		c->cap_old_idx = (int32_t)grown_cap((size_t)c->cap_old_idx, (size_t)need, 64);
		c->old_cnt = xrealloc(c->old_cnt, (size_t)c->cap_old_idx, sizeof(int32_t));
		c->old_ord = xrealloc(c->old_ord, (size_t)c->cap_old_idx, sizeof(int32_t));
	}
	int32_t *cnt = c->old_cnt;
	memset(cnt, 0, ((size_t)ng + 1) * sizeof(int32_t));
	for (int32_t i = 0; i < X->n; i++)
		if (X->e[i].grp >= 0)
			cnt[X->e[i].grp + 1]++;
	for (int32_t g = 0; g < ng; g++)
		cnt[g + 1] += cnt[g];
	X->ord = c->old_ord;
	for (int32_t i = 0; i < X->n; i++)
		if (X->e[i].grp >= 0)
			X->ord[cnt[X->e[i].grp]++] = i;
	/* now cnt[g] is where run g ends, and cnt[g - 1] where it starts */
	X->run_end = cnt;
}

/* The entries on the want key of (kind, v, read): X->ord[*start .. end).
 * Keys are hashed (want_key): the caller skips the entries of another key
 * that shares the hash (old_entry_is). */
static int32_t old_run(struct xlate *X, int kind, int32_t v, const void *read, int32_t *start)
{
	*start = 0;
	const uint64_t *g = htab_get(&X->want, want_key(kind, v, read));
	if (!g || !X->run_end)
		return 0;
	*start = *g ? X->run_end[*g - 1] : 0;
	return X->run_end[*g];
}

/* Is e an entry of key (kind, v, read)? */
static int old_entry_is(const struct old_entry *e, int kind, int32_t v, const void *read)
{
	return e->kind == kind && e->v == v && entry_read(e) == read;
}

static int removed_index(const struct xlate *X, const struct hlo_instruction *x)
{
	for (int32_t i = 0; i < X->org->n_removed; i++)
		if (X->org->removed[i] == x)
			return i;
	return -1;
}

static const struct hlo_computation *x_comp(const struct xlate *X, const struct hlo_computation *k)
{
	return !k || X->same ? k : hlo_find_computation(X->V->an->m, k->name);
}

/* An instruction of the module as given in the view; NULL for a removed one. */
static inline const struct hlo_instruction *x_instr(const struct xlate *X, const struct hlo_instruction *x)
{
	if (X->same && X->org->n_removed == 1) /* most views: one copy removed */
		return x == X->org->removed[0] ? NULL : x;
	if (!x || removed_index(X, x) >= 0)
		return NULL;
	if (X->same)
		return x;
	const struct hlo_computation *k = x_comp(X, x->parent);
	return k ? hlo_find_instruction(k, x->name) : NULL;
}

/* A value of the module as given in the view, or -1 when it has no
 * identity there. */
static inline int32_t x_value(const struct xlate *X, int32_t v)
{
	if (v == X->org->copy_value)
		v = X->org->source_value;
	if (X->same) /* a member, and not a phi that collapses (removal_view_verdict) */
		return v >= 0 && v < X->scratch->vmark.cap && X->scratch->vmark.at[v] == X->scratch->vmark.gen ? v : -1;
	const struct hlo_value *hv = &X->org->an->df->values[v];
	const struct hlo_instruction *d = x_instr(X, hv->def);
	if (!d)
		return -1;
	const struct dataflow *df = X->V->an->df;
	int32_t w = dataflow_value_defined_at(df, d, (int32_t)hv->sub);
	return w >= 0 && df->values[w].is_phi == hv->is_phi ? w : -1;
}

/* An atom of the module as given in the view: 1 holds in every schedule
 * (dropped), 0 in none, 2 translated into *out. */
static int x_atom(const struct xlate *X, const struct atom *in, struct atom *out)
{
	int ra = removed_index(X, in->a), rb = removed_index(X, in->b);
	const struct hlo_instruction *s = X->org->source;
	if (ra >= 0 && rb >= 0)
		return ra < rb;
	if (ra >= 0) { /* the removed copy (right after its operand) before b */
		if (!X->source_scheduled)
			return 1;
		if (in->b == s)
			return 0;
		out->a = X->source;
		out->b = x_instr(X, in->b);
		return out->b ? 2 : 0;
	}
	if (rb >= 0) { /* a before the removed copy: a is its operand, or runs before it */
		if (!X->source_scheduled)
			return 0;
		if (in->a == s)
			return 1;
		out->a = x_instr(X, in->a);
		out->b = X->source;
		return out->a ? 2 : 0;
	}
	out->a = x_instr(X, in->a);
	out->b = x_instr(X, in->b);
	return out->a && out->b ? 2 : 0;
}

static const struct hz_result *buffer_result(struct analysis *an, int32_t b);
static struct hz_cache *hz_cache_new(struct analysis *an);

/* The module as given's decisions of the two buffers a removal merges:
 * the cached ones, or, when the rewritten module's schedules do not order
 * the rest alike (hz_origin.order_kept), decisions that keep every triple
 * whatever this module's order says (its atoms are checked in the view's
 * order), kept per buffer too. res[1] is NULL when both are one buffer. */
static int buffer_trivially_safe(struct analysis *an, const struct hlo_buffer *buf);

static void origin_results(const struct hz_origin *o, const struct hz_result *res[2])
{
	/* with control edges added (an->base), the base's decisions: those
	 * that keep every triple are the same here, the others keep what the
	 * edges may rule out, which old_collect drops (recheck) */
	struct analysis *oan = o->an->base ? o->an->base : o->an;
	int32_t bufs[2] = {oan->bufs->buffer_of[o->source_value], oan->bufs->buffer_of[o->copy_value]};
	if (!oan->cache)
		oan->cache = hz_cache_new(oan);
	for (int k = 0; k < 2; k++) {
		res[k] = NULL;
		if (k == 1 && bufs[1] == bufs[0])
			break;
		/* one value, not an output: no pair, no read-only hazard, so no
		 * triple to keep (most copies' own buffers; mixtral decided 3,900
		 * of them for nothing) */
		if (buffer_trivially_safe(oan, &oan->bufs->buffers[bufs[k]])) {
			res[k] = &oan->cache->no_triples;
			continue;
		}
		if (o->order_kept) {
			res[k] = buffer_result(oan, bufs[k]);
			continue;
		}
		struct hz_result *got = id_map_get(&oan->cache->keepall, bufs[k]);
		if (!got) {
			const struct hlo_buffer *buf = &oan->bufs->buffers[bufs[k]];
			struct hz_input in;
			memset(&in, 0, sizeof(in));
			in.values = buf->values;
			in.n_values = buf->n_values;
			in.label = "origin";
			in.keep_triples = 1;
			in.keep_all = 1;
			in.no_evidence = 1;
			got = arena_alloc(&oan->m->arena, sizeof(*got));
			if (hz_decide(oan, &in, got) < 0)
				continue;
			id_map_put(&oan->cache->keepall, bufs[k], got);
		}
		res[k] = got;
	}
}

/* Which of the repair's edges f[j] -> t[j] x is before (bit j of
 * bits[0]: x is f[j] or reaches it) and after (bits[1]: x is t[j] or t[j]
 * reaches it), in the analysis with them; memoized per view. */
static const uint64_t *edge_bits_slow(struct xlate *X, const struct hlo_instruction *x);

static inline const uint64_t *edge_bits(struct xlate *X, const struct hlo_instruction *x)
{
	struct hz_cache *c = X->scratch;
	if (c->emark.at[x->gid] == c->emark.gen)
		return c->ebits + 2 * (size_t)x->gid;
	return edge_bits_slow(X, x);
}

static const uint64_t *edge_bits_slow(struct xlate *X, const struct hlo_instruction *x)
{
	struct hz_cache *c = X->scratch;
	uint64_t *bits = c->ebits + 2 * (size_t)x->gid;
	struct analysis *an = X->org->an;
	bits[0] = bits[1] = 0;
	for (int32_t j = 0; j < an->n_edges; j++) {
		const struct hlo_instruction *f = an->edge_from[j], *t = an->edge_to[j];
		if (f->parent == x->parent && (x == f || ordering_reaches(an->dep, x, f)))
			bits[0] |= 1ull << j;
		if (t->parent == x->parent && (x == t || ordering_reaches(an->dep, t, x)))
			bits[1] |= 1ull << j;
	}
	c->emark.at[x->gid] = c->emark.gen;
	return bits;
}

/* Do a base triple's atoms still hold together with the repair's edges?
 * 1 or 0; -1 when this cannot say (atoms_possible then). For one atom
 * x < y, or a chain x < y < z (an overwrite's), that the base decided
 * possible: none of their back pairs (q before p, q later in the chain)
 * was forced there, and a cycle needs one. With the edges, q is forced
 * before p (neither the root, in a computation where the order is
 * reachability, dv_order_is_reach) exactly when some path q -> p runs
 * through an edge: taking its last one, f[j] -> t[j], q reaches f[j] and
 * t[j] reaches p (or is it); and such a j gives the path. */
static int edges_keep(struct xlate *X, const struct hz_trip *t)
{
	const struct analysis *an = X->org->an;
	if (!t->possible || an->n_edges <= 0 || an->n_edges > 64 || !X->scratch->emark.at)
		return -1;
	const struct hlo_instruction *x, *y, *z = NULL;
	const struct atom *a = t->a;
	if (t->n == 1) {
		x = a[0].a;
		y = a[0].b;
	} else if (t->n == 3 && a[0].b == a[1].a && a[2].a == a[0].a && a[2].b == a[1].b) {
		x = a[0].a;
		y = a[0].b;
		z = a[1].b;
	} else {
		return -1;
	}
	const struct hlo_computation *k = x->parent;
	if (x == y || y->parent != k || (z && (z == x || z == y || z->parent != k)))
		return -1;
	if (k != X->reach_k) { /* asked once per computation */
		X->reach_k = k;
		X->reach_k_ok = dv_order_is_reach(&X->plain, k);
	}
	const struct hlo_instruction *root = k->root;
	if (!X->reach_k_ok || x == root || (!z && y == root) || (z && (y == root || z == root)))
		return -1; /* the root's own rules: atoms_possible */
	/* back pairs (y, x), and for a chain (z, y), (z, x) */
	const uint64_t *bx = edge_bits(X, x), *by = edge_bits(X, y);
	if (by[0] & bx[1])
		return 0;
	if (z) {
		const uint64_t *bz = edge_bits(X, z);
		if ((bz[0] & by[1]) || (bz[0] & bx[1]))
			return 0;
	}
	return 1;
}

/* The old triples of the two buffers the removal merges, in the view. */
/* Are the scratch's entries the translation this view would make? The
 * same removal (copy, operand, values) of the same module as given, its
 * triples the same decisions, the view's members as many: a view on an
 * analysis with edges over the one that translated them (X->recheck) has
 * the same values, buffers and members, and wants a subset of the keys
 * (edges only rule triples out). */
static int old_reusable(const struct xlate *X, const struct hz_result *const orig[2])
{
	const struct hz_cache *c = X->scratch;
	const struct hz_origin *o = X->org, *p = &c->old_org;
	return X->recheck && X->same && c->old_valid && c->old_orig[0] == orig[0] && c->old_orig[1] == orig[1] &&
	       p->an == o->an->base && p->copy_value == o->copy_value && p->source_value == o->source_value &&
	       p->source == o->source && p->n_removed == o->n_removed && p->removed[0] == o->removed[0] &&
	       p->removed[1] == o->removed[1] && p->order_kept == o->order_kept && c->old_n_m == X->V->n_m;
}

static int edges_keep(struct xlate *X, const struct hz_trip *t);

/* old_collect from the scratch's entries (old_reusable): those the view
 * wants that the edges leave possible, in their order */
static void old_filter(struct xlate *X)
{
	struct hz_cache *c = X->scratch;
	X->e = c->old_e;
	X->n = 0;
	for (int32_t i = 0; i < c->old_n; i++) {
		struct old_entry *e = &c->old_e[i];
		if (e->grp >= 0) {
			const uint64_t *g = htab_get(&X->want, want_key(e->kind, e->v, entry_read(e)));
			if (!g)
				continue;
			e->grp = (int32_t)*g;
		}
		const struct hz_trip *t = e->src;
		if (!t->unknown) {
			int keep = edges_keep(X, t);
			if (keep <= 0)
				keep = atoms_possible(&X->plain, t->a, t->n, NULL, 0);
			if (!keep)
				continue;
		}
		if (X->n != i)
			c->old_e[X->n] = *e;
		X->n++;
	}
	c->old_valid = 0; /* filtered in place */
}

static void old_collect(struct xlate *X, const struct hz_result *const orig[2])
{
	X->e = X->scratch->old_e;
	if (old_reusable(X, orig)) {
		old_filter(X);
		return;
	}
	X->scratch->old_valid = 0;
	for (int k = 0; k < 2; k++) {
		const struct hz_result *r = orig[k];
		for (int32_t i = 0; r && i < r->n_trips; i++) {
			const struct hz_trip *t = &r->trips[i];
			/* built in place, no memset: the atoms and suffix past
			 * n and n_sfx are never read */
			struct hz_cache *c = X->scratch;
			if (X->n == c->cap_old_e) {
				c->cap_old_e = (int32_t)grown_cap((size_t)c->cap_old_e, (size_t)X->n + 1, 16);
				c->old_e = xrealloc(c->old_e, (size_t)c->cap_old_e, sizeof(*c->old_e));
				X->e = c->old_e;
			}
			struct old_entry *ep = &c->old_e[X->n];
			ep->n = ep->esc_level = ep->n_sfx = 0;
			ep->read = NULL;
			ep->read_end = NULL;
			memset(&ep->wdef, 0, sizeof(ep->wdef));
			ep->kind = t->kind;
			ep->universal = t->universal;
			ep->unknown = t->unknown;
			ep->v = x_value(X, t->v);
			if (ep->v < 0)
				continue;
			if (t->read || t->read_end) {
				ep->read = x_instr(X, t->read);
				ep->read_end = x_comp(X, t->read_end);
				/* read by the removed copy: no such read in the view (a
				 * same-time pair is held by any read, that one included) */
				if (!ep->read && !ep->read_end && t->kind != HAZARD_SAME_TIME)
					continue;
			}
			ep->grp = -1;
			if (t->kind != HAZARD_READ_ONLY_WRITTEN && t->kind != HAZARD_READ_ONLY_OUTPUT &&
			    t->kind != HAZARD_OUTPUTS_NOT_DISTINCT) {
				const uint64_t *g = htab_get(&X->want, want_key(t->kind, ep->v, entry_read(ep)));
				if (!g)
					continue; /* no triple of the view asks for its key */
				ep->grp = (int32_t)*g;
			}
			ep->w = t->w >= 0 ? x_value(X, t->w) : -1;
			if (t->kind == HAZARD_SAME_TIME && ep->w < 0)
				continue;
			if (X->recheck && !t->unknown) {
				/* record() would not have kept it with the edges */
				int keep = edges_keep(X, t);
				/* its "ruled out" is asked again: none of the corpus
				 * nor of 4,000 generated modules has one to show it */
				if (keep <= 0)
					keep = atoms_possible(&X->plain, t->a, t->n, NULL, 0);
				if (!keep)
					continue;
			}
			ep->wdef = t->wdef;
			if (ep->wdef.x) {
				ep->wdef.x = x_instr(X, t->wdef.x);
				if (!ep->wdef.x)
					ep->wdef.phase = EV_NEVER; /* the copy's write: no writer of the view */
			}
			ep->wdef.k = x_comp(X, t->wdef.k);
			ep->esc_level = t->esc_level;
			for (int32_t j = 0; j < t->n_sfx; j++) {
				ep->sfx[j].k = x_comp(X, t->sfx[j].k);
				ep->sfx[j].x = t->sfx[j].x ? x_instr(X, t->sfx[j].x) : NULL;
				ep->sfx[j].phase = t->sfx[j].phase;
				if (!ep->sfx[j].k || (t->sfx[j].x && !ep->sfx[j].x))
					break; /* a removed instruction: left unclassified */
				ep->n_sfx = (uint8_t)(j + 1);
			}
			if (ep->n_sfx != t->n_sfx)
				ep->n_sfx = 0;
			int holds = 1, j0 = 0;
			if (X->same && X->org->n_removed == 1 && t->n <= COND_MAX_ATOMS) {
				/* the view's instructions are the module's: an atom
				 * stays as it is unless it names the removed copy */
				const struct hlo_instruction *rm = X->org->removed[0];
				while (j0 < t->n && t->a[j0].a != rm && t->a[j0].b != rm)
					j0++;
				if (j0) /* t->a is NULL when t has no atoms */
					memcpy(ep->a, t->a, (size_t)j0 * sizeof(ep->a[0]));
				ep->n = (uint8_t)j0;
			}
			for (int32_t j = j0; j < t->n && holds; j++) {
				struct atom a;
				int got = x_atom(X, &t->a[j], &a);
				if (got == 0)
					holds = 0;
				else if (got == 2 && ep->n < COND_MAX_ATOMS)
					ep->a[ep->n++] = a;
				else if (got == 2)
					ep->unknown = 1;
			}
			if (!holds)
				continue; /* never in the schedules compared */
			ep->src = t;
			X->n++;
		}
	}
	if (!X->recheck && X->same) {
		struct hz_cache *c = X->scratch;
		c->old_valid = 1;
		c->old_n = X->n;
		c->old_orig[0] = orig[0];
		c->old_orig[1] = orig[1];
		c->old_org = *X->org;
		c->old_n_m = X->V->n_m;
	}
}

/* The triples a removal's verdict is decided on. */
struct tset {
	struct hz_triple *t;
	int32_t n, cap;
	struct atom *atoms;
	int32_t n_atoms, cap_atoms;
};

static void tset_free(struct tset *S)
{
	free(S->t);
	free(S->atoms);
}

/* Triple src with atoms a[0..n) into S, its flags as record() sets them. */
static void tset_add(struct view *V, struct tset *S, const struct hz_triple *src, const struct atom *a,
		     int32_t n)
{
	if (S->n == S->cap) {
		S->cap = (int32_t)grown_cap((size_t)S->cap, (size_t)S->n + 1, 16);
		S->t = xrealloc(S->t, (size_t)S->cap, sizeof(*S->t));
	}
	if (S->n_atoms + n > S->cap_atoms) {
		S->cap_atoms = (int32_t)grown_cap((size_t)S->cap_atoms, (size_t)S->n_atoms + (size_t)n, 64);
		S->atoms = xrealloc(S->atoms, (size_t)S->cap_atoms, sizeof(*S->atoms));
	}
	struct hz_triple *t = &S->t[S->n++];
	*t = *src;
	t->at = S->n_atoms;
	t->n = (uint8_t)n;
	if (n)
		memcpy(S->atoms + S->n_atoms, a, (size_t)n * sizeof(*a));
	S->n_atoms += n;
	if (src->r < 0 || src->ckind != COND_ATOMS)
		return;
	t->forced_atoms = 0;
	t->forced = t->given = 1;
	for (int32_t i = 0; i < n; i++) {
		if (atom_forced(&V->dv, &a[i]))
			t->forced_atoms |= (uint16_t)(1u << i);
		else
			t->forced = 0;
		if (!atom_given(&V->dv, &a[i]))
			t->given = 0;
	}
}

#define OLD_ROWS_MAX 256

/* NOT O for an old triple O as a disjunction: one of its atoms reversed,
 * or (n_alt > 0) the conjunction alt[0..n_alt): the run where T happens
 * without O in between despite O's atoms (classify, CL_ALT). */
struct neg {
	const struct old_entry *e;
	int32_t n_alt;
	struct atom alt[2];
};

/* One way for NOT O to hold: one or two atoms. */
struct choice {
	int32_t n;
	struct atom a[2];
};

static int same_choice(const struct choice *x, const struct choice *y)
{
	if (x->n != y->n)
		return 0;
	for (int32_t i = 0; i < x->n; i++)
		if (x->a[i].a != y->a[i].a || x->a[i].b != y->a[i].b)
			return 0;
	return 1;
}

/* The part of T AND NOT O (add_introduced) that T has no say in: each
 * kept O's ways to fail (ch, nc: -1 when another O's are among them),
 * and rc (0: no row possible whatever T, -1: the rows are too many, 1:
 * make them). One O list asked for many T (subtract_old's lower bound,
 * the same for every writer on a read) is made once. */
struct intro_prep {
	struct choice (*ch)[COND_MAX_ATOMS + 1];
	int32_t *nc;
	uint8_t *pure;
	int32_t n_keep;
	int rc;
	int borrowed; /* the arrays are an ent_cache's scratch */
};

static void intro_prep_free(struct intro_prep *P)
{
	if (P->borrowed)
		return;
	free(P->ch);
	free(P->nc);
	free(P->pure);
}

/* An old entry's atoms in the view's order, which no T changes: never
 * (one of them cannot hold) or the ones left open, reversed (NOT O's ways
 * by them). Per entry of X->e, filled when first asked. */
struct ent_cache {
	const struct old_entry *base;
	uint8_t *state; /* 0 not yet, 1 never, 2 open[] */
	uint8_t *n_open;
	struct atom (*open)[COND_MAX_ATOMS];
	/* a prep's arrays lent to one add_introduced at a time */
	struct choice (*sch)[COND_MAX_ATOMS + 1];
	int32_t *snc;
	uint8_t *spure;
	size_t scap;
};

static void intro_prep(struct view *V, const struct neg *negs, int32_t n_neg, struct intro_prep *P,
		       struct ent_cache *EC, int borrow)
{
	enum { CH = COND_MAX_ATOMS + 1 };
	int32_t n_keep = 0;
	struct choice (*ch)[CH];
	int32_t *nc;
	uint8_t *pure;
	P->borrowed = borrow && EC;
	if (P->borrowed) {
		if ((size_t)n_neg + 1 > EC->scap) {
			EC->scap = grown_cap(EC->scap, (size_t)n_neg + 1, 64);
			EC->sch = xrealloc(EC->sch, EC->scap, sizeof(*EC->sch));
			EC->snc = xrealloc(EC->snc, EC->scap, sizeof(int32_t));
			EC->spure = xrealloc(EC->spure, EC->scap, 1);
		}
		ch = EC->sch;
		nc = EC->snc;
		pure = EC->spure;
	} else {
		ch = xmalloc((size_t)n_neg + 1, sizeof(*ch));
		nc = xmalloc((size_t)n_neg + 1, sizeof(int32_t));
		pure = xmalloc((size_t)n_neg + 1, 1);
	}
	int rc = 1;
	for (int32_t i = 0; i < n_neg && rc; i++) {
		const struct old_entry *e = negs[i].e;
		if (e->unknown) {
			rc = 0; /* may hold anywhere: taken as holding (the lower bound) */
			break;
		}
		int never = 0;
		int32_t k = 0;
		if (EC) {
			size_t x = (size_t)(e - EC->base);
			if (!EC->state[x]) {
				int32_t m = 0;
				for (int32_t j = 0; j < e->n && !never; j++) {
					const struct atom *a = &e->a[j];
					if (a->a == a->b || must_precede(&V->dv, a->b, a->a))
						never = 1;
					else if (!must_precede(&V->dv, a->a, a->b))
						EC->open[x][m++] = (struct atom){a->b, a->a};
				}
				EC->state[x] = never ? 1 : 2;
				EC->n_open[x] = (uint8_t)m;
			}
			never = EC->state[x] == 1;
			for (int32_t j = 0; !never && j < EC->n_open[x]; j++)
				ch[n_keep][k++] = (struct choice){1, {EC->open[x][j]}};
		} else {
			for (int32_t j = 0; j < e->n && !never; j++) {
				const struct atom *a = &e->a[j];
				if (a->a == a->b || must_precede(&V->dv, a->b, a->a))
					never = 1;
				else if (!must_precede(&V->dv, a->a, a->b))
					ch[n_keep][k++] = (struct choice){1, {{a->b, a->a}}};
			}
		}
		if (never)
			continue;
		if (negs[i].n_alt > 0 && atoms_possible(&V->dv, negs[i].alt, negs[i].n_alt, NULL, 0)) {
			struct choice c = {negs[i].n_alt, {negs[i].alt[0], negs[i].alt[1]}};
			ch[n_keep][k++] = c;
		}
		if (!k) {
			rc = 0; /* it holds in every schedule */
			break;
		}
		pure[n_keep] = negs[i].n_alt == 0;
		nc[n_keep++] = k;
	}
	/* O_i holds whenever some O_j whose open atoms are among O_i's does:
	 * NOT O_j implies NOT O_i, and O_i goes (of equal ones, the later) */
	for (int32_t i = 0; rc && i < n_keep; i++)
		for (int32_t j = 0; j < n_keep; j++) {
			if (i == j || nc[j] <= 0 || !pure[i] || !pure[j] || nc[j] > nc[i] ||
			    (nc[j] == nc[i] && j > i))
				continue;
			int sub = 1;
			for (int32_t x = 0; x < nc[j] && sub; x++) {
				int found = 0;
				for (int32_t y = 0; y < nc[i] && !found; y++)
					found = same_choice(&ch[j][x], &ch[i][y]);
				sub = found;
			}
			if (sub) {
				nc[i] = -1;
				break;
			}
		}
	int64_t rows = 1;
	for (int32_t i = 0; rc && i < n_keep; i++)
		if (nc[i] > 0 && (rows *= nc[i]) > OLD_ROWS_MAX)
			rc = -1;
	P->ch = ch;
	P->nc = nc;
	P->pure = pure;
	P->n_keep = n_keep;
	P->rc = rc;
}

/* add_introduced's rows for T from P. */
static int intro_rows(struct view *V, struct tset *S, const struct hz_triple *t, const struct intro_prep *P)
{
	int rc = P->rc;
	int32_t n_keep = P->n_keep;
	const int32_t *nc = P->nc;
	struct choice (*ch)[COND_MAX_ATOMS + 1] = P->ch;
	const struct atom *ta = tatoms(V, t);
	/* a kept O whose every choice reverses one of T's atoms (T's own old
	 * triple, say) leaves no row possible: the rows are still made (one
	 * too long is still -1), not asked */
	int killed = 0;
	for (int32_t i = 0; rc == 1 && i < n_keep && !killed; i++) {
		killed = nc[i] > 0;
		for (int32_t c = 0; c < nc[i] && killed; c++) {
			int rev = 0;
			for (int32_t q = 0; q < ch[i][c].n && !rev; q++)
				for (int32_t j = 0; j < t->n && !rev; j++)
					rev = ta[j].a == ch[i][c].a[q].b && ta[j].b == ch[i][c].a[q].a;
			killed = rev;
		}
	}
	if (rc == 1) {
		int32_t *pick = xcalloc((size_t)n_keep + 1, sizeof(int32_t));
		int32_t added_from = S->n;
		for (;;) {
			struct atom row[COND_MAX_ATOMS];
			int32_t n = 0;
			for (int32_t j = 0; j < t->n; j++)
				row[n++] = ta[j];
			int too_long = 0;
			for (int32_t i = 0; i < n_keep && !too_long; i++) {
				if (nc[i] <= 0)
					continue;
				const struct choice *c = &ch[i][pick[i]];
				for (int32_t q = 0; q < c->n && !too_long; q++) {
					int dup = 0;
					for (int32_t j = 0; j < n && !dup; j++)
						dup = row[j].a == c->a[q].a && row[j].b == c->a[q].b;
					if (dup)
						continue;
					if (n == COND_MAX_ATOMS)
						too_long = 1;
					else
						row[n++] = c->a[q];
				}
			}
			if (too_long) {
				S->n = added_from; /* atoms stay appended, unused */
				rc = -1;
				break;
			}
			V->an->n_graph_queries++;
			if (!killed && atoms_possible(&V->dv, row, n, NULL, 0))
				tset_add(V, S, t, row, n);
			int32_t i = 0;
			for (; i < n_keep; i++) {
				if (nc[i] <= 0)
					continue;
				if (++pick[i] < nc[i])
					break;
				pick[i] = 0;
			}
			if (i == n_keep)
				break;
		}
		free(pick);
	}
	return rc;
}

/* T AND NOT O for each O of negs[0..n_neg) into S, as triples. Returns 0
 * when T never holds with none of them (an O holds whenever T does), 1
 * when rows were added (possibly none: every schedule with T has an O),
 * -1 when the rows are too many or too long (S untouched). */
static int add_introduced(struct view *V, struct tset *S, const struct hz_triple *t,
			  const struct neg *negs, int32_t n_neg, struct ent_cache *EC)
{
	struct intro_prep P;
	intro_prep(V, negs, n_neg, &P, EC, 1);
	int rc = intro_rows(V, S, t, &P);
	intro_prep_free(&P);
	return rc;
}

/* The entry output leaves (subs of the entry root's tree) where member mi
 * sits in the view, its absorbed values' included. Returns the count. */
static int32_t member_leaves(const struct view *V, int32_t mi, int32_t *out, int32_t cap)
{
	const struct dataflow *df = V->an->df;
	const struct hz_input *in = V->in;
	int32_t n = 0;
	for (int32_t s = -1; s < in->n_abs; s++) {
		if (s >= 0 && in->abs_to[s] != V->m[mi].id)
			continue;
		const struct hlo_value *val = &df->values[s < 0 ? V->m[mi].id : in->abs_from[s]];
		for (int32_t p = 0; p < val->n_positions; p++) {
			const struct hlo_instruction *pi = val->positions[p].instr;
			int32_t sub = val->positions[p].sub;
			if (pi != pi->parent->root || !pi->parent->is_entry || dataflow_tree(df, pi)->nk[sub] >= 0)
				continue;
			int dup = 0;
			for (int32_t i = 0; i < n && !dup; i++)
				dup = out[i] == sub;
			if (!dup && n < cap)
				out[n++] = sub;
		}
	}
	return n;
}

/* The values at the module as given's entry output leaf for view leaf sub. */
static const struct value_set *x_leaf(const struct xlate *X, int32_t sub)
{
	const struct analysis *oan = X->org->an;
	const struct hlo_instruction *r1 = oan->m->entry->root;
	if (!X->same) {
		int32_t idx[SHAPE_MAX_DEPTH + 1];
		const struct hlo_instruction *r2 = X->V->an->m->entry->root;
		int32_t n = shape_tree_index(dataflow_tree(X->V->an->df, r2), sub, idx);
		sub = dataflow_sub(oan->df, r1, idx, n);
	}
	return sub >= 0 && sub < dataflow_tree(oan->df, r1)->n ? dataflow_set(oan->df, r1, sub) : NULL;
}

#define LEAVES_MAX 256

/* Is static hazard t of the view one the module as given has too? For
 * outputs-not-distinct, a pair of leaves it has not goes into t's member
 * (the witness names it). */
static int static_old(struct view *V, const struct xlate *X, struct hz_triple *t)
{
	const struct buffers *ob = X->org->an->bufs;
	int32_t v = V->m[t->v].id;
	if (t->kind == HAZARD_READ_ONLY_WRITTEN) {
		for (int32_t i = 0; i < X->n; i++) /* static: no read */
			if (X->e[i].kind == HAZARD_READ_ONLY_WRITTEN && X->e[i].v == v)
				return 1;
		return 0;
	}
	int32_t leaves[LEAVES_MAX], n = 0;
	if (t->kind == HAZARD_READ_ONLY_OUTPUT) {
		n = member_leaves(V, t->v, leaves, LEAVES_MAX);
		for (int32_t i = 0; i < n; i++) {
			const struct value_set *vs = x_leaf(X, leaves[i]);
			int old = 0;
			for (int32_t k = 0; vs && k < vs->n && !old; k++) {
				int32_t u = value_set_ids(vs)[k];
				old = ob->value_read_only[u] && x_value(X, u) == v;
			}
			if (!old)
				return 0;
		}
		return 1;
	}
	/* outputs not distinct: every pair of the buffer's leaves */
	int32_t owner[LEAVES_MAX];
	for (int32_t mi = 0; mi < V->n_m; mi++) {
		if (V->m[mi].excluded)
			continue;
		int32_t k = member_leaves(V, mi, leaves + n, LEAVES_MAX - n);
		for (int32_t i = 0; i < k; i++)
			owner[n + i] = mi;
		n += k;
	}
	for (int32_t i = 0; i < n; i++)
		for (int32_t j = 0; j < n; j++) {
			if (leaves[i] >= leaves[j])
				continue;
			const struct value_set *a = x_leaf(X, leaves[i]), *b = x_leaf(X, leaves[j]);
			int shared = 0;
			for (int32_t x = 0; a && b && x < a->n && !shared; x++)
				for (int32_t y = 0; y < b->n && !shared; y++)
					shared = ob->buffer_of[value_set_ids(a)[x]] == ob->buffer_of[value_set_ids(b)[y]];
			if (!shared) {
				struct hz_member *M = &V->m[owner[i]];
				M->root_sub[0] = leaves[i];
				M->root_sub[1] = leaves[j];
				t->v = owner[i];
				return 0;
			}
		}
	return 1;
}

/* Every atom of a is one of b's: b holds only where a does. */
static int atoms_within(const struct old_entry *a, const struct old_entry *b)
{
	for (int32_t i = 0; i < a->n; i++) {
		int found = 0;
		for (int32_t j = 0; j < b->n && !found; j++)
			found = a->a[i].a == b->a[j].a && a->a[i].b == b->a[j].b;
		if (!found)
			return 0;
	}
	return 1;
}

/* The same read as the view's read r. */
static int same_read(const struct old_entry *e, const struct hz_read *r)
{
	return r->instr ? e->read == r->instr : (!e->read && e->read_end == r->ev.k);
}

/* How an old triple e on the key of view triple T (definition path dp,
 * write wp, read up) covers it, run by run. A trace that has T in a run of
 * the computation where its definition and read part has it in a trace
 * with that one run (one iteration of each loop around it), where the
 * old triples hold only in that run too; so the question is per run:
 * - CL_UNIV: e holds in every run where T does once its atoms hold (its
 *   write happens exactly once in that run, or in the run of a loop body or
 *   branch that holds T's write);
 * - CL_SKIP: some run without e has T just as well (e writes inside a loop
 *   that T's events are not in: its 0-iteration run; or in another branch
 *   of a conditional that holds T's write);
 * - CL_GROUP: e writes directly in branch *branch of conditional *grp,
 *   which T's events are not in: it covers in the runs taking that branch;
 * - CL_ALT: T's read is inside a loop e writes in, directly in the body
 *   run that holds the read, and the definition is outside: e holds in
 *   every run where T does but a first iteration that has T's write before
 *   the read and e's after it (alt[]: the read before e's write, T's write
 *   before the read);
 * - CL_LO: none of these is shown: e bounds the introduced ones from below. */
enum { CL_UNIV, CL_SKIP, CL_GROUP, CL_ALT, CL_LO };

/* The largest L with path_same_run_to(a, b, L) (it holds for every L from
 * 0 to that one and for no other), -1 for none: the levels two paths share
 * walked once, not once per question. path_same_run_to compares level 0's
 * computations for L = 0 only, this for every L: the same on traced paths,
 * where an EV_INSIDE level's computation is its instruction's (two paths
 * that differ there differ in level 0's instruction too), and level 0's is
 * the entry. */
static int32_t same_run_depth(const struct path *a, const struct path *b)
{
	int32_t m = a->n < b->n ? a->n : b->n;
	if (m <= 0 || a->l[0].k != b->l[0].k)
		return -1;
	int32_t i = 0;
	while (i < m - 1 && a->l[i].x == b->l[i].x && a->l[i].phase == EV_INSIDE && b->l[i].phase == EV_INSIDE &&
	       a->l[i + 1].k == b->l[i + 1].k)
		i++;
	return i;
}

/* p runs inside z at level L, in the run of ref's up to it; R is
 * same_run_depth(ref, p) */
static int path_inside(const struct path *p, int32_t R, int32_t L, const struct hlo_instruction *z)
{
	return p->ok && !p->never && p->n > L + 1 && p->l[L].x == z && p->l[L].phase == EV_INSIDE && L <= R;
}

static int classify(const struct old_entry *e, const struct path *dp, const struct path *wp,
		    const struct path *up, const int32_t R[3], const struct hlo_instruction **grp,
		    int32_t *branch, struct neg *ng)
{
	/* R: same_run_depth of up with dp, wp and up */
	if (e->universal)
		return CL_UNIV;
	int32_t L = e->esc_level, n = e->n_sfx;
	if (n < 2 || up->n <= L)
		return CL_LO;
	const struct hlo_instruction *z = e->sfx[0].x;
	if (!z || e->sfx[0].phase != EV_INSIDE || path_inside(dp, R[0], L, z))
		return CL_LO;
	if (path_inside(up, R[2], L, z)) {
		/* the read inside loop z, e's write directly in the body run
		 * that holds it */
		const struct path_level *wl = &e->sfx[1], *ul = &up->l[L + 1];
		if (z->opcode != OP_WHILE || n != 2 || wl->phase == EV_INSIDE || up->n != L + 2 ||
		    ul->k != wl->k || ul->phase == EV_INSIDE)
			return CL_LO;
		if (wl->phase == EV_KSTART || ul->phase == EV_KEND)
			return CL_UNIV; /* e's write starts the run, or the read ends it */
		ng->n_alt = 0;
		ng->alt[ng->n_alt++] = (struct atom){ul->x, wl->x};
		if (path_inside(wp, R[1], L, z)) {
			const struct path_level *tl = &wp->l[L + 1];
			if (wp->n != L + 2 || tl->k != ul->k || tl->phase == EV_INSIDE)
				return CL_LO;
			if (tl->phase != EV_KSTART) {
				if (tl->x == ul->x)
					return CL_LO;
				ng->alt[ng->n_alt++] = (struct atom){tl->x, ul->x};
			}
		}
		return CL_ALT;
	}
	if (!path_inside(wp, R[1], L, z)) {
		/* T's write is outside z: T holds whatever z does */
		for (int32_t i = 0; i < n - 1; i++)
			if (e->sfx[i].x && e->sfx[i].x->opcode == OP_WHILE)
				return CL_SKIP;
		for (int32_t i = 0; i < n - 1; i++)
			if (!e->sfx[i].x || e->sfx[i].phase != EV_INSIDE ||
			    (e->sfx[i].x->opcode != OP_CALL && (i || z->opcode != OP_CONDITIONAL)))
				return CL_LO;
		if (z->opcode != OP_CONDITIONAL)
			return CL_UNIV; /* calls only: once per run */
		if (n != 2)
			return CL_LO;
		for (int32_t b = 0; b < z->ext->n_branches; b++)
			if (z->ext->branches[b] == e->sfx[1].k) {
				*grp = z;
				*branch = b;
				return CL_GROUP;
			}
		return CL_LO;
	}
	/* T's write inside z too: e's write in the same run as T's */
	int32_t j = 0, loops = 0;
	for (; j < n - 1 && L + j + 1 < wp->n; j++) {
		const struct path_level *a = &wp->l[L + j], *c = &e->sfx[j];
		if (a->x != c->x || a->phase != EV_INSIDE || c->phase != EV_INSIDE)
			break;
		if (wp->l[L + j + 1].k != e->sfx[j + 1].k) {
			/* different parts of one instruction: other branches of one
			 * conditional execution never run with T's write */
			if (c->x->opcode == OP_CONDITIONAL && !loops)
				return CL_SKIP;
			return CL_LO;
		}
		loops |= c->x->opcode == OP_WHILE;
	}
	if (j == n - 1 && e->sfx[n - 1].phase != EV_INSIDE)
		return CL_UNIV; /* directly in the run that holds T's write */
	return CL_LO;
}

/* classify's answer when no writer changes it (PC_UNIV, PC_LO), or
 * PC_ASK: it depends on T's write. The same steps as classify, up to
 * where it first looks at wp. */
enum { PC_UNKNOWN, PC_UNIV, PC_LO, PC_ASK };

static int classify_pre(const struct old_entry *e, const struct path *dp, const struct path *up,
			const int32_t R[3])
{
	if (e->universal)
		return PC_UNIV;
	int32_t L = e->esc_level, n = e->n_sfx;
	if (n < 2 || up->n <= L)
		return PC_LO;
	const struct hlo_instruction *z = e->sfx[0].x;
	if (!z || e->sfx[0].phase != EV_INSIDE || path_inside(dp, R[0], L, z))
		return PC_LO;
	if (path_inside(up, R[2], L, z)) {
		const struct path_level *wl = &e->sfx[1], *ul = &up->l[L + 1];
		if (z->opcode != OP_WHILE || n != 2 || wl->phase == EV_INSIDE || up->n != L + 2 ||
		    ul->k != wl->k || ul->phase == EV_INSIDE)
			return PC_LO;
		if (wl->phase == EV_KSTART || ul->phase == EV_KEND)
			return PC_UNIV;
	}
	return PC_ASK;
}

/* A key of (group, event) for event_equal's classes. */
static uint64_t own_key(int32_t g, const struct event *ev)
{
	uint64_t k = ev->phase == EV_TIME0 ? 0
		     : ev->phase == EV_KSTART || ev->phase == EV_KEND ? (uint64_t)(uintptr_t)ev->k
								       : (uint64_t)(uintptr_t)ev->x;
	return htab_mix(htab_mix(k) ^ ((uint64_t)(uint32_t)g << 8 | ev->phase));
}

#define GROUP_COMBOS_MAX 64

/* T AND NOT (every old triple that holds in the runs T does) over the
 * branch choices of the conditionals in grp_z[] whose every branch has
 * one (a run takes one branch of each); any other group has a branch
 * without one, which a run takes. univ[]: the old triples that hold in
 * every run with T (their NOT as struct neg says). Returns as
 * add_introduced. */
static int add_by_runs(struct view *V, struct tset *S, const struct hz_triple *t,
		       const struct neg *univ, int32_t n_univ, const struct old_entry *const *grp_e,
		       const struct hlo_instruction *const *grp_z, const int32_t *grp_b, int32_t n_grp,
		       struct ent_cache *EC)
{
	/* the conditionals with an old write in every branch */
	const struct hlo_instruction *full[8];
	int32_t n_full = 0;
	for (int32_t i = 0; i < n_grp; i++) {
		const struct hlo_instruction *z = grp_z[i];
		int dup = 0;
		for (int32_t k = 0; k < n_full && !dup; k++)
			dup = full[k] == z;
		if (dup)
			continue;
		int all = z->ext->n_branches > 0;
		for (int32_t b = 0; b < z->ext->n_branches && all; b++) {
			int has = 0;
			for (int32_t k = 0; k < n_grp && !has; k++)
				has = grp_z[k] == z && grp_b[k] == b;
			all = has;
		}
		if (!all)
			continue;
		if (n_full == 8)
			return -1;
		full[n_full++] = z;
	}
	if (!n_full)
		return add_introduced(V, S, t, univ, n_univ, EC);
	int64_t combos = 1;
	for (int32_t k = 0; k < n_full; k++)
		if ((combos *= full[k]->ext->n_branches) > GROUP_COMBOS_MAX)
			return -1;
	struct neg *negs = xmalloc((size_t)(n_univ + n_grp) + 1, sizeof(*negs));
	int32_t pick[8] = {0};
	int32_t from = S->n;
	int rc = 0;
	for (;;) {
		int32_t nn = 0;
		for (int32_t i = 0; i < n_univ; i++)
			negs[nn++] = univ[i];
		for (int32_t i = 0; i < n_grp; i++)
			for (int32_t k = 0; k < n_full; k++)
				if (grp_z[i] == full[k] && grp_b[i] == pick[k])
					negs[nn++] = (struct neg){grp_e[i], 0, {{0, 0}, {0, 0}}};
		int r = add_introduced(V, S, t, negs, nn, EC);
		if (r < 0) {
			S->n = from;
			rc = -1;
			break;
		}
		rc |= r;
		int32_t k = 0;
		for (; k < n_full; k++) {
			if (++pick[k] < full[k]->ext->n_branches)
				break;
			pick[k] = 0;
		}
		if (k == n_full)
			break;
	}
	free(negs);
	return rc;
}

/* The view's triples, the old ones subtracted: hi (every introduced hazard
 * and maybe more: the old triples that surely cover subtracted) and lo
 * (only introduced ones, maybe not all: every old triple subtracted).
 * Returns 1 when lo may differ from hi; *n_old counts the triples found
 * already in the module as given, *old_example is one of them. */
/* The old entries on one read key of the view (kind, member, read),
 * shared by the view's triples on it, one per writer: the entries that
 * name that read (f[0..n) of subtract_old's list), how many are unknown,
 * the paths' shared depths that depend on no writer, and the lower bound's
 * T-free part (intro_prep of every entry), made when first asked. */
struct read_group {
	int32_t kind, v, r;
	int32_t f0, n, n_unknown;
	int32_t Rd, Ru;
	/* pos[c0 .. c0 + nc): the entries classify may put in univ (PC_UNIV,
	 * PC_ASK); pos[r0 .. r0 + nr): the PC_LO ones no PC_UNIV one implies
	 * (those it implies are implied for every writer); each in list order.
	 * indexed: own writes found by own_key (else every entry is scanned) */
	int32_t c0, nc, r0, nr;
	int indexed;
	int32_t uses; /* triples that asked for it: indexed on the second */
	int have_lo;
	struct intro_prep lo;
};

/* Old entry e filed for triple T (definition path dp, write path wp, read
 * path up) by what classify says: universal (as it is, or its alternative),
 * skipped, one of a group, or a lower-bound one (kept only while keep_lo:
 * once an unknown one is counted, only whether one is left matters). */
static void file_entry(const struct old_entry *e, const struct path *dp, const struct path *wp,
		       const struct path *up, const int32_t R[3], int keep_lo, struct neg *univ, int32_t *nu,
		       const struct old_entry **grp_e, const struct hlo_instruction **grp_z, int32_t *grp_b,
		       int32_t *ng, const struct old_entry **lo_e, int32_t *nl)
{
	struct neg plain = {e, 0, {{0, 0}, {0, 0}}};
	const struct hlo_instruction *z = NULL;
	int32_t b = -1;
	struct neg ngv = plain;
	switch (classify(e, dp, wp, up, R, &z, &b, &ngv)) {
	case CL_UNIV:
		univ[(*nu)++] = plain;
		break;
	case CL_ALT:
		univ[(*nu)++] = ngv;
		break;
	case CL_SKIP:
		break;
	case CL_GROUP:
		grp_e[*ng] = e;
		grp_z[*ng] = z;
		grp_b[(*ng)++] = b;
		break;
	default:
		if (keep_lo)
			lo_e[(*nl)++] = e;
	}
}

static int subtract_old(struct view *V, struct xlate *X, struct tset *hi, struct tset *lo,
			int32_t *n_old, int32_t *old_example)
{
	int differs = 0;
	size_t cap = (size_t)X->n + 1;
	struct neg *univ = xmalloc(cap, sizeof(*univ)), *all = xmalloc(cap, sizeof(*all));
	const struct old_entry **grp_e = xmalloc(cap, sizeof(*grp_e));
	const struct old_entry **lo_e = xmalloc(cap, sizeof(*lo_e));
	const struct hlo_instruction **grp_z = xmalloc(cap, sizeof(*grp_z));
	int32_t *grp_b = xmalloc(cap, sizeof(int32_t));
	struct read_group *groups = NULL;
	int32_t n_groups = 0, cap_groups = 0;
	const struct old_entry **fl = NULL; /* the groups' entries */
	int32_t n_fl = 0, cap_fl = 0;
	struct htab gix; /* (kind, v, r) -> group */
	htab_init(&gix, 16);
	uint8_t *pcls = NULL;  /* per fl entry: classify_pre's answer */
	int32_t cap_pc = 0;    /* pcls' and onext's */
	int32_t *onext = NULL; /* per fl entry: the next of its group with the same write */
	int32_t *pos = NULL, n_pos = 0, cap_pos = 0; /* the groups' lists */
	struct htab owh; /* own_key -> the first entry of the group with that write */
	htab_init(&owh, 16);
	struct ent_cache EC = {X->e, xcalloc(cap, 1), xmalloc(cap, 1), xmalloc(cap, sizeof(*EC.open)), NULL, NULL, NULL, 0};
	*n_old = 0;
	*old_example = -1;
	for (int32_t i = 0; i < V->n_t; i++) {
		struct hz_triple *t = &V->t[i];
		const struct atom *ta = tatoms(V, t);
		if (!t->possible || t->r < 0) {
			/* unknown ones stay unknown; static ones were settled before */
			tset_add(V, hi, t, ta, t->n);
			tset_add(V, lo, t, ta, t->n);
			continue;
		}
		const struct hz_read *r = &V->r[t->r];
		const struct hz_member *mv = &V->m[t->v], *mw = &V->m[t->w];
		const struct path *up = rpath(V, r);
		int32_t nu = 0, na = 0, ng = 0, n_lo = 0, nl = 0;
		if (t->kind == HAZARD_SAME_TIME) {
			int32_t k0, k1 = old_run(X, t->kind, mv->id, view_read(t->kind, r), &k0);
			for (int32_t k = k0; k < k1; k++) {
				const struct old_entry *e = &X->e[X->ord[k]];
				if (!old_entry_is(e, t->kind, mv->id, view_read(t->kind, r)))
					continue; /* another key of the same hash */
				struct neg plain = {e, 0, {{0, 0}, {0, 0}}};
				if (e->w != mw->id)
					continue;
				if (!e->unknown && (e->universal || same_read(e, r)))
					univ[nu++] = plain;
				all[na++] = plain;
			}
			if (!na) {
				tset_add(V, hi, t, ta, t->n);
				tset_add(V, lo, t, ta, t->n);
				continue;
			}
			/* no atoms: an old pair read so surely covers in every run */
			if (!nu)
				tset_add(V, hi, t, ta, t->n);
			differs |= !nu;
			if (nu && (*n_old)++ == 0)
				*old_example = i;
			continue;
		}
		/* the read key's group: its entries are every writer's */
		uint64_t gk = (uint64_t)(uint32_t)t->r << 32 | (uint32_t)t->v;
		gk = htab_mix(gk) ^ t->kind;
		int added;
		uint64_t *gslot = htab_put(&gix, gk, &added);
		struct read_group *g = NULL;
		if (!added) {
			g = &groups[*gslot];
			if (g->kind != t->kind || g->v != t->v || g->r != t->r)
				g = NULL; /* another key on the same hash: not cached */
		}
		struct read_group own;
		if (!g) {
			if (added) {
				if (n_groups == cap_groups) {
					cap_groups = (int32_t)grown_cap((size_t)cap_groups, (size_t)n_groups + 1, 16);
					groups = xrealloc(groups, (size_t)cap_groups, sizeof(*groups));
				}
				*gslot = (uint64_t)n_groups;
				g = &groups[n_groups++];
			} else {
				g = &own;
			}
			memset(g, 0, sizeof(*g));
			g->kind = t->kind;
			g->v = t->v;
			g->r = t->r;
			g->f0 = n_fl;
			int32_t k0, k1 = old_run(X, t->kind, mv->id, view_read(t->kind, r), &k0);
			for (int32_t k = k0; k < k1; k++) {
				const struct old_entry *e = &X->e[X->ord[k]];
				if (!old_entry_is(e, t->kind, mv->id, view_read(t->kind, r)) || !same_read(e, r))
					continue; /* another key of the same hash, or another read */
				if (n_fl == cap_fl) {
					cap_fl = (int32_t)grown_cap((size_t)cap_fl, (size_t)n_fl + 1, 64);
					fl = xrealloc(fl, (size_t)cap_fl, sizeof(*fl));
				}
				fl[n_fl++] = e;
				g->n++;
				g->n_unknown += e->unknown;
			}
			g->Rd = same_run_depth(up, mv->path);
			g->Ru = same_run_depth(up, up);
			if (g != &own) {
				/* what no writer changes, once per group */
				const int32_t R0[3] = {g->Rd, -1, g->Ru};
				if (cap_pc < cap_fl) { /* as fl grew */
					cap_pc = cap_fl;
					pcls = xrealloc(pcls, (size_t)cap_pc, 1);
					onext = xrealloc(onext, (size_t)cap_pc, sizeof(int32_t));
				}
				if (n_pos + g->n > cap_pos) {
					cap_pos = (int32_t)grown_cap((size_t)cap_pos, (size_t)n_pos + (size_t)g->n, 64);
					pos = xrealloc(pos, (size_t)cap_pos, sizeof(int32_t));
				}
				for (int32_t p = g->f0; p < g->f0 + g->n; p++)
					pcls[p] = fl[p]->unknown ? PC_UNKNOWN : (uint8_t)classify_pre(fl[p], mv->path, up, R0);
				g->c0 = n_pos;
				for (int32_t p = g->f0; p < g->f0 + g->n; p++)
					if (pcls[p] == PC_UNIV || pcls[p] == PC_ASK)
						pos[n_pos++] = p;
				g->nc = n_pos - g->c0;
				g->r0 = n_pos;
				for (int32_t p = g->f0; p < g->f0 + g->n; p++) {
					if (pcls[p] != PC_LO)
						continue;
					int implied = 0;
					for (int32_t q = g->f0; q < g->f0 + g->n && !implied; q++)
						implied = pcls[q] == PC_UNIV && atoms_within(fl[q], fl[p]);
					if (!implied)
						pos[n_pos++] = p;
				}
				g->nr = n_pos - g->r0;
			}
		}
		if (g != &own && ++g->uses == 2) {
			/* asked again (another writer of the same read): its own
			 * writes indexed; a key asked once (mixtral: most of 4,600
			 * per view) is scanned instead */
			int32_t gi = (int32_t)(g - groups);
			for (int32_t p = g->f0 + g->n - 1; p >= g->f0; p--) {
				if (pcls[p] == PC_UNKNOWN)
					continue;
				int a2;
				uint64_t *h = htab_put(&owh, own_key(gi, &fl[p]->wdef), &a2);
				onext[p] = a2 ? -1 : (int32_t)*h;
				*h = (uint64_t)p;
			}
			g->indexed = 1;
		}
		const int32_t R[3] = {g->Rd, same_run_depth(up, mw->path), g->Ru};
		na = g->n;
		n_lo = g->n_unknown;
		/* T's own writes (the group's entries with T's write, in order) */
		int32_t own_p = -1;
		int fast = g->indexed;
		if (fast) {
			const uint64_t *h = htab_get(&owh, own_key((int32_t)(g - groups), &mw->def));
			own_p = h ? (int32_t)*h : -1;
			for (int32_t p = own_p; p >= 0 && fast; p = onext[p])
				fast = p >= g->f0 && p < g->f0 + g->n && event_equal(&fl[p]->wdef, &mw->def);
		}
		/* fast: only the entries that may go into univ, T's own writes
		 * merged in by position; the PC_LO ones are asked below */
		for (int32_t ci = 0, p2 = own_p; fast && (ci < g->nc || p2 >= 0);) {
			int32_t pc = ci < g->nc ? pos[g->c0 + ci] : INT32_MAX;
			if (p2 >= 0 && p2 <= pc) {
				univ[nu++] = (struct neg){fl[p2], 0, {{0, 0}, {0, 0}}}; /* T's own write */
				ci += p2 == pc;
				p2 = onext[p2];
				continue;
			}
			ci++;
			const struct old_entry *e = fl[pc];
			struct neg plain = {e, 0, {{0, 0}, {0, 0}}};
			if (pcls[pc] == PC_UNIV) {
				univ[nu++] = plain;
				continue;
			}
			file_entry(e, mv->path, mw->path, up, R, !n_lo, univ, &nu, grp_e, grp_z, grp_b, &ng, lo_e, &nl);
		}
		for (int32_t k = 0; !fast && k < g->n; k++) {
			const struct old_entry *e = fl[g->f0 + k];
			struct neg plain = {e, 0, {{0, 0}, {0, 0}}};
			if (e->unknown)
				continue;
			if (event_equal(&e->wdef, &mw->def)) {
				univ[nu++] = plain; /* T's own write */
				continue;
			}
			file_entry(e, mv->path, mw->path, up, R, !n_lo, univ, &nu, grp_e, grp_z, grp_b, &ng, lo_e, &nl);
		}
		if (!na) {
			tset_add(V, hi, t, ta, t->n);
			tset_add(V, lo, t, ta, t->n);
			continue;
		}
		int32_t h0 = hi->n;
		int rh = add_by_runs(V, hi, t, univ, nu, grp_e, grp_z, grp_b, ng, &EC);
		if (rh < 0) {
			/* too many orderings or branches: the universal ones alone
			 * bound from above */
			n_lo++;
			if (add_introduced(V, hi, t, univ, nu, &EC) < 0)
				tset_add(V, hi, t, ta, t->n);
		}
		if (rh == 0 || (rh == 1 && hi->n == h0)) {
			if ((*n_old)++ == 0)
				*old_example = i;
			continue; /* never introduced: nor in lo, below hi */
		}
		/* an old triple that holds only where a universal one does (its
		 * atoms include that one's) subtracts nothing more: a write
		 * inside a loop, say, where the loop's result is written at its end
		 * (only whether one is left counts, and only here) */
		for (int32_t k = 0; k < nl && !n_lo; k++) {
			int implied = 0;
			for (int32_t h = 0; h < nu && !implied; h++)
				implied = !univ[h].n_alt && atoms_within(univ[h].e, lo_e[k]);
			n_lo += !implied;
		}
		/* fast: the PC_LO entries no PC_UNIV one implies, T's own writes
		 * aside (in univ) */
		for (int32_t k = 0; fast && k < g->nr && !n_lo; k++) {
			const struct old_entry *e = fl[pos[g->r0 + k]];
			if (event_equal(&e->wdef, &mw->def))
				continue;
			int implied = 0;
			for (int32_t h = 0; h < nu && !implied; h++)
				implied = !univ[h].n_alt && atoms_within(univ[h].e, e);
			n_lo += !implied;
		}
		if (!n_lo) {
			/* exact: lo is hi here */
			for (int32_t k = h0; k < hi->n; k++)
				tset_add(V, lo, &hi->t[k], hi->atoms + hi->t[k].at, hi->t[k].n);
			continue;
		}
		differs = 1;
		/* too many: T dropped, lo stays below */
		if (!g->have_lo) {
			for (int32_t k = 0; k < g->n; k++)
				all[k] = (struct neg){fl[g->f0 + k], 0, {{0, 0}, {0, 0}}};
			intro_prep(V, all, g->n, &g->lo, &EC, 0);
			g->have_lo = 1;
		}
		intro_rows(V, lo, t, &g->lo);
		if (g == &own)
			intro_prep_free(&own.lo);
	}
	for (int32_t k = 0; k < n_groups; k++)
		if (groups[k].have_lo)
			intro_prep_free(&groups[k].lo);
	free(groups);
	free(fl);
	free(pcls);
	free(onext);
	free(pos);
	htab_free(&owh);
	htab_free(&gix);
	free(EC.state);
	free(EC.n_open);
	free(EC.open);
	free(EC.sch);
	free(EC.snc);
	free(EC.spure);
	free(univ);
	free(all);
	free(grp_e);
	free(lo_e);
	free(grp_z);
	free(grp_b);
	return differs;
}

/* The evidence without its "repair..." lines. */
static void drop_repair_lines(struct sbuf *ev)
{
	size_t w = 0;
	for (size_t r = 0; ev->s && r < ev->n;) {
		const char *nl = memchr(ev->s + r, '\n', ev->n - r);
		size_t len = nl ? (size_t)(nl - (ev->s + r)) + 1 : ev->n - r;
		if (strncmp(ev->s + r, "repair", 6)) {
			memmove(ev->s + w, ev->s + r, len);
			w += len;
		}
		r += len;
	}
	ev->n = w;
	if (ev->s)
		ev->s[w] = 0;
}

/* The verdict of a removal view: the old hazards subtracted (above). */
static void removal_view_verdict(struct view *V, const struct hz_result *const orig[2],
				 struct buffer_verdict *bv, struct sbuf *ev, enum copy_family *predicted)
{
	const struct hz_origin *org = V->in->origin;
	/* nothing possible in the view: nothing to subtract (most copies; the
	 * module as given's triples would be translated for each) */
	int any_possible = 0;
	for (int32_t i = 0; i < V->n_t && !any_possible; i++)
		any_possible = V->t[i].possible;
	if (!any_possible) {
		view_verdict(V, bv, ev, predicted);
		return;
	}
	struct xlate X;
	memset(&X, 0, sizeof(X));
	X.V = V;
	X.org = org;
	X.same = V->an == org->an;
	/* the origin's: a repair's re-check runs on an analysis of its own,
	 * and mixtral's 31 of them each faulted the arrays in again */
	X.scratch = (org->an->base ? org->an->base : org->an)->cache;
	if (!X.scratch)
		X.scratch = V->an->cache;
	X.recheck = org->an->base && org->order_kept;
	if (X.recheck && org->an->n_edges > 0) {
		/* edge_bits' memo, new for this view */
		struct hz_cache *c = X.scratch;
		if (marks_next(&c->emark, V->an->m->n_instrs + 1)) {
			free(c->ebits);
			c->ebits = xmalloc(2 * (size_t)c->emark.cap, sizeof(uint64_t));
		}
	}
	X.plain.dep = org->an->dep;
	X.plain.scratch = V->dv.scratch;
	if (X.same) {
		/* the members by id for x_value, the phis that collapse unmarked */
		struct hz_cache *c = X.scratch;
		marks_next(&c->vmark, V->an->df->n_values);
		for (int32_t i = 0; i < V->n_m; i++)
			c->vmark.at[V->m[i].id] = c->vmark.gen;
		for (int32_t i = 0; i < V->in->n_abs; i++)
			if (V->in->abs_from[i] >= 0 && V->in->abs_from[i] < c->vmark.cap)
				c->vmark.at[V->in->abs_from[i]] = 0;
	}
	X.source = X.same ? org->source : x_instr(&X, org->source);
	X.source_scheduled = org->source && org->source->opcode != OP_PARAMETER &&
			     org->source->opcode != OP_CONSTANT && X.source;
	htab_init(&X.want, 16);
	for (int32_t i = 0; i < V->n_t; i++) {
		const struct hz_triple *t = &V->t[i];
		if (t->possible && t->r >= 0) {
			int added;
			uint64_t *g = htab_put(&X.want, want_key(t->kind, V->m[t->v].id, view_read(t->kind, &V->r[t->r])),
					       &added);
			if (added)
				*g = X.want.n - 1; /* numbered in order of first sight */
		}
	}
	old_collect(&X, orig);
	old_index(&X);
	/* static hazards the module as given has too go at once */
	int32_t n_old = 0, old_example = -1;
	for (int32_t i = 0; i < V->n_t; i++) {
		struct hz_triple *t = &V->t[i];
		if (t->r < 0 && t->possible && static_old(V, &X, t)) {
			t->possible = t->forced = t->given = 0;
			if (n_old++ == 0)
				old_example = i;
		}
	}
	char old_text[SB_STACK_BYTES];
	struct sbuf ot;
	sb_borrow(&ot, old_text, sizeof(old_text));
	if (old_example >= 0)
		witness(V, &V->t[old_example], &ot);
	int32_t n_read_old = 0;
	if (!X.n) {
		view_verdict(V, bv, ev, predicted);
	} else {
		struct tset hi = {0}, lo = {0};
		int32_t ex = -1;
		int differs = subtract_old(V, &X, &hi, &lo, &n_read_old, &ex);
		if (old_example < 0 && ex >= 0)
			witness(V, &V->t[ex], &ot);
		struct hz_triple *t0 = V->t;
		struct atom *a0 = V->atoms;
		int32_t n0 = V->n_t;
		V->t = hi.t;
		V->atoms = hi.atoms;
		V->n_t = hi.n;
		view_verdict(V, bv, ev, predicted);
		if (differs) {
			struct buffer_verdict bl;
			memset(&bl, 0, sizeof(bl));
			struct sbuf el = {0};
			enum copy_family pl = FAMILY_UNEXPLAINED;
			V->t = lo.t;
			V->atoms = lo.atoms;
			V->n_t = lo.n;
			view_verdict(V, &bl, &el, &pl);
			/* hi removable: nothing introduced; lo necessary: something
			 * introduced in every schedule; else not settled */
			if (bv->any != VERDICT_SAFE) {
				if (bl.any == VERDICT_UNSAFE) {
					enum verdict g = bv->given;
					*bv = bl;
					bv->given = g;
					ev->n = 0;
					if (ev->s)
						ev->s[0] = 0;
					sb_printf(ev, "%s", el.s ? el.s : "");
					*predicted = pl;
				} else {
					bv->any = VERDICT_UNKNOWN;
					bv->n_edges = 0;
					bv->edge_from = bv->edge_to = NULL;
					bv->unknown_reason = arena_strdup(&V->an->m->arena, OLD_IN_SOME_RUNS);
					drop_repair_lines(ev); /* no repair is claimed */
					sb_printf(ev, "unknown: %s\n", OLD_IN_SOME_RUNS);
				}
			}
			if (bv->given == VERDICT_UNSAFE && bl.given != VERDICT_UNSAFE) {
				bv->given = VERDICT_UNKNOWN;
				if (!bv->unknown_reason)
					bv->unknown_reason = arena_strdup(&V->an->m->arena, OLD_IN_SOME_RUNS);
			}
			sb_free(&el);
		}
		V->t = t0;
		V->atoms = a0;
		V->n_t = n0;
		tset_free(&hi);
		tset_free(&lo);
	}
	n_old += n_read_old;
	if (n_old > 0)
		sb_printf(ev, "not introduced: %d hazard(s) of the merged buffer the module as given has too, in "
			  "the same schedules (reported on their own), e.g. %s\n", n_old, ot.s ? ot.s : "");
	sb_free(&ot);
	htab_free(&X.want);
}

/* A removal that only moves reads (docs/hazards.md 4): the copy's own
 * buffer is its value alone and no output (origin_results took it as
 * no_triples), its operand's buffer merges into the view as it is (no phi
 * collapses: the members are that buffer's values) and the order is kept.
 * The view's triples at the members' own reads, the copy's read aside, are
 * then the module as given's: the same values, writers, reads and order
 * (the copy's operand still runs before its users), so each is an old
 * triple on its own key in the same schedules, and none is introduced.
 * What the removal can introduce is at the reads it moves (the copy's
 * users', now reading the operand), and only those are decided. A triple
 * subtracts on its key (kind, value, read): a moved read at an instruction
 * that reads the operand itself, a same-time triple (keyed by the value
 * alone) or a static one may meet old ones, and such a view is decided
 * whole. */
#define MOVED_CHECK_MAX (1 << 20) /* moved reads x the operand's uses */

/* What moved_only_ok asks before the reads are built (the others' are not
 * built then); sets V->moved_member. */
static int moved_only_pre(struct view *V, const struct hz_result *const orig[2])
{
	const struct hz_input *in = V->in;
	const struct hz_origin *o = in->origin;
	if (!o || !in->copy || in->want_reports || in->keep_triples || in->keep_all || in->whole_view ||
	    !o->order_kept || V->an != o->an || in->n_abs != 1 || in->abs_from[0] != o->copy_value ||
	    in->abs_to[0] != o->source_value)
		return 0;
	struct analysis *oan = o->an->base ? o->an->base : o->an;
	if (!oan->cache || orig[1] != &oan->cache->no_triples || !orig[0] || orig[0]->cut)
		return 0;
	const struct hlo_buffer *bs = &oan->bufs->buffers[oan->bufs->buffer_of[o->source_value]];
	if (bs->n_values != in->n_values)
		return 0;
	for (int32_t i = 0; i < orig[0]->n_trips; i++)
		if (orig[0]->trips[i].unknown)
			return 0;
	int32_t mi = -1;
	for (int32_t i = 0; i < V->n_m && mi < 0; i++)
		if (V->m[i].id == o->source_value)
			mi = i;
	if (mi < 0 || V->m[mi].excluded)
		return 0;
	V->moved_member = mi;
	return 1;
}

/* The rest, once the moved member's reads and the static triples are in. */
static int moved_only_ok(struct view *V)
{
	for (int32_t i = 0; i < V->n_t; i++)
		if (V->t[i].r < 0) /* static: settled against the old ones (static_old) */
			return 0;
	const struct hlo_value *sv = &V->an->df->values[V->in->origin->source_value];
	const struct hz_member *M = &V->m[V->moved_member];
	int64_t work = 0;
	for (int32_t ri = M->first_read; ri < M->first_read + M->n_reads; ri++) {
		const struct hz_read *r = &V->r[ri];
		if (!r->moved || !r->instr)
			continue;
		if ((work += sv->n_uses) > MOVED_CHECK_MAX)
			return 0;
		for (int32_t u = 0; u < sv->n_uses; u++)
			if (sv->uses[u].instr == r->instr && use_reads(&sv->uses[u]))
				return 0;
	}
	return 1;
}

/* Every member's reads again, in member order: the view is decided whole
 * (a moved-only one's other members had their outputs only). */
static void reads_whole(struct view *V)
{
	V->n_r = 0;
	V->n_pp = 0;
	V->n_rgs = 0;
	for (int32_t i = 0; i < V->n_m; i++)
		if (!V->m[i].excluded)
			build_reads(V, i, READS_ONLY);
}

/* An access nested past TRACE_MAX_DEPTH makes its triples unknown, and
 * d-deep nesting has some d^2 of them per view: the view is unknown at
 * once (a hostile module ends in a second, not in minutes). */
static void reads_cut(struct view *V)
{
	for (int32_t i = 0; i < V->n_r && !V->cut; i++)
		if (path_too_deep(rpath(V, &V->r[i])))
			V->cut = rpath(V, &V->r[i])->why;
}

/* The triples of the view's reads (of the moved ones only, V->moved_only). */
static void decide_reads(struct view *V, struct dominance *D, const struct before *B,
			 struct member_mats *mm, int prune, int stop_early)
{
	struct analysis *an = V->an;
	struct writer_classes WC;
	writer_classes_init(V, &WC);
	if (mm && prune && D == &mm->D && D->dom && mm->have_B && mm->owner->df == an->df) {
		struct wc_cache *C = &mm->wc;
		if (!C->have) {
			size_t n = (size_t)V->n_m + 1;
			C->n = V->n_m;
			C->have = xcalloc(2 * n, 1);
			C->same_run = C->have + n;
			C->level = xcalloc(3 * n, sizeof(int32_t));
			C->n_trace = C->level + n;
			C->n_count = C->level + 2 * n;
			C->trace = xcalloc(n, sizeof(*C->trace));
		}
		WC.cache = C;
	}
	for (int32_t vi = 0; vi < V->n_m && !(stop_early && V->forced_found) && !V->cut; vi++) {
		if (V->m[vi].excluded || (V->moved_only && vi != V->moved_member))
			continue;
		for (int32_t ri = V->m[vi].first_read;
		     ri < V->m[vi].first_read + V->m[vi].n_reads && !(stop_early && V->forced_found); ri++) {
			if (V->moved_only && !V->r[ri].moved)
				continue;
			/* one view can be most of a run (a buffer carried through
			 * thousands of nested loops): the budget is checked per read */
			if (budget_expired(&an->opt.budget)) {
				V->cut = BUDGET_EXHAUSTED_REASON;
				break;
			}
			int same_run = B->wb && read_in_def_run(&V->m[vi], rpath(V, &V->r[ri]));
			int32_t inside = shared_inside_level(&V->m[vi], rpath(V, &V->r[ri]));
			if (samples_full(V) && V->r[ri].rg < 0) {
				decide_read_by_class(V, D, B, &WC, vi, ri, inside, same_run, stop_early);
				continue;
			}
			decide_read_each_writer(V, D, B, vi, ri, inside, same_run, stop_early);
		}
	}
	writer_classes_free(&WC);
}

static const char *vname(enum verdict v)
{
	const char *s = verdict_name(v);
	return s ? s : "none";
}

/* A moved-only view's triples that may meet old ones (moved_only_ok):
 * same-time ones, keyed by the value alone. */
static int moved_meet_old(const struct view *V)
{
	for (int32_t i = 0; i < V->n_t; i++)
		if (V->t[i].kind == HAZARD_SAME_TIME && (V->t[i].possible || V->t[i].ckind == COND_UNKNOWN))
			return 1;
	return 0;
}

/* The evidence line of the old hazards a moved-only view leaves out: the
 * module as given's reports on the operand's buffer, but those at the
 * removed instructions' reads (the view has no such read). */
static void moved_old_line(struct view *V, const struct hz_result *old, struct sbuf *ev)
{
	const struct hz_origin *o = V->in->origin;
	int32_t n_old = 0;
	const char *example = NULL;
	for (int32_t i = 0; i < old->n_reports; i++) {
		const struct hazard_report *h = &old->reports[i];
		int at_removed = 0;
		for (int32_t k = 0; k < o->n_removed; k++)
			at_removed |= h->use == o->removed[k];
		if (at_removed)
			continue;
		n_old++;
		if (!example && h->witness && h->use)
			example = h->witness;
	}
	if (n_old == 0)
		return;
	sb_printf(ev, "not introduced: %d hazard(s) of the merged buffer the module as given has too, in "
		  "the same schedules (reported on their own)%s%s\n", n_old, example ? ", e.g. " : "",
		  example ? example : "");
}

static struct hz_cache *hz_cache_new(struct analysis *an);

int hz_decide(struct analysis *an, const struct hz_input *in, struct hz_result *out)
{
	struct arena *A = &an->m->arena;
	const struct dataflow *df = an->df;
	memset(out, 0, sizeof(*out));
	out->predicted = FAMILY_UNEXPLAINED;
	struct view V;
	memset(&V, 0, offsetof(struct view, samples));
	V.an = an;
	V.in = in;
	/* a removal's view on an analysis that answers a repair question */
	V.no_samples = (in->no_evidence && in->origin) || an->opt.no_proof_samples;
	if (!an->cache)
		an->cache = hz_cache_new(an);
	/* the module as given's two buffers, decided before this view takes
	 * the cache's arrays (those decisions use them too) */
	const struct hz_result *orig[2] = {NULL, NULL};
	if (in->origin)
		origin_results(in->origin, orig);
	V.dv.dep = an->dep;
	V.dv.removed = in->copy;
	V.dv.scratch = an->cache->dv;
	/* the arrays: the base's, with control edges added (analysis.base),
	 * which decides nothing meanwhile (its decisions above came first) */
	struct hz_cache *arr = an->base && an->base->cache ? an->base->cache : an->cache;
	V.r = arr->r;
	V.cap_r = arr->cap_r;
	V.t = arr->t;
	V.cap_t = arr->cap_t;
	V.pp = arr->pp;
	V.cap_pp = arr->cap_pp;
	V.atoms = arr->atoms;
	V.cap_atoms = arr->cap_atoms;
	arr->pp = NULL;
	arr->cap_pp = 0;
	arr->atoms = NULL;
	arr->cap_atoms = 0;
	arr->r = NULL;
	arr->t = NULL;
	arr->cap_r = arr->cap_t = 0;
	V.n_m = in->n_values;
	if (arr->cap_m < V.n_m + 1) {
		free(arr->m);
		arr->cap_m = (int32_t)grown_cap((size_t)arr->cap_m, (size_t)V.n_m + 1, 64);
		arr->m = xmalloc((size_t)arr->cap_m, sizeof(*arr->m));
	}
	V.m = arr->m; /* taken: hz_decide gives it back at the end */
	V.cap_m = arr->cap_m;
	arr->m = NULL;
	arr->cap_m = 0;
	for (int32_t i = 0; i < V.n_m; i++) {
		struct hz_member *M = &V.m[i];
		memset(M, 0, offsetof(struct hz_member, name));
		M->id = in->values[i];
		M->val = &df->values[M->id];
		const struct value_info *vi = member_info(&V, M->id);
		M->def = vi->def;
		M->name = vi->name;
		M->path = vi->path;
		M->excluded = vi->excluded;
	}
	/* a removal that may be decided at the reads it moves: the other
	 * members' reads wait until it is known (moved_only_ok) */
	int pre = in->origin && moved_only_pre(&V, orig);
	for (int32_t i = 0; i < V.n_m; i++) {
		struct hz_member *M = &V.m[i];
		if (M->excluded)
			continue;
		if (pre && i != V.moved_member) {
			/* nothing to do for a value at no root (it absorbs nothing:
			 * the one value absorbed is the moved member's) */
			if (member_info(&V, M->id)->at_root)
				build_reads(&V, i, OUTPUTS_ONLY);
			else
				M->first_read = V.n_r; /* n_reads, n_root_subs 0 */
			continue;
		}
		build_reads(&V, i, READS_AND_OUTPUTS);
	}
	/* as reads_cut, for the members' definitions */
	for (int32_t i = 0; i < V.n_m && !V.cut; i++)
		if (!V.m[i].excluded && path_too_deep(V.m[i].path))
			V.cut = V.m[i].path->why;

	/* static hazards */
	int32_t n_live = 0;
	for (int32_t i = 0; i < V.n_m; i++)
		n_live += !V.m[i].excluded;
	for (int32_t i = 0; i < V.n_m; i++) {
		if (V.m[i].excluded)
			continue;
		if (member_read_only(&V, i)) {
			if (n_live > 1) {
				int32_t other = -1;
				for (int32_t j = 0; j < V.n_m && other < 0; j++)
					if (j != i && !V.m[j].excluded)
						other = j;
				add_static(&V, HAZARD_READ_ONLY_WRITTEN, i, other);
			}
			if (V.m[i].n_root_subs > 0)
				add_static(&V, HAZARD_READ_ONLY_OUTPUT, i, -1);
		}
	}
	{
		/* outputs not distinct: the buffer at two entry root subs */
		int32_t subs[2] = {-1, -1}, ns = 0, who = -1;
		for (int32_t i = 0; i < V.n_m && ns < 2; i++)
			for (int32_t k = 0; k < V.m[i].n_root_subs && k < 2 && ns < 2; k++) {
				int32_t s = V.m[i].root_sub[k];
				if (ns == 1 && subs[0] == s)
					continue;
				subs[ns++] = s;
				if (who < 0)
					who = i;
			}
		if (ns == 2) {
			struct hz_member *M = &V.m[who];
			M->root_sub[0] = subs[0];
			M->root_sub[1] = subs[1];
			add_static(&V, HAZARD_OUTPUTS_NOT_DISTINCT, who, -1);
		}
	}
	V.moved_only = pre && moved_only_ok(&V);
	if (pre && !V.moved_only)
		reads_whole(&V);
	reads_cut(&V);
	/* triples; without reports, one forced triple settles every verdict
	 * (a forced triple also happens in the given schedule), unless the
	 * module as given may have it too (a removal) */
	for (int i = 0; i < V.n_t; i++)
		V.forced_found |= V.t[i].forced;
	int prune = !in->want_reports && !in->keep_triples;
	int stop_early = prune && !in->origin;
	/* the shared matrices by pointer: their skip rows fill as they are used */
	struct dominance own = {0}, *D = &own;
	struct before B;
	struct member_mats *mm = in->keep_all ? NULL : view_mats(&V, prune);
	if (mm) {
		if (!mm->have_B) {
			before_build(&V, &mm->B);
			mm->have_B = 1;
		}
		if (prune && !mm->have_D) {
			dominance_build(&V, &mm->D, 1, &mm->B);
			mm->have_D = 1;
		}
		if (prune)
			D = &mm->D;
		B = mm->B;
		if (an->opt.cross_check)
			cross_check_mats(&V, mm, prune);
	} else {
		dominance_build(&V, &own, prune, NULL);
		/* keep_all: no triple ruled out by this module's order */
		if (in->keep_all)
			memset(&B, 0, sizeof(B));
		else
			before_build(&V, &B);
	}
	/* the pair tables of overwrite_skip, when they are small enough */
	V.skip_mm = V.skip_mr = NULL; /* overwrite_skip makes them */
	V.skip_none = 0;
	int32_t n_t0 = V.n_t, n_atoms0 = V.n_atoms;
	decide_reads(&V, D, &B, mm, prune, stop_early);
	if (V.moved_only && !V.cut && moved_meet_old(&V)) {
		/* the whole view, from its static triples on (and the pair
		 * tables for every member) */
		V.moved_only = 0;
		free(V.skip_mm);
		V.skip_mm = V.skip_mr = NULL;
		V.skip_none = 0;
		V.n_t = n_t0;
		V.n_atoms = n_atoms0;
		V.n_false = V.n_disjoint = V.n_canshare = V.n_samples = V.n_unknown = 0;
		V.unknown_why = NULL;
		V.forced_found = 0;
		for (int32_t i = 0; i < V.n_t; i++)
			V.forced_found |= V.t[i].forced;
		reads_whole(&V);
		reads_cut(&V);
		decide_reads(&V, D, &B, mm, prune, stop_early);
	}
	free(V.skip_mm);
	V.skip_mm = V.skip_mr = NULL;
	dominance_free(&own);
	if (!mm)
		free(B.wb);

	/* verdicts */
	struct buffer_verdict *bv = &out->bv;
	int scheduled = an->m->is_scheduled;
	/* on the stack while it fits: a malloc and a realloc a view before */
	char ev_buf[SB_STACK_BYTES];
	struct sbuf ev;
	sb_borrow(&ev, ev_buf, sizeof(ev_buf));
	if (V.moved_only) {
		view_verdict(&V, bv, &ev, &out->predicted);
		moved_old_line(&V, orig[0], &ev);
	} else if (in->origin) {
		removal_view_verdict(&V, orig, bv, &ev, &out->predicted);
	} else {
		view_verdict(&V, bv, &ev, &out->predicted);
	}
	/* cut short, or judged against the module as given's decisions that
	 * were: triples are missing on one side, so nothing is proven */
	const char *cut = V.cut ? V.cut : orig[0] && orig[0]->cut ? orig[0]->cut : orig[1] ? orig[1]->cut : NULL;
	if (cut) {
		out->cut = cut;
		bv->any = VERDICT_UNKNOWN;
		if (scheduled)
			bv->given = VERDICT_UNKNOWN;
		bv->n_edges = 0;
		bv->edge_from = bv->edge_to = NULL;
		bv->edges_from = bv->edges_to = NULL;
		bv->unknown_reason = arena_strdup(A, cut);
		ev.n = 0;
		if (ev.s)
			ev.s[0] = 0;
		sb_printf(&ev, "unknown: %s\n", cut);
	}
	if (in->keep_triples)
		keep_trips(&V, out);
	int32_t n_possible = 0;
	for (int32_t i = 0; i < V.n_t; i++)
		n_possible += V.t[i].possible;
	if (in->want_reports && n_possible > 0) {
		out->reports = arena_array(A, (size_t)n_possible, sizeof(struct hazard_report));
		/* one report per (v, w, reading instruction, kind): an instruction
		 * reading v at two operands is one read as far as a reader cares */
		struct htab seen; /* (v, w, reading instruction, kind) keys */
		htab_init(&seen, (size_t)n_possible);
		int32_t *shown = NULL; /* witnesses written, per (member, kind) */
		if (an->opt.witness_limit > 0)
			shown = xcalloc((size_t)V.n_m * 8 + 1, sizeof(int32_t));
		for (int32_t i = 0; i < V.n_t; i++) {
			struct hz_triple *t = &V.t[i];
			if (!t->possible)
				continue;
			if (t->r >= 0) {
				const struct hz_read *rr = &V.r[t->r];
				uint64_t key = ((uint64_t)(uint32_t)t->v * 1000003u + (uint32_t)(t->w + 1)) * 1000003u +
					       (uint64_t)(rr->instr ? rr->instr->gid + 2 : (rr->ev.k ? 1 : 0));
				key = key * 8 + t->kind + 1;
				int added;
				htab_put(&seen, key, &added);
				if (!added)
					continue;
			}
			struct hazard_report *h = &out->reports[out->n_reports++];
			const struct hz_member *v = &V.m[t->v];
			h->v = v->id;
			h->def_v = v->val->def;
			h->w = t->w >= 0 ? V.m[t->w].id : -1;
			h->def_w = t->w >= 0 ? V.m[t->w].val->def : NULL;
			h->use = t->r >= 0 ? V.r[t->r].instr : NULL;
			if (t->r >= 0 && !h->use && V.r[t->r].ev.k)
				h->use = V.r[t->r].ev.k->root;
			h->kind = (enum hazard_kind)t->kind;
			/* the output leaves a static hazard is about (its identity,
			 * verdicts.md: the same leaf, the same pair of leaves) */
			h->leaf[0] = h->leaf[1] = -1;
			if (h->kind == HAZARD_READ_ONLY_OUTPUT && v->n_root_subs > 0)
				h->leaf[0] = v->root_sub[0];
			if (h->kind == HAZARD_OUTPUTS_NOT_DISTINCT) {
				int32_t a = v->root_sub[0], b = v->root_sub[1];
				h->leaf[0] = a < b ? a : b;
				h->leaf[1] = a < b ? b : a;
			}
			h->in_given = scheduled ? t->given : -1;
			h->in_some = 1;
			h->in_every = t->forced;
			h->bytes = in->bytes;
			h->predicted_family = triple_family(&V, t);
			int32_t *k = shown ? &shown[(size_t)t->v * 8 + t->kind] : NULL;
			if (!k || ((scheduled ? t->given : 1) && *k < an->opt.witness_limit)) {
				char w_buf[SB_STACK_BYTES];
				struct sbuf w;
				sb_borrow(&w, w_buf, sizeof(w_buf));
				witness(&V, t, &w);
				h->witness = sb_finish(&w, A);
				if (k)
					(*k)++;
			}
			if (!t->forced) {
				const struct atom *ta = tatoms(&V, t);
				for (int32_t j = 0; j < t->n; j++)
					if (!(t->forced_atoms >> j & 1) &&
					    ta[j].b != ta[j].b->parent->root) {
						h->edge_from = ta[j].b;
						h->edge_to = ta[j].a;
						break;
					}
			}
		}
		htab_free(&seen);
		free(shown);
	}
	bv->evidence = sb_finish(&ev, A);
	for (int32_t i = 0; i < V.n_t && out->predicted == FAMILY_UNEXPLAINED; i++)
		if (V.t[i].possible)
			out->predicted = triple_family(&V, &V.t[i]);
	an->n_verdicts++;
	an->n_verdicts_smt += V.sent_smt;
	arr->m = V.m;
	arr->cap_m = V.cap_m;
	free(V.rgs);
	free(V.rb_bits);
	free(V.rb_row);
	arr->r = V.r;
	arr->cap_r = V.cap_r;
	arr->t = V.t;
	arr->cap_t = V.cap_t;
	arr->pp = V.pp;
	arr->cap_pp = V.cap_pp;
	arr->atoms = V.atoms;
	arr->cap_atoms = V.cap_atoms;
	if (V.moved_only && an->opt.cross_check) {
		/* the whole view must agree with the moved reads' */
		struct hz_input whole = *in;
		whole.whole_view = 1;
		struct hz_result w;
		/* the whole view may be unknown where the moved reads settle it:
		 * its subtraction bounds a triple at a read the module as given
		 * has by every old triple on the key and may call the two bounds
		 * apart, where the triple is its own old one (moved_only_ok) */
		if (hz_decide(an, &whole, &w) == 0 &&
		    ((w.bv.any != VERDICT_UNKNOWN && w.bv.any != bv->any) ||
		     (w.bv.given != VERDICT_UNKNOWN && w.bv.given != bv->given))) {
			fprintf(stderr, "hloproof: cross-check failed (%s): the removal decided at its moved "
				"reads is %s/%s, decided whole %s/%s\n", in->label ? in->label : "removal",
				vname(bv->any), vname(bv->given), vname(w.bv.any), vname(w.bv.given));
			an->cross_check_failed = 1;
		}
	}
	return 0;
}

static struct hz_cache *hz_cache_new(struct analysis *an)
{
	struct hz_cache *c = xcalloc(1, sizeof(*c));
	if (an->base && an->base->m == an->m) {
		/* the same module with edges: its base's search state (mixtral's
		 * 31 repair checks each zeroed 1.2 MB of fresh pages otherwise) */
		if (!an->base->cache)
			an->base->cache = hz_cache_new(an->base);
		c->dv = an->base->cache->dv;
		c->dv_borrowed = 1;
		dv_scratch_disown(c->dv);
	} else {
		c->dv = dv_scratch_new(an->m);
	}
	an->cache_free = hz_cache_free; /* analysis_free calls it: analysis.c knows no hz_cache */
	return c;
}

void hz_cache_free(struct hz_cache *c)
{
	if (!c)
		return;
	if (!c->dv_borrowed)
		dv_scratch_free(c->dv);
	blocks_free(c);
	for (int k = 0; k < MATS_KEPT; k++)
		member_mats_free(c->mats[k]);
	htab_free(&c->decided);
	htab_free(&c->keepall);
	free(c->r);
	free(c->t);
	free(c->pp);
	free(c->atoms);
	free(c->old_e);
	free(c->old_ord);
	free(c->old_cnt);
	free(c->vmark.at);
	free(c->emark.at);
	free(c->ebits);
	free(c->vinfo);
	free(c->m);
	free(c);
}

/* ---- public API ---- */

const char *hazard_kind_name(enum hazard_kind k)
{
	static const char *const names[] = {
		"overwrite", "same-time", "same-instruction",
		"read-only-written", "read-only-output", "outputs-not-distinct",
	};
	return (unsigned)k <= HAZARD_OUTPUTS_NOT_DISTINCT ? names[k] : "?";
}

int hazards_decide_values(struct analysis *an, const int32_t *values, int32_t n,
			  int32_t moved_from, int32_t moved_to, struct buffer_verdict *out)
{
	struct hz_input in;
	memset(&in, 0, sizeof(in));
	int32_t *vals = xmalloc(((size_t)n + 1), sizeof(int32_t));
	int32_t k = 0;
	for (int32_t i = 0; i < n; i++)
		if (values[i] != moved_from)
			vals[k++] = values[i];
	in.values = vals;
	in.n_values = k;
	if (moved_from >= 0 && moved_to >= 0) {
		in.abs_from = &moved_from;
		in.abs_to = &moved_to;
		in.n_abs = 1;
		const struct hlo_value *mv = &an->df->values[moved_from];
		if (mv->def->opcode == OP_COPY)
			in.copy = mv->def;
	}
	in.label = "values";
	struct hz_result r;
	int rc = hz_decide(an, &in, &r);
	free(vals);
	*out = r.bv;
	return rc;
}

/* The decision of one buffer of the module as given: computed once, with
 * every hazard report and the verdict's evidence, then reused (the verdict
 * does not depend on which caller asked first). */
static const struct hz_result *buffer_result(struct analysis *an, int32_t b)
{
	if (!an->cache)
		an->cache = hz_cache_new(an);
	struct hz_cache *c = an->cache;
	struct hz_result *got = id_map_get(&c->decided, b);
	if (got) {
		an->n_cache_hits++;
		return got;
	}
	const struct hlo_buffer *buf = &an->bufs->buffers[b];
	struct hz_input in;
	char label[64];
	memset(&in, 0, sizeof(in));
	in.values = buf->values;
	in.n_values = buf->n_values;
	in.bytes = buf->bytes;
	snprintf(label, sizeof(label), "buffer-%d", b);
	in.label = label;
	in.want_reports = 1;
	in.keep_triples = 1; /* for the removals compared with this buffer */
	struct hz_result *r = arena_alloc(&an->m->arena, sizeof(*r));
	if (hz_decide(an, &in, r) < 0)
		return NULL;
	id_map_put(&c->decided, b, r);
	return r;
}

int hazards_decide_buffer(struct analysis *an, int32_t buffer, struct buffer_verdict *out)
{
	if (buffer < 0 || buffer >= an->bufs->n_buffers)
		return -1;
	const struct hz_result *r = buffer_result(an, buffer);
	if (!r)
		return -1;
	*out = r->bv;
	return 0;
}

int32_t hazards_in_buffer(struct analysis *an, int32_t buffer, struct hazard_report **out)
{
	*out = NULL;
	if (buffer < 0 || buffer >= an->bufs->n_buffers)
		return -1;
	const struct hz_result *r = buffer_result(an, buffer);
	if (!r || r->cut) /* cut short: the reports are partial */
		return -1;
	*out = r->reports;
	return r->n_reports;
}

int32_t hazards_left_with_edges(struct analysis *an, int32_t buffer, int32_t v, unsigned kind_mask,
				int match_writer, const struct hlo_instruction *writer,
				const struct hlo_instruction *use, int32_t *n_unknown)
{
	*n_unknown = 0;
	struct analysis *base = an->base;
	if (!base || buffer < 0 || buffer >= base->bufs->n_buffers)
		return -1;
	const struct hz_result *r = buffer_result(base, buffer);
	if (!r || r->cut) /* cut short: triples are missing */
		return -1;
	if (!an->cache)
		an->cache = hz_cache_new(an);
	struct depview dv = {an->dep, NULL, an->cache->dv};
	int32_t left = 0;
	for (int32_t i = 0; i < r->n_trips; i++) {
		const struct hz_trip *t = &r->trips[i];
		if ((v >= 0 && t->v != v) || !((kind_mask >> t->kind) & 1))
			continue;
		/* the report's writer and read (hz_decide) */
		const struct hlo_instruction *w = t->w >= 0 ? an->df->values[t->w].def : NULL;
		const struct hlo_instruction *u = t->read ? t->read : t->read_end ? t->read_end->root : NULL;
		if (match_writer && (w != writer || u != use))
			continue;
		if (t->unknown)
			(*n_unknown)++;
		else if (atoms_possible(&dv, t->a, t->n, NULL, 0))
			left++;
	}
	return left;
}

/* A buffer that cannot have a hazard: one value that is not an entry output
 * holding a read-only value. */
static int buffer_trivially_safe(struct analysis *an, const struct hlo_buffer *buf)
{
	if (buf->n_values != 1)
		return 0;
	const struct hlo_value *v = &an->df->values[buf->values[0]];
	return !v->live_out;
}

int32_t hazards_analyse(struct analysis *an, struct hazard_report **out)
{
	/* the buffers' reports, then one array of the exact size: grown by
	 * doubling in the arena, the outgrown copies stayed (10^6: 29 MB for
	 * 12 MB of reports) */
	struct part {
		struct hazard_report *r;
		int32_t k;
	} *parts = NULL;
	int32_t n_parts = 0, cap = 0;
	size_t n = 0;
	for (int32_t b = 0; b < an->bufs->n_buffers; b++) {
		const struct hlo_buffer *buf = &an->bufs->buffers[b];
		if (buffer_trivially_safe(an, buf))
			continue;
		struct hazard_report *r;
		int32_t k = hazards_in_buffer(an, b, &r);
		const struct hz_result *res = k < 0 ? buffer_result(an, b) : NULL;
		if (res && res->cut) { /* the time budget ran out: no partial list */
			free(parts);
			return -1;
		}
		if (k <= 0)
			continue;
		if (n_parts == cap) {
			cap = cap ? 2 * cap : 16;
			parts = xrealloc(parts, (size_t)cap, sizeof(*parts));
		}
		parts[n_parts++] = (struct part){r, k};
		n += (size_t)k;
	}
	if (n > INT32_MAX)
		die("too many hazard reports");
	struct hazard_report *all = n ? arena_array(&an->m->arena, n, sizeof(*all)) : NULL;
	size_t at = 0;
	for (int32_t i = 0; i < n_parts; i++) {
		memcpy(all + at, parts[i].r, (size_t)parts[i].k * sizeof(*all));
		at += (size_t)parts[i].k;
	}
	free(parts);
	/* the views' arrays (tens of MB on a large module) are kept between
	 * decisions; every buffer is decided now, and what asks later is
	 * answered from the decisions: give the pages back when they are
	 * many (trimming a few MB costs more faults than it saves: mixtral
	 * 960 -> 1,530) */
	struct hz_cache *hc = an->cache;
	if (hc && (size_t)hc->cap_r * sizeof(*hc->r) + (size_t)hc->cap_t * sizeof(*hc->t) +
			  (size_t)hc->cap_atoms * sizeof(*hc->atoms) + hc->cap_pp >= ((size_t)16 << 20)) {
		free(hc->r);
		free(hc->t);
		free(hc->pp);
		free(hc->atoms);
		hc->r = NULL;
		hc->t = NULL;
		hc->pp = NULL;
		hc->atoms = NULL;
		hc->cap_r = hc->cap_t = hc->cap_atoms = 0;
		hc->cap_pp = 0;
		blocks_free(hc);
		malloc_trim(0);
	}
	*out = all;
	return (int32_t)n;
}
