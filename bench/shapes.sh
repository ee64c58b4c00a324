#!/bin/sh
# bench/shapes.sh HLOPROOF [DIR] - how the cost of `check` grows with copies
# per buffer and with loop nesting (docs/performance.md, "How cost grows").
#
# Two families of small generated modules, each timed (median of
# BENCH_RUNS, default 5, pinned to core 0 when taskset works):
#  - copies K: one buffer updated in place K times in the entry; before each
#    update a copy keeps the old value, read 8 times after it. Every copy's
#    removal merges the buffer's K+1 values and their reads: K views of O(K)
#    values and O(K) reads.
#  - nesting D: D nested while loops carrying one buffer; at every level a
#    copy of it is read 8 times while the inner loop updates it in place.
# Prints the median time, the copies, and the verdicts `check --stats` counts.
#   shapes.sh --gen copies K | nesting D   prints one such module (bench/run.sh's rows)
set -u
GEN=
if [ "${1:-}" = "--gen" ]; then
	GEN="$2 $3"
else
	H=${1:?usage: shapes.sh HLOPROOF [DIR]}
	DIR=${2:-$(mktemp -d "${TMPDIR:-/tmp}/hloproof-shapes.XXXXXX")}
fi
RUNS=${BENCH_RUNS:-5}
PIN=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	PIN="taskset -c 0"
fi
[ -n "$GEN" ] || mkdir -p "$DIR" || exit 1

MAT="f32[64,128]{1,0}"
VEC="f32[128]{0}"
ROW="f32[1,128]{1,0}"

reducer() {
	printf '%%add (a: f32[], b: f32[]) -> f32[] {\n  %%a = f32[] parameter(0)\n  %%b = f32[] parameter(1)\n  ROOT %%s = f32[] add(%%a, %%b)\n}\n\n'
}

# copies_module K: the entry updates p in place K times, a copy before each
copies_module() {
	k=$1
	printf 'HloModule copies_%d, input_output_alias={ {0}: (0, {}, may-alias) }\n\n' "$k"
	reducer
	printf 'ENTRY %%main (p: %s, i: s32[]) -> (%s, %s) {\n' "$MAT" "$MAT" "$VEC"
	printf '  %%p = %s parameter(0)\n  %%i = s32[] parameter(1)\n' "$MAT"
	printf '  %%z = s32[] constant(0)\n  %%zero = f32[] constant(0)\n'
	printf '  %%acc.0 = %s broadcast(%%zero), dimensions={}\n' "$VEC"
	prev=p; acc=acc.0
	j=1
	while [ "$j" -le "$k" ]; do
		printf '  %%keep.%d = %s copy(%%%s)\n' "$j" "$MAT" "$prev"
		printf '  %%row.%d = %s reshape(%%%s)\n' "$j" "$ROW" "$acc"
		printf '  %%u.%d = %s dynamic-update-slice(%%%s, %%row.%d, %%i, %%z)\n' "$j" "$MAT" "$prev" "$j"
		t=1
		while [ "$t" -le 8 ]; do
			printf '  %%r.%d.%d = %s reduce(%%keep.%d, %%zero), dimensions={0}, to_apply=%%add\n' "$j" "$t" "$VEC" "$j"
			printf '  %%acc.%d.%d = %s add(%%%s, %%r.%d.%d)\n' "$j" "$t" "$VEC" "$acc" "$j" "$t"
			acc="acc.$j.$t"
			t=$((t + 1))
		done
		prev="u.$j"
		j=$((j + 1))
	done
	printf '  ROOT %%out = (%s, %s) tuple(%%%s, %%%s)\n}\n' "$MAT" "$VEC" "$prev" "$acc"
}

# nesting_module D: while loops nested D deep, each level copies the carried
# buffer, runs the next level (or updates the buffer, innermost), reads the copy
nesting_module() {
	d=$1
	printf 'HloModule nesting_%d, input_output_alias={ {}: (0, {}, may-alias) }\n\n' "$d"
	reducer
	L=$d
	while [ "$L" -ge 1 ]; do
		printf '%%cond.%d (c.%d: (s32[], %s)) -> pred[] {\n' "$L" "$L" "$MAT"
		printf '  %%c.%d = (s32[], %s) parameter(0)\n' "$L" "$MAT"
		printf '  %%ci.%d = s32[] get-tuple-element(%%c.%d), index=0\n' "$L" "$L"
		printf '  %%trip.%d = s32[] constant(3)\n' "$L"
		printf '  ROOT %%lt.%d = pred[] compare(%%ci.%d, %%trip.%d), direction=LT\n}\n\n' "$L" "$L" "$L"
		printf '%%body.%d (s.%d: (s32[], %s)) -> (s32[], %s) {\n' "$L" "$L" "$MAT" "$MAT"
		printf '  %%s.%d = (s32[], %s) parameter(0)\n' "$L" "$MAT"
		printf '  %%i.%d = s32[] get-tuple-element(%%s.%d), index=0\n' "$L" "$L"
		printf '  %%b.%d = %s get-tuple-element(%%s.%d), index=1\n' "$L" "$MAT" "$L"
		printf '  %%one.%d = s32[] constant(1)\n  %%n.%d = s32[] add(%%i.%d, %%one.%d)\n' "$L" "$L" "$L" "$L"
		printf '  %%z.%d = s32[] constant(0)\n  %%zero.%d = f32[] constant(0)\n' "$L" "$L"
		printf '  %%keep.%d = %s copy(%%b.%d)\n' "$L" "$MAT" "$L"
		if [ "$L" -lt "$d" ]; then
			printf '  %%t.%d = (s32[], %s) tuple(%%z.%d, %%b.%d)\n' "$L" "$MAT" "$L" "$L"
			printf '  %%w.%d = (s32[], %s) while(%%t.%d), condition=%%cond.%d, body=%%body.%d\n' \
				"$L" "$MAT" "$L" $((L + 1)) $((L + 1))
			printf '  %%in.%d = %s get-tuple-element(%%w.%d), index=1\n' "$L" "$MAT" "$L"
		else
			printf '  %%zrow.%d = %s broadcast(%%zero.%d), dimensions={}\n' "$L" "$ROW" "$L"
			printf '  %%in.%d = %s dynamic-update-slice(%%b.%d, %%zrow.%d, %%i.%d, %%z.%d)\n' \
				"$L" "$MAT" "$L" "$L" "$L" "$L"
		fi
		acc="accz.$L"
		printf '  %%accz.%d = %s broadcast(%%zero.%d), dimensions={}\n' "$L" "$VEC" "$L"
		t=1
		while [ "$t" -le 8 ]; do
			printf '  %%r.%d.%d = %s reduce(%%keep.%d, %%zero.%d), dimensions={0}, to_apply=%%add\n' "$L" "$t" "$VEC" "$L" "$L"
			printf '  %%acc.%d.%d = %s add(%%%s, %%r.%d.%d)\n' "$L" "$t" "$VEC" "$acc" "$L" "$t"
			acc="acc.$L.$t"
			t=$((t + 1))
		done
		printf '  %%row.%d = %s reshape(%%%s)\n' "$L" "$ROW" "$acc"
		printf '  %%out.%d = %s dynamic-update-slice(%%in.%d, %%row.%d, %%i.%d, %%z.%d)\n' \
			"$L" "$MAT" "$L" "$L" "$L" "$L"
		printf '  ROOT %%res.%d = (s32[], %s) tuple(%%n.%d, %%out.%d)\n}\n\n' "$L" "$MAT" "$L" "$L"
		L=$((L - 1))
	done
	printf 'ENTRY %%main (p: %s) -> %s {\n' "$MAT" "$MAT"
	printf '  %%p = %s parameter(0)\n  %%z = s32[] constant(0)\n' "$MAT"
	printf '  %%t = (s32[], %s) tuple(%%z, %%p)\n' "$MAT"
	printf '  %%w = (s32[], %s) while(%%t), condition=%%cond.1, body=%%body.1\n' "$MAT"
	printf '  ROOT %%r = %s get-tuple-element(%%w), index=1\n}\n' "$MAT"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

if [ -n "$GEN" ]; then
	set -- $GEN
	case $1 in
	copies) copies_module "$2" ;;
	nesting) nesting_module "$2" ;;
	*) echo "shapes.sh --gen copies K | nesting D" >&2; exit 2 ;;
	esac
	exit 0
fi

# row LABEL FILE: median wall ms of check --stats, copies and verdicts
row() {
	: >"$DIR/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		t0=$(date +%s%N)
		$PIN "$H" check --stats "$2" >"$DIR/out" 2>"$DIR/err"
		st=$?
		t1=$(date +%s%N)
		if [ "$st" -gt 1 ]; then
			printf '%-28s FAIL (exit %d)\n' "$1" "$st"
			sed 's/^/    /' "$DIR/err" | head -n 5
			failed=1
			return
		fi
		echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e6 }' >>"$DIR/times"
	done
	ms=$(median <"$DIR/times")
	copies=$(grep -c ' copy(' "$2")
	verdicts=$(sed -n 's/.* verdicts=\([0-9]*\) .*/\1/p' "$DIR/err" | tail -n 1)
	queries=$(sed -n 's/.* smt_queries=\([0-9]*\) .*/\1/p' "$DIR/err" | tail -n 1)
	printf '%-28s %9s ms %7s copies %9s verdicts %5s z3 queries\n' "$1" "$ms" "$copies" "$verdicts" "$queries"
}

failed=0
echo "copies per buffer (8 reads of each kept value), median of $RUNS, ${PIN:-not pinned}"
for k in 1 2 4 8 16 32 64 128; do
	copies_module "$k" >"$DIR/copies_$k.hlo"
	row "copies $k" "$DIR/copies_$k.hlo"
done
echo
echo "loop nesting (a copy and 8 reads per level), median of $RUNS"
for d in 1 2 4 8 16 32; do
	nesting_module "$d" >"$DIR/nesting_$d.hlo"
	row "nesting depth $d" "$DIR/nesting_$d.hlo"
done
[ "$failed" -eq 0 ]
