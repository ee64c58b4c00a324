/* fuzz_parse.c - libFuzzer target: the HLO parser on arbitrary bytes.
 * Every input must either parse or produce one error with a position;
 * a parsed module must print and re-parse to an equal module. */
#include "ir.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("<fuzz>", (const char *)data, size, &d);
	if (!m) {
		if (d.errors == 0)
			abort(); /* a rejection must say why */
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	hlo_print_module(f, m);
	fclose(f);
	struct diag d2;
	diag_init(&d2, NULL);
	struct hlo_module *m2 = hlo_parse("<fuzz-reprint>", text, len, &d2);
	if (!m2) {
		fprintf(stderr, "reprint does not parse: %d:%d: %s\n%s\n", d2.first_pos.line,
			d2.first_pos.col, d2.first, text);
		abort();
	}
	char why[256];
	if (!hlo_module_equal(m, m2, why, sizeof(why))) {
		fprintf(stderr, "reprint differs: %s\n", why);
		abort();
	}
	hlo_module_free(m2);
	hlo_module_free(m);
	free(text);
	return 0;
}
