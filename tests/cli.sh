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

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
