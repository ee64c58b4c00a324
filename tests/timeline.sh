#!/bin/sh
# End-to-end tests of `hloproof timeline` (issue 24), looked at as a person
# would: pages rendered by headless Chromium (a screenshot that is not blank,
# the DOM's lanes, marks and peak label), the SVG through xmllint, the Trace
# Event JSON through tests/timeline_check.py, hostile metadata escaped in
# every format, the error conventions, and every module of ../shared/corpus.
# HLOPROOF names the binary, HLOPROOF_SHARED the shared folder; chromium,
# xmllint and python3 come from `make deps` (.ci/deps.sh).
H=${HLOPROOF:-build/hloproof}
S=${HLOPROOF_SHARED:-../shared}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-timeline.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
CHECK="python3 tests/timeline_check.py"

for tool in chromium xmllint python3; do
	command -v $tool >/dev/null 2>&1 || { echo "timeline: $tool is missing (make deps installs it)"; exit 1; }
done

# expect STATUS CMD...: the command exits with STATUS (stdout in $T/out, stderr in $T/err)
expect() {
	want=$1; shift
	"$@" >$T/out 2>$T/err </dev/null
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want"; sed 's/^/  /' $T/err | head -5; fi
}
# same FILE EXPECTED: FILE holds exactly the text EXPECTED
same() {
	printf '%s\n' "$2" >$T/want
	if cmp -s "$1" $T/want; then ok; else bad "$1 differs from what is expected:"; diff $T/want "$1" | head -20; fi
}

chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" --window-size=1400,1000 "$@" 2>>$T/chrome.err
}
# shot PAGE NAME: a screenshot that is not blank: 1400x1000, many colours,
# a good share of pixels that are not the background (and not all of them)
shot() {
	chrome --screenshot="$T/$2.png" "file://$1" >/dev/null
	if [ ! -s "$T/$2.png" ] || [ "$(wc -c <"$T/$2.png")" -lt 20000 ]; then
		bad "$2: no screenshot, or a tiny one"; tail -3 $T/chrome.err; return
	fi
	set -- $(python3 tests/pngstat.py "$T/$2.png")
	if [ "$1" = 1400x1000 ] && [ "$2" -ge 50 ] &&
	   awk -v p="$3" 'BEGIN { exit !(p >= 5 && p <= 95) }'; then ok
	else bad "screenshot looks blank: $*"; fi
}
# dom PAGE EXPECTED: Chromium's DOM of the page, counted, is EXPECTED
dom() {
	chrome --dump-dom "file://$1" >$T/dom.html
	$CHECK dom $T/dom.html >$T/dom.txt 2>&1
	same $T/dom.txt "$2"
}

# --- the bundled demo: one donated buffer reused by the output, nothing else
expect 0 "$H" timeline -o $T/demo.html corpus/demo/step.hlo
shot "$T/demo.html" demo
dom "$T/demo.html" "panel 0 main lanes=5 rest=0 bars=6 copies=0 hazards=0 reuse=1 while=0 peak=152@5
elements img=0 script=1 b=0"

# --- a scheduled step with everything: donation, a counted loop drawn as a
# nested panel, copies of three verdicts, two hazards. The peak by hand:
# w 1 MiB (donated, then upd), x 256 KiB, u 4 KiB, k and zero 4 B each (held by
# the caller), c1/d1, r1, y/d2, r2 1 MiB each, cl 256 KiB = 5771272 bytes at r2
TS=corpus/timeline/train_step.hlo
expect 0 "$H" timeline -o $T/ts.html $TS
shot "$T/ts.html" train_step
dom "$T/ts.html" "panel 0 step lanes=15 rest=0 bars=30 copies=4 hazards=2 reuse=1 while=1 peak=5771272@17
panel 1 body lanes=2 rest=0 bars=2 copies=0 hazards=0 reuse=0 while=0 peak=262144@5
elements img=0 script=1 b=0"
# the page's script ran to its end (it shows the zoom buttons last)
if grep -q '<div id="zoom" style="display: block;">' $T/dom.html; then ok; else bad "the page's script did not run"; fi
# the marks say family and verdict, as explain does
grep -o '<g class="mark copy"[^>]*>' $T/ts.html | sed 's/ data-pos="[0-9]*"//' >$T/marks
same $T/marks '<g class="mark copy" data-n="1" data-verdict="necessary" data-family="in-place">
<g class="mark copy" data-n="1" data-verdict="necessary" data-family="loop-carry">
<g class="mark copy" data-n="1" data-verdict="necessary" data-family="loop-carry">
<g class="mark copy" data-n="1" data-verdict="removable" data-family="output">'
if grep -q 'while body body of loop: 256.0 KiB per iteration, 4 iterations' $T/ts.html; then ok; else bad "the loop panel's title"; fi
if grep -q 'c1 (copy)&#10;shape: f32\[512,512\]' $T/ts.html && grep -q 'source: model.py:13' $T/ts.html &&
   grep -q "argument: params\[&#39;w&#39;\]" $T/ts.html; then ok; else bad "bar cards: instruction, shape, source, argument"; fi
if grep -q 'verdict.any: schedule-dependent' $T/ts.html; then ok; else bad "copy card: the verdict's evidence"; fi
# the SVG: the same picture, no script, valid XML
expect 0 "$H" timeline --format=svg -o $T/ts.svg $TS
if xmllint --noout $T/ts.svg 2>$T/xml.err; then ok; else bad "ts.svg is not XML"; head -3 $T/xml.err; fi
if grep -qi '<script' $T/ts.svg; then bad "script in the SVG"; else ok; fi
$CHECK dom $T/ts.svg >$T/svgdom.txt
same $T/svgdom.txt "panel 0 step lanes=15 rest=0 bars=30 copies=4 hazards=2 reuse=1 while=1 peak=5771272@17
panel 1 body lanes=2 rest=0 bars=2 copies=0 hazards=0 reuse=0 while=0 peak=262144@5
elements img=0 script=0 b=0"
# the trace: one process per panel, a slice per value, the counters, the copies and hazards
expect 0 "$H" timeline --format=chrome-trace -o $T/ts.json $TS
$CHECK trace $T/ts.json >$T/trace.txt 2>&1
same $T/trace.txt "process 1 step (schedule order) slices=30 counters=18 copies=4 hazards=2
process 2 body (body of loop, bytes per iteration) slices=2 counters=5 copies=0 hazards=0"
if python3 -m json.tool $T/ts.json >/dev/null; then ok; else bad "ts.json: json.tool"; fi
# --computation: that computation too, after the entry and its loops (once)
expect 0 "$H" timeline --computation cond $TS
$CHECK dom $T/out >$T/c.txt
same $T/c.txt "panel 0 step lanes=15 rest=0 bars=30 copies=4 hazards=2 reuse=1 while=1 peak=5771272@17
panel 1 body lanes=2 rest=0 bars=2 copies=0 hazards=0 reuse=0 while=0 peak=262144@5
panel 2 cond lanes=2 rest=0 bars=2 copies=0 hazards=0 reuse=0 while=0 peak=5@3
elements img=0 script=1 b=0"
expect 0 "$H" timeline --computation body $TS
$CHECK dom $T/out >$T/c.txt
same $T/c.txt "panel 0 step lanes=15 rest=0 bars=30 copies=4 hazards=2 reuse=1 while=1 peak=5771272@17
panel 1 body lanes=2 rest=0 bars=2 copies=0 hazards=0 reuse=0 while=0 peak=262144@5
elements img=0 script=1 b=0"

# --- a real module: a scheduled TPU fusion with 23 layout copies
W=$S/corpus/real/tpu_waymo_fusion_sched.hlo
expect 0 "$H" timeline -o $T/w.html "$W"
shot "$T/w.html" waymo
dom "$T/w.html" "panel 0 multiply_reduce_fusion.94 lanes=51 rest=0 bars=51 copies=23 hazards=0 reuse=0 while=0 peak=104275496@41
elements img=0 script=1 b=0"
# as many copy marks as explain finds copies in that computation
n=$("$H" explain "$W" --summary | awk '$1 == "copy" && $3 == "multiply_reduce_fusion.94"' | wc -l)
[ "$n" -eq 23 ] && ok || bad "explain counts $n copies, the picture 23"
# --top and --min-bytes sum the rest in one lane; the peak stays what it is
expect 0 "$H" timeline --top 10 "$W"
$CHECK dom $T/out >$T/top.txt
same $T/top.txt "panel 0 multiply_reduce_fusion.94 lanes=11 rest=1 bars=10 copies=23 hazards=0 reuse=0 while=0 peak=104275496@41
elements img=0 script=1 b=0"
expect 0 "$H" timeline --min-bytes=1048576 "$W"
$CHECK dom $T/out >$T/min.txt
same $T/min.txt "panel 0 multiply_reduce_fusion.94 lanes=7 rest=1 bars=6 copies=23 hazards=0 reuse=0 while=0 peak=104275496@41
elements img=0 script=1 b=0"

# --- hostile metadata: names and files holding markup and quotes stay text
HS=corpus/timeline/hostile.hlo
expect 0 "$H" timeline -o $T/h.html $HS
dom "$T/h.html" "panel 0 e lanes=3 rest=0 bars=4 copies=1 hazards=0 reuse=1 while=0 peak=768@2
elements img=0 script=1 b=0"
if grep -q '&lt;/title&gt;&lt;/text&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;&#39;' $T/h.html &&
   grep -q 'a&quot;b&lt;c&gt;&amp;d&#39;.py:7' $T/h.html; then ok; else bad "hostile names not escaped as text in the page"; fi
expect 0 "$H" timeline --format=svg -o $T/h.svg $HS
if xmllint --noout $T/h.svg 2>$T/xml.err; then ok; else bad "h.svg is not XML"; head -3 $T/xml.err; fi
$CHECK dom $T/h.svg | tail -n 1 >$T/hsvg.txt
same $T/hsvg.txt "elements img=0 script=0 b=0"
expect 0 "$H" timeline --format=chrome-trace -o $T/h.json $HS
$CHECK trace $T/h.json >/dev/null && ok || bad "h.json structure"
$CHECK field $T/h.json p argument >$T/f.txt
same $T/f.txt "</title></text><script>alert(\"x\")</script>&amp;'"
$CHECK field $T/h.json p source >$T/f.txt
same $T/f.txt "a\"b<c>&d'.py:7"
# bytes that are not UTF-8, and a control character: U+FFFD in every format
printf 'HloModule h2\n\nENTRY %%e (p: f32[4]) -> f32[4] {\n  %%p = f32[4] parameter(0), metadata={op_name="bad\377\001byte"}\n  ROOT %%n = f32[4] negate(%%p)\n}\n' >$T/h2.hlo
expect 0 "$H" timeline --format=svg -o $T/h2.svg $T/h2.hlo
if xmllint --noout $T/h2.svg 2>/dev/null && grep -q "bad$(printf '\357\277\275\357\277\275')byte" $T/h2.svg; then ok; else bad "h2.svg: invalid bytes"; fi
expect 0 "$H" timeline --format=chrome-trace -o $T/h2.json $T/h2.hlo
$CHECK field $T/h2.json p argument >$T/f.txt
same $T/f.txt "bad$(printf '\357\277\275\357\277\275')byte"

# --- errors: FILE:LINE:COL: error:, exit 2, nothing written
printf 'HloModule bad\n\nENTRY %%e () -> f32[] {\n  ROOT %%c = f32[] constant(\n}\n' >$T/bad.hlo
echo keep >$T/keep.html
expect 2 "$H" timeline -o $T/keep.html $T/bad.hlo
if grep -qE "^$T/bad.hlo:[0-9]+:[0-9]+: error: " $T/err; then ok; else bad "bad input: no FILE:LINE:COL: error:"; cat $T/err; fi
same $T/keep.html keep
expect 2 "$H" timeline --computation nosuch $TS
if grep -q "^$TS: error: no computation 'nosuch'" $T/err; then ok; else bad "no computation message"; cat $T/err; fi
expect 2 "$H" timeline --format=png $TS
expect 2 "$H" timeline --top=-1 $TS
expect 2 "$H" timeline --min-bytes=lots $TS
expect 2 "$H" timeline $TS $TS
expect 2 "$H" timeline -o $TS $TS
expect 2 "$H" timeline -o $T/no/such/dir/x.html $TS
[ ! -e $T/no ] && ok || bad "a directory was made for -o"
expect 0 "$H" timeline --help
if grep -q "usage: hloproof timeline " $T/out; then ok; else bad "timeline --help"; fi
ls $T/.*.tmp >/dev/null 2>&1 && bad "a temporary result file was left" || ok

# --- every module of the shared corpus: exit 0 (valid HTML, SVG and Trace
# Event JSON) or 2 exactly where `parse` rejects it too (the six bad inputs)
n0=0; n2=0; k=0
mkdir $T/corpus
for f in $(find "$S/corpus" -name '*.hlo' | sort); do
	k=$((k + 1))
	"$H" parse "$f" >/dev/null 2>&1; ps=$?
	"$H" timeline -o $T/corpus/$k.html "$f" >/dev/null 2>$T/err; st=$?
	if [ $st -eq 2 ] || [ $ps -eq 2 ]; then
		n2=$((n2 + 1))
		[ $st -eq $ps ] || bad "$f: parse exits $ps, timeline $st"
		if grep -qE ':[0-9]+:[0-9]+: error: |: error: ' $T/err; then ok; else bad "$f: exit 2 without an error line"; fi
		continue
	fi
	[ $st -eq 0 ] || { bad "$f: exit $st"; sed 's/^/  /' $T/err | head -3; continue; }
	n0=$((n0 + 1))
	"$H" timeline --format=svg -o $T/corpus/$k.svg "$f" 2>/dev/null || bad "$f: SVG"
	"$H" timeline --format=chrome-trace -o $T/corpus/$k.json "$f" 2>/dev/null || bad "$f: trace"
	echo "$k $f" >>$T/corpus/names
	case "$f" in *maxtext_mixtral_8x7b*)
		b=$(wc -c <$T/corpus/$k.html)
		[ "$b" -le 10000000 ] && ok || bad "mixtral: $b bytes of HTML, over 10 MB" ;;
	esac
done
if xmllint --noout $T/corpus/*.svg 2>$T/xml.err; then ok; else bad "corpus SVG:"; head -5 $T/xml.err; fi
if $CHECK many $T/corpus/*.json $T/corpus/*.html >$T/many.txt; then ok; else bad "corpus HTML or trace:"; head -5 $T/many.txt; fi
echo "timeline: the shared corpus: $n0 drawn, $n2 rejected"
[ $n2 -eq 6 ] && ok || bad "$n2 modules rejected, not the six bad inputs"

echo "timeline: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
