/* source.c - an instruction's source place and stack from its metadata, the
 * framework frame filter, and parameters' JAX argument paths (source.h). */
#include "source.h"
#include <stdio.h>
#include <string.h>

static const char *const framework_dirs[] = {
	"jax", "jaxlib", "flax", "optax", "equinox", "site-packages", "dist-packages",
};

/* Does `path` hold the component sequence `e` ("a" or "a/b"; a leading '/'
 * anchors it at the start)? */
static int has_components(const char *path, const char *e)
{
	size_t n = strlen(e);
	while (n > 0 && e[n - 1] == '/')
		n--;
	if (!n)
		return 0;
	if (e[0] == '/')
		return !strncmp(path, e, n) && (path[n] == '/' || !path[n]);
	for (const char *p = path; *p; p++)
		if ((p == path || p[-1] == '/') && !strncmp(p, e, n) && (p[n] == '/' || !p[n]))
			return 1;
	return 0;
}

int source_is_framework(const char *path, const struct source_filter *f)
{
	if (!path)
		return 0;
	if (!strncmp(path, "<frozen ", 8))
		return 1;
	for (size_t i = 0; i < sizeof(framework_dirs) / sizeof(*framework_dirs); i++)
		if (has_components(path, framework_dirs[i]))
			return 1;
	for (int32_t i = 0; f && i < f->n_prefixes; i++)
		if (has_components(path, f->prefixes[i]))
			return 1;
	return 0;
}

/* The package root: past the last site-packages/ or dist-packages/
 * component, else at the last component that names a framework package
 * ("/opt/flax/flax/core/x.py" -> "flax/core/x.py", as Python imports it),
 * else at the second of two equal components (a checkout of its package). */
const char *source_display_path(const char *path)
{
	if (!path)
		return NULL;
	const char *out = path;
	static const char *const dirs[] = {"site-packages/", "dist-packages/"};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(dirs[k]);
		for (const char *p = path; (p = strstr(p, dirs[k])); p += n)
			if ((p == path || p[-1] == '/') && p + n > out && p[n])
				out = p + n;
	}
	if (out != path)
		return out;
	/* a checkout holding its package: "torax/torax/_src/x.py" -> "torax/_src/x.py" */
	for (const char *p = path; *p; p++) {
		if (p != path && p[-1] != '/')
			continue;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : 0;
		if (n && !strncmp(e + 1, p, n) && e[1 + n] == '/' && e[2 + n])
			out = e + 1;
	}
	/* the packages of framework_dirs (the first five: not the two above) */
	for (const char *p = path; *p; p++) {
		if (p != path && p[-1] != '/')
			continue;
		for (size_t i = 0; i < 5; i++) {
			size_t n = strlen(framework_dirs[i]);
			if (!strncmp(p, framework_dirs[i], n) && p[n] == '/' && p[n + 1])
				out = p;
		}
	}
	return out;
}

/* The display path cut to at most SOURCE_PATH_SHOWN characters at a
 * component boundary ("…/transport_model/x.py"); the file name is kept
 * whole. */
#define SOURCE_PATH_SHOWN 32
static void short_path(const char *path, char *buf, size_t cap)
{
	const char *d = source_display_path(path);
	size_t n = strlen(d);
	const char *p = d;
	while (n - (size_t)(p - d) > SOURCE_PATH_SHOWN) {
		const char *s = strchr(p, '/');
		if (!s || !s[1])
			break;
		p = s + 1;
	}
	snprintf(buf, cap, "%s%s", p == d ? "" : ".../", p);
}

/* A Python qualified name as a traceback shows it: "<locals>." parts
 * dropped, and cut to its last dotted parts when long
 * ("A._make.<locals>.approach" -> "A._make.approach" -> "approach"). */
#define SOURCE_FUNCTION_SHOWN 24
static void short_function(const char *fn, char *buf, size_t cap)
{
	size_t k = 0;
	for (const char *p = fn; *p && k + 1 < cap;) {
		if (!strncmp(p, "<locals>.", 9)) {
			p += 9;
			continue;
		}
		buf[k++] = *p++;
	}
	buf[k] = 0;
	char *b = buf;
	while (strlen(b) > SOURCE_FUNCTION_SHOWN) {
		char *dot = strchr(b, '.');
		if (!dot || !dot[1])
			break;
		b = dot + 1;
	}
	if (b != buf)
		memmove(buf, b, strlen(b) + 1);
	if (strlen(buf) > SOURCE_FUNCTION_SHOWN)
		snprintf(buf + SOURCE_FUNCTION_SHOWN - 3, 4, "...");
}

static const char *dup(struct arena *a, const char *s)
{
	return s ? arena_strdup(a, s) : NULL;
}

#define SOURCE_MAX_STEPS (4 * SOURCE_MAX_STACK)

/* The frames of stack frame `id`, innermost first, into fr[0..cap): a frame
 * met again (a cycle in parent ids) ends the walk, so does a reference to a
 * missing row, and so do SOURCE_MAX_STEPS steps. */
static int32_t table_frames(const struct hlo_stack_index *x, int32_t id, struct source_frame *fr,
			    int32_t cap)
{
	int32_t seen[SOURCE_MAX_STEPS], n = 0;
	for (int32_t steps = 0; id >= 1 && id <= x->n_frames && steps < SOURCE_MAX_STEPS && n < cap;
	     steps++) {
		for (int32_t k = 0; k < steps; k++)
			if (seen[k] == id)
				return n;
		seen[steps] = id;
		const struct hlo_stack_frame *sf = &x->frames[id - 1];
		int32_t loc = sf->location;
		if (loc < 1 || loc > x->n_locations || !x->locations[loc - 1].file)
			break;
		const struct hlo_file_location *l = &x->locations[loc - 1];
		const char *file = l->file <= x->n_files ? x->files[l->file - 1] : NULL;
		const char *fn = l->function >= 1 && l->function <= x->n_functions
					 ? x->functions[l->function - 1] : NULL;
		if (file)
			fr[n++] = (struct source_frame){file, fn, l->line, l->column};
		id = sf->parent;
	}
	return n;
}

static int32_t frames_of(const struct hlo_instruction *in, struct source_frame *all)
{
	int32_t n = 0;
	const struct hlo_module *m = in->parent ? in->parent->module : NULL;
	if (m && in->stack_frame_id > 0)
		n = table_frames(&m->stack, in->stack_frame_id, all, SOURCE_MAX_STACK);
	if (!n && in->source_file)
		all[n++] = (struct source_frame){in->source_file, NULL, in->source_line,
						 in->source_column};
	return n;
}

/* An instruction XLA made without a place (a loop body's parameter, a
 * constant, a tuple): the first neighbour with one, a parameter's caller
 * first, then its operands, then its users. Not for an entry parameter,
 * whose place is the function's signature, not its users'. */
static const struct hlo_instruction *neighbour_with_place(const struct hlo_instruction *in,
							  struct source_frame *all, int32_t *n)
{
	const struct hlo_computation *c = in->parent;
	if (in->opcode == OP_PARAMETER) {
		if (!c || c->is_entry)
			return NULL;
		for (int32_t i = 0; i < c->n_callers; i++)
			if (c->callers[i].instr && (*n = frames_of(c->callers[i].instr, all)))
				return c->callers[i].instr;
	}
	for (int32_t i = 0; i < in->n_operands; i++)
		if ((*n = frames_of(in->operands[i], all)))
			return in->operands[i];
	for (int32_t i = 0; i < in->n_users; i++)
		if ((*n = frames_of(in->users[i], all)))
			return in->users[i];
	return NULL;
}

struct source_info *source_of(const struct hlo_instruction *in, const struct source_filter *f,
			      struct arena *a)
{
	struct source_frame all[SOURCE_MAX_STACK];
	if (!in)
		return NULL;
	int32_t n = frames_of(in, all);
	const struct hlo_instruction *via = n ? NULL : neighbour_with_place(in, all, &n);
	const char *op_name = in->op_name ? in->op_name : via ? via->op_name : NULL;
	if (!n && !op_name)
		return NULL;
	struct source_info *s = arena_alloc(a, sizeof(*s));
	struct source_frame *st = n ? arena_array(a, (size_t)n, sizeof(*st)) : NULL;
	if (!s || (n && !st))
		return NULL;
	memset(s, 0, sizeof(*s));
	s->op_name = dup(a, op_name);
	s->arg_path = dup(a, instr_arg_path(in));
	s->via = via ? dup(a, via->name) : NULL;
	s->stack = st;
	for (int32_t i = 0; i < n; i++) {
		if (f && f->mode == FRAMES_ALL ? 0 : source_is_framework(all[i].file, f))
			continue;
		st[s->n_stack++] = (struct source_frame){dup(a, all[i].file), dup(a, all[i].function),
							 all[i].line, all[i].column};
	}
	if (s->n_stack) {
		s->place = st[0];
	} else if (n) {
		s->place = (struct source_frame){dup(a, all[0].file), dup(a, all[0].function),
						 all[0].line, all[0].column};
		s->framework = 1;
	}
	return s;
}

struct source_info *source_copy(const struct source_info *s, struct arena *a)
{
	if (!s)
		return NULL;
	struct source_info *c = arena_alloc(a, sizeof(*c));
	if (!c)
		return NULL;
	*c = *s;
	c->op_name = dup(a, s->op_name);
	c->arg_path = dup(a, s->arg_path);
	c->via = dup(a, s->via);
	c->place.file = dup(a, s->place.file);
	c->place.function = dup(a, s->place.function);
	c->stack = s->n_stack ? arena_array(a, (size_t)s->n_stack, sizeof(*c->stack)) : NULL;
	if (s->n_stack && !c->stack)
		return NULL;
	for (int32_t i = 0; i < s->n_stack; i++)
		c->stack[i] = (struct source_frame){dup(a, s->stack[i].file), dup(a, s->stack[i].function),
						    s->stack[i].line, s->stack[i].column};
	return c;
}

int source_place_text(const struct source_info *s, char *buf, size_t cap)
{
	if (!s || !s->place.file) {
		if (cap)
			buf[0] = 0;
		return 0;
	}
	const struct source_frame *p = &s->place;
	char line[16] = "", file[SOURCE_PATH_SHOWN + 512], fn[SOURCE_FUNCTION_SHOWN + 256] = "";
	if (p->line > 0)
		snprintf(line, sizeof(line), ":%d", (int)p->line);
	short_path(p->file, file, sizeof(file));
	if (p->function)
		short_function(p->function, fn, sizeof(fn));
	/* framework code (no user frame): "in" the framework's file, not "at"
	 * the user's; a neighbour's place is "near" */
	const char *at = s->via ? "near" : s->framework ? "in" : "at";
	if (*fn)
		return snprintf(buf, cap, "%s %s%s (%s)", at, file, line, fn);
	return snprintf(buf, cap, "%s %s%s", at, file, line);
}

const char *param_arg_path(const struct hlo_module *m, int32_t p)
{
	const struct hlo_computation *e = m->entry;
	if (!e || p < 0 || p >= e->n_params || !e->params[p])
		return NULL;
	const char *op = e->params[p]->op_name;
	if (!op || !*op || strchr(op, '/'))
		return NULL;
	/* a name every parameter shares (PyTorch/XLA's "xla__device_data")
	 * names none of them */
	for (int32_t q = 0; q < e->n_params; q++)
		if (q != p && e->params[q] && e->params[q]->op_name && !strcmp(e->params[q]->op_name, op))
			return NULL;
	return op;
}

const char *instr_arg_path(const struct hlo_instruction *in)
{
	if (!in || in->opcode != OP_PARAMETER || !in->parent || !in->parent->is_entry)
		return NULL;
	return param_arg_path(in->parent->module, (int32_t)in->parameter_number);
}
