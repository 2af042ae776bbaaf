/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer harnesses share.
 *
 * Each fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput() (and may
 * define LLVMFuzzerInitialize()). Built with clang and -fsanitize=fuzzer
 * it is a libFuzzer target (`make fuzz`); built with any compiler and
 * fuzz/replay.c it is a plain program that runs the files it is given
 * (the seeds and past crashes, under `make test`).
 *
 * A harness that checks a property calls FUZZ_CHECK: on failure it
 * prints why and aborts, which both drivers report as a crash.
 */
#ifndef SKIT_FUZZ_H
#define SKIT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                  \
 do {                                                                          \
  if (!(cond)) {                                                               \
   fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond); \
   fprintf(stderr, __VA_ARGS__);                                               \
   fputc('\n', stderr);                                                        \
   abort();                                                                    \
  }                                                                            \
 } while (0)

/* A private scratch folder for this process, made on first use and
 * removed at exit. Never NULL (aborts when it cannot be made). */
const char *fuzz_dir(void);

/* "<fuzz_dir()>/<rel>" in a static buffer (one of 8 in rotation). */
const char *fuzz_path(const char *rel);

/* Make the folders of `path` (mkdir -p of its parent) and write `len`
 * bytes to it, replacing it. Aborts on failure. */
void fuzz_write(const char *path, const void *data, size_t len);

/* `len` bytes at `data` as a NUL-terminated string (malloc'd; NUL bytes
 * inside are kept, so strlen may be shorter). */
char *fuzz_str(const uint8_t *data, size_t len);

/* rm -rf `path` (no symbolic link is followed). */
void fuzz_rm_rf(const char *path);

#endif
