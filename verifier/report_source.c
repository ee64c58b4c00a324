/* report_source.c - "source" in JSON (report_source.h). */
#include "report.h"
#include "report_source.h"

static json_t *int_or_null(int32_t v)
{
	return v > 0 ? json_integer(v) : json_null();
}

static void frame_fields(json_t *o, const struct source_frame *f)
{
	json_object_set_new(o, "file", report_json_string_or_null(f->file));
	json_object_set_new(o, "line", int_or_null(f->line));
	json_object_set_new(o, "column", int_or_null(f->column));
	json_object_set_new(o, "function", report_json_string_or_null(f->function));
}

json_t *report_source_json(const struct source_info *s)
{
	if (!s)
		return json_null();
	json_t *o = json_object(), *st = json_array();
	frame_fields(o, &s->place);
	json_object_set_new(o, "op_name", report_json_string_or_null(s->op_name));
	json_object_set_new(o, "arg_path", report_json_string_or_null(s->arg_path));
	json_object_set_new(o, "framework", json_boolean(s->framework));
	json_object_set_new(o, "via", report_json_string_or_null(s->via));
	for (int32_t i = 0; i < s->n_stack; i++) {
		json_t *f = json_object();
		frame_fields(f, &s->stack[i]);
		json_array_append_new(st, f);
	}
	json_object_set_new(o, "stack", st);
	return o;
}

void report_add_source(json_t *o, const struct hlo_instruction *in, const struct source_filter *f)
{
	struct arena a;
	arena_init(&a);
	struct source_info *s = in ? source_of(in, f, &a) : NULL;
	json_object_set_new(o, "source", report_source_json(s));
	arena_free(&a);
}

