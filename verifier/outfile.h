/* outfile.h - write a result file atomically: into a temporary file in the
 * same directory, renamed over the target only when everything was written.
 * A failed or interrupted run never leaves a partial target file. */
#ifndef HLOPROOF_OUTFILE_H
#define HLOPROOF_OUTFILE_H
#include <signal.h>
#include <stdio.h>
#include "diag.h"

/* Between open and commit/abort, SIGINT, SIGTERM, SIGHUP and SIGQUIT are
 * blocked for the calling thread, so an interrupt lands after the temporary
 * file was renamed or removed (only SIGKILL can leave a stray temporary,
 * never a partial target). */
struct outfile {
	FILE *f;
	char *path;   /* target; NULL for stdout */
	char *tmp;    /* temporary file; NULL for stdout */
	sigset_t saved_mask;
};

/* path NULL or "-": stdout. Returns 0, or -1 after reporting. */
int outfile_open(struct outfile *o, const char *path, struct diag *d);
/* Flush, sync, close and rename into place. Returns 0, or -1 after reporting
 * (the temporary file is removed). */
int outfile_commit(struct outfile *o, struct diag *d);
/* Give up: close and remove the temporary file. Safe after commit. */
void outfile_abort(struct outfile *o);

#endif
