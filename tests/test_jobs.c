/* test_jobs.c - jobs_run, the task list compile_module runs on threads.
 *
 * With one thread the tasks run in order in the calling thread and stop at
 * the first failure. With several, every task starts after the task it
 * waits for has finished (and sees what it wrote), every task before the
 * first failure in list order runs, none after a failure that waits on it
 * does, the start callback counts 1, 2, ... under the lock, and the result
 * is the lowest failed index whatever the timing. Tasks sleep a little at
 * random so that the threads interleave differently from run to run. */
#include "check.h"
#include "base/base.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define MAXT 64

typedef struct run {
	int n;
	int after[MAXT];
	bool fails[MAXT];
	int value[MAXT];         /* written by the task, read by those after it */
	atomic_int ran[MAXT];    /* 1 once started */
	atomic_int done[MAXT];
	atomic_int order;        /* start sequence as the tasks see it */
	int seq[MAXT];
	int last_started;        /* the start callback's last count (under the lock) */
	bool callback_ok;
	atomic_int bad_dependency;
} run;

static bool task(void *arg, int i)
{
	run *r = arg;
	atomic_store(&r->ran[i], 1);
	r->seq[i] = atomic_fetch_add(&r->order, 1);
	int w = r->after[i];
	if (w >= 0 && (!atomic_load(&r->done[w]) || r->value[w] != w * 7 + 1))
		atomic_fetch_add(&r->bad_dependency, 1);
	struct timespec ts = {0, (long)(rand() % 200) * 1000};
	nanosleep(&ts, NULL);
	r->value[i] = i * 7 + 1;
	atomic_store(&r->done[i], 1);
	return !r->fails[i];
}

static void started(void *arg, int i, int k, int n)
{
	run *r = arg;
	if (k != r->last_started + 1 || n != r->n || i < 0 || i >= n)
		r->callback_ok = false;
	r->last_started = k;
}

static void setup(run *r, int n, unsigned seed)
{
	memset(r, 0, sizeof *r);
	r->n = n;
	r->callback_ok = true;
	srand(seed);
	for (int i = 0; i < n; i++)
		r->after[i] = i && rand() % 3 ? rand() % i : -1;
}

static int go(run *r, int threads)
{
	jobs_spec s = {.n = r->n, .after = r->after, .threads = threads, .run = task, .start = started, .arg = r};
	return jobs_run(&s);
}

int main(void)
{
	static run r;
	/* one thread: in order, in this thread */
	setup(&r, 40, 1);
	CHECK_EQ_INT(go(&r, 1), 40);
	for (int i = 0; i < 40; i++)
		CHECK_EQ_INT(r.seq[i], i);
	CHECK(r.callback_ok && r.last_started == 40);
	/* one thread, a failure: the rest is not run */
	setup(&r, 40, 2);
	r.fails[10] = true;
	CHECK_EQ_INT(go(&r, 1), 10);
	for (int i = 0; i < 40; i++)
		CHECK_EQ_INT(atomic_load(&r.ran[i]), i <= 10);
	/* threads: dependencies respected, everything run */
	for (unsigned seed = 3; seed < 23; seed++) {
		setup(&r, MAXT, seed);
		CHECK_EQ_INT(go(&r, 1 + (int)seed % 8), MAXT);
		CHECK_EQ_INT(atomic_load(&r.bad_dependency), 0);
		CHECK(r.callback_ok && r.last_started == MAXT);
		int ran = 0;
		for (int i = 0; i < MAXT; i++)
			ran += atomic_load(&r.ran[i]);
		CHECK_EQ_INT(ran, MAXT);
	}
	/* threads and failures: the first failure in list order is reported,
	 * every task before it ran, a task waiting on a failed one did not */
	for (unsigned seed = 30; seed < 60; seed++) {
		setup(&r, MAXT, seed);
		int f1 = 5 + rand() % 20, f2 = f1 + 1 + rand() % 20;
		r.fails[f1] = r.fails[f2] = true;
		int got = go(&r, 2 + (int)seed % 6);
		bool all_before = true, none_waiting = true;
		for (int i = 0; i < MAXT; i++) {
			if (i < got && !atomic_load(&r.ran[i]))
				all_before = false;
			if (r.after[i] >= 0 && r.fails[r.after[i]] && atomic_load(&r.ran[i]))
				none_waiting = false;
		}
		CHECK_EQ_INT(got, f1);
		CHECK(all_before);
		CHECK(none_waiting);
		CHECK_EQ_INT(atomic_load(&r.bad_dependency), 0);
		CHECK(r.callback_ok);
	}
	/* more threads than tasks; no task at all */
	setup(&r, 3, 99);
	CHECK_EQ_INT(go(&r, 64), 3);
	setup(&r, 0, 100);
	CHECK_EQ_INT(go(&r, 4), 0);
	return check_report("test_jobs");
}
