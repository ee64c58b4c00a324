/* findings.c - the findings list, fingerprints and sparse-style finding_add(). */
#include "findings.h"
#include "satmath.h"
#include "htab.h"
#include "lines.h"
#include "xalloc.h"
#include "tripcount.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void findings_init(struct findings *fs, const struct hlo_module *m)
{
	memset(fs, 0, sizeof(*fs));
	arena_init(&fs->arena);
	if (m) {
		fs->file = arena_strdup(&fs->arena, m->file ? m->file : "-");
		fs->module_name = arena_strdup(&fs->arena, m->name ? m->name : "");
		fs->scheduled = m->is_scheduled;
	}
}

void findings_free(struct findings *fs)
{
	free(fs->items);
	arena_free(&fs->arena);
	memset(fs, 0, sizeof(*fs));
}

size_t name_stem_len(const char *name)
{
	size_t n = strlen(name);
	for (;;) {
		size_t k = n;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		/* a ".<digits>" group, not the whole name */
		if (k == n || k < 2 || name[k - 1] != '.')
			return n;
		n = k - 1;
	}
}

void fp_init(struct fp_hash *f)
{
	f->h = 0xcbf29ce484222325ULL;
}

void fp_bytes(struct fp_hash *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		f->h ^= (unsigned char)s[i];
		f->h *= 0x100000001b3ULL;
	}
	f->h ^= 0x1f; /* field separator */
	f->h *= 0x100000001b3ULL;
}

void fp_str(struct fp_hash *f, const char *s)
{
	fp_bytes(f, s ? s : "", s ? strlen(s) : 0);
}

void fp_shape(struct fp_hash *f, const struct shape *s)
{
	char buf[256];
	if (!s) {
		fp_str(f, "");
		return;
	}
	size_t need = shape_to_string(s, buf, sizeof(buf));
	if (need < sizeof(buf)) {
		fp_bytes(f, buf, need);
		return;
	}
	char *big = xmalloc(need + 1, 1);
	shape_to_string(s, big, need + 1);
	fp_bytes(f, big, need);
	free(big);
}

uint64_t fp_final(const struct fp_hash *f)
{
	return htab_mix(f->h);
}

static uint64_t fingerprint_hash(const struct rule *r, const struct hlo_instruction *in,
				 const char *key)
{
	struct fp_hash f;
	fp_init(&f);
	fp_str(&f, "hloproof/v1");
	fp_str(&f, r ? r->id : "");
	if (in) {
		const char *cn = in->parent && in->parent->name ? in->parent->name : "";
		fp_bytes(&f, cn, name_stem_len(cn));
		const char *n = in->name ? in->name : "";
		fp_bytes(&f, n, name_stem_len(n));
		/* not hlo_opcode_text(): the async sugar (all-to-all-start) counts
		 * as its opcode (async-start), as in the first fingerprints, so
		 * stored baselines keep matching */
		fp_str(&f, in->opcode == OP_UNKNOWN && in->ext->opcode_text ? in->ext->opcode_text
							      : opcode_name(in->opcode));
		fp_shape(&f, in->shape);
		for (int32_t i = 0; i < in->n_operands; i++)
			fp_shape(&f, in->operands[i] ? in->operands[i]->shape : NULL);
	}
	fp_str(&f, key);
	return fp_final(&f);
}

struct finding *findings_add(struct findings *fs, const struct rule *r, enum severity sev,
			     const struct hlo_instruction *instr, struct srcpos pos,
			     const char *key, const char *message)
{
	if (fs->n == fs->cap) {
		int32_t cap = fs->cap ? 2 * fs->cap : 16;
		struct finding *v = realloc(fs->items, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		fs->items = v;
		fs->cap = cap;
	}
	struct finding *f = &fs->items[fs->n];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->severity = sev;
	f->bytes = -1;
	f->message = arena_strdup(&fs->arena, message ? message : "");
	if (pos.line <= 0 && instr)
		pos = instr->pos;
	f->file = fs->file ? fs->file
			   : arena_strdup(&fs->arena, pos.file ? pos.file : "-");
	f->line = pos.line > 0 ? pos.line : 0;
	f->col = pos.line > 0 && pos.col > 0 ? pos.col : 0;
	if (instr) {
		if (instr->parent && instr->parent->name)
			f->computation = arena_strdup(&fs->arena, instr->parent->name);
		if (instr->name)
			f->instruction = arena_strdup(&fs->arena, instr->name);
		f->source = source_of(instr, fs->frames, &fs->arena);
	}
	f->fp_hash = fingerprint_hash(r, instr, key);
	f->seq = fs->n++;
	fs->finalized = 0;
	return f;
}

void finding_facts(struct finding *f, long long bytes, const char *family, const char *verdict)
{
	if (!f)
		return;
	f->bytes = bytes;
	f->family = family;
	f->verdict = verdict;
}

void finding_trips(struct finding *f, const struct hlo_computation *c, long long bytes)
{
	if (!f)
		return;
	int in_loop = 0;
	int64_t t = c ? computation_trips(c, &in_loop) : 1;
	f->has_trips = 1;
	f->trip_count = !in_loop ? 0 : t > 0 ? t : -1;
	f->bytes_per_step = f->trip_count > 0 && bytes >= 0 ? sat_mul_i64(bytes, f->trip_count) : bytes;
}

void finding_copy(struct findings *fs, struct finding *f, const char *copied_value,
		  const char *copy_place)
{
	if (!f)
		return;
	f->copied_value = copied_value ? arena_strdup(&fs->arena, copied_value) : NULL;
	f->copy_place = copy_place ? arena_strdup(&fs->arena, copy_place) : NULL;
}

void finding_place_at(struct findings *fs, struct finding *f, const struct hlo_instruction *in)
{
	struct source_info *s = f && in ? source_of(in, fs->frames, &fs->arena) : NULL;
	if (!s || !s->place.file)
		return;
	s->arg_path = f->source ? f->source->arg_path : NULL;
	f->source = s;
}

void finding_subject(struct findings *fs, struct finding *f, const char *subject)
{
	if (f)
		f->subject = subject ? arena_strdup(&fs->arena, subject) : NULL;
}

void finding_evidence_text(struct findings *fs, struct finding *f, const char *text, int max_lines)
{
	size_t n;
	int lines = 0;
	for (const char *p = text, *l; f && (max_lines <= 0 || lines < max_lines) &&
					(l = line_next(&p, &n));)
		if (n) {
			finding_evidence(fs, f, "%.*s", (int)n, l);
			lines++;
		}
}

void finding_evidence(struct findings *fs, struct finding *f, const char *fmt, ...)
{
	if (!f)
		return;
	va_list ap;
	char line[512]; /* formatted once when it fits (nearly always) */
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t old = f->evidence ? strlen(f->evidence) : 0;
	size_t len = old + (old ? 1 : 0) + (size_t)n + 1;
	char *e = arena_alloc(&fs->arena, len);
	if (old) {
		memcpy(e, f->evidence, old);
		e[old] = '\n';
	}
	if ((size_t)n < sizeof(line)) {
		memcpy(e + old + (old ? 1 : 0), line, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(e + old + (old ? 1 : 0), (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	f->evidence = e;
}

static int cmp_text_order(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;
	/* module-level findings (line 0) first, as the header comes first */
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	int ra = rule_index(a->rule), rb = rule_index(b->rule);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_hash_then_pos(const void *pa, const void *pb)
{
	const struct finding *a = *(const struct finding *const *)pa;
	const struct finding *b = *(const struct finding *const *)pb;
	if (a->fp_hash != b->fp_hash)
		return a->fp_hash < b->fp_hash ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void findings_finalize(struct findings *fs)
{
	if (fs->finalized)
		return;
	if (fs->n > 1)
		qsort(fs->items, (size_t)fs->n, sizeof(*fs->items), cmp_text_order);
	for (int32_t i = 0; i < fs->n; i++)
		fs->items[i].seq = i;
	/* occurrence counters: group equal hashes, each group in text order */
	size_t nby = fs->n > 0 ? (size_t)fs->n : 1;
	struct finding **by = xmalloc(nby, sizeof(*by));
	for (int32_t i = 0; i < fs->n; i++)
		by[i] = &fs->items[i];
	qsort(by, (size_t)fs->n, sizeof(*by), cmp_hash_then_pos);
	int occ = 0;
	for (int32_t i = 0; i < fs->n; i++) {
		occ = (i > 0 && by[i - 1]->fp_hash == by[i]->fp_hash) ? occ + 1 : 1;
		char buf[40];
		snprintf(buf, sizeof(buf), "%016llx:%d", (unsigned long long)by[i]->fp_hash, occ);
		by[i]->fingerprint = arena_strdup(&fs->arena, buf);
	}
	free(by);
	fs->finalized = 1;
}
