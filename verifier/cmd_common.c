/* cmd_common.c - the flags `check` and `gate` share (cli.h, struct cli_common).
 * Not a command: named cmd_* so that the Makefile links it into the binary
 * only, next to cli_usage_error (main.c), and not into the library. */
#include "atomic_out.h"
#include "cli.h"
#include "config.h"
#include "jobs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(struct cli_common *co)
{
	*co = (struct cli_common){0};
	co->timeout_ms = -1;
	co->jobs = 1;
	co->frames = -1;
}

int cli_common_option(const char *cmd, int c, const char *arg, struct cli_common *co)
{
	switch (c) {
	case 'o':
		co->output = arg;
		return 1;
	case 'c':
		co->config = arg;
		return 1;
	case 'A':
		co->annotations = arg;
		return 1;
	case 't': {
		char *end;
		errno = 0;
		long t = strtol(arg, &end, 10);
		if (errno || *end || end == arg || t < 0) {
			cli_usage_error(cmd, "--timeout-ms takes a number of milliseconds, not '%s'", arg);
			return -1;
		}
		co->timeout_ms = t;
		return 1;
	}
	case CLI_OPT_FRAMES:
		if (!strcmp(arg, "all")) {
			co->frames = FRAMES_ALL;
		} else if (!strcmp(arg, "user")) {
			co->frames = FRAMES_USER;
		} else {
			cli_usage_error(cmd, "--frames takes user or all, not '%s'", arg);
			return -1;
		}
		return 1;
	case 'j':
		if (jobs_parse(arg, &co->jobs) < 0) {
			cli_usage_error(cmd, "--jobs takes a number of threads from 0 (one per CPU) to %d, not '%s'",
					JOBS_MAX, arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

int cli_fail_on_option(const char *cmd, const char *flag, const char *arg, const char **out)
{
	enum fail_on f;
	if (config_parse_fail_on(arg, &f) < 0)
		return cli_usage_error(cmd, "%s takes error, warning, note or none, not '%s'", flag, arg);
	*out = arg;
	return 0;
}

int cli_load_config(struct lint_config *cfg, const struct cli_common *co, struct diag *d)
{
	if (co->config) {
		if (config_load(cfg, co->config, d) < 0)
			return -1;
	} else {
		char *found = config_find(NULL);
		int rc = found ? config_load(cfg, found, d) : 0;
		free(found);
		if (rc < 0)
			return -1;
	}
	if (co->timeout_ms >= 0)
		cfg->timeout_ms = co->timeout_ms;
	if (co->frames >= 0)
		cfg->frames.mode = (enum frames_mode)co->frames;
	return 0;
}

int cli_write_report(const char *output, int (*write)(FILE *f, void *arg), void *arg,
		     struct diag *d)
{
	struct atomic_out of;
	if (atomic_out_open(&of, output, d) < 0)
		return EXIT_INPUT;
	if (write(of.f, arg) < 0) {
		atomic_out_abort(&of);
		error_at(d, (struct srcpos){output ? output : "<stdout>", 0, 0},
			 "cannot write the report");
		return EXIT_INTERNAL;
	}
	return atomic_out_commit(&of, d) < 0 ? EXIT_INTERNAL : EXIT_CLEAN;
}
