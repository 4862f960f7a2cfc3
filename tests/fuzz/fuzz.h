/*
 * fuzz.h: helpers shared by the libFuzzer harnesses in tests/fuzz/.
 * A harness checks invariants beyond "no crash"; a broken invariant calls
 * fuzz_fail(), which prints what broke and aborts so libFuzzer saves the
 * input as a crash-* file that reproduces it.
 */
#ifndef AIRLOCK_FUZZ_H
#define AIRLOCK_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/airlock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints the broken invariant and the input, then aborts. */
void fuzz_fail(const char *what, const char *input, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
/* Returns a new NUL-terminated copy of data cut at its first NUL; caller frees. */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* Returns true when two verdicts say the same: tier, findings (rule, tier,
 * span) and commands (argv, span) in the same order; *why names the first
 * difference. */
bool fuzz_verdict_same(const struct verdict *a, const struct verdict *b, const char **why);
/* Returns a new single-quoted shell word for s; caller frees. */
char *fuzz_squote(const char *s);
/* Returns a new shell command quoting each word of argv; caller frees. */
char *fuzz_join_argv(char *const *argv);

#endif
