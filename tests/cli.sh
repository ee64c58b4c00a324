#!/bin/sh
# End-to-end tests of the hloproof binary: exit codes, messages, the bad corpus.
# HLOPROOF names the binary; HLOPROOF_SHARED the shared folder.
H=${HLOPROOF:-build/hloproof}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS CMD...: the command exits with STATUS
expect() {
	want=$1; shift
	"$@" >$T/out 2>$T/err </dev/null
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want"; sed 's/^/  /' $T/err | head -5; fi
}

expect 0 "$H" --help
expect 0 "$H" --version
expect 2 "$H"
expect 2 "$H" no-such-command

# Every case in corpus/bad/ exits 2 with the expected FILE:LINE:COL: error line.
# The expectation is the first line of the case: "// expect: LINE:COL: message-substring".
for f in corpus/bad/*.hlo; do
	[ -f "$f" ] || continue
	exp=$(head -n 1 "$f" | sed -n 's|^// expect: ||p')
	if [ -z "$exp" ]; then bad "$f: no '// expect:' first line"; continue; fi
	loc=${exp%%: *}; msg=${exp#*: }
	"$H" parse "$f" >/dev/null 2>$T/bad.err </dev/null
	st=$?
	if [ "$st" != 2 ]; then bad "$f: exit $st, want 2"; continue; fi
	if ! grep -qF "$f:$loc: error: $msg" $T/bad.err; then
		bad "$f: want '$f:$loc: error: $msg', got: $(head -n 1 $T/bad.err)"; continue
	fi
	ok
done

# --- check (issue 6): exit codes, formats, -o, configuration, baselines -------
R=corpus/rules
HA=$(cd "$(dirname "$H")" && pwd)/$(basename "$H")
RT=$R/layout-round-trip
DN=$R/donation-not-honored
# expect_out STATUS PATTERN CMD...: status, and PATTERN (grep -E) in stdout
expect_out() {
	want=$1; pat=$2; shift 2
	"$@" >$T/out 2>$T/err </dev/null
	got=$?
	if [ "$got" != "$want" ]; then bad "$* exited $got, want $want"; sed 's/^/  /' $T/err | head -5; return; fi
	if grep -qE -- "$pat" $T/out; then ok; else bad "$*: no '$pat' in output"; head -5 $T/out; fi
}
expect_out 0 '0 errors, 0 warnings, 0 notes' "$H" check $RT/clean_needed_relayout.hlo
# HP104 is a warning: below the default --fail-on=error
expect_out 0 'fires_copy_pair.hlo:6:[0-9]+: warning: .*\[HP104 layout-round-trip\]' "$H" check $RT/fires_copy_pair.hlo
expect 1 "$H" check --fail-on=warning $RT/fires_copy_pair.hlo
expect 1 "$H" check --fail-on note $RT/fires_copy_pair.hlo
expect 0 "$H" check --fail-on=none $RT/fires_copy_pair.hlo
expect 0 "$H" check --fail-on=warning --disable HP104 $RT/fires_copy_pair.hlo
expect 0 "$H" check --fail-on=warning --disable layout-round-trip $RT/fires_copy_pair.hlo
expect 1 "$H" check --fail-on=warning --disable HP104 --enable HP104 $RT/fires_copy_pair.hlo
expect 0 "$H" check $DN/fires_no_output_size.hlo
expect_out 1 ': error: donated param 1' "$H" check --strict-donation $DN/fires_no_output_size.hlo
expect 0 "$H" check --fail-on=warning $RT/clean_needed_relayout.hlo $DN/clean_all_matched.hlo
# usage errors
expect 2 "$H" check
expect 2 "$H" check --format=xml $RT/fires_copy_pair.hlo
expect 2 "$H" check --fail-on=sometimes $RT/fires_copy_pair.hlo
expect 2 "$H" check --enable HP000 $RT/fires_copy_pair.hlo
expect 2 "$H" check --timeout-ms=soon $RT/fires_copy_pair.hlo
expect 2 "$H" check --no-such-option $RT/fires_copy_pair.hlo
# bad input: reported FILE:LINE:COL, the other files still checked, exit 2 wins
printf 'HloModule broken\nENTRY main {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(q)\n}\n' > $T/bad.hlo
expect_out 2 'fires_copy_pair.hlo:6:[0-9]+: warning' "$H" check --fail-on=warning $T/bad.hlo $RT/fires_copy_pair.hlo
if grep -qE "^$T/bad.hlo:[0-9]+:[0-9]+: error: " $T/err; then ok; else bad "bad input: no FILE:LINE:COL: error"; fi
expect 2 "$H" check $T/no-such-file.hlo
# stdin and directories (sorted, stable)
if "$H" check --format=json - < $RT/fires_copy_pair.hlo | grep -q '"rule": "HP104"'; then ok; else bad "check - (stdin)"; fi
"$H" check --fail-on=none $RT > $T/dir.out 2>&1
if [ "$(grep -o '^[^:]*\.hlo' $T/dir.out | uniq | tr '\n' ' ')" = "$RT/fires_copy_pair.hlo $RT/fires_transpose_bitcast.hlo " ]; then ok; else bad "directory order: $(cat $T/dir.out)"; fi
# formats
expect_out 0 '"scheduled": true' "$H" check --format=json $RT/fires_copy_pair.hlo
expect_out 0 '"version": "2.1.0"' "$H" check --format=sarif $RT/fires_copy_pair.hlo
expect_out 0 '<testsuites' "$H" check --format=junit $RT/fires_copy_pair.hlo
expect_out 0 '<error line="6"' "$H" check --format=checkstyle $RT/fires_copy_pair.hlo
# colour only on a terminal: never into a pipe or file
"$H" check $RT/fires_copy_pair.hlo > $T/plain.out 2>&1
if grep -q "$(printf '\033')" $T/plain.out; then bad "colour in a pipe"; else ok; fi
# -o: written atomically, nothing else left in the directory
mkdir -p $T/outdir
expect 2 "$H" check --format=sarif -o $T/outdir/none/r.sarif $RT/fires_copy_pair.hlo
expect 1 "$H" check --fail-on=warning --format=sarif -o $T/outdir/r.sarif $RT/fires_copy_pair.hlo
if [ "$(ls -A $T/outdir)" = "r.sarif" ] && grep -q '"ruleId": "HP104"' $T/outdir/r.sarif; then ok; else bad "-o: $(ls -A $T/outdir)"; fi
echo old > $T/outdir/keep.json
expect 2 "$H" check --format=json -o $T/outdir/keep.json --baseline $T/missing.json $RT/fires_copy_pair.hlo
if [ "$(cat $T/outdir/keep.json)" = old ] && [ "$(ls -A $T/outdir | wc -l)" = 2 ]; then ok; else bad "-o touched on a failed run"; fi
# configuration: --config, discovery, hostile files
printf '<hloproof version="1">\n  <fail-on>warning</fail-on>\n</hloproof>\n' > $T/warn.xml
expect 1 "$H" check --config $T/warn.xml $RT/fires_copy_pair.hlo
expect 0 "$H" check --config $T/warn.xml --fail-on=error $RT/fires_copy_pair.hlo
mkdir -p $T/proj/sub && cp $T/warn.xml $T/proj/.hloproof.xml && cp $RT/fires_copy_pair.hlo $T/proj/sub/
(cd $T/proj/sub && "$HA" check fires_copy_pair.hlo >/dev/null 2>&1); st=$?
if [ $st = 1 ]; then ok; else bad ".hloproof.xml discovery: exit $st, want 1"; fi
printf '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<hloproof version="1"/>\n' > $T/xxe.xml
expect 2 "$H" check --config $T/xxe.xml $RT/fires_copy_pair.hlo
if grep -q "^$T/xxe.xml:2: error: " $T/err; then ok; else bad "xxe: $(cat $T/err)"; fi
printf '<hloproof version="1">\n<accept>\n<copy instruction="copy.1"/>\n</accept>\n</hloproof>\n' > $T/noreason.xml
expect 2 "$H" check --config $T/noreason.xml $RT/fires_copy_pair.hlo
if grep -q "^$T/noreason.xml:3: error: " $T/err; then ok; else bad "no reason: $(cat $T/err)"; fi
printf '<hloproof version="1"><accept><copy instruction="copy.1" reason="wanted"/></accept></hloproof>\n' > $T/accept.xml
expect 0 "$H" check --config $T/accept.xml --fail-on=warning $RT/fires_copy_pair.hlo
expect_out 0 '"reason": "wanted"' "$H" check --config $T/accept.xml --format=json $RT/fires_copy_pair.hlo
# baselines
expect 0 "$H" check --fail-on=warning --write-baseline $T/base.json $RT/fires_copy_pair.hlo $RT/fires_transpose_bitcast.hlo
if grep -q '"fingerprint"' $T/base.json && [ "$(ls $T | grep -c '^\.base')" = 0 ]; then ok; else bad "write-baseline"; fi
expect_out 0 '0 errors, 0 warnings, 0 notes, 2 baselined' "$H" check --fail-on=warning --baseline $T/base.json $RT/fires_copy_pair.hlo $RT/fires_transpose_bitcast.hlo
expect_out 1 "$T/base.json: note: stale baseline entry" "$H" check --fail-on=warning --baseline $T/base.json $RT/fires_copy_pair.hlo $DN/fires_memory_space.hlo
expect_out 0 '"stale_baseline": \[' "$H" check --format=json --baseline $T/base.json $RT/fires_copy_pair.hlo
printf '{"version": 1, "findings": [' > $T/broken.json
expect 2 "$H" check --baseline $T/broken.json $RT/fires_copy_pair.hlo

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
