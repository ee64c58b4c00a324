/* buffers.h - alias sets: values that must share one allocation
 * (XLA's HloAliasAnalysis, hlo-semantics.md section 4). */
#ifndef HLOPROOF_BUFFERS_H
#define HLOPROOF_BUFFERS_H
#include "inplace.h"

enum buffer_flag {
	BUF_READ_ONLY = 1u,      /* holds a constant or an entry parameter value with no io alias */
	BUF_ENTRY_PARAM = 2u,    /* holds a value defined by an entry parameter */
	BUF_ALIASED_OUTPUT = 4u, /* holds a value at an entry root index named by input_output_alias */
	BUF_LIVE_OUT = 8u,       /* holds a value at the entry root */
};

/* Values in one buffer stay below this (buffers_build checks), so the count
 * and the flags share one word: 24 bytes a buffer, not 32. */
#define HLO_BUFFER_MAX_VALUES ((1 << 28) - 1)

struct hlo_buffer {
	int32_t id;
	uint32_t n_values : 28;
	uint32_t flags : 4;  /* enum buffer_flag */
	int32_t *values;     /* value ids, ascending */
	uint64_t bytes;      /* largest value (arrays: data size; tuples: 8 per element) */
};

struct buffers {
	const struct dataflow *df;
	const struct inplace *ip;
	int32_t n_buffers;
	struct hlo_buffer *buffers;  /* ids in order of each buffer's smallest value id */
	int32_t *buffer_of;          /* [value id] */
	uint8_t *value_read_only;    /* [value id]: constant or non-aliased entry parameter */
	const struct io_alias **root_alias; /* [entry root sub]: its input_output_alias, or NULL */
};

struct buffers *buffers_build(const struct dataflow *df, const struct inplace *ip, struct arena *a);

/* The distinct buffers at (i, sub), ascending ids, written to out (room for
 * the value set's size); returns the count. */
int32_t buffers_at(const struct buffers *b, const struct hlo_instruction *i, int32_t sub,
		   int32_t *out);
/* Some index of i may hold more than one buffer (InstructionBuffersAreAmbiguous). */
int buffers_instruction_ambiguous(const struct buffers *b, const struct hlo_instruction *i);
/* No buffer appears at two indices of i (InstructionBuffersAreDistinct). */
int buffers_instruction_distinct(const struct buffers *b, const struct hlo_instruction *i);
/* Is the entry output index (as a sub of the root) aliased to a parameter? */
const struct io_alias *buffers_output_alias(const struct buffers *b, int32_t root_sub);
/* XLA's IsReadOnly-style check used by copy insertion (section 6.3). */
static inline int buffers_value_read_only(const struct buffers *b, int32_t v)
{
	return b->value_read_only[v];
}

#endif
