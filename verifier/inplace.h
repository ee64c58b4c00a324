/* inplace.h - in-place (must-alias) input/output pairs (hlo-semantics.md section 3).
 *
 * XLA's default AliasInfo::GetInPlaceInputOutputPairs: the operand buffer
 * and the output buffer of a pair must be one buffer. Fusions derive their
 * pairs from the fused computation (through tuples, get-tuple-elements,
 * bitcasts and nested fusions) and add their output_to_operand_aliasing. */
#ifndef HLOPROOF_INPLACE_H
#define HLOPROOF_INPLACE_H
#include "values.h"

struct inplace_pair {
	int32_t operand;     /* operand number */
	int32_t operand_sub; /* sub of the operand's shape tree */
	int32_t output_sub;  /* sub of the instruction's shape tree */
};

struct inplace {
	const struct dataflow *df;
	/* the pairs of gid g are pairs[off[g]..off[g + 1]): most instructions
	 * have none, and 4 bytes each is all they cost */
	int32_t *off;                  /* [gid + 1] */
	struct inplace_pair *pairs;
};

/* Pairs of every instruction. Entries whose indices are not valid for the
 * shapes (a malformed output_to_operand_aliasing) are left out. */
struct inplace *inplace_build(const struct dataflow *df, struct arena *a);

static inline int32_t inplace_pairs(const struct inplace *ip, const struct hlo_instruction *i,
				    const struct inplace_pair **out)
{
	*out = ip->pairs + ip->off[i->gid];
	return ip->off[i->gid + 1] - ip->off[i->gid];
}

/* Case-insensitive substring test (all-reduce-start's `nvshmem` rule). */
int contains_ignore_case(const char *hay, const char *needle);

#endif
