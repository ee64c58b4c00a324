/* jobs.c - a tiny work queue over pthreads (jobs.h). */
#include "jobs.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct queue {
	pthread_mutex_t lock;
	size_t next, n;
	void (*fn)(void *arg, size_t i);
	void *arg;
};

static void *worker(void *p)
{
	struct queue *q = p;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		size_t i = q->next < q->n ? q->next++ : q->n;
		pthread_mutex_unlock(&q->lock);
		if (i >= q->n)
			return NULL;
		q->fn(q->arg, i);
	}
}

/* Deep but bounded recursion in the parser and analyses: give each worker
 * the stack the main thread usually has, not less. */
#define JOBS_STACK_BYTES ((size_t)16 << 20)

void jobs_run(int threads, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	if (threads > JOBS_MAX)
		threads = JOBS_MAX;
	if ((size_t)threads > n)
		threads = (int)n;
	if (threads <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	struct queue q = {.next = 0, .n = n, .fn = fn, .arg = arg};
	pthread_mutex_init(&q.lock, NULL);
	pthread_t tid[JOBS_MAX];
	int started[JOBS_MAX] = {0};
	pthread_attr_t attr;
	int have_attr = pthread_attr_init(&attr) == 0;
	if (have_attr)
		pthread_attr_setstacksize(&attr, JOBS_STACK_BYTES);
	/* threads - 1 helpers; the calling thread is the last worker. */
	for (int t = 0; t < threads - 1; t++)
		started[t] = pthread_create(&tid[t], have_attr ? &attr : NULL, worker, &q) == 0;
	if (have_attr)
		pthread_attr_destroy(&attr);
	worker(&q);
	for (int t = 0; t < threads - 1; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&q.lock);
}

int jobs_parse(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > JOBS_MAX)
		return -1;
	if (v == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		v = cpus < 1 ? 1 : cpus > JOBS_MAX ? JOBS_MAX : cpus;
	}
	*out = (int)v;
	return 0;
}
