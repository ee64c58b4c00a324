/* gen_small.h - deterministic random small HLO modules for the oracle
 * agreement test and the soak run (tests only).
 *
 * A module has an entry of 3-12 instructions over 1-3 parameters (some
 * donated through input_output_alias, some buffer_donor), elementwise ops,
 * dynamic-update-slice with constant (also out-of-range, clamped) and
 * non-constant starts, dynamic-slice and slice reads, tuples and
 * get-tuple-elements, sometimes a while loop (state updated in place,
 * swizzled, read after update) and a two-branch conditional, copies placed
 * at random (useless, protecting an in-place update, at the root, layout
 * copies of 2-D values; a quarter of them wrapped-copy fusions, some
 * copy-start / copy-done pairs), bitcast views of buffers that a DUS writes
 * and slices read (f32[8] as f32[2,4]{1,0}, f32[2,4]{1,0} as f32[4,2]{1,0}
 * and as the transposed f32[4,2]{0,1}, a kLoop DUS fusion on bitcast(x)),
 * occasional control-predecessors, and is_scheduled=true on about half
 * (the text order is then the schedule). */
#ifndef HLOPROOF_TESTS_GEN_SMALL_H
#define HLOPROOF_TESTS_GEN_SMALL_H
#include <stdint.h>

/* The module text for one attempt of a seed (malloc'd). Always the same
 * text for the same (seed, attempt). */
char *gen_small_attempt(uint64_t seed, int attempt);

/* The module text for a seed: the first attempt that parses and whose
 * schedules number at most max_schedules (malloc'd). *attempts (may be
 * NULL) receives the attempt number used. NULL when 64 attempts failed
 * (a generator bug: every attempt should parse). */
char *gen_small(uint64_t seed, int64_t max_schedules, int *attempts);

#endif
