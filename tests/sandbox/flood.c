/*
 * flood.c: the output-flood case of the escape suite. Runs `yes` (and
 * `yes >&2`) through exec_run() in capture mode, the way the gate runs
 * auto-run calls, with a 64 KiB cap, and prints "CAPPED <bytes> <ms>" when
 * the capture stopped at the cap, was reported truncated and the call
 * ended well before its timeout; else "FLOODED ...". Built by run.sh.
 */
#include <stdio.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec.h"

int main(int argc, char **argv)
{
	char *cmd[] = {(char *)"sh", (char *)"-c", argc > 1 ? argv[1] : (char *)"exec yes", NULL};
	struct profile *p = profile_dup(exec_builtin_profile("workspace"));
	char cwd[4096], *err = NULL;
	struct exec_result r;
	int bad;

	p->output = 64 * 1024;
	if (!getcwd(cwd, sizeof(cwd)))
		return 2;
	struct exec_spec s = {.argv = cmd, .workdir = cwd, .profile = p, .capture = true,
	                      .timeout_ms = 20000};
	if (exec_run(&s, &r, &err) < 0) {
		printf("ERROR %s\n", err);
		return 2;
	}
	bad = !r.truncated || r.outlen > 65536 || r.errlen > 65536 || r.timed_out ||
	      r.outlen + r.errlen < 65536;
	printf("%s %zu %lld\n", bad ? "FLOODED" : "CAPPED", r.outlen + r.errlen, r.wall_ms);
	exec_result_clear(&r);
	profile_free(p);
	return bad;
}
