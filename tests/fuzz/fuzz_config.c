/* fuzz_config.c - libFuzzer target: the hardened .hloproof.xml loader on
 * arbitrary bytes. Every input is accepted or rejected with one error. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lint_config cfg;
	config_init(&cfg);
	struct diag d;
	diag_init(&d, NULL);
	int rc = config_load_memory(&cfg, "<fuzz>", (const char *)data, size, &d);
	if (rc < 0 && d.errors == 0)
		abort(); /* a rejection must say why */
	if (rc == 0 && d.errors != 0)
		abort();
	config_free(&cfg);
	return 0;
}
