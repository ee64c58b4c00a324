/* cmd_options.c - the one option parser of the commands (cli.h): getopt_long
 * with its usage errors said once, in cli_usage_error's form; the numeric
 * options, one range each (docs/limits.md); the analysis options.
 * Not a command: named cmd_* so that the Makefile links it into the binary
 * only, next to cli_usage_error (main.c). */
#include "analysis.h"
#include "budget.h"
#include "cli.h"
#include "jobs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct cli_number cli_timeout_ms = {
	"--timeout-ms", "a number of milliseconds per solver query", 0, "the default, 2000", 86400000};
const struct cli_number cli_time_budget_ms = {
	"--time-budget-ms", "a number of milliseconds", 0, NULL, BUDGET_MAX_MS};
const struct cli_number cli_jobs = {
	"--jobs", "a number of threads", 0, "one per CPU", JOBS_MAX};
const struct cli_number cli_min_bytes = {
	"--min-bytes", "a number of bytes", 0, "every finding", 9223372036854775807LL};
const struct cli_number cli_max_new_copy_bytes = {
	"--max-new-copy-bytes", "a number of bytes", 0, NULL, 9223372036854775807LL};

int cli_number(const char *cmd, const struct cli_number *n, const char *arg, long long *out)
{
	const char *digits = arg + (arg[0] == '-');
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (*digits < '0' || *digits > '9' || errno || *end || v < n->min || v > n->max)
		return cli_usage_error(cmd, "%s takes %s from %lld%s%s%s to %lld, not '%s'", n->flag,
				       n->what, n->min, n->min_means ? " (" : "",
				       n->min_means ? n->min_means : "", n->min_means ? ")" : "", n->max, arg);
	*out = v;
	return 0;
}

/* How many long options start with the name in "--name[=value]", and
 * whether one is exactly it: getopt_long says neither when it refuses one. */
static int prefix_matches(const struct option *longopts, const char *a, int *exact)
{
	size_t len = strcspn(a, "=");
	int n = 0;
	*exact = 0;
	for (const struct option *o = longopts; o && o->name; o++) {
		if (strncmp(o->name, a, len))
			continue;
		n++;
		*exact |= strlen(o->name) == len;
	}
	return n;
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	char spec[64];
	snprintf(spec, sizeof(spec), ":%s", shortopts); /* ':': a missing value is told apart */
	opterr = 0; /* getopt_long's own messages would say it twice */
	int c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	const char *a = optind >= 1 && optind <= argc ? argv[optind - 1] : "";
	if (strncmp(a, "--", 2)) {
		if (c == ':')
			cli_usage_error(cmd, "option '-%c' needs a value", optopt);
		else
			cli_usage_error(cmd, "unknown option '-%c'", optopt);
		return CLI_OPT_BAD;
	}
	int len = (int)strcspn(a, "="), exact;
	if (c == ':')
		cli_usage_error(cmd, "option '%.*s' needs a value", len, a);
	else if (optopt)
		cli_usage_error(cmd, "option '%.*s' takes no value", len, a);
	else if (prefix_matches(longopts, a + 2, &exact) > 1 && !exact)
		cli_usage_error(cmd, "option '%.*s' is ambiguous", len, a);
	else
		cli_usage_error(cmd, "unknown option '%.*s'", len, a);
	return CLI_OPT_BAD;
}

void cli_analysis_init(struct cli_analysis *a)
{
	*a = (struct cli_analysis){0};
	a->timeout_ms = -1;
}

int cli_analysis_option(const char *cmd, int c, const char *arg, struct cli_analysis *a)
{
	switch (c) {
	case 't':
		return cli_number(cmd, &cli_timeout_ms, arg, &a->timeout_ms) ? -1 : 1;
	case 'S':
		a->smt_dump = arg;
		return 1;
	case 'X':
		a->cross_check = 1;
		return 1;
	case CLI_OPT_STAGE: {
		enum module_stage st;
		if (module_stage_parse(arg, &st) < 0) {
			cli_usage_error(cmd, "--stage takes before, after or auto, not '%s'", arg);
			return -1;
		}
		a->stage = (int)st;
		return 1;
	}
	}
	return 0;
}

void cli_analysis_apply(const struct cli_analysis *a, struct analysis_options *o)
{
	if (a->timeout_ms > 0)
		o->timeout_ms = (int)a->timeout_ms;
	o->smt_dump_dir = a->smt_dump;
	o->cross_check = a->cross_check;
	o->stage = (enum module_stage)a->stage;
}
