/* rules_table.c - the rule table: lookups over rule_registry (rule.h) and
 * the embedded rule docs. Below lint, config and findings, which all use it. */
#include "rule.h"
#include "embed.h"
#include <string.h>
#include <strings.h>

const char *severity_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

int rule_count(void)
{
	int n = 0;
	while (rule_registry[n])
		n++;
	return n;
}

int rule_index(const struct rule *r)
{
	for (int i = 0; rule_registry[i]; i++)
		if (rule_registry[i] == r)
			return i;
	return -1;
}

const struct rule *rule_lookup(const char *s)
{
	if (!s)
		return NULL;
	for (int i = 0; rule_registry[i]; i++)
		if (!strcasecmp(rule_registry[i]->id, s) || !strcmp(rule_registry[i]->slug, s))
			return rule_registry[i];
	return NULL;
}

const char *rule_doc(const char *slug)
{
	for (const struct embedded_doc *d = embedded_rule_docs; d->slug; d++)
		if (!strcmp(d->slug, slug))
			return d->text;
	return NULL;
}
