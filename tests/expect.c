/* expect.c - fixture expectation tags (expect.h). */
#include "expect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);
	size_t k;
	while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n - 1 == 0) {
			char *t = realloc(s, cap * 2);
			if (!t)
				free(s);
			s = t;
			cap *= 2;
		}
	}
	int err = ferror(f);
	fclose(f);
	if (!s || err) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	*len = n;
	return s;
}

/* "// expect-finding: body" -> tag "expect-finding"; NULL when the line is
 * no tag. *body points into the line. */
static char *tag_of(const char *line, size_t n, const char **body)
{
	if (n < 9 || strncmp(line, "// expect", 9))
		return NULL;
	size_t t = 3;
	while (t < n && (line[t] == '-' || (line[t] >= 'a' && line[t] <= 'z')))
		t++;
	if (t >= n || line[t] != ':')
		return NULL;
	*body = line + t + 1 + (t + 1 < n && line[t + 1] == ' ');
	return strndup(line + 3, t - 3);
}

int expect_read(const char *path, struct expect_file *out)
{
	memset(out, 0, sizeof(*out));
	size_t len;
	char *s = slurp(path, &len);
	if (!s)
		return -1;
	int cap = 0, line = 0;
	for (const char *p = s; p < s + len;) {
		const char *nl = memchr(p, '\n', (size_t)(s + len - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(s + len - p);
		line++;
		const char *body;
		char *tag = tag_of(p, n, &body);
		if (tag) {
			if (out->n == cap) {
				cap = cap ? 2 * cap : 8;
				out->tags = realloc(out->tags, (size_t)cap * sizeof(*out->tags));
			}
			struct expect_tag *t = &out->tags[out->n++];
			t->tag = tag;
			t->body = strndup(body, (size_t)(p + n - body));
			t->line = line;
		}
		p += n + 1;
	}
	free(s);
	return 0;
}

void expect_free(struct expect_file *e)
{
	for (int i = 0; i < e->n; i++) {
		free(e->tags[i].tag);
		free(e->tags[i].body);
	}
	free(e->tags);
	memset(e, 0, sizeof(*e));
}

int expect_count(const struct expect_file *e, const char *tag)
{
	int k = 0;
	for (int i = 0; i < e->n; i++)
		k += !strcmp(e->tags[i].tag, tag);
	return k;
}

const char *expect_body(const struct expect_file *e, const char *tag, int i)
{
	for (int k = 0; k < e->n; k++)
		if (!strcmp(e->tags[k].tag, tag) && i-- == 0)
			return e->tags[k].body;
	return NULL;
}

const char *expect_word(const char *body, int i, char *buf, size_t cap)
{
	const char *p = body;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return NULL;
		size_t n = strcspn(p, " ");
		if (i-- == 0) {
			snprintf(buf, cap, "%.*s", (int)n, p);
			return buf;
		}
		p += n;
	}
}

const char *expect_field(const char *body, const char *key, char *buf, size_t cap)
{
	char w[512];
	size_t k = strlen(key);
	for (int i = 0; expect_word(body, i, w, sizeof(w)); i++)
		if (!strncmp(w, key, k) && w[k] == '=') {
			snprintf(buf, cap, "%s", w + k + 1);
			return buf;
		}
	return NULL;
}

int expect_rewrite(const char *path, const char *tag, const char *const *bodies, int n)
{
	size_t len;
	char *s = slurp(path, &len);
	if (!s)
		return -1;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.expect-tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		free(s);
		return -1;
	}
	int written = 0;
	for (const char *p = s; p < s + len;) {
		const char *nl = memchr(p, '\n', (size_t)(s + len - p));
		size_t ln = nl ? (size_t)(nl - p) + 1 : (size_t)(s + len - p);
		const char *body;
		char *t = tag_of(p, nl ? ln - 1 : ln, &body);
		int mine = t && !strcmp(t, tag);
		free(t);
		if (!mine) {
			fwrite(p, 1, ln, f);
		} else if (!written) {
			for (int i = 0; i < n; i++)
				fprintf(f, "// %s: %s\n", tag, bodies[i]);
			written = 1;
		}
		p += ln;
	}
	if (!written) {
		if (len && s[len - 1] != '\n')
			fputc('\n', f);
		for (int i = 0; i < n; i++)
			fprintf(f, "// %s: %s\n", tag, bodies[i]);
	}
	free(s);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

int expect_updating(void)
{
	const char *e = getenv("HLOPROOF_FIXTURES_UPDATE");
	return e && !strcmp(e, "1");
}
