/* budget.c - wall-clock time budget (budget.h). */
#include "budget.h"
#include <errno.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void budget_init(struct budget *b, long long ms)
{
	if (ms < 0) {
		b->limited = 0;
		b->ms = -1;
		b->deadline_ns = 0;
		return;
	}
	if (ms > BUDGET_MAX_MS)
		ms = BUDGET_MAX_MS;
	b->limited = 1;
	b->ms = ms;
	b->deadline_ns = now_ns() + ms * 1000000LL;
}

int budget_parse_ms(const char *arg, long long *ms)
{
	if (!arg || *arg < '0' || *arg > '9')
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || *end || v < 0 || v > BUDGET_MAX_MS)
		return -1;
	*ms = v;
	return 0;
}

int budget_expired(const struct budget *b)
{
	if (!b || !b->limited)
		return 0;
	return b->ms == 0 || now_ns() >= b->deadline_ns;
}

long long budget_remaining_ms(const struct budget *b)
{
	if (!b || !b->limited)
		return -1;
	long long left = b->deadline_ns - now_ns();
	return left > 0 && b->ms > 0 ? left / 1000000LL : 0;
}

int budget_cap_ms(const struct budget *b, int timeout_ms)
{
	long long left = budget_remaining_ms(b);
	if (left < 0)
		return timeout_ms;
	if (left < 1)
		left = 1;
	return timeout_ms > 0 && timeout_ms < left ? timeout_ms : (int)(left > 0x7fffffff ? 0x7fffffff : left);
}
