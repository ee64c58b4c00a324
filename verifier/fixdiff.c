/* fixdiff.c - the fixed module as an edit of the module text (fixdiff.h). */
#include "fixdiff.h"
#include "instrmap.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lines {
	const char *text;
	size_t len;
	int32_t n;
	size_t *off, *end; /* [n]: a line's first byte and its newline (or the text's end) */
	int final_newline;
};

static void lines_split(struct lines *L, const char *text, size_t len)
{
	L->text = text;
	L->len = len;
	int32_t cap = 64;
	L->off = xmalloc((size_t)cap, sizeof(size_t));
	L->end = xmalloc((size_t)cap, sizeof(size_t));
	L->n = 0;
	size_t p = 0;
	while (p < len) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len;
		if (L->n == cap) {
			cap *= 2;
			L->off = xrealloc(L->off, (size_t)cap, sizeof(size_t));
			L->end = xrealloc(L->end, (size_t)cap, sizeof(size_t));
		}
		L->off[L->n] = p;
		L->end[L->n] = e;
		L->n++;
		p = e + 1;
	}
	L->final_newline = len == 0 || text[len - 1] == '\n';
}

static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* Scan from s[i], strings skipped, counting brackets: to just past the
 * bracket that closes the group opening at s[i] (group), or to the first
 * newline at depth 0 (the end of an instruction's text). n when none. */
static size_t scan(const char *s, size_t i, size_t n, int group)
{
	int depth = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
			if (--depth == 0 && group)
				return i + 1;
		} else if (c == '\n' && depth == 0 && !group) {
			return i;
		}
	}
	return n;
}

static size_t skip_group(const char *s, size_t i, size_t n)
{
	return scan(s, i, n, 1);
}

static size_t instr_end(const char *s, size_t i, size_t n)
{
	return scan(s, i, n, 0);
}

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Where the pieces of one instruction's text are, offsets in the text. */
struct anatomy {
	size_t indent_end;    /* after the leading blanks: where ROOT goes */
	size_t ops_begin, ops_end; /* the operand list, parentheses included */
	size_t text_end;      /* the instruction's last byte + 1 */
};

/* Read the instruction at text [b, e): returns 0, or -1 when it does not
 * start its line or its shape and operands cannot be found. */
static int anatomy_of(const char *t, size_t b, size_t e, const struct hlo_instruction *x, struct anatomy *a)
{
	size_t i = b;
	while (i < e && (t[i] == ' ' || t[i] == '\t'))
		i++;
	a->indent_end = i;
	if (e - i >= 5 && !strncmp(t + i, "ROOT", 4) && (t[i + 4] == ' ' || t[i + 4] == '\t')) {
		i += 4;
		while (i < e && (t[i] == ' ' || t[i] == '\t'))
			i++;
	}
	if (i < e && t[i] == '%')
		i++;
	size_t nl = strlen(x->name);
	if (e - i < nl || strncmp(t + i, x->name, nl) || (i + nl < e && name_char((unsigned char)t[i + nl])))
		return -1;
	i += nl;
	while (i < e && isspace((unsigned char)t[i]))
		i++;
	if (i >= e || t[i] != '=')
		return -1;
	i++;
	while (i < e && isspace((unsigned char)t[i]))
		i++;
	/* the shape: a tuple's group, or a token that may hold brackets */
	if (i < e && t[i] == '(') {
		i = skip_group(t, i, e);
	} else {
		while (i < e && !isspace((unsigned char)t[i])) {
			if (t[i] == '[' || t[i] == '{' || t[i] == '(')
				i = skip_group(t, i, e);
			else
				i++;
		}
	}
	while (i < e && isspace((unsigned char)t[i]))
		i++;
	while (i < e && (name_char((unsigned char)t[i])))
		i++;
	while (i < e && isspace((unsigned char)t[i]))
		i++;
	if (i >= e || t[i] != '(')
		return -1;
	a->ops_begin = i;
	a->ops_end = skip_group(t, i, e);
	a->text_end = instr_end(t, b, e);
	return a->ops_end <= a->text_end ? 0 : -1;
}

/* Append text [b, e) to out with every whole token `from` (with or without
 * its %) renamed to `to`. */
static void put_renamed(struct buf *out, const char *t, size_t b, size_t e, const char *const *from,
			const char *const *to, int32_t n)
{
	size_t i = b;
	while (i < e) {
		if (t[i] == '"') {
			size_t j = i + 1;
			for (; j < e && t[j] != '"'; j++)
				if (t[j] == '\\')
					j++;
			j = j < e ? j + 1 : e;
			put(out, t + i, j - i);
			i = j;
			continue;
		}
		if (!name_char((unsigned char)t[i]) || (i > b && name_char((unsigned char)t[i - 1]))) {
			put(out, t + i, 1);
			i++;
			continue;
		}
		size_t j = i;
		while (j < e && name_char((unsigned char)t[j]))
			j++;
		int done = 0;
		for (int32_t k = 0; k < n && !done; k++)
			if (strlen(from[k]) == j - i && !strncmp(t + i, from[k], j - i)) {
				puts_(out, to[k]);
				done = 1;
			}
		if (!done)
			put(out, t + i, j - i);
		i = j;
	}
}

/* "%a, %b" of x's control predecessors. */
static void ctrl_list(struct buf *b, const struct hlo_instruction *y)
{
	for (int32_t j = 0; j < y->ext->n_ctrl_preds; j++) {
		if (j)
			puts_(b, ", ");
		puts_(b, "%");
		puts_(b, y->ext->ctrl_preds[j]->name);
	}
}

/* The control-predecessors attribute in [b, e) at bracket depth 0: from
 * its separating comma to past its closing brace; the braces' inside. */
static int find_ctrl(const char *t, size_t b, size_t e, size_t *cut_b, size_t *in_b, size_t *in_e,
		     size_t *cut_e)
{
	static const char key[] = "control-predecessors";
	size_t kl = sizeof(key) - 1;
	for (size_t i = b; i < e; i++) {
		if (t[i] == '"') {
			for (i++; i < e && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			continue;
		}
		if (t[i] == '(' || t[i] == '[' || t[i] == '{') {
			i = skip_group(t, i, e) - 1;
			continue;
		}
		if (e - i < kl || strncmp(t + i, key, kl) || (i > b && name_char((unsigned char)t[i - 1])))
			continue;
		size_t j = i + kl;
		while (j < e && isspace((unsigned char)t[j]))
			j++;
		if (j >= e || t[j] != '=')
			continue;
		j++;
		while (j < e && isspace((unsigned char)t[j]))
			j++;
		if (j >= e || t[j] != '{')
			return 0;
		*in_b = j + 1;
		*cut_e = skip_group(t, j, e);
		*in_e = *cut_e - 1;
		size_t c = i;
		while (c > b && isspace((unsigned char)t[c - 1]))
			c--;
		if (c > b && t[c - 1] == ',')
			c--;
		*cut_b = c;
		return 1;
	}
	return 0;
}

static int same_ctrl(const struct hlo_instruction *x, const struct hlo_instruction *y)
{
	if (x->ext->n_ctrl_preds != y->ext->n_ctrl_preds)
		return 0;
	for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
		if (strcmp(x->ext->ctrl_preds[j]->name, y->ext->ctrl_preds[j]->name))
			return 0;
	return 1;
}

/* The text of instruction x (text [b, e)) edited to be y: operands renamed,
 * control predecessors as y's, ROOT when y is the root. NULL when x needs
 * no edit; "" (static) when it cannot be read. */
static char *edit_instr(const char *t, size_t b, size_t e, const struct hlo_instruction *x,
			const struct hlo_instruction *y)
{
	static char unreadable[] = "";
	int32_t nr = 0;
	const char **from = xmalloc((size_t)x->n_operands + 1, sizeof(char *));
	const char **to = xmalloc((size_t)x->n_operands + 1, sizeof(char *));
	for (int32_t j = 0; j < x->n_operands && j < y->n_operands; j++)
		if (strcmp(x->operands[j]->name, y->operands[j]->name)) {
			from[nr] = x->operands[j]->name;
			to[nr++] = y->operands[j]->name;
		}
	int ctrl = !same_ctrl(x, y), root = y->is_root && !x->is_root;
	char *res = NULL;
	if (!nr && !ctrl && !root)
		goto out;
	struct anatomy a;
	if (anatomy_of(t, b, e, x, &a) < 0) {
		res = unreadable;
		goto out;
	}
	struct buf o = {0};
	put(&o, t + b, a.indent_end - b);
	if (root)
		puts_(&o, "ROOT ");
	put(&o, t + a.indent_end, a.ops_begin - a.indent_end);
	put_renamed(&o, t, a.ops_begin, a.ops_end, from, to, nr);
	size_t cb, ib, ie, ce;
	int has = find_ctrl(t, a.ops_end, a.text_end, &cb, &ib, &ie, &ce);
	if (!ctrl) {
		put(&o, t + a.ops_end, e - a.ops_end);
	} else if (has && y->ext->n_ctrl_preds == 0) {
		put(&o, t + a.ops_end, cb - a.ops_end);
		put(&o, t + ce, e - ce);
	} else if (has) {
		put(&o, t + a.ops_end, ib - a.ops_end);
		ctrl_list(&o, y);
		put(&o, t + ie, e - ie);
	} else {
		put(&o, t + a.ops_end, a.text_end - a.ops_end);
		puts_(&o, ", control-predecessors={");
		ctrl_list(&o, y);
		puts_(&o, "}");
		put(&o, t + a.text_end, e - a.text_end);
	}
	res = o.s ? o.s : xcalloc(1, 1);
out:
	free(from);
	free(to);
	return res;
}

/* ---- the diff ---- */

struct piece {
	int32_t l0, l1;   /* old lines [l0, l1): kept, or replaced by text */
	char *text;       /* new text (whole lines, each ending in a newline), or NULL */
};

struct builder {
	struct fix_diff *d;
	const struct lines *L;
	struct piece *p;
	int32_t n, cap;
	int32_t cap_ops;
	struct buf nt;    /* the new text */
	int32_t new_line;
};

static void piece_add(struct builder *B, int32_t l0, int32_t l1, char *text)
{
	if (B->n == B->cap) {
		B->cap = B->cap ? 2 * B->cap : 64;
		B->p = xrealloc(B->p, (size_t)B->cap, sizeof(*B->p));
	}
	B->p[B->n++] = (struct piece){l0, l1, text};
}

static void op_add(struct builder *B, enum diff_kind k, int32_t old_line, const char *s, size_t n, int nonl)
{
	struct fix_diff *d = B->d;
	if (d->n_ops == B->cap_ops) {
		B->cap_ops = B->cap_ops ? 2 * B->cap_ops : 256;
		d->ops = xrealloc(d->ops, (size_t)B->cap_ops, sizeof(*d->ops));
	}
	struct diff_op *op = &d->ops[d->n_ops++];
	op->kind = k;
	op->old_line = old_line;
	op->new_line = B->new_line;
	op->text = s;
	op->len = n;
	op->no_newline = nonl;
	if (k != DIFF_DELETE) {
		B->new_line++;
		put(&B->nt, s, n);
		if (!nonl)
			put(&B->nt, "\n", 1);
	}
}

static void old_lines(struct builder *B, enum diff_kind k, int32_t l0, int32_t l1, int32_t at)
{
	const struct lines *L = B->L;
	for (int32_t l = l0; l < l1; l++)
		op_add(B, k, k == DIFF_INSERT ? at : l, L->text + L->off[l], L->end[l] - L->off[l],
		       l == L->n - 1 && !L->final_newline && k != DIFF_INSERT);
}

static void ops_from_pieces(struct builder *B)
{
	int32_t cur = 0;
	for (int32_t i = 0; i < B->n; i++) {
		struct piece *p = &B->p[i];
		if (p->text) {
			if (p->l0 >= cur) { /* in place: the old lines go first */
				old_lines(B, DIFF_DELETE, cur, p->l1, 0);
				cur = p->l1;
			}
			const char *s = p->text;
			while (*s) {
				const char *nl = strchr(s, '\n');
				size_t n = nl ? (size_t)(nl - s) : strlen(s);
				op_add(B, DIFF_INSERT, cur, s, n, 0);
				s += n + (nl ? 1 : 0);
			}
		} else if (p->l0 >= cur) {
			old_lines(B, DIFF_DELETE, cur, p->l0, 0);
			old_lines(B, DIFF_EQUAL, p->l0, p->l1, 0);
			cur = p->l1;
		} else {
			old_lines(B, DIFF_INSERT, p->l0, p->l1, cur); /* moved up from below */
		}
	}
	old_lines(B, DIFF_DELETE, cur, B->L->n, 0);
}

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return -1;
}

/* The edits of one computation as pieces. Returns 0, 1 when it has none
 * (nothing added), or -1 with err. */
static int comp_pieces(struct builder *B, const struct hlo_computation *k, const struct hlo_computation *kw,
		       const struct instr_map *T, int32_t *region_b, int32_t *region_e, char *err, size_t cap)
{
	const struct lines *L = B->L;
	const char *t = L->text;
	int32_t n = k->n_instrs;
	if (n == 0)
		return 1;
	const struct hlo_instruction **twin = xcalloc((size_t)n + 1, sizeof(*twin));
	int changed = kw->n_instrs != n;
	for (int32_t i = 0; i < n; i++) {
		twin[i] = instr_map_find(T, kw->name, k->instrs[i]->name);
		const struct hlo_instruction *x = k->instrs[i], *y = twin[i];
		if (!y)
			continue;
		if (y->is_root != x->is_root || !same_ctrl(x, y) || x->n_operands != y->n_operands)
			changed = 1;
		for (int32_t j = 0; j < x->n_operands && j < y->n_operands && !changed; j++)
			changed = strcmp(x->operands[j]->name, y->operands[j]->name) != 0;
	}
	int32_t w = 0;
	for (int32_t i = 0; i < n && !changed; i++)
		if (twin[i])
			changed = strcmp(kw->instrs[w++]->name, k->instrs[i]->name) != 0;
	if (!changed) {
		free(twin);
		return 1;
	}
	/* the blocks: each instruction's lines up to the next one's */
	int32_t *l0 = xmalloc((size_t)n + 1, sizeof(int32_t)), *l1 = xmalloc((size_t)n + 1, sizeof(int32_t));
	int rc = 0;
	for (int32_t i = 0; i < n && !rc; i++) {
		const struct hlo_instruction *x = k->instrs[i];
		l0[i] = x->pos.line - 1;
		if (l0[i] < 0 || l0[i] >= L->n || (i > 0 && l0[i] <= l0[i - 1]))
			rc = fail(err, cap, "%s:%d: %s shares its line with %s: the text cannot be edited line by line",
				  k->module->file, x->pos.line, x->name, k->instrs[i > 0 ? i - 1 : 0]->name);
	}
	for (int32_t i = 0; i < n && !rc; i++) {
		if (i + 1 < n) {
			l1[i] = l0[i + 1];
		} else {
			size_t e = instr_end(t, L->off[l0[i]], L->len);
			int32_t l = l0[i];
			while (l < L->n && L->end[l] < e)
				l++;
			l1[i] = l < L->n ? l + 1 : L->n;
		}
	}
	/* the region: first block to last; pieces in the fixed order */
	*region_b = l0[0];
	*region_e = rc ? l0[0] : l1[n - 1];
	int32_t *by_index = xmalloc((size_t)kw->n_instrs + 1, sizeof(int32_t));
	for (int32_t i = 0; i < kw->n_instrs; i++)
		by_index[i] = -1;
	for (int32_t i = 0; i < n && !rc; i++)
		if (twin[i])
			by_index[twin[i]->index] = i;
	for (int32_t q = 0; q < kw->n_instrs && !rc; q++) {
		int32_t i = by_index[q];
		if (i < 0) {
			rc = fail(err, cap, "%s has an instruction %s that the module does not have",
				  kw->name, kw->instrs[q]->name);
			break;
		}
		size_t b = L->off[l0[i]], e = l1[i] < L->n ? L->off[l1[i]] : L->len;
		char *nt = edit_instr(t, b, e, k->instrs[i], twin[i]);
		if (nt && !*nt) {
			rc = fail(err, cap, "%s:%d: the definition of %s could not be read for editing",
				  k->module->file, k->instrs[i]->pos.line, k->instrs[i]->name);
			break;
		}
		if (!nt) {
			piece_add(B, l0[i], l1[i], NULL);
			continue;
		}
		if (e == L->len && (L->len == 0 || t[L->len - 1] != '\n')) {
			size_t len = strlen(nt);
			nt = xrealloc(nt, len + 2, 1);
			nt[len] = '\n';
			nt[len + 1] = 0;
		}
		struct fix_diff *d = B->d;
		d->bufs = xrealloc(d->bufs, (size_t)d->n_bufs + 1, sizeof(char *));
		d->bufs[d->n_bufs++] = nt;
		piece_add(B, l0[i], l1[i], nt);
	}
	free(by_index);
	free(l0);
	free(l1);
	free(twin);
	return rc;
}

/* The lines of computation k: its header to its closing brace. */
static int comp_lines(const struct lines *L, const struct hlo_computation *k, int32_t *h, int32_t *e)
{
	*h = k->pos.line - 1;
	if (*h < 0 || *h >= L->n || k->n_instrs == 0)
		return -1;
	const struct hlo_instruction *last = k->instrs[k->n_instrs - 1];
	int32_t l = last->pos.line - 1;
	if (l < *h || l >= L->n)
		return -1;
	size_t end = instr_end(L->text, L->off[l], L->len);
	while (l < L->n && L->end[l] < end)
		l++;
	for (l++; l < L->n; l++) {
		size_t i = L->off[l];
		while (i < L->end[l] && (L->text[i] == ' ' || L->text[i] == '\t'))
			i++;
		if (i < L->end[l] && L->text[i] == '}') {
			*e = l + 1;
			if (*e < L->n && L->end[*e] == L->off[*e])
				(*e)++; /* and the blank line after it */
			return 0;
		}
	}
	return -1;
}

int fix_diff_build(const struct hlo_module *m, const struct hlo_module *fixed, struct fix_diff *out,
		   char *err, size_t cap)
{
	memset(out, 0, sizeof(*out));
	const char *text = m->source;
	size_t len = m->source_len;
	if (!text) {
		if (!strcmp(m->file, "-"))
			return fail(err, cap, "the module text from standard input is no longer there (a large "
				    "module): give its file to write a diff");
		FILE *f = fopen(m->file, "rb");
		if (!f)
			return fail(err, cap, "%s: cannot read the module text again for the diff", m->file);
		char *s = NULL;
		size_t n = 0;
		FILE *mem = open_memstream(&s, &n);
		char chunk[65536];
		size_t k;
		while (mem && (k = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, k, mem);
		fclose(f);
		if (!mem || fclose(mem) != 0) {
			free(s);
			return fail(err, cap, "%s: cannot read the module text again for the diff", m->file);
		}
		out->old_text = s;
		text = s;
		len = n;
	}
	struct lines L;
	lines_split(&L, text, len);
	struct builder B = {out, &L, NULL, 0, 0, 0, {0}, 0};
	struct instr_map T;
	instr_map_build(&T, fixed);
	int rc = 0;
	int32_t at = 0;
	for (int32_t c = 0; c < m->n_comps && !rc; c++) {
		const struct hlo_computation *k = m->comps[c];
		const struct hlo_computation *kw = hlo_find_computation(fixed, k->name);
		if (!kw) {
			/* gone (dead once its caller went): its lines go, header to '}' */
			int32_t h, e;
			if (comp_lines(&L, k, &h, &e) < 0) {
				rc = fail(err, cap, "%s:%d: the computation %s could not be found in the text",
					  m->file, k->pos.line, k->name);
				break;
			}
			piece_add(&B, at, h, NULL);
			at = e;
			continue;
		}
		int32_t rb = 0, re = 0;
		int32_t before = B.n;
		piece_add(&B, 0, 0, NULL); /* the stretch up to the region, set below */
		int r = comp_pieces(&B, k, kw, &T, &rb, &re, err, cap);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 1) {
			B.n = before;
			continue;
		}
		B.p[before] = (struct piece){at, rb, NULL};
		at = re;
	}
	piece_add(&B, at, L.n, NULL);
	if (!rc) {
		/* drop the empty references */
		int32_t k = 0;
		for (int32_t i = 0; i < B.n; i++)
			if (B.p[i].text || B.p[i].l0 < B.p[i].l1)
				B.p[k++] = B.p[i];
		B.n = k;
		ops_from_pieces(&B);
		out->new_text = B.nt.s ? B.nt.s : xcalloc(1, 1);
		out->new_len = B.nt.n;
		B.nt.s = NULL;
	}
	instr_map_free(&T);
	free(B.nt.s);
	free(B.p);
	free(L.off);
	free(L.end);
	if (rc) {
		fix_diff_free(out);
		return -1;
	}
	/* the edited text must be the fixed module */
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *e = hlo_parse(m->file, out->new_text, out->new_len, &d);
	char why[512];
	if (!e) {
		rc = fail(err, cap, "the edited text does not parse: %s", d.first);
	} else if (!hlo_module_equal(e, fixed, why, sizeof(why))) {
		rc = fail(err, cap, "the edited text is not the fixed module: %s", why);
	}
	hlo_module_free(e);
	if (rc)
		fix_diff_free(out);
	return rc;
}

void fix_diff_free(struct fix_diff *d)
{
	free(d->ops);
	free(d->new_text);
	free(d->old_text);
	for (int32_t i = 0; i < d->n_bufs; i++)
		free(d->bufs[i]);
	free(d->bufs);
	memset(d, 0, sizeof(*d));
}
