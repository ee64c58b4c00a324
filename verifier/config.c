/* config.c - the lint configuration: defaults, .hloproof.xml, lookups. */
#include "config.h"
#include "embed.h"
#include "findings.h"
#include "xmlload.h"
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/tree.h>

void config_init(struct lint_config *c)
{
	memset(c, 0, sizeof(*c));
	arena_init(&c->arena);
	c->fail_on = FAIL_ERROR;
	c->n_rules = rule_count();
	c->enabled = arena_alloc(&c->arena, (size_t)c->n_rules + 1);
	c->severity = arena_alloc(&c->arena, (size_t)c->n_rules + 1);
	for (int32_t i = 0; i < c->n_rules; i++) {
		c->enabled[i] = 1;
		c->severity[i] = -1;
	}
}

void config_free(struct lint_config *c)
{
	free(c->accepts);
	arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}

int config_rule_enabled(const struct lint_config *c, const struct rule *r)
{
	int i = rule_index(r);
	return i >= 0 && i < c->n_rules ? c->enabled[i] : 1;
}

enum severity config_rule_severity(const struct lint_config *c, const struct rule *r)
{
	int i = rule_index(r);
	if (i >= 0 && i < c->n_rules && c->severity[i] >= 0)
		return (enum severity)c->severity[i];
	if (c->strict_donation && (r->flags & RULE_STRICT_DONATION))
		return SEV_ERROR;
	return r->severity;
}

int config_set_rule(struct lint_config *c, const char *name, int enabled)
{
	int i = rule_index(rule_lookup(name));
	if (i < 0 || i >= c->n_rules)
		return -1;
	c->enabled[i] = (int8_t)(enabled != 0);
	return 0;
}

int config_parse_fail_on(const char *s, enum fail_on *out)
{
	static const char *const names[] = {"note", "warning", "error", "none"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum fail_on)i;
			return 0;
		}
	return -1;
}

const char *fail_on_name(enum fail_on f)
{
	return f == FAIL_NONE ? "none" : severity_name((enum severity)f);
}

static int parse_severity(const char *s, enum severity *out)
{
	enum fail_on f;
	if (config_parse_fail_on(s, &f) < 0 || f == FAIL_NONE)
		return -1;
	*out = (enum severity)f;
	return 0;
}

static int is_true(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "1");
}

static int is_element(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* Attribute value copied into the config arena, or NULL when absent. */
static const char *attr(struct lint_config *c, xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	const char *s = arena_strdup(&c->arena, (const char *)v);
	xmlFree(v);
	return s;
}

/* Element text with surrounding blanks trimmed, into the arena. */
static const char *text(struct lint_config *c, xmlNodePtr n)
{
	xmlChar *v = xmlNodeGetContent(n);
	const char *s = v ? (const char *)v : "";
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t len = strlen(s);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
			   s[len - 1] == '\r'))
		len--;
	const char *r = arena_strndup(&c->arena, s, len);
	xmlFree(v);
	return r;
}

static int load_rules(struct lint_config *c, const char *file, xmlNodePtr rules, struct diag *d)
{
	for (xmlNodePtr n = rules->children; n; n = n->next) {
		if (!is_element(n, "rule"))
			continue;
		long line = xmlGetLineNo(n);
		const char *id = attr(c, n, "id");
		const struct rule *r = rule_lookup(id);
		if (!r)
			return xml_error(d, file, line, "unknown rule '%s' (see `hloproof rules`)", id);
		int i = rule_index(r);
		const char *en = attr(c, n, "enabled");
		if (en)
			c->enabled[i] = (int8_t)is_true(en);
		const char *sev = attr(c, n, "severity");
		enum severity s;
		if (sev) {
			if (parse_severity(sev, &s) < 0)
				return xml_error(d, file, line, "bad severity '%s'", sev);
			c->severity[i] = (int8_t)s;
		}
	}
	return 0;
}

static int add_accept(struct lint_config *c, const struct accept_item *a)
{
	if (c->n_accepts == c->cap_accepts) {
		int32_t cap = c->cap_accepts ? 2 * c->cap_accepts : 8;
		struct accept_item *v = realloc(c->accepts, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		c->accepts = v;
		c->cap_accepts = cap;
	}
	c->accepts[c->n_accepts++] = *a;
	return 0;
}

static int load_accepts(struct lint_config *c, const char *file, xmlNodePtr acc, struct diag *d)
{
	for (xmlNodePtr n = acc->children; n; n = n->next) {
		int copy = is_element(n, "copy");
		if (!copy && !is_element(n, "donation"))
			continue;
		struct accept_item a = {0};
		a.kind = copy ? ACCEPT_COPY : ACCEPT_DONATION;
		a.line = (int)xmlGetLineNo(n);
		a.computation = attr(c, n, "computation");
		a.instruction = attr(c, n, "instruction");
		a.fingerprint = attr(c, n, "fingerprint");
		a.reason = attr(c, n, "reason");
		const char *rname = attr(c, n, "rule");
		if (rname) {
			a.rule = rule_lookup(rname);
			if (!a.rule)
				return xml_error(d, file, a.line, "unknown rule '%s'", rname);
			unsigned want = copy ? RULE_ABOUT_COPY : RULE_ABOUT_DONATION;
			if (!(a.rule->flags & want))
				return xml_error(d, file, a.line, "rule %s (%s) is not about %s",
						 a.rule->id, a.rule->slug, copy ? "copies" : "donations");
		}
		if (!a.computation && !a.instruction && !a.fingerprint)
			return xml_error(d, file, a.line,
					 "accepted %s needs a computation, instruction or fingerprint",
					 copy ? "copy" : "donation");
		if (!a.reason || !*a.reason)
			return xml_error(d, file, a.line, "accepted %s needs a reason",
					 copy ? "copy" : "donation");
		if (add_accept(c, &a) < 0)
			return xml_error(d, file, a.line, "out of memory");
	}
	return 0;
}

/* <frames all="..."><framework path="..."/>...</frames>: the user-frame
 * filter's mode and the paths it adds to the framework (source.h). */
static int load_frames(struct lint_config *c, const char *file, xmlNodePtr fr, struct diag *d)
{
	const char *all = attr(c, fr, "all");
	if (all)
		c->frames.mode = is_true(all) ? FRAMES_ALL : FRAMES_USER;
	int32_t n = 0;
	for (xmlNodePtr k = fr->children; k; k = k->next)
		n += is_element(k, "framework");
	if (n > SOURCE_MAX_PREFIXES)
		return xml_error(d, file, xmlGetLineNo(fr), "more than %d <framework> paths",
				 SOURCE_MAX_PREFIXES);
	const char **v = n ? arena_array(&c->arena, (size_t)n, sizeof(*v)) : NULL;
	if (n && !v)
		return xml_error(d, file, xmlGetLineNo(fr), "out of memory");
	c->frames.n_prefixes = 0;
	for (xmlNodePtr k = fr->children; k; k = k->next)
		if (is_element(k, "framework"))
			v[c->frames.n_prefixes++] = attr(c, k, "path");
	c->frames.prefixes = v;
	return 0;
}

static int load_doc(struct lint_config *c, const char *file, xmlDocPtr doc, struct diag *d)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);
	if (!root || !is_element(root, "hloproof"))
		return xml_error(d, file, root ? xmlGetLineNo(root) : 0, "root element must be <hloproof>");
	/* the schema allows the children in any order; each at most once */
	static const char *const once[] = {"fail-on", "solver-timeout-ms", "strict-donation",
					   "rules", "accept", "frames"};
	long seen[6] = {0};
	for (xmlNodePtr n = root->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		long line = xmlGetLineNo(n);
		for (int k = 0; k < 6; k++)
			if (is_element(n, once[k])) {
				if (seen[k])
					return xml_error(d, file, line, "<%s> given twice (first on line %ld)",
							 once[k], seen[k]);
				seen[k] = line;
			}
		if (is_element(n, "fail-on")) {
			const char *v = text(c, n);
			if (config_parse_fail_on(v, &c->fail_on) < 0)
				return xml_error(d, file, line, "bad fail-on level '%s'", v);
		} else if (is_element(n, "solver-timeout-ms")) {
			const char *v = text(c, n);
			char *end;
			errno = 0;
			long t = strtol(v, &end, 10);
			if (errno || *end || end == v || t < 0)
				return xml_error(d, file, line, "bad timeout '%s'", v);
			c->timeout_ms = t;
		} else if (is_element(n, "strict-donation")) {
			c->strict_donation = is_true(text(c, n));
		} else if (is_element(n, "rules")) {
			if (load_rules(c, file, n, d) < 0)
				return -1;
		} else if (is_element(n, "accept")) {
			if (load_accepts(c, file, n, d) < 0)
				return -1;
		} else if (is_element(n, "frames")) {
			if (load_frames(c, file, n, d) < 0)
				return -1;
		} else {
			return xml_error(d, file, line, "unknown element <%s>", (const char *)n->name);
		}
	}
	return 0;
}

int config_load_memory(struct lint_config *c, const char *name, const char *buf, size_t len,
		       struct diag *d)
{
	xmlDocPtr doc = xml_load_memory(name, buf, len, embedded_config_rng,
					embedded_config_rng_len, d);
	if (!doc)
		return -1;
	c->path = arena_strdup(&c->arena, name);
	int rc = load_doc(c, c->path, doc, d);
	xmlFreeDoc(doc);
	return rc;
}

int config_load(struct lint_config *c, const char *path, struct diag *d)
{
	xmlDocPtr doc = xml_load_file(path, embedded_config_rng, embedded_config_rng_len, d);
	if (!doc)
		return -1;
	c->path = arena_strdup(&c->arena, path);
	int rc = load_doc(c, c->path, doc, d);
	xmlFreeDoc(doc);
	return rc;
}

char *config_find(const char *dir)
{
	char buf[PATH_MAX];
	if (dir)
		snprintf(buf, sizeof(buf), "%s", dir);
	else if (!getcwd(buf, sizeof(buf)))
		return NULL;
	for (int depth = 0; depth < CONFIG_MAX_WALK; depth++) {
		char path[PATH_MAX + sizeof(CONFIG_FILE_NAME) + 1];
		snprintf(path, sizeof(path), "%s/%s", strcmp(buf, "/") ? buf : "", CONFIG_FILE_NAME);
		if (access(path, F_OK) == 0)
			return strdup(path);
		char *slash = strrchr(buf, '/');
		if (!slash || !strcmp(buf, "/"))
			break;
		if (slash == buf)
			slash[1] = 0; /* "/x" -> "/" */
		else
			*slash = 0;
	}
	return NULL;
}

static int glob_ok(const char *pattern, const char *name)
{
	return !pattern || (name && fnmatch(pattern, name, 0) == 0);
}

const struct accept_item *config_accepted(const struct lint_config *c, const struct finding *f)
{
	if (!f->rule)
		return NULL;
	for (int32_t i = 0; i < c->n_accepts; i++) {
		const struct accept_item *a = &c->accepts[i];
		unsigned want = a->kind == ACCEPT_COPY ? RULE_ABOUT_COPY : RULE_ABOUT_DONATION;
		if (!(f->rule->flags & want) || (a->rule && a->rule != f->rule))
			continue;
		if (a->fingerprint && (!f->fingerprint || strcmp(a->fingerprint, f->fingerprint)))
			continue;
		if (!glob_ok(a->computation, f->computation) || !glob_ok(a->instruction, f->instruction))
			continue;
		return a;
	}
	return NULL;
}
