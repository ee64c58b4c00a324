/* report.c - what the reporters share: counting, text cleaning, URIs. */
#include "report.h"
#include "lines.h"
#include "report_source.h"
#include "baseline.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int report_format_parse(const char *s, enum report_format *out)
{
	static const char *const names[] = {"text", "json", "sarif", "junit", "checkstyle"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	return -1;
}

void report_count(const struct report *r, struct report_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t m = 0; m < r->n_modules; m++) {
		const struct findings *fs = &r->modules[m].findings;
		for (int32_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->items[i];
			if (f->suppressed)
				c->suppressed++;
			else if (f->baselined)
				c->baselined++;
			else if (f->below_min_bytes)
				c->below_min_bytes++;
			else if (f->severity == SEV_ERROR)
				c->errors++;
			else if (f->severity == SEV_WARNING)
				c->warnings++;
			else
				c->notes++;
		}
	}
	if (r->baseline)
		for (size_t i = 0; i < r->baseline->n; i++)
			c->stale += baseline_entry_stale(&r->baseline->entries[i]);
}

/* Length of the well-formed UTF-8 sequence at s (XML-legal code point), or 0. */
static int utf8_len(const unsigned char *s)
{
	uint32_t cp;
	int n;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	return n;
}

char *report_clean_text(const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (*p) {
		int k = utf8_len(p);
		if (k == 1 && (*p < 0x20 || *p == 0x7f) && *p != '\t' && *p != '\n')
			k = 0;
		if (k == 0) {
			out[o++] = '?';
			p++;
			continue;
		}
		memcpy(out + o, p, (size_t)k);
		o += (size_t)k;
		p += k;
	}
	out[o] = 0;
	return out;
}

json_t *report_json_string(const char *s)
{
	char *c = report_clean_text(s);
	json_t *j = json_string(c ? c : "");
	free(c);
	return j ? j : json_string("");
}

char *report_full_message(const struct finding *f)
{
	size_t n = strlen(f->message) + (f->evidence ? strlen(f->evidence) + 1 : 0) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	if (f->evidence)
		snprintf(s, n, "%s\n%s", f->message, f->evidence);
	else
		snprintf(s, n, "%s", f->message);
	return s;
}

char *report_failure_location(const struct input_failure *f)
{
	char *s = NULL;
	int rc = f->line > 0 ? asprintf(&s, "%s:%d:%d", f->file, f->line, f->col > 0 ? f->col : 1)
			     : asprintf(&s, "%s", f->file);
	return rc < 0 ? NULL : s;
}

json_t *report_json_string_or_null(const char *s)
{
	return s ? report_json_string(s) : json_null();
}

json_t *report_finding_json(const struct finding *f, int full)
{
	json_t *o = json_object();
	json_t *fp = report_json_string(f->fingerprint ? f->fingerprint : "");
	if (!full)
		json_object_set_new(o, "fingerprint", fp);
	json_object_set_new(o, "rule", report_json_string(f->rule->id));
	json_object_set_new(o, "name", report_json_string(f->rule->slug));
	json_object_set_new(o, "severity", report_json_string(severity_name(f->severity)));
	json_object_set_new(o, "message", report_json_string(f->message));
	json_object_set_new(o, "file", report_json_string(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->col));
	json_object_set_new(o, "computation", report_json_string_or_null(f->computation));
	json_object_set_new(o, "instruction", report_json_string_or_null(f->instruction));
	if (full)
		json_object_set_new(o, "fingerprint", fp);
	json_object_set_new(o, "bytes", f->bytes >= 0 ? json_integer((json_int_t)f->bytes) : json_null());
	json_object_set_new(o, "family", report_json_string_or_null(f->family));
	if (full && f->has_trips) {
		json_object_set_new(o, "trip_count", f->trip_count > 0 ? json_integer((json_int_t)f->trip_count) : json_null());
		json_object_set_new(o, "bytes_per_step", f->bytes_per_step >= 0 ? json_integer((json_int_t)f->bytes_per_step) : json_null());
	}
	if (full && f->copied_value) {
		json_object_set_new(o, "copied_value", report_json_string(f->copied_value));
		json_object_set_new(o, "copy_place", report_json_string_or_null(f->copy_place));
	}
	json_object_set_new(o, "verdict", report_json_string_or_null(f->verdict));
	if (full)
		json_object_set_new(o, "evidence", report_evidence_lines(f));
	json_object_set_new(o, "source", report_source_json(f->source));
	return o;
}

json_t *report_evidence_lines(const struct finding *f)
{
	json_t *a = json_array();
	size_t len;
	for (const char *p = f->evidence, *l; (l = line_next(&p, &len));) {
		char *line = strndup(l, len);
		json_array_append_new(a, report_json_string(line ? line : ""));
		free(line);
	}
	return a;
}

char *report_rule_description(const struct rule *r)
{
	const char *doc = rule_doc(r->slug);
	if (!doc)
		return strdup(r->summary);
	/* skip the title and blank lines, take lines up to the next blank one */
	const char *p = doc;
	for (;;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int skip = len == 0 || p[0] == '#';
		if (!skip || !e)
			break;
		p = e + 1;
	}
	const char *end = strstr(p, "\n\n");
	size_t len = end ? (size_t)(end - p) : strlen(p);
	while (len > 0 && p[len - 1] == '\n')
		len--;
	if (len == 0)
		return strdup(r->summary);
	char *s = strndup(p, len);
	for (char *q = s; q && *q; q++)
		if (*q == '\n')
			*q = ' ';
	return s;
}

static char *uri_encode(const char *prefix, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *s = malloc(strlen(prefix) + 3 * n + 1);
	if (!s)
		return NULL;
	size_t o = strlen(prefix);
	memcpy(s, prefix, o);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			s[o++] = (char)*p;
		} else {
			s[o++] = '%';
			s[o++] = hex[*p >> 4];
			s[o++] = hex[*p & 15];
		}
	}
	s[o] = 0;
	return s;
}

char *report_uri(const char *path)
{
	const char *prefix = path[0] == '/' ? "file://" : "";
	if (!strncmp(path, "./", 2))
		path += 2;
	return uri_encode(prefix, path);
}

static int has_git(const char *dir)
{
	char *p = NULL;
	if (asprintf(&p, "%s/.git", dir) < 0)
		return 0;
	struct stat st;
	int yes = stat(p, &st) == 0;
	free(p);
	return yes;
}

char *report_source_root(const char *file)
{
	char *abs = file && strcmp(file, "-") ? realpath(file, NULL) : NULL;
	if (abs) {
		char *slash;
		while ((slash = strrchr(abs, '/'))) {
			*slash = 0; /* the parent of what abs named */
			if (has_git(*abs ? abs : "/")) {
				if (!*abs)
					strcpy(abs, "/");
				return abs;
			}
			if (!*abs)
				break;
		}
		free(abs);
	}
	return getcwd(NULL, 0);
}

char *report_root_uri(const char *file, const char *root, int *based)
{
	*based = 0;
	char *abs = root && strcmp(file, "-") ? realpath(file, NULL) : NULL;
	size_t n = root ? strlen(root) : 0;
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (abs && n == 1 && root[0] == '/') {
		*based = 1;
		char *u = uri_encode("", abs + 1);
		free(abs);
		return u;
	}
	if (abs && !strncmp(abs, root, n) && abs[n] == '/') {
		*based = 1;
		char *u = uri_encode("", abs + n + 1);
		free(abs);
		return u;
	}
	char *u = abs ? uri_encode("file://", abs) : report_uri(file);
	free(abs);
	return u;
}

char *report_unlink_markdown(const char *md)
{
	size_t n = strlen(md);
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		const char *close = md[i] == '[' ? strchr(md + i, ']') : NULL;
		const char *end = close && close[1] == '(' ? strchr(close, ')') : NULL;
		const char *nl = strchr(md + i, '\n');
		if (end && (!nl || end < nl)) {
			const char *target = close + 2;
			size_t tlen = (size_t)(end - target);
			int absolute = (tlen > 7 && !strncmp(target, "http://", 7)) ||
				       (tlen > 8 && !strncmp(target, "https://", 8));
			if (!absolute) {
				size_t tl = (size_t)(close - (md + i + 1));
				memcpy(out + o, md + i + 1, tl);
				o += tl;
				i = (size_t)(end - md) + 1;
				continue;
			}
		}
		out[o++] = md[i++];
	}
	out[o] = 0;
	return out;
}

xmlTextWriterPtr report_xml_open(FILE *out)
{
	xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
	if (!buf)
		return NULL;
	xmlTextWriterPtr w = xmlNewTextWriter(buf);
	if (!w) {
		xmlOutputBufferClose(buf);
		return NULL;
	}
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterSetIndentString(w, (const xmlChar *)"  ");
	if (xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0) {
		xmlFreeTextWriter(w);
		return NULL;
	}
	return w;
}

int report_xml_close(xmlTextWriterPtr w, int rc)
{
	if (rc >= 0 && xmlTextWriterEndDocument(w) < 0)
		rc = -1;
	if (rc >= 0 && xmlTextWriterFlush(w) < 0)
		rc = -1;
	xmlFreeTextWriter(w);
	return rc < 0 ? -1 : 0;
}

int report_xml_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
	char *c = report_clean_text(value);
	if (!c)
		return -1;
	int rc = xmlTextWriterWriteAttribute(w, (const xmlChar *)name, (const xmlChar *)c);
	free(c);
	return rc;
}

int report_xml_attr_int(xmlTextWriterPtr w, const char *name, long value)
{
	return xmlTextWriterWriteFormatAttribute(w, (const xmlChar *)name, "%ld", value);
}

int report_xml_text(xmlTextWriterPtr w, const char *text)
{
	char *c = report_clean_text(text);
	if (!c)
		return -1;
	int rc = xmlTextWriterWriteString(w, (const xmlChar *)c);
	free(c);
	return rc;
}

int report_write(FILE *out, enum report_format fmt, const struct report *r,
		 const struct report_options *o)
{
	switch (fmt) {
	case FMT_TEXT:
		return report_text(out, r, o);
	case FMT_JSON:
		return report_json(out, r, o);
	case FMT_SARIF:
		return report_sarif(out, r, o);
	case FMT_JUNIT:
		return report_junit(out, r, o);
	case FMT_CHECKSTYLE:
		return report_checkstyle(out, r, o);
	}
	return -1;
}
