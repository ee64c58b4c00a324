/* print.c - the canonical printer and structural module equality (issue 2).
 *
 * Canonical style, chosen so that print(parse(print(x))) == print(x):
 *  - the header prints, in XLA's order, is_scheduled, input_output_alias,
 *    buffer_donor and entry_computation_layout from the typed fields, then
 *    every other header attribute raw in its original order;
 *  - the stack-frame tables are copied raw;
 *  - every computation gets a signature built from its parameters and root,
 *    `ENTRY` on the entry, `, execution_thread="..."` when not main;
 *  - every name carries `%` (signature parameter names excepted: XLA prints
 *    them bare, `a: f32[]`);
 *  - the result shape is always printed, with its layout;
 *  - operand shapes are omitted: they are only a consistency check against
 *    the operand's own definition (semantics §1.3.4), so they carry no
 *    information the IR lacks;
 *  - attributes print in their original order with their raw value text,
 *    so attributes this tool does not understand survive; the reference
 *    attributes (to_apply, calls, condition, body, branch lists,
 *    called_computations, control-predecessors) are rewritten as `%a` or
 *    `{%a, %b}`. An inline body `to_apply={...}` the parser lifted into a
 *    named computation prints as a reference to that computation.
 */
#include "ir.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- reference lists ---------------------------------------------------- */

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* Attributes whose value is a name or a {list} of names. */
static int is_reference_attr(const char *name)
{
	static const char *const refs[] = {
		"to_apply", "calls", "condition", "body", "branch_computations",
		"true_computation", "false_computation", "called_computations",
		"control-predecessors",
	};
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(name, refs[i]))
			return 1;
	return 0;
}

/* Next name in a reference list: `a`, `%a`, `{a, %b}` (comments allowed).
 * Returns 1 with the name in tok/len, 0 at the end, -1 when the text is not
 * a plain reference list (an inline body, a string, ...). */
static int ref_next(const char **pp, const char **tok, size_t *len)
{
	const char *p = *pp;
	for (;;) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',' || *p == '{' ||
		    *p == '}' || *p == '%') {
			p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				return -1;
			p = e + 2;
		} else {
			break;
		}
	}
	if (!*p) {
		*pp = p;
		return 0;
	}
	if (!is_ident_char(*p))
		return -1;
	*tok = p;
	while (is_ident_char(*p))
		p++;
	*len = (size_t)(p - *tok);
	*pp = p;
	return 1;
}

/* Whether v is a plain reference list, and how many names it holds. */
static int ref_count(const char *v)
{
	const char *p = v, *t;
	size_t n;
	int k = 0, r;
	while ((r = ref_next(&p, &t, &n)) == 1)
		k++;
	return r < 0 ? -1 : k;
}

/* The lifted computation behind a single-computation reference attribute,
 * when it is one of m's computations. */
static const struct hlo_computation *typed_callee(const struct hlo_instruction *in,
						  const char *attr)
{
	const struct hlo_computation *c = NULL;
	if (!strcmp(attr, "to_apply"))
		c = in->to_apply;
	else if (!strcmp(attr, "calls"))
		c = in->ext->calls;
	else if (!strcmp(attr, "condition"))
		c = in->ext->condition;
	else if (!strcmp(attr, "body"))
		c = in->ext->body;
	const struct hlo_module *m = in->parent ? in->parent->module : NULL;
	if (!c || !m || c->index < 0 || c->index >= m->n_comps || m->comps[c->index] != c)
		return NULL;
	return c;
}

/* ---- printing -------------------------------------------------------------- */

static void put_shape(FILE *out, const struct shape *s)
{
	char small[256];
	size_t n = shape_to_string(s, small, sizeof(small));
	if (n < sizeof(small)) {
		fwrite_unlocked(small, 1, n, out);
		return;
	}
	char *big = malloc(n + 1);
	if (!big)
		die("out of memory printing a shape of %zu bytes", n);
	shape_to_string(s, big, n + 1);
	fwrite_unlocked(big, 1, n, out);
	free(big);
}

static void put_index(FILE *out, const struct shape_index *ix)
{
	putc_unlocked('{', out);
	for (int32_t i = 0; i < ix->n; i++)
		fprintf(out, i ? ",%d" : "%d", (int)ix->idx[i]);
	putc_unlocked('}', out);
}

static void put_quoted(FILE *out, const char *s)
{
	putc_unlocked('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc_unlocked('\\', out);
		putc_unlocked(*s, out);
	}
	putc_unlocked('"', out);
}

static void put_reference_attr(FILE *out, const struct hlo_instruction *in, const struct hlo_attr *a)
{
	const struct hlo_computation *c = typed_callee(in, a->name);
	int n = ref_count(a->value);
	if (c && n != 1) { /* inline body lifted into a computation */
		fprintf(out, "%%%s", c->name);
		return;
	}
	if (n < 0) {
		fputs_unlocked(a->value, out);
		return;
	}
	const char *p = a->value, *t;
	size_t len;
	int braced = a->value[strspn(a->value, " \t\r\n")] == '{';
	if (braced)
		putc_unlocked('{', out);
	for (int i = 0; ref_next(&p, &t, &len) == 1; i++) {
		if (i)
			fputs_unlocked(", ", out);
		putc_unlocked('%', out);
		fwrite_unlocked(t, 1, len, out);
	}
	if (braced)
		putc_unlocked('}', out);
}

static int is_typed_header_attr(const char *name)
{
	return !strcmp(name, "is_scheduled") || !strcmp(name, "input_output_alias") ||
	       !strcmp(name, "buffer_donor") || !strcmp(name, "entry_computation_layout");
}

static void print_header(FILE *out, const struct hlo_module *m)
{
	fprintf(out, "HloModule %s", m->name ? m->name : "module");
	if (m->is_scheduled)
		fputs_unlocked(", is_scheduled=true", out);
	if (m->n_aliases) {
		fputs_unlocked(", input_output_alias={ ", out);
		for (int32_t i = 0; i < m->n_aliases; i++) {
			const struct io_alias *a = &m->aliases[i];
			if (i)
				fputs_unlocked(", ", out);
			put_index(out, &a->output);
			fprintf(out, ": (%d, ", (int)a->param);
			put_index(out, &a->param_index);
			fputs_unlocked(a->kind == ALIAS_MUST ? ", must-alias)" : ", may-alias)", out);
		}
		fputs_unlocked(" }", out);
	}
	if (m->n_donors) {
		fputs_unlocked(", buffer_donor={ ", out);
		for (int32_t i = 0; i < m->n_donors; i++) {
			if (i)
				fputs_unlocked(", ", out);
			fprintf(out, "(%d, ", (int)m->donors[i].param);
			put_index(out, &m->donors[i].param_index);
			putc_unlocked(')', out);
		}
		fputs_unlocked(" }", out);
	}
	if (m->has_entry_layout) {
		fputs_unlocked(", entry_computation_layout={(", out);
		for (int32_t i = 0; i < m->n_entry_layout_params; i++) {
			if (i)
				fputs_unlocked(", ", out);
			put_shape(out, m->entry_layout_params[i]);
		}
		fputs_unlocked(")->", out);
		if (m->entry_layout_result)
			put_shape(out, m->entry_layout_result);
		else
			fputs_unlocked("()", out);
		putc_unlocked('}', out);
	}
	for (int32_t i = 0; i < m->n_header_attrs; i++) {
		const struct hlo_header_attr *a = &m->header_attrs[i];
		if (!is_typed_header_attr(a->name))
			fprintf(out, ", %s=%s", a->name, a->value);
	}
	fputs_unlocked("\n\n", out);
	if (m->stack_frames)
		fprintf(out, "%s\n\n", m->stack_frames);
}

static void print_instruction(FILE *out, const struct hlo_instruction *in)
{
	fputs_unlocked(in->is_root ? "  ROOT %" : "  %", out);
	fputs_unlocked(in->name, out);
	fputs_unlocked(" = ", out);
	if (in->shape) {
		put_shape(out, in->shape);
		putc_unlocked(' ', out);
	}
	fputs_unlocked(hlo_opcode_text(in), out);
	putc_unlocked('(', out);
	if (in->opcode == OP_PARAMETER) {
		fprintf(out, "%lld", (long long)in->parameter_number);
	} else if (in->opcode == OP_CONSTANT) {
		if (in->literal)
			fputs_unlocked(in->literal, out);
	} else {
		for (int32_t i = 0; i < in->n_operands; i++) {
			fputs_unlocked(i ? ", %" : "%", out);
			fputs_unlocked(in->operands[i]->name, out);
		}
	}
	putc_unlocked(')', out);
	for (int32_t i = 0; i < in->n_attrs; i++) {
		const struct hlo_attr *a = &in->attrs[i];
		fputs_unlocked(", ", out);
		fputs_unlocked(a->name, out);
		putc_unlocked('=', out);
		if (is_reference_attr(a->name))
			put_reference_attr(out, in, a);
		else if (a->value == hlo_metadata_from_fields)
			hlo_print_metadata(out, in);
		else
			fputs_unlocked(a->value, out);
	}
	putc_unlocked('\n', out);
}

static void print_computation(FILE *out, const struct hlo_computation *c)
{
	if (c->is_entry)
		fputs_unlocked("ENTRY ", out);
	fprintf(out, "%%%s (", c->name);
	for (int32_t i = 0; i < c->n_params; i++) {
		const struct hlo_instruction *p = c->params[i];
		if (i)
			fputs_unlocked(", ", out);
		fprintf(out, "%s: ", p->name);
		put_shape(out, p->shape);
	}
	fputs_unlocked(") -> ", out);
	if (c->root && c->root->shape)
		put_shape(out, c->root->shape);
	else
		fputs_unlocked("()", out);
	fputs_unlocked(" {\n", out);
	for (int32_t i = 0; i < c->n_instrs; i++)
		print_instruction(out, c->instrs[i]);
	putc_unlocked('}', out);
	if (c->execution_thread) {
		fputs_unlocked(", execution_thread=", out);
		put_quoted(out, c->execution_thread);
	}
	fputs_unlocked("\n\n", out);
}

void hlo_print_metadata(FILE *out, const struct hlo_instruction *in)
{
	const char *sep = "";
	putc_unlocked('{', out);
	if (in->op_name)
		fprintf(out, "op_name=\"%s\"", in->op_name), sep = " ";
	if (in->source_file)
		fprintf(out, "%ssource_file=\"%s\"", sep, in->source_file), sep = " ";
	if (in->source_line > 0)
		fprintf(out, "%ssource_line=%d", sep, (int)in->source_line);
	putc_unlocked('}', out);
}

char *hlo_metadata_text(const struct hlo_instruction *in)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		die("out of memory");
	hlo_print_metadata(f, in);
	if (fclose(f) != 0)
		die("out of memory");
	return text;
}

void hlo_print_module(FILE *out, const struct hlo_module *m)
{
	/* Lock the stream once and write unlocked: a 1M-instruction module is
	 * tens of millions of small writes. */
	flockfile(out);
	print_header(out, m);
	for (int32_t i = 0; i < m->n_comps; i++)
		print_computation(out, m->comps[i]);
	funlockfile(out);
}

/* ---- equality ------------------------------------------------------------- */

struct why {
	char *buf;
	size_t cap;
};

static int differ(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int differ(struct why *w, const char *fmt, ...)
{
	if (w->buf && w->cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->buf, w->cap, fmt, ap);
		va_end(ap);
	}
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *or_null(const char *s)
{
	return s ? s : "(none)";
}

static int shapes_eq(const struct shape *a, const struct shape *b)
{
	return a == b || (a && b && shape_equal(a, b));
}

/* Two reference lists name the same things in the same order; the text
 * around the names (`%`, spaces, comments) does not matter. */
static int refs_equal(const char *a, const char *b)
{
	const char *pa = a, *pb = b, *ta, *tb;
	size_t la, lb;
	for (;;) {
		int ra = ref_next(&pa, &ta, &la), rb = ref_next(&pb, &tb, &lb);
		if (ra < 0 || rb < 0)
			return -1;
		if (ra != rb)
			return 0;
		if (!ra)
			return 1;
		if (la != lb || memcmp(ta, tb, la))
			return 0;
	}
}

static int attr_values_equal(const char *name, const char *a, const char *b)
{
	if (is_reference_attr(name)) {
		int r = refs_equal(a, b);
		/* An inline body on one side: the called-computation check decides. */
		if (r >= 0)
			return r;
		if (ref_count(a) < 0 && ref_count(b) < 0)
			return !strcmp(a, b);
		return 1;
	}
	return !strcmp(a, b);
}

static int instr_equal(struct why *w, const struct hlo_computation *c,
		       const struct hlo_instruction *x, const struct hlo_instruction *y)
{
	const char *cn = c->name, *in = x->name;
	if (strcmp(x->name, y->name))
		return differ(w, "computation %s: instruction %d is %s vs %s", cn, (int)x->index,
			      x->name, y->name);
	if (x->opcode != y->opcode || strcmp(hlo_opcode_text(x), hlo_opcode_text(y)) ||
	    x->async_wrapped_opcode != y->async_wrapped_opcode)
		return differ(w, "computation %s: instruction %s: opcode %s vs %s", cn, in,
			      hlo_opcode_text(x), hlo_opcode_text(y));
	if (!shapes_eq(x->shape, y->shape)) {
		char sa[128] = "(none)", sb[128] = "(none)";
		if (x->shape)
			shape_to_string(x->shape, sa, sizeof(sa));
		if (y->shape)
			shape_to_string(y->shape, sb, sizeof(sb));
		return differ(w, "computation %s: instruction %s: shape %s vs %s", cn, in, sa, sb);
	}
	if (x->is_root != y->is_root)
		return differ(w, "computation %s: instruction %s: root flag %d vs %d", cn, in,
			      x->is_root, y->is_root);
	if (x->parameter_number != y->parameter_number)
		return differ(w, "computation %s: instruction %s: parameter number %lld vs %lld",
			      cn, in, (long long)x->parameter_number, (long long)y->parameter_number);
	if (!str_eq(x->literal, y->literal))
		return differ(w, "computation %s: instruction %s: literal differs", cn, in);
	if (x->n_operands != y->n_operands)
		return differ(w, "computation %s: instruction %s: %d operands vs %d", cn, in,
			      (int)x->n_operands, (int)y->n_operands);
	for (int32_t i = 0; i < x->n_operands; i++)
		if (strcmp(x->operands[i]->name, y->operands[i]->name))
			return differ(w, "computation %s: instruction %s: operand %d is %s vs %s", cn,
				      in, (int)i, x->operands[i]->name, y->operands[i]->name);
	if (x->ext->n_ctrl_preds != y->ext->n_ctrl_preds)
		return differ(w, "computation %s: instruction %s: %d control predecessors vs %d",
			      cn, in, (int)x->ext->n_ctrl_preds, (int)y->ext->n_ctrl_preds);
	for (int32_t i = 0; i < x->ext->n_ctrl_preds; i++)
		if (strcmp(x->ext->ctrl_preds[i]->name, y->ext->ctrl_preds[i]->name))
			return differ(w, "computation %s: instruction %s: control predecessor %d is %s vs %s",
				      cn, in, (int)i, x->ext->ctrl_preds[i]->name, y->ext->ctrl_preds[i]->name);
	if (x->n_called != y->n_called)
		return differ(w, "computation %s: instruction %s: %d called computations vs %d", cn,
			      in, (int)x->n_called, (int)y->n_called);
	for (int32_t i = 0; i < x->n_called; i++)
		if (strcmp(x->called[i]->name, y->called[i]->name))
			return differ(w, "computation %s: instruction %s: called computation %d is %s vs %s",
				      cn, in, (int)i, x->called[i]->name, y->called[i]->name);
	if (x->ext->n_branches != y->ext->n_branches)
		return differ(w, "computation %s: instruction %s: %d branches vs %d", cn, in,
			      (int)x->ext->n_branches, (int)y->ext->n_branches);
	for (int32_t i = 0; i < x->ext->n_branches; i++)
		if (strcmp(x->ext->branches[i]->name, y->ext->branches[i]->name))
			return differ(w, "computation %s: instruction %s: branch %d is %s vs %s", cn,
				      in, (int)i, x->ext->branches[i]->name, y->ext->branches[i]->name);
	if (x->n_attrs != y->n_attrs)
		return differ(w, "computation %s: instruction %s: %d attributes vs %d", cn, in,
			      (int)x->n_attrs, (int)y->n_attrs);
	for (int32_t i = 0; i < x->n_attrs; i++) {
		const struct hlo_attr *a = &x->attrs[i], *b = &y->attrs[i];
		if (strcmp(a->name, b->name))
			return differ(w, "computation %s: instruction %s: attribute %d is %s vs %s", cn,
				      in, (int)i, a->name, b->name);
		/* metadata kept as fields on one side (or both) compares as its text */
		char *ta = a->value == hlo_metadata_from_fields ? hlo_metadata_text(x) : NULL;
		char *tb = b->value == hlo_metadata_from_fields ? hlo_metadata_text(y) : NULL;
		const char *va = ta ? ta : a->value, *vb = tb ? tb : b->value;
		int same = attr_values_equal(a->name, va, vb);
		if (!same)
			differ(w, "computation %s: instruction %s: attribute %s: '%.80s' vs '%.80s'", cn,
			       in, a->name, va, vb);
		free(ta);
		free(tb);
		if (!same)
			return 0;
	}
	return 1;
}

static int comp_equal(struct why *w, const struct hlo_computation *x, const struct hlo_computation *y)
{
	const char *cn = x->name;
	if (strcmp(x->name, y->name))
		return differ(w, "computation %d is %s vs %s", (int)x->index, x->name, y->name);
	if (x->is_entry != y->is_entry)
		return differ(w, "computation %s: entry flag %d vs %d", cn, x->is_entry, y->is_entry);
	if (!str_eq(x->execution_thread, y->execution_thread))
		return differ(w, "computation %s: execution thread %s vs %s", cn,
			      or_null(x->execution_thread), or_null(y->execution_thread));
	if (x->n_params != y->n_params)
		return differ(w, "computation %s: %d parameters vs %d", cn, (int)x->n_params,
			      (int)y->n_params);
	if (x->n_instrs != y->n_instrs)
		return differ(w, "computation %s: %d instructions vs %d", cn, (int)x->n_instrs,
			      (int)y->n_instrs);
	if (!x->root != !y->root || (x->root && strcmp(x->root->name, y->root->name)))
		return differ(w, "computation %s: root %s vs %s", cn,
			      x->root ? x->root->name : "(none)", y->root ? y->root->name : "(none)");
	for (int32_t i = 0; i < x->n_instrs; i++)
		if (!instr_equal(w, x, x->instrs[i], y->instrs[i]))
			return 0;
	return 1;
}

static int header_equal(struct why *w, const struct hlo_module *a, const struct hlo_module *b)
{
	if (!str_eq(a->name, b->name))
		return differ(w, "module name %s vs %s", or_null(a->name), or_null(b->name));
	if (a->is_scheduled != b->is_scheduled)
		return differ(w, "is_scheduled %d vs %d", a->is_scheduled, b->is_scheduled);
	if (a->n_aliases != b->n_aliases)
		return differ(w, "input_output_alias: %d entries vs %d", (int)a->n_aliases,
			      (int)b->n_aliases);
	for (int32_t i = 0; i < a->n_aliases; i++) {
		const struct io_alias *x = &a->aliases[i], *y = &b->aliases[i];
		if (!shape_index_equal(&x->output, &y->output) || x->param != y->param ||
		    !shape_index_equal(&x->param_index, &y->param_index) || x->kind != y->kind)
			return differ(w, "input_output_alias: entry %d differs", (int)i);
	}
	if (a->n_donors != b->n_donors)
		return differ(w, "buffer_donor: %d entries vs %d", (int)a->n_donors, (int)b->n_donors);
	for (int32_t i = 0; i < a->n_donors; i++) {
		const struct buffer_donor *x = &a->donors[i], *y = &b->donors[i];
		if (x->param != y->param || !shape_index_equal(&x->param_index, &y->param_index))
			return differ(w, "buffer_donor: entry %d differs", (int)i);
	}
	if (a->has_entry_layout != b->has_entry_layout)
		return differ(w, "entry_computation_layout present %d vs %d", a->has_entry_layout,
			      b->has_entry_layout);
	if (a->has_entry_layout) {
		if (a->n_entry_layout_params != b->n_entry_layout_params)
			return differ(w, "entry_computation_layout: %d parameters vs %d",
				      (int)a->n_entry_layout_params, (int)b->n_entry_layout_params);
		for (int32_t i = 0; i < a->n_entry_layout_params; i++)
			if (!shapes_eq(a->entry_layout_params[i], b->entry_layout_params[i]))
				return differ(w, "entry_computation_layout: parameter %d differs", (int)i);
		if (!shapes_eq(a->entry_layout_result, b->entry_layout_result))
			return differ(w, "entry_computation_layout: result differs");
	}
	/* The other header attributes, in order; the typed ones were compared above. */
	int32_t i = 0, j = 0;
	for (;;) {
		while (i < a->n_header_attrs && is_typed_header_attr(a->header_attrs[i].name))
			i++;
		while (j < b->n_header_attrs && is_typed_header_attr(b->header_attrs[j].name))
			j++;
		if (i == a->n_header_attrs || j == b->n_header_attrs)
			break;
		const struct hlo_header_attr *x = &a->header_attrs[i++], *y = &b->header_attrs[j++];
		if (strcmp(x->name, y->name) || strcmp(x->value, y->value))
			return differ(w, "header attribute %s=%.80s vs %s=%.80s", x->name, x->value,
				      y->name, y->value);
	}
	if (i != a->n_header_attrs || j != b->n_header_attrs)
		return differ(w, "header attribute %s present on one side only",
			      i < a->n_header_attrs ? a->header_attrs[i].name : b->header_attrs[j].name);
	if (!str_eq(a->stack_frames, b->stack_frames))
		return differ(w, "stack frame tables differ");
	return 1;
}

int hlo_module_equal(const struct hlo_module *a, const struct hlo_module *b, char *why, size_t cap)
{
	struct why w = {why, cap};
	if (why && cap)
		why[0] = 0;
	if (!header_equal(&w, a, b))
		return 0;
	if (a->n_comps != b->n_comps)
		return differ(&w, "%d computations vs %d", (int)a->n_comps, (int)b->n_comps);
	if (!a->entry != !b->entry || (a->entry && strcmp(a->entry->name, b->entry->name)))
		return differ(&w, "entry computation %s vs %s", a->entry ? a->entry->name : "(none)",
			      b->entry ? b->entry->name : "(none)");
	for (int32_t i = 0; i < a->n_comps; i++)
		if (!comp_equal(&w, a->comps[i], b->comps[i]))
			return 0;
	return 1;
}
