/* jobs.h - --jobs N: independent per-module jobs on a few threads.
 *
 * jobs_run calls fn(arg, i) once for every i in [0, n), on up to `threads`
 * threads (the calling thread when threads <= 1 or n <= 1). Jobs are handed
 * out one at a time, in the order `order` lists them (NULL: index order).
 * They must share no mutable state: each job writes only its own result
 * slot, and the caller emits the results in index order afterwards, so the
 * output does not depend on `threads` or the order. */
#ifndef HLOPROOF_JOBS_H
#define HLOPROOF_JOBS_H
#include <stddef.h>

#define JOBS_MAX 256

/* Returns once every job has run. A thread that cannot be started leaves its
 * share to the others (the calling thread works too), so it never fails. */
void jobs_run(int threads, size_t n, const size_t *order, void (*fn)(void *arg, size_t i),
	      void *arg);

/* The files' indices, largest file first (ties, and files that cannot be
 * read, in index order): a long job started last would leave the other
 * threads idle while it runs. malloc'd; NULL when out of memory. */
size_t *jobs_order_by_size(const char *const *files, size_t n);

/* The threads a --jobs value asks for (the CLI checks its range, 0..JOBS_MAX):
 * n itself, or for 0 the number of online CPUs (at most JOBS_MAX). */
int jobs_threads(int n);

#endif
