/*
 * init.h: what the sandbox's init (init.c, built without libc) and airlock
 * share: its arguments and descriptors, and the one message it writes.
 */
#ifndef AIRLOCK_SBX_INIT_H
#define AIRLOCK_SBX_INIT_H

/* init's descriptors: the done pipe, and (optional) the caller's own
 * cgroup.procs, which init moves itself back into once the namespace is
 * empty, so the call's cgroup can go without waiting for init's exit. */
#define SBX_INIT_DONE_FD 3
#define SBX_INIT_CG_FD 4
#define SBX_INIT_MEM_FD 5 /* the caller's memory cgroup.procs (v1), or closed */

/* Written once to the done pipe when the command has exited and
 * everything else in the pid namespace has been killed and reaped. */
struct sbx_done {
	int status; /* the command's wait status */
	int pad;
	long long utime_us, stime_us; /* the whole tree's CPU */
	long long maxrss_kb;          /* its largest process */
};

#endif
