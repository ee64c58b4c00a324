/* oracle.h - the brute-force hazard oracle of docs/hazards.md (tests only).
 *
 * Independent of the deciders: it enumerates every schedule of a small
 * module (every topological order of every executed non-fusion computation,
 * root last), builds every execution trace of each schedule (0, 1 and 2
 * iterations of each while execution, each branch of each conditional
 * execution) and looks for hazard triples event by event. Only XLA's alias
 * analysis (values.h, buffers.h) and CanShareOperandBufferWithUser
 * (liveness.h) are shared with the deciders: they are the model's input.
 *
 * A copy removal is evaluated on a rewritten module: the module is printed,
 * the copy's line is deleted and its uses renamed in the text, and the text
 * is parsed and analysed again. A fused copy (a fusion whose root copies a
 * parameter) goes the same way, its uses reading the fusion operand (one
 * output of a multi-output fusion: its get-tuple-elements' lines go); a
 * copy-start / copy-done pair loses both lines, the copy-done's uses reading
 * the copy-start's operand. The removal is judged by the hazards it
 * introduces (verdicts.md): every schedule and run of the rewritten module
 * against the schedule of the module as given with the copy put back right
 * after its operand, and the same run; hazards compared by identity over the
 * whole module (the "removals" section of oracle.c says how; oracle_removal).
 *
 * Semantic choices where docs/hazards.md leaves room (see the report in
 * tests/README-oracle or the header comment of oracle.c):
 * - parameters and constants are not scheduled (their values exist from
 *   the start of their computation / the program), so schedules differing
 *   only in where a parameter or constant is printed are one schedule;
 * - the root is after every other instruction of its computation; edges out
 *   of the root (a user or control successor printed after it) are dropped;
 * - a removed copy's control edges are dropped, not transferred (XLA's
 *   StripControlDependenciesFrom); the module as given is compared in the
 *   schedule with the copy right after its operand even where that runs
 *   against them;
 * - the comparison is made per run: per branch outcome and per iteration
 *   count (0, 1, 2) alike;
 * - values defined inside embedded computations (fusions, to_apply) take no
 *   part in traces nor in the static hazards; async-wrapped computations do
 *   not run in traces (the async op is one event) but their values count
 *   for the static hazards. */
#ifndef HLOPROOF_TESTS_ORACLE_H
#define HLOPROOF_TESTS_ORACLE_H
#include <stdint.h>
#include "ir.h"
#include "values.h"
#include "buffers.h"
#include "verdict.h"

struct oracle_limits {
	int64_t max_schedules;   /* product over computations; default 20000 */
	int64_t max_traces;      /* per schedule; default 4096 */
	int64_t max_events;      /* per trace; default 100000 */
};

void oracle_default_limits(struct oracle_limits *lim);

enum oracle_status {
	ORACLE_OK = 0,
	ORACLE_TOO_MANY,     /* schedules or traces over the limits: no answer */
	ORACLE_BAD_INPUT,    /* not analysable (dataflow failed, cyclic order, invalid given order) */
};

enum oracle_kind {
	OK_OVERWRITE = 0,      /* t1 < t2 < t3 */
	OK_SAME_TIME,          /* t1 == t2 < t3 */
	OK_SAME_INSTRUCTION,   /* t1 < t2 == t3, not allowed to share */
	OK_READ_ONLY_WRITTEN,  /* static */
	OK_READ_ONLY_OUTPUT,   /* static */
	OK_OUTPUTS_NOT_DISTINCT, /* static */
};
const char *oracle_kind_name(enum oracle_kind k);

/* Answer to "is there a hazard (on this buffer)?" over the schedules. */
struct oracle_answer {
	int given;        /* -1: no given schedule; else 0/1 */
	int some, every;  /* some schedule has one / every schedule has one */
	char *witness;    /* a hazardous schedule, trace and triple (malloc'd; NULL if none) */
	char *clean;      /* a hazard-free schedule (malloc'd; NULL if none) */
};

/* A hazard triple as the oracle identifies it (end-of-run reads have
 * use == NULL and at = the root of the computation whose end reads). */
struct oracle_triple {
	int32_t v, w;
	const struct hlo_instruction *at;  /* the reading instruction */
	int end_read;                      /* read at the end of the program / body */
	enum oracle_kind kind;
	int given, some, every;
};

struct oracle_static {
	enum oracle_kind kind;
	int32_t buffer;
	int32_t v, w;   /* w = -1 when the kind has none */
};

struct oracle;

/* Analyse m (not modified; must outlive the oracle). Returns NULL with a
 * message in err on a dataflow error. */
struct oracle *oracle_new(struct hlo_module *m, const struct oracle_limits *lim, char *err,
			  size_t cap);
void oracle_free(struct oracle *o);
const struct dataflow *oracle_dataflow(const struct oracle *o);
const struct buffers *oracle_buffers(const struct oracle *o);
/* Schedules of the module (capped at max_schedules + 1); -1 on a cyclic order. */
int64_t oracle_count_schedules(struct oracle *o);

struct oracle_module_result {
	enum oracle_status status;
	char why[256];
	int64_t n_schedules;
	struct oracle_answer module;      /* any hazard at all (static ones included) */
	int32_t n_buffers;
	struct oracle_answer *buffer;     /* [n_buffers], static hazards of the buffer included */
	int32_t n_static;
	struct oracle_static *statics;
	int32_t n_triples;
	struct oracle_triple *triples;
};

/* Every hazard of the module as given. Returns 0; status says whether the
 * answer is complete. Free with oracle_module_result_free. */
int oracle_module(struct oracle *o, struct oracle_module_result *out);
void oracle_module_result_free(struct oracle_module_result *r);

/* The buffer of the value(s) at entry parameter `param`, index `idx` (the
 * donation buffer), or -1. */
int32_t oracle_param_buffer(const struct oracle *o, int32_t param, const struct shape_index *idx);

/* Hazard-freedom of a buffer once the control edge from -> to is added:
 * 1 when at least one schedule respects the edge and none has a hazard on
 * the buffer, 0 when some has one or the edge closes a cycle, -1 when the
 * schedules are too many. */
int oracle_buffer_edge_ok(struct oracle *o, int32_t buffer, const struct hlo_instruction *from,
			  const struct hlo_instruction *to);

/* The same with several edges from[k] -> to[k] (a repair may need more
 * than one). */
int oracle_buffer_edges_ok(struct oracle *o, int32_t buffer, const struct hlo_instruction *const *from,
			   const struct hlo_instruction *const *to, int32_t n);

/* Verdict of a donation (input_output_alias entry number `alias`) from a
 * module result: safe / unsafe / schedule-dependent (given: safe / unsafe,
 * or VERDICT_NONE when unscheduled). */
void oracle_donation(const struct oracle *o, const struct oracle_module_result *r, int32_t alias,
		     enum verdict *given, enum verdict *any);

struct oracle_copy_result {
	enum oracle_status status;
	char why[256];
	int layout;            /* layout / memory-space change: necessary without a rewrite */
	enum verdict given;    /* removable / necessary; VERDICT_NONE when unscheduled */
	enum verdict any;      /* removable / necessary / schedule-dependent */
	int64_t n_schedules;
	char *rewritten;       /* the rewritten module text (malloc'd) */
	char *witness, *clean; /* malloc'd, may be NULL */
};

/* One copy to remove: a copy, a fused copy or a copy-start (output -1), or
 * output `output` of a multi-output fusion (oracle_copy_outputs). */
struct oracle_site {
	const struct hlo_instruction *copy;
	int32_t output;
};

/* Verdicts of removing the copies sites[0..n_sites) of m together, judged
 * by the hazards the removal introduces (verdicts.md, "Verdicts for a
 * copy"; the header of the removal section in oracle.c says how): the
 * module with every site removed (in order, each on the text the previous
 * removals left) is compared with m schedule by schedule and trace by
 * trace, each schedule of the rewritten module against the schedule of m
 * it comes from with the removed instructions put back right after their
 * operands. A site whose result changes layout or memory space makes the
 * removal necessary at once (out->layout). With n_edges > 0 the control
 * edges edges_from[k] -> edges_to[k] (instructions of m, not removed, two
 * of one computation) are added to the rewritten module: `any` ranges
 * over its schedules that respect them, `given` is its printed order made
 * to respect them (the first printed among the ready instructions, as
 * rewrite.c prints a module with edges). out->any: removable /
 * necessary / schedule-dependent; out->given: removable / necessary, or
 * VERDICT_NONE when m is not scheduled; out->status ORACLE_TOO_MANY past
 * the limits, ORACLE_BAD_INPUT when the edges close a cycle or a site is
 * not a copy (why says). out->witness: an introduced hazard with its
 * schedule and trace; out->clean: a schedule with none; out->rewritten:
 * the rewritten text (without the edges). Returns 0; free with
 * oracle_copy_result_free. */
int oracle_removal(struct hlo_module *m, const struct oracle_site *sites, int32_t n_sites,
		   const struct hlo_instruction *const *edges_from,
		   const struct hlo_instruction *const *edges_to, int32_t n_edges,
		   const struct oracle_limits *lim, struct oracle_copy_result *out);

/* Verdicts of removing `copy` (an instruction of m): a copy, a fusion whose
 * fused root copies a parameter (through bitcasts), a copy-start (with its
 * copy-done). Returns 0. */
int oracle_copy(struct hlo_module *m, const struct hlo_instruction *copy,
		const struct oracle_limits *lim, struct oracle_copy_result *out);
/* The same for output `output` of a multi-output fusion (-1: as oracle_copy):
 * its get-tuple-elements are deleted and their users read the operand. */
int oracle_copy_output(struct hlo_module *m, const struct hlo_instruction *copy, int32_t output,
		       const struct oracle_limits *lim, struct oracle_copy_result *out);
void oracle_copy_result_free(struct oracle_copy_result *r);
/* Is the module with `copy` removed hazard-free on the merged buffer in
 * every schedule that has `from` (an instruction name in the copy's
 * computation) before `to`? Same return values as oracle_buffer_edge_ok. */
int oracle_copy_edge_ok(struct hlo_module *m, const struct hlo_instruction *copy,
			const struct oracle_limits *lim, const char *from, const char *to);

int oracle_copy_edges_ok(struct hlo_module *m, const struct hlo_instruction *copy,
			 const struct oracle_limits *lim, const char *const *from, const char *const *to,
			 int32_t n);
int oracle_copy_output_edges_ok(struct hlo_module *m, const struct hlo_instruction *copy,
				int32_t output, const struct oracle_limits *lim,
				const char *const *from, const char *const *to, int32_t n);

/* The text of m with `copy` removed (its uses read its operand; its control
 * edges dropped). malloc'd; NULL when the printed text cannot be edited. */
/* The copies instruction x is, as the oracle reads them: 1 with outputs[0]
 * = -1 for a copy, a copy-start, a fusion whose root copies a parameter;
 * the outputs that copy a parameter of a multi-output fusion; 0 otherwise. */
int oracle_copy_outputs(const struct hlo_instruction *x, int32_t *outputs, int cap);
char *oracle_remove_copy_text(const struct hlo_module *m, const struct hlo_instruction *copy);
char *oracle_remove_copy_output_text(const struct hlo_module *m, const struct hlo_instruction *copy,
				     int32_t output);

/* A buffer_donor leaf (param, idx) honored as may-alias output `out`: the
 * module text with the donor entry turned into an input_output_alias entry
 * (malloc'd; NULL when the donor is not found in the printed header). */
char *oracle_donor_text(const struct hlo_module *m, int32_t param, const struct shape_index *idx,
			const struct shape_index *out);
/* The safety verdicts of that alias on the rewritten module (safe / unsafe
 * / schedule-dependent; given when scheduled). With n_edges > 0 (names of
 * from[k] -> to[k]) only checks that these edges leave no hazard: any is
 * then safe or unsafe. */
int oracle_donor(struct hlo_module *m, int32_t param, const struct shape_index *idx,
		 const struct shape_index *out, const struct oracle_limits *lim, int n_edges,
		 const char *const *from, const char *const *to, struct oracle_copy_result *res);

struct buffers;
struct value_set;
/* Do two value sets have a value each in one buffer? (two entry outputs
 * that share a buffer: outputs not distinct) */
int oracle_sets_share_buffer(const struct buffers *bf, const struct value_set *a, const struct value_set *b);

#endif
