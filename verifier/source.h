/* source.h - where an instruction came from in the user's Python code, from
 * its HLO metadata, and the JAX argument path of an entry parameter.
 *
 * Two forms of metadata (parse.c reads both):
 *   old: source_file="..." source_line=N [source_column=N] on the instruction;
 *   new (JAX >= 0.9): stack_frame_id=N into the module's StackFrames table,
 *        whose frames chain to their callers (m->stack, ir.h).
 * The frame filter keeps the user's frames: those outside the framework
 * (jax, jaxlib, flax, optax, equinox, site-packages, dist-packages as a path
 * component, and paths starting "<frozen "), plus the prefixes the
 * configuration adds (<frames><framework path="..."/></frames>,
 * docs/config.md). The place shown is the innermost user frame; when every
 * frame is the framework's, the innermost one, marked as framework code.
 * --frames=all keeps every frame and shows the innermost.
 *
 * Display: text shows a path from its package root: after its last
 * site-packages/ or dist-packages/ component, else from its last component
 * that names a framework package ("/opt/flax/flax/core/x.py" ->
 * "flax/core/x.py"), else from the second of two equal components
 * ("torax/torax/_src/x.py" -> "torax/_src/x.py"), otherwise as given; a path still longer than 32
 * characters loses its leading components (".../fvm/diffusion_terms.py").
 * A function is shown as a traceback names it ("<locals>." dropped, a long
 * qualified name cut to its last parts). JSON keeps both as given. */
#ifndef HLOPROOF_SOURCE_H
#define HLOPROOF_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "ir.h"

#define SOURCE_MAX_STACK 64          /* frames kept per instruction */
#define SOURCE_MAX_PREFIXES 256      /* framework prefixes a configuration may add */

struct source_frame {
	const char *file;            /* NULL: unknown */
	const char *function;        /* NULL: unknown (old-style metadata has none) */
	int32_t line, column;        /* 0: unknown */
};

enum frames_mode { FRAMES_USER = 0, FRAMES_ALL = 1 };

struct source_filter {
	enum frames_mode mode;
	int32_t n_prefixes;
	const char **prefixes;       /* added framework paths (config) */
};

struct source_info {
	const char *op_name;         /* NULL: none */
	const char *arg_path;        /* an entry parameter's JAX argument path, or NULL */
	struct source_frame place;   /* file NULL: no place */
	int framework;               /* place is framework code: no user frame */
	const char *via;             /* the place is this neighbour's (the instruction has
				      * none): a loop body parameter's caller, else the
				      * first operand, else the first user with one; NULL */
	int32_t n_stack;
	struct source_frame *stack;  /* user frames (all with FRAMES_ALL), innermost first */
};

/* The source of `in` (filter NULL: the default), its strings and stack copied
 * into `a`: the result outlives the module. An instruction without a file
 * takes a neighbour's place, named in `via` (text says "near" for "at").
 * Returns NULL when neither has metadata this reads (no op_name, no file),
 * or out of memory. */
struct source_info *source_of(const struct hlo_instruction *in, const struct source_filter *f,
			      struct arena *a);
/* A deep copy into `a` (NULL for NULL). */
struct source_info *source_copy(const struct source_info *s, struct arena *a);

/* Is `path` framework code under filter f (NULL: the default)? */
int source_is_framework(const char *path, const struct source_filter *f);
/* The path from its package root: a pointer into `path` past its last
 * site-packages/ or dist-packages/ component, else at its last component
 * named jax, jaxlib, flax, optax or equinox, else at the second of two equal
 * components, else `path` itself. */
const char *source_display_path(const char *path);
/* "at model/train.py:177 (scan_fn)", "at x.py:3", "in flax/core/axes_scan.py:9
 * (f)" (framework code: no user frame), "near z.py:4 (g)" (a neighbour's
 * place: via); empty when s has no place. Returns what snprintf does. */
int source_place_text(const struct source_info *s, char *buf, size_t cap);

/* The JAX argument path of entry parameter p: the op_name of its metadata when
 * it looks like one (JAX writes the argument's pytree path there, e.g.
 * "params['w']" or "state[3][1]"; an op_name with '/' is an operation path,
 * not an argument, and one that another entry parameter has too names
 * neither), or NULL. */
const char *param_arg_path(const struct hlo_module *m, int32_t p);
/* The same for any instruction: its parameter's path when it is an entry
 * parameter, else NULL. */
const char *instr_arg_path(const struct hlo_instruction *in);

#endif
