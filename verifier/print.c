/* print.c - placeholder until the canonical printer lands (issue 2). */
#include "ir.h"

void hlo_print_module(FILE *out, const struct hlo_module *m)
{
	die("print: not implemented yet");
}

int hlo_module_equal(const struct hlo_module *a, const struct hlo_module *b, char *why, size_t cap)
{
	die("module equality: not implemented yet");
}
