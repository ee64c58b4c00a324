/* jobs.c - a tiny work queue over pthreads (jobs.h). */
#include "jobs.h"
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct queue {
	pthread_mutex_t lock;
	size_t next, n;
	const size_t *order;
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
		q->fn(q->arg, q->order ? q->order[i] : i);
	}
}

/* Deep but bounded recursion in the parser and analyses: give each worker
 * the stack the main thread usually has, not less. */
#define JOBS_STACK_BYTES ((size_t)16 << 20)

void jobs_run(int threads, size_t n, const size_t *order, void (*fn)(void *arg, size_t i),
	      void *arg)
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
	struct queue q = {.next = 0, .n = n, .order = order, .fn = fn, .arg = arg};
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

struct sized {
	off_t size;
	size_t i;
};

static int cmp_sized(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

size_t *jobs_order_by_size(const char *const *files, size_t n)
{
	struct sized *s = malloc((n ? n : 1) * sizeof(*s));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	if (!s || !order) {
		free(s);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		s[i].size = stat(files[i], &st) == 0 ? st.st_size : 0;
		s[i].i = i;
	}
	qsort(s, n, sizeof(*s), cmp_sized);
	for (size_t i = 0; i < n; i++)
		order[i] = s[i].i;
	free(s);
	return order;
}

int jobs_threads(int n)
{
	if (n > 0)
		return n > JOBS_MAX ? JOBS_MAX : n;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > JOBS_MAX ? JOBS_MAX : (int)cpus;
}
