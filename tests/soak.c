/* soak.c - `make soak N=100000 START=1`: the agreement check of
 * test_agreement on N generated modules, seeds START..START+N-1, with the
 * deciders' cross check on every module (SOAK_CROSS=0: off), and every
 * other module without proof samples (AGREE_BY_CLASS).
 * Prints "soak: N modules, N disagreements"; exit 1 on any disagreement. */
#include "agree.h"
#include "arena.h"
#include "gen_small.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long long n = argc > 1 ? atoll(argv[1]) : 1000, start = argc > 2 ? atoll(argv[2]) : 1;
	if (n < 0 || start < 0) {
		fprintf(stderr, "usage: soak [N [START]]\n");
		return 2;
	}
	/* the heap as `check` sets it up (arena.h): without it some seed
	 * ranges ran 10x slower, half of it in page faults under Z3 */
	arena_heap_huge_pages(ARENA_HEAP_PAD);
	/* SOAK_CROSS=0 skips the graph-vs-Z3 cross check (10x faster) */
	const char *cx = getenv("SOAK_CROSS");
	int cross = !cx || strcmp(cx, "0");
	struct agree_stats st;
	memset(&st, 0, sizeof(st));
	long long bad_gen = 0;
	for (long long s = start; s < start + n; s++) {
		char label[64];
		snprintf(label, sizeof(label), "seed %lld", s);
		char *t = gen_small((uint64_t)s, 1000, NULL);
		if (!t) {
			fprintf(stderr, "%s: the generator made no usable module\n", label);
			bad_gen++;
			continue;
		}
		agree_module(t, label,
			     AGREE_ALL_BUFFERS | (cross ? AGREE_CROSS_CHECK : 0) | (s % 2 ? AGREE_BY_CLASS : 0), &st,
			     stderr);
		free(t);
		if ((s - start + 1) % 10000 == 0)
			fprintf(stderr, "soak: %lld modules so far, %lld disagreements\n", s - start + 1,
				(long long)st.disagreed);
	}
	printf("soak: %lld fused and asynchronous copies compared; %lld copies in modules with a hazard of "
	       "their own\n", (long long)st.fused_async, (long long)st.copies_pre);
	printf("soak: %lld modules, %lld disagreements (%lld copies, %lld buffers, %lld alias donations, %lld donors, "
	       "%lld unknown, %lld repairs re-checked (%lld needing several edges), %lld skipped, %lld generator failures; "
	       "triples %lld/%lld matched; oracle %.1f s, deciders %.1f s)\n",
	       (long long)st.modules, (long long)st.disagreed, (long long)st.copies,
	       (long long)st.buffers, (long long)st.donations, (long long)st.donors, (long long)st.unknown,
	       (long long)st.edges_checked, (long long)st.multi_edge_repairs, (long long)st.skipped, bad_gen,
	       (long long)(st.triples - st.triple_mismatch), (long long)st.triples, st.oracle_s,
	       st.decider_s);
	printf("soak: %lld copies at a root whose operand has other users, unverified repair accepted "
	       "(tests/agree.h)\n", (long long)st.root_users_unverified);
	printf("soak: decider time: copies %.1f s, buffers %.1f s, module hazards %.1f s\n",
	       st.decider_copies_s, st.decider_buffers_s, st.decider_module_s);
	return st.disagreed || bad_gen ? 1 : 0;
}
