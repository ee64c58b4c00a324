/* cmd_buffers.c - `hloproof buffers`: every alias-analysis buffer of a module
 * with its values, their live ranges and the buffer's flags. */
#include "budget.h"
#include "cli.h"
#include "liveness.h"
#include "source.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers with more values than this are not tested pairwise for interference. */
#define INTERFERENCE_MAX_VALUES 256

struct bctx {
	struct hlo_module *m;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct ordering *ord;          /* NULL when the ordering could not be built */
	struct liveness lv;
	int32_t *def_order;            /* [gid]: global definition order */
	int topological;               /* live ranges use a topological order, not a schedule */
	const struct budget *budget;   /* --time-budget-ms; NULL: unlimited */
	int32_t n_budget_unknown;      /* interference tests the budget cut short */
};

/* Global definition order (copy removal's numbering, extended to embedded
 * callees): from the entry, parameters first, a while's condition and body
 * before the while, any other callee once before its caller. */
static void number_definitions(struct bctx *c)
{
	struct hlo_module *m = c->m;
	int32_t *num = c->def_order, next = 0;
	for (int32_t g = 0; g < m->n_instrs; g++)
		num[g] = -1;
	uint8_t *done = calloc((size_t)m->n_comps + 1, 1);
	struct frame {
		struct hlo_computation *comp;
		int32_t j, k;   /* instruction, callee of it */
	} *stack = malloc(((size_t)m->n_comps + 1) * sizeof(*stack));
	if (!done || !stack)
		die("out of memory");
	for (int32_t r = -1; r < m->n_comps; r++) {
		struct hlo_computation *start = r < 0 ? m->entry : m->comps[r];
		if (!start || done[start->index])
			continue;
		int32_t sp = 0;
		done[start->index] = 1;
		stack[sp++] = (struct frame){start, -1, 0};
		while (sp > 0) {
			struct frame *f = &stack[sp - 1];
			if (f->j < 0) {
				for (int32_t p = 0; p < f->comp->n_params; p++)
					if (f->comp->params[p])
						num[f->comp->params[p]->gid] = next++;
				f->j = 0;
				f->k = 0;
			}
			if (f->j >= f->comp->n_instrs) {
				sp--;
				continue;
			}
			struct hlo_instruction *i = f->comp->instrs[f->j];
			struct hlo_computation *callee = NULL;
			if (i->opcode == OP_WHILE) {
				if (f->k == 0)
					callee = i->ext->condition;
				else if (f->k == 1)
					callee = i->ext->body;
				if (f->k < 2) {
					f->k++;
					if (!callee)
						continue;
				}
			} else if (f->k < i->n_called) {
				callee = i->called[f->k++];
			}
			if (callee) {
				if (!done[callee->index] && sp < m->n_comps) {
					done[callee->index] = 1;
					stack[sp++] = (struct frame){callee, -1, 0};
				}
				continue;
			}
			if (num[i->gid] < 0)
				num[i->gid] = next++;
			f->j++;
			f->k = 0;
		}
	}
	free(done);
	free(stack);
}

static int cmp_def_order(const void *x, const void *y, void *arg)
{
	const struct bctx *c = arg;
	const struct hlo_value *a = &c->df->values[*(const int32_t *)x];
	const struct hlo_value *b = &c->df->values[*(const int32_t *)y];
	int32_t ka = c->def_order[a->def->gid], kb = c->def_order[b->def->gid];
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void sort_by_definition(const struct bctx *c, int32_t *ids, int32_t n)
{
	qsort_r(ids, (size_t)n, sizeof(int32_t), cmp_def_order, (void *)c);
}

/* 1: two values interfere; 0: none do; -1: not decided (too many values to
 * test pairwise, or the time budget ran out): reported as such, never as 0. */
static int buffer_interferes(struct bctx *c, const struct hlo_buffer *b)
{
	if (b->n_values < 2)
		return 0;
	if (!c->ord || b->n_values > INTERFERENCE_MAX_VALUES)
		return -1;
	for (int32_t i = 0; i < b->n_values; i++) {
		if (budget_expired(c->budget)) {
			c->n_budget_unknown++;
			return -1;
		}
		for (int32_t j = i + 1; j < b->n_values; j++)
			if (may_interfere(&c->lv, b->values[i], b->values[j]))
				return 1;
	}
	return 0;
}

static void index_string(const struct dataflow *df, const struct hlo_value *v, char *buf,
			 size_t cap)
{
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	struct shape_index si = {dataflow_value_index(df, v, idx), idx};
	shape_index_to_string(&si, buf, cap);
}

static json_t *value_json(struct bctx *c, int32_t vid)
{
	const struct hlo_value *v = &c->df->values[vid];
	int32_t idx[SHAPE_MAX_DEPTH + 1];
	int32_t n = dataflow_value_index(c->df, v, idx);
	json_t *ja = json_array();
	for (int32_t k = 0; k < n; k++)
		json_array_append_new(ja, json_integer(idx[k]));
	struct live_range r = {0, 0};
	value_live_range(c->df, vid, v->def->parent, &r);
	json_t *live = json_array();
	json_array_append_new(live, json_integer(r.first));
	json_array_append_new(live, json_integer(r.last));
	json_t *o = json_object();
	json_object_set_new(o, "instruction", json_string(v->def->name));
	json_object_set_new(o, "computation", json_string(v->def->parent->name));
	json_object_set_new(o, "index", ja);
	json_object_set_new(o, "live", live);
	const char *arg = instr_arg_path(v->def);
	if (arg)
		json_object_set_new(o, "arg_path", json_string(arg));
	return o;
}

static const char *const flag_names[] = {"read-only", "entry-parameter", "aliased-output",
					 "live-out", "interference", "interference-unknown"};

static unsigned buffer_flags(struct bctx *c, const struct hlo_buffer *b)
{
	unsigned f = b->flags;
	int i = buffer_interferes(c, b);
	if (i > 0)
		f |= 16u;
	else if (i < 0)
		f |= 32u;
	return f;
}

/* Values of buffer b to show: all, or those live at `at`. Returns the count. */
static int32_t select_values(struct bctx *c, const struct hlo_buffer *b,
			     const struct hlo_instruction *at, int32_t *out)
{
	int32_t n = 0;
	for (int32_t k = 0; k < b->n_values; k++)
		if (!at || value_live_at(c->df, b->values[k], at))
			out[n++] = b->values[k];
	sort_by_definition(c, out, n);
	return n;
}

static void dump_json(FILE *out, json_t *j)
{
	char *txt = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!txt)
		die("out of memory");
	fputs(txt, out);
	free(txt);
	json_decref(j);
}

/* One module's object, streamed buffer by buffer so that a module with a
 * million buffers never holds its whole JSON tree in memory. */
static void module_json(FILE *out, struct bctx *c, const struct hlo_instruction *at)
{
	fputs("{\"name\":", out);
	dump_json(out, json_string(c->m->name ? c->m->name : ""));
	fputs(",\"buffers\":[", out);
	int32_t *sel = NULL;
	size_t cap = 0;
	int first = 1;
	for (int32_t k = 0; k < c->bufs->n_buffers; k++) {
		const struct hlo_buffer *b = &c->bufs->buffers[k];
		if ((size_t)b->n_values > cap) {
			cap = (size_t)b->n_values;
			sel = realloc(sel, cap * sizeof(int32_t));
			if (!sel)
				die("out of memory");
		}
		int32_t n = select_values(c, b, at, sel);
		if (at && n == 0)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "id", json_integer(b->id));
		json_object_set_new(o, "bytes", json_integer((json_int_t)b->bytes));
		json_t *vl = json_array();
		for (int32_t q = 0; q < n; q++)
			json_array_append_new(vl, value_json(c, sel[q]));
		json_object_set_new(o, "values", vl);
		json_t *fl = json_array();
		unsigned f = buffer_flags(c, b);
		for (unsigned q = 0; q < sizeof(flag_names) / sizeof(flag_names[0]); q++)
			if (f & (1u << q))
				json_array_append_new(fl, json_string(flag_names[q]));
		json_object_set_new(o, "flags", fl);
		if (!first)
			fputc(',', out);
		first = 0;
		dump_json(out, o);
	}
	free(sel);
	fputs("]}", out);
}

static void module_text(FILE *out, struct bctx *c, const struct hlo_instruction *at,
			const char *ordering_name)
{
	fprintf(out, "module %s: %d buffers, %d values; live ranges in %s order; %s ordering\n",
		c->m->name ? c->m->name : "", c->bufs->n_buffers, c->df->n_values,
		c->topological ? "topological (unscheduled)" : "schedule", ordering_name);
	if (at)
		fprintf(out, "live at %s (%s, position %d):\n", at->name, at->parent->name,
			sequence_position(at));
	int32_t *sel = NULL;
	size_t cap = 0;
	for (int32_t k = 0; k < c->bufs->n_buffers; k++) {
		const struct hlo_buffer *b = &c->bufs->buffers[k];
		if ((size_t)b->n_values > cap) {
			cap = (size_t)b->n_values;
			sel = realloc(sel, cap * sizeof(int32_t));
			if (!sel)
				die("out of memory");
		}
		int32_t n = select_values(c, b, at, sel);
		if (at && n == 0)
			continue;
		fprintf(out, "buffer %d: %llu bytes, %d value%s", b->id, (unsigned long long)b->bytes,
			b->n_values, b->n_values == 1 ? "" : "s");
		unsigned f = buffer_flags(c, b);
		const char *sep = " [";
		for (unsigned q = 0; q < sizeof(flag_names) / sizeof(flag_names[0]); q++)
			if (f & (1u << q)) {
				fprintf(out, "%s%s", sep, flag_names[q]);
				sep = ", ";
			}
		fprintf(out, "%s\n", *sep == ',' ? "]" : "");
		for (int32_t q = 0; q < n; q++) {
			const struct hlo_value *v = &c->df->values[sel[q]];
			char ix[256];
			index_string(c->df, v, ix, sizeof(ix));
			struct live_range r = {0, 0};
			value_live_range(c->df, sel[q], v->def->parent, &r);
			const char *arg = instr_arg_path(v->def);
			fprintf(out, "  %s %s%s %s%s%s%s%s live [%d,%d]\n", at ? "owner" : "value",
				v->def->name, ix, v->def->parent->name, v->is_phi ? " (phi)" : "",
				arg ? " (" : "", arg ? arg : "", arg ? ")" : "", r.first, r.last);
		}
	}
	free(sel);
}

int cmd_buffers(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"at", required_argument, 0, 'a'},
		{"ordering", required_argument, 0, 'o'},
		{"time-budget-ms", required_argument, 0, 'T'},
		{0, 0, 0, 0},
	};
	int json = 0, c;
	long long budget_ms = -1;
	const char *at_name = NULL;
	int kind = -1; /* default: dependency (what CPU copy insertion used) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (strcmp(optarg, "text"))
				return cli_usage_error("buffers", "unknown format '%s'", optarg);
			break;
		case 'a':
			at_name = optarg;
			break;
		case 'o':
			if (!strcmp(optarg, "dependency"))
				kind = ORDER_DEPENDENCY;
			else if (!strcmp(optarg, "sequential"))
				kind = ORDER_SEQUENTIAL;
			else
				return cli_usage_error("buffers", "unknown ordering '%s'", optarg);
			break;
		case 'T':
			if (budget_parse_ms(optarg, &budget_ms) < 0)
				return cli_usage_error("buffers", "--time-budget-ms wants milliseconds, not '%s'",
						       optarg);
			break;
		default:
			return cli_usage_error("buffers", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("buffers", "no input files");
	char **files = cli_expand_inputs(argc - optind, argv + optind);
	if (!files)
		return EXIT_INPUT;
	struct budget budget;
	budget_init(&budget, budget_ms);
	int status = EXIT_CLEAN, n_out = 0, unknown = 0;
	if (json)
		fputs("{\"modules\":[", stdout);
	for (char **f = files; *f; f++) {
		/* A file not analysed within the budget is reported, not dropped. */
		if (budget_expired(&budget)) {
			unknown++;
			if (json) {
				if (n_out++)
					fputc(',', stdout);
				dump_json(stdout, json_pack("{s:s, s:s, s:s}", "file", *f, "status", "unknown",
							    "reason", BUDGET_EXHAUSTED_REASON));
			} else {
				printf("%s: unknown: %s\n", *f, BUDGET_EXHAUSTED_REASON);
			}
			continue;
		}
		struct diag d;
		diag_init(&d, stderr);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (!m) {
			status = EXIT_INPUT;
			continue;
		}
		struct bctx bc = {0};
		bc.m = m;
		bc.budget = &budget;
		bc.df = dataflow_run(m, &m->arena, &d);
		if (!bc.df) {
			status = EXIT_INPUT;
			hlo_module_free(m);
			continue;
		}
		const struct hlo_instruction *at = NULL;
		if (at_name) {
			at = hlo_find_instruction_any(m, at_name);
			if (!at) {
				fprintf(stderr, "%s: error: no instruction '%s'\n", *f, at_name);
				status = EXIT_INPUT;
				hlo_module_free(m);
				continue;
			}
		}
		bc.ip = inplace_build(bc.df, &m->arena);
		bc.bufs = buffers_build(bc.df, bc.ip, &m->arena);
		enum order_kind k = kind < 0 ? ORDER_DEPENDENCY : (enum order_kind)kind;
		if (k == ORDER_SEQUENTIAL && !m->is_scheduled) {
			fprintf(stderr, "%s: error: --ordering=sequential needs a scheduled module "
					"(is_scheduled=true)\n", *f);
			status = EXIT_INPUT;
			hlo_module_free(m);
			continue;
		}
		bc.ord = ordering_build_ex(m, k, &m->arena, NULL, &d);
		if (!bc.ord) {
			status = EXIT_INPUT;
			hlo_module_free(m);
			continue;
		}
		liveness_init(&bc.lv, bc.df, bc.ip, bc.ord);
		bc.topological = !m->is_scheduled;
		bc.def_order = arena_array(&m->arena, (size_t)m->n_instrs + 1, sizeof(int32_t));
		number_definitions(&bc);
		if (json) {
			if (n_out++)
				fputc(',', stdout);
			module_json(stdout, &bc, at);
		} else
			module_text(stdout, &bc, at, order_kind_name(k));
		if (bc.n_budget_unknown) {
			unknown++;
			fprintf(stderr, "%s: %d interference test%s not decided: %s\n", *f,
				(int)bc.n_budget_unknown, bc.n_budget_unknown == 1 ? "" : "s",
				BUDGET_EXHAUSTED_REASON);
		}
		hlo_module_free(m);
	}
	if (json)
		fputs("]}\n", stdout);
	cli_free_inputs(files);
	/* Unknown is not clean; a definite input error still wins. */
	return unknown && status == EXIT_CLEAN ? EXIT_INTERNAL : status;
}
