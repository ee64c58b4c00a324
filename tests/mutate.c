/* mutate.c - the metamorphic test's module rewriter (tests/metamorphic.sh).
 *
 *   mutate --variants FILE DIR   write DIR/NAME.hlo for every variant below
 *   mutate --compare JSON...     check that every entry of the JSON report's
 *                                first array is equal to the first entry,
 *                                modulo names, positions and order
 *
 * A variant is FILE parsed and printed again from the IR with changes that
 * must not change any analysis: instructions and computations renamed
 * consistently, `%` prefixes dropped or added, operand shapes added,
 * computations reordered (the parser resolves references after reading the
 * whole file, so any order is valid). The printer here is separate from
 * print.c on purpose: it prints references from the IR (through the name
 * map), not from the raw attribute text, and may leave out what print.c
 * always writes. */
#include "ir.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum order { ORDER_TEXT, ORDER_REVERSE, ORDER_ROTATE };

struct variant {
	const char *name;
	int rename;          /* new names for every instruction and computation */
	int pct;             /* 0: no '%', 1: '%' everywhere, 2: on every other name */
	int operand_shapes;  /* 0: none, 1: on every operand, 2: on every other one */
	enum order order;
	int signature;       /* print the (params) -> result signature */
};

static const struct variant variants[] = {
	{"same", 0, 1, 0, ORDER_TEXT, 1},
	{"nopct", 0, 0, 0, ORDER_TEXT, 1},
	{"shapes", 0, 1, 1, ORDER_TEXT, 1},
	{"rename", 1, 1, 0, ORDER_TEXT, 1},
	{"reverse", 0, 1, 0, ORDER_REVERSE, 1},
	{"rotate", 0, 1, 0, ORDER_ROTATE, 0},
	{"mixed", 0, 2, 2, ORDER_ROTATE, 0},
	{"all", 1, 0, 1, ORDER_REVERSE, 0},
};

struct printer {
	FILE *out;
	const struct hlo_module *m;
	const struct variant *v;
	unsigned tick;       /* alternates for the "every other" modes */
};

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static void put_pct(struct printer *p)
{
	if (p->v->pct == 1 || (p->v->pct == 2 && (p->tick++ & 1)))
		fputc('%', p->out);
}

static void put_comp_name(struct printer *p, const struct hlo_computation *c)
{
	put_pct(p);
	if (p->v->rename)
		fprintf(p->out, "comp%d.r", (int)c->index);
	else
		fputs(c->name, p->out);
}

static void put_instr_name(struct printer *p, const struct hlo_instruction *in, int pct)
{
	if (pct)
		put_pct(p);
	if (p->v->rename)
		fprintf(p->out, "v%d_r", (int)in->gid);
	else
		fputs(in->name, p->out);
}

static void put_shape(FILE *out, const struct shape *s)
{
	char small[256];
	size_t n = shape_to_string(s, small, sizeof(small));
	if (n < sizeof(small)) {
		fputs(small, out);
		return;
	}
	char *buf = malloc(n + 1);
	if (!buf) {
		fprintf(stderr, "mutate: out of memory\n");
		exit(3);
	}
	shape_to_string(s, buf, n + 1);
	fputs(buf, out);
	free(buf);
}

static int is_reference_attr(const char *name)
{
	static const char *const refs[] = {
		"to_apply", "calls", "condition", "body", "branch_computations",
		"true_computation", "false_computation", "called_computations",
	};
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(name, refs[i]))
			return 1;
	return 0;
}

static const struct hlo_computation *typed_callee(const struct hlo_instruction *in, const char *attr)
{
	if (!strcmp(attr, "to_apply"))
		return in->to_apply;
	if (!strcmp(attr, "calls"))
		return in->ext->calls;
	if (!strcmp(attr, "condition"))
		return in->ext->condition;
	if (!strcmp(attr, "body"))
		return in->ext->body;
	return NULL;
}

/* Names in a plain reference list `a`, `%a`, `{a, %b}`; -1 when the text is
 * something else (an inline body). Fills names[] up to cap. */
static int split_refs(const char *v, char names[][256], int cap)
{
	int n = 0;
	const char *p = v;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',' || *p == '{' ||
		       *p == '}' || *p == '%')
			p++;
		if (!*p)
			return n;
		if (!is_ident_char(*p))
			return -1;
		const char *s = p;
		while (is_ident_char(*p))
			p++;
		if (n >= cap || p - s >= 256)
			return -1;
		memcpy(names[n], s, (size_t)(p - s));
		names[n][p - s] = 0;
		n++;
	}
}

static void put_attr(struct printer *p, const struct hlo_instruction *in, const struct hlo_attr *a)
{
	static char names[4096][256];
	fprintf(p->out, ", %s=", a->name);
	int ctrl = !strcmp(a->name, "control-predecessors");
	if (a->value == hlo_metadata_from_fields) {
		hlo_print_metadata(p->out, in);
		return;
	}
	if (!ctrl && !is_reference_attr(a->name)) {
		fputs(a->value, p->out);
		return;
	}
	int n = split_refs(a->value, names, 4096);
	if (n < 0) {
		const struct hlo_computation *c = typed_callee(in, a->name);
		if (!c) {
			fprintf(stderr, "mutate: %s: cannot map attribute %s=%s\n", in->name, a->name, a->value);
			exit(3);
		}
		put_comp_name(p, c); /* an inline body, lifted by the parser */
		return;
	}
	int braced = a->value[strspn(a->value, " \t\r\n")] == '{';
	if (braced)
		fputc('{', p->out);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", p->out);
		if (ctrl) {
			const struct hlo_instruction *t = hlo_find_instruction(in->parent, names[i]);
			if (!t) {
				fprintf(stderr, "mutate: %s: unknown control predecessor %s\n", in->name, names[i]);
				exit(3);
			}
			put_instr_name(p, t, 1);
		} else {
			const struct hlo_computation *c = hlo_find_computation(p->m, names[i]);
			if (!c) {
				fprintf(stderr, "mutate: %s: unknown computation %s\n", in->name, names[i]);
				exit(3);
			}
			put_comp_name(p, c);
		}
	}
	if (braced)
		fputc('}', p->out);
}

static void put_instruction(struct printer *p, const struct hlo_instruction *in)
{
	FILE *out = p->out;
	fputs(in->is_root ? "  ROOT " : "  ", out);
	put_instr_name(p, in, 1);
	fputs(" = ", out);
	if (in->shape) {
		put_shape(out, in->shape);
		fputc(' ', out);
	}
	fputs(hlo_opcode_text(in), out);
	fputc('(', out);
	if (in->opcode == OP_PARAMETER) {
		fprintf(out, "%lld", (long long)in->parameter_number);
	} else if (in->opcode == OP_CONSTANT) {
		if (in->literal)
			fputs(in->literal, out);
	} else {
		for (int32_t i = 0; i < in->n_operands; i++) {
			const struct hlo_instruction *o = in->operands[i];
			if (i)
				fputs(", ", out);
			if (o->shape && (p->v->operand_shapes == 1 ||
					 (p->v->operand_shapes == 2 && (p->tick++ & 1)))) {
				put_shape(out, o->shape);
				fputc(' ', out);
			}
			put_instr_name(p, o, 1);
		}
	}
	fputc(')', out);
	for (int32_t i = 0; i < in->n_attrs; i++)
		put_attr(p, in, &in->attrs[i]);
	fputc('\n', out);
}

static void put_computation(struct printer *p, const struct hlo_computation *c)
{
	FILE *out = p->out;
	if (c->is_entry)
		fputs("ENTRY ", out);
	put_comp_name(p, c);
	if (p->v->signature) {
		fputs(" (", out);
		for (int32_t i = 0; i < c->n_params; i++) {
			if (i)
				fputs(", ", out);
			put_instr_name(p, c->params[i], 0);
			fputs(": ", out);
			put_shape(out, c->params[i]->shape);
		}
		fputs(") -> ", out);
		if (c->root && c->root->shape)
			put_shape(out, c->root->shape);
		else
			fputs("()", out);
	}
	fputs(" {\n", out);
	for (int32_t i = 0; i < c->n_instrs; i++)
		put_instruction(p, c->instrs[i]);
	fputc('}', out);
	if (c->execution_thread) {
		fputs(", execution_thread=\"", out);
		for (const char *s = c->execution_thread; *s; s++) {
			if (*s == '"' || *s == '\\')
				fputc('\\', out);
			fputc(*s, out);
		}
		fputc('"', out);
	}
	fputs("\n\n", out);
}

static void put_module(FILE *out, const struct hlo_module *m, const struct variant *v)
{
	/* The header (and stack-frame tables) as print.c writes it: no names in it
	 * but the module's, which no analysis reads. */
	struct hlo_module header = *m;
	header.n_comps = 0;
	header.name = v->rename ? "mutated" : m->name;
	hlo_print_module(out, &header);
	struct printer p = {out, m, v, 0};
	for (int32_t k = 0; k < m->n_comps; k++) {
		int32_t i = k;
		if (v->order == ORDER_REVERSE)
			i = m->n_comps - 1 - k;
		else if (v->order == ORDER_ROTATE)
			i = (k + 1) % m->n_comps;
		put_computation(&p, m->comps[i]);
	}
}

static int write_variants(const char *file, const char *dir)
{
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(file, &d);
	if (!m)
		return 2;
	int rc = 0;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.hlo", dir, variants[i].name);
		FILE *f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "mutate: %s: %s\n", path, strerror(errno));
			rc = 3;
			break;
		}
		put_module(f, m, &variants[i]);
		if (fclose(f) != 0) {
			fprintf(stderr, "mutate: %s: write error\n", path);
			rc = 3;
		}
	}
	hlo_module_free(m);
	return rc;
}

/* ---- comparing reports modulo names and order ------------------------------ */

static json_t *normalize(const json_t *j);

struct sorted_elem {
	char *text;   /* normalized, compact, sorted keys: the sort key */
	json_t *json; /* normalized */
};

static int cmp_elem(const void *a, const void *b)
{
	return strcmp(((const struct sorted_elem *)a)->text, ((const struct sorted_elem *)b)->text);
}

/* Keys whose values name things (or quote names, or number them in text
 * order, or locate them in the file): renaming, reordering and reprinting
 * may change them, so they are compared as null. Everything else (counts,
 * bytes, flags, severities, rule ids, verdicts, families) must be equal. */
static int is_name_key(const char *k)
{
	static const char *const keys[] = {
		"name", "file", "instruction", "computation", "id", "fingerprint", "message",
		"evidence", "line", "column", "col", "startLine", "startColumn", "endLine",
		"endColumn", "uri", "text", "reason", "module", "copy", "operand", "user",
		"witness", "proof", "edge", "from", "to", "at", "path", "copy_done",
		/* the Python place of the finding's instruction (or of a neighbour),
		 * which follows the instruction a rule reports at, itself a name */
		"source",
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return 1;
	return 0;
}

/* Values under name keys become null; arrays of objects or arrays are
 * sorted by their normalized text, since their order may follow names or
 * computation order. Arrays of scalars keep their order (a live range, a
 * shape index, flags). */
static json_t *normalize(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		json_t *o = json_object();
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)j, k, v)
			json_object_set_new(o, k, is_name_key(k) ? json_null() : normalize(v));
		return o;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		int entities = 0;
		for (size_t i = 0; i < n; i++)
			entities |= json_is_object(json_array_get(j, i)) || json_is_array(json_array_get(j, i));
		json_t *a = json_array();
		if (!entities) {
			for (size_t i = 0; i < n; i++)
				json_array_append_new(a, normalize(json_array_get(j, i)));
			return a;
		}
		struct sorted_elem *e = calloc(n ? n : 1, sizeof(*e));
		if (!e)
			exit(3);
		for (size_t i = 0; i < n; i++) {
			e[i].json = normalize(json_array_get(j, i));
			e[i].text = json_dumps(e[i].json, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
			if (!e[i].text)
				exit(3);
		}
		qsort(e, n, sizeof(*e), cmp_elem);
		for (size_t i = 0; i < n; i++) {
			json_array_append_new(a, e[i].json);
			free(e[i].text);
		}
		free(e);
		return a;
	}
	default:
		return json_deep_copy(j);
	}
}

static int compare_report(const char *path)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		fprintf(stderr, "mutate: %s:%d: %s\n", path, err.line, err.text);
		return 2;
	}
	json_t *entries = NULL;
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
		if (json_is_array(v)) {
			entries = v;
			break;
		}
	if (!entries || json_array_size(entries) < 2) {
		fprintf(stderr, "mutate: %s: no array of at least two entries\n", path);
		json_decref(root);
		return 2;
	}
	json_t *first = normalize(json_array_get(entries, 0));
	int rc = 0;
	for (size_t i = 1; i < json_array_size(entries); i++) {
		json_t *e = json_array_get(entries, i);
		json_t *n = normalize(e);
		if (!json_equal(first, n)) {
			char *a = json_dumps(first, JSON_SORT_KEYS | JSON_COMPACT);
			char *b = json_dumps(n, JSON_SORT_KEYS | JSON_COMPACT);
			json_t *f = json_object_get(e, "file");
			fprintf(stderr, "mutate: %s: entry %zu (%s) differs:\n  want %.400s\n  got  %.400s\n",
				path, i, json_is_string(f) ? json_string_value(f) : "?", a, b);
			free(a);
			free(b);
			rc = 1;
		}
		json_decref(n);
	}
	json_decref(first);
	json_decref(root);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--variants"))
		return write_variants(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "--compare")) {
		int rc = 0;
		for (int i = 2; i < argc; i++) {
			int r = compare_report(argv[i]);
			if (r > rc)
				rc = r;
		}
		return rc;
	}
	fprintf(stderr, "usage: mutate --variants FILE DIR | mutate --compare JSON...\n");
	return 2;
}
