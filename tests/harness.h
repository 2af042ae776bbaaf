/* SPDX-License-Identifier: MIT */
/*
 * harness.h - a tiny unit-test runner.
 *
 * Each tests/unit/test_<mod>.c defines functions test_<mod>__<case>(void)
 * and ends with TEST_MAIN(test_a, test_b, ...). A failed ASSERT prints
 * file:line and the expression and ends that test; the run goes on and the
 * program exits 1 if any test failed. `./test_x NAME` runs one test.
 * SKIT_TEST_DIR names a scratch folder (CTest sets it per test).
 */
#ifndef SKIT_TEST_HARNESS_H
#define SKIT_TEST_HARNESS_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf harness_jmp;
static int harness_failed;

#define HARNESS_FAIL(...)                         \
 do {                                             \
  fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
  fprintf(stderr, __VA_ARGS__);                   \
  fputc('\n', stderr);                            \
  longjmp(harness_jmp, 1);                        \
 } while (0)

#define ASSERT(expr)                            \
 do {                                           \
  if (!(expr))                                  \
   HARNESS_FAIL("assertion failed: %s", #expr); \
 } while (0)

#define ASSERT_EQ(a, b)                                    \
 do {                                                      \
  long long a_ = (long long)(a), b_ = (long long)(b);      \
  if (a_ != b_)                                            \
   HARNESS_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_); \
 } while (0)

#define ASSERT_OK(expr) ASSERT_EQ((expr), 0)

#define ASSERT_STR(a, b)                                                  \
 do {                                                                     \
  const char *a_ = (a), *b_ = (b);                                        \
  if (!a_ || !b_ || strcmp(a_, b_))                                       \
   HARNESS_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", \
		b_ ? b_ : "(null)");                                      \
 } while (0)

#define ASSERT_CONTAINS(hay, needle)                                       \
 do {                                                                      \
  const char *h_ = (hay), *n_ = (needle);                                  \
  if (!h_ || !strstr(h_, n_))                                              \
   HARNESS_FAIL("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); \
 } while (0)

typedef struct {
	const char *name;
	void (*fn)(void);
} harness_test;

#define HARNESS_ENTRY(fn) { #fn, fn },

/* Variadic FOREACH over up to 64 names would be macro noise; list them. */
#define TEST_MAIN(...)                                                    \
 static const harness_test harness_tests[] = { __VA_ARGS__ };             \
 int main(int argc, char **argv)                                          \
 {                                                                        \
  volatile size_t i;                                                      \
  size_t n = sizeof(harness_tests) / sizeof(harness_tests[0]);            \
  volatile int ran = 0;                                                   \
  for (i = 0; i < n; i++) {                                               \
   if (argc > 1 && strcmp(argv[1], harness_tests[i].name))                \
    continue;                                                             \
   ran++;                                                                 \
   if (!setjmp(harness_jmp)) {                                            \
    harness_tests[i].fn();                                                \
    printf("ok   %s\n", harness_tests[i].name);                           \
   } else {                                                               \
    harness_failed++;                                                     \
    printf("FAIL %s\n", harness_tests[i].name);                           \
   }                                                                      \
  }                                                                       \
  printf("%d passed, %d failed\n", ran - harness_failed, harness_failed); \
  return harness_failed || !ran ? 1 : 0;                                  \
 }

#define TEST(fn) HARNESS_ENTRY(fn)

#endif
