/* cli.h - the command table and what commands share. */
#ifndef HLOPROOF_CLI_H
#define HLOPROOF_CLI_H
#include <stddef.h>

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
};

extern const struct command commands[];

/* Expand FILE... arguments: a directory contributes its *.hlo and *.txt files
 * (sorted, recursively); "-" is stdin. Returns a malloc'd NULL-terminated
 * array of malloc'd strings, or NULL after printing an error. */
char **cli_expand_inputs(int argc, char **argv);
void cli_free_inputs(char **files);
/* Print "hloproof CMD: usage: ..." to stderr and return EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
