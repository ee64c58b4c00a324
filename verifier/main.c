/* main.c - hloproof: the command table, --help, --version. */
#include "cli.h"
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

const struct command commands[] = {
	{"parse", cmd_parse, "parse [--format=text|json] [--stats] [--time-budget-ms N] FILE...",
	 "parse modules and print one summary line per module"},
	{"print", cmd_print, "print [-o FILE] FILE", "print a module back as canonical HLO text"},
	{"rules", cmd_rules, "rules", "list the lint rules"},
	{"check", cmd_check,
	 "check [--format=text|json|sarif|junit|checkstyle] [-o FILE] [--config FILE]\n"
	 "       [--fail-on=error|warning|note|none] [--enable RULE] [--disable RULE]\n"
	 "       [--baseline FILE] [--write-baseline FILE] [--timeout-ms N] [--strict-donation]\n"
	 "       [--time-budget-ms N] FILE...",
	 "run the lint rules and report findings"},
	{"buffers", cmd_buffers,
	 "buffers [--at INSTR] [--format=text|json] [--ordering=dependency|sequential]\n"
	 "        [--time-budget-ms N] FILE...",
	 "list alias-analysis buffers, their values and live ranges"},
	{0, 0, 0, 0},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hloproof COMMAND [OPTIONS] FILE...\n\n"
		     "Static verifier and linter for XLA HLO modules.\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\nper command: hloproof COMMAND --help\n"
		     "exit status: 0 clean, 1 findings, 2 bad input or usage, 3 internal error or unknown\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_CLEAN;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("hloproof %s\n", HLOPROOF_VERSION);
		return EXIT_CLEAN;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(argv[1], c->name))
			continue;
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--"))
				break;
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
				printf("usage: hloproof %s\n%s\n", c->usage, c->summary);
				return EXIT_CLEAN;
			}
		}
		return c->run(argc - 1, argv + 1);
	}
	fprintf(stderr, "hloproof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hloproof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, cmd))
			fprintf(stderr, "usage: hloproof %s\n", c->usage);
	return EXIT_INPUT;
}

long long cli_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long cli_peak_rss_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss;
}

struct strvec {
	char **v;
	size_t n, cap;
};

static void sv_push(struct strvec *s, char *str)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			fprintf(stderr, "hloproof: out of memory\n");
			exit(EXIT_INTERNAL);
		}
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int walk_dir(const char *dir, struct strvec *out, int depth)
{
	if (depth > 32) { /* bounds symlink loops too; said, not silently dropped */
		fprintf(stderr, "%s: warning: more than 32 directory levels below the argument: "
				"not searched\n", dir);
		return 0;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "%s: error: cannot open directory: %s\n", dir, strerror(errno));
		return -1;
	}
	struct strvec names = {0};
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		sv_push(&names, strdup(e->d_name));
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < names.n; i++) {
		size_t dl = strlen(dir);
		while (dl > 1 && dir[dl - 1] == '/')
			dl--; /* "dir/" and "dir" name the same files */
		size_t len = dl + strlen(names.v[i]) + 2;
		char *p = malloc(len);
		snprintf(p, len, "%.*s/%s", (int)dl, dir, names.v[i]);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (walk_dir(p, out, depth + 1) < 0)
				rc = -1;
			free(p);
		} else if (has_suffix(p, ".hlo") || has_suffix(p, ".txt")) {
			sv_push(out, p);
		} else {
			free(p);
		}
		free(names.v[i]);
	}
	free(names.v);
	return rc;
}

char **cli_expand_inputs(int argc, char **argv)
{
	struct strvec out = {0};
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (strcmp(argv[i], "-") && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (walk_dir(argv[i], &out, 0) < 0)
				rc = -1;
		} else {
			sv_push(&out, strdup(argv[i]));
		}
	}
	if (rc < 0 || !out.n) {
		if (!out.n && rc == 0)
			fprintf(stderr, "hloproof: error: no input files\n");
		cli_free_inputs(out.v);
		return NULL;
	}
	return out.v;
}

void cli_free_inputs(char **files)
{
	if (!files)
		return;
	for (char **f = files; *f; f++)
		free(*f);
	free(files);
}
