#!/bin/sh
# Every repair hloproof prints, re-checked on the module text with the edges
# added (tests/repairs.pl, tests/add-edges.pl; docs/verdicts.md "Repairs").
# make test runs a representative subset (every project corpus file, the
# shared XLA corpora, two real dumps with many claims); REPAIRS_ALL=1 takes
# every shared and project corpus file (a few minutes more).
H=${HLOPROOF:-build/hloproof}
S=${HLOPROOF_SHARED:-../shared}
D=$(dirname "$0")
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# the checker itself: a claim known false is refuted (the old headline of a
# finding with several hazards on one value, and an edge that closes a
# cycle), one known true holds
R=$S/corpus/real
out=$(perl $D/repairs.pl "$H" --claim $R/jax_inplace_dus_while_preopt.hlo aliasing-hazard \
	"squeeze.47 -> squeeze.45" squeeze.45@_threefry_split.182 0)
case $? in 1) ok ;; *) bad "repairs.pl did not refute a false repair: $out" ;; esac
out=$(perl $D/repairs.pl "$H" --claim $R/keras_dlrm_train_preopt.hlo donation "sqrt.103 -> add.240" "53 {}")
case $? in 1) ok ;; *) bad "repairs.pl did not refute the reversed (hazardous) edge: $out" ;; esac
out=$(perl $D/repairs.pl "$H" --claim $R/keras_dlrm_train_preopt.hlo donation "add.240 -> sqrt.103" "53 {}")
case $? in 0) ok ;; *) bad "repairs.pl refuted a true repair: $out" ;; esac
out=$(perl $D/add-edges.pl corpus/copies/loop_swap.hlo 2>/dev/null | cmp -s - corpus/copies/loop_swap.hlo && echo same)
[ "$out" = same ] && ok || bad "add-edges.pl without edges changed the text"

if [ -n "$REPAIRS_ALL" ]; then
	set -- $S/corpus/*/*.hlo corpus/*/*.hlo
else
	set -- corpus/copies/*.hlo corpus/donation/*.hlo $S/corpus/xla-copy-insertion/*.hlo \
		$S/corpus/xla-alias/*.hlo $R/jax_inplace_dus_while_preopt.hlo $R/keras_dlrm_train_preopt.hlo
fi
out=$(perl $D/repairs.pl "$H" "$@")
st=$?
echo "$out" | tail -n 1
if [ $st = 0 ]; then ok; else bad "repair claims that do not hold:"; echo "$out" | grep '^refuted' | head -20; fi
# the subset has claims of every kind to re-check (a check that checks nothing fails)
for k in aliasing-hazard "explain hazard" donation donation-copied; do
	case "$out" in *"$k "[1-9]*) ok ;; *) bad "no '$k' claim re-checked" ;; esac
done
echo "repairs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
