#!/bin/sh
# Run hloproof on every corpus file under valgrind; fail on any memory error or leak.
H=$1
S=${HLOPROOF_SHARED:-../shared}
cmds=${MEMCHECK_COMMANDS:-parse}
pass=0; fail=0
for f in $(find "$S/corpus" corpus -name '*.hlo' | sort); do
	for c in $cmds; do
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			"$H" "$c" "$f" >/dev/null 2>/tmp/hloproof-memcheck.err
		st=$?
		if [ "$st" = 99 ]; then
			fail=$((fail + 1)); echo "FAIL: $c $f"; head -20 /tmp/hloproof-memcheck.err
		else
			pass=$((pass + 1))
		fi
	done
done
echo "memcheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
