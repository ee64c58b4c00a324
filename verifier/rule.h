/* rule.h - a lint rule: one file rules/<slug>.c exporting `rule_<slug>`. */
#ifndef HLOPROOF_RULE_H
#define HLOPROOF_RULE_H
#include <stddef.h>

enum severity { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 };

struct rule_ctx; /* the analysed module and the findings sink (lint.h) */

/* Rule flags: what an accepted item in the configuration may suppress, and
 * the contexts where the rule's severity is not its default (lint.c applies
 * them; `hloproof rules` and docs/rules/README.md say them, from
 * rule_severity_contexts). */
#define RULE_ABOUT_COPY 1u       /* <accept><copy .../> applies */
#define RULE_ABOUT_DONATION 2u   /* <accept><donation .../> applies */
#define RULE_STRICT_DONATION 4u  /* error under --strict-donation */
#define RULE_PREDICTS 8u         /* an error in a module that is not scheduled is a
				  * prediction (of a copy XLA will insert): a warning */
#define RULE_SCHEDULED_ONLY 16u  /* run on scheduled modules only */
#define RULE_UNKNOWN_NOTE 32u    /* a module the analysis cannot decide gets one note
				  * of this rule with the reason (check, gate) */

struct rule {
	const char *id;       /* stable, e.g. "HP101" */
	const char *slug;     /* file name, e.g. "removable-copy" */
	enum severity severity;
	const char *summary;  /* one line */
	/* Returns 0, or -1 on an internal error (the run exits 3). */
	int (*check)(struct rule_ctx *ctx);
	unsigned flags;       /* RULE_* */
};

/* NULL-terminated, in file-name order; generated at build time. */
extern const struct rule *const rule_registry[];

const char *severity_name(enum severity s);
/* A registered rule by id ("HP104", case-insensitive) or slug; NULL if none. */
const struct rule *rule_lookup(const char *id_or_slug);
/* Position of a rule in rule_registry (the SARIF ruleIndex), or -1. */
int rule_index(const struct rule *r);
int rule_count(void);
/* A context where rule r reports at another severity than its default, or
 * where it reports at all: "warning", "before copy insertion (a module not
 * scheduled): a predicted copy". */
struct severity_context {
	enum severity severity;
	const char *when;
};
#define RULE_MAX_CONTEXTS 4
/* r's contexts from its flags into out[RULE_MAX_CONTEXTS]; returns the count. */
int rule_severity_contexts(const struct rule *r, struct severity_context *out);
/* "error; warning before copy insertion (a module not scheduled): a predicted
 * copy": the default, then each context, into buf. */
void rule_severity_text(const struct rule *r, char *buf, size_t cap);
/* The severity of r's findings in a module (scheduled or not), from the
 * severity configured (config_rule_severity). */
enum severity rule_severity_in(const struct rule *r, enum severity configured, int scheduled);

/* docs/rules/<slug>.md as embedded at build time, or NULL. */
const char *rule_doc(const char *slug);

#endif
