/* session.c - one module's run (session.h): each stage built on first use,
 * once, and freed by the session that built it. */
#include "session.h"
#include "fix.h"
#include "repair.h"
#include "budget.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* A stage is not tried yet, built, or unavailable (with the reason). */
enum stage_state { NOT_TRIED = 0, BUILT, UNAVAILABLE };

struct session {
	struct hlo_module *m;
	const struct lint_config *cfg;
	struct session_options so;
	struct analysis_options aopt;   /* derived once, in session_open */
	struct diag ad;                 /* the analysis's errors */

	enum session_status why;        /* of the last getter that returned NULL */
	const char *why_msg;

	enum stage_state an_state, copies_state, hazards_state, donations_state, fix_state, joint_state;
	enum session_status an_why;     /* when an_state is UNAVAILABLE */
	struct analysis *an;
	struct copy_verdicts cv;        /* copies and hazards over `an` */
	struct donation_list dl;
	struct fix_result fix;          /* session_fix */
	struct copy_verdicts joint;     /* --jointly: cv with the joint copy verdicts */
	char dwhy[600];                 /* the unanalysed donations' reason */

	/* `buffers`: the stages on their own, without the deciders */
	enum stage_state df_state, ip_state, bufs_state, ord_state;
	struct dataflow *df;
	struct inplace *ip;
	struct buffers *bufs;
	struct ordering *ord;
};

void session_analysis_options(const struct lint_config *cfg, const struct session_options *so,
			      struct analysis_options *out)
{
	analysis_default_options(out);
	if (so && so->timeout_ms > 0)
		out->timeout_ms = (int)so->timeout_ms;
	else if (cfg && cfg->timeout_ms > 0)
		out->timeout_ms = (int)cfg->timeout_ms;
	if (!so)
		return;
	out->smt_dump_dir = so->smt_dump_dir;
	out->cross_check = so->cross_check;
	if (so->budget)
		out->budget = *so->budget; /* the same deadline: per copy verdict */
	out->witness_limit = so->witness_limit;
	out->stage = so->stage;
	out->no_repair_check = so->no_repair_check;
}

void session_options_for_rules(struct session_options *so)
{
	so->witness_limit = HAZARD_WITNESSES_SHOWN;
}

void session_options_from_parsed(struct session_options *so, const struct analysis_options *ao)
{
	so->timeout_ms = ao->timeout_ms;
	so->smt_dump_dir = ao->smt_dump_dir;
	so->cross_check = ao->cross_check;
	so->budget = &ao->budget;
	so->stage = ao->stage;
}

struct session *session_open(struct hlo_module *m, const struct lint_config *cfg,
			     const struct session_options *so)
{
	struct session *s = xcalloc(1, sizeof(*s));
	s->m = m;
	s->cfg = cfg;
	if (so)
		s->so = *so;
	session_analysis_options(cfg, so, &s->aopt);
	diag_init(&s->ad, s->so.errors);
	return s;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	/* the reports and the buffers stages are arena memory; the analysis
	 * holds the Z3 context and the caches */
	fix_result_free(&s->fix);
	analysis_free(s->an);
	free(s);
}

enum module_stage session_stage(const struct session *s, const char **why)
{
	/* as analysis_run resolves analysis_options.stage */
	if (s->so.stage == STAGE_AUTO)
		return module_stage_detect(s->m, why);
	if (why)
		*why = s->so.stage == STAGE_BEFORE ? "--stage=before" : "--stage=after";
	return s->so.stage;
}

struct hlo_module *session_module(const struct session *s)
{
	return s->m;
}

const struct lint_config *session_config(const struct session *s)
{
	return s->cfg;
}

const struct session_options *session_options(const struct session *s)
{
	return &s->so;
}

enum session_status session_why(const struct session *s, const char **message)
{
	if (message)
		*message = s->why_msg;
	return s->why;
}

static void *unavailable(struct session *s, enum session_status why, const char *msg)
{
	s->why = why;
	s->why_msg = msg;
	return NULL;
}

struct srcpos session_why_pos(const struct session *s)
{
	return s->ad.first_pos;
}

/* The analysis error's text, or NULL when analysis_run reported none. */
static const char *analysis_error(const struct session *s)
{
	return s->ad.errors ? s->ad.first : NULL;
}

struct analysis *session_analysis(struct session *s)
{
	if (s->an_state == NOT_TRIED) {
		s->an_state = UNAVAILABLE;
		if (s->so.no_analysis)
			s->an_why = SESSION_SKIPPED;
		else if (!(s->an = analysis_run(s->m, &s->aopt, &s->ad)))
			s->an_why = SESSION_UNSUPPORTED;
		else
			s->an_state = BUILT;
	}
	if (s->an_state == BUILT)
		return s->an;
	return unavailable(s, s->an_why,
			   s->an_why == SESSION_SKIPPED ? s->so.no_analysis : analysis_error(s));
}

struct analysis *session_analysis_built(const struct session *s)
{
	return s->an_state == BUILT ? s->an : NULL;
}

const struct copy_list *session_copies(struct session *s)
{
	if (s->copies_state == NOT_TRIED) {
		struct analysis *an = session_analysis(s);
		if (!an)
			return NULL;
		s->cv.an = an;
		s->cv.copies.n = copies_analyse(an, &s->cv.copies.items);
		s->copies_state = s->cv.copies.n < 0 ? UNAVAILABLE : BUILT;
	}
	if (s->copies_state == BUILT)
		return &s->cv.copies;
	if (!session_analysis(s))
		return NULL;
	return unavailable(s, SESSION_FAILED, "internal error in the copy decider");
}

const struct hazard_list *session_hazards(struct session *s)
{
	if (s->hazards_state == NOT_TRIED) {
		struct analysis *an = session_analysis(s);
		if (!an)
			return NULL;
		s->cv.an = an;
		s->cv.hazards.n = hazards_analyse(an, &s->cv.hazards.items);
		s->hazards_state = s->cv.hazards.n < 0 ? UNAVAILABLE : BUILT;
	}
	if (s->hazards_state == BUILT)
		return &s->cv.hazards;
	if (!session_analysis(s))
		return NULL;
	if (budget_expired(s->so.budget)) /* a decision cut short (hazard.c) */
		return unavailable(s, SESSION_TIME_BUDGET, BUDGET_EXHAUSTED_REASON);
	return unavailable(s, SESSION_FAILED, "internal error in the hazard decider");
}

const struct copy_verdicts *session_copy_verdicts(struct session *s)
{
	/* past the time budget nothing is decided: the caller lists the copies
	 * unknown and the rules report themselves not checked. Alone, the copy
	 * decider reports the copies it reaches late as unknown itself. */
	if (s->copies_state == NOT_TRIED && budget_expired(s->so.budget))
		return unavailable(s, SESSION_TIME_BUDGET, BUDGET_EXHAUSTED_REASON);
	if (!session_copies(s) || !session_hazards(s))
		return NULL;
	if (!s->so.jointly)
		return &s->cv;
	if (s->joint_state == NOT_TRIED) {
		struct fix_options fo = {0};
		fo.use_given = s->m->is_scheduled;
		fo.timeout_ms = s->aopt.timeout_ms;
		fo.budget = s->so.budget;
		const struct fix_result *fr = session_fix(s, &fo);
		s->joint_state = UNAVAILABLE;
		if (fr) {
			s->joint = s->cv;
			s->joint.copies.items = arena_array(&s->m->arena, (size_t)s->cv.copies.n + 1,
							    sizeof(struct copy_report));
			if (fix_joint_reports(s->an, fr, s->joint.copies.items) == 0)
				s->joint_state = BUILT;
		}
	}
	if (s->joint_state == BUILT)
		return &s->joint;
	return unavailable(s, SESSION_FAILED, s->fix.failure ? s->fix.failure
			   : "the joint removals could not be decided");
}

const struct fix_result *session_fix(struct session *s, const struct fix_options *o)
{
	if (s->fix_state == NOT_TRIED) {
		int jointly = s->so.jointly;
		s->so.jointly = 0; /* the copies' own verdicts */
		const struct copy_verdicts *cv = session_copy_verdicts(s);
		s->so.jointly = jointly;
		if (!cv)
			return NULL;
		s->fix_state = fix_run(s->an, &cv->copies, &cv->hazards, o, &s->fix) == 0 ? BUILT : UNAVAILABLE;
	}
	if (s->fix_state == BUILT)
		return &s->fix;
	return unavailable(s, SESSION_FAILED, "internal error in the fix search");
}

int session_copy_one(struct session *s, const struct hlo_instruction *copy, struct copy_report *out)
{
	struct analysis *an = session_analysis(s);
	return an ? copy_analyse_one(an, copy, out) : -1;
}

int session_hazard_repair_holds(struct session *s, const struct hazard_report *h)
{
	struct analysis *an = session_analysis(s);
	if (!an || !h->edge_from || !h->edge_to)
		return 0;
	return repair_avoids_value_hazards(an, 1, &h->edge_from, &h->edge_to, h, 1u << h->kind, 1) == 1;
}

int session_copy_site(struct session *s, const struct copy_site *site, struct copy_report *out)
{
	struct analysis *an = session_analysis(s);
	return an ? copy_analyse_site(an, site, out) : -1;
}

const struct donation_list *session_donations(struct session *s)
{
	struct hlo_module *m = s->m;
	if (!m->n_aliases && !m->n_donors)
		return unavailable(s, SESSION_OK, NULL);
	if (s->donations_state == NOT_TRIED) {
		/* past the time budget: no decider runs, the donations are unknown */
		int expired = budget_expired(s->so.budget);
		struct analysis *an = expired ? NULL : session_analysis(s);
		if (an) {
			s->dl.n = donations_analyse(an, &s->dl.items);
		} else {
			const char *why = expired ? BUDGET_EXHAUSTED_REASON
				: s->so.no_analysis ? s->so.no_analysis : analysis_error(s);
			if (s->so.donation_why_in_full && !expired && !s->so.no_analysis) {
				snprintf(s->dwhy, sizeof(s->dwhy), "the module could not be analysed: %s",
					 why ? why : "unsupported construct");
				why = s->dwhy;
			}
			s->dl.n = donations_unanalysed(m, why, &s->dl.items);
		}
		s->donations_state = s->dl.n < 0 ? UNAVAILABLE : BUILT;
	}
	if (s->donations_state == BUILT)
		return &s->dl;
	return unavailable(s, SESSION_FAILED, "internal error in the donation decider");
}

struct dataflow *session_dataflow(struct session *s, struct diag *d)
{
	if (s->df_state == NOT_TRIED) {
		s->df = dataflow_run(s->m, &s->m->arena, d);
		s->df_state = s->df ? BUILT : UNAVAILABLE;
	}
	if (s->df)
		return s->df;
	return unavailable(s, SESSION_UNSUPPORTED, NULL);
}

struct inplace *session_inplace(struct session *s, struct diag *d)
{
	if (s->ip_state == NOT_TRIED) {
		struct dataflow *df = session_dataflow(s, d);
		if (!df)
			return NULL;
		s->ip = inplace_build(df, &s->m->arena);
		s->ip_state = s->ip ? BUILT : UNAVAILABLE;
	}
	if (s->ip)
		return s->ip;
	return unavailable(s, SESSION_UNSUPPORTED, NULL);
}

struct buffers *session_buffers(struct session *s, struct diag *d)
{
	if (s->bufs_state == NOT_TRIED) {
		struct inplace *ip = session_inplace(s, d);
		if (!ip)
			return NULL;
		s->bufs = buffers_build(s->df, ip, &s->m->arena);
		s->bufs_state = s->bufs ? BUILT : UNAVAILABLE;
	}
	if (s->bufs)
		return s->bufs;
	return unavailable(s, SESSION_UNSUPPORTED, NULL);
}

struct ordering *session_ordering(struct session *s, enum order_kind kind, struct diag *d)
{
	if (s->ord_state == NOT_TRIED) {
		s->ord = ordering_build_ex(s->m, kind, &s->m->arena, NULL, d);
		s->ord_state = s->ord ? BUILT : UNAVAILABLE;
	}
	if (s->ord)
		return s->ord;
	return unavailable(s, SESSION_UNSUPPORTED, NULL);
}
