#!/bin/sh
# Headline lengths (issue 22). A headline is the first line of a finding in
# check's text report minus "FILE:LINE:COL: severity: ", the rule tag and the
# Python place included; its length is counted in characters.
#  - over the real corpus (../shared/corpus/real, one run of check with two
#    jobs): median at most 120, maximum at most 200, and at least 1000
#    findings measured (a check that measures nothing fails);
#  - over the project's corpus and XLA's (every rule fires there; the
#    annotation-violated cases with their --annotations files): every
#    headline at most 200, and every rule measured at least once.
# The measure itself is checked on made-up reports that break each limit.
H=${HLOPROOF:-build/hloproof}
S=${HLOPROOF_SHARED:-../shared}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-headlines.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# measure MEDIAN MAX MIN_COUNT [RULES] < report: prints "N findings, median M, max X"
# (and the longest) and exits 1 when a limit is broken; RULES (comma-separated
# ids) must each have a headline
measure() {
	python3 -c '
import re, statistics, sys
med, top, least = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rules = [r for r in (sys.argv[4] if len(sys.argv) > 4 else "").split(",") if r]
head = re.compile(r"^\S.*?: (?:error|warning|note): (.*\[(HP\d+) [a-z-]+\].*)$")
got = []
for line in sys.stdin.buffer.read().decode("utf-8", "replace").splitlines():
    m = head.match(line)
    if m:
        got.append((len(m.group(1)), m.group(2), m.group(1)))
if not got:
    print("no findings"); sys.exit(1)
lens = [g[0] for g in got]
md, mx = statistics.median(lens), max(lens)
print("%d findings, median %g, max %d" % (len(got), md, mx))
longest = max(got)
missing = [r for r in rules if r not in set(g[1] for g in got)]
if md > med or mx > top or len(got) < least or missing:
    print("longest (%d): %s" % (longest[0], longest[2]))
    if missing: print("no headline of " + ",".join(missing))
    sys.exit(1)
' "$@"
}

# the measure fails where it should: too long at the median, one too long,
# too few, a rule missing
tag="[HP101 aliasing-hazard]"
long=$(printf '%0150d' 0)
{ for i in 1 2 3; do echo "f.hlo:1:1: warning: $long $tag"; done; } | measure 120 200 1 >/dev/null && bad "a median of 174 passes" || ok
{ echo "f.hlo:1:1: warning: x $tag"; echo "f.hlo:2:1: warning: x $tag"; echo "f.hlo:3:1: warning: $long$long $tag"; } |
	measure 120 200 1 >/dev/null && bad "a 324-character headline passes" || ok
echo "f.hlo:1:1: warning: x $tag" | measure 120 200 2 >/dev/null && bad "too few findings pass" || ok
echo "f.hlo:1:1: warning: x $tag" | measure 120 200 1 HP101,HP204 >/dev/null && bad "a missing rule passes" || ok
echo "f.hlo:1:1: warning: x $tag at a.py:3 (f)" | measure 120 200 1 HP101 >/dev/null && ok || bad "a short headline fails"

# the real corpus: the limits of issue 22
"$H" check --jobs 2 --fail-on=none "$S/corpus/real" >$T/real.txt 2>$T/real.err
st=$?
[ $st -le 2 ] || bad "check over the real corpus: exit $st: $(head -n 3 $T/real.err)"
if out=$(measure 120 200 1000 HP101,HP203 <$T/real.txt); then ok; else bad "real corpus: $out"; fi
echo "headlines: real corpus: $out"

# every rule, on the project's corpus and XLA's: at most 200
"$H" check --jobs 2 --fail-on=none corpus "$S/corpus/xla-copy-insertion" "$S/corpus/xla-alias" >$T/all.txt 2>/dev/null
"$H" check --jobs 2 --fail-on=none --stage=after corpus/rules corpus/copies "$S/corpus/xla-copy-insertion" >>$T/all.txt 2>/dev/null
for x in corpus/rules/annotation-violated/*.xml; do
	"$H" check --fail-on=none --annotations "$x" "${x%.xml}.hlo" >>$T/all.txt 2>/dev/null
done
rules=$("$H" rules | sed -n 's/^\(HP[0-9][0-9]*\) .*/\1/p' | tr '\n' ',')
[ -n "$rules" ] || bad "hloproof rules lists no rule"
if out=$(measure 200 200 100 "$rules" <$T/all.txt); then ok; else bad "project and XLA corpora: $out"; fi
echo "headlines: every rule: $out"

echo "headlines: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
