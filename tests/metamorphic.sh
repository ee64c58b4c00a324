#!/bin/sh
# Metamorphic tests: rewrites that must not change any analysis. For every parsable
# module of ../shared/corpus and corpus/, build/tests/mutate writes variants (names
# renamed consistently, '%' dropped or added, operand shapes added, computations
# reordered, signatures dropped) and `hloproof print -o` reprints it; each command of
# METAMORPHIC_COMMANDS then runs with --format=json on the original and every
# variant at once, and the entries must be equal modulo names and order.
# HLOPROOF names the binary, MUTATE the rewriter, HLOPROOF_SHARED the shared folder.
H=${HLOPROOF:-build/hloproof}
M=${MUTATE:-build/tests/mutate}
S=${HLOPROOF_SHARED:-../shared}
# parse now; buffers and check join as they land (commands that accept --format=json)
cmds=${METAMORPHIC_COMMANDS:-$("$H" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }' |
	grep -E '^(parse|buffers|check)$')}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-meta.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skipped=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
start=$(date +%s)

for f in $(find "$S/corpus" corpus -name '*.hlo' 2>/dev/null | sort); do
	"$H" parse "$f" >/dev/null 2>&1 </dev/null || { skipped=$((skipped + 1)); continue; }
	rm -rf "$T/v"; mkdir "$T/v"
	if ! "$H" print -o "$T/v/print.hlo" "$f" 2>"$T/err"; then bad "$f: print: $(head -n 1 "$T/err")"; continue; fi
	if ! "$M" --variants "$f" "$T/v" 2>"$T/err"; then bad "$f: mutate: $(head -n 1 "$T/err")"; continue; fi
	for c in $cmds; do
		"$H" "$c" --format=json "$f" "$T"/v/*.hlo >"$T/report.json" 2>"$T/err" </dev/null
		st=$?
		if [ $st -ge 2 ]; then
			bad "$f: $c exited $st on the variants: $(grep -v '^stats' "$T/err" | head -n 2)"
			continue
		fi
		if "$M" --compare "$T/report.json" 2>"$T/err"; then pass=$((pass + 1))
		else bad "$f: $c reports differ:"; sed 's/^/  /' "$T/err" | head -n 6; fi
	done
done
echo "metamorphic: $pass passed, $fail failed ($skipped unparsable files skipped, commands: $(echo $cmds), $(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
