#!/bin/sh
# End-to-end tests of `hloproof gate` (issue 6): exit status, what the report
# lists, thresholds, dump directories, --jobs. HLOPROOF names the binary.
H=${HLOPROOF:-build/hloproof}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-gate.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS CMD...: the command exits with STATUS (stdout in $T/out, stderr in $T/err)
expect() {
	want=$1; shift
	"$@" >$T/out 2>$T/err </dev/null
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want"; sed 's/^/  /' $T/err | head -5; fi
}
# has PATTERN [FILE]: grep -E PATTERN in the last stdout (or FILE)
has() {
	if grep -qE -- "$1" "${2:-$T/out}"; then ok; else bad "no '$1' in output"; sed 's/^/  /' "${2:-$T/out}" | head -20; fi
}
hasnt() {
	if grep -qE -- "$1" "${2:-$T/out}"; then bad "unexpected '$1' in output"; sed 's/^/  /' "${2:-$T/out}" | head -20; else ok; fi
}

G=corpus/gate
# --- a regressed HEAD: a copy protecting an in-place update, a lost donation
expect 1 "$H" gate $G/base.hlo $G/head.hlo
has "^$G/head.hlo:16:3: copy added: buf.old = copy\(buf\) in step, 4096 bytes, family donation, removal verdict given=necessary any=necessary$"
has "^$G/base.hlo:4:[0-9]+: donation lost: parameter 0 \{\}, 262144 bytes: may-alias to output \{0\} \(verdict schedule-dependent\); in HEAD: no input_output_alias entry or buffer_donor names it$"
has "copies: 1 added \(4096 bytes\), 0 removed \(0 bytes\), 1 unchanged; donations: 1 lost \(262144 bytes\), 0 gained"
has "HEAD regresses: 4096 bytes of new copies .*; 1 donation lost"
hasnt "wt\.[0-9]+ = copy"   # the layout copy is the same one, renumbered
# thresholds
expect 1 "$H" gate --allow-lost-donations $G/base.hlo $G/head.hlo
has "HEAD regresses: 4096 bytes of new copies"
hasnt "donation lost$"
expect 1 "$H" gate --max-new-copy-bytes 4096 $G/base.hlo $G/head.hlo
has "HEAD regresses: 1 donation lost"
expect 0 "$H" gate --max-new-copy-bytes 4096 --allow-lost-donations $G/base.hlo $G/head.hlo
has "^gate: no regression"
expect 1 "$H" gate --max-new-copy-bytes=4095 --allow-lost-donations $G/base.hlo $G/head.hlo
# JSON
expect 1 "$H" gate --format=json $G/base.hlo $G/head.hlo
has '"name": "buf.old"'
has '"family": "donation"'
has '"given": "necessary"'
has '"bytes": 4096'
has '"copy_bytes_added": 4096'
has '"param_index": "\{\}"'
has '"donations_lost": 1,'
has '"regressed": true'
has '"lost-donations"'
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["pairs"][0]["copies_added"][0]["bytes"] == 4096 and d["pairs"][0]["donations_lost"][0]["head"] is None else 1)' $T/out; then ok; else bad "gate JSON content"; fi
fi
# --no-deciders: the IR facts only (no families for same-layout copies, no verdicts)
expect 1 "$H" gate --no-deciders $G/base.hlo $G/head.hlo
has "^$G/head.hlo:16:3: copy added: buf.old = copy\(buf\) in step, 4096 bytes, family not decided \(same layout as its operand\)$"
has "^$G/base.hlo:4:[0-9]+: donation lost: parameter 0 \{\}, 262144 bytes: may-alias to output \{0\}; in HEAD"
expect 1 "$H" gate --no-deciders --format=json $G/base.hlo $G/head.hlo
has '"family": null'
has '"copies": false'
# -o: the report goes to the file, atomically
expect 1 "$H" gate --format=json -o $T/gate.json $G/base.hlo $G/head.hlo
if [ ! -s $T/out ] && grep -q '"regressed": true' $T/gate.json; then ok; else bad "gate -o"; fi

# --- a clean HEAD: renumbered and reordered, nothing added or lost
expect 0 "$H" gate $G/base.hlo $G/head_renumbered.hlo
has "copies: 0 added \(0 bytes\), 0 removed \(0 bytes\), 1 unchanged; donations: 0 lost"
has "^gate: no regression"
expect 0 "$H" gate $G/base.hlo $G/base.hlo
# the other way round: the copy is removed and the donation gained, no regression
expect 0 "$H" gate $G/head.hlo $G/base.hlo
has "^$G/head.hlo:16:3: copy removed: buf.old"
has "^$G/base.hlo:4:[0-9]+: donation gained: parameter 0 \{\}"
# standard input for one side
"$H" gate - $G/head.hlo < $G/base.hlo > $T/stdin.out 2>&1; st=$?
if [ $st = 1 ] && grep -q "copy added: buf.old" $T/stdin.out; then ok; else bad "gate - HEAD: exit $st"; fi

# --- fused and asynchronous copies count like copies (issue 19)
expect 1 "$H" gate $G/fused_base.hlo $G/fused_head.hlo
has "^$G/fused_head.hlo:19:3: copy added: wrapped_copy.1 = fusion\(x\) in main, a fused copy, 4294967296 bytes, family in-place, removal verdict given=necessary any=necessary$"
has "copies: 1 added \(4294967296 bytes\), 0 removed \(0 bytes\), 1 unchanged;"
has "HEAD regresses: 4294967296 bytes of new copies"
hasnt "copy added: wrapped_copy = "
expect 1 "$H" gate --no-deciders $G/fused_base.hlo $G/fused_head.hlo
has "^$G/fused_head.hlo:19:3: copy added: wrapped_copy.1 = fusion\(x\) in main, a fused copy, 4294967296 bytes, family not decided"
expect 1 "$H" gate --format=json $G/fused_base.hlo $G/fused_head.hlo
has '"name": "wrapped_copy.1"'
has '"kind": "fused"'
has '"copy_bytes_added": 4294967296'
expect 0 "$H" gate $G/fused_head.hlo $G/fused_base.hlo
has "^$G/fused_head.hlo:19:3: copy removed: wrapped_copy.1 = fusion\(x\) in main, a fused copy, 4294967296 bytes, family in-place"
has "copies: 0 added \(0 bytes\), 1 removed \(4294967296 bytes\), 1 unchanged;"
expect 1 "$H" gate $G/fused_base.hlo $G/async_head.hlo
has "^$G/async_head.hlo:15:3: copy added: offload = copy-start\(n\) / offload.done in main, an asynchronous copy, 4294967296 bytes, family memory-space, removal verdict given=necessary any=necessary$"
has "^$G/async_head.hlo:17:3: copy added: reload = copy-start\(offload.done\) / reload.done in main, an asynchronous copy, 4294967296 bytes, family memory-space"
has "copies: 2 added \(8589934592 bytes\), 0 removed \(0 bytes\), 1 unchanged;"
expect 1 "$H" gate --no-deciders --format=json $G/fused_base.hlo $G/async_head.hlo
has '"kind": "async"'
has '"copy_done": "reload.done"'
has '"family": "memory-space"'
# the real jaxdecomp dump with a second wrapped copy of x in HEAD
JAX=${HLOPROOF_SHARED:-../shared}/corpus/real/jaxdecomp_pfft3d_ifft_gpu16.hlo
if [ -f "$JAX" ]; then
	sed 's/^  %wrapped_copy = \(.*\)$/  %wrapped_copy = \1\n  %wrapped_copy.2 = \1/' "$JAX" |
		sed 's/^\(  %custom-call.3.0 = .*custom-call(c64\[512,512,2048\]{2,1,0} \)%wrapped_copy,/\1%wrapped_copy.2,/' > $T/jax_head.hlo
	expect 1 "$H" gate "$JAX" $T/jax_head.hlo
	has "jax_head.hlo:23:3: copy added: wrapped_copy.2 = fusion\(param.1\) in main.23_spmd, a fused copy, 4294967296 bytes, family in-place, removal verdict given=necessary any=necessary$"
	has "copies: 1 added \(4294967296 bytes\), 0 removed \(0 bytes\), 1 unchanged;"
else
	bad "no $JAX"
fi

# --- donors: XLA's matching decides which donation is honored (7.3)
cat > $T/donor_base.hlo <<'HLO'
HloModule donate, buffer_donor={ (0, {}), (1, {}) }, entry_computation_layout={(f32[16]{0}, f32[8]{0})->f32[16]{0}}

ENTRY %main (w: f32[16], b: f32[8]) -> f32[16] {
  %w = f32[16]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  ROOT %upd = f32[16]{0} negate(f32[16]{0} %w)
}
HLO
cat > $T/donor_head.hlo <<'HLO'
HloModule donate, buffer_donor={ (0, {}), (1, {}) }, entry_computation_layout={(f32[16]{0}, f32[8]{0})->f32[8]{0}}

ENTRY %main (w: f32[16], b: f32[8]) -> f32[8] {
  %w = f32[16]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %s = f32[8]{0} slice(f32[16]{0} %w), slice={[0:8]}
  ROOT %upd = f32[8]{0} add(f32[8]{0} %s, f32[8]{0} %b)
}
HLO
expect 1 "$H" gate $T/donor_base.hlo $T/donor_head.hlo
has "donation lost: parameter 0 \{\}, 64 bytes: buffer-donor to output \{\} \(verdict safe\); in HEAD: buffer-donor, not honored: no output of 64 bytes"
has "donation gained: parameter 1 \{\}, 32 bytes: buffer-donor to output \{\} \(verdict safe\); in BASE: buffer-donor, not honored"
has "new finding: warning: donated param 0 .*\[HP201 donation-not-honored\]"
expect 1 "$H" gate --no-deciders $T/donor_base.hlo $T/donor_head.hlo
# the same prediction and reason as with the deciders (donormatch.c)
has "donation lost: parameter 0 \{\}, 64 bytes: buffer-donor to output \{\}; in HEAD: buffer-donor, not honored: no output of 64 bytes"
has "donation gained: parameter 1 \{\}, 32 bytes: buffer-donor to output \{\}; in BASE: buffer-donor, not honored"
expect 0 "$H" gate --allow-lost-donations $T/donor_base.hlo $T/donor_head.hlo

# --- new findings, by fingerprint, against --fail-on-new
cat > $T/rt_base.hlo <<'HLO'
HloModule round_trip, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY %main (p: f32[2,3]) -> f32[2,3] {
  %p = f32[2,3]{1,0} parameter(0)
  ROOT %neg = f32[2,3]{1,0} negate(f32[2,3]{1,0} %p)
}
HLO
RT=corpus/rules/layout-round-trip/fires_copy_pair.hlo
expect 0 "$H" gate --max-new-copy-bytes 48 $T/rt_base.hlo $RT   # HP104 is a warning; default: error
has "^$RT:6:[0-9]+: new finding: warning: .*\[HP104 layout-round-trip\] \(fingerprint [0-9a-f]{16}:[0-9]+\)"
has "copies: 2 added \(48 bytes\)"
expect 1 "$H" gate --max-new-copy-bytes 48 --fail-on-new=warning $T/rt_base.hlo $RT
has "HEAD regresses: 1 new finding at or above warning"
expect 1 "$H" gate --max-new-copy-bytes 48 --fail-on-new note $T/rt_base.hlo $RT
expect 0 "$H" gate --max-new-copy-bytes 48 --fail-on-new=none $T/rt_base.hlo $RT
expect 1 "$H" gate --max-new-copy-bytes 47 --fail-on-new=none $T/rt_base.hlo $RT
expect 0 "$H" gate --fail-on-new=warning $RT $T/rt_base.hlo
has "fixed finding: warning: .*HP104"
has "copies: 0 added \(0 bytes\), 2 removed \(48 bytes\)"
expect 0 "$H" gate --fail-on-new=note $RT $RT                   # same finding: not new
printf '<hloproof version="1">\n  <fail-on>warning</fail-on>\n</hloproof>\n' > $T/warn.xml
expect 1 "$H" gate --config $T/warn.xml --max-new-copy-bytes 48 $T/rt_base.hlo $RT
expect 0 "$H" gate --config $T/warn.xml --fail-on-new=error --max-new-copy-bytes 48 $T/rt_base.hlo $RT

# the new findings are check's findings, fingerprints and all (the same deciders and rules)
AHF=corpus/rules/aliasing-hazard/fires_in_place_before_read.hlo
"$H" check --format=json --fail-on=none $AHF | grep -o '"fingerprint": "[^"]*"' | sort > $T/fp.check
"$H" gate --format=json --max-new-copy-bytes=1000000 $T/rt_base.hlo $AHF | grep -o '"fingerprint": "[^"]*"' | sort > $T/fp.gate
if [ -s $T/fp.check ] && cmp -s $T/fp.check $T/fp.gate; then ok; else bad "gate's new findings are not check's: $(cat $T/fp.check) / $(cat $T/fp.gate)"; fi

# --- dump directories: paired by module name and file stem (module_NNNN. stripped)
mkdir -p $T/dump/base $T/dump/head
cp $G/base.hlo $T/dump/base/module_0003.jit_step.cpu_after_optimizations.txt
cp $G/head.hlo $T/dump/head/module_0007.jit_step.cpu_after_optimizations.txt
sed 's/HloModule round_trip/HloModule step/' $T/rt_base.hlo > $T/dump/base/module_0003.jit_step.before_optimizations.txt
sed 's/HloModule round_trip/HloModule step/' $T/rt_base.hlo > $T/dump/head/module_0007.jit_step.before_optimizations.txt
printf 'BufferAssignment:\nallocation 0: size 4096\n' > $T/dump/base/module_0003.jit_step.cpu_after_optimizations-buffer-assignment.txt
cp $T/dump/base/*buffer-assignment.txt $T/dump/head/module_0007.jit_step.cpu_after_optimizations-buffer-assignment.txt
cp $T/donor_base.hlo $T/dump/base/module_0001.jit_init.cpu_after_optimizations.txt
cp $T/donor_base.hlo $T/dump/head/module_0002.jit_eval.cpu_after_optimizations.txt
sed 's/HloModule donate/HloModule donate2/' $T/donor_base.hlo > $T/dump/head/module_0002.jit_eval.cpu_after_optimizations.txt
expect 1 "$H" gate $T/dump/base $T/dump/head
has "^gate: $T/dump/base/module_0003.jit_step.before_optimizations.txt -> $T/dump/head/module_0007.jit_step.before_optimizations.txt \(module step\)"
has "^gate: $T/dump/base/module_0003.jit_step.cpu_after_optimizations.txt -> $T/dump/head/module_0007.jit_step.cpu_after_optimizations.txt \(module step\)"
has "^$T/dump/head/module_0007.jit_step.cpu_after_optimizations.txt:16:3: copy added: buf.old"
has "donation lost: parameter 0"
has "^gate: module removed, only in BASE: $T/dump/base/module_0001.jit_init.cpu_after_optimizations.txt \(module donate\)"
# a module only in HEAD is compared with an empty BASE (issue 23)
has "^gate: \(new module\) -> $T/dump/head/module_0002.jit_eval.cpu_after_optimizations.txt \(module donate2\)"
has "^gate: 1 new module, 1 removed$"
has "^gate: 2 module pairs;"
hasnt "only in HEAD"
if [ ! -s $T/err ]; then ok; else bad "dump dirs: stderr not empty: $(head -3 $T/err)"; fi
# a new module's copies are added copies: a new jitted function regresses the gate;
# --ignore-new-modules lists it instead (the behaviour before issue 23)
mkdir -p $T/dump3/base $T/dump3/head
cp $G/base.hlo $T/dump3/base/module_0001.jit_step.txt
cp $G/base.hlo $T/dump3/head/module_0001.jit_step.txt
sed 's/HloModule step/HloModule fresh/' $G/head.hlo > $T/dump3/head/module_0002.jit_fresh.txt
expect 1 "$H" gate $T/dump3/base $T/dump3/head
has "^gate: \(new module\) -> $T/dump3/head/module_0002.jit_fresh.txt \(module fresh\)$"
has "^$T/dump3/head/module_0002.jit_fresh.txt:16:3: copy added: buf.old = copy\(buf\) in step, 4096 bytes"
has "^gate: 1 new module, 0 removed$"
has "^gate: 1 module pair; copies: 2 added \(266240 bytes\)"
expect 1 "$H" gate --format=json $T/dump3/base $T/dump3/head
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["pairs"]; s=d["summary"]
sys.exit(0 if len(p) == 2 and p[1]["base"] is None and p[1]["head"]["module"] == "fresh" and len(p[1]["copies_added"]) == 2 and s["modules_new"] == 1 and s["modules_removed"] == 0 and s["pairs"] == 1 and d["only_in_head"] == [] else 1)' $T/out; then ok; else bad "gate JSON for a new module"; fi
expect 0 "$H" gate --ignore-new-modules $T/dump3/base $T/dump3/head
has "^gate: only in HEAD: $T/dump3/head/module_0002.jit_fresh.txt \(module fresh\)$"
hasnt "new module"
has "^gate: 1 module pair; copies: 0 added \(0 bytes\)"
# the module name pairs when the file stem changed; the file stem when the module was renamed
mkdir -p $T/dump2/base $T/dump2/head
cp $G/base.hlo $T/dump2/base/module_0001.a.txt
cp $G/head_renumbered.hlo $T/dump2/head/module_0001.b.txt
sed 's/HloModule step/HloModule step_v2/' $G/head.hlo > $T/dump2/head/module_0009.c.txt
cp $G/base.hlo $T/dump2/base/module_0009.c.txt
sed -i 's/HloModule step/HloModule other/' $T/dump2/base/module_0009.c.txt
expect 1 "$H" gate $T/dump2/base $T/dump2/head
has "^gate: $T/dump2/base/module_0001.a.txt -> $T/dump2/head/module_0001.b.txt \(module step\)"
has "^gate: $T/dump2/base/module_0009.c.txt -> $T/dump2/head/module_0009.c.txt \(module step_v2\)"
# --jobs: the same report, byte for byte
"$H" gate --jobs 1 --format=json $T/dump/base $T/dump/head > $T/j1.json 2>&1
"$H" gate --jobs 2 --format=json $T/dump/base $T/dump/head > $T/j2.json 2>&1
"$H" gate -j 5 --format=json $T/dump/base $T/dump/head > $T/j5.json 2>&1
if [ -s $T/j1.json ] && cmp -s $T/j1.json $T/j2.json && cmp -s $T/j1.json $T/j5.json; then ok; else bad "gate --jobs output differs"; fi
# a module that does not parse: reported FILE:LINE:COL, the others still compared, exit 2
printf 'HloModule broken\nENTRY main {\n  ROOT n = f32[4]{0} negate(q)\n}\n' > $T/dump/head/module_0008.broken.txt
expect 2 "$H" gate $T/dump/base $T/dump/head
has "copy added: buf.old"
if grep -qE "^$T/dump/head/module_0008.broken.txt:[0-9]+:[0-9]+: error: " $T/err; then ok; else bad "broken dump module: $(cat $T/err)"; fi

# --- usage and input errors: exit 2
expect 2 "$H" gate
expect 2 "$H" gate $G/base.hlo
expect 2 "$H" gate $G/base.hlo $G/head.hlo $G/head.hlo
expect 2 "$H" gate $G/base.hlo $T/dump/head
expect 2 "$H" gate - -
expect 2 "$H" gate --format=sarif $G/base.hlo $G/head.hlo
expect 2 "$H" gate --fail-on-new=sometimes $G/base.hlo $G/head.hlo
expect 2 "$H" gate --max-new-copy-bytes=-1 $G/base.hlo $G/head.hlo
expect 2 "$H" gate --max-new-copy-bytes=4k $G/base.hlo $G/head.hlo
expect 2 "$H" gate --jobs 0x $G/base.hlo $G/head.hlo
expect 2 "$H" gate $G/base.hlo $T/missing.hlo
expect 2 "$H" gate $G/base.hlo $T/dump/head/module_0008.broken.txt
has "^gate: 1 input could not be read or parsed$"
hasnt "only in BASE"
if grep -qE "module_0008.broken.txt:3:[0-9]+: error: " $T/err; then ok; else bad "broken HEAD: $(cat $T/err)"; fi
expect 2 "$H" gate --config $T/missing.xml $G/base.hlo $G/head.hlo
expect 2 "$H" gate -o $T/no/such/dir/r.json $G/base.hlo $G/head.hlo
expect 0 "$H" gate --help
has "usage: hloproof gate "

echo "gate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
