/* atomic_out.h - result files that appear whole or not at all.
 *
 * A result (-o FILE, --write-baseline FILE, print -o) is written to a
 * temporary file in the target's directory (same file system, so rename(2)
 * is atomic) and renamed over the target on commit, after fsync. An error,
 * an exit through die(), SIGINT, SIGTERM or SIGHUP removes the temporary
 * file: the target is either the old file, untouched, or the complete new
 * one. Only SIGKILL (or a power cut before commit) can leave a stray
 * temporary `.NAME.PID.N.tmp`, never a partial target.
 *
 * Process state: the set of pending temporary paths. A signal handler gets
 * no argument, so the paths it must remove can only be reached through
 * process-wide memory; that set (a fixed table of atomic slots, see
 * atomic_out.c) is the one piece of mutable global state in hloproof, and
 * it is written only here. The handlers are installed once per process, on
 * the first open, and use only async-signal-safe calls (unlink, sigaction,
 * raise). Safe with threads: each open claims its own slot. */
#ifndef HLOPROOF_ATOMIC_OUT_H
#define HLOPROOF_ATOMIC_OUT_H
#include <stdio.h>
#include "diag.h"

#define ATOMIC_OUT_MAX_PENDING 32   /* result files open at once, per process */

struct atomic_out {
	FILE *f;        /* write here; stdout when the target is "-" or NULL */
	char *path;     /* target; NULL for stdout */
	int pending;    /* 1 + pending-set slot of the temporary file; 0: none (stdout, closed) */
};

/* path NULL or "-": stdout (commit flushes it). Returns 0, or -1 after
 * reporting "PATH: error: ...". */
int atomic_out_open(struct atomic_out *o, const char *path, struct diag *d);
/* Flush, fsync, close and rename into place. Returns 0, or -1 after
 * reporting (the temporary file is removed, the target left as it was). */
int atomic_out_commit(struct atomic_out *o, struct diag *d);
/* Give up: close and remove the temporary file. Safe after commit, twice,
 * and on a zeroed struct. */
void atomic_out_abort(struct atomic_out *o);
/* 1 when both paths name the same existing file (device and inode, so also
 * through links): commands refuse an output that is one of their inputs. */
int atomic_out_same_file(const char *a, const char *b);
/* The temporary path of an open result file ("" for stdout), for tests. */
const char *atomic_out_tmp_path(const struct atomic_out *o);

#endif
