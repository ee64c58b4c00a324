/* cmd_common.c - the flags `check` and `gate` share (cli.h, struct cli_common).
 * Not a command: named cmd_* so that the Makefile links it into the binary
 * only, next to cli_usage_error (main.c), and not into the library. */
#include "atomic_out.h"
#include "cli.h"
#include "config.h"
#include "jobs.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_common_init(struct cli_common *co)
{
	*co = (struct cli_common){0};
	cli_analysis_init(&co->an);
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
	case 'j': {
		long long n;
		if (cli_number(cmd, &cli_jobs, arg, &n))
			return -1;
		co->jobs = jobs_threads((int)n);
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
	}
	return cli_analysis_option(cmd, c, arg, &co->an);
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
	if (co->an.timeout_ms >= 0)
		cfg->timeout_ms = co->an.timeout_ms;
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

int cli_color_option(const char *cmd, const char *arg, int *mode)
{
	static const char *const names[] = {"auto", "always", "never"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*mode = i;
			return 0;
		}
	return cli_usage_error(cmd, "--color takes auto, always or never, not '%s'", arg);
}

int cli_color_on(int mode, FILE *f)
{
	if (mode != CLI_COLOR_AUTO)
		return mode == CLI_COLOR_ALWAYS;
	const char *no = getenv("NO_COLOR"), *force = getenv("FORCE_COLOR");
	if (no && *no)
		return 0;
	if (force && *force && strcmp(force, "0"))
		return 1;
	return f == stdout && isatty(STDOUT_FILENO);
}
