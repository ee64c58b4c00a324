/* cli.h - the command table and what commands share. */
#ifndef HLOPROOF_CLI_H
#define HLOPROOF_CLI_H
#include <stddef.h>
#include <stdio.h>

struct diag;
struct lint_config;

/* Exit statuses, documented in README and hloproof(1). */
#define EXIT_CLEAN 0
#define EXIT_FINDINGS 1
#define EXIT_INPUT 2     /* bad input or usage */
#define EXIT_INTERNAL 3  /* internal error; also "unknown" for prove-removal */

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

/* Expand FILE... arguments: a directory contributes its *.hlo and *.txt files
 * (sorted, recursively); "-" is stdin. Returns a malloc'd NULL-terminated
 * array of malloc'd strings, or NULL after printing an error. */
char **cli_expand_inputs(int argc, char **argv);
void cli_free_inputs(char **files);
/* Print "hloproof CMD: usage: ..." to stderr and return EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The flags `check` and `gate` share (cmd_common.c), parsed and applied in
 * one place so that their meaning and messages cannot drift apart. */
#define CLI_OPT_FRAMES 0x100  /* getopt value of --frames (no short form) */
struct cli_common {
	const char *output;      /* -o, --output FILE; NULL: standard output */
	const char *config;      /* --config FILE; NULL: .hloproof.xml above the directory */
	const char *annotations; /* --annotations FILE.xml */
	long timeout_ms;         /* --timeout-ms; -1: from the configuration */
	int jobs;                /* --jobs: modules at once */
	int frames;              /* --frames=user|all (enum frames_mode); -1: from the configuration */
};
void cli_common_init(struct cli_common *co);
/* One getopt_long result; the shared flags are 'o', 'c', 'A', 't', 'j' and
 * CLI_OPT_FRAMES (--frames) in
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

#endif
