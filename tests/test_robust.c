/* test_robust.c - the time budget (budget.h) and atomic result files (atomic_out.h). */
#include "testutil.h"
#include "atomic_out.h"
#include "budget.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void test_budget_unlimited(void **state)
{
	struct budget b;
	budget_init(&b, -1);
	assert_false(budget_expired(&b));
	assert_int_equal(budget_remaining_ms(&b), -1);
	assert_int_equal(budget_cap_ms(&b, 2000), 2000);
	assert_false(budget_expired(NULL)); /* no budget is unlimited */
	struct budget zero;
	memset(&zero, 0, sizeof(zero));     /* and so is a zeroed one */
	assert_false(budget_expired(&zero));
	assert_int_equal(budget_remaining_ms(&zero), -1);
}

static void test_budget_zero_is_expired(void **state)
{
	struct budget b;
	budget_init(&b, 0);
	assert_true(budget_expired(&b));
	assert_int_equal(budget_remaining_ms(&b), 0);
	assert_int_equal(budget_cap_ms(&b, 2000), 1); /* never 0: a solver reads 0 as no timeout */
}

static void test_budget_expires(void **state)
{
	struct budget b;
	budget_init(&b, 50);
	assert_false(budget_expired(&b));
	long long left = budget_remaining_ms(&b);
	assert_true(left > 0 && left <= 50);
	assert_true(budget_cap_ms(&b, 2000) <= 50);
	assert_int_equal(budget_cap_ms(&b, 10), 10);
	sleep_ms(80);
	assert_true(budget_expired(&b));
	assert_int_equal(budget_remaining_ms(&b), 0);
	assert_int_equal(budget_cap_ms(&b, 2000), 1);
}

static void test_budget_parse(void **state)
{
	long long ms = -7;
	assert_int_equal(budget_parse_ms("0", &ms), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(budget_parse_ms("1500", &ms), 0);
	assert_int_equal(ms, 1500);
	const char *bad[] = {"", "-1", "+5", " 5", "5 ", "1e3", "abc", "99999999999999999999",
			     "604800001", NULL};
	for (const char **s = bad; *s; s++)
		assert_int_equal(budget_parse_ms(*s, &ms), -1);
	assert_int_equal(budget_parse_ms("604800000", &ms), 0);
	assert_int_equal(budget_parse_ms(NULL, &ms), -1);
}

/* ---- atomic_out ------------------------------------------------------------ */

static char dir[64];

static int setup_dir(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/hloproof-atomic-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int count_entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int teardown_dir(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	return rmdir(dir);
}

static char *slurp(const char *path)
{
	size_t len;
	return read_file(path, &len);
}

static void test_commit_renames(void **state)
{
	char target[256];
	snprintf(target, sizeof(target), "%s/out.txt", dir);
	struct diag d;
	diag_init(&d, NULL);
	struct atomic_out o;
	assert_int_equal(atomic_out_open(&o, target, &d), 0);
	const char *tmp = atomic_out_tmp_path(&o);
	assert_non_null(strstr(tmp, "/.out.txt."));
	struct stat st;
	assert_int_equal(stat(tmp, &st), 0);       /* the temporary exists */
	assert_int_not_equal(stat(target, &st), 0); /* the target not yet */
	fputs("hello\n", o.f);
	assert_int_equal(atomic_out_commit(&o, &d), 0);
	char *got = slurp(target);
	assert_string_equal(got, "hello\n");
	free(got);
	assert_int_equal(count_entries(), 1); /* no temporary left */
	atomic_out_abort(&o);                 /* after commit: nothing happens */
	assert_int_equal(count_entries(), 1);
	assert_int_equal(d.errors, 0);
}

static void test_abort_keeps_old_target(void **state)
{
	char target[256];
	snprintf(target, sizeof(target), "%s/keep.txt", dir);
	FILE *f = fopen(target, "w");
	fputs("old\n", f);
	fclose(f);
	struct diag d;
	diag_init(&d, NULL);
	struct atomic_out o;
	assert_int_equal(atomic_out_open(&o, target, &d), 0);
	fputs("new, half written", o.f);
	atomic_out_abort(&o);
	atomic_out_abort(&o); /* twice is fine */
	char *got = slurp(target);
	assert_string_equal(got, "old\n");
	free(got);
	assert_int_equal(count_entries(), 1);
	struct atomic_out z;
	memset(&z, 0, sizeof(z));
	atomic_out_abort(&z); /* zeroed struct: nothing to do */
	assert_int_equal(count_entries(), 1);
}

static void test_open_errors(void **state)
{
	struct diag d;
	diag_init(&d, NULL);
	struct atomic_out o;
	char target[256];
	snprintf(target, sizeof(target), "%s/missing/out.txt", dir);
	assert_int_equal(atomic_out_open(&o, target, &d), -1);
	assert_string_equal(d.first, "cannot create output file: No such file or directory");
	snprintf(target, sizeof(target), "%s/", dir);
	diag_init(&d, NULL);
	assert_int_equal(atomic_out_open(&o, target, &d), -1);
	assert_string_equal(d.first, "output path names a directory");
	/* the pending slots are released after errors: many opens still work */
	for (int i = 0; i < 3 * ATOMIC_OUT_MAX_PENDING; i++) {
		snprintf(target, sizeof(target), "%s/loop.txt", dir);
		diag_init(&d, NULL);
		assert_int_equal(atomic_out_open(&o, target, &d), 0);
		if (i % 2)
			atomic_out_abort(&o);
		else
			assert_int_equal(atomic_out_commit(&o, &d), 0);
	}
	assert_int_equal(count_entries(), 1);
}

static void test_too_many_pending(void **state)
{
	struct atomic_out o[ATOMIC_OUT_MAX_PENDING + 1];
	struct diag d;
	char target[256];
	for (int i = 0; i < ATOMIC_OUT_MAX_PENDING; i++) {
		snprintf(target, sizeof(target), "%s/p%d.txt", dir, i);
		diag_init(&d, NULL);
		assert_int_equal(atomic_out_open(&o[i], target, &d), 0);
	}
	snprintf(target, sizeof(target), "%s/one-more.txt", dir);
	diag_init(&d, NULL);
	assert_int_equal(atomic_out_open(&o[ATOMIC_OUT_MAX_PENDING], target, &d), -1);
	assert_non_null(strstr(d.first, "output files open at once"));
	for (int i = 0; i < ATOMIC_OUT_MAX_PENDING; i++)
		atomic_out_abort(&o[i]);
	assert_int_equal(count_entries(), 0);
}

static void test_stdout(void **state)
{
	struct diag d;
	diag_init(&d, NULL);
	struct atomic_out o;
	assert_int_equal(atomic_out_open(&o, "-", &d), 0);
	assert_ptr_equal(o.f, stdout);
	assert_string_equal(atomic_out_tmp_path(&o), "");
	assert_int_equal(atomic_out_commit(&o, &d), 0);
	assert_int_equal(atomic_out_open(&o, NULL, &d), 0);
	assert_ptr_equal(o.f, stdout);
	atomic_out_abort(&o); /* never closes stdout */
	assert_int_equal(fflush(stdout), 0);
}

/* In a child: open two results, write, then die of `sig` (or exit 3 through
 * die() when sig is 0). The parent sees the signal and no file at all. */
static void die_with_pending(int sig)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct diag d;
		diag_init(&d, NULL);
		struct atomic_out a, b;
		char t1[256], t2[256];
		snprintf(t1, sizeof(t1), "%s/a.txt", dir);
		snprintf(t2, sizeof(t2), "%s/b.txt", dir);
		if (atomic_out_open(&a, t1, &d) || atomic_out_open(&b, t2, &d))
			_exit(10);
		struct sigaction sa;
		if (sig && (sigaction(sig, NULL, &sa) != 0 || sa.sa_handler == SIG_DFL))
			_exit(13); /* the handler must be in place once a result is open */
		for (int i = 0; i < 100000; i++)
			fputs("partial line\n", a.f);
		fflush(a.f);
		if (sig)
			raise(sig);
		if (!freopen("/dev/null", "w", stderr))
			_exit(14);
		die("giving up on purpose");
		_exit(11); /* not reached */
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (sig) {
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sig);
	} else {
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 3);
	}
	assert_int_equal(count_entries(), 0);
}

static void test_signal_removes_temporaries(void **state)
{
	die_with_pending(SIGINT);
	die_with_pending(SIGTERM);
	die_with_pending(SIGHUP);
	die_with_pending(0);
}

int main(void)
{
	/* A suite started under nohup (or as a background job) inherits ignored
	 * signals, which atomic_out rightly leaves ignored; the signal tests need
	 * the default disposition. (Ignored signals: tests/outputs.sh.) */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_unlimited),
		cmocka_unit_test(test_budget_zero_is_expired),
		cmocka_unit_test(test_budget_expires),
		cmocka_unit_test(test_budget_parse),
		cmocka_unit_test_setup_teardown(test_commit_renames, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_abort_keeps_old_target, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_open_errors, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_too_many_pending, setup_dir, teardown_dir),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test_setup_teardown(test_signal_removes_temporaries, setup_dir, teardown_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
