/* embed.h - text files compiled into the binary by rules/gen-embed.sh, so an
 * installed hloproof needs nothing from the source tree: the configuration
 * schemas (docs/config.rng, docs/annotations.rng) and the rule documentation (docs/rules/<slug>.md). */
#ifndef HLOPROOF_EMBED_H
#define HLOPROOF_EMBED_H
#include <stddef.h>

extern const char embedded_config_rng[];
extern const size_t embedded_config_rng_len;
/* docs/annotations.rng: alias annotation files (annotations.h) */
extern const char embedded_annotations_rng[];
extern const size_t embedded_annotations_rng_len;

struct embedded_doc {
	const char *slug;  /* file name without .md */
	const char *text;
};
/* Terminated by {0, 0}. */
extern const struct embedded_doc embedded_rule_docs[];

#endif
