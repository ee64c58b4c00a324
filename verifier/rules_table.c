/* rules_table.c - the rule table: lookups over rule_registry (rule.h) and
 * the embedded rule docs. Below lint, config and findings, which all use it. */
#include "rule.h"
#include "embed.h"
#include <stdio.h>
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

int rule_severity_contexts(const struct rule *r, struct severity_context *out)
{
	int n = 0;
	if (r->flags & RULE_PREDICTS)
		out[n++] = (struct severity_context){SEV_WARNING, "before copy insertion (a module not "
						     "scheduled): a predicted copy"};
	if (r->flags & RULE_SCHEDULED_ONLY)
		out[n++] = (struct severity_context){r->severity, "in a scheduled module only"};
	if (r->flags & RULE_STRICT_DONATION)
		out[n++] = (struct severity_context){SEV_ERROR, "with --strict-donation"};
	if (r->flags & RULE_UNKNOWN_NOTE)
		out[n++] = (struct severity_context){SEV_NOTE, "when the copies cannot be decided: "
						     "one note with the reason"};
	return n;
}

void rule_severity_text(const struct rule *r, char *buf, size_t cap)
{
	struct severity_context c[RULE_MAX_CONTEXTS];
	int n = rule_severity_contexts(r, c);
	size_t k = (size_t)snprintf(buf, cap, "%s", severity_name(r->severity));
	for (int i = 0; i < n && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "; %s%s%s",
				      c[i].severity == r->severity ? "" : severity_name(c[i].severity),
				      c[i].severity == r->severity ? "" : " ", c[i].when);
}

enum severity rule_severity_in(const struct rule *r, enum severity configured, int scheduled)
{
	if ((r->flags & RULE_PREDICTS) && !scheduled && configured == SEV_ERROR)
		return SEV_WARNING;
	return configured;
}
