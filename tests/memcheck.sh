#!/bin/sh
# Run hloproof on every corpus file under valgrind; fail on any memory error or on
# definitely lost bytes. The commands are MEMCHECK_COMMANDS (default: check, which runs
# every analysis and rule); MEMCHECK_COMMANDS=all takes every analysing command the
# binary lists in --help that reads one FILE (parse, print, buffers, check, donation,
# explain --all), about six times as long.
H=$1
S=${HLOPROOF_SHARED:-../shared}
cmds=${MEMCHECK_COMMANDS:-check}
if [ "$cmds" = all ]; then
	cmds=$("$H" --help | grep -E '^  [a-z]' | awk '{ print $1 }' |
		grep -E '^(parse|print|buffers|check|donation|explain)$')
fi
command -v valgrind >/dev/null 2>&1 || { echo "memcheck: valgrind is not installed (apt-get install valgrind)"; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-memcheck.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
for f in $(find "$S/corpus" corpus -name '*.hlo' | sort); do
	for c in $cmds; do
		extra=; [ "$c" = explain ] && extra=--all
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
			"$H" "$c" "$f" $extra >/dev/null 2>"$T/err" </dev/null
		st=$?
		if [ "$st" = 99 ] || grep -q '^==[0-9]*== ' "$T/err"; then
			fail=$((fail + 1)); echo "FAIL: $c $f (exit $st)"; grep '^==' "$T/err" | head -20
		else
			pass=$((pass + 1))
		fi
	done
done
echo "memcheck: $pass passed, $fail failed (commands: $(echo $cmds))"
[ "$fail" -eq 0 ]
