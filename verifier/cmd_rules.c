/* cmd_rules.c - `hloproof rules`: list the registered rules. */
#include "cli.h"
#include "rule.h"
#include <stdio.h>

static const char *sev_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

int cmd_rules(int argc, char **argv)
{
	static const struct option none[] = {{0, 0, 0, 0}};
	optind = 1;
	if (cli_getopt("rules", argc, argv, "", none) != -1)
		return EXIT_INPUT; /* an option: cli_getopt said which */
	if (optind < argc)
		return cli_usage_error("rules", "takes no arguments, not '%s'", argv[optind]);
	for (const struct rule *const *r = rule_registry; *r; r++)
		printf("%s  %-28s %-8s %s\n", (*r)->id, (*r)->slug, sev_name((*r)->severity),
		       (*r)->summary);
	return EXIT_CLEAN;
}
