/* rule.h - a lint rule: one file rules/<slug>.c exporting `rule_<slug>`. */
#ifndef HLOPROOF_RULE_H
#define HLOPROOF_RULE_H

enum severity { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 };

struct rule_ctx; /* the analysed module and the findings sink (lint.h) */

/* Rule flags: what an accepted item in the configuration may suppress, and
 * whether --strict-donation raises the rule to an error. */
#define RULE_ABOUT_COPY 1u       /* <accept><copy .../> applies */
#define RULE_ABOUT_DONATION 2u   /* <accept><donation .../> applies */
#define RULE_STRICT_DONATION 4u  /* error under --strict-donation */

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
/* docs/rules/<slug>.md as embedded at build time, or NULL. */
const char *rule_doc(const char *slug);

#endif
