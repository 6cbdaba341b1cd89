/* driver.c - a plain-main stand-in for libFuzzer, for machines without
 * clang: links with any fuzz_*.c target (LLVMFuzzerTestOneInput) and runs
 * it under the sanitizers the target was built with.
 *
 *   driver [-t SECONDS] [-n RUNS] [-s SEED] [-o PREFIX] DIR|FILE...
 *
 * Files named on the command line, and every file in the named directories,
 * are seeds; each is run once as is (so a crashing input can be replayed),
 * then mutants of the seeds and of earlier mutants are run until the time or
 * run budget is spent. No coverage feedback: mutations are the classic
 * blind ones (bit flips, interesting bytes and words, inserted, deleted and
 * duplicated runs, splices of two inputs), which is what a bounded CI run
 * can afford anyway. A target that defines LLVMFuzzerCustomMutator (as
 * libFuzzer's interface: a structure- or grammar-aware mutator) gets it
 * called for three mutants in four, and the blind mutations are its
 * LLVMFuzzerMutate. A crash is the sanitizer's report and exit status; the
 * input that caused it is written to PREFIXcrash (PREFIXtimeout for an
 * input that runs over 20 seconds), ready to be replayed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Defined by targets with a mutator of their own. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) __attribute__((weak));
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
/* Provided by the sanitizer runtimes; weak so that a build without them links. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

#define DRIVER_MAX_INPUT 65536
#define POOL 256

typedef struct input {
	uint8_t *data;
	size_t size;
} input;

static input pool[POOL];
/* The input being run, for the crash and timeout files. */
static const uint8_t *current;
static size_t current_size;
static char crash_path[4096], timeout_path[4096];

/* Async-signal-safe: open, write, _exit only. */
static void save_current(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (current_size)
			(void)!write(fd, current, current_size);
		close(fd);
	}
}

static void on_death(void) { save_current(crash_path); }

/* Inputs run so far; a watchdog thread that sees no progress for 20
 * seconds saves the input and ends the process (cheaper than a timer
 * armed around every run). */
static unsigned long progress;

static void *watchdog(void *arg)
{
	static const char msg[] = "driver: an input ran over 20 s\n";
	unsigned long last = (unsigned long)-1, now;
	int still = 0;
	(void)arg;
	for (;;) {
		sleep(1);
		now = __atomic_load_n(&progress, __ATOMIC_RELAXED);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still >= 20) {
			save_current(timeout_path);
			(void)!write(2, msg, sizeof msg - 1);
			_exit(3);
		}
	}
	return NULL;
}

static void run_one(const uint8_t *data, size_t size)
{
	current = data;
	current_size = size;
	LLVMFuzzerTestOneInput(data, size);
	__atomic_add_fetch(&progress, 1, __ATOMIC_RELAXED);
}
static int n_pool;
static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

static void add(const uint8_t *data, size_t size, int slot)
{
	input *in = &pool[slot];
	free(in->data);
	in->data = (uint8_t *)malloc(size ? size : 1);
	memcpy(in->data, data, size);
	in->size = size;
}

static void add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;
	if (!f)
		return;
	buf = (uint8_t *)malloc(DRIVER_MAX_INPUT);
	n = fread(buf, 1, DRIVER_MAX_INPUT, f);
	fclose(f);
	if (n_pool < POOL)
		add(buf, n, n_pool++);
	free(buf);
}

static void add_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char full[4096];
	if (stat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		add_file(path);
		return;
	}
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(full, sizeof full, "%s/%s", path, e->d_name);
		add_file(full);
	}
	if (d)
		closedir(d);
}

static size_t mutate_max(uint8_t *buf, size_t n, size_t max);

static size_t mutate(uint8_t *buf, size_t n) { return mutate_max(buf, n, DRIVER_MAX_INPUT); }

/* libFuzzer's entry point for custom mutators: the blind mutations. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	if (max_size > DRIVER_MAX_INPUT)
		max_size = DRIVER_MAX_INPUT;
	return mutate_max(data, size < max_size ? size : max_size, max_size);
}

static size_t mutate_max(uint8_t *buf, size_t n, size_t max)
{
	static const uint32_t interesting[] = {0, 1, 2, 3, 4, 16, 31, 32, 64, 127, 128, 255, 256, 0x7fff, 0xffff,
					       0x10000, 0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu};
	int rounds = 1 + (int)(rnd() % 4), r;
	for (r = 0; r < rounds; r++) {
		size_t at = n ? rnd() % n : 0, len, i;
		switch (rnd() % 8) {
		case 0: /* bit flip */
			if (n)
				buf[at] ^= (uint8_t)(1u << (rnd() % 8));
			break;
		case 1: /* random byte */
			if (n)
				buf[at] = (uint8_t)rnd();
			break;
		case 2: /* interesting little-endian word, 1, 2 or 4 bytes */
			len = (size_t)1 << (rnd() % 3);
			if (n >= len) {
				uint32_t v = interesting[rnd() % (sizeof interesting / sizeof interesting[0])];
				at = rnd() % (n - len + 1);
				for (i = 0; i < len; i++)
					buf[at + i] = (uint8_t)(v >> (8 * i));
			}
			break;
		case 3: /* small add to a byte */
			if (n)
				buf[at] = (uint8_t)(buf[at] + (rnd() % 9) - 4);
			break;
		case 4: /* delete a run */
			len = n ? 1 + rnd() % (n - at < 16 ? n - at : 16) : 0;
			memmove(buf + at, buf + at + len, n - at - len);
			n -= len;
			break;
		case 5: /* insert random bytes */
			len = 1 + rnd() % 16;
			if (n + len <= max) {
				memmove(buf + at + len, buf + at, n - at);
				for (i = 0; i < len; i++)
					buf[at + i] = (uint8_t)rnd();
				n += len;
			}
			break;
		case 6: /* copy a run over another place */
			if (n > 1) {
				size_t from = rnd() % n;
				len = 1 + rnd() % 32;
				if (len > n - from)
					len = n - from;
				if (len > n - at)
					len = n - at;
				memmove(buf + at, buf + from, len);
			}
			break;
		default: /* splice: the tail of another input */
			if (n_pool) {
				const input *o = &pool[rnd() % n_pool];
				size_t from = o->size ? rnd() % o->size : 0;
				len = o->size - from;
				if (at + len > max)
					len = at < max ? max - at : 0;
				memcpy(buf + at, o->data + from, len);
				n = at + len;
			}
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *prefix = "driver-";
	double seconds = 10;
	long runs = -1, done = 0;
	int i, seeds;
	uint8_t *buf = (uint8_t *)malloc(DRIVER_MAX_INPUT);
	struct timespec t0, t;
	rng_state = (uint64_t)time(NULL);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			runs = atol(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			rng_state = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			prefix = argv[++i];
		else
			add_path(argv[i]);
	}
	snprintf(crash_path, sizeof crash_path, "%scrash", prefix);
	snprintf(timeout_path, sizeof timeout_path, "%stimeout", prefix);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_death);
	{
		pthread_t t;
		pthread_create(&t, NULL, watchdog, NULL);
		pthread_detach(t);
	}
	printf("driver: seed %llu\n", (unsigned long long)rng_state);
	fflush(stdout);
	seeds = n_pool;
	for (i = 0; i < n_pool; i++)
		run_one(pool[i].data, pool[i].size);
	if (!n_pool)
		add((const uint8_t *)"", 0, n_pool++);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		const input *src = &pool[rnd() % n_pool];
		size_t n;
		if (runs >= 0 && done >= runs)
			break;
		if (done % 256 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
				break;
		}
		memcpy(buf, src->data, src->size);
		if (LLVMFuzzerCustomMutator && rnd() % 4)
			n = LLVMFuzzerCustomMutator(buf, src->size, DRIVER_MAX_INPUT, rnd());
		else
			n = mutate(buf, src->size);
		run_one(buf, n);
		done++;
		/* Keep some mutants as parents: deeper mutation chains. */
		if (rnd() % 64 == 0) {
			int slot = n_pool < POOL ? n_pool++
				   : seeds < POOL ? seeds + (int)(rnd() % (uint32_t)(POOL - seeds)) : (int)(rnd() % POOL);
			add(buf, n, slot);
		}
	}
	printf("driver: %ld runs, %d seeds, no crash\n", done, seeds);
	free(buf);
	for (i = 0; i < n_pool; i++)
		free(pool[i].data);
	return 0;
}
