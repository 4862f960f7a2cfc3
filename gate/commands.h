/*
 * commands.h: one entry point per subcommand. Each takes the arguments after
 * the subcommand name (argv[0] is the subcommand) and returns an exit code
 * from enum airlock_exit. Only gate/ prints and picks exit codes.
 */
#ifndef AIRLOCK_COMMANDS_H
#define AIRLOCK_COMMANDS_H

int cmd_gate(int argc, char **argv);     /* gate/cmd_gate.c */
int cmd_classify(int argc, char **argv); /* gate/cmd_classify.c */
int cmd_exec(int argc, char **argv);     /* gate/cmd_exec.c (sandbox issue) */
int cmd_audit(int argc, char **argv);    /* gate/cmd_audit.c (audit issue) */
int cmd_policy(int argc, char **argv);   /* gate/cmd_policy.c (policy issue) */
int cmd_preview(int argc, char **argv);  /* gate/cmd_preview.c (preview issue) */
int cmd_run(int argc, char **argv);      /* gate/cmd_run.c (integrations issue) */
int cmd_hook(int argc, char **argv);     /* gate/cmd_hook.c (integrations issue) */
int cmd_mcp(int argc, char **argv);      /* gate/cmd_mcp.c (integrations issue) */
int cmd_watch(int argc, char **argv);    /* gate/cmd_watch.c (integrations issue) */

#endif
