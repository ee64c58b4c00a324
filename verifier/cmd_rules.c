/* cmd_rules.c - `hloproof rules`: list the registered rules; `hloproof rules SLUG`
 * prints that rule's page (docs/rules/SLUG.md). */
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
	if (optind + 1 < argc)
		return cli_usage_error("rules", "takes at most one rule, not '%s'", argv[optind + 1]);
	if (optind < argc) { /* one rule: its page, embedded at build time */
		const struct rule *r = rule_lookup(argv[optind]); /* slug or id */
		const char *doc = r ? rule_doc(r->slug) : NULL;
		if (!doc) {
			fprintf(stderr, "hloproof rules: no rule '%s' (hloproof rules lists them)\n",
				argv[optind]);
			return EXIT_INPUT;
		}
		fputs(doc, stdout);
		return EXIT_CLEAN;
	}
	for (const struct rule *const *r = rule_registry; *r; r++)
		printf("%s  %-28s %-8s %s\n", (*r)->id, (*r)->slug, sev_name((*r)->severity),
		       (*r)->summary);
	return EXIT_CLEAN;
}
