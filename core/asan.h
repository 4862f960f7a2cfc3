/*
 * asan.h: AddressSanitizer's manual poisoning when the build has it, and
 * nothing otherwise. Bump allocators poison what they have not handed out,
 * so a read past one allocation is reported instead of landing silently in
 * the next. clang before 15 does not define GCC's __SANITIZE_ADDRESS__.
 */
#ifndef AIRLOCK_ASAN_H
#define AIRLOCK_ASAN_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define AIRLOCK_ASAN 1
#else
#define AIRLOCK_ASAN 0
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

#endif
