#!/bin/sh
# The one-way flow of docs/design.md ("One module, one session"): commands
# (verifier/cmd_*.c) and rules (rules/*.c) get stage results from a session
# (verifier/session.h) and never build or free a stage themselves; and no
# stage reaches up to a file above it.
#   sh tests/layering.sh [ROOT]   checks ROOT (default: the worktree), then
#                                 checks that it catches an injected violation
ROOT=${1:-.}

# A stage's build and free functions: only session.c (and the stages, the
# tests) call them. The rewrites that are analysed again (rewrite.h) and the
# donation that would drop a copy (repair.h) belong to the deciders too: a
# rule reads their results from its copy reports.
BUILDERS='analysis_run|analysis_free|copy_verdicts_run|copy_verdicts_free|copy_verdicts_for_rule|copies_analyse|copy_analyse_one|hazards_analyse|hazards_in_buffer|hazards_decide_values|hazards_decide_buffer|donations_analyse|donations_unanalysed|dataflow_run|inplace_build|buffers_build|ordering_build|ordering_build_ex|ordering_build_from|hlo_module_without_copy|hlo_module_without_site|hlo_module_with_edges|hlo_edges_prepare|repair_donation_drops_copy'

check_tree() {
	r=$1; bad=0
	# comments are not calls: drop /* ... */ on one line and // tails
	for f in "$r"/rules/*.c "$r"/verifier/cmd_*.c; do
		[ -f "$f" ] || continue
		hits=$(sed -e 's|/\*.*\*/||g' -e 's|//.*$||' "$f" | grep -nE "(^|[^A-Za-z0-9_])($BUILDERS)[[:space:]]*\(")
		if [ -n "$hits" ]; then
			echo "layering: $f builds a stage itself (ask the session, session.h):"
			echo "$hits" | sed 's/^/  /'
			bad=1
		fi
	done
	# the analysis frees the hazard caches through its hook, not by
	# including the hazard decider's internals
	if grep -qE '#include "(hzview|hazard|copies|session|lint)\.h"' "$r"/verifier/analysis.c; then
		echo "layering: verifier/analysis.c includes a header above it"
		bad=1
	fi
	# no circle lint <-> config <-> findings: the rule table is rules_table.c,
	# the rule-facing finding_add is lint's
	for f in findings.c findings.h config.c config.h rules_table.c rule.h; do
		if grep -qE '#include "(lint|session)\.h"' "$r/verifier/$f"; then
			echo "layering: verifier/$f includes lint.h or session.h (above it)"
			bad=1
		fi
	done
	# nothing below the session knows it: only the rule runner, the gate's
	# summary and the commands include session.h
	for f in "$r"/verifier/*.c "$r"/verifier/*.h "$r"/rules/*.c; do
		case $(basename "$f") in
		session.c|session.h|lint.c|gate.c|cmd_*.c) continue ;;
		esac
		if grep -q '#include "session.h"' "$f"; then
			echo "layering: $f includes session.h (only lint.c, gate.c and the commands may)"
			bad=1
		fi
	done
	return $bad
}

check_tree "$ROOT" || { echo "layering: FAILED"; exit 1; }

# The check must be able to fail: a copy of the tree with a rule that runs
# the copy decider itself, and one with a command that builds the dataflow.
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-layering.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
for inject in rules/removable-copy.c:copies_analyse verifier/cmd_buffers.c:dataflow_run \
	      rules/undonated-argument-copy.c:repair_donation_drops_copy; do
	file=${inject%%:*}; fn=${inject#*:}
	rm -rf "$T/tree"; mkdir -p "$T/tree/rules" "$T/tree/verifier"
	cp "$ROOT"/rules/*.c "$T/tree/rules/"
	cp "$ROOT"/verifier/*.c "$ROOT"/verifier/*.h "$T/tree/verifier/"
	printf 'static void sneak(struct analysis *an) { %s (an, 0); }\n' "$fn" >>"$T/tree/$file"
	if check_tree "$T/tree" >"$T/out"; then
		echo "layering: FAILED: a call to $fn in $file went unnoticed"
		exit 1
	fi
	grep -q "$file builds a stage itself" "$T/out" || { echo "layering: FAILED: wrong message for $file"; cat "$T/out"; exit 1; }
done
echo "layering: ok"
