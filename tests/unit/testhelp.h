/*
** testhelp.h — the smallest useful C test harness (after Redis's src/testhelp.h).
**
**   TEST("name") { CHECK(x == 1); CHECK_STR(a, b); }
**   return test_report();   // prints "N passed, N failed", exits non-zero on failure
*/
#ifndef LLMD_TESTHELP_H
#define LLMD_TESTHELP_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int test_passed, test_failed, test_current_failed;

/* A small deterministic generator (xorshift64) for random test documents: the next
   number below n from *state (each test file keeps its own state and seed). */
static inline unsigned test_rnd(uint64_t *state, unsigned n)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (unsigned)(*state % n);
}
static const char *test_name;

static void test_begin(const char *name)
{
    test_name = name;
    test_current_failed = 0;
}

static void test_end(void)
{
    if (test_current_failed)
        test_failed++;
    else
        test_passed++;
}

/* Runs the block once, between test_begin and test_end. */
#define TEST(name)                                                                                 \
    for (int test_once_ = (test_begin(name), 1); test_once_; test_once_ = 0, test_end())

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, test_name,        \
                    #cond);                                                                        \
            test_current_failed = 1;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (g_ == NULL || strcmp(g_, w_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: %s: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, test_name, \
                    g_ ? g_ : "(null)", w_);                                                       \
            test_current_failed = 1;                                                               \
        }                                                                                          \
    } while (0)

static int test_report(void)
{
    printf("%d passed, %d failed\n", test_passed, test_failed);
    fflush(stdout); /* a sanitizer's report at exit must not lose this line */
    return test_failed ? 1 : 0;
}

#endif
