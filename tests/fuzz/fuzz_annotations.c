/* fuzz_annotations.c - libFuzzer target: the hardened annotations loader on
 * arbitrary bytes; a loaded file is then checked against a small module with
 * an alias, a donor and argument paths. Every input is accepted or rejected
 * with one error. */
#include "analysis.h"
#include "annotations.h"
#include "donation.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char module_text[] =
	"HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {1}) }\n"
	"ENTRY main {\n"
	"  w = f32[4]{0} parameter(0), metadata={op_name=\"params['w']\"}\n"
	"  s = (f32[2]{0}, f32[4]{0}) parameter(1), metadata={op_name=\"state\"}\n"
	"  x = f32[4]{0} get-tuple-element(s), index=1\n"
	"  a = f32[4]{0} negate(w)\n"
	"  b = f32[4]{0} add(a, w)\n"
	"  c = f32[4]{0} add(b, x)\n"
	"  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, c)\n"
	"}\n";

static void ignore(void *ctx, const struct annotation_violation *v)
{
	(void)ctx;
	if (!v->item || !v->message[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct annotations a;
	struct diag d;
	diag_init(&d, NULL);
	int rc = annotations_load_memory(&a, "<fuzz>", (const char *)data, size, &d);
	if ((rc < 0) != (d.errors != 0))
		abort(); /* a rejection must say why, an acceptance nothing */
	if (rc == 0) {
		struct hlo_module *m = hlo_parse("<m>", module_text, strlen(module_text), &d);
		if (!m)
			abort();
		struct analysis *an = analysis_run(m, NULL, &d);
		struct donation_report *r;
		int32_t n = an ? donations_analyse(an, &r) : -1;
		if (n != 2)
			abort();
		annotations_check(&a, m, r, n, ignore, NULL);
		analysis_free(an);
		hlo_module_free(m);
	}
	annotations_free(&a);
	return 0;
}
