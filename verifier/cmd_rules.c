/* cmd_rules.c - `hloproof rules`: list the registered rules with their
 * severity in each context (rule_severity_contexts: one line more for each
 * context where it differs); `hloproof rules SLUG` prints that rule's
 * severities, then its page (docs/rules/SLUG.md). */
#include "cli.h"
#include "rule.h"
#include <stdio.h>

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
		char sev[512];
		rule_severity_text(r, sev, sizeof(sev));
		printf("%s %s: severity %s\n\n", r->id, r->slug, sev);
		fputs(doc, stdout);
		return EXIT_CLEAN;
	}
	for (const struct rule *const *r = rule_registry; *r; r++) {
		printf("%s  %-28s %-8s %s\n", (*r)->id, (*r)->slug, severity_name((*r)->severity),
		       (*r)->summary);
		struct severity_context c[RULE_MAX_CONTEXTS];
		int n = rule_severity_contexts(*r, c);
		for (int i = 0; i < n; i++)
			printf("%*s %-8s %s\n", 35, "", severity_name(c[i].severity), c[i].when);
	}
	return EXIT_CLEAN;
}
