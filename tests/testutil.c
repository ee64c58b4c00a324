/* testutil.c - helpers shared by the cmocka suites. */
#include "testutil.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *shared_path(const char *rel)
{
	const char *base = getenv("HLOPROOF_SHARED");
	if (!base || !*base)
		base = "../shared";
	size_t n = strlen(base) + strlen(rel) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", base, rel);
	return p;
}

struct hlo_module *parse_text(const char *text)
{
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse("<test>", text, strlen(text), &d);
	if (!m)
		fail_msg("parse failed: %d:%d: %s", d.first_pos.line, d.first_pos.col, d.first);
	return m;
}

struct diag parse_text_error(const char *text)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("<test>", text, strlen(text), &d);
	if (m) {
		hlo_module_free(m);
		fail_msg("expected a parse error, got none");
	}
	return d;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **list_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	size_t n = 0, cap = 16;
	char **v = calloc(cap, sizeof(char *));
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name), sl = strlen(suffix);
		if (l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		if (n + 2 > cap)
			v = realloc(v, (cap *= 2) * sizeof(char *));
		size_t pl = strlen(dir) + l + 2;
		v[n] = malloc(pl);
		snprintf(v[n], pl, "%s/%s", dir, e->d_name);
		v[++n] = NULL;
	}
	if (d)
		closedir(d);
	qsort(v, n, sizeof(char *), cmp);
	return v;
}

void free_list(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}
