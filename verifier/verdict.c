/* verdict.c - names of verdicts and copy families. */
#include "verdict.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_NONE: return 0;
	case VERDICT_REMOVABLE: return "removable";
	case VERDICT_NECESSARY: return "necessary";
	case VERDICT_SCHEDULE_DEPENDENT: return "schedule-dependent";
	case VERDICT_UNKNOWN: return "unknown";
	case VERDICT_SAFE: return "safe";
	case VERDICT_UNSAFE: return "unsafe";
	case VERDICT_NOT_HONORED: return "not-honored";
	}
	return "unknown";
}

const char *copy_family_name(enum copy_family f)
{
	static const char *const names[] = {
		"layout", "memory-space", "loop-carry", "branch",
		"in-place", "donation", "output", "unexplained", "no-op",
	};
	return (unsigned)f <= FAMILY_NO_OP ? names[f] : "unexplained";
}
