#!/bin/sh
# Every copy of every module of ../shared/corpus and corpus/ (issue 19):
# tests/count_copies.awk counts the copies, fused copies and copy-start /
# copy-done pairs from the module text alone; `check --format=json` must
# list exactly as many of each kind in copies[], each with a family and a
# removal verdict (unknown only with a reason in the evidence). Modules the
# parser rejects (exit 2: corpus/bad, the invalid alias configs) have no
# copies to list; every other file must be checked.
H=${HLOPROOF:-build/hloproof}
S=${HLOPROOF_SHARED:-../shared}
D=$(dirname "$0")
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-count.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; rejected=0; total_fused=0; total_async=0; total_copy=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
command -v jq >/dev/null 2>&1 || { echo "copy_count: jq is needed"; exit 1; }
[ -d "$S/corpus" ] || { echo "copy_count: no $S/corpus"; exit 1; }
find "$S/corpus" corpus -name '*.hlo' ! -path 'corpus/bad/*' | sort > $T/files
while read -r f; do
	"$H" check --format=json --fail-on=none "$f" > $T/out 2> $T/err
	st=$?
	if [ $st = 2 ]; then
		# the parser rejects it: no module, no copies (and parse agrees)
		if "$H" parse "$f" >/dev/null 2>&1; then bad "$f: check exits 2 but parse accepts it"; fi
		rejected=$((rejected + 1))
		continue
	fi
	want=$(awk -f "$D/count_copies.awk" "$f")
	got=$(jq -r '[.modules[].copies[]] as $c |
		"copy \([$c[] | select(.kind == "copy")] | length) fused \([$c[] | select(.kind == "fused")] | length) async \([$c[] | select(.kind == "async")] | length)"' $T/out)
	if [ "$want" != "$got" ]; then bad "$f: text has $want, copies[] has $got"; continue; fi
	# a family and a verdict for each; unknown says why
	n_bad=$(jq '[.modules[].copies[] | select(.family == null or
		(.verdict.any | IN("removable", "necessary", "schedule-dependent", "unknown") | not) or
		(.verdict.any == "unknown" and ((.evidence // "") | tostring | test("[a-z]") | not)))] | length' $T/out)
	if [ "$n_bad" != 0 ]; then bad "$f: $n_bad copies without a family or a verdict"; continue; fi
	set -- $want
	total_copy=$((total_copy + $2)); total_fused=$((total_fused + $4)); total_async=$((total_async + $6))
	pass=$((pass + 1))
done < $T/files
# the corpus has cases of each kind (corpus/copies, corpus/gate, the jaxdecomp dump)
[ $total_fused -ge 8 ] || bad "only $total_fused fused copies in the corpora"
[ $total_async -ge 7 ] || bad "only $total_async asynchronous copies in the corpora"
[ $pass -ge 220 ] || bad "only $pass modules checked"
echo "copy_count: $pass modules ($total_copy copies, $total_fused fused, $total_async async; $rejected rejected by the parser), $fail failed"
[ "$fail" -eq 0 ]
