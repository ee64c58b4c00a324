/* ir.h - the module as parsed: computations, instructions, call graph.
 * Everything is allocated in the module's arena; the IR is read-only after
 * hlo_parse() returns (later stages keep their own side tables). */
#ifndef HLOPROOF_IR_H
#define HLOPROOF_IR_H
#include <stdint.h>
#include <stddef.h>
#include "arena.h"
#include "diag.h"
#include "shape.h"

enum opcode {
	OP_UNKNOWN = 0,
#define OP(e, s, f) OP_##e,
#include "opcodes.def"
#undef OP
	OP_COUNT
};

#define OPF_E 1u /* elementwise */
const char *opcode_name(enum opcode op);
enum opcode opcode_from_name(const char *s, size_t n);
unsigned opcode_flags(enum opcode op);

struct hlo_computation;
struct hlo_instruction;

/* An attribute as printed: name and its raw value text (balanced, trimmed).
 * An instruction's carry no position (a module holds millions of them; the
 * parser reports a bad one while it still knows where it is). */
struct hlo_attr {
	const char *name;
	const char *value;
};

/* The value of an instruction's metadata attribute whose text is exactly
 * what its op_name, source_file and source_line print as: the text is not
 * kept (a module has one per instruction); hlo_print_metadata() and
 * hlo_metadata_text() give it back. */
extern const char hlo_metadata_from_fields[];

/* A module header attribute, and where it was printed (validate.c reports
 * the alias rules there). */
struct hlo_header_attr {
	const char *name;
	const char *value;
	struct srcpos pos;
};

struct slice_dim { int64_t start, limit, stride; };

/* output_to_operand_aliasing entry {output}: (operand, {operand_index}) */
struct operand_alias {
	struct shape_index output;
	int32_t operand;
	struct shape_index operand_index;
};

struct kv { const char *key, *value; };

enum alias_kind { ALIAS_MAY = 0, ALIAS_MUST = 1 };

/* input_output_alias entry: output {o} lives in parameter p at {i}. */
struct io_alias {
	struct shape_index output;
	int32_t param;
	struct shape_index param_index;
	enum alias_kind kind;
	struct srcpos pos;
};

/* buffer_donor entry (p, {i}). */
struct buffer_donor {
	int32_t param;
	struct shape_index param_index;
	struct srcpos pos;
};

enum call_context { CALL_NONE = 0, CALL_CONTROL_FLOW = 1, CALL_EMBEDDED = 2, CALL_BOTH = 3 };

/* Field order: the fields the parser, the edge builder and most passes read
 * for every instruction come first, so they share one or two cache lines;
 * the rest is ordered to leave little padding (176 bytes on LP64, a 2-byte
 * hole after the flags). */
struct hlo_instr_ext;

struct hlo_instruction {
	const char *name;
	struct shape *shape;          /* may be shared between instructions */
	struct hlo_computation *parent;
	struct hlo_instruction **operands;
	struct hlo_instruction **users;       /* distinct users, in text order */
	int32_t index;                /* position in parent->instrs (text order) */
	int32_t gid;                  /* unique over the module, dense from 0 */
	int32_t n_operands, n_users;
	uint16_t opcode;              /* enum opcode */
	uint16_t async_wrapped_opcode;/* for X-start/-update/-done sugar: enum opcode of X */
	uint8_t is_root;
	uint8_t has_result_shape;     /* result shape was printed */

	/* Called computations, in the order of the attributes (to_apply, calls,
	 * condition, body, branches, called_computations); ext names the roles. */
	int32_t n_called;
	int32_t source_line;          /* from metadata; 0 = none */
	int32_t source_column;        /* metadata source_column; 0 = none */
	int32_t stack_frame_id;       /* metadata stack_frame_id (1-based, m->stack); 0 = none */
	struct hlo_computation **called;

	struct srcpos pos;            /* of the name in the definition */

	/* Operand shapes as printed are checked against the operands' own
	 * (shape_compatible) and not kept: nothing reads them. */

	/* A get-tuple-element's index= and a parameter's number share their
	 * place (-1 when absent): read each only for its opcode. */
	union {
		int64_t tuple_index;
		int64_t parameter_number;
	};
	const char *op_name, *source_file;    /* from metadata, unquoted */

	int32_t n_attrs;                      /* every attribute, raw, in printed order */
	int32_t n_dimensions;
	struct hlo_attr *attrs;
	/* typed attributes common enough to keep here (hlogen 10^6: 27% and
	 * 12% of the instructions, and every constant); the rest are in ext */
	int64_t *dimensions;
	struct hlo_computation *to_apply;
	const char *literal;                  /* constant(...) raw text inside the parens */
	/* what only some instructions carry; never NULL (HLO_NO_EXT when none) */
	struct hlo_instr_ext *ext;
};

/* The fields only some instructions have: control edges, typed attributes,
 * the roles of called computations. Kept out of struct hlo_instruction, which
 * a module holds 10^6 of (docs/performance.md, Memory): an instruction
 * without any points at hlo_no_ext (all zero, read-only); the parser gives
 * an instruction its own when it sets one of these fields. */
struct hlo_instr_ext {
	int32_t n_ctrl_preds, n_ctrl_succs;
	struct hlo_instruction **ctrl_preds;
	struct hlo_instruction **ctrl_succs;

	int32_t n_branches;                   /* true/false become branches {0: true, 1: false} */
	struct hlo_computation **branches;
	struct hlo_computation *calls, *condition, *body;

	const char *opcode_text;      /* as printed (for unknown opcodes and async sugar) */

	int32_t n_slice, n_dynamic_slice_sizes, n_out_aliases,
		n_operand_layout_constraints, n_frontend_attrs;
	struct slice_dim *slice;
	int64_t *dynamic_slice_sizes;
	struct operand_alias *out_aliases;    /* output_to_operand_aliasing */
	struct shape **operand_layout_constraints;
	struct kv *frontend_attrs;
	const char *custom_call_target;       /* unquoted */
	const char *fusion_kind;              /* kLoop, kInput, kOutput, kCustom */
	const char *backend_config;           /* raw text */
};

extern const struct hlo_instr_ext hlo_no_ext;
/* read-only: a write through it faults */
#define HLO_NO_EXT ((struct hlo_instr_ext *)&hlo_no_ext)

/* The module's stack frame tables (JAX >= 0.9: FileNames, FunctionNames,
 * FileLocations, StackFrames), by id - 1. Ids are 1-based as XLA's
 * StackFrames::GetStackFrame reads them; 0 = none. A row whose id is not in
 * 1..rows of its table is dropped; a reference to a missing row reads as
 * none (source.c), so hostile tables cannot point outside. */
struct hlo_file_location {
	int32_t file, function;      /* ids into files[] / functions[] */
	int32_t line, end_line, column, end_column;
};
struct hlo_stack_frame {
	int32_t location;            /* id into locations[] */
	int32_t parent;              /* frame id of the caller, 0 = none (printed offset undone) */
};
struct hlo_stack_index {
	int32_t n_files, n_functions, n_locations, n_frames;
	const char **files, **functions;      /* NULL where no row was printed */
	struct hlo_file_location *locations;  /* file == 0: no row */
	struct hlo_stack_frame *frames;       /* location == 0: no row */
};

struct hlo_callsite {
	struct hlo_instruction *instr;
	enum call_context context;
};

struct hlo_computation {
	const char *name;
	struct srcpos pos;
	struct hlo_module *module;
	int32_t index;                 /* position in module->comps (text order) */
	uint8_t is_entry;
	uint8_t has_signature;
	const char *execution_thread;  /* NULL = main */
	int32_t n_instrs, n_params, n_callers;
	struct hlo_instruction **instrs;  /* text order = schedule when scheduled */
	struct hlo_instruction *root;
	struct hlo_instruction **params;  /* by parameter number (NULL holes are a parse error) */
	struct hlo_callsite *callers;
	enum call_context context;        /* union of the contexts it is called in */
};

struct hlo_module {
	struct arena arena;
	const char *file;            /* as given on the command line */
	const char *name;
	/* the whole input text (NUL-terminated copy in the arena); NULL after
	 * the parse when it was large (HLO_DISCARD_SOURCE_BYTES): the IR holds
	 * copies of every string, so its pages were given back */
	const char *source;
	size_t source_len;
	struct srcpos pos;
	uint8_t is_scheduled;
	uint8_t has_header;
	uint8_t has_entry_layout;

	int32_t n_comps, n_instrs;    /* n_instrs: over all computations (= next gid) */
	struct hlo_computation **comps;  /* text order */
	struct hlo_computation *entry;

	int32_t n_aliases, n_donors;
	struct io_alias *aliases;
	struct buffer_donor *donors;
	struct srcpos alias_pos, donor_pos;  /* of the header attributes */

	/* entry_computation_layout, when printed */
	int32_t n_entry_layout_params;
	struct shape **entry_layout_params;
	struct shape *entry_layout_result;

	int32_t n_header_attrs;       /* every header attribute, raw, in order */
	struct hlo_header_attr *header_attrs;
	const char *stack_frames;     /* raw FileNames...StackFrames text, or NULL */
	struct hlo_stack_index stack; /* the same tables parsed (all zero when absent) */
	/* computation_trips per computation index, made on first use
	 * (tripcount.c): [2 i] the trips, [2 i + 1] in_loop + 1 (0: not yet) */
	int64_t *trips_memo;
	int32_t n_trips_memo;
};

/* Limits on hostile input; exceeding one is an input error (exit 2). */
#define HLO_MAX_FILE_BYTES ((size_t)2 << 30)  /* 2 GiB */
/* From this size on the text's pages are given back after the parse. */
#define HLO_DISCARD_SOURCE_BYTES ((size_t)8 << 20)
#define HLO_MAX_NESTING 64                   /* brackets, tuple shapes, inline bodies */
#define HLO_MAX_INSTRUCTIONS 50000000
#define HLO_MAX_STACK_ROWS (1 << 22)         /* rows of one stack frame table */

/* Parse an HLO text module. `file` names the input in messages. On error
 * returns NULL after reporting FILE:LINE:COL: error: ... through `d`.
 * The text need not be NUL-terminated; it is copied into the arena. */
struct hlo_module *hlo_parse(const char *file, const char *text, size_t len, struct diag *d);
/* Read a whole file ("-" = stdin) and parse it. */
struct hlo_module *hlo_parse_file(const char *path, struct diag *d);
void hlo_module_free(struct hlo_module *m);
/* Module-level checks run at the end of hlo_parse (validate.c): the
 * input_output_alias and buffer_donor rules of semantics doc 7.2 and the
 * entry_computation_layout against the entry signature. Returns 0 or -1
 * after reporting the first problem through `d`. */
int hlo_validate(struct hlo_module *m, struct diag *d);

/* The opcode as printed: the async sugar's own text, or the opcode's name. */
static inline const char *hlo_opcode_text(const struct hlo_instruction *in)
{
	return in->ext->opcode_text ? in->ext->opcode_text : opcode_name((enum opcode)in->opcode);
}

/* The async sugar X-start / X-update / X-done of an opcode X other than
 * call (reduce-scatter-start, all-to-all-start, fusion-start): its to_apply,
 * calls, called_computations are X's own (the reducer, the fused
 * computation), called as X calls them, not an async wrapped computation.
 * XLA's parser builds the wrapped computation {parameters; ROOT X} around
 * it; here the start stands for that computation, its operands read until
 * the done (late binding). The chain's async-start decides for -update and
 * -done; call-start's to_apply is the wrapped computation, as before. */
int hlo_async_sugar_embeds(const struct hlo_instruction *in);
/* How `in` calls its computations (the context of every callsite): by its
 * opcode, or by X's for the sugar above. */
enum call_context hlo_call_context(const struct hlo_instruction *in);

/* Lookups. */
struct hlo_computation *hlo_find_computation(const struct hlo_module *m, const char *name);
struct hlo_instruction *hlo_find_instruction(const struct hlo_computation *c, const char *name);
/* Find "name" or "name@computation" anywhere in the module (entry first). */
struct hlo_instruction *hlo_find_instruction_any(const struct hlo_module *m, const char *spec);

/* Canonical printer: HLO text that re-parses to the same IR. */
#include <stdio.h>
void hlo_print_module(FILE *out, const struct hlo_module *m);
/* The text of in's metadata as its fields print:
 * {op_name="..." source_file="..." source_line=N}, each when present. */
void hlo_print_metadata(FILE *out, const struct hlo_instruction *in);
/* The same text, malloc'd (the caller frees it). */
char *hlo_metadata_text(const struct hlo_instruction *in);
/* Structural equality of two modules (names, opcodes, shapes, edges, attributes). */
int hlo_module_equal(const struct hlo_module *a, const struct hlo_module *b, char *why, size_t cap);

#endif
