/* rule.h - a lint rule: one file rules/<slug>.c exporting `rule_<slug>`. */
#ifndef HLOPROOF_RULE_H
#define HLOPROOF_RULE_H

enum severity { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 };

struct rule_ctx; /* the analysed module and the findings sink (findings.h) */

struct rule {
	const char *id;       /* stable, e.g. "HP101" */
	const char *slug;     /* file name, e.g. "removable-copy" */
	enum severity severity;
	const char *summary;  /* one line */
	int (*check)(struct rule_ctx *ctx);
};

/* NULL-terminated, in file-name order; generated at build time. */
extern const struct rule *const rule_registry[];

#endif
