/* cmd_parse.c - `hloproof parse`: one summary line per module. */
#include "budget.h"
#include "cli.h"
#include "copysite.h"
#include "ir.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

struct module_counts {
	int comps, instrs, whiles;
	int copies, kind[3]; /* copy sites (copysite.h), by enum copy_kind */
};

static struct module_counts count_module(struct hlo_module *m)
{
	struct module_counts c = {m->n_comps, 0, 0, 0, {0, 0, 0}};
	for (int32_t i = 0; i < m->n_comps; i++) {
		const struct hlo_computation *comp = m->comps[i];
		c.instrs += comp->n_instrs;
		for (int32_t j = 0; j < comp->n_instrs; j++)
			c.whiles += comp->instrs[j]->opcode == OP_WHILE;
	}
	/* every place the program copies a buffer: the copies every other
	 * command reports (plain, fused, asynchronous), none inside fusions */
	struct copy_site *st;
	c.copies = copy_sites(m, &m->arena, &st);
	for (int32_t i = 0; i < c.copies; i++)
		c.kind[st[i].kind]++;
	return c;
}

int cmd_parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"stats", no_argument, 0, 's'},
		{"time-budget-ms", required_argument, 0, 'T'},
		{0, 0, 0, 0},
	};
	int json = 0, stats = 0, c;
	long long budget_ms = -1;
	optind = 1;
	while ((c = cli_getopt("parse", argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (strcmp(optarg, "text"))
				return cli_usage_error("parse", "unknown format '%s'", optarg);
			break;
		case 's':
			stats = 1;
			break;
		case 'T':
			if (cli_number("parse", &cli_time_budget_ms, optarg, &budget_ms))
				return EXIT_INPUT;
			break;
		case CLI_OPT_BAD:
			return EXIT_INPUT;
		default:
			return cli_usage_error("parse", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("parse", "no input files");
	char **files = cli_expand_inputs(argc - optind, argv + optind, NULL);
	if (!files)
		return EXIT_INPUT;
	struct budget budget;
	budget_init(&budget, budget_ms);
	int status = EXIT_CLEAN, unknown = 0;
	json_t *mods = json_array();
	for (char **f = files; *f; f++) {
		/* A file not parsed within the budget is reported, not dropped. */
		if (budget_expired(&budget)) {
			unknown++;
			if (json)
				json_array_append_new(mods, json_pack("{s:s, s:s, s:s}", "file", *f,
					"status", "unknown", "reason", BUDGET_EXHAUSTED_REASON));
			else
				printf("%s: unknown: %s\n", *f, BUDGET_EXHAUSTED_REASON);
			continue;
		}
		struct diag d;
		diag_init(&d, stderr);
		long long t0 = cli_now_ns();
		struct hlo_module *m = hlo_parse_file(*f, &d);
		long long t1 = cli_now_ns();
		if (!m) {
			status = EXIT_INPUT;
			continue;
		}
		struct module_counts k = count_module(m);
		if (json) {
			json_array_append_new(mods, json_pack(
				"{s:s, s:s, s:i, s:i, s:i, s:{s:i, s:i, s:i}, s:i, s:i, s:i, s:b}",
				"file", *f, "name", m->name, "computations", k.comps,
				"instructions", k.instrs, "copies", k.copies, "copy_kinds",
				copy_kind_name(COPY_KIND_PLAIN), k.kind[COPY_KIND_PLAIN],
				copy_kind_name(COPY_KIND_FUSED), k.kind[COPY_KIND_FUSED],
				copy_kind_name(COPY_KIND_ASYNC), k.kind[COPY_KIND_ASYNC], "whiles", k.whiles,
				"aliases", m->n_aliases, "donors", m->n_donors,
				"scheduled", m->is_scheduled));
		} else {
			printf("%s: module %s: %d computations, %d instructions, %d copies (%d plain, "
			       "%d fused, %d async), %d while loops, %d alias entries, %d donors, %s\n",
			       *f, m->name, k.comps, k.instrs, k.copies, k.kind[COPY_KIND_PLAIN],
			       k.kind[COPY_KIND_FUSED], k.kind[COPY_KIND_ASYNC], k.whiles, m->n_aliases,
			       m->n_donors, m->is_scheduled ? "scheduled" : "not scheduled");
		}
		if (stats)
			fprintf(stderr, "stats: %s: %zu bytes parsed in %.3f ms (%.1f MB/s), arena %zu bytes, peak RSS %ld KiB\n",
				*f, m->source_len, (t1 - t0) / 1e6,
				(t1 > t0) ? m->source_len / ((t1 - t0) / 1e9) / 1e6 : 0.0,
				m->arena.reserved, cli_peak_rss_kib());
		hlo_module_free(m);
	}
	if (json) {
		json_t *root = json_pack("{s:o}", "modules", mods);
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	} else {
		json_decref(mods);
	}
	cli_free_inputs(files);
	/* Unknown is not clean; a definite input error still wins. */
	return unknown && status == EXIT_CLEAN ? EXIT_INTERNAL : status;
}
