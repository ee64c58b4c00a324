/* outfile.c - atomic result files (outfile.h). */
#include "outfile.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int outfile_open(struct outfile *o, const char *path, struct diag *d)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	if (!*base)
		return error_at(d, (struct srcpos){path, 0, 0}, "output path names a directory");
	size_t cap = strlen(path) + 64;
	char *tmp = malloc(cap);
	if (!tmp)
		return error_at(d, (struct srcpos){path, 0, 0}, "out of memory");
	/* O_EXCL with a fresh name; the mode honours the umask like fopen(3). */
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &o->saved_mask);
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL) ^ (unsigned)(uintptr_t)o;
	int fd = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(tmp, cap, "%.*s.%s.tmp%u", (int)dirlen, path, base, seed % 1000000u);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(tmp);
		pthread_sigmask(SIG_SETMASK, &o->saved_mask, NULL);
		return error_at(d, (struct srcpos){path, 0, 0}, "cannot create output file: %s",
				strerror(e));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(tmp);
		free(tmp);
		pthread_sigmask(SIG_SETMASK, &o->saved_mask, NULL);
		return error_at(d, (struct srcpos){path, 0, 0}, "cannot open output file");
	}
	o->tmp = tmp;
	o->path = strdup(path);
	return 0;
}

int outfile_commit(struct outfile *o, struct diag *d)
{
	if (!o->f)
		return -1;
	if (!o->tmp) {
		int bad = fflush(o->f) != 0 || ferror(o->f);
		o->f = NULL;
		if (bad)
			return error_at(d, (struct srcpos){"<stdout>", 0, 0}, "write error: %s",
					strerror(errno));
		return 0;
	}
	int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
	int e = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && rename(o->tmp, o->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlink(o->tmp);
		error_at(d, (struct srcpos){o->path, 0, 0}, "cannot write output file: %s",
			 strerror(e));
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	pthread_sigmask(SIG_SETMASK, &o->saved_mask, NULL);
	return bad ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	int had_tmp = o->tmp != NULL;
	if (o->f && o->tmp)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	if (had_tmp)
		pthread_sigmask(SIG_SETMASK, &o->saved_mask, NULL);
	memset(o, 0, sizeof(*o));
}
