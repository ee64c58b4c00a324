#!/bin/sh
# Run every cmocka suite given; print a closing "N passed, N failed" line.
pass=0; fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t"; fi
done
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
