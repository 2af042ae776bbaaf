/* SPDX-License-Identifier: MIT */
/*
 * child.h - a server program skit talks to over a socket (an MCP server
 * over stdio, a language server): started in a process group of its own
 * and stopped with that whole group (child.c). The one mechanism the mcp
 * client and the lsp tool share.
 */
#ifndef SKIT_LIB_CHILD_H
#define SKIT_LIB_CHILD_H

#include <sys/types.h>

/*
 * Start `prog` (looked up on this process's PATH) with `argv` and the
 * whole environment `envp`, in `cwd` when not NULL: its standard input
 * and output are one end of a socket pair, its standard error
 * /dev/null, its process group its own, no signal blocked. *fd gets the
 * other end (non-blocking, close-on-exec) and *pid the child. Returns 0,
 * or an errno value (ENOENT: no such program) with nothing left open.
 */
int skit__child_spawn(const char *prog, char *const argv[], char *const envp[],
                      const char *cwd, pid_t *pid, int *fd);

/*
 * Stop the child `pid` and everything in its process group: wait up to
 * `wait_ms` for it to exit, then SIGTERM the group and wait up to
 * `term_ms`, then SIGKILL the group. The group is killed before the
 * child is reaped, while its number cannot be reused. Returns the
 * child's wait status, or -1 when it cannot be had.
 */
int skit__child_stop(pid_t pid, long wait_ms, long term_ms);

#endif
