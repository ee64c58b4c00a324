/* cmd_help.c - `hloproof COMMAND --help`: one sentence per option of each
 * command (the usage in main.c lists them; tests/cli.sh checks that every
 * option of a usage has its sentence here). */
#include "cli.h"
#include <string.h>

struct option_help {
	const char *command, *text;
};

/* Options shared by several commands, said once. */
#define H_FORMAT_TJ "  --format=text|json   text for people (default) or JSON for programs (docs/json.md).\n"
#define H_OUTPUT "  -o FILE, --output FILE  write the report to FILE (atomically) instead of standard output.\n"
#define H_TIMEOUT "  --timeout-ms N       give each solver query at most N ms; a query that runs out is unknown.\n"
#define H_BUDGET "  --time-budget-ms N   stop deciding after N ms of the whole run; what is left is reported unknown.\n"
#define H_SMT "  --smt-dump DIR       write every solver query as an SMT-LIB file into DIR.\n"
#define H_CROSS "  --cross-check        ask Z3 what the graph decider answered too; exit 3 when they disagree.\n"
#define H_ANNOT "  --annotations FILE.xml  check the module against the donation expectations of FILE (docs/annotations.md).\n"
#define H_COLOR "  --color=auto|always|never  colour the text (auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it).\n"
#define H_CONFIG "  --config FILE        read the configuration from FILE instead of the nearest .hloproof.xml (docs/config.md).\n"
#define H_JOBS "  --jobs N, -j N       check N modules at once (0: one per CPU).\n"
#define H_STAGE "  --stage=before|after|auto  read the module as dumped before or after optimization (auto: from the module, docs/pipeline.md).\n"
#define H_JOINTLY "  --jointly            each copy's verdict given the other removals that hloproof fix chooses (docs/fix.md).\n"
#define H_FRAMES "  --frames=user|all    place findings at the innermost user frame (default) or the innermost frame of all.\n"

static const struct option_help helps[] = {
	{"parse", H_FORMAT_TJ
	 "  --stats              print one line of parse statistics per module on standard error.\n"
	 H_BUDGET},
	{"print", H_OUTPUT},
	{"rules", "  RULE                 a slug or id (HP102): print that rule's page instead of the list.\n"},
	{"check", "  --format=text|json|sarif|junit|checkstyle  the report format (text by default).\n"
	 H_OUTPUT H_CONFIG
	 "  --fail-on=error|warning|note|none  exit 1 when a finding at or above this severity is listed (default error).\n"
	 "  --enable RULE, --disable RULE  turn one rule on or off, on top of the configuration.\n"
	 "  --baseline FILE      do not list the findings recorded in FILE; report its entries that no longer occur.\n"
	 "  --write-baseline FILE  record every finding in FILE (for --baseline) instead of listing them.\n"
	 H_TIMEOUT
	 "  --strict-donation    report the donation rules flagged for it (donation-not-honored, ...) as errors.\n"
	 H_ANNOT H_SMT H_CROSS H_JOBS H_BUDGET
	 "  --stats              print one line of analysis statistics per module on standard error.\n"
	 "  --source-root DIR    SARIF: write file URIs relative to DIR.\n"
	 H_COLOR H_FRAMES
	 "  --min-bytes N        count findings of fewer than N bytes in the summary but do not list them (nor fail on them).\n"
	 "  --sort=cost|position  text: list the findings with the most bytes first (default) or in file order.\n"
	 "  --statistics         text: the number of findings and their bytes per rule instead of the list.\n"
	 "  --quiet              text: the module summaries and the totals only.\n"
	 H_STAGE H_JOINTLY},
	{"buffers", "  --at INSTR           only the buffers live at instruction INSTR.\n"
	 H_FORMAT_TJ
	 "  --ordering=dependency|sequential  live ranges over the dependency order or the printed sequence.\n"
	 H_BUDGET},
	{"donation", H_FORMAT_TJ
	 "  --evidence           print the proof under each donation.\n"
	 H_ANNOT H_TIMEOUT H_COLOR H_STAGE},
	{"explain", H_TIMEOUT H_BUDGET H_SMT H_CROSS
	 "  --all                explain every copy of the module.\n"
	 "  --hazards            list the aliasing hazards of the module as written.\n"
	 H_STAGE H_JOINTLY},
	{"prove-removal", "  --schedule=given|any  prove for the printed schedule (default) or for every schedule.\n"
	 H_TIMEOUT H_SMT H_CROSS H_STAGE},
	{"fix", "  -o FILE, --output FILE  write the fixed module to FILE (atomically), once it is verified.\n"
	 "  --diff               print the fix as a unified diff of the module text (patch -p0), the report on standard error.\n"
	 "  --schedule=given|any  the printed schedule, changed only by control edges and the fewest moves they need (default for a scheduled module), or every schedule (default otherwise).\n"
	 "  --objective=bytes|count  save the most bytes, loop trips counted (default), or remove the most copies.\n"
	 "  --format=text|json   text for people (default) or JSON for programs (docs/fix.md).\n"
	 H_TIMEOUT
	 "  --time-budget-ms N   stop searching after N ms; the best choice verified by then is kept, not claimed optimal.\n"
	 H_SMT H_CROSS H_STAGE},
	{"gate", "  --format=text|json   text for people (default) or JSON for programs (docs/gate.md).\n"
	 H_OUTPUT H_CONFIG
	 "  --max-new-copy-bytes N  allow up to N bytes of new copies before calling HEAD a regression (default 0).\n"
	 "  --allow-lost-donations  do not call a donation lost in HEAD a regression.\n"
	 "  --fail-on-new=error|warning|note|none  call a new finding at or above this severity a regression.\n"
	 H_ANNOT
	 "  --no-deciders        compare the text facts only, without running the deciders (much faster on large modules).\n"
	 "  --ignore-new-modules  list a module only in HEAD instead of comparing it with an empty BASE.\n"
	 H_TIMEOUT H_JOBS H_COLOR H_FRAMES H_STAGE},
	{"timeline", "  --format=html|svg|chrome-trace  an HTML page (default), an SVG picture or Trace Event JSON.\n"
	 H_OUTPUT
	 "  --computation NAME   draw computation NAME instead of the entry.\n"
	 "  --top N              draw the N largest buffers only.\n"
	 "  --min-bytes N        leave out buffers of fewer than N bytes.\n"
	 H_STAGE},
	{0, 0},
};

const char *cli_options_help(const char *command)
{
	for (const struct option_help *h = helps; h->command; h++)
		if (!strcmp(h->command, command))
			return h->text;
	return NULL;
}
