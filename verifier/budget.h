/* budget.h - a wall-clock time budget for one run (--time-budget-ms).
 *
 * A command creates one budget from its option and passes it down,
 * explicitly, to every stage that decides something. A stage checks
 * budget_expired() before each unit of work (a file, a module, a verdict);
 * once it has expired, every verdict not yet decided is reported as
 * `unknown` with the reason BUDGET_EXHAUSTED_REASON: never dropped, never
 * guessed. A unit already started runs to its end, so the budget can be
 * overrun by at most one unit (one parse, one SMT query: cap a solver
 * timeout with budget_cap_ms()). No globals: one budget per run, read-only
 * after creation, so threads may share it. */
#ifndef HLOPROOF_BUDGET_H
#define HLOPROOF_BUDGET_H

#define BUDGET_EXHAUSTED_REASON "time budget exhausted"
#define BUDGET_MAX_MS (7LL * 24 * 3600 * 1000) /* a week: larger values are refused */

/* A zeroed struct budget is unlimited, so options structs that embed one
 * (analysis_options) are safe to memset. Copies share the deadline. */
struct budget {
	int limited;            /* 0: unlimited */
	long long deadline_ns;  /* CLOCK_MONOTONIC, when limited */
	long long ms;           /* as given, when limited */
};

/* ms < 0: unlimited. ms == 0: already expired (report only what needs no analysis). */
void budget_init(struct budget *b, long long ms);
/* The --time-budget-ms argument: a decimal number of milliseconds in
 * [0, BUDGET_MAX_MS]. Returns 0, or -1 when the text is not one. */
int budget_parse_ms(const char *arg, long long *ms);
/* 1 once the deadline has passed (never for an unlimited budget; NULL is unlimited). */
int budget_expired(const struct budget *b);
/* Milliseconds left, at least 0; -1 when unlimited. */
long long budget_remaining_ms(const struct budget *b);
/* A per-query timeout capped to what is left: min(timeout_ms, remaining),
 * at least 1 so a solver never reads 0 as "no timeout". */
int budget_cap_ms(const struct budget *b, int timeout_ms);

#endif
