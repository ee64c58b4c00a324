#!/bin/sh
# Metamorphic tests: rewrites that must not change any analysis. For every parsable
# module of ../shared/corpus and corpus/, build/tests/mutate writes variants (names
# renamed consistently, '%' dropped or added, operand shapes added, computations
# reordered, signatures dropped) and `hloproof print -o` reprints it; each command of
# METAMORPHIC_COMMANDS then runs with --format=json on the original and every
# variant at once, and the entries must be equal modulo names and order.
# A module whose reports differ for a reason already filed is listed, with the reason, in
# tests/metamorphic-known.tsv (path relative to the shared folder or the repository); it
# is reported as KNOWN, and as a failure once it passes (so the list only shrinks).
# HLOPROOF names the binary, MUTATE the rewriter, HLOPROOF_SHARED the shared folder.
H=${HLOPROOF:-build/hloproof}
M=${MUTATE:-build/tests/mutate}
S=${HLOPROOF_SHARED:-../shared}
# parse now; buffers and check join as they land (commands that accept --format=json)
cmds=${METAMORPHIC_COMMANDS:-$("$H" --help | grep -E '^  [a-z]' | awk '{ print $1 }' |
	grep -E '^(parse|buffers|check)$')}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-meta.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skipped=0; nknown=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
start=$(date +%s)

for f in $(find "$S/corpus" corpus -name '*.hlo' 2>/dev/null | sort); do
	rm -rf "$T/v"; mkdir "$T/v"
	# mutate parses the module first: a file that does not parse is skipped
	if ! "$M" --variants "$f" "$T/v" 2>"$T/err"; then
		if grep -q ': error: ' "$T/err" && ! grep -q '^mutate:' "$T/err"; then skipped=$((skipped + 1))
		else bad "$f: mutate: $(head -n 1 "$T/err")"; fi
		continue
	fi
	if ! "$H" print -o "$T/v/print.hlo" "$f" 2>"$T/err"; then bad "$f: print: $(head -n 1 "$T/err")"; continue; fi
	# modules over 1 MB: the combined variants only, to keep the run near a minute
	if [ "$(wc -c <"$f")" -gt 1000000 ]; then
		for v in "$T"/v/*.hlo; do
			case ${v##*/} in all.hlo|mixed.hlo|print.hlo) ;; *) rm -f "$v" ;; esac
		done
	fi
	reports=""
	for c in $cmds; do
		"$H" "$c" --format=json "$f" "$T"/v/*.hlo >"$T/$c.json" 2>"$T/err" </dev/null
		st=$?
		# 3 with unknown verdicts (a construct not modelled) is a report too
		if [ $st -ge 2 ] && ! { [ $st = 3 ] && grep -q '"unknown"' "$T/$c.json"; }; then
			bad "$f: $c exited $st on the variants: $(grep -v '^stats' "$T/err" | head -n 2)"
			continue
		fi
		reports="$reports $T/$c.json"
	done
	[ -n "$reports" ] || continue
	known=$(awk -F '\t' -v f="${f#"$S/"}" '$1 == f { print $2 }' tests/metamorphic-known.tsv 2>/dev/null)
	if "$M" --compare $reports 2>"$T/err"; then
		if [ -n "$known" ]; then bad "$f: listed in tests/metamorphic-known.tsv but passes now: remove it"
		else pass=$((pass + 1)); fi
	elif [ -n "$known" ]; then
		nknown=$((nknown + 1)); echo "KNOWN: $f: $known"
	else
		bad "$f: reports differ:"; sed 's/^/  /' "$T/err" | head -n 6
	fi
done
echo "metamorphic: $pass passed, $fail failed, $nknown known ($skipped unparsable files skipped, commands: $(echo $cmds), $(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
