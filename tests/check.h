/* check.h - the tests' assertions. Each test program counts its checks and
 * ends with "NAME: N passed, N failed"; build.sh adds the counts up. */
#ifndef TILE_TEST_CHECK_H
#define TILE_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond) check_at(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_MSG(cond, ...) \
	do { \
		if (!check_at(!!(cond), #cond, __FILE__, __LINE__)) { \
			fprintf(stderr, "    "); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
		} \
	} while (0)
#define CHECK_EQ_INT(a, b) \
	do { \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
		if (!check_at(check_a_ == check_b_, #a " == " #b, __FILE__, __LINE__)) \
			fprintf(stderr, "    %lld != %lld\n", check_a_, check_b_); \
	} while (0)
#define CHECK_STR_CONTAINS(hay, needle) \
	do { \
		const char *check_h_ = (hay), *check_n_ = (needle); \
		if (!check_at(check_h_ && strstr(check_h_, check_n_) != NULL, #hay " contains " #needle, __FILE__, __LINE__)) \
			fprintf(stderr, "    '%s' does not contain '%s'\n", check_h_ ? check_h_ : "(null)", check_n_); \
	} while (0)

static int check_at(int ok, const char *what, const char *file, int line)
{
	if (ok) {
		check_passed++;
	} else {
		check_failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

/* Prints the closing line and returns the exit status. */
static int check_report(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
