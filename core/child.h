/*
 * child.h: a read that may block for good, run in a forked child with a
 * deadline. libgit2 opens every file a config includes, and one the
 * project holds (include.path = ../.gitconfig) a sandboxed call may have
 * replaced with a FIFO, on whose open() the caller would block.
 */
#ifndef AIRLOCK_CHILD_H
#define AIRLOCK_CHILD_H

#include <stddef.h>

#include "core/util.h"

/* Runs fn(arg, fd) in a child that dies with the caller; fn writes what it
 * found to fd and _exit()s, 0 when all went well. Appends what the child
 * wrote to b (initialised by the caller). 0 when the child wrote at most
 * max bytes and exited 0 within ms; -1 otherwise (killed when late). The
 * caller is multi-threaded, so fn may only call what is safe after fork():
 * anything it needs loaded (libgit2) must be loaded before. */
int child_collect(void (*fn)(void *arg, int fd), void *arg, int ms, size_t max, struct buf *b);

#endif
