/* analysis.c - build the per-module analyses the copy and hazard deciders share. */
#include "analysis.h"
#include "hzview.h"
#include "smt.h"
#include "repair.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void analysis_default_options(struct analysis_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->timeout_ms = 2000;
	const char *e = getenv("HLOPROOF_SMT_NONE");
	opt->smt_none = e && !strcmp(e, "1");
}

struct analysis *analysis_run(struct hlo_module *m, const struct analysis_options *opt,
			      struct diag *d)
{
	struct analysis *an = arena_alloc(&m->arena, sizeof(*an));
	an->m = m;
	an->d = d;
	if (opt)
		an->opt = *opt;
	else
		analysis_default_options(&an->opt);
	if (an->opt.timeout_ms <= 0)
		an->opt.timeout_ms = 2000;
	an->df = dataflow_run(m, &m->arena, d);
	if (!an->df)
		return NULL;
	an->ip = inplace_build(an->df, &m->arena);
	an->bufs = buffers_build(an->df, an->ip, &m->arena);
	an->dep = ordering_build_ex(m, ORDER_DEPENDENCY, &m->arena, NULL, d);
	if (!an->dep)
		return NULL;
	if (m->is_scheduled)
		an->seq = ordering_build_from(an->dep, ORDER_SEQUENTIAL, &m->arena);
	liveness_init(&an->lv_dep, an->df, an->ip, an->dep);
	return an;
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	smt_free(an->smt);
	an->smt = NULL;
	hz_cache_free(an->cache);
	an->cache = NULL;
	repair_cache_free(an->repairs);
	an->repairs = NULL;
}

int analysis_parse_option(struct analysis_options *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *val = NULL;
	size_t n;
	if (!strcmp(a, "--cross-check")) {
		o->cross_check = 1;
		(*i)++;
		return 1;
	}
	const char *names[] = {"--timeout-ms", "--smt-dump", "--time-budget-ms"};
	for (int k = 0; k < 3; k++) {
		n = strlen(names[k]);
		if (strncmp(a, names[k], n))
			continue;
		int used = 1;
		if (a[n] == '=') {
			val = a + n + 1;
		} else if (a[n] == 0) {
			if (*i + 1 >= argc) {
				fprintf(stderr, "hloproof: %s needs a value\n", names[k]);
				return -1;
			}
			val = argv[*i + 1];
			used = 2;
		} else {
			continue;
		}
		if (k == 0) {
			char *end;
			long t = strtol(val, &end, 10);
			if (*val == 0 || *end || t <= 0 || t > 3600000) {
				fprintf(stderr, "hloproof: --timeout-ms wants a positive number of milliseconds, got '%s'\n", val);
				return -1;
			}
			o->timeout_ms = (int)t;
		} else if (k == 1) {
			o->smt_dump_dir = val;
		} else {
			long long ms;
			if (budget_parse_ms(val, &ms) < 0) {
				fprintf(stderr, "hloproof: --time-budget-ms wants milliseconds, got '%s'\n", val);
				return -1;
			}
			budget_init(&o->budget, ms); /* the clock starts with the command */
		}
		*i += used;
		return 1;
	}
	return 0;
}
