/* donation-not-honored (HP201): a buffer_donor leaf that no output will reuse.
 *
 * The prediction is XLA's OptimizeInputOutputBufferAlias (hlo-semantics.md
 * §7.3), implemented once in verifier/donormatch.c: only byte size and memory
 * space matter, largest first. Every donor left over is reported with the
 * reason and the outputs that were considered, plus how JAX's own pairing
 * (same dtype and shape, §7.5) would have gone. */
#include "donormatch.h"
#include "lint.h"
#include "timeline.h" /* tl_format_bytes */
#include "verdict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES_SHOWN 12

struct evidence_sink {
	struct rule_ctx *ctx;
	struct finding *f;
};

static void add_line(void *p, const char *text)
{
	struct evidence_sink *s = p;
	finding_evidence(s->ctx->findings, s->f, "%s", text);
}

static void report(struct rule_ctx *ctx, const struct donor_matching *dm, int32_t i)
{
	const struct hlo_module *m = ctx->module;
	const struct donor_leaf *dn = &dm->donors[i];
	char pd[256], ss[160], key[160], reason[320];
	describe_param(pd, sizeof(pd), m, dn->param, &dn->index);
	shape_text(dn->shape, ss, sizeof(ss));
	shape_index_to_string(&dn->index, key, sizeof(key));
	donor_reason(dm, i, reason, sizeof(reason));
	const struct hlo_instruction *pi = m->entry && dn->param < m->entry->n_params
						   ? m->entry->params[dn->param] : NULL;
	char b[32];
	tl_format_bytes(dn->bytes, b, sizeof(b));
	struct finding *f = finding_add_at(ctx, pi, dn->donor->pos, key,
					   "donated %s %s (%s) is reused by no output: %s; return an "
					   "output of its dtype and shape, or stop donating it",
					   pd, ss, b, reason);
	finding_facts(f, (long long)dn->bytes, NULL, verdict_name(VERDICT_NOT_HONORED));
	/* candidates only when the walk looked at outputs for it */
	if (dn->outcome == DONOR_NO_OUTPUT_SIZE || dn->outcome == DONOR_MEMORY_SPACE ||
	    dn->outcome == DONOR_ALL_TAKEN) {
		struct evidence_sink s = {ctx, f};
		donor_candidates(m, dm, i, MAX_CANDIDATES_SHOWN, add_line, &s);
		char jax[400];
		donor_jax_note(m, dm, i, jax, sizeof(jax));
		finding_evidence(ctx->findings, f, "%s", jax);
	}
}

static int check(struct rule_ctx *ctx)
{
	const struct hlo_module *m = ctx->module;
	if (!m->n_donors || !m->entry || !m->entry->root)
		return 0;
	struct arena a;
	arena_init(&a);
	struct donor_matching dm;
	if (donor_match(m, &a, &dm) == 0) {
		/* in registration order; a leaf registered twice is reported once */
		for (int32_t e = 0; e < m->n_donors; e++) {
			int32_t i = dm.leaf_of_entry[e];
			if (i < 0 || dm.donors[i].donor != &m->donors[e] ||
			    dm.donors[i].outcome == DONOR_MATCHED)
				continue;
			report(ctx, &dm, i);
		}
	}
	arena_free(&a);
	return 0;
}

const struct rule rule_donation_not_honored = {
	.id = "HP201",
	.slug = "donation-not-honored",
	.severity = SEV_WARNING,
	.summary = "a donated buffer (buffer_donor) that no output will reuse",
	.check = check,
	.flags = RULE_ABOUT_DONATION | RULE_STRICT_DONATION,
};
