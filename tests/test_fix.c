/* test_fix.c - `hloproof fix` (verifier/fix.h) against the brute-force
 * joint oracle (tests/oracle_joint.h) on generated modules and the
 * hand-written conflicts of corpus/fix/:
 * - every choice fix makes is safe by the oracle: its own rewritten module
 *   (removals and edges as printed) and the oracle's rewrite of the same
 *   set have no hazard the module as given does not have;
 * - when fix says optimal, no set of its candidates (with their edges) that
 *   the oracle finds safe saves more; whatever it says, none saves less
 *   than its choice claims;
 * - the assumption the optimality claim rests on (docs/fix.md: removing
 *   more copies never removes a hazard that fewer removals introduce) is
 *   counted on every module: its violations are printed, and a violation
 *   under a claim of optimality that is wrong fails the test above.
 * Given schedule on scheduled modules (a copy may go with the control edges
 * of its schedule-dependent verdict, the printed schedule then changed by
 * the fewest moves: the oracle judges the new printed schedule, and the
 * moves are checked to be the fewest by brute force); every schedule on
 * modules the oracle finds hazard-free (the oracle compares per schedule
 * only there). The modules are read as after copy insertion (--stage=after:
 * the copies are the compiled program's); before optimization, no copy of
 * family no-op is a candidate and none counts as saved. */
#include "testutil.h"
#include "analysis.h"
#include "copies.h"
#include "fix.h"
#include "gen_small.h"
#include "hazard.h"
#include "oracle_joint.h"
#include "reorder.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX_SEEDS 400
#define MAX_CANDIDATES 6

/* HLOPROOF_FIX_SEEDS=N: more seeds (a longer run by hand);
 * HLOPROOF_FIX_FIRST=S: from seed S */
static uint64_t seeds(void)
{
	const char *e = getenv("HLOPROOF_FIX_SEEDS");
	long long n = e ? atoll(e) : 0;
	return n > 0 ? (uint64_t)n : FIX_SEEDS;
}

static uint64_t first_seed(void)
{
	const char *e = getenv("HLOPROOF_FIX_FIRST");
	long long n = e ? atoll(e) : 0;
	return n > 0 ? (uint64_t)n : 1;
}

struct fix_stats {
	int modules, questions, joint, skipped_many, skipped_oracle, skipped_hazard;
	int removed, conflicts, optimal, not_optimal, sets, monotone_violations;
	/* given: candidates with control edges, removed with them, moves */
	int given_edge_candidates, given_edge_removals, moved, moves_checked, moves_skipped;
	int failures;
};

/* The instructions of computation wk moved from their order in mk (by
 * name; w's instructions are m's less the removed ones): that count must be
 * the fewest any order respecting wk's edges moves. Brute force over the
 * instructions in conflict (x before y in mk, y reaching x in wk). Returns
 * 1 when checked and right, 0 when wrong (why), -1 when too large. */
static int moves_fewest(const struct hlo_computation *mk, const struct hlo_computation *wk, char *why, size_t cap)
{
	int32_t n = wk->n_instrs;
	if (n > 64)
		return -1;
	int32_t pos[64];
	uint64_t pred[64] = {0}, reach[64] = {0};
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *x = hlo_find_instruction(mk, wk->instrs[i]->name);
		if (!x)
			return -1;
		pos[i] = x->index;
		wk->instrs[i]->index = i;
	}
	for (int32_t i = 0; i < n; i++) {
		const struct hlo_instruction *x = wk->instrs[i];
		for (int32_t j = 0; j < x->n_operands; j++)
			if (x->operands[j]->parent == wk)
				pred[i] |= 1ull << x->operands[j]->index;
		for (int32_t j = 0; j < x->ext->n_ctrl_preds; j++)
			pred[i] |= 1ull << x->ext->ctrl_preds[j]->index;
		if (pred[i] >> i) {
			snprintf(why, cap, "%s runs before one of its operands or control predecessors", x->name);
			return 0;
		}
	}
	/* reach[y]: what y reaches (the order is topological: later first) */
	for (int32_t y = n - 1; y >= 0; y--)
		for (int32_t x = y + 1; x < n; x++)
			if (pred[x] >> y & 1)
				reach[y] |= 1ull << x | reach[x];
	/* conflicts by printed position in mk: x printed before y, y reaches x */
	int32_t node[64], np = 0;
	uint64_t conf[64] = {0};
	for (int32_t a = 0; a < n; a++)
		for (int32_t b = 0; b < n; b++)
			if (pos[a] < pos[b] && (reach[b] >> a & 1)) {
				conf[a] |= 1ull << b;
				conf[b] |= 1ull << a;
			}
	for (int32_t a = 0; a < n; a++)
		if (conf[a])
			node[np++] = a;
	if (np > 20)
		return -1;
	int32_t best = 0;
	for (uint32_t mask = 0; mask < (1u << np); mask++) {
		uint64_t set = 0;
		int32_t k = 0;
		for (int32_t q = 0; q < np; q++)
			if (mask >> q & 1) {
				set |= 1ull << node[q];
				k++;
			}
		int ok = k > best;
		for (int32_t q = 0; q < np && ok; q++)
			if ((mask >> q & 1) && (conf[node[q]] & set))
				ok = 0;
		if (ok)
			best = k;
	}
	int32_t moved = reorder_moved(n, pos, NULL);
	if (moved != np - best) {
		snprintf(why, cap, "%s: %d instructions moved, the fewest is %d", wk->name, moved, np - best);
		return 0;
	}
	return 1;
}

/* One module, one schedule mode: fix against the exhaustive answer. */
static void check_mode(const char *label, struct hlo_module *m, struct oracle *o,
		       const struct oracle_module_result *r, struct analysis *an,
		       const struct copy_list *cl, const struct hazard_list *hl, int use_given,
		       struct fix_stats *st)
{
	struct fix_options fo = {0};
	fo.use_given = use_given;
	struct fix_result fr;
	if (fix_run(an, cl, hl, &fo, &fr) < 0 || fr.failed) {
		printf("%s (%s): fix failed: %s\n", label, use_given ? "given" : "any",
		       fr.failure ? fr.failure : "internal error");
		st->failures++;
		fix_result_free(&fr);
		return;
	}
	/* the candidates, as the oracle reads them */
	struct oj_copy c[MAX_CANDIDATES];
	int32_t map[MAX_CANDIDATES], n = 0;
	uint32_t chosen = 0;
	for (int32_t i = 0; i < fr.n_copies; i++) {
		const struct fix_copy *fc = &fr.copies[i];
		if (!fc->candidate)
			continue;
		if (n == MAX_CANDIDATES) {
			st->skipped_many++;
			fix_result_free(&fr);
			return;
		}
		const struct copy_report *cr = fc->r;
		struct oj_copy *x = &c[n];
		memset(x, 0, sizeof(*x));
		x->comp = cr->copy->parent->name;
		x->name = cr->site.at->name;
		x->output = cr->site.kind == COPY_KIND_FUSED ? cr->site.output : -1;
		x->source = cr->site.at->operands[cr->site.operand]->name;
		x->weight = fc->weight;
		if (fc->edges) {
			int32_t ne = cr->n_edges > 0 ? cr->n_edges : 1;
			const char **f = calloc((size_t)ne, sizeof(char *)), **t = calloc((size_t)ne, sizeof(char *));
			const char **k = calloc((size_t)ne, sizeof(char *));
			for (int32_t e = 0; e < ne; e++) {
				const struct hlo_instruction *a = cr->n_edges > 0 ? cr->edges_from[e] : cr->edge_from;
				f[e] = a->name;
				t[e] = cr->n_edges > 0 ? cr->edges_to[e]->name : cr->edge_to->name;
				k[e] = a->parent->name;
			}
			x->n_edges = ne;
			x->from = f;
			x->to = t;
			x->ecomp = k;
		}
		if (fc->kept == FIX_REMOVED)
			chosen |= 1u << n;
		if (use_given && fc->edges) {
			st->given_edge_candidates++;
			st->given_edge_removals += fc->kept == FIX_REMOVED;
		}
		map[n++] = i;
	}
	(void)map;
	struct oracle_limits lim;
	oracle_default_limits(&lim);
	struct oj_question q = {m, o, r, use_given, &lim, n, c};
	int feasible[1 << MAX_CANDIDATES];
	uint64_t best = 0;
	char why[600];
	int over = 0;
	for (uint32_t s = 0; s < (1u << n) && !over; s++) {
		feasible[s] = s == 0 ? 1 : oracle_joint_set(&q, s, why, sizeof(why));
		if (feasible[s] < 0)
			over = 1;
		uint64_t w = 0;
		for (int32_t i = 0; i < n; i++)
			if (s >> i & 1)
				w += c[i].weight;
		if (feasible[s] == 1 && w > best)
			best = w;
	}
	if (over) {
		st->skipped_oracle++;
		goto out;
	}
	st->questions++;
	st->joint += n >= 2;
	st->sets += 1 << n;
	/* the assumption: a set that fails makes every larger set fail */
	for (uint32_t s = 0; s < (1u << n); s++)
		for (int32_t i = 0; i < n; i++)
			if (!(s >> i & 1) && !feasible[s] && feasible[s | 1u << i] == 1) {
				st->monotone_violations++;
				if (getenv("FIX_SHOW_VIOLATIONS")) {
					oracle_joint_set(&q, s, why, sizeof(why));
					printf("%s (%s): set %x fails (%s), adding %s passes\n", label,
					       use_given ? "given" : "any", s, why, c[i].name);
				}
			}
	st->removed += fr.n_removed;
	st->conflicts += fr.conflicts;
	if (fr.optimal)
		st->optimal++;
	else
		st->not_optimal++;
	/* fix's choice: safe by the oracle's rewrite and as fix printed it */
	if (feasible[chosen] != 1) {
		oracle_joint_set(&q, chosen, why, sizeof(why));
		printf("%s (%s): fix removes a set the oracle refuses: %s\n", label, use_given ? "given" : "any", why);
		st->failures++;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	hlo_print_module(f, fr.fixed);
	fclose(f);
	int ok = oracle_joint_text(&q, text, chosen, why, sizeof(why));
	if (ok == 0) {
		printf("%s (%s): fix's output has a new hazard by the oracle: %s\n%s\n", label,
		       use_given ? "given" : "any", why, text);
		st->failures++;
	}
	free(text);
	/* the moves: the fewest the edges allow, in every computation */
	for (int32_t k = 0; k < fr.fixed->n_comps && fr.n_edges > 0; k++) {
		const struct hlo_computation *mk = hlo_find_computation(m, fr.fixed->comps[k]->name);
		if (!mk)
			continue;
		int r2 = moves_fewest(mk, fr.fixed->comps[k], why, sizeof(why));
		if (r2 < 0)
			st->moves_skipped++;
		else
			st->moves_checked++;
		if (r2 == 0) {
			printf("%s (%s): fix's order is not the fewest moves: %s\n", label, use_given ? "given" : "any", why);
			st->failures++;
		}
	}
	st->moved += fr.n_moved;
	if (fr.saved > best || (fr.optimal && fr.saved != best)) {
		printf("%s (%s): fix saves %llu (%s), the oracle's best is %llu\n", label,
		       use_given ? "given" : "any", (unsigned long long)fr.saved,
		       fr.optimal ? "optimal" : "not optimal", (unsigned long long)best);
		if (getenv("FIX_SHOW_FAILURES")) {
			hlo_print_module(stdout, m);
			for (int32_t i = 0; i < fr.n_copies; i++)
				printf("  %s: candidate %d kept %d why %s\n", fr.copies[i].r->copy->name,
				       fr.copies[i].candidate, (int)fr.copies[i].kept,
				       fr.copies[i].why ? fr.copies[i].why : "-");
		}
		st->failures++;
	}
	if (fr.bound < best) {
		printf("%s (%s): fix's bound %llu is below the oracle's best %llu\n", label,
		       use_given ? "given" : "any", (unsigned long long)fr.bound, (unsigned long long)best);
		st->failures++;
	}
out:
	for (int32_t i = 0; i < n; i++) {
		free((void *)c[i].from);
		free((void *)c[i].to);
		free((void *)c[i].ecomp);
	}
	fix_result_free(&fr);
}

static void check_text(const char *label, const char *text, struct fix_stats *st)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse(label, text, strlen(text), &d);
	assert_non_null(m);
	struct oracle_limits lim;
	oracle_default_limits(&lim);
	char why[256];
	struct oracle *o = oracle_new(m, &lim, why, sizeof(why));
	struct oracle_module_result r;
	memset(&r, 0, sizeof(r));
	if (o)
		oracle_module(o, &r);
	if (!o || r.status != ORACLE_OK) {
		st->skipped_oracle++;
		goto out_oracle;
	}
	st->modules++;
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.no_repair_check = 1; /* as hloproof fix runs them (cmd_fix.c) */
	opt.stage = STAGE_AFTER; /* the copies are the program's (XLA's tests: after copy insertion) */
	struct analysis *an = analysis_run(m, &opt, &d);
	assert_non_null(an);
	struct copy_list cl;
	struct hazard_list hl;
	cl.n = copies_analyse(an, &cl.items);
	hl.n = hazards_analyse(an, &hl.items);
	assert_true(cl.n >= 0 && hl.n >= 0);
	if (m->is_scheduled)
		check_mode(label, m, o, &r, an, &cl, &hl, 1, st);
	if (!r.module.some)
		check_mode(label, m, o, &r, an, &cl, &hl, 0, st);
	else if (!m->is_scheduled)
		st->skipped_hazard++;
	analysis_free(an);
out_oracle:
	oracle_module_result_free(&r);
	oracle_free(o);
	hlo_module_free(m);
}

static void report(const char *what, const struct fix_stats *st)
{
	printf("fix vs joint oracle, %s: %d modules, %d questions (%d with two candidates or more; "
	       "%d copies removed, %d conflicts learned; "
	       "%d optimal, %d not claimed optimal); %d sets judged; %d violations of the monotonicity "
	       "assumption; given schedule: %d candidates with control edges, %d removed with them, %d "
	       "instructions moved, %d orders checked fewest (%d too large); skipped: %d over %d candidates, "
	       "%d over the oracle's limits, %d unscheduled with a hazard already; %d failures\n",
	       what, st->modules, st->questions, st->joint, st->removed, st->conflicts, st->optimal, st->not_optimal,
	       st->sets, st->monotone_violations, st->given_edge_candidates, st->given_edge_removals, st->moved,
	       st->moves_checked, st->moves_skipped, st->skipped_many, MAX_CANDIDATES, st->skipped_oracle,
	       st->skipped_hazard, st->failures);
}

static int name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-';
}

/* The module with copies added: up to three entry values get a copy
 * printed right after them (so a printed schedule stays one), and each
 * later line reading such a value reads its copy instead with probability
 * one half. More copies of one value than the generator makes: the joint
 * question. NULL when nothing was added. */
static char *with_copies(const char *text, uint64_t seed)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("gen", text, strlen(text), &d);
	if (!m || !m->entry)
		return NULL;
	const char *pick[3];
	char shape[3][128];
	int np = 0;
	uint64_t r = seed * 6364136223846793005ull + 1442695040888963407ull;
	for (int32_t i = 0; i < m->entry->n_instrs && np < 3; i++) {
		const struct hlo_instruction *x = m->entry->instrs[i];
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		if (!x->shape || !shape_is_array(x->shape) || x->n_users == 0 || (r >> 33) % 3)
			continue;
		pick[np] = x->name;
		shape_to_string(x->shape, shape[np], sizeof(shape[np]));
		np++;
	}
	char *printed = NULL, *out = NULL;
	size_t plen = 0, olen = 0;
	FILE *f = open_memstream(&printed, &plen);
	hlo_print_module(f, m);
	fclose(f);
	f = open_memstream(&out, &olen);
	int in_entry = 0, added = 0;
	for (char *line = printed; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (!strncmp(line, "ENTRY", 5))
			in_entry = 1;
		else if (n > 0 && line[0] == '}')
			in_entry = 0;
		/* rename reads of the picked values, half the time */
		char *eq = in_entry ? memchr(line, '=', n) : NULL;
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		int swap = eq && (r >> 35) % 2;
		for (size_t i = 0; i < n; i++) {
			int done = 0;
			if (swap && line + i > eq && line[i] == '%')
				for (int k = 0; k < np && !done; k++) {
					size_t l = strlen(pick[k]);
					if (i + 1 + l <= n && !strncmp(line + i + 1, pick[k], l) &&
					    !name_char((unsigned char)line[i + 1 + l])) {
						fprintf(f, "%%jc.%d", k);
						i += l;
						done = 1;
					}
				}
			if (!done)
				fputc(line[i], f);
		}
		fputc('\n', f);
		for (int k = 0; in_entry && k < np; k++) {
			size_t l = strlen(pick[k]);
			const char *s = line;
			while (*s == ' ')
				s++;
			if (!strncmp(s, "ROOT ", 5))
				s += 5;
			if (*s == '%' && !strncmp(s + 1, pick[k], l) && s[1 + l] == ' ') {
				fprintf(f, "  %%jc.%d = %s copy(%%%s)\n", k, shape[k], pick[k]);
				added++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	fclose(f);
	free(printed);
	hlo_module_free(m);
	if (!added) {
		free(out);
		return NULL;
	}
	return out;
}

static void test_fix_more_copies(void **state)
{
	(void)state;
	struct fix_stats st;
	memset(&st, 0, sizeof(st));
	int made = 0;
	for (uint64_t s = first_seed(); s < first_seed() + seeds(); s++) {
		char label[64];
		snprintf(label, sizeof(label), "seed %llu with copies", (unsigned long long)s);
		char *text = gen_small(s, 300, NULL);
		char *more = text ? with_copies(text, s) : NULL;
		free(text);
		if (!more)
			continue;
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse(label, more, strlen(more), &d);
		if (m) {
			made++;
			hlo_module_free(m);
			check_text(label, more, &st);
		}
		free(more);
	}
	report("generated with copies added", &st);
	assert_int_equal(st.failures, 0);
	assert_true(made > (int)seeds() / 4);
	assert_true(st.joint > (int)seeds() / 8);
}

static void test_fix_generated(void **state)
{
	(void)state;
	struct fix_stats st;
	memset(&st, 0, sizeof(st));
	for (uint64_t s = first_seed(); s < first_seed() + seeds(); s++) {
		char label[64];
		snprintf(label, sizeof(label), "seed %llu", (unsigned long long)s);
		char *text = gen_small(s, 300, NULL);
		assert_non_null(text);
		check_text(label, text, &st);
		free(text);
	}
	report("generated", &st);
	assert_int_equal(st.failures, 0);
	/* the test must see questions, conflicts and removals to mean anything */
	assert_true(st.questions > (int)seeds() / 3);
	assert_true(st.removed > 0);
}

/* The module scheduled in a random order: every non-fusion computation's
 * instructions in a random topological order (operands and control
 * predecessors first, the root last), is_scheduled=true. Reads then often
 * come after the in-place updates their copies protect: copies necessary
 * in the printed schedule that a control edge, with moves, lets go. NULL
 * when the text does not parse. */
static char *rescheduled(const char *text, uint64_t seed)
{
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("gen", text, strlen(text), &d);
	if (!m)
		return NULL;
	uint64_t r = seed * 2862933555777941757ull + 3037000493ull;
	for (int32_t c = 0; c < m->n_comps; c++) {
		struct hlo_computation *k = m->comps[c];
		int32_t n = k->n_instrs;
		if (n > 256)
			continue;
		uint8_t done[256] = {0};
		struct hlo_instruction *out[256];
		for (int32_t i = 0; i < n; i++)
			k->instrs[i]->index = i;
		for (int32_t m2 = 0; m2 < n; m2++) {
			/* the ready instructions (the root only last); pick one */
			int32_t ready[256], nr = 0;
			for (int32_t i = 0; i < n; i++) {
				const struct hlo_instruction *x = k->instrs[i];
				if (done[i] || (x == k->root && m2 < n - 1))
					continue;
				int ok = 1;
				for (int32_t j = 0; j < x->n_operands && ok; j++)
					ok = x->operands[j]->parent != k || done[x->operands[j]->index];
				for (int32_t j = 0; j < x->ext->n_ctrl_preds && ok; j++)
					ok = done[x->ext->ctrl_preds[j]->index];
				if (ok)
					ready[nr++] = i;
			}
			if (!nr) {
				hlo_module_free(m);
				return NULL;
			}
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			int32_t pick = ready[(r >> 33) % (uint64_t)nr];
			done[pick] = 1;
			out[m2] = k->instrs[pick];
		}
		memcpy(k->instrs, out, (size_t)n * sizeof(*out));
		for (int32_t i = 0; i < n; i++)
			k->instrs[i]->index = i;
	}
	m->is_scheduled = 1;
	char *printed = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&printed, &len);
	hlo_print_module(f, m);
	fclose(f);
	hlo_module_free(m);
	struct hlo_module *back = hlo_parse("gen", printed, len, &d);
	if (!back) {
		free(printed);
		return NULL;
	}
	hlo_module_free(back);
	return printed;
}

/* reorder_min_moves on random graphs (forward edges in printed order, a
 * few backward ones): a valid order, and as few moves as the brute force
 * over every set of nodes that could keep its place; a cycle is -1. */
static void test_reorder_min_moves(void **state)
{
	(void)state;
	uint64_t r = 12345;
	int checked = 0, moved_some = 0, beat_kahn = 0;
	for (int round = 0; round < 3000; round++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		int32_t n = 1 + (int32_t)((r >> 33) % 16), ne = 0;
		int32_t from[160], to[160];
		for (int32_t a = 0; a < n; a++)
			for (int32_t b = a + 1; b < n; b++) {
				r = r * 6364136223846793005ull + 1442695040888963407ull;
				if ((r >> 33) % 5 == 0 && ne < 150) {
					from[ne] = a;
					to[ne++] = b;
				}
			}
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		for (int k = (int)((r >> 33) % 4); k > 0 && n > 1; k--) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			int32_t a = (int32_t)((r >> 33) % (uint64_t)n), b = (int32_t)((r >> 13) % (uint64_t)n);
			if (a != b) {
				from[ne] = a > b ? a : b;
				to[ne++] = a > b ? b : a;
			}
		}
		/* reachability by brute force (n <= 16): closure */
		uint32_t reach[16] = {0};
		for (int32_t e = 0; e < ne; e++)
			reach[from[e]] |= 1u << to[e];
		for (int it = 0; it < 16; it++)
			for (int32_t a = 0; a < n; a++)
				for (int32_t b = 0; b < n; b++)
					if (reach[a] >> b & 1)
						reach[a] |= reach[b];
		int cyclic = 0;
		for (int32_t a = 0; a < n; a++)
			cyclic |= (int)(reach[a] >> a & 1);
		int32_t order[16], moved = -1;
		int minimal = 0;
		int rc = reorder_min_moves(n, ne, from, to, order, &moved, &minimal);
		if (cyclic) {
			assert_int_equal(rc, -1);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(minimal);
		int32_t at[16];
		uint32_t seen = 0;
		for (int32_t i = 0; i < n; i++) {
			assert_true(order[i] >= 0 && order[i] < n && !(seen >> order[i] & 1));
			seen |= 1u << order[i];
			at[order[i]] = i;
		}
		for (int32_t e = 0; e < ne; e++)
			assert_true(at[from[e]] < at[to[e]]);
		/* the most nodes that keep their place: no x < y with y reaching x */
		int32_t best = 0;
		for (uint32_t mask = 0; mask < (1u << n); mask++) {
			int32_t k = __builtin_popcount(mask), ok = k > best;
			for (int32_t y = 0; y < n && ok; y++)
				if (mask >> y & 1)
					ok = !(reach[y] & mask & ((1u << y) - 1));
			if (ok)
				best = k;
		}
		assert_int_equal(moved, n - best);
		assert_int_equal(reorder_moved(n, order, NULL), n - best);
		/* Kahn's earliest-first order, for the record: never fewer */
		int32_t kahn[16], nk = 0;
		uint32_t done = 0;
		while (nk < n)
			for (int32_t x = 0; x < n; x++) {
				if (done >> x & 1)
					continue;
				int ready = 1;
				for (int32_t e = 0; e < ne && ready; e++)
					ready = to[e] != x || (done >> from[e] & 1);
				if (ready) {
					kahn[nk++] = x;
					done |= 1u << x;
					break;
				}
			}
		int32_t km = reorder_moved(n, kahn, NULL);
		assert_true(km >= moved);
		beat_kahn += km > moved;
		moved_some += moved > 0;
		checked++;
	}
	printf("reorder: %d acyclic graphs, %d with moves, %d where Kahn's earliest-first order moves more\n",
	       checked, moved_some, beat_kahn);
	assert_true(checked > 1000 && moved_some > 100 && beat_kahn > 0);
	/* past REORDER_MAX_BITS: a valid order, not claimed minimal (node 0
	 * reaches 9,000 nodes, the last one is ordered before it) */
	int32_t n = 9002, ne = 0;
	int32_t *f = malloc((size_t)n * sizeof(int32_t)), *t = malloc((size_t)n * sizeof(int32_t));
	int32_t *order = malloc((size_t)n * sizeof(int32_t)), moved = -1;
	for (int32_t i = 1; i < n - 1; i++) {
		f[ne] = 0;
		t[ne++] = i;
	}
	f[ne] = n - 1;
	t[ne++] = 0;
	int minimal = 1;
	assert_int_equal(reorder_min_moves(n, ne, f, t, order, &moved, &minimal), 0);
	assert_false(minimal);
	assert_int_equal(order[0], n - 1);
	assert_int_equal(order[1], 0);
	assert_int_equal(moved, 1);
	free(f);
	free(t);
	free(order);
}

/* Scheduled in random orders, with copies added: the given schedule with
 * control edges and moves, against the oracle. */
static void test_fix_rescheduled(void **state)
{
	(void)state;
	struct fix_stats st;
	memset(&st, 0, sizeof(st));
	for (uint64_t s = first_seed(); s < first_seed() + seeds(); s++) {
		char label[64];
		snprintf(label, sizeof(label), "seed %llu rescheduled", (unsigned long long)s);
		char *text = gen_small(s, 300, NULL);
		char *more = text ? with_copies(text, s) : NULL;
		char *sched = rescheduled(more ? more : text, s);
		free(text);
		free(more);
		if (!sched)
			continue;
		check_text(label, sched, &st);
		free(sched);
	}
	report("generated, copies added, scheduled in random orders", &st);
	assert_int_equal(st.failures, 0);
	/* the given schedule's edges and moves must be exercised */
	assert_true(st.given_edge_removals > (int)seeds() / 40);
	assert_true(st.moved > 0 && st.moves_checked > 0);
}

static void test_fix_corpus(void **state)
{
	(void)state;
	struct fix_stats st;
	memset(&st, 0, sizeof(st));
	char **files = list_files("corpus/fix", ".hlo");
	assert_non_null(files);
	int n = 0;
	for (char **f = files; *f; f++, n++) {
		char *text = read_file(*f, NULL);
		assert_non_null(text);
		check_text(*f, text, &st);
		free(text);
	}
	free_list(files);
	report("corpus/fix", &st);
	assert_int_equal(st.failures, 0);
	assert_true(n >= 4);
	assert_true(st.conflicts >= 2); /* the hand-written conflicts are found */
	assert_true(st.given_edge_removals >= 1 && st.moved >= 1); /* edge_given.hlo */
}

/* The search stopped after one verification (the first choice, both
 * copies, fails): the greedy choice, verified, not claimed optimal, with a
 * bound no smaller than what it saves. */
static void test_fix_greedy_fallback(void **state)
{
	(void)state;
	char *text = read_file("corpus/fix/conflict_any.hlo", NULL);
	assert_non_null(text);
	struct hlo_module *m = parse_text(text);
	struct analysis_options opt;
	analysis_default_options(&opt);
	opt.no_repair_check = 1;
	opt.stage = STAGE_AFTER;
	struct diag d;
	diag_init(&d, NULL);
	struct analysis *an = analysis_run(m, &opt, &d);
	assert_non_null(an);
	struct copy_list cl;
	struct hazard_list hl;
	cl.n = copies_analyse(an, &cl.items);
	hl.n = hazards_analyse(an, &hl.items);
	struct fix_options fo = {0};
	fo.max_rounds = 1;
	struct fix_result fr;
	assert_int_equal(fix_run(an, &cl, &hl, &fo, &fr), 0);
	assert_false(fr.failed);
	assert_false(fr.optimal);
	assert_non_null(fr.not_optimal);
	assert_non_null(strstr(fr.not_optimal, "limit of verifications"));
	assert_int_equal(fr.n_removed, 1);
	assert_true(fr.bound >= fr.saved);
	int untried_or_conflict = 0;
	for (int32_t i = 0; i < fr.n_copies; i++)
		untried_or_conflict += fr.copies[i].kept == FIX_KEPT_CONFLICT || fr.copies[i].kept == FIX_KEPT_UNTRIED;
	assert_int_equal(untried_or_conflict, 1);
	fix_result_free(&fr);
	analysis_free(an);
	hlo_module_free(m);
	free(text);
}

/* Before optimization the copies of conflict_any.hlo are no-op copies
 * (XLA's simplifier removes them): none is a candidate, none counts as
 * saved; read as after copy insertion, one of them goes. */
static void test_fix_noop_not_counted(void **state)
{
	(void)state;
	char *text = read_file("corpus/fix/conflict_any.hlo", NULL);
	assert_non_null(text);
	for (int after = 0; after < 2; after++) {
		struct hlo_module *m = parse_text(text);
		struct analysis_options opt;
		analysis_default_options(&opt);
		opt.no_repair_check = 1;
		opt.stage = after ? STAGE_AFTER : STAGE_AUTO;
		struct diag d;
		diag_init(&d, NULL);
		struct analysis *an = analysis_run(m, &opt, &d);
		assert_non_null(an);
		assert_int_equal(an->stage, after ? STAGE_AFTER : STAGE_BEFORE);
		struct copy_list cl;
		struct hazard_list hl;
		cl.n = copies_analyse(an, &cl.items);
		hl.n = hazards_analyse(an, &hl.items);
		assert_int_equal(cl.n, 2);
		struct fix_options fo = {0};
		struct fix_result fr;
		assert_int_equal(fix_run(an, &cl, &hl, &fo, &fr), 0);
		assert_false(fr.failed);
		assert_true(fr.optimal);
		if (after) {
			assert_int_equal(fr.n_noop, 0);
			assert_int_equal(fr.n_removed, 1);
			assert_int_equal(fr.saved_bytes, 32);
		} else {
			assert_int_equal(fr.n_noop, 2);
			assert_int_equal(fr.noop_bytes, 64);
			assert_int_equal(fr.n_removed, 0);
			assert_int_equal(fr.saved_bytes, 0);
			for (int32_t i = 0; i < fr.n_copies; i++) {
				assert_false(fr.copies[i].candidate);
				assert_int_equal(fr.copies[i].kept, FIX_KEPT_NOOP);
			}
		}
		fix_result_free(&fr);
		analysis_free(an);
		hlo_module_free(m);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reorder_min_moves),
		cmocka_unit_test(test_fix_corpus),
		cmocka_unit_test(test_fix_greedy_fallback),
		cmocka_unit_test(test_fix_noop_not_counted),
		cmocka_unit_test(test_fix_generated),
		cmocka_unit_test(test_fix_more_copies),
		cmocka_unit_test(test_fix_rescheduled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
