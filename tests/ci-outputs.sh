#!/bin/sh
# CI outputs (issue 23): every format reports every input, JUnit fails only at
# --fail-on, SARIF is what GitHub code scanning wants (repository-relative URIs,
# headline messages, stable fingerprints) and validates with Microsoft's SARIF
# Multitool; JUnit and Checkstyle validate with xmllint against tests/junit-4.xsd
# and tests/checkstyle.xsd; JSON findings carry bytes, family, verdict and
# evidence lines.
# HLOPROOF names the binary, HLOPROOF_SHARED the shared folder, SARIF_MULTITOOL
# the Multitool binary (default: installed by .ci/sarif-deps.sh into build/node).
H=${HLOPROOF:-build/hloproof}
S=${HLOPROOF_SHARED:-../shared}
case $H in /*) ;; *) H=$PWD/$H ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-ci.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# py 'EXPR-PROGRAM' FILE: python3 reading FILE as `d` (JSON); exit 0 = pass
py() { python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
$1" "$2"; }

RT=corpus/rules
LRT=$RT/layout-round-trip/fires_copy_pair.hlo
RC=$RT/removable-copy/fires_redundant.hlo
printf 'HloModule broken\nENTRY %%m {\n  %%p = f32[4] parameter(0)\n' >"$T/bad.hlo"
BADMSG="expected '}' to close the computation body but found end of input"

# 1. A file that does not parse is in every format, between the modules it came
# between; the exit status stays 2.
for fmt in json sarif junit checkstyle; do
	"$H" check --format=$fmt "$LRT" "$T/bad.hlo" "$RC" >"$T/fail.$fmt" 2>"$T/err"; st=$?
	[ $st = 2 ] && grep -q "^$T/bad.hlo:4:1: error: $BADMSG" "$T/err" && ok || bad "check --format=$fmt with a bad input: exit $st"
done
py "
f=d['files']
assert [e['path'] for e in f] == ['$LRT', '$T/bad.hlo', '$RC'], f
assert [e['status'] for e in f] == ['checked', 'failed', 'checked'], f
assert f[1]['location'] == '$T/bad.hlo:4:1' and f[1]['line'] == 4 and f[1]['column'] == 1, f[1]
assert f[1]['message'] == \"$BADMSG\", f[1]
assert d['summary']['files_failed'] == 1 and len(d['modules']) == 2
assert d['schema_version'] == 1" "$T/fail.json" && ok || bad "JSON files[] for a bad input"
py "
inv=d['runs'][0]['invocations'][0]
assert inv['executionSuccessful'] is False
n=inv['toolExecutionNotifications']
assert len(n) == 1 and n[0]['level'] == 'error', n
assert n[0]['message']['text'] == \"$T/bad.hlo:4:1: error: $BADMSG\", n
p=n[0]['locations'][0]['physicalLocation']
assert p['region'] == {'startLine': 4, 'startColumn': 1}, p
assert p['artifactLocation']['uri'].endswith('/bad.hlo'), p" "$T/fail.sarif" && ok || bad "SARIF notification for a bad input"
"$H" check --format=sarif "$LRT" >"$T/good.sarif" 2>/dev/null
py "assert d['runs'][0]['invocations'][0]['executionSuccessful'] is True and not d['runs'][0]['invocations'][0]['toolExecutionNotifications']" "$T/good.sarif" \
	&& ok || bad "SARIF executionSuccessful on clean inputs"
cnt() { grep -c "$1" "$2"; }
grep -q '<testsuites name="hloproof" tests="3" failures="0" errors="1">' "$T/fail.junit" \
	&& grep -q "<testcase classname=\"hloproof.parse\" name=\"$T/bad.hlo\">" "$T/fail.junit" \
	&& grep -qF "<error type=\"parse\" message=\"expected '}' to close the computation body but found end of input\">$T/bad.hlo:4:1: error: " "$T/fail.junit" \
	&& ok || bad "JUnit <error> for a bad input: $(head -c 600 "$T/fail.junit")"
grep -qF "<error line=\"4\" column=\"1\" severity=\"error\" message=\"expected '}' to close the computation body but found end of input\" source=\"hloproof.parse\"/>" "$T/fail.checkstyle" \
	&& [ "$(cnt '<file name=' "$T/fail.checkstyle")" = 3 ] && ok || bad "Checkstyle <error> for a bad input"
# a file that cannot be opened: no position
"$H" check --format=json "$T/missing.hlo" >"$T/miss.json" 2>/dev/null; st=$?
[ $st = 2 ] && py "
e=d['files'][0]
assert e['status'] == 'failed' and e['location'] == '$T/missing.hlo' and e['line'] == 0, e
assert e['message'].startswith('cannot open: '), e" "$T/miss.json" && ok || bad "JSON for a missing input (exit $st)"

# 2. JUnit: a <failure> only at or above --fail-on (default: error); the rest pass
# with their text in <system-out>.
"$H" check --format=junit "$LRT" >"$T/j.xml"; st=$?
[ $st = 0 ] && [ "$(cnt '<failure' "$T/j.xml")" = 0 ] && grep -q '<system-out>warning: layout round trip: p goes {1,0} -&gt; {0,1} -&gt; {1,0}' "$T/j.xml" \
	&& grep -q 'tests="1" failures="0" errors="0"' "$T/j.xml" && ok || bad "JUnit below --fail-on: exit $st"
"$H" check --format=junit --fail-on=warning "$LRT" >"$T/j.xml"; st=$?
[ $st = 1 ] && [ "$(cnt '<failure type="warning"' "$T/j.xml")" = 1 ] && [ "$(cnt '<system-out>' "$T/j.xml")" = 0 ] && ok \
	|| bad "JUnit at --fail-on=warning: exit $st"
# (classname, name) unique over real modules with many findings
REAL="$S/corpus/real/keras_dlrm_train_preopt.hlo $S/corpus/real/issue_tf57087_gpu_const_output_copies.hlo $S/corpus/real/issue_ptxla5606_tpu_alias_sched.hlo $S/corpus/real/hloenv_jaxrl_td_target_preopt.hlo $S/corpus/real/jax_inplace_dus_while_preopt.hlo"
"$H" check --format=junit --fail-on=none $REAL >"$T/real.xml" 2>/dev/null; st=$?
python3 -c "
import sys, xml.etree.ElementTree as E
r=E.parse(sys.argv[1]).getroot()
k=[(t.get('classname'), t.get('name')) for t in r.iter('testcase')]
assert len(k) > 10, len(k)
assert len(k) == len(set(k)), [x for x in k if k.count(x) > 1][:3]
assert not list(r.iter('failure'))" "$T/real.xml" && [ $st = 0 ] && ok || bad "JUnit (classname, name) not unique (exit $st)"

# 3. JSON findings: bytes, family, verdict, evidence lines
"$H" check --stage=after --format=json --fail-on=none "$RC" "$LRT" $RT/donation-not-honored/fires_memory_space.hlo \
	$RT/aliasing-hazard/fires_scheduled.hlo $RT/donation-unsafe/fires_late_read.hlo >"$T/facts.json"; st=$?
py "
f={}
for m in d['modules']:
    for x in m['findings']:
        f.setdefault(x['rule'], x)
        assert isinstance(x['evidence'], list), x
        assert all(isinstance(l, str) and '\n' not in l for l in x['evidence']), x
        assert set(['bytes', 'family', 'verdict']) <= set(x), x
r=f['HP102']; assert (r['bytes'], r['family'], r['verdict']) == (4096, 'unexplained', 'removable'), r
r=f['HP104']; assert (r['bytes'], r['family'], r['verdict']) == (48, 'layout', None), r
assert r['evidence'][0] == '5:3: p = f32[2,3]{1,0} parameter' and len(r['evidence']) == 4, r
r=f['HP201']; assert (r['bytes'], r['family'], r['verdict']) == (128, None, 'not-honored'), r
r=f['HP202']; assert (r['bytes'], r['verdict']) == (16, 'unsafe'), r
r=f['HP101']; assert (r['bytes'], r['verdict']) == (32, 'unsafe'), r" "$T/facts.json" && [ $st = 0 ] && ok || bad "JSON finding facts (exit $st)"

# 4. SARIF for GitHub: URIs relative to the enclosing git work tree (or
# --source-root), %SRCROOT% in originalUriBaseIds, headline messages, evidence as
# properties, self-contained help, fingerprints that survive moved lines.
mkdir -p "$T/repo/.git" "$T/repo/hlo/sub"
cp "$LRT" "$T/repo/hlo/sub/m.hlo"
(cd "$T/repo/hlo" && "$H" check --format=sarif sub/m.hlo) >"$T/r.sarif"; st=$?
ROOT=$(cd "$T/repo" && pwd -P)
py "
run=d['runs'][0]
assert run['originalUriBaseIds'] == {'%SRCROOT%': {'uri': 'file://$ROOT/'}}, run['originalUriBaseIds']
res=run['results']; assert len(res) == 1
a=res[0]['locations'][0]['physicalLocation']['artifactLocation']
assert a == {'uri': 'hlo/sub/m.hlo', 'uriBaseId': '%SRCROOT%'}, a
m=res[0]['message']['text']
assert m.startswith('layout round trip: p goes {1,0} -> {0,1} -> {1,0}') and '\n' not in m, m
ev=res[0]['properties']['evidence']
assert len(ev) == 4 and ev[0] == '5:3: p = f32[2,3]{1,0} parameter', ev
for r in run['tool']['driver']['rules']:
    for t in (r['help']['markdown'], r['help']['text'], r['fullDescription']['text']):
        assert '](' not in t.replace('](http', ''), (r['id'], t)
    assert '## How to fix' in r['help']['markdown'], r['id']" "$T/r.sarif" && [ $st = 0 ] && ok || bad "SARIF repository-relative URIs (exit $st)"
(cd "$T/repo/hlo" && "$H" check --format=sarif --source-root . sub/m.hlo) >"$T/r2.sarif"
HL=$(cd "$T/repo/hlo" && pwd -P)
py "
run=d['runs'][0]
assert run['originalUriBaseIds']['%SRCROOT%']['uri'] == 'file://$HL/'
assert run['results'][0]['locations'][0]['physicalLocation']['artifactLocation']['uri'] == 'sub/m.hlo'" "$T/r2.sarif" \
	&& ok || bad "SARIF --source-root"
"$H" check --format=sarif --source-root "$T/none" "$LRT" >/dev/null 2>"$T/err"; st=$?
[ $st = 2 ] && grep -q -- "--source-root: no directory" "$T/err" && ok || bad "--source-root missing dir: exit $st"
# moved lines: same partialFingerprints, other startLine
{ printf '// moved\n// down\n\n'; cat "$LRT"; } >"$T/repo/hlo/sub/m.hlo"
(cd "$T/repo/hlo" && "$H" check --format=sarif sub/m.hlo) >"$T/r3.sarif"
python3 -c "
import json,sys
a,b=[json.load(open(f))['runs'][0]['results'] for f in sys.argv[1:3]]
assert [x['partialFingerprints'] for x in a] == [x['partialFingerprints'] for x in b]
assert [x['locations'][0]['physicalLocation']['region']['startLine'] + 3 for x in a] == \
       [x['locations'][0]['physicalLocation']['region']['startLine'] for x in b]" "$T/r.sarif" "$T/r3.sarif" \
	&& ok || bad "SARIF partialFingerprints moved with the lines"

# 4b. A Python place (issue 23): in the repository, it is locations[0] and the HLO
# line a related location; outside it (an absolute path elsewhere), the HLO line
# stays first and the Python file is a related location by its file URI; either
# way the fingerprints do not move with the HLO or the Python lines.
DEMO=corpus/demo/train_step.before.hlo
mkdir -p "$T/repo/model"
seq 1 60 | sed 's/^/# line /' >"$T/repo/model/train.py"
sed "s|/home/me/model/train.py|$ROOT/model/train.py|g" $DEMO >"$T/repo/hlo/py.hlo"
sed "s|/home/me/model/train.py|/opt/elsewhere/train.py|g" $DEMO >"$T/repo/hlo/out.hlo"
sed "s|/home/me/model/train.py|model/train.py|g" $DEMO >"$T/repo/hlo/rel.hlo"
for x in py out rel; do
	(cd "$T/repo/hlo" && "$H" check --format=sarif --fail-on=none $x.hlo) >"$T/$x.sarif"
done
py "
r=[x for x in d['runs'][0]['results'] if (x['properties']['source'] or {}).get('line') == 45]
assert len(r) == 1, len(r)
r=r[0]
p=r['locations'][0]['physicalLocation']
assert p['artifactLocation'] == {'uri': 'model/train.py', 'uriBaseId': '%SRCROOT%'}, p
assert p['region']['startLine'] == 45, p
m=r['locations'][0]['message']['text']
assert m.startswith('Python source at ') and m.endswith('/model/train.py:45'), m
h=r['relatedLocations'][0]
assert h['id'] == 1 and h['physicalLocation']['artifactLocation'] == {'uri': 'hlo/py.hlo', 'uriBaseId': '%SRCROOT%'}, h
assert h['physicalLocation']['region'] == {'startLine': 23, 'startColumn': 3}, h
assert h['message']['text'] == 'HLO: new_cache in decode_body', h
assert h['logicalLocations'][0]['name'] == 'new_cache', h
# a finding without a place: the HLO line first, no related location
n=[x for x in d['runs'][0]['results'] if x['properties']['source'] is None or not x['properties']['source']['file']]
assert n and all(x['locations'][0]['physicalLocation']['artifactLocation']['uri'] == 'hlo/py.hlo' and 'relatedLocations' not in x for x in n), n" "$T/py.sarif" \
	&& ok || bad "SARIF: a Python place in the repository first"
py "
r=[x for x in d['runs'][0]['results'] if 'relatedLocations' in x]
assert len(r) == 1, len(r)
r=r[0]
assert r['locations'][0]['physicalLocation']['artifactLocation'] == {'uri': 'hlo/out.hlo', 'uriBaseId': '%SRCROOT%'}, r['locations']
p=r['relatedLocations'][0]
assert p['physicalLocation']['artifactLocation'] == {'uri': 'file:///opt/elsewhere/train.py'}, p
assert p['physicalLocation']['region'] == {'startLine': 45}, p
assert p['message']['text'] == 'Python source at /opt/elsewhere/train.py:45, outside the repository', p" "$T/out.sarif" \
	&& ok || bad "SARIF: a Python file outside the repository as a related location"
# a relative path that names a file of the repository is the repository's
py "
r=[x for x in d['runs'][0]['results'] if x['locations'][0]['physicalLocation']['artifactLocation']['uri'] == 'model/train.py']
assert len(r) == 1, [x['locations'] for x in d['runs'][0]['results']]" "$T/rel.sarif" && ok || bad "SARIF: a repository-relative Python path"
# the fingerprints stay when the HLO lines move and when the Python lines do
{ printf '// moved\n// down\n'; sed 's/source_line=45/source_line=47/' "$T/repo/hlo/py.hlo"; } >"$T/repo/hlo/py2.hlo"
(cd "$T/repo/hlo" && "$H" check --format=sarif --fail-on=none py2.hlo) >"$T/py2.sarif"
python3 -c "
import json,sys
a,b=[json.load(open(f))['runs'][0]['results'] for f in sys.argv[1:3]]
assert [x['partialFingerprints'] for x in a] == [x['partialFingerprints'] for x in b]
la=[x['locations'][0]['physicalLocation']['region']['startLine'] for x in a]
lb=[x['locations'][0]['physicalLocation']['region']['startLine'] for x in b]
assert 45 in la and 47 in lb and la != lb, (la, lb)" "$T/py.sarif" "$T/py2.sarif" \
	&& ok || bad "SARIF partialFingerprints moved with the Python lines"

# 5. Schemas: JUnit (Jenkins junit-4.xsd) and Checkstyle with xmllint, SARIF with
# the Multitool (rule kinds Sarif and Gh: 0 results), on real modules and on a
# report with a parse failure. Each validator must also reject a broken report.
for fmt in junit checkstyle; do
	xsd=tests/junit-4.xsd; [ $fmt = checkstyle ] && xsd=tests/checkstyle.xsd
	"$H" check --format=$fmt --fail-on=none $REAL >"$T/v.$fmt" 2>/dev/null
	for f in "$T/v.$fmt" "$T/fail.$fmt"; do
		xmllint --noout --schema $xsd "$f" 2>"$T/xerr" && ok || bad "$fmt report does not validate: $(head -n 3 "$T/xerr")"
	done
	sed 's/ name="[^"]*"//' "$T/fail.$fmt" >"$T/broken.$fmt"
	xmllint --noout --schema $xsd "$T/broken.$fmt" 2>/dev/null && bad "$xsd accepts a report without names" || ok
done
MT=${SARIF_MULTITOOL:-}
[ -n "$MT" ] || MT=$(sh .ci/sarif-deps.sh build/node) || MT=
if [ -z "$MT" ] || [ ! -x "$MT" ]; then
	bad "no SARIF Multitool (.ci/sarif-deps.sh failed)"
else
	# the Multitool's own SARIF log (-o) lists what it found: count the results
	validate() {
		rm -f "$T/mt.sarif"
		"$MT" validate --rule-kind "Sarif;Gh" -o "$T/mt.sarif" "$1" >"$T/mt.out" 2>&1 || { echo -1; return; }
		python3 -c "import json,sys; print(sum(len(r.get('results', [])) for r in json.load(open(sys.argv[1]))['runs']))" "$T/mt.sarif" 2>/dev/null || echo -1
	}
	for f in $REAL; do
		"$H" check --format=sarif --fail-on=none "$f" >"$T/v.sarif" 2>/dev/null
		n=$(validate "$T/v.sarif")
		[ "$n" = 0 ] && ok || { bad "Multitool: $n results on the report of $f"; head -n 20 "$T/mt.out"; }
	done
	for f in "$T/fail.sarif" "$T/r.sarif" "$T/py.sarif" "$T/out.sarif"; do
		n=$(validate "$f")
		[ "$n" = 0 ] && ok || { bad "Multitool: $n results on $f"; head -n 20 "$T/mt.out"; }
	done
	# a result without a location breaks GitHub's rules: found
	python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); del d['runs'][0]['results'][0]['locations']
json.dump(d, open(sys.argv[2], 'w'))" "$T/r.sarif" "$T/broken.sarif"
	n=$(validate "$T/broken.sarif")
	[ "$n" -gt 0 ] 2>/dev/null && ok || bad "Multitool finds nothing in a broken report ($n)"
fi

# 6. --color=auto|always|never, NO_COLOR and FORCE_COLOR, the same in every command
# that prints findings (check, gate, donation). ESC is the colour's first byte.
ESC=$(printf '\033')
AV=$RT/annotation-violated/fires_no_alias
colored() { # colored WANT(0|1) ENV... -- CMD...: the output has colour or not
	want=$1; shift
	env "$@" >"$T/col" 2>&1 </dev/null
	if grep -q "$ESC" "$T/col"; then got=1; else got=0; fi
	[ $got = $want ] && ok || bad "colour $got, want $want: $*"
}
for cmd in "check --fail-on=none $LRT" "gate corpus/gate/base.hlo corpus/gate/head.hlo" \
	"donation --annotations $AV.xml $AV.hlo"; do
	set -- $cmd
	colored 0 NO_COLOR= FORCE_COLOR= "$H" "$@"            # not a terminal
	colored 1 NO_COLOR= FORCE_COLOR= "$H" "$@" --color=always
	colored 1 NO_COLOR=1 "$H" "$@" --color=always         # the flag wins
	colored 0 FORCE_COLOR=1 "$H" "$@" --color=never
	colored 1 NO_COLOR= FORCE_COLOR=1 "$H" "$@"
	colored 0 NO_COLOR=1 FORCE_COLOR=1 "$H" "$@"
	colored 0 NO_COLOR= FORCE_COLOR=0 "$H" "$@"
	"$H" "$@" --color=sometimes >/dev/null 2>"$T/err"; st=$?
	[ $st = 2 ] && [ "$(grep -c -- "--color takes auto, always or never, not 'sometimes'" "$T/err")" = 1 ] && ok \
		|| bad "$1 --color=sometimes: exit $st: $(head -n 2 "$T/err")"
done
# what is coloured: the severity (check, gate), the violation and the verdict (donation)
"$H" check --color=always --fail-on=none "$LRT" | grep -q "${ESC}\[1;35mwarning:${ESC}\[0m layout round trip" && ok || bad "check colour"
"$H" gate --color=always corpus/gate/base.hlo corpus/gate/head.hlo | grep -q "^gate: ${ESC}\[1;31mHEAD regresses:${ESC}\[0m" && ok || bad "gate colour"
"$H" donation --color=always --annotations $AV.xml $AV.hlo | grep -q "^$AV.hlo: ${ESC}\[1;31mannotation violated:${ESC}\[0m state.params\['w'\] is not donated; donate it (expected by fires_no_alias.xml:3)$" && ok || bad "donation colour"
# the JSON and XML formats never have colour
"$H" check --color=always --format=json --fail-on=none "$LRT" | grep -q "$ESC" && bad "colour in JSON" || ok

echo "ci-outputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
