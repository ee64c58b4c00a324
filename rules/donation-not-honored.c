/* donation-not-honored (HP201): a buffer_donor leaf that no output will reuse.
 *
 * The prediction is XLA's OptimizeInputOutputBufferAlias (hlo-semantics.md
 * §7.3), implemented once in verifier/donormatch.c: only byte size and memory
 * space matter, largest first. Every donor left over is reported with the
 * reason and the outputs that were considered, plus how JAX's own pairing
 * (same dtype and shape, §7.5) would have gone. */
#include "donation.h"
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

/* Why no output reuses it, in a few words (donor_reason says it in full). */
static const char *short_reason(enum donor_outcome o)
{
	switch (o) {
	case DONOR_NO_OUTPUT_SIZE: return "no output has its size";
	case DONOR_MEMORY_SPACE: return "no output of its size is in its memory space";
	case DONOR_ALL_TAKEN: return "every output of its size is taken";
	case DONOR_DYNAMIC_LEAF: return "it is dynamically shaped";
	case DONOR_DYNAMIC_RESULT: return "the result is dynamically shaped";
	case DONOR_ALREADY_ALIASED: return "it is also an input_output_alias source";
	default: return "no output will reuse it";
	}
}

static void report(struct rule_ctx *ctx, const struct donor_matching *dm, int32_t i)
{
	const struct hlo_module *m = ctx->module;
	const struct donor_leaf *dn = &dm->donors[i];
	char pd[256], name[160], ss[160], key[160], reason[320];
	describe_param(pd, sizeof(pd), m, dn->param, &dn->index);
	param_short_name(name, sizeof(name), m, dn->param, &dn->index);
	shape_text(dn->shape, ss, sizeof(ss));
	shape_index_to_string(&dn->index, key, sizeof(key));
	donor_reason(dm, i, reason, sizeof(reason));
	const struct hlo_instruction *pi = m->entry && dn->param < m->entry->n_params
						   ? m->entry->params[dn->param] : NULL;
	char b[32];
	tl_format_bytes(dn->bytes, b, sizeof(b));
	int sized = dn->outcome == DONOR_NO_OUTPUT_SIZE || dn->outcome == DONOR_MEMORY_SPACE ||
		    dn->outcome == DONOR_ALL_TAKEN;
	struct finding *f = finding_add_at(ctx, pi, dn->donor->pos, key,
					   "donated %s (%s) is reused by no output: %s%s", name, b,
					   short_reason(dn->outcome),
					   sized ? "; return one of its shape or stop donating it" : "");
	finding_evidence(ctx->findings, f, "buffer_donor %s %s: %s", pd, ss, reason);
	finding_facts(f, (long long)dn->bytes, NULL, verdict_name(VERDICT_NOT_HONORED));
	/* candidates only when the walk looked at outputs for it */
	if (sized) {
		struct evidence_sink s = {ctx, f};
		donor_candidates(m, dm, i, MAX_CANDIDATES_SHOWN, add_line, &s);
		char jax[400];
		donor_jax_note(m, dm, i, jax, sizeof(jax));
		finding_evidence(ctx->findings, f, "%s", jax);
	}
}

/* The donation's reading is not-honored (donation.h), as `donation` says;
 * without donation reports (gate --no-deciders) the matching alone decides,
 * as it does for the reports. */
static int reads_not_honored(struct rule_ctx *ctx, const struct donor_leaf *dn)
{
	const struct donation_list *dl = rule_donations(ctx);
	for (int32_t i = 0; dl && i < dl->n; i++) {
		const struct donation_report *r = &dl->items[i];
		if (r->kind == DONATION_BUFFER_DONOR && r->param == dn->param &&
		    shape_index_equal(&r->param_index, &dn->index))
			return donation_reading(ctx->module, r) == READING_NOT_HONORED;
	}
	return 1;
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
			    dm.donors[i].outcome == DONOR_MATCHED || !reads_not_honored(ctx, &dm.donors[i]))
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
