/* fuzz_buffers.c - libFuzzer target: the analysis pipeline `buffers` runs
 * (dataflow values, in-place pairs, alias buffers, orderings, live ranges,
 * interference) on every module that parses. Besides "no crash, no hang, no
 * leak", two properties XLA's definitions give for free are checked:
 * interference is symmetric (MayInterfere is two LiveRangeStrictlyBefore
 * tests, one each way), and every value is in exactly one buffer. */
#include "liveness.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_MAX_INSTRUCTIONS 4000  /* keep one input well under the 10 s timeout */
#define FUZZ_MAX_PAIRS_VALUES 48    /* pairwise tests per buffer */

static void check_ordering(struct hlo_module *m, const struct dataflow *df,
			   const struct inplace *ip, const struct buffers *bufs,
			   struct ordering *ord)
{
	struct liveness lv;
	liveness_init(&lv, df, ip, ord);
	for (int32_t k = 0; k < bufs->n_buffers; k++) {
		const struct hlo_buffer *b = &bufs->buffers[k];
		int32_t n = b->n_values < FUZZ_MAX_PAIRS_VALUES ? b->n_values : FUZZ_MAX_PAIRS_VALUES;
		for (int32_t i = 0; i < n; i++)
			for (int32_t j = i + 1; j < n; j++) {
				int ab = may_interfere(&lv, b->values[i], b->values[j]);
				int ba = may_interfere(&lv, b->values[j], b->values[i]);
				if (!ab != !ba) {
					fprintf(stderr, "may_interfere not symmetric: values %d and %d: %d vs %d\n",
						(int)b->values[i], (int)b->values[j], ab, ba);
					abort();
				}
			}
	}
	int32_t va, vb;
	buffers_any_interference(&lv, bufs, &va, &vb);
	(void)m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("<fuzz>", (const char *)data, size, &d);
	if (!m)
		return 0;
	if (m->n_instrs > FUZZ_MAX_INSTRUCTIONS) {
		hlo_module_free(m);
		return 0;
	}
	struct dataflow *df = dataflow_run(m, &m->arena, &d);
	if (!df) {
		if (d.errors == 0)
			abort(); /* a rejection must say why */
		hlo_module_free(m);
		return 0;
	}
	struct inplace *ip = inplace_build(df, &m->arena);
	struct buffers *bufs = buffers_build(df, ip, &m->arena);
	if (!ip || !bufs)
		abort();
	/* every value in exactly one buffer */
	uint8_t *seen = calloc((size_t)df->n_values + 1, 1);
	for (int32_t k = 0; k < bufs->n_buffers; k++)
		for (int32_t i = 0; i < bufs->buffers[k].n_values; i++) {
			int32_t v = bufs->buffers[k].values[i];
			if (v < 0 || v >= df->n_values || seen[v]++) {
				fprintf(stderr, "value %d in two buffers (or out of range)\n", (int)v);
				abort();
			}
		}
	free(seen);
	struct ordering *dep = ordering_build_ex(m, ORDER_DEPENDENCY, &m->arena, NULL, &d);
	if (dep) {
		check_ordering(m, df, ip, bufs, dep);
		for (int32_t v = 0; v < df->n_values; v++) {
			struct live_range r;
			value_live_range(df, v, df->values[v].def->parent, &r);
		}
		if (m->is_scheduled) {
			struct ordering *seq = ordering_build_from(dep, ORDER_SEQUENTIAL, &m->arena);
			if (seq)
				check_ordering(m, df, ip, bufs, seq);
		}
	} else if (d.errors == 0) {
		abort(); /* a rejection must say why */
	}
	hlo_module_free(m);
	return 0;
}
