/* jobs.c - a fixed list of tasks run on a few threads.
 *
 * A compilation's slow steps (an LLVM module's O3, PTX from it, ptxas on
 * the PTX) are independent but for a chain: a PTX needs its module, a
 * ptxas its PTX. jobs_run takes the whole list at once, each task naming
 * at most one earlier task it must wait for, and runs it on up to `threads`
 * threads, the calling thread one of them. Threads take the lowest-numbered
 * task that may start, so one thread runs the list in order, as a serial
 * loop would. A failure cancels the tasks after it that have not started;
 * the ones before it still run, so every task before the first failure in
 * list order ran and succeeded, and a caller that reports results in list
 * order up to that failure reports what the serial loop would, whatever the
 * number of threads and the timing. Threads that cannot be created are
 * done without: fewer threads run the same tasks. What a task wrote
 * before finishing is there for the tasks that wait for it: the pool's
 * lock orders the one's end before the other's start.
 */
#include "base/base.h"

#include <pthread.h>
#include <stdlib.h>

/* LLVM recurses deeply on large functions; a thread gets as much stack as
 * a process's main thread usually has, twice over. */
#define JOBS_STACK (16u << 20)

enum { TASK_WAITING, TASK_RUNNING, TASK_DONE };

typedef struct pool {
	const jobs_spec *spec;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a task finished */
	unsigned char *state;
	int started;
	int failed; /* the lowest task that failed, or n */
} pool;

/* The lowest task that may start now, -1 when none may yet (*wait: some
 * will once a running one finishes), or -1 with !*wait when none will. */
static int next_task(pool *p, bool *wait)
{
	const jobs_spec *s = p->spec;
	*wait = false;
	for (int i = 0; i < s->n && i <= p->failed; i++) {
		if (p->state[i] != TASK_WAITING)
			continue;
		if (s->after && s->after[i] >= 0 && p->state[s->after[i]] != TASK_DONE) {
			*wait = true;
			continue;
		}
		return i;
	}
	return -1;
}

static void *worker(void *arg)
{
	pool *p = arg;
	const jobs_spec *s = p->spec;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		bool wait;
		int t = next_task(p, &wait);
		if (t < 0) {
			if (!wait)
				break;
			pthread_cond_wait(&p->changed, &p->lock);
			continue;
		}
		p->state[t] = TASK_RUNNING;
		p->started++;
		if (s->start)
			s->start(s->arg, t, p->started, s->n);
		pthread_mutex_unlock(&p->lock);
		bool ok = s->run(s->arg, t);
		pthread_mutex_lock(&p->lock);
		p->state[t] = TASK_DONE;
		if (!ok && t < p->failed)
			p->failed = t;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int jobs_run(const jobs_spec *spec)
{
	pool p = {.spec = spec, .failed = spec->n};
	p.state = calloc((size_t)spec->n + 1, 1);
	int extra = (spec->threads < spec->n ? spec->threads : spec->n) - 1;
	pthread_t *threads = extra > 0 ? malloc(sizeof(pthread_t) * (size_t)extra) : NULL;
	if (!p.state || (extra > 0 && !threads)) {
		free(p.state);
		free(threads);
		return -1;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.changed, NULL);
	int nthreads = 0;
	pthread_attr_t attr;
	if (extra > 0 && pthread_attr_init(&attr) == 0) {
		pthread_attr_setstacksize(&attr, JOBS_STACK);
		while (nthreads < extra && pthread_create(&threads[nthreads], &attr, worker, &p) == 0)
			nthreads++;
		pthread_attr_destroy(&attr);
	}
	worker(&p);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
	free(threads);
	free(p.state);
	return p.failed;
}
