/* xmlload.c - hardened XML loading with RELAX NG validation (xmlload.h). */
#include "xmlload.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/xmlerror.h>

int xml_error(struct diag *d, const char *file, long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* libxml2 messages end in a newline */
	size_t n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = 0;
	if (d->errors++ == 0) {
		snprintf(d->first, sizeof(d->first), "%s", msg);
		d->first_pos = (struct srcpos){file, line > 0 ? (int)line : 0, 0};
	}
	if (d->out) {
		if (line > 0)
			fprintf(d->out, "%s:%ld: error: %s\n", file, line, msg);
		else
			fprintf(d->out, "%s: error: %s\n", file, msg);
	}
	return -1;
}

/* The first error libxml2 raised, captured instead of printed. */
struct xml_capture {
	int have;
	long line;
	char msg[400];
};

static void capture(void *data, xmlErrorPtr e)
{
	struct xml_capture *c = data;
	if (!c || !e || c->have || e->level < XML_ERR_ERROR)
		return;
	c->have = 1;
	c->line = e->line;
	if (e->node && e->line <= 0)
		c->line = xmlGetLineNo((xmlNodePtr)e->node);
	snprintf(c->msg, sizeof(c->msg), "%s", e->message ? e->message : "malformed XML");
}

/* The parser context hands its SAX callbacks ctxt->userData (the context
 * itself); our capture record rides in ctxt->_private. */
static void capture_parser(void *ctx, xmlErrorPtr e)
{
	xmlParserCtxtPtr ctxt = ctx;
	capture(ctxt ? ctxt->_private : NULL, e);
}

static long line_of(const char *buf, size_t off)
{
	long line = 1;
	for (size_t i = 0; i < off; i++)
		if (buf[i] == '\n')
			line++;
	return line;
}

static const char *find_bytes(const char *buf, size_t len, const char *pat)
{
	size_t m = strlen(pat);
	for (size_t i = 0; i + m <= len; i++)
		if (buf[i] == pat[0] && !memcmp(buf + i, pat, m))
			return buf + i;
	return NULL;
}

/* Reject what could make the parser expand or fetch anything, before it runs.
 * The document is read as UTF-8 (encoding declarations are ignored), so a byte
 * scan sees every declaration; a "<!DOCTYPE" inside a comment is rejected as
 * well, which costs nothing for a configuration file. */
static int precheck(const char *name, const char *buf, size_t len, struct diag *d)
{
	if (len > XML_MAX_FILE_BYTES)
		return xml_error(d, name, 0, "XML file is %zu bytes, over the %zu-byte limit", len,
				 XML_MAX_FILE_BYTES);
	if (len >= 2 && ((unsigned char)buf[0] == 0xfe || (unsigned char)buf[0] == 0xff) &&
	    ((unsigned char)buf[1] == 0xfe || (unsigned char)buf[1] == 0xff))
		return xml_error(d, name, 1, "XML file is not UTF-8 (UTF-16 byte order mark)");
	const char *nul = memchr(buf, 0, len);
	if (nul)
		return xml_error(d, name, line_of(buf, (size_t)(nul - buf)),
				 "XML file is not UTF-8 text (NUL byte)");
	static const char *const banned[] = {"<!DOCTYPE", "<!ENTITY", "<!doctype"};
	for (size_t i = 0; i < sizeof(banned) / sizeof(*banned); i++) {
		const char *p = find_bytes(buf, len, banned[i]);
		if (p)
			return xml_error(d, name, line_of(buf, (size_t)(p - buf)),
					 "document type declarations and entities are not allowed");
	}
	return 0;
}

static int validate(const char *name, xmlDocPtr doc, const char *rng, size_t rng_len,
		    struct diag *d)
{
	struct xml_capture cap = {0};
	xmlRelaxNGParserCtxtPtr pctxt = xmlRelaxNGNewMemParserCtxt(rng, (int)rng_len);
	if (!pctxt)
		return xml_error(d, name, 0, "internal error: cannot load the schema");
	xmlRelaxNGSetParserStructuredErrors(pctxt, capture, &cap);
	xmlRelaxNGPtr schema = xmlRelaxNGParse(pctxt);
	xmlRelaxNGFreeParserCtxt(pctxt);
	if (!schema)
		return xml_error(d, name, 0, "internal error: bad schema: %s",
				 cap.have ? cap.msg : "unknown");
	xmlRelaxNGValidCtxtPtr vctxt = xmlRelaxNGNewValidCtxt(schema);
	if (!vctxt) {
		xmlRelaxNGFree(schema);
		return xml_error(d, name, 0, "internal error: out of memory");
	}
	xmlRelaxNGSetValidStructuredErrors(vctxt, capture, &cap);
	int rc = xmlRelaxNGValidateDoc(vctxt, doc);
	xmlRelaxNGFreeValidCtxt(vctxt);
	xmlRelaxNGFree(schema);
	if (rc == 0)
		return 0;
	return xml_error(d, name, cap.have ? cap.line : 0, "does not match the schema: %s",
			 cap.have ? cap.msg : "invalid document");
}

xmlDocPtr xml_load_memory(const char *name, const char *buf, size_t len, const char *rng,
			  size_t rng_len, struct diag *d)
{
	if (precheck(name, buf, len, d) < 0)
		return NULL;
	xmlInitParser();
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		xml_error(d, name, 0, "out of memory");
		return NULL;
	}
	struct xml_capture cap = {0};
	ctxt->_private = &cap;
	ctxt->sax->serror = capture_parser;
	/* No XML_PARSE_NOENT (entity substitution), XML_PARSE_DTDLOAD,
	 * XML_PARSE_DTDATTR, XML_PARSE_XINCLUDE or XML_PARSE_HUGE. */
	int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
		   XML_PARSE_BIG_LINES | XML_PARSE_IGNORE_ENC | XML_PARSE_NOCDATA;
	xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, "UTF-8", opts);
	int wellformed = ctxt->wellFormed;
	xmlFreeParserCtxt(ctxt);
	if (!doc || !wellformed) {
		xml_error(d, name, cap.have ? cap.line : 0, "%s",
			  cap.have ? cap.msg : "malformed XML");
		xmlFreeDoc(doc);
		return NULL;
	}
	if (doc->intSubset || doc->extSubset) {
		xml_error(d, name, 1, "document type declarations and entities are not allowed");
		xmlFreeDoc(doc);
		return NULL;
	}
	if (rng && validate(name, doc, rng, rng_len, d) < 0) {
		xmlFreeDoc(doc);
		return NULL;
	}
	return doc;
}

xmlDocPtr xml_load_file(const char *path, const char *rng, size_t rng_len, struct diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		xml_error(d, path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > XML_MAX_FILE_BYTES) {
		close(fd);
		xml_error(d, path, 0, "XML file is %lld bytes, over the %zu-byte limit",
			  (long long)st.st_size, XML_MAX_FILE_BYTES);
		return NULL;
	}
	/* read at most one byte past the limit: pipes have no size */
	char *buf = malloc(XML_MAX_FILE_BYTES + 1);
	if (!buf) {
		close(fd);
		xml_error(d, path, 0, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, XML_MAX_FILE_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			xml_error(d, path, 0, "cannot read: %s", strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0 || (n += (size_t)r) == XML_MAX_FILE_BYTES + 1)
			break;
	}
	close(fd);
	xmlDocPtr doc = xml_load_memory(path, buf, n, rng, rng_len, d);
	free(buf);
	return doc;
}
