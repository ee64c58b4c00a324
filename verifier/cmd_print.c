/* cmd_print.c - `hloproof print`: the canonical printer. */
#include "atomic_out.h"
#include "cli.h"
#include "ir.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_print(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{0, 0, 0, 0},
	};
	const char *output = NULL;
	int c;
	optind = 1;
	while ((c = cli_getopt("print", argc, argv, "o:", opts)) != -1) {
		if (c == CLI_OPT_BAD)
			return EXIT_INPUT;
		if (c != 'o')
			return cli_usage_error("print", "bad option");
		output = optarg;
	}
	if (argc - optind != 1)
		return cli_usage_error("print", "expects exactly one FILE");
	char buf[CLI_PATH_MAX];
	const char *input = cli_one_input("print", argv[optind], buf);
	if (!input)
		return EXIT_INPUT;
	/* inputs are never written, not even by a canonicalising rewrite in place */
	if (atomic_out_same_file(input, output))
		return cli_usage_error("print", "output file '%s' is the input", output);
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(input, &d);
	if (!m)
		return EXIT_INPUT;
	struct atomic_out out;
	if (atomic_out_open(&out, output, &d) < 0) {
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	hlo_print_module(out.f, m);
	hlo_module_free(m);
	return atomic_out_commit(&out, &d) == 0 ? EXIT_CLEAN : EXIT_INTERNAL;
}
