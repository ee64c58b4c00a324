/* atomic_out.c - result files written to a temporary file and renamed (atomic_out.h). */
#include "atomic_out.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The pending set. A slot is FREE, CLAIMED (its owner is writing the path)
 * or PENDING (the path names a temporary file that may exist and must be
 * removed if the process dies now). The handler reads PENDING slots only;
 * an owner never changes the path of a PENDING slot. */
enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_PENDING = 2 };
static struct pending_slot {
	atomic_int state;
	char path[PATH_MAX];
} pending_set[ATOMIC_OUT_MAX_PENDING];
static atomic_uint tmp_counter;
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void unlink_pending(void)
{
	for (int i = 0; i < ATOMIC_OUT_MAX_PENDING; i++)
		if (atomic_load(&pending_set[i].state) == SLOT_PENDING)
			unlink(pending_set[i].path);
}

/* Async-signal-safe: remove the temporary files, then die of the same
 * signal with its default action so the parent sees how we ended. */
static void on_signal(int sig)
{
	int saved = errno;
	unlink_pending();
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* pending until the handler returns: sig is blocked in it */
	errno = saved;
}

static void install_handlers(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		struct sigaction old, sa;
		/* Leave a signal alone when it is ignored (nohup) or already handled. */
		if (sigaction(caught[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask); /* no other caught signal interleaves */
		sigaction(caught[i], &sa, NULL);
	}
	atexit(unlink_pending); /* exit() from die() and friends */
}

static int claim_slot(void)
{
	for (int i = 0; i < ATOMIC_OUT_MAX_PENDING; i++) {
		int expect = SLOT_FREE;
		if (atomic_compare_exchange_strong(&pending_set[i].state, &expect, SLOT_CLAIMED))
			return i;
	}
	return -1;
}

static void release_slot(int slot)
{
	if (slot >= 0)
		atomic_store(&pending_set[slot].state, SLOT_FREE);
}

int atomic_out_open(struct atomic_out *o, const char *path, struct diag *d)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	struct srcpos at = {path, 0, 0};
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return error_at(d, at, "output path names a directory");
	pthread_once(&handlers_once, install_handlers);
	int slot = claim_slot();
	if (slot < 0)
		return error_at(d, at, "more than %d output files open at once", ATOMIC_OUT_MAX_PENDING);
	struct pending_slot *s = &pending_set[slot];
	/* The name carries our pid, so no other live process uses it: the
	 * handler may unlink it even before open() below has created it. */
	int fd = -1, err = 0;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		atomic_store(&s->state, SLOT_CLAIMED);
		unsigned n = atomic_fetch_add(&tmp_counter, 1);
		int len = snprintf(s->path, sizeof(s->path), "%.*s.%s.%ld.%u.tmp", dirlen, path, base,
				   (long)getpid(), n);
		if (len < 0 || (size_t)len >= sizeof(s->path)) {
			release_slot(slot);
			return error_at(d, at, "output path is too long");
		}
		atomic_store(&s->state, SLOT_PENDING);
		fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		err = errno;
		if (fd < 0 && err != EEXIST)
			break;
	}
	if (fd < 0) {
		release_slot(slot);
		return error_at(d, at, "cannot create output file: %s", strerror(err));
	}
	o->f = fdopen(fd, "w");
	o->path = strdup(path);
	if (!o->f || !o->path) {
		if (o->f)
			fclose(o->f);
		else
			close(fd);
		unlink(s->path);
		release_slot(slot);
		free(o->path);
		o->f = NULL;
		o->path = NULL;
		return error_at(d, at, "out of memory");
	}
	o->pending = slot + 1;
	return 0;
}

/* Make the rename durable; errors here do not undo a committed result. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int atomic_out_commit(struct atomic_out *o, struct diag *d)
{
	if (!o->f)
		return -1;
	if (!o->pending) { /* stdout */
		int bad = fflush(o->f) != 0 || ferror(o->f);
		int e = errno;
		o->f = NULL;
		if (bad)
			return error_at(d, (struct srcpos){"<stdout>", 0, 0}, "write error: %s",
					strerror(e));
		return 0;
	}
	const char *tmp = pending_set[o->pending - 1].path;
	int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
	int e = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && rename(tmp, o->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlink(tmp);
		error_at(d, (struct srcpos){o->path, 0, 0}, "cannot write output file: %s", strerror(e));
	} else {
		sync_dir(o->path);
	}
	/* After the rename: a signal in between unlinks a name that is gone. */
	release_slot(o->pending - 1);
	o->pending = 0;
	free(o->path);
	o->path = NULL;
	return bad ? -1 : 0;
}

void atomic_out_abort(struct atomic_out *o)
{
	if (o->pending) {
		if (o->f)
			fclose(o->f);
		unlink(pending_set[o->pending - 1].path);
		release_slot(o->pending - 1);
	}
	free(o->path);
	o->f = NULL;
	o->path = NULL;
	o->pending = 0;
}

const char *atomic_out_tmp_path(const struct atomic_out *o)
{
	return o->pending ? pending_set[o->pending - 1].path : "";
}

int atomic_out_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return 0;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
