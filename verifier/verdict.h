/* verdict.h - the verdict vocabulary of docs/hazards.md and ../shared/docs/verdicts.md. */
#ifndef HLOPROOF_VERDICT_H
#define HLOPROOF_VERDICT_H

enum verdict {
	VERDICT_NONE = 0,          /* no answer asked (given on an unscheduled module): JSON null */
	VERDICT_REMOVABLE,
	VERDICT_NECESSARY,
	VERDICT_SCHEDULE_DEPENDENT,
	VERDICT_UNKNOWN,
	VERDICT_SAFE,
	VERDICT_UNSAFE,
	VERDICT_NOT_HONORED,
};

enum copy_family {
	FAMILY_LAYOUT = 0,
	FAMILY_MEMORY_SPACE,
	FAMILY_LOOP_CARRY,
	FAMILY_BRANCH,
	FAMILY_IN_PLACE,
	FAMILY_DONATION,
	FAMILY_OUTPUT,
	FAMILY_UNEXPLAINED,
	/* removed by XLA's algebraic simplifier before copy insertion (stage.h) */
	FAMILY_NO_OP,
};

/* "removable", "loop-carry", ...; NULL for VERDICT_NONE. */
const char *verdict_name(enum verdict v);
const char *copy_family_name(enum copy_family f);

#endif
