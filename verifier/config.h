/* config.h - the effective lint configuration: .hloproof.xml plus the
 * command line. The file format is documented in docs/config.md and checked
 * against docs/config.rng (embedded in the binary). */
#ifndef HLOPROOF_CONFIG_H
#define HLOPROOF_CONFIG_H
#include <stdint.h>
#include "arena.h"
#include "diag.h"
#include "rule.h"
#include "source.h"

#define CONFIG_FILE_NAME ".hloproof.xml"
#define CONFIG_MAX_WALK 64   /* parent directories searched for CONFIG_FILE_NAME */

/* --fail-on: the lowest severity that makes `check` exit 1. */
enum fail_on { FAIL_NOTE = SEV_NOTE, FAIL_WARNING = SEV_WARNING, FAIL_ERROR = SEV_ERROR, FAIL_NONE = 3 };

enum accept_kind { ACCEPT_COPY, ACCEPT_DONATION };

/* An accepted copy or donation: suppresses the findings it matches. Patterns
 * are fnmatch(3) globs; an absent one matches everything; every item has at
 * least one of computation/instruction/fingerprint and always a reason. */
struct accept_item {
	enum accept_kind kind;
	const struct rule *rule;      /* only this rule, or NULL: every rule of the kind */
	const char *computation, *instruction, *fingerprint;
	const char *reason;
	int line;                     /* in the configuration file */
};

struct lint_config {
	struct arena arena;
	const char *path;             /* configuration file loaded, or NULL */
	enum fail_on fail_on;
	long timeout_ms;              /* for the SMT-backed deciders; 0 = their default */
	int strict_donation;
	int32_t n_rules;              /* = rule_count() */
	int8_t *enabled;              /* per registry index: 1 on, 0 off */
	int8_t *severity;             /* per registry index: -1 = rule default */
	int32_t n_accepts, cap_accepts;
	struct accept_item *accepts;
	struct source_filter frames;  /* <frames> and --frames (source.h) */
};

void config_init(struct lint_config *c);
void config_free(struct lint_config *c);
/* Load an .hloproof.xml file into c (on top of what is there). Returns 0, or
 * -1 after reporting FILE:LINE: error: ... through d. */
int config_load(struct lint_config *c, const char *path, struct diag *d);
/* Same from memory (`name` is used in messages): for tests. */
int config_load_memory(struct lint_config *c, const char *name, const char *buf, size_t len,
		       struct diag *d);
/* Walk up from `dir` (NULL: the current directory) looking for .hloproof.xml;
 * malloc'd path or NULL. */
char *config_find(const char *dir);

int config_rule_enabled(const struct lint_config *c, const struct rule *r);
enum severity config_rule_severity(const struct lint_config *c, const struct rule *r);
/* Turn a rule on or off by id or slug; -1 when there is no such rule. */
int config_set_rule(struct lint_config *c, const char *id_or_slug, int enabled);
int config_parse_fail_on(const char *s, enum fail_on *out);
const char *fail_on_name(enum fail_on f);

struct finding;
/* The accepted item matching a finding, or NULL. */
const struct accept_item *config_accepted(const struct lint_config *c, const struct finding *f);

#endif
