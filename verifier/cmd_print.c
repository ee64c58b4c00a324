/* cmd_print.c - `hloproof print`: the canonical printer. */
#include "cli.h"
#include "ir.h"
#include <stdio.h>

int cmd_print(int argc, char **argv)
{
	if (argc != 2)
		return cli_usage_error("print", "expects exactly one FILE");
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(argv[1], &d);
	if (!m)
		return EXIT_INPUT;
	hlo_print_module(stdout, m);
	hlo_module_free(m);
	return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_INTERNAL;
}
