/* cli.h - the command table and what commands share. */
#ifndef HLOPROOF_CLI_H
#define HLOPROOF_CLI_H
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct analysis_options;
struct diag;
struct lint_config;

/* Exit statuses, documented in README and hloproof(1). */
#define EXIT_CLEAN 0
#define EXIT_FINDINGS 1
#define EXIT_INPUT 2     /* bad input or usage */
#define EXIT_INTERNAL 3  /* internal error */
#define EXIT_UNKNOWN 4   /* prove-removal: the question was not settled (unknown) */

struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *usage;
	const char *summary;
	unsigned flags;
};
/* The command runs the analyses: main sets the C heap up for them first
 * (arena_heap_huge_pages). Not `buffers`: it would gain no time and 34 MB
 * of peak memory at 10^6 instructions (docs/performance.md). */
#define CMD_HEAP_SETUP 1u

extern const struct command commands[];

/* The one input expansion of every command. FILE... arguments: "-" is stdin,
 * a file is taken as given, a directory contributes (sorted, recursively) its
 * *.hlo files and the *.txt files that start with HloModule; the other files
 * of an XLA dump (*-buffer-assignment.txt, *-memory-usage-report.txt, ...)
 * are skipped and counted in *skipped (may be NULL). Returns a malloc'd
 * NULL-terminated array of malloc'd strings, or NULL after printing an error
 * (also when no module is left). */
char **cli_expand_inputs(int argc, char **argv, size_t *skipped);
/* For the commands that take one module (print, explain, prove-removal,
 * donation): ARG itself when it is not a directory; a directory's one module,
 * copied into buf; NULL after an error (a usage error when the directory holds
 * more than one module). */
#define CLI_PATH_MAX 4096 /* Linux PATH_MAX: open() refuses longer paths */
const char *cli_one_input(const char *cmd, const char *arg, char buf[CLI_PATH_MAX]);
void cli_free_inputs(char **files);
/* Print "hloproof CMD: usage: ..." to stderr and return EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One sentence per option of COMMAND for its --help (cmd_help.c), or NULL. */
const char *cli_options_help(const char *command);

/* The one option parser (cmd_options.c). Every command loops over
 * cli_getopt, getopt_long with `--opt=value` and `--opt value`, whose usage
 * errors (unknown, ambiguous, a missing or unwanted value) are printed once by
 * cli_usage_error; it then returns CLI_OPT_BAD and the command exits 2. */
#define CLI_OPT_BAD (-2)
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* A numeric option: its one range, said in its usage error and listed in
 * docs/limits.md. min_means: what the smallest value means, or NULL. */
struct cli_number {
	const char *flag, *what;
	long long min;
	const char *min_means;
	long long max;
};
extern const struct cli_number cli_timeout_ms, cli_time_budget_ms, cli_jobs,
	cli_max_new_copy_bytes, cli_min_bytes;
/* ARG, a decimal number in n's range, into *out: 0, or EXIT_INPUT after
 * "hloproof CMD: FLAG takes WHAT from MIN to MAX, not 'ARG'". */
int cli_number(const char *cmd, const struct cli_number *n, const char *arg, long long *out);

/* The analysis options of the commands that run the deciders, parsed in one
 * place: their getopt_long entries (codes 't', 'S', 'X'), their values, and
 * what they set in struct analysis_options. */
#define CLI_TIMEOUT_OPTION {"timeout-ms", required_argument, 0, 't'}
#define CLI_OPT_STAGE 0x101  /* getopt value of --stage (no short form) */
#define CLI_STAGE_OPTION {"stage", required_argument, 0, CLI_OPT_STAGE}
#define CLI_ANALYSIS_OPTIONS CLI_TIMEOUT_OPTION, {"smt-dump", required_argument, 0, 'S'}, \
	{"cross-check", no_argument, 0, 'X'}, CLI_STAGE_OPTION
struct cli_analysis {
	long long timeout_ms; /* --timeout-ms; -1: not given; 0: the deciders' default */
	const char *smt_dump; /* --smt-dump DIR: every SMT query written there */
	int cross_check;      /* --cross-check: both deciders; disagreeing exits 3 */
	int stage;            /* --stage=before|after|auto (enum module_stage); 0: auto */
};
void cli_analysis_init(struct cli_analysis *a);
/* One cli_getopt result: 1 when it was an analysis option, 0 when not, -1
 * after a usage error. */
int cli_analysis_option(const char *cmd, int c, const char *arg, struct cli_analysis *a);
/* The options given onto o (a timeout of 0 or not given keeps o's). */
void cli_analysis_apply(const struct cli_analysis *a, struct analysis_options *o);

/* The flags `check` and `gate` share (cmd_common.c), parsed and applied in
 * one place so that their meaning and messages cannot drift apart. */
#define CLI_OPT_FRAMES 0x100  /* getopt value of --frames (no short form) */
struct cli_common {
	const char *output;      /* -o, --output FILE; NULL: standard output */
	const char *config;      /* --config FILE; NULL: .hloproof.xml above the directory */
	const char *annotations; /* --annotations FILE.xml */
	struct cli_analysis an;  /* --timeout-ms (-1: from the configuration); check: --smt-dump, --cross-check */
	int jobs;                /* --jobs: modules at once */
	int frames;              /* --frames=user|all (enum frames_mode); -1: from the configuration */
};
void cli_common_init(struct cli_common *co);
/* One cli_getopt result; the shared flags are 'o', 'c', 'A', 'j',
 * CLI_OPT_FRAMES (--frames) and the analysis options ('t'; check also 'S',
 * 'X') in
 * the command's option table. Returns 1 when it took c, 0 when c is another
 * flag, -1 after a usage error. */
int cli_common_option(const char *cmd, int c, const char *arg, struct cli_common *co);
/* A --fail-on level (gate: --fail-on-new), checked now and kept as text:
 * it applies on top of the configuration, loaded later. 0, or EXIT_INPUT. */
int cli_fail_on_option(const char *cmd, const char *flag, const char *arg, const char **out);
/* --config FILE, else .hloproof.xml above the current directory; then
 * --timeout-ms on top. 0, or -1 after an error. */
int cli_load_config(struct lint_config *cfg, const struct cli_common *co, struct diag *d);
/* write(f, arg) into -o FILE (whole or not at all) or standard output.
 * Returns EXIT_CLEAN, EXIT_INPUT (cannot create FILE) or EXIT_INTERNAL. */
int cli_write_report(const char *output, int (*write)(FILE *f, void *arg), void *arg,
		     struct diag *d);

/* --color=auto|always|never for the commands that print findings. auto (the
 * default): off when NO_COLOR is set and not empty, else on when FORCE_COLOR
 * is set, not empty and not "0", else on when f is a terminal. */
enum cli_color { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };
/* 0, or EXIT_INPUT after a usage error. */
int cli_color_option(const char *cmd, const char *arg, int *mode);
int cli_color_on(int mode, FILE *f);
/* The text reports' colours (report.h). */
#define CLI_C_BOLD REPORT_C_BOLD
#define CLI_C_RED REPORT_C_RED
#define CLI_C_MAGENTA REPORT_C_MAGENTA
#define CLI_C_CYAN REPORT_C_CYAN
#define CLI_C_RESET REPORT_C_RESET

/* Resource figures for --stats: wall milliseconds since `start_ns`, peak RSS. */
long long cli_now_ns(void);
long cli_peak_rss_kib(void);

int cmd_parse(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_buffers(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_donation(int argc, char **argv);
/* copies (issue 4) */
int cmd_explain(int argc, char **argv);
int cmd_prove_removal(int argc, char **argv);
/* copies removed together (issue 25) */
int cmd_fix(int argc, char **argv);
/* the ownership timeline (issue 24) */
int cmd_timeline(int argc, char **argv);

#endif
