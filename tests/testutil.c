/* testutil.c - helpers shared by the cmocka suites. */
#include "testutil.h"
#include "expect.h"
#include "copies.h"
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

static enum verdict verdict_from(const char *path, const char *s)
{
	if (!strcmp(s, "null"))
		return VERDICT_NONE;
	static const enum verdict all[] = {VERDICT_REMOVABLE, VERDICT_NECESSARY,
					   VERDICT_SCHEDULE_DEPENDENT, VERDICT_UNKNOWN};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, verdict_name(all[i])))
			return all[i];
	fail_msg("%s: bad verdict '%s'", path, s);
	return VERDICT_NONE;
}

static enum copy_family family_from(const char *path, const char *s)
{
	for (int f = FAMILY_LAYOUT; f <= FAMILY_NO_OP; f++)
		if (!strcmp(s, copy_family_name((enum copy_family)f)))
			return (enum copy_family)f;
	fail_msg("%s: bad family '%s'", path, s);
	return FAMILY_UNEXPLAINED;
}

int expect_stage_auto(const char *path)
{
	struct expect_file e;
	if (expect_read(path, &e) < 0)
		fail_msg("%s: cannot read", path);
	int autos = 0;
	char v[32];
	for (int i = 0; i < expect_count(&e, "expect"); i++)
		autos += expect_field(expect_body(&e, "expect", i), "stage", v, sizeof(v)) &&
			 !strcmp(v, "auto");
	expect_free(&e);
	return autos > 0;
}

int expect_copies(const char *path, struct analysis *an, struct hlo_module *m)
{
	struct expect_file e;
	if (expect_read(path, &e) < 0)
		fail_msg("%s: cannot read", path);
	int n = expect_count(&e, "expect");
	if (!n)
		fail_msg("%s: no '// expect:' tag", path);
	for (int i = 0; i < n; i++) {
		const char *body = expect_body(&e, "expect", i);
		/* NAME is a copy, a fused copy's fusion ("fusion{i}" for one
		 * output), a copy-start; kind (copy, fused, async) defaults to copy */
		char name[128], fam[64], given[64], any[64], kind[64];
		if (!expect_word(body, 0, name, sizeof(name)) || !expect_field(body, "family", fam, sizeof(fam)) ||
		    !expect_field(body, "given", given, sizeof(given)) || !expect_field(body, "any", any, sizeof(any)))
			fail_msg("%s: bad expect tag '%s'", path, body);
		if (!expect_field(body, "kind", kind, sizeof(kind)))
			snprintf(kind, sizeof(kind), "copy");
		struct copy_report r;
		struct copy_site site[2];
		if (copy_sites_named(m, &m->arena, name, site, 2) != 1)
			fail_msg("%s: no single copy %s", path, name);
		assert_int_equal(copy_analyse_site(an, &site[0], &r), 0);
		if (strcmp(copy_kind_name(r.site.kind), kind))
			fail_msg("%s: %s: want kind=%s, got kind=%s", path, name, kind,
				 copy_kind_name(r.site.kind));
		if (r.family != family_from(path, fam) || r.given != verdict_from(path, given) ||
		    r.any != verdict_from(path, any))
			fail_msg("%s: %s: want family=%s given=%s any=%s, got family=%s given=%s any=%s\n%s",
				 path, name, fam, given, any, copy_family_name(r.family),
				 verdict_name(r.given) ? verdict_name(r.given) : "null", verdict_name(r.any),
				 r.evidence);
	}
	expect_free(&e);
	/* every copy of the file is expected */
	struct copy_report *all;
	int32_t k = copies_analyse(an, &all);
	if (k != n)
		fail_msg("%s: %d copies, %d expectations", path, k, n);
	return n;
}
