#!/bin/sh
# tests/fix.sh - `hloproof fix` end to end (issue 25), in `make test`.
#
# On every module of $HLOPROOF_SHARED/corpus (real, xla-alias,
# xla-copy-insertion) and of corpus/fix, corpus/copies, corpus/loops:
#  - fix finishes (each run bounded by FIX_TIMEOUT seconds, default 120) and
#    exits 0, or 2 on a module that does not parse, or 3 on one the analysis
#    cannot model (then explain cannot either);
#  - the fixed module (-o) is what `hloproof print` prints of it, it has as
#    many copies as fix says it kept, and every hazard it has (explain
#    --summary: kind, value, read) the module as given has too, a removed
#    copy's value read as its operand's;
#  - the --diff output applies with patch -p0 to a copy of the module, and
#    the patched text prints as the fixed module;
#  - check --jointly decides what check decides.
# (The comparisons run where something was removed; elsewhere the fixed
# module is the module printed again.)
# Then the command's own contract: exit codes, messages, JSON fields.
# HLOPROOF names the binary; HLOPROOF_SHARED the shared folder.
H=${HLOPROOF:-build/hloproof}
SHARED=${HLOPROOF_SHARED:-../shared}
TO=${FIX_TIMEOUT:-120}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-fix.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
case $H in /*) ;; *) H=$(pwd)/$H ;; esac

# hazard keys of a module: "kind value read computation", one per line; with
# MODE given, only those of the printed schedule
hazards() {
	"$H" explain --stage=after --summary "$1" 2>/dev/null |
		awk -v m="$2" '$1 == "hazard" && (m != "given" || $9 == "given") { print $2, $3, $5, $8 }' | sort -u
}

modules=0; removed_total=0; edges_total=0
for f in "$SHARED"/corpus/real/*.hlo "$SHARED"/corpus/xla-alias/*.hlo "$SHARED"/corpus/xla-copy-insertion/*.hlo \
	 corpus/fix/*.hlo corpus/copies/*.hlo corpus/loops/*.hlo; do
	[ -f "$f" ] || continue
	modules=$((modules + 1))
	rm -f $T/out.hlo $T/fix.json
	timeout "$TO" "$H" fix --stage=after --format=json -o $T/out.hlo "$f" >$T/fix.json 2>$T/fix.err
	rc=$?
	case $rc in
	0) ;;
	2) if "$H" parse "$f" >/dev/null 2>&1; then bad "$f: fix exit 2 on a module that parses"; else ok; fi; continue ;;
	3) # the module, or one of its copies, is not decided
	   if "$H" explain --stage=after --summary "$f" >$T/sum 2>/dev/null && ! grep -q ' unknown$' $T/sum; then
		bad "$f: fix exit 3 on a module explain decides: $(head -c 300 $T/fix.json)"
	   else ok; fi; continue ;;
	124) bad "$f: fix did not finish in $TO s"; continue ;;
	*) bad "$f: fix exit $rc"; sed 's/^/  /' $T/fix.err | head -5; continue ;;
	esac
	# the fixed module prints as itself
	"$H" print $T/out.hlo >$T/printed.hlo 2>/dev/null
	if cmp -s $T/printed.hlo $T/out.hlo; then ok; else bad "$f: the fixed module does not print as itself"; fi
	# copies kept; removed copies' operands, for the hazard comparison
	python3 - $T/fix.json >$T/facts <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dead = sum(1 for c in d["removed"] if c["kind"] == "fused" and "{" in c["name"])
print("kept", len(d["kept"]) + len(d["no_op"]), "removed", len(d["removed"]), "edges", len(d["edges"]), "dead", dead,
      "schedule", d["schedule"])
for c in d["removed"]:
    print("map", c["name"], c["operand"])
PY
	kept=$(awk '$1 == "kept" { print $2 + $8 }' $T/facts) # outputs of multi-output fusions stay, unread
	mode=$(awk '$1 == "kept" { print $10 }' $T/facts)
	nrem=$(awk '$1 == "kept" { print $4 }' $T/facts)
	nedge=$(awk '$1 == "kept" { print $6 }' $T/facts)
	removed_total=$((removed_total + nrem)); edges_total=$((edges_total + nedge))
	# nothing removed: the fixed module is the module, printed (checked above)
	[ "$nrem" = 0 ] && continue
	left=$("$H" explain --stage=after --summary $T/out.hlo 2>/dev/null | grep -c '^copy ')
	if [ "$left" = "$kept" ]; then ok; else bad "$f: fix says it kept $kept copies, the fixed module has $left"; fi
	# no hazard the module as given does not have (removed copies' values as their operands')
	hazards "$f" "$mode" | awk 'NR == FNR { if ($1 == "map") m[$2] = $3; next } { v = $2; for (g = 0; g < 64 && (v in m); g++) v = m[v]; print $1, v, $3, $4 }' $T/facts - | sort -u >$T/before
	hazards $T/out.hlo "$mode" >$T/after
	new=$(comm -13 $T/before $T/after)
	if [ -z "$new" ]; then ok; else bad "$f: the fixed module has hazards the module as given does not have: $new"; fi
	# the diff applies and gives the fixed module
	mkdir -p $T/p && rm -f $T/p/*
	cp "$f" $T/p/m.hlo && chmod u+w $T/p/m.hlo
	(cd $T/p && timeout "$TO" "$H" fix --stage=after --diff m.hlo >m.diff 2>m.err)
	drc=$?
	if [ "$drc" != 0 ]; then
		bad "$f: fix --diff exit $drc: $(head -n 1 $T/p/m.err)"
	elif [ -s $T/p/m.diff ]; then
		if (cd $T/p && patch -s -p0 <m.diff) >$T/patch.out 2>&1 && "$H" print $T/p/m.hlo 2>&1 | cmp -s - $T/out.hlo; then ok
		else bad "$f: the diff does not apply with patch -p0 or does not give the fixed module: $(head -n 2 $T/patch.out)"; fi
	else
		ok
	fi
	# the joint verdicts: check --jointly decides what check decides
	"$H" check --stage=after --quiet "$f" >/dev/null 2>&1
	crc=$?
	timeout "$TO" "$H" check --stage=after --jointly --quiet "$f" >/dev/null 2>$T/j.err
	jrc=$?
	if [ "$jrc" -le 1 ] || [ "$jrc" = "$crc" ]; then ok; else bad "$f: check --jointly exit $jrc (check: $crc): $(head -n 1 $T/j.err)"; fi
done
if [ "$modules" -gt 100 ] && [ "$removed_total" -gt 100 ]; then ok
else bad "the corpus run saw $modules modules and $removed_total removals (too few to mean anything)"; fi
echo "fix: $modules modules, $removed_total copies removed, $edges_total control edges added"

# ---- the command's contract ---------------------------------------------------
expect() {
	want=$1; shift
	"$@" >$T/out 2>$T/err </dev/null
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want"; sed 's/^/  /' $T/err | head -3; fi
}
C=corpus/fix/conflict_any.hlo
G=corpus/fix/conflict_given.hlo
E=corpus/fix/edge_given.hlo
MIX=$SHARED/corpus/real/maxtext_mixtral_8x7b_train_preopt.hlo
# before optimization (the default reading of an unscheduled module without
# layouts): no-op copies are XLA's simplifier's, not savings
expect 0 "$H" fix $C
grep -q '^corpus/fix/conflict_any.hlo: fix under every schedule (the module is not scheduled): nothing to remove: all 2 copies (64 B) are no-op, removed by XLA itself$' $T/out && ok || bad "fix $C (before optimization) headline: $(head -n 1 $T/out)"
grep -q '^  not counted: 2 no-op copies (64 B): the module is before optimization' $T/out && ok || bad "fix $C: the no-op copies counted apart"
grep -q '^  removed\|^  kept' $T/out && bad "fix $C: a no-op copy listed as removed or kept" || ok
if [ -f "$MIX" ]; then
	expect 0 "$H" fix --format=json $MIX
	python3 - $T/out <<'PY' && ok || bad "fix on mixtral: 2118 no-op copies, nothing saved"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["saved_bytes"] == 0 and d["removed"] == [] and d["kept"] == [], (d["saved_bytes"], len(d["removed"]))
assert len(d["no_op"]) == 2118 and d["no_op_bytes"] == 130554037248, (len(d["no_op"]), d["no_op_bytes"])
assert all(c["name"].startswith("sharding_constraint") for c in d["no_op"])
PY
	expect 0 "$H" fix $MIX
	grep -q ': nothing to remove: all 2118 copies (121.59 GiB) are no-op, removed by XLA itself$' $T/out && ok || bad "fix on mixtral: headline $(head -n 1 $T/out)"
fi
# read as after copy insertion: the copies are the program's
expect 0 "$H" fix --stage=after $C
grep -q '^corpus/fix/conflict_any.hlo: fix under every schedule (the module is not scheduled): 1 of 2 copies removed, 32 B; optimal$' $T/out && ok || bad "fix --stage=after $C headline: $(head -n 1 $T/out)"
grep -q '^  kept c2, 32 B: needed once the copies removed are gone$' $T/out && ok || bad "fix $C: the kept copy's reason"
grep -q '^      removing it together with c1 introduces a hazard' $T/out && ok || bad "fix $C: the kept copy names its conflict"
expect 0 "$H" fix $G
grep -q 'fix under the given schedule (the module is scheduled): 1 of 2 copies removed' $T/out && ok || bad "fix $G headline"
expect 0 "$H" fix --schedule=any $G
grep -q 'fix under every schedule (--schedule=any)' $T/out && ok || bad "fix --schedule=any headline"
expect 2 "$H" fix --schedule=given $C
grep -q "^$C: error: --schedule=given needs a scheduled module" $T/err && ok || bad "fix --schedule=given on an unscheduled module: message"
expect 2 "$H" fix --schedule=some $C
expect 2 "$H" fix --objective=time $C
expect 2 "$H" fix --format=sarif $C
expect 2 "$H" fix $C $G
expect 2 "$H" fix corpus/bad/bad_layout_rank.hlo
grep -qE '^corpus/bad/bad_layout_rank.hlo:[0-9]+:[0-9]+: error: ' $T/err && ok || bad "fix on bad input: FILE:LINE:COL: error:"
cp $C $T/self.hlo
expect 2 "$H" fix -o $T/self.hlo $T/self.hlo
cmp -s $C $T/self.hlo && ok || bad "fix -o INPUT changed the input"
# a module the analysis does not model: unknown with the reason, exit 3, nothing written
expect 3 "$H" fix -o $T/never.hlo corpus/postopt/pin_unpin.hlo
grep -q 'fix: unknown: the analysis does not model the Pin custom call' $T/out && ok || bad "fix on an unmodelled module: the reason"
[ ! -e $T/never.hlo ] && ok || bad "fix wrote a module it could not verify"
# a copy left undecided: exit 3, not claimed optimal; what was verified is written
expect 3 "$H" fix --stage=after -o $T/partial.hlo corpus/unknown/not_flattened.hlo
grep -q 'not proven optimal: 1 copy could not be decided' $T/out && ok || bad "fix with an undecided copy: no optimality claim"
grep -q '^  kept cc, 32 B: not decided$' $T/out && ok || bad "fix with an undecided copy: not decided"
grep -q '^      unknown: a computation with several call sites' $T/out && ok || bad "fix with an undecided copy: its reason"
[ -s $T/partial.hlo ] && ok || bad "fix did not write the verified module"
# under the given schedule, a control edge and a move let a copy go
expect 0 "$H" fix -o $T/edge.hlo $E
grep -q '^corpus/fix/edge_given.hlo: fix under the given schedule (the module is scheduled): 1 of 1 copy removed, 32 B; optimal$' $T/out && ok || bad "fix $E headline: $(head -n 1 $T/out)"
grep -q '^  added control edge r -> d in main: r (sqrt at /home/me/model/step.py:13) runs before d (dynamic_update_slice at /home/me/model/step.py:11)$' $T/out && ok || bad "fix $E: the edge in JAX terms"
grep -q '^      moved: r (the fewest moves the edges allow; the printed schedule changes by these moves only)$' $T/out && ok || bad "fix $E: the move"
awk '/ %r = / { r = NR } / %d = / { d = NR } END { exit !(r && d && r < d) }' $T/edge.hlo && ok || bad "fix -o $E: r is not printed before d"
grep -q 'control-predecessors={%r}' $T/edge.hlo && ok || bad "fix -o $E: the control edge"
"$H" explain --summary $T/edge.hlo | grep -q ' given$' && bad "fix -o $E: the fixed module has a hazard in its printed schedule" || ok
expect 0 "$H" fix --format=json $E
python3 - $T/out <<'PY' && ok || bad "fix --format=json on $E: edges and moves"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schedule"] == "given" and d["optimal"] and d["saved_bytes"] == 32
assert [c["name"] for c in d["removed"]] == ["c"] and d["removed"][0]["with_edges"] is True
assert d["edges"] == [{"from": "r", "to": "d", "computation": "main"}], d["edges"]
assert d["moved"] == ["r"] and d["moves_minimal"] is True, d["moved"]
PY
expect 0 "$H" fix --diff $E
grep -q '^+.* %d = f32\[8\]{0} dynamic-update-slice(f32\[8\]{0} %y, .*control-predecessors={%r}$' $T/out && ok || bad "fix --diff $E: the edge"
# JSON
expect 0 "$H" fix --stage=after --format=json --objective=count $C
python3 - $T/out <<'PY' && ok || bad "fix --format=json fields"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schedule"] == "any" and d["objective"] == "count" and d["verified"] and d["optimal"]
assert d["saved"] == 1 and d["saved_bytes"] == 32 and d["bound"] == 1
assert [c["name"] for c in d["removed"]] == ["c1"] and d["removed"][0]["operand"] == "a"
k = d["kept"][0]
assert k["name"] == "c2" and k["reason"] == "conflict" and k["conflicts_with"] == ["c1"], k
assert d["search"]["conflicts"] == 1 and d["search"]["verifications"] == 2
assert d["no_op"] == [] and d["no_op_bytes"] == 0 and d["moved"] == []
PY
# --diff: the report goes to standard error, the diff to standard output
expect 0 "$H" fix --stage=after --diff $C
head -n 2 $T/out | tr '\n' ' ' | grep -q "^--- $C +++ $C $" && ok || bad "fix --diff header: $(head -n 2 $T/out)"
grep -q '^-  c1 = f32\[8\]{0} copy(a)$' $T/out && ok || bad "fix --diff deletes the copy line"
grep -q '^+  d1 = f32\[8\]{0} dynamic-update-slice(a, u1, i)$' $T/out && ok || bad "fix --diff renames the use"
grep -q 'fix under every schedule' $T/err && ok || bad "fix --diff: the report on standard error"
# nothing to remove: no diff at all
expect 0 "$H" fix --diff corpus/copies/layout.hlo
[ ! -s $T/out ] && ok || bad "fix --diff printed a diff with nothing removed"
# control edges in the diff (a schedule-dependent copy)
expect 0 "$H" fix --stage=after --diff corpus/copies/smt_edges.hlo
grep -q '^+  %d = f32\[8\] dynamic-update-slice(%x, %u, %i), control-predecessors={%r1, %r2}$' $T/out && ok || bad "fix --diff adds the control edges"
# -o is atomic: an unwritable target leaves nothing and exits 2
expect 2 "$H" fix -o $T/no/such/dir/out.hlo $C
# --jointly
expect 0 "$H" explain --stage=after --jointly $C c2
grep -q '^  verdict.any: necessary$' $T/out && ok || bad "explain --jointly: c2 necessary given c1's removal"
expect 0 "$H" explain --stage=after --jointly $C c1
grep -q '^  verdict.any: removable$' $T/out && ok || bad "explain --jointly: c1 removable"
expect 1 "$H" check --jointly --fail-on=warning --stage=after $C
r=$(grep -c 'HP102 removable-copy' $T/out)
[ "$r" = 1 ] && ok || bad "check --jointly: one removable-copy finding, got $r"
expect 1 "$H" check --fail-on=warning --stage=after $C
r=$(grep -c 'HP102 removable-copy' $T/out)
[ "$r" = 2 ] && ok || bad "check without --jointly: two removable-copy findings, got $r"

echo "fix.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
