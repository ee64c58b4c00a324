/* main.c - hloproof: the command table, --help, --version. */
#include "arena.h"
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
	 "parse modules and print one summary line per module", 0},
	{"print", cmd_print, "print [-o FILE] FILE", "print a module back as canonical HLO text", 0},
	{"rules", cmd_rules, "rules [RULE]", "list the lint rules, or print one rule's page", 0},
	{"check", cmd_check,
	 "check [--format=text|json|sarif|junit|checkstyle] [-o FILE] [--config FILE]\n"
	 "       [--fail-on=error|warning|note|none] [--enable RULE] [--disable RULE]\n"
	 "       [--baseline FILE] [--write-baseline FILE] [--timeout-ms N] [--strict-donation]\n"
	 "       [--annotations FILE.xml] [--smt-dump DIR] [--cross-check] [--jobs N]\n"
	 "       [--time-budget-ms N] [--stats] [--source-root DIR] [--color=auto|always|never]\n"
	 "       [--frames=user|all] [--min-bytes N] [--sort=cost|position] [--statistics] [--quiet]\n"
	 "       [--stage=before|after|auto] [--jointly] FILE...",
	 "run the lint rules and report findings", CMD_HEAP_SETUP},
	{"buffers", cmd_buffers,
	 "buffers [--at INSTR] [--format=text|json] [--ordering=dependency|sequential]\n"
	 "        [--time-budget-ms N] FILE...",
	 "list alias-analysis buffers, their values and live ranges", 0},
	{"donation", cmd_donation,
	 "donation [--format=text|json] [--evidence] [--annotations FILE.xml] [--timeout-ms N]\n"
	 "       [--stage=before|after|auto] [--color=auto|always|never] BEFORE [AFTER]",
	 "prove or refute every donation; with two files, what optimization did with each", CMD_HEAP_SETUP},
	/* copies (issue 4) */
	{"explain", cmd_explain,
	 "explain [--timeout-ms N] [--time-budget-ms N] [--smt-dump DIR] [--cross-check]\n"
	 "       [--stage=before|after|auto] [--jointly] FILE COPY | FILE --all | FILE --hazards",
	 "the family, removal verdicts and evidence of a copy", CMD_HEAP_SETUP},
	{"prove-removal", cmd_prove_removal,
	 "prove-removal [--schedule=given|any] [--timeout-ms N] [--smt-dump DIR] [--cross-check]\n"
	 "       [--stage=before|after|auto] FILE COPY",
	 "exit 0 when removing COPY is proven safe, 1 when refuted, 4 when unknown", CMD_HEAP_SETUP},
	{"fix", cmd_fix,
	 "fix [-o FILE] [--diff] [--schedule=given|any] [--objective=bytes|count] [--format=text|json]\n"
	 "       [--timeout-ms N] [--time-budget-ms N] [--smt-dump DIR] [--cross-check]\n"
	 "       [--stage=before|after|auto] FILE",
	 "remove copies together, as many bytes as can go, verified on the rewritten module",
	 CMD_HEAP_SETUP},
	{"gate", cmd_gate,
	 "gate [--format=text|json] [-o FILE] [--config FILE] [--max-new-copy-bytes N]\n"
	 "       [--allow-lost-donations] [--fail-on-new=error|warning|note|none]\n"
	 "       [--annotations FILE.xml] [--no-deciders] [--ignore-new-modules] [--timeout-ms N]\n"
	 "       [--jobs N] [--stage=before|after|auto] [--color=auto|always|never] BASE HEAD",
	 "compare two versions of a module (or two dump directories); exit 1 on a regression",
	 CMD_HEAP_SETUP},
	{"timeline", cmd_timeline,
	 "timeline [--format=html|svg|chrome-trace] [-o FILE] [--computation NAME] [--top N]\n"
	 "       [--min-bytes N] [--stage=before|after|auto] FILE",
	 "draw who owns each buffer at every schedule position (HTML, SVG, Trace Event JSON)",
	 CMD_HEAP_SETUP},
	{0, 0, 0, 0, 0},
};

/* What a FILE argument may be (cli_expand_inputs, cli_one_input). */
static const char inputs_note[] =
	"FILE may be - (standard input) or a directory: its *.hlo files and the *.txt files\n"
	"that start with HloModule, sorted, recursively; the other files of an XLA dump\n"
	"(*-buffer-assignment.txt, *-memory-usage-report.txt) are skipped. print, donation,\n"
	"explain, prove-removal and fix take one module: a directory that holds exactly one.\n";

/* Every command with its summary and its whole usage (every option). */
static void usage(FILE *out)
{
	fprintf(out, "usage: hloproof COMMAND [OPTIONS] FILE...\n\n"
		     "Static verifier and linter for XLA HLO modules.\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++) {
		fprintf(out, "  %-13s %s\n    hloproof ", c->name, c->summary);
		for (const char *p = c->usage; *p; p++) {
			fputc(*p, out);
			if (*p == '\n')
				fputs("      ", out); /* the usage indents by 7: under the name */
		}
		fputc('\n', out);
	}
	fprintf(out, "\n%s", inputs_note);
	fprintf(out, "per command: hloproof COMMAND --help\n"
		     "exit status: 0 clean, 1 findings (check, donation), a regression (gate) or a refuted\n"
		     "removal (prove-removal), 2 bad input or usage, 3 internal error (parse, buffers,\n"
		     "check: also results left unknown by --time-budget-ms; fix: a result that could not\n"
		     "be verified), 4 unknown (prove-removal)\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_CLEAN : EXIT_INTERNAL;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("hloproof %s\n", HLOPROOF_VERSION);
		return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_CLEAN : EXIT_INTERNAL;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(argv[1], c->name))
			continue;
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--"))
				break;
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
				printf("usage: hloproof %s\n%s\n", c->usage, c->summary);
				const char *opts = cli_options_help(c->name);
				if (opts)
					printf("\noptions:\n%s", opts);
				if (strcmp(c->name, "rules"))
					printf("\n%s", inputs_note);
				return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_CLEAN : EXIT_INTERNAL;
			}
		}
		if (c->flags & CMD_HEAP_SETUP)
			arena_heap_huge_pages(ARENA_HEAP_PAD);
		int status = c->run(argc - 1, argv + 1);
		/* A report that did not reach standard output (disk full, closed
		 * pipe) is an internal error whatever the command found. */
		if ((fflush(stdout) != 0 || ferror(stdout)) && status != EXIT_INTERNAL) {
			fprintf(stderr, "hloproof %s: error: cannot write to standard output\n", c->name);
			status = EXIT_INTERNAL;
		}
		return status;
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

/* XLA dump directories hold other text files next to the modules (buffer
 * assignments, memory reports): a .txt file counts as a module only when its
 * first token, after whitespace and comments, is "HloModule". Only the first
 * 64 KiB are looked at; a file that cannot be read counts, so that the parser
 * reports it. */
static int txt_is_module(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 1;
	enum { SNIFF = 64 << 10 };
	char *buf = malloc(SNIFF + 1);
	if (!buf) {
		fclose(f);
		return 1;
	}
	size_t n = fread(buf, 1, SNIFF, f);
	fclose(f);
	buf[n] = 0;
	const char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (p[0] == '/' && p[1] == '/') {
			p = strchr(p, '\n');
			if (!p)
				break;
		} else if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			if (!p)
				break;
			p += 2;
		} else {
			break;
		}
	}
	int yes = p && !strncmp(p, "HloModule", 9);
	free(buf);
	return yes;
}

static int walk_dir(const char *dir, struct strvec *out, size_t *skipped, int depth)
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
			if (walk_dir(p, out, skipped, depth + 1) < 0)
				rc = -1;
			free(p);
		} else if (has_suffix(p, ".hlo") || (has_suffix(p, ".txt") && txt_is_module(p))) {
			sv_push(out, p);
		} else {
			*skipped += has_suffix(p, ".txt");
			free(p);
		}
		free(names.v[i]);
	}
	free(names.v);
	return rc;
}

char **cli_expand_inputs(int argc, char **argv, size_t *skipped)
{
	struct strvec out = {0};
	size_t skip = 0;
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (strcmp(argv[i], "-") && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (walk_dir(argv[i], &out, &skip, 0) < 0)
				rc = -1;
		} else {
			sv_push(&out, strdup(argv[i]));
		}
	}
	if (skipped)
		*skipped = skip;
	if (rc < 0 || !out.n) {
		if (!out.n && rc == 0 && skip)
			fprintf(stderr, "hloproof: error: no input files (%zu .txt file%s that do%s not "
					"start with HloModule skipped)\n", skip, skip == 1 ? "" : "s",
				skip == 1 ? "es" : "");
		else if (!out.n && rc == 0)
			fprintf(stderr, "hloproof: error: no input files\n");
		cli_free_inputs(out.v);
		return NULL;
	}
	return out.v;
}

const char *cli_one_input(const char *cmd, const char *arg, char buf[CLI_PATH_MAX])
{
	struct stat st;
	if (!strcmp(arg, "-") || stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return arg; /* a file, or what the parser will report as missing */
	char *argv1[1] = {(char *)arg};
	char **all = cli_expand_inputs(1, argv1, NULL);
	if (!all)
		return NULL;
	size_t n = 0;
	while (all[n])
		n++;
	const char *one = NULL;
	if (n != 1)
		cli_usage_error(cmd, "directory '%s' holds %zu modules; %s takes one", arg, n, cmd);
	else if (strlen(all[0]) >= CLI_PATH_MAX)
		fprintf(stderr, "%s: error: cannot open: %s\n", all[0], strerror(ENAMETOOLONG));
	else
		one = strcpy(buf, all[0]);
	cli_free_inputs(all);
	return one;
}

void cli_free_inputs(char **files)
{
	if (!files)
		return;
	for (char **f = files; *f; f++)
		free(*f);
	free(files);
}
