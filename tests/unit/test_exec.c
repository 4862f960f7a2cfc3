/*
 * test_exec.c: the sandbox through its public interface: a table of calls
 * (tests/data/exec/run.tsv) run with exec_run() in capture mode, each with
 * its exit status, output and flags checked; then the overlay dry run, the
 * fail-closed paths, the backend choice and the secret files a sandbox
 * masks (tests/data/exec/secrets.tsv).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/state.h"
#include "core/util.h"
#include "exec/exec.h"
#include "exec/exec_internal.h"
#include "exec/seccomp_bpf.h"
#include <seccomp.h>
#include "tdata.h"

static char *tmpdir_new(void)
{
	char *d = xstrdup("/tmp/airlock-exec-XXXXXX");
	assert_non_null(mkdtemp(d));
	return d;
}

/* Removes the tree and frees d. */
static void rm_rf(char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(d);
}

/* Sets name to value; returns its old value (a new string, or NULL when
 * unset) for env_restore(). */
static char *env_swap(const char *name, const char *value)
{
	char *old = getenv(name) ? xstrdup(getenv(name)) : NULL;

	setenv(name, value, 1);
	return old;
}

/* Puts back what env_swap() returned; frees old. */
static void env_restore(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* Options column: out=N, tmo=MS, in=TEXT, trunc, timedout, err=TEXT. */
struct opts {
	long long out, tmo;
	const char *in, *err;
	bool trunc, timedout;
};

static void opts_parse(char *s, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!s || strcmp(s, "-") == 0)
		return;
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (strncmp(t, "out=", 4) == 0)
			assert_int_equal(parse_ll(t + 4, 1, 1LL << 30, &o->out), 0);
		else if (strncmp(t, "tmo=", 4) == 0)
			assert_int_equal(parse_ll(t + 4, 1, 600000, &o->tmo), 0);
		else if (strncmp(t, "in=", 3) == 0)
			o->in = t + 3;
		else if (strncmp(t, "err=", 4) == 0)
			o->err = t + 4;
		else if (strcmp(t, "trunc") == 0)
			o->trunc = true;
		else if (strcmp(t, "timedout") == 0)
			o->timedout = true;
		else
			fail_msg("unknown option %s", t);
	}
}

static void check_row(const struct tdata_row *r, const char *wd)
{
	const struct profile *base = exec_builtin_profile(r->f[1]);
	char *argv[] = {(char *)"sh", (char *)"-c", r->f[2], NULL};
	struct exec_result res;
	struct profile *p;
	struct opts o;
	char *err = NULL;

	assert_non_null(base);
	opts_parse(r->nf > 5 ? r->f[5] : NULL, &o);
	p = profile_dup(base);
	if (o.out)
		p->output = o.out;
	struct exec_spec s = {.argv = argv, .workdir = wd, .profile = p, .capture = true,
	                      .timeout_ms = o.tmo, .stdin_data = o.in,
	                      .stdin_len = o.in ? strlen(o.in) : 0};
	if (exec_run(&s, &res, &err) < 0)
		fail_msg("line %zu (%s): %s", r->line, r->f[0], err);
	char want[32];
	if (res.signal)
		snprintf(want, sizeof(want), "sig%d", res.signal);
	else
		snprintf(want, sizeof(want), "%d", res.exit_code);
	if (strcmp(want, r->f[3]) != 0)
		fail_msg("line %zu (%s): status %s, want %s; stderr: %s", r->line, r->f[0], want,
		         r->f[3], res.err);
	if (r->nf > 4 && strcmp(r->f[4], "-") != 0 && !strstr(res.out, r->f[4]))
		fail_msg("line %zu (%s): stdout [%.200s] lacks [%s]", r->line, r->f[0], res.out,
		         r->f[4]);
	if (o.err && !strstr(res.err, o.err))
		fail_msg("line %zu (%s): stderr [%.200s] lacks [%s]", r->line, r->f[0], res.err,
		         o.err);
	if (o.trunc != res.truncated || o.timedout != res.timed_out)
		fail_msg("line %zu (%s): truncated %d timed_out %d", r->line, r->f[0], res.truncated,
		         res.timed_out);
	if (o.out && (res.outlen > (size_t)o.out || res.errlen > (size_t)o.out))
		fail_msg("line %zu (%s): capture passed its cap", r->line, r->f[0]);
	exec_result_clear(&res);
	profile_free(p);
}

static void test_run_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/exec/run.tsv", &rows);
	char *wd = tmpdir_new();

	(void)state;
	assert_true(n >= 25);
	write_file(wd, "seed", "seed\n");
	for (size_t i = 0; i < n; i++)
		check_row(&rows[i], wd);
	tdata_free(rows, n);
	rm_rf(wd);
}

/* A whiteout: a 0:0 character device, or a file with the userxattr mark. */
static bool is_whiteout(const char *path)
{
	struct stat st;
	char v[8];
	if (lstat(path, &st) < 0)
		return false;
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0))
		return true;
	return lgetxattr(path, "user.overlay.whiteout", v, sizeof(v)) >= 0;
}

static void test_overlay(void **state)
{
	char *wd = tmpdir_new(), *ov = tmpdir_new(), *err = NULL, *p;
	char *argv[] = {(char *)"sh", (char *)"-c",
	                (char *)"rm gone && echo changed > kept && echo new > added && cat kept",
	                NULL};
	struct exec_result res;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true, .overlay_dir = ov,
	                      .profile = exec_builtin_profile("readonly")};
	char buf[64] = {0};
	FILE *f;

	(void)state;
	write_file(wd, "gone", "gone\n");
	write_file(wd, "kept", "kept\n");
	if (exec_run(&s, &res, &err) < 0)
		fail_msg("overlay run: %s", err);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(res.out, "changed\n");
	/* the real workdir is untouched */
	p = xasprintf("%s/gone", wd);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	p = xasprintf("%s/added", wd);
	assert_int_not_equal(access(p, F_OK), 0);
	free(p);
	p = xasprintf("%s/kept", wd);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	free(p);
	assert_string_equal(buf, "kept\n");
	/* the upper dir holds the change */
	p = xasprintf("%s/upper/added", ov);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	p = xasprintf("%s/upper/gone", ov);
	assert_true(is_whiteout(p));
	free(p);
	exec_result_clear(&res);
	/* the none profile cannot mount an overlay: refused, nothing runs */
	s.profile = exec_builtin_profile("none");
	assert_int_equal(exec_run(&s, &res, &err), -1);
	assert_non_null(strstr(err, "needs the sandbox"));
	free(err);
	p = xasprintf("%s/gone", wd);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	rm_rf(wd);
	rm_rf(ov);
}

/* Every failure to build the sandbox or start the program is an error. */
static void test_fail_closed(void **state)
{
	char *argv[] = {(char *)"true", NULL}, *missing[] = {(char *)"no-such-program-x", NULL};
	const struct profile *p = exec_builtin_profile("workspace");
	char *wd = tmpdir_new(), *err = NULL;
	struct exec_result res;

	(void)state;
	struct exec_spec s = {.argv = argv, .workdir = "/nonexistent/dir", .profile = p};
	assert_int_equal(exec_run(&s, &res, &err), -1);
	assert_non_null(strstr(err, "workdir"));
	free(err);
	err = NULL;
	s.workdir = "relative";
	assert_int_equal(exec_run(&s, &res, &err), -1);
	free(err);
	err = NULL;
	s.workdir = "/";
	assert_int_equal(exec_run(&s, &res, &err), -1); /* contains $HOME */
	assert_non_null(strstr(err, "contains the home"));
	free(err);
	err = NULL;
	s.workdir = "/etc"; /* shadow, and the host's configuration */
	assert_int_equal(exec_run(&s, &res, &err), -1);
	assert_non_null(strstr(err, "system directory"));
	free(err);
	err = NULL;
	s.workdir = wd;
	s.argv = missing;
	assert_int_equal(exec_run(&s, &res, &err), -1);
	assert_int_equal(res.exec_errno, ENOENT);
	assert_non_null(strstr(err, "no-such-program-x"));
	free(err);
	rm_rf(wd);
}

/* Threads share the cached system plan and the init memfd, and each keeps
 * its own spawn page: sandboxes started at once must not see each other's
 * streams, files or status. */
#define CONC_THREADS 4
#define CONC_CALLS 8

struct conc {
	const char *wd;
	int n, ok;
};

static void *conc_run(void *arg)
{
	struct conc *c = arg;
	const struct profile *p = exec_builtin_profile("workspace");

	for (int i = 0; i < CONC_CALLS; i++) {
		char script[256], want[32], *err = NULL;
		char *argv[] = {(char *)"sh", (char *)"-c", script, NULL};
		struct exec_result res;
		snprintf(want, sizeof(want), "t%d-c%d", c->n, i);
		snprintf(script, sizeof(script), "echo %s > out-%s && cat out-%s && exit %d", want,
		         want, want, (c->n * CONC_CALLS + i) % 50);
		struct exec_spec s = {.argv = argv, .workdir = c->wd, .profile = p, .capture = true};
		if (exec_run(&s, &res, &err) == 0 && res.exit_code == (c->n * CONC_CALLS + i) % 50 &&
		    res.out && strncmp(res.out, want, strlen(want)) == 0 &&
		    res.out[strlen(want)] == '\n' && res.outlen == strlen(want) + 1)
			c->ok++;
		else
			fprintf(stderr, "thread %d call %d: %s\n", c->n, i, err ? err : res.out);
		exec_result_clear(&res);
		free(err);
	}
	return NULL;
}

static void test_concurrent(void **state)
{
	pthread_t t[CONC_THREADS];
	struct conc c[CONC_THREADS];
	char *wd = tmpdir_new();

	(void)state;
	for (int i = 0; i < CONC_THREADS; i++) {
		c[i] = (struct conc){.wd = wd, .n = i};
		assert_int_equal(pthread_create(&t[i], NULL, conc_run, &c[i]), 0);
	}
	for (int i = 0; i < CONC_THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(c[i].ok, CONC_CALLS);
	}
	rm_rf(wd);
}

/* The gate's pool: the whole table again through sandboxes built ahead,
 * which must behave exactly like fresh ones, and most calls must get one. */
static void test_pool_table(void **state)
{
	unsigned long h0, m0, h1, m1;
	char *err = NULL;

	exec_pool_stats(&h0, &m0);
	assert_int_equal(exec_pool_start(&err), 0);
	test_run_table(state);
	exec_pool_stats(&h1, &m1);
	exec_pool_stop();
	print_message("pool: %lu of %lu calls took a built sandbox\n", h1 - h0,
	              h1 - h0 + m1 - m0);
	assert_true(h1 - h0 >= (h1 - h0 + m1 - m0) / 2);
}

/* Runs script in wd (pool on or off) with extra env; returns its stdout. */
static char *pool_call(const char *wd, const char *script, char *const *env)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)script, NULL}, *err = NULL, *out;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true, .env = env,
	                      .profile = exec_builtin_profile("workspace")};
	struct exec_result res;

	if (exec_run(&s, &res, &err) < 0)
		fail_msg("%s: %s", script, err);
	if (res.exit_code != 0)
		fail_msg("%s: exit %d: %s", script, res.exit_code, res.err);
	out = res.out ? xstrdup(res.out) : xstrdup("");
	exec_result_clear(&res);
	return out;
}

/* Counts this process's pids cgroups (airlock-PID-N) still on disk. */
static int own_cgroups(void)
{
	char *cmd = xasprintf("ls -d /sys/fs/cgroup/pids/airlock-%d-* /sys/fs/cgroup/airlock-%d-* "
	                      "2>/dev/null | wc -l",
	                      (int)getpid(), (int)getpid());
	FILE *f = popen(cmd, "r");
	int n = -1;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	free(cmd);
	return n;
}

/* A built sandbox carries nothing from one call to the next: not the
 * credentials granted to the last call, not its /tmp, not its workdir. */
static void test_pool_isolation(void **state)
{
	char *wd = tmpdir_new(), *wd2 = tmpdir_new(), *err = NULL, *out;
	char *grant[] = {(char *)"GRANTED_TOKEN=s3cret", NULL};
	unsigned long h0, m0, h1, m1;

	(void)state;
	write_file(wd2, "here", "second\n");
	/* a dead airlock's cgroup is swept when a pool starts */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	assert_true(dead > 0 && waitpid(dead, NULL, 0) == dead);
	char *orphan = xasprintf("/sys/fs/cgroup/pids/airlock-%d-7", (int)dead);
	bool v1 = mkdir(orphan, 0700) == 0;
	assert_int_equal(exec_pool_start(&err), 0);
	if (v1)
		assert_int_not_equal(access(orphan, F_OK), 0);
	free(orphan);
	exec_pool_stats(&h0, &m0);
	for (int i = 0; i < 3; i++) { /* the first builds fresh; the rest are pooled */
		out = pool_call(wd, "echo ${GRANTED_TOKEN:-none}; test -e /tmp/mark && echo leaked; touch /tmp/mark",
		                grant);
		assert_string_equal(out, "s3cret\n");
		free(out);
		/* a call that finds the next sandbox still being built makes its
		 * own (a miss): time for the pool's thread, as an agent's thinking
		 * gives it, so the count below does not hang on the machine's load
		 * (CI's fresh clone once counted under 5) */
		usleep(200 * 1000);
		out = pool_call(wd, "echo ${GRANTED_TOKEN:-none}; test ! -e /tmp/mark || echo leaked", NULL);
		assert_string_equal(out, "none\n");
		free(out);
		usleep(200 * 1000);
	}
	/* proof it was built ahead: its init is older than the command by the
	 * pause (starttime, field 22 of stat, in clock ticks) */
	usleep(300 * 1000);
	out = pool_call(wd, "a=$(cut -d' ' -f22 /proc/1/stat); b=$(cut -d' ' -f22 /proc/self/stat);"
	                    " echo $((b - a))",
	                NULL);
	assert_true(strtol(out, NULL, 10) >= sysconf(_SC_CLK_TCK) / 10);
	free(out);
	/* a workdir replaced at the same path is another directory: the
	 * sandbox built ahead with the old one must not serve the call */
	char *old = xasprintf("%s.old", wd);
	assert_int_equal(rename(wd, old), 0);
	assert_int_equal(mkdir(wd, 0700), 0);
	write_file(wd, "fresh", "fresh\n");
	out = pool_call(wd, "cat fresh", NULL);
	assert_string_equal(out, "fresh\n");
	free(out);
	rm_rf(old);
	out = pool_call(wd2, "cat here; pwd", NULL); /* another workdir: another shell */
	assert_non_null(strstr(out, "second\n"));
	assert_non_null(strstr(out, wd2));
	free(out);
	exec_pool_stats(&h1, &m1);
	if (h1 - h0 < 5)
		fail_msg("%lu of the calls that could took a built sandbox, not 5", h1 - h0);
	exec_pool_stop();
	capture_reap_late();
	assert_int_equal(own_cgroups(), 0); /* the waiting sandboxes are gone */
	rm_rf(wd);
	rm_rf(wd2);
}

static void test_pool_concurrent(void **state)
{
	char *err = NULL;

	assert_int_equal(exec_pool_start(&err), 0);
	test_concurrent(state);
	exec_pool_stop();
}

static void test_backends(void **state)
{
	char *argv[] = {(char *)"true", NULL}, *err = NULL;
	struct exec_job *job = NULL;
	struct exec_spec s = {.argv = argv, .workdir = "/tmp"};

	(void)state;
	assert_null(exec_builtin_profile("bogus"));
	assert_true(exec_builtin_profile("none")->none);
	assert_false(exec_builtin_profile("readonly")->workdir_rw);
	s.profile = exec_builtin_profile("none");
	assert_int_equal(exec_prepare(&s, &job, &err), 0);
	assert_string_equal(exec_job_backend(job), "none");
	exec_job_free(job);
	s.profile = exec_builtin_profile("approved");
	s.workdir = "/var/tmp"; /* a shared scratch directory: refused */
	assert_int_equal(exec_prepare(&s, &job, &err), -1);
	assert_non_null(strstr(err, "shared scratch"));
	free(err);
	err = NULL;
	char wd[] = "/tmp/airlock-backend.XXXXXX";
	assert_non_null(mkdtemp(wd));
	s.workdir = wd;
	assert_int_equal(exec_prepare(&s, &job, &err), 0);
	assert_string_equal(exec_job_backend(job), "namespace");
	exec_job_free(job);
	exec_job_free(NULL);
	rmdir(wd);
}

/* The precompiled filters equal what libseccomp builds from the rules;
 * AIRLOCK_REGEN_SECCOMP=1 rewrites exec/seccomp_bpf.h when they do not. */
static void test_seccomp_precompiled(void **state)
{
	const struct scmp_version *v = seccomp_version();
	const struct sock_filter *pre[SECCOMP_VARIANTS] = {seccomp_bpf_v0, seccomp_bpf_v1,
	                                                   seccomp_bpf_v2, seccomp_bpf_v3};
	const size_t npre[SECCOMP_VARIANTS] = {nitems(seccomp_bpf_v0), nitems(seccomp_bpf_v1),
	                                       nitems(seccomp_bpf_v2), nitems(seccomp_bpf_v3)};
	char ver[32], *err = NULL;

	(void)state;
	if (getenv("AIRLOCK_REGEN_SECCOMP")) {
		FILE *f = fopen("exec/seccomp_bpf.h", "w");
		assert_non_null(f);
		assert_int_equal(seccomp_filter_header(f, &err), 0);
		fclose(f);
		return;
	}
	snprintf(ver, sizeof(ver), "%u.%u.%u", v->major, v->minor, v->micro);
	if (strcmp(ver, SECCOMP_BPF_LIBSECCOMP) != 0) {
		print_message("libseccomp %s, header from %s: not compared\n", ver,
		              SECCOMP_BPF_LIBSECCOMP);
		return;
	}
	for (unsigned var = 0; var < SECCOMP_VARIANTS; var++) {
		struct sock_fprog *p = seccomp_filter_compile(var, &err);
		assert_non_null(p);
		if (p->len != npre[var] ||
		    memcmp(p->filter, pre[var], npre[var] * sizeof(*pre[var])) != 0)
			fail_msg("exec/seccomp_bpf.h is stale (variant %u): regenerate with "
			         "AIRLOCK_REGEN_SECCOMP=1 build/tests/test_exec",
			         var);
		free(p->filter);
		free(p);
	}
}

/* What `sh -c CMD` prints in a workspace sandbox of wd. */
static char *run_out(const char *wd, const char *cmd)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)cmd, NULL}, *err = NULL, *out;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true,
	                      .profile = exec_builtin_profile("workspace")};
	struct exec_result res;

	if (exec_run(&s, &res, &err) < 0)
		fail_msg("%s: %s", cmd, err);
	out = xstrdup(res.out ? res.out : "");
	exec_result_clear(&res);
	return out;
}

/* A proc mounted below the workdir after a first plan (which remembered
 * the mount table) is still covered: the table is read again once poll()
 * says it changed. Root only (mount). */
static void test_kernel_mounts(void **state)
{
	/* chroot/proc; and one whose mount point, escaped in mountinfo (\040
	 * for each space), is longer than PATH_MAX */
	char sp[201], *wd = tmpdir_new(), *rel[2];
	(void)state;
	memset(sp, ' ', 200);
	sp[200] = '\0';
	rel[0] = xstrdup("chroot/proc");
	rel[1] = xasprintf("a%s/b%s/c%s/d%s/e%s/f%s/proc", sp, sp, sp, sp, sp, sp);
	for (int i = 0; i < 2; i++) {
		char *dir = xasprintf("%s/%s", wd, rel[i]), *out, *cmd;
		char *ls = xasprintf("ls '%s' | wc -l", rel[i]);
		cmd = xasprintf("mkdir -p '%s'", dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		out = run_out(wd, ls);
		assert_string_equal(out, "0\n");
		free(out);
		if (mount("proc", dir, "proc", 0, NULL) < 0) {
			print_message("cannot mount proc (%s): not checked\n", strerror(errno));
		} else {
			out = run_out(wd, ls);
			umount2(dir, MNT_DETACH);
			if (strcmp(out, "0\n") != 0)
				fail_msg("proc at %s: %s entries shown", i ? "a path of spaces" : rel[i], out);
			free(out);
		}
		free(ls);
		free(dir);
		free(rel[i]);
	}
	rm_rf(wd);
}

/* Leaves a unix socket file at p (bound, then closed: nobody listens). */
static void unix_socket_file(const char *p)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0 && strlen(p) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, p, strlen(p) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

/* A .pem whose private key comes after 80 KiB of certificates (a chain
 * and its key in one file). */
static void secrets_make_bigkey(const char *p)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	for (int i = 0; i < 1000; i++)
		fputs("-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n"
		      "-----END CERTIFICATE-----\n", f);
	fputs("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", f);
	assert_int_equal(fclose(f), 0);
}

/* Makes one row's path under wd: a file, a directory, a FIFO, a socket, a
 * link, or a file of printf(1)'s escapes ("printf:..."). */
static void secrets_make(const char *wd, const char *rel, const char *kind)
{
	char *p = xasprintf("%s/%s", wd, rel), *cmd;

	cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	if (strcmp(kind, "dir") == 0)
		assert_int_equal(mkdir(p, 0755), 0);
	else if (strcmp(kind, "fifo") == 0)
		assert_int_equal(mkfifo(p, 0600), 0);
	else if (strcmp(kind, "sock") == 0)
		unix_socket_file(p);
	else if (strcmp(kind, "key") == 0)
		write_file(wd, rel, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
		                    "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
	else if (strcmp(kind, "cert") == 0)
		write_file(wd, rel, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	else if (strcmp(kind, "bigkey") == 0)
		secrets_make_bigkey(p);
	else if (strncmp(kind, "printf:", 7) == 0) {
		cmd = xasprintf("printf '%%s%s' '' > '%s'", kind + 7, p); /* may start with - */
		assert_int_equal(system(cmd), 0);
		free(cmd);
	} else if (strncmp(kind, "link:", 5) == 0)
		assert_int_equal(symlink(kind + 5, p), 0);
	else
		write_file(wd, rel, "SECRET=1\n");
	free(p);
}

/* Sets every directory's mtime to one fixed time, past the racy window. */
static void age_dirs(const char *wd)
{
	char *cmd = xasprintf("find '%s' -type d -exec touch -h -d '2020-01-01 00:00:00' {} +", wd);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* The nested repositories secrets_find() lists: each row marked gitdir,
 * and no other (not the workdir's own .git, nor one in a skipped tree). */
static void gitdirs_check(const char *real, const struct tdata_row *rows, size_t n)
{
	char **found, **gitdirs = NULL, *err = NULL;
	size_t nfound, want = 0, got = 0;

	assert_int_equal(secrets_find(real, 0, NULL, &found, &nfound, &gitdirs, &err), 0);
	assert_int_equal(nfound, 0);
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", real, rows[i].f[0]);
		bool yes = strcmp(rows[i].f[2], "gitdir") == 0;
		want += yes;
		if (strv_contains(gitdirs, p) != yes)
			fail_msg("line %zu: %s %s as a nested repository", rows[i].line, rows[i].f[0],
			         yes ? "not listed" : "listed");
		free(p);
	}
	for (char **g = gitdirs; g && *g; g++)
		got++;
	assert_int_equal(got, want);
	assert_true(want >= 4);
	strv_free(found);
	strv_free(gitdirs);
}

/* Writes a pending record for wd by hand: writer pid, time since. */
static void pending_write_start(const char *dir, const char *wd, long pid, long long since,
                                const char *name_wd, const char *start)
{
	static int seq;
	char key[17], *path, *text;
	uint64_t h = 1469598103934665603ULL;

	for (const unsigned char *p = (const unsigned char *)name_wd; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	snprintf(key, sizeof(key), "%016llx", (unsigned long long)h);
	path = xasprintf("%s/%s-%ld-9%d", dir, key, pid, seq++);
	text = xasprintf("%lld %lld%s\n%s\n", since, since ? since + 100 : 0, start, wd);
	write_file("/", path + 1, text);
	free(path);
	free(text);
}

/* A record as an airlock before start times wrote it. */
static void pending_write(const char *dir, const char *wd, long pid, long long since,
                          const char *name_wd)
{
	pending_write_start(dir, wd, pid, since, name_wd, "");
}

/* pending.c: a record is an orphan only when its writer is gone (exited,
 * a zombie, another process with its pid now, or from before the boot)
 * and it names this workdir whole; a live writer's, our own, is never
 * taken. The earliest time wins, and the records taken are gone once the
 * recovery says it is done. */
static void test_pending_orphans(void **state)
{
	char *home = tmpdir_new(), *dir = xasprintf("%s/state/airlock/pending", home);
	char *old = getenv("XDG_STATE_HOME") ? xstrdup(getenv("XDG_STATE_HOME")) : NULL;
	char *st = xasprintf("%s/state", home), *mine, *cmd, **taken;
	const char *wd = "/srv/project";
	struct guard_span now = {{time(NULL), 0}, 0}, since;
	pid_t dead = fork(), zombie, writer;
	int wst = -1;
	(void)state;
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	if ((zombie = fork()) == 0)
		_exit(0);
	usleep(100000); /* not waited for yet: a zombie */
	setenv("XDG_STATE_HOME", st, 1);
	mine = pending_begin(wd, &now);
	assert_non_null(mine);
	assert_false(pending_orphans(wd, &since, &taken)); /* our own: live */
	assert_null(taken);
	pending_write(dir, wd, (long)dead, now.since.tv_sec - 50, wd);
	pending_write(dir, wd, (long)zombie, now.since.tv_sec - 70, wd);
	pending_write(dir, "/srv/project-other", (long)dead, now.since.tv_sec - 90, wd); /* not ours */
	pending_write(dir, "/srv/project/x", (long)dead, now.since.tv_sec - 95, wd);
	pending_write(dir, wd, (long)getpid(), now.since.tv_sec - 99, wd); /* live */
	assert_true(pending_orphans(wd, &since, &taken));
	/* from the earliest start to the latest deadline (each 100 s on) */
	assert_int_equal(since.since.tv_sec, now.since.tv_sec - 70);
	assert_int_equal(since.until, now.since.tv_sec + 50);
	strv_free(taken); /* the recovery killed: still there */
	assert_true(pending_orphans(wd, &since, &taken));
	pending_orphans_end(taken);
	assert_false(pending_orphans(wd, &since, &taken)); /* taken */
	pending_write(dir, wd, (long)getpid(), 1000, wd); /* before the boot */
	assert_true(pending_orphans(wd, &since, &taken));
	pending_orphans_end(taken);
	assert_int_equal(since.since.tv_sec, 1000);
	assert_int_equal(since.until, 1100);
	/* rewritten after a plan that took long, by a writer since killed:
	 * the later deadline is read */
	if ((writer = fork()) == 0) {
		char *p = pending_begin(wd, &(struct guard_span){{1000, 0}, 1100});
		pending_update(p, wd, &(struct guard_span){{1000, 0}, 1250});
		_exit(p ? 0 : 1);
	}
	assert_int_equal(waitpid(writer, &wst, 0), writer);
	assert_int_equal(wst, 0);
	assert_true(pending_orphans(wd, &since, &taken));
	pending_orphans_end(taken);
	assert_int_equal(since.until, 1250);
	/* a boot id: another boot's record is taken, our pid or not; this
	 * boot's is not, though the clock, set forward past the boot time (a
	 * VM restored from a snapshot), makes it look older than the boot */
	{
		char id[64] = "", *rec;
		FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");
		assert_non_null(b);
		assert_non_null(fgets(id, sizeof(id), b));
		fclose(b);
		id[strcspn(id, "\n")] = '\0';
		rec = xasprintf(" 0 %s", id);
		pending_write_start(dir, wd, (long)getpid(), 1000, wd, rec);
		assert_false(pending_orphans(wd, &since, &taken));
		assert_null(taken);
		free(rec);
		pending_orphans_end(NULL);
		cmd = xasprintf("grep -l '^1000 ' '%s'/* | xargs rm -f", dir); /* that one */
		assert_int_equal(system(cmd), 0);
		free(cmd);
		pending_write_start(dir, wd, (long)getpid(), now.since.tv_sec - 5, wd,
		                    " 0 00000000-0000-0000-0000-000000000000");
		assert_true(pending_orphans(wd, &since, &taken));
		pending_orphans_end(taken);
		assert_int_equal(since.since.tv_sec, now.since.tv_sec - 5);
	}
	/* our pid and start time, no boot id: live, though the workdir's
	 * path on the next line is no boot id either */
	{
		char st_line[1024], *paren, *f, *rec;
		unsigned long long own = 0;
		FILE *sf = fopen("/proc/self/stat", "r");
		assert_non_null(sf);
		assert_non_null(fgets(st_line, sizeof(st_line), sf));
		fclose(sf);
		paren = strrchr(st_line, ')');
		f = paren + 2;
		for (int field = 3; field < 22; field++)
			f = strchr(f, ' ') + 1;
		assert_int_equal(sscanf(f, "%llu", &own), 1);
		rec = xasprintf(" %llu", own);
		pending_write_start(dir, wd, (long)getpid(), now.since.tv_sec - 10, wd, rec);
		assert_false(pending_orphans(wd, &since, &taken));
		free(rec);
		cmd = xasprintf("grep -l '^%lld ' '%s'/* | xargs rm -f", (long long)now.since.tv_sec - 10,
		                dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	/* our pid, but a process that started at another time: it was reused */
	pending_write_start(dir, wd, (long)getpid(), now.since.tv_sec - 10, wd, " 1");
	assert_true(pending_orphans(wd, &since, &taken));
	pending_orphans_end(taken);
	assert_int_equal(since.since.tv_sec, now.since.tv_sec - 10);
	pending_end(mine);
	assert_int_equal(waitpid(zombie, NULL, 0), zombie);
	cmd = xasprintf("ls '%s' | grep -vx spare | wc -l", dir); /* pending.c's spare file */
	FILE *f = popen(cmd, "r");
	int left = -1;
	assert_int_equal(fscanf(f, "%d", &left), 1);
	pclose(f);
	assert_int_equal(left, 3); /* the other workdirs' two and the live one's */
	if (old)
		setenv("XDG_STATE_HOME", old, 1);
	else
		unsetenv("XDG_STATE_HOME");
	free(old);
	free(cmd);
	free(st);
	free(dir);
	rm_rf(home);
}

/* A finished record's file is the next record's (pending.c's spare): it
 * is never read as a record, a record written over a longer one's text
 * still parses (a killed run is recovered), and a second spare is not
 * kept over the first. */
static void test_pending_spare(void **state)
{
	char *home = tmpdir_new(), *dir = xasprintf("%s/state/airlock/pending", home);
	char *st = xasprintf("%s/state", home), *spare = xasprintf("%s/spare", dir), **taken;
	char *old = env_swap("XDG_STATE_HOME", st);
	const char *wd = "/srv/p", *longer = "/srv/a-project-whose-path-is-longer-than-the-other";
	struct guard_span span = {{time(NULL) - 30, 0}, time(NULL) + 60}, since;
	struct stat a, b;
	char first = 0, *p, *q;
	pid_t killed;
	int fd, wst = -1;
	(void)state;

	assert_non_null((p = pending_begin(longer, &span)));
	assert_int_equal(stat(p, &a), 0);
	pending_end(p);
	assert_int_equal(stat(spare, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino); /* kept, not unlinked */
	assert_true((fd = open(spare, O_RDONLY)) >= 0);
	assert_int_equal(read(fd, &first, 1), 1);
	close(fd);
	assert_int_equal(first, 'x'); /* marked: no record */
	assert_false(pending_orphans(longer, &since, &taken));
	assert_null(taken);
	if ((killed = fork()) == 0) /* takes the spare, killed before its sweep */
		_exit(pending_begin(wd, &span) ? 0 : 1);
	assert_int_equal(waitpid(killed, &wst, 0), killed);
	assert_int_equal(wst, 0);
	assert_int_equal(stat(spare, &b), -1); /* taken */
	assert_true(pending_orphans(wd, &since, &taken)); /* the longer text's tail cut */
	assert_int_equal(since.since.tv_sec, span.since.tv_sec);
	assert_int_equal(since.until, span.until);
	pending_orphans_end(taken);
	assert_non_null((p = pending_begin(wd, &span)));
	assert_non_null((q = pending_begin(wd, &span)));
	pending_end(p);
	pending_end(q); /* not over the first's spare */
	{
		char *cmd = xasprintf("test \"$(ls '%s')\" = spare", dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	env_restore("XDG_STATE_HOME", old);
	free(spare);
	free(st);
	free(dir);
	rm_rf(home);
}

/* guard_recover() acts on what changed in the killed run's span only: a
 * file the user made after its deadline is the user's, and stays; one in
 * the span is moved aside, since it may be the user's too. That holds in
 * the loose-object fan-out, which no note lists: a FIFO a run left there,
 * where git opens an object by name, hung the host's next `git status`. */
static void test_recover_span(void **state)
{
	char *wd = tmpdir_new(), real[PATH_MAX], path[PATH_MAX + 64], *gone;
	struct guard_note g;
	time_t now = time(NULL);
	struct guard_span before = {{now - 100, 0}, now - 50}, open_end = {{now - 100, 0}, 0};
	(void)state;
	assert_non_null(realpath(wd, real));
	snprintf(path, sizeof(path), "%s/.git", real);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.claude", real);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(real, ".claude/settings.json", "{}\n");
	snprintf(path, sizeof(path), "%s/.git/objects", real);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.git/objects/ab", real);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.git/objects/ab/cdef", real);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(guard_note(real, "/nonexistent", NULL, &g), 0);
	assert_null(guard_recover(&g, &before)); /* made after that run's end */
	assert_int_equal(access(path, F_OK), 0);
	assert_non_null(gone = guard_recover(&g, &open_end));
	assert_non_null(strstr(gone, ".claude/settings.json"));
	assert_non_null(strstr(gone, ".git/objects/ab/cdef"));
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/.claude/settings.json", real);
	assert_int_equal(access(path, F_OK), -1);
	/* moved aside, not removed: it may be the user's, changed meanwhile */
	snprintf(path, sizeof(path), "%s/.claude/settings.json.airlock-killed", real);
	assert_int_equal(access(path, F_OK), 0);
	assert_non_null(strstr(gone, "moved aside"));
	free(gone);
	guard_note_clear(&g);
	rm_rf(wd);
}

/* guard_named[]: each directory is a pin of the table (what the sweep
 * compares to see it replaced), and below it the sweep removes a named
 * config the run made or replaced, or a link NAME it made that leads to
 * one, and keeps one that was there, and what else lies beside them. */
static void test_guard_named(void **state)
{
	char *wd = tmpdir_new(), real[PATH_MAX], path[PATH_MAX + 64], real_new[PATH_MAX + 64], *gone;
	struct guard_note g;
	(void)state;
	for (size_t k = 0; k < GUARD_NNAMED; k++) {
		bool pin = false;
		for (size_t i = 0; i < GUARD_NPATHS; i++)
			pin |= strcmp(guard_paths[i].rel, guard_named[k].dir) == 0 &&
			       guard_paths[i].kind == GUARD_PIN;
		assert_true(pin);
	}
	/* what a preview says the guard would remove (diff/overlay.c) */
	assert_true(exec_path_guarded(".devcontainer/py/devcontainer.json", false));
	assert_false(exec_path_guarded(".devcontainer/py/Dockerfile", false));
	assert_false(exec_path_guarded(".devcontainer/a/b/devcontainer.json", false));
	assert_false(exec_path_guarded(".devcontainer//devcontainer.json", false));
	assert_false(exec_path_guarded(".devcontainer/py", true));
	assert_non_null(realpath(wd, real));
	for (const char *const *d = (const char *const[]){".devcontainer", ".devcontainer/a",
	                                                  ".devcontainer/b", NULL};
	     *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", real, *d);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	write_file(real, ".devcontainer/a/devcontainer.json", "{}\n");
	write_file(real, ".devcontainer/b/devcontainer.json", "{}\n");
	snprintf(path, sizeof(path), "%s/y", real); /* the user's link e to y */
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.devcontainer/e", real);
	assert_int_equal(symlink("../y", path), 0);
	assert_int_equal(guard_note(real, "/nonexistent", NULL, &g), 0);
	write_file(real, "y/devcontainer.json", "{}\n"); /* the spec reads it through e */
	/* the run: c made, b's replaced, a's left, a link d to a directory
	 * holding one, and one made through the user's link e */
	snprintf(path, sizeof(path), "%s/.devcontainer/c", real);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(real, ".devcontainer/c/devcontainer.json", "{\"initializeCommand\":\"x\"}\n");
	write_file(real, ".devcontainer/c/Dockerfile", "FROM x\n");
	write_file(real, ".devcontainer/b/new", "{\"initializeCommand\":\"x\"}\n");
	snprintf(path, sizeof(path), "%s/.devcontainer/b/new", real);
	snprintf(real_new, sizeof(real_new), "%s/.devcontainer/b/devcontainer.json", real);
	assert_int_equal(rename(path, real_new), 0); /* over it: another inode */
	write_file(real, ".devcontainer/Dockerfile", "FROM x\n");
	snprintf(path, sizeof(path), "%s/.devcontainer/d", real);
	assert_int_equal(symlink("../x", path), 0);
	snprintf(path, sizeof(path), "%s/x", real);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(real, "x/devcontainer.json", "{}\n");
	assert_non_null(gone = guard_sweep(&g));
	assert_non_null(strstr(gone, ".devcontainer/b/devcontainer.json"));
	assert_non_null(strstr(gone, ".devcontainer/c/devcontainer.json"));
	assert_non_null(strstr(gone, ".devcontainer/d (a link"));
	assert_non_null(strstr(gone, ".devcontainer/e (a link"));
	assert_null(strstr(gone, ".devcontainer/a/"));
	for (const char *const *p = (const char *const[]){".devcontainer/a/devcontainer.json",
	                                                  ".devcontainer/c/Dockerfile",
	                                                  ".devcontainer/Dockerfile", NULL};
	     *p; p++) {
		snprintf(path, sizeof(path), "%s/%s", real, *p);
		assert_int_equal(access(path, F_OK), 0);
	}
	snprintf(path, sizeof(path), "%s/.devcontainer/c/devcontainer.json", real);
	assert_int_equal(access(path, F_OK), -1);
	free(gone);
	/* a recovery removes a link NAME: moved aside, f.airlock-killed would
	 * be a NAME the spec reads too */
	snprintf(path, sizeof(path), "%s/.devcontainer/f", real);
	assert_int_equal(symlink("../y", path), 0);
	assert_non_null(gone = guard_recover(&g, &(struct guard_span){{time(NULL) - 100, 0}, 0}));
	assert_non_null(strstr(gone, ".devcontainer/f (a link"));
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/.devcontainer/f.airlock-killed", real);
	assert_int_equal(faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW), -1);
	free(gone);
	guard_note_clear(&g);
	rm_rf(wd);
}

/* gitindex.c reads an index as git does where a run can make the two
 * differ: a v2 entry's name as long as its flags say, whatever bytes
 * follow (the old reader took them up to the NUL: another path), and
 * bytes left before the checksum, fewer than an extension's header (the
 * old reader failed there, and found no gitlink at all). Each index is
 * rewritten with its checksum made good, and the gitlink `git ls-files`
 * reads must be among those the reader finds. */
static void test_gitindex_as_git(void **state)
{
	static const char *const crafts[] = {
		"b = bytearray(b); b[n - 2:n] = (((b[n - 2] << 8 | b[n - 1]) & ~0xfff) | 3).to_bytes(2, 'big')",
		"b = b + b'\\0\\0\\0\\0'",
	};
	(void)state;
	for (size_t i = 0; i < nitems(crafts); i++) {
		char *wd = tmpdir_new(), *gd = xasprintf("%s/.git", wd), **links = NULL, *cmd, want[64];
		FILE *f;
		cmd = xasprintf(
		        "cd '%s' && G='git -c user.email=a@b -c user.name=a' && git init -q && "
		        "touch f && git init -q a/sub && $G -C a/sub commit -q --allow-empty -m s && "
		        "git add f a/sub 2>/dev/null && python3 -c \"import hashlib; "
		        "d = open('.git/index', 'rb').read(); b = d[:-20]; n = b.index(b'a/sub'); %s; "
		        "b = bytes(b); open('.git/index', 'wb').write(b + hashlib.sha1(b).digest())\"",
		        wd, crafts[i]);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		cmd = xasprintf("git -C '%s' ls-files -s | sed -n 's/^160000 [0-9a-f]* 0\t//p'", wd);
		assert_non_null(f = popen(cmd, "r"));
		assert_non_null(fgets(want, sizeof(want), f));
		pclose(f);
		want[strcspn(want, "\n")] = '\0';
		assert_int_equal(gitindex_gitlinks(gd, &links), 0);
		if (!strv_contains(links, want))
			fail_msg("craft %zu: git reads gitlink %s, the reader did not", i, want);
		strv_free(links);
		free(cmd);
		free(gd);
		rm_rf(wd);
	}
}

/* A workdir that grows past what the search's table holds (run first, while
 * the process's table is as small as it starts): it doubles,
 * keeping what it remembers and the watches, whose events must still
 * reach the right directory. A .env added to each watched before the table
 * grew, and to one read after, is found, search after search. */
/* The plan looks guarded paths up from the workdir, opened once, and
 * skips those under a directory found absent: a path under a guarded
 * directory that is a link into the workdir is still found through the
 * link, and kept read-only (a run cannot rewrite .claude/settings.json
 * as real/settings.json), while one under an absent directory is still
 * swept when a run makes it. */
static void test_guard_link_holder(void **state)
{
	char *wd = tmpdir_new(), *real = xasprintf("%s/real", wd), *link = xasprintf("%s/.claude", wd);
	char *argv[] = {(char *)"sh", (char *)"-c",
	                (char *)"echo planted > .claude/settings.json || echo refused; "
	                        "mkdir -p .amazonq && echo '{}' > .amazonq/mcp.json",
	                NULL},
	     *err = NULL, *text;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true,
	                      .profile = exec_builtin_profile("workspace")};
	struct exec_result res;
	struct stat st;
	char buf[16] = "";
	FILE *f;
	(void)state;

	assert_int_equal(mkdir(real, 0755), 0);
	write_file(wd, "real/settings.json", "{}\n");
	assert_int_equal(symlink("real", link), 0);
	assert_int_equal(exec_run(&s, &res, &err), 0);
	assert_non_null(strstr(res.out, "refused"));
	assert_non_null(res.removed);
	assert_non_null(strstr(res.removed, ".amazonq/mcp.json"));
	exec_result_clear(&res);
	text = xasprintf("%s/settings.json", real);
	assert_non_null((f = fopen(text, "r")));
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "{}\n"); /* untouched */
	free(text);
	text = xasprintf("%s/.amazonq/mcp.json", wd);
	assert_int_equal(lstat(text, &st), -1);
	free(text);
	free(real);
	free(link);
	rm_rf(wd);
}

/* state_path_resolved(): the longest part that exists resolved (found
 * with stat() first, then realpath()), a first missing part that is a
 * link to nothing followed, the rest as written; NULL for a "." or ".."
 * in the rest. Each row: the path under a temp dir, the answer under its
 * resolved self ("-": NULL). */
static void test_state_path_resolved(void **state)
{
	static const char *const rows[][2] = {
	        {"dir", "dir"},
	        {"dir/missing/deeper", "dir/missing/deeper"},
	        {"link/missing", "dir/missing"},
	        {"dangling/x", "made-later/x"},
	        {"file/below", "file/below"},
	        {"dir/missing/../x", "-"},
	        {"dir/./missing", "dir/missing"},
	        {"dir//missing", "dir/missing"},
	        {"loop1/x", "-"},
	};
	static const char *const links[][2] = {
	        {"link", "dir"}, {"dangling", "made-later"}, {"loop1", "loop2"}, {"loop2", "loop1"}};
	char *d = tmpdir_new(), real[PATH_MAX], *p, *want, *got;
	(void)state;

	assert_non_null(realpath(d, real));
	p = xasprintf("%s/dir", d);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	write_file(d, "file", "x");
	for (size_t i = 0; i < nitems(links); i++) {
		p = xasprintf("%s/%s", d, links[i][0]);
		assert_int_equal(symlink(links[i][1], p), 0);
		free(p);
	}
	for (size_t i = 0; i < nitems(rows); i++) {
		p = xasprintf("%s/%s", d, rows[i][0]);
		want = strcmp(rows[i][1], "-") == 0 ? NULL : xasprintf("%s/%s", real, rows[i][1]);
		got = state_path_resolved(p);
		if (!(want ? got && strcmp(got, want) == 0 : got == NULL))
			fail_msg("%s: got %s, want %s", rows[i][0], got ? got : "NULL",
			         want ? want : "NULL");
		free(got);
		free(want);
		free(p);
	}
	rm_rf(d);
}

/* A figure from a /proc/sys file, or -1. */
static long long proc_figure(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* The sandbox's namespace caps inotify and fanotify at a quarter of the
 * smaller of the caller's namespace's figure and the host-wide one (in
 * the initial namespace they are one figure, read once), and new user
 * namespaces at 0. */
static void test_userns_caps(void **state)
{
	static const char *const rows[][2] = {
	        {"max_inotify_instances", "/proc/sys/fs/inotify/max_user_instances"},
	        {"max_inotify_watches", "/proc/sys/fs/inotify/max_user_watches"},
	        {"max_fanotify_groups", "/proc/sys/fs/fanotify/max_user_groups"},
	        {"max_fanotify_marks", "/proc/sys/fs/fanotify/max_user_marks"},
	        {"max_user_namespaces", NULL},
	};
	char *wd = tmpdir_new(), *err = NULL;
	(void)state;

	for (size_t i = 0; i < nitems(rows); i++) {
		char *own_path = xasprintf("/proc/sys/user/%s", rows[i][0]);
		char *cmd = xasprintf("cat %s", own_path);
		char *argv[] = {(char *)"sh", (char *)"-c", cmd, NULL};
		struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true,
		                      .profile = exec_builtin_profile("readonly")};
		struct exec_result res;
		long long own = proc_figure(own_path), host = rows[i][1] ? proc_figure(rows[i][1]) : -1;
		long long want = rows[i][1] == NULL ? 0 : (own >= 0 && (host < 0 || own < host) ? own : host) / 4;

		if (own < 0) { /* the kernel has no such count */
			free(own_path);
			free(cmd);
			continue;
		}
		assert_int_equal(exec_run(&s, &res, &err), 0);
		if (want < 1)
			want = rows[i][1] == NULL ? 0 : 1;
		if (res.exit_code != 0 || strtoll(res.out, NULL, 10) != want)
			fail_msg("%s: the sandbox has %s, want %lld", rows[i][0], res.out, want);
		exec_result_clear(&res);
		free(own_path);
		free(cmd);
	}
	rm_rf(wd);
}

/* A call's plan resolves the state directory once (state_hold()), and
 * only while held: a link changed after the call, or after
 * state_forget(), or a changed XDG_STATE_HOME, is seen at once; and
 * exec_run() leaves nothing held (a gate's next call resolves afresh). */
static void test_state_hold(void **state)
{
	(void)state;
	char *d = tmpdir_new(), *a = xasprintf("%s/a", d), *b = xasprintf("%s/b", d);
	char *link = xasprintf("%s/link", d), *wd = xasprintf("%s/wd", d);
	char *want_a = xasprintf("%s/airlock", a), *want_b = xasprintf("%s/airlock", b), *r;
	char *argv[] = {(char *)"true", NULL}, *err = NULL;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true,
	                      .profile = exec_builtin_profile("workspace")};
	struct exec_result res;

	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(b, 0700), 0);
	assert_int_equal(mkdir(wd, 0755), 0);
	assert_int_equal(symlink("a", link), 0);
	char *old = env_swap("XDG_STATE_HOME", link);
	state_hold();
	assert_string_equal((r = state_root()), want_a);
	free(r);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("b", link), 0);
	assert_string_equal((r = state_root()), want_a); /* held: resolved once */
	free(r);
	state_forget();
	assert_string_equal((r = state_root()), want_b);
	free(r);
	setenv("XDG_STATE_HOME", a, 1); /* another environment: not the held answer */
	assert_string_equal((r = state_root()), want_a);
	free(r);
	setenv("XDG_STATE_HOME", link, 1);
	state_release();
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("a", link), 0);
	assert_string_equal((r = state_root()), want_a); /* released: afresh */
	free(r);
	assert_int_equal(exec_run(&s, &res, &err), 0);
	exec_result_clear(&res);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("b", link), 0);
	assert_string_equal((r = state_root()), want_b); /* exec_run() held nothing after */
	free(r);
	env_restore("XDG_STATE_HOME", old);
	free(want_a);
	free(want_b);
	free(a);
	free(b);
	free(link);
	free(wd);
	rm_rf(d);
}

static void test_secrets_cache_grows(void **state)
{
	char *wd = tmpdir_new(), *err = NULL, **found, real[PATH_MAX], *cmd;
	size_t nfound;
	(void)state;
	assert_non_null(realpath(wd, real));
	for (int i = 0; i < 8; i++) { /* 100 directories, then 700: watched ones move */
		cmd = xasprintf("cd '%s' && for i in $(seq %d); do mkdir -p d$i; done", real,
		                i < 6 ? 100 : 700);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		age_dirs(real);
		assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err),
		                 0);
		assert_int_equal(nfound, 0);
		strv_free(found);
	}
	cmd = xasprintf("cd '%s' && for i in $(seq 100) 700; do touch d$i/.env; done", real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	age_dirs(real); /* an mtime put back: only a watch sees the change */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err),
		                 0);
		assert_int_equal(nfound, 101);
		strv_free(found);
	}
	rm_rf(wd);
}

/* One search as a new process makes it: the .env files found, and how
 * many directories it read rather than trusted. */
static size_t search_fresh(const char *real, size_t *read)
{
	char **found, *err = NULL;
	size_t nfound, before;

	secrets_forget();
	before = secrets_dirs_read();
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	*read = secrets_dirs_read() - before;
	strv_free(found);
	return nfound;
}

/* What a process's search read is kept in the state directory, and the
 * next process's first search trusts a directory from it only while its
 * device, inode, mtime and ctime are as kept: one changed since is read
 * again, its mtime put back too, and a file that is not private, or cut
 * short, spares nothing. Times within 2 s are racy, never kept: hence the
 * waits. */
static void test_secrets_kept(void **state)
{
	char *wd = tmpdir_new(), *st = tmpdir_new(), *wd2, real[PATH_MAX], *cmd, *kept;
	char *old = getenv("XDG_STATE_HOME") ? xstrdup(getenv("XDG_STATE_HOME")) : NULL;
	size_t read;

	(void)state;
	setenv("XDG_STATE_HOME", st, 1);
	assert_non_null(realpath(wd, real));
	cmd = xasprintf("cd '%s' && mkdir -p a/b c && touch a/.env c/f && sleep 2.1", real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(search_fresh(real, &read), 1);
	assert_int_equal(read, 4); /* ., a, a/b, c */
	assert_int_equal(search_fresh(real, &read), 1);
	assert_int_equal(read, 0); /* all kept, all unchanged */
	write_file(real, "c/.env", "X=1\n"); /* c changed now: read, and not kept */
	assert_int_equal(search_fresh(real, &read), 2);
	assert_int_equal(read, 1);
	assert_int_equal(search_fresh(real, &read), 2);
	assert_int_equal(read, 1);
	/* a secret added, and the mtime put back as the sandbox could */
	assert_int_equal(system("sleep 2.1"), 0);
	assert_int_equal(search_fresh(real, &read), 2); /* c kept, its times old now */
	cmd = xasprintf("cd '%s' && t=$(stat -c %%.9Y c) && touch c/id_rsa && touch -m -d @$t c",
	                real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(search_fresh(real, &read), 3);
	assert_int_equal(read, 1); /* its ctime moved */
	cmd = xasprintf("cd '%s'/airlock/search && f=$(ls) && chmod 0644 $f", st);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(search_fresh(real, &read), 3);
	assert_int_equal(read, 4); /* not private: ignored (and written again) */
	kept = xasprintf("cd '%s'/airlock/search && f=$(ls) && truncate -s -3 $f", st);
	assert_int_equal(system(kept), 0);
	free(kept);
	assert_int_equal(search_fresh(real, &read), 3);
	assert_int_equal(read, 4); /* cut short: none of it */
	/* a workdir's first kept file removes those unused for 30 days */
	cmd = xasprintf("cd '%s'/airlock/search && touch -d 2020-01-01 0000000000000000 && "
	                "touch 0000000000000001",
	                st);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	wd2 = tmpdir_new();
	assert_non_null(realpath(wd2, real));
	assert_int_equal(search_fresh(real, &read), 0);
	rm_rf(wd2);
	kept = xasprintf("%s/airlock/search/0000000000000000", st);
	assert_int_equal(access(kept, F_OK), -1);
	kept[strlen(kept) - 1] = '1';
	assert_int_equal(access(kept, F_OK), 0);
	free(kept);
	if (old)
		setenv("XDG_STATE_HOME", old, 1);
	else
		unsetenv("XDG_STATE_HOME");
	free(old);
	secrets_forget();
	rm_rf(wd);
	rm_rf(st);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One search with the deny rules' globs hide and keep (all NULL: a search
 * that brings no set, as the guard's): what each matched, names relative
 * to real sorted and joined by spaces, and how many directories it read. */
static char *globs_search(const char *real, const char *hide, const char *keep, size_t *read,
                          bool fresh)
{
	char *hv[] = {(char *)hide, NULL}, *kv[] = {(char *)keep, NULL};
	struct search_globs g = {hide ? hv : NULL, keep ? kv : NULL, NULL, NULL, NULL};
	char **found, *err = NULL;
	size_t nfound, before;
	struct buf b;

	if (fresh)
		secrets_forget();
	before = secrets_dirs_read();
	assert_int_equal(secrets_search(real, MASK_SECRETS, NULL, hide || keep ? &g : NULL,
	                                &found, &nfound, NULL, &err),
	                 0);
	*read = secrets_dirs_read() - before;
	if (g.hidden)
		qsort(g.hidden, strv_len(g.hidden), sizeof(char *), str_cmp);
	buf_init(&b, 0);
	for (char **v = g.hidden; v && *v; v++)
		buf_printf(&b, "%s%s", b.len ? " " : "", *v + strlen(real) + 1);
	for (char **v = g.kept; v && *v; v++)
		buf_printf(&b, "%skeep:%s", b.len ? " " : "", *v + strlen(real) + 1);
	strv_free(g.hidden);
	strv_free(g.kept);
	strv_free(g.airlocks);
	strv_free(found);
	return buf_take(&b, NULL);
}

#define GLOBS_EXPECT(real, hide, keep, fresh, want, want_read)                        \
	do {                                                                          \
		size_t r_;                                                            \
		char *got_ = globs_search(real, hide, keep, &r_, fresh);              \
		assert_string_equal(got_, want);                                      \
		if ((long)(want_read) >= 0)                                           \
			assert_int_equal(r_, (size_t)(want_read));                    \
		free(got_);                                                           \
	} while (0)

/* The search finds what the deny rules' globs match as rules.c matches
 * (a directory whole, nothing below it listed; nothing in a skipped tree),
 * and what it remembers, in the process and in the kept file, is for one
 * set of globs: another set (a policy changed) reads again and finds what
 * it matches, the pattern removed or added between searches. */
static void test_secrets_globs(void **state)
{
	char *wd = tmpdir_new(), real[PATH_MAX], *cmd, *sql, *txt, *lock;
	(void)state;
	assert_non_null(realpath(wd, real));
	cmd = xasprintf("cd '%s' && mkdir -p a/b c d.sql node_modules/m && touch a/x.sql "
	                "a/b/y.sql a/b/y.sqlx c/Cargo.lock c/f.txt d.sql/in.sql "
	                "node_modules/m/q.sql && sleep 2.1",
	                real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	sql = xasprintf("%s/**/*.sql", real);
	txt = xasprintf("%s/c/*.txt", real);
	lock = xasprintf("%s/**/*.lock", real);
	/* ., a, a/b, c, d.sql: read afresh, kept for the next process */
	GLOBS_EXPECT(real, sql, lock, true, "a/b/y.sql a/x.sql d.sql keep:c/Cargo.lock", 5);
	GLOBS_EXPECT(real, sql, lock, true, "a/b/y.sql a/x.sql d.sql keep:c/Cargo.lock", 0);
	/* another set in the same process: read again */
	GLOBS_EXPECT(real, txt, lock, false, "c/f.txt keep:c/Cargo.lock", 5);
	GLOBS_EXPECT(real, txt, NULL, false, "c/f.txt", 5);
	GLOBS_EXPECT(real, txt, NULL, false, "c/f.txt", -1);
	/* a search without globs finds none; the set stands for the next */
	GLOBS_EXPECT(real, NULL, NULL, false, "", -1);
	GLOBS_EXPECT(real, txt, NULL, false, "c/f.txt", 0);
	/* the kept file's set is another than the next process's: read again */
	GLOBS_EXPECT(real, sql, NULL, true, "a/b/y.sql a/x.sql d.sql", 5);
	/* ... the same: trusted, also when a search without globs came first */
	GLOBS_EXPECT(real, NULL, NULL, true, "", 0);
	GLOBS_EXPECT(real, sql, NULL, false, "a/b/y.sql a/x.sql d.sql", 0);
	/* nothing kept: the guard's search, told the set ahead (as
	 * mounts_search_skip() does), reads for it, and the plan's reads none */
	cmd = xasprintf("rm -r '%s'/airlock/search", getenv("XDG_STATE_HOME"));
	assert_int_equal(system(cmd), 0);
	free(cmd);
	secrets_forget();
	secrets_globs_expect((char *[]){sql, NULL}, NULL);
	GLOBS_EXPECT(real, NULL, NULL, false, "", 5);
	GLOBS_EXPECT(real, sql, NULL, false, "a/b/y.sql a/x.sql d.sql", 0);
	/* a file made since is found by the next search */
	write_file(real, "c/new.sql", "x\n");
	GLOBS_EXPECT(real, sql, NULL, false, "a/b/y.sql a/x.sql c/new.sql d.sql", 1);
	free(sql);
	free(txt);
	free(lock);
	secrets_forget();
	rm_rf(wd);
}

/* gitindex_gitlinks() over indexes git itself wrote, in each format the
 * guard must read: the gitlink a/sub found, the files not; an index that
 * is not one gives -1. */
static void test_gitindex_gitlinks(void **state)
{
	static const struct {
		const char *init, *then;
	} rows[] = {
		{"", "git update-index --index-version 2"},
		{"", "git add -N n && git update-index --index-version 3"}, /* extended flags */
		{"", "git update-index --index-version 4"},                /* prefix-compressed */
		{"", "git update-index --split-index"}, /* its entries in sharedindex.* */
		{"--object-format=sha256", "true"},
	};
	(void)state;
	for (size_t i = 0; i < nitems(rows); i++) {
		char *wd = tmpdir_new(), *gd = xasprintf("%s/.git", wd), **links = NULL, *cmd;
		cmd = xasprintf("cd '%s' && G='git -c user.email=a@b -c user.name=a' && "
		                "git init -q %s && mkdir -p a/b && touch f a/b/f a/f n && "
		                "git init -q %s a/sub && $G -C a/sub commit -q --allow-empty -m s && "
		                "git add f a/b/f a/f a/sub 2>/dev/null && %s",
		                wd, rows[i].init, rows[i].init, rows[i].then);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(gitindex_gitlinks(gd, &links), 0);
		assert_non_null(links);
		assert_string_equal(links[0], "a/sub");
		assert_null(links[1]);
		strv_free(links);
		links = NULL;
		free(cmd);
		cmd = xasprintf("printf 'DIRC\\0\\0\\0\\2\\0\\0\\0\\9' > '%s/index'", gd);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(gitindex_gitlinks(gd, &links), -1);
		assert_null(links);
		free(cmd);
		free(gd);
		rm_rf(wd);
	}
}

/* gitindex_read()'s marks and gitindex_unhide() over indexes git wrote,
 * in each format: f (the user's, kept) and a/f (the run's) marked; the
 * mark of a/f goes, f's stays, and git still reads the index whole, its
 * change to a/f shown again. */
static void test_gitindex_unhide(void **state)
{
	static const char *const rows[] = {
		"git update-index --index-version 2", /* skip-worktree lifts it to 3 */
		"git update-index --index-version 4",
		"git config index.skipHash true && git update-index --index-version 3",
		"git init -q --object-format=sha256 . 2>/dev/null; true",
	};
	char f_name[] = "f", *keep[] = {f_name, NULL};
	(void)state;
	for (size_t i = 0; i < nitems(rows); i++) {
		char *wd = tmpdir_new(), *gd = xasprintf("%s/.git", wd), **links = NULL;
		char **marks = NULL, **cleared = NULL, *cmd, out[256] = "";
		FILE *f;
		cmd = xasprintf("cd '%s' && %s && git init -q && %s && mkdir a && touch f a/f a/g && "
		                "git add f a && git update-index --assume-unchanged f && "
		                "git update-index --skip-worktree a/f && echo x >a/f",
		                wd, strncmp(rows[i], "git init", 8) == 0 ? rows[i] : "true",
		                strncmp(rows[i], "git init", 8) == 0 ? "true" : rows[i]);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		assert_int_equal(gitindex_read(gd, &links, &marks, 0, NULL), 0);
		assert_int_equal(strv_len(marks), 2);
		assert_true(strv_contains(marks, "f") && strv_contains(marks, "a/f"));
		assert_int_equal(gitindex_unhide(gd, keep, 0, &cleared), 0);
		assert_non_null(cleared);
		assert_string_equal(cleared[0], "a/f");
		assert_null(cleared[1]);
		cmd = xasprintf("git -C '%s' ls-files -v | tr '\\n' ' '; git -C '%s' status --short a/f",
		                wd, wd);
		assert_non_null(f = popen(cmd, "r"));
		assert_int_equal(fread(out, 1, sizeof(out) - 1, f) > 0, 1);
		pclose(f);
		if (strcmp(out, "H a/f H a/g h f AM a/f\n") != 0)
			fail_msg("row %zu: git reads %s", i, out);
		strv_free(cleared);
		strv_free(marks);
		strv_free(links);
		free(cmd);
		free(gd);
		rm_rf(wd);
	}
}

/* secrets_find() over a tree made from tests/data/exec/secrets.tsv: depth,
 * skipped trees, links out and in, directories with secret names. Run
 * twice: the second answer comes from the cache and must be the same;
 * then a file added to a remembered directory must be found. */
static void test_secrets_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/exec/secrets.tsv", &rows), nfound, want = 0;
	char *wd = tmpdir_new(), *err = NULL, **found, real[PATH_MAX], *cmd;
	(void)state;
	assert_true(n >= 15);
	assert_non_null(realpath(wd, real));
	for (size_t i = 0; i < n; i++)
		secrets_make(real, rows[i].f[0], rows[i].f[1]);
	age_dirs(real); /* else every directory is too new to remember */
	/* passes 0 and 1: secrets only, the second from the cache; 2: secrets
	 * and pipes, from the same cache */
	for (int pass = 0; pass < 3; pass++) {
		unsigned what = pass < 2 ? MASK_SECRETS : MASK_SECRETS | MASK_PIPES;
		assert_int_equal(secrets_find(real, what, NULL, &found, &nfound, NULL, &err), 0);
		want = 0;
		for (size_t i = 0; i < n; i++) {
			char *p = xasprintf("%s/%s", real, rows[i].f[0]);
			bool yes = strcmp(rows[i].f[2], "masked") == 0 ||
			           (pass == 2 && strcmp(rows[i].f[2], "pipe") == 0);
			want += yes;
			if (strv_contains(found, p) != yes)
				fail_msg("line %zu (pass %d): %s %s, want %s", rows[i].line, pass,
				         rows[i].f[0], yes ? "not found" : "found", rows[i].f[2]);
			free(p);
		}
		if (nfound != want)
			fail_msg("pass %d: %zu found, want %zu", pass, nfound, want);
		strv_free(found);
	}
	gitdirs_check(real, rows, n);
	/* a directory in skip (a kernel file system the plan covers) is not
	 * entered: a mask under one would have nowhere to go */
	char *skip[] = {xasprintf("%s/run", real), NULL};
	assert_int_equal(secrets_find(real, MASK_PIPES, skip, &found, &nfound, NULL, &err), 0);
	for (size_t i = 0; i < nfound; i++)
		if (strncmp(found[i], skip[0], strlen(skip[0])) == 0)
			fail_msg("%s found below a skipped directory", found[i]);
	assert_true(nfound >= 1); /* the deep socket elsewhere */
	strv_free(found);
	free(skip[0]);
	want = 0; /* secrets only from here on */
	for (size_t i = 0; i < n; i++)
		want += strcmp(rows[i].f[2], "masked") == 0;
	/* From the fourth search on, directories are watched: a name added is
	 * seen even with the directory's mtime put back (an mtime alone would
	 * miss it), and so is one added deeper and one renamed in... */
	secrets_make(real, "apps/web/.env.local", "file");
	age_dirs(real);
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	assert_int_equal(nfound, want + 1);
	strv_free(found);
	secrets_make(real, "apps/web/config/.env.test", "file");
	secrets_make(real, "apps/web/src/x", "file");
	cmd = xasprintf("mv '%s/apps/web/src/x' '%s/apps/web/src/prod.key'", real, real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	assert_int_equal(nfound, want + 3);
	strv_free(found);
	/* ...and one removed is gone. */
	cmd = xasprintf("rm '%s/apps/web/src/prod.key'", real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	assert_int_equal(nfound, want + 2);
	strv_free(found);
	/* A watch follows its directory, not the path: with a remembered empty
	 * x/config moved away as y, and a directory with a .env moved in at
	 * x/config, the remembered x/config must not answer for it. */
	secrets_make(real, "x/config", "dir");
	secrets_make(real, "secretdir/.env", "file");
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	strv_free(found);
	cmd = xasprintf("cd '%s' && mv x y && mkdir x && mv secretdir x/config", real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	cmd = xasprintf("%s/x/config/.env", real);
	if (!strv_contains(found, cmd))
		fail_msg("%s not found after its directory was moved in", cmd);
	free(cmd);
	strv_free(found);
	tdata_free(rows, n);
	rm_rf(wd);
}

/* 70 certificate bundles of 1 MB each: a search reads 64 MiB of .pem at
 * most, and masks the ones past it rather than read them all each time. */
static void test_secrets_pem_budget(void **state)
{
	char *wd = tmpdir_new(), *err = NULL, **found = NULL, real[PATH_MAX], *cmd;
	size_t nfound;
	(void)state;
	assert_non_null(realpath(wd, real));
	cmd = xasprintf("cd '%s' && awk 'BEGIN { for (i = 0; i < 17500; i++) printf "
	                "\"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\" "
	                "}' > 0.pem && for i in $(seq 69); do cp 0.pem $i.pem; done",
	                real);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), 0);
	if (nfound < 4 || nfound > 10)
		fail_msg("%zu of 70 bundles masked, want the 4 to 10 past 64 MiB", nfound);
	strv_free(found);
	rm_rf(wd);
}

/* More entries than the search reads, made ahead of a directory with a
 * .env: the search fails rather than leave it unmasked. */
static void test_secrets_too_many(void **state)
{
	char *wd = tmpdir_new(), *err = NULL, **found = NULL, real[PATH_MAX], *cmd;
	size_t nfound;
	(void)state;
	assert_non_null(realpath(wd, real));
	cmd = xasprintf("cd '%s' && mkdir flood && cd flood && seq %d | xargs touch", real,
	                SECRETS_ENTRIES + 1);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	secrets_make(real, "zz/deep/.env", "file"); /* read after flood, whatever the order */
	assert_int_equal(secrets_find(real, MASK_SECRETS, NULL, &found, &nfound, NULL, &err), -1);
	assert_null(found);
	assert_non_null(strstr(err, "was not searched"));
	free(err);
	rm_rf(wd);
}

/* Splits a space-separated field ("-": none) into a new vector. */
static char **field_list(const char *f)
{
	char **v = NULL, *copy = xstrdup(f), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w && strcmp(f, "-") != 0;
	     w = strtok_r(NULL, " ", &save))
		strv_push(&v, w);
	free(copy);
	return v;
}

/* env_path_hidden() over tests/data/exec/path_hidden.tsv. */
static void test_path_hidden_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/exec/path_hidden.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct tdata_row *r = &rows[i];
		struct profile p = *exec_builtin_profile("workspace");
		char *path = strcmp(r->f[0], "-") ? xasprintf("PATH=%s", r->f[0]) : NULL;
		char *from[] = {(char *)"LANG=C", path, NULL};
		p.home = field_list(r->f[2]);
		p.read_only = field_list(r->f[3]);
		char *got = env_path_hidden(&p, from, r->f[1]);
		if (strcmp(got ? got : "-", r->f[4]) != 0)
			fail_msg("%s:%zu: named [%s], want [%s]", r->file, r->line, got ? got : "-",
			         r->f[4]);
		free(got);
		free(path);
		strv_free(p.home);
		strv_free(p.read_only);
	}
	tdata_free(rows, n);
}

/* gitcreds_shown() (the cut, then libgit2's reading of what may differ)
 * over tests/data/exec/gitcreds.tsv, and a config with a NUL byte (which a
 * row cannot hold), shown as a note alone. */
static void test_gitcreds_table(void **state)
{
	static const char nul[] = "[remote \"o\"]\n\turl = https://tok@h/r\0x\n";
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/exec/gitcreds.tsv", &rows);
	char *got;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct tdata_row *r = &rows[i];
		got = gitcreds_shown(r->f[0], strlen(r->f[0]));
		if (strcmp(got ? got : "-", r->f[1]) != 0)
			fail_msg("%s:%zu: cut to [%s], want [%s]", r->file, r->line, got ? got : "-",
			         r->f[1]);
		free(got);
	}
	tdata_free(rows, n);
	got = gitcreds_cut(nul, sizeof(nul) - 1);
	assert_non_null(got);
	assert_null(strstr(got, "tok"));
	assert_non_null(strstr(got, "NUL"));
	free(got);
}

/* The state directory the sandbox code writes (pending records, what a
 * search keeps) is the suite's own, not the user's. */
static char *state_home;

static int state_setup(void **state)
{
	(void)state;
	state_home = tmpdir_new();
	return setenv("XDG_STATE_HOME", state_home, 1);
}

static int state_teardown(void **state)
{
	(void)state;
	rm_rf(state_home);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secrets_cache_grows), /* first: the table is small yet */
		cmocka_unit_test(test_secrets_kept),
		cmocka_unit_test(test_secrets_globs),
		cmocka_unit_test(test_run_table),
		cmocka_unit_test(test_guard_named),
		cmocka_unit_test(test_guard_link_holder),
		cmocka_unit_test(test_overlay),
		cmocka_unit_test(test_fail_closed),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_pool_table),
		cmocka_unit_test(test_pool_isolation),
		cmocka_unit_test(test_pool_concurrent),
		cmocka_unit_test(test_backends),
		cmocka_unit_test(test_seccomp_precompiled),
		cmocka_unit_test(test_secrets_table),
		cmocka_unit_test(test_pending_orphans),
		cmocka_unit_test(test_pending_spare),
		cmocka_unit_test(test_recover_span),
		cmocka_unit_test(test_gitindex_gitlinks),
		cmocka_unit_test(test_gitindex_unhide),
		cmocka_unit_test(test_gitindex_as_git),
		cmocka_unit_test(test_secrets_too_many),
		cmocka_unit_test(test_secrets_pem_budget),
		cmocka_unit_test(test_kernel_mounts),
		cmocka_unit_test(test_path_hidden_table),
		cmocka_unit_test(test_gitcreds_table),
		cmocka_unit_test(test_state_hold),
		cmocka_unit_test(test_userns_caps),
		cmocka_unit_test(test_state_path_resolved),
	};
	return cmocka_run_group_tests(tests, state_setup, state_teardown);
}
