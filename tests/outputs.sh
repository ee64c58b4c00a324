#!/bin/sh
# Nothing lost (docs/limits.md): inputs are never written; result files (-o) appear
# whole or not at all, also when the run is interrupted by SIGINT or SIGTERM.
# HLOPROOF names the binary, HLOGEN the generator, HLOPROOF_SHARED the shared folder.
H=${HLOPROOF:-build/hloproof}
G=${HLOGEN:-build/hlogen}
S=${HLOPROOF_SHARED:-../shared}
SIG_INSTRUCTIONS=${SIG_INSTRUCTIONS:-1000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-outputs.XXXXXX") || exit 2
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. Inputs are never written: every command, on a read-only copy of both corpora,
# leaves every file's checksum and the directory listing unchanged. The command
# list comes from --help, so commands merged later are covered without edits.
mkdir "$T/ro"
cp -R corpus "$T/ro/own"
[ -d "$S/corpus" ] && cp -R "$S/corpus" "$T/ro/shared"
chmod -R a-w "$T/ro"
(cd "$T/ro" && find . -type f | sort | xargs sha256sum) >"$T/before"
(cd "$T/ro" && find . | sort) >"$T/list-before"
cmds=$("$H" --help | grep -E '^  [a-z]' | awk '{ print $1 }')
[ -n "$cmds" ] || bad "no commands in --help"
# Commands that take many files get the whole tree at once; every file also goes
# through each command alone for the project corpus, and through print -o for all.
for c in $cmds; do
	"$H" "$c" "$T/ro" >/dev/null 2>&1 </dev/null
	"$H" "$c" --format=json "$T/ro" >/dev/null 2>&1 </dev/null
	"$H" "$c" - <"$T/ro/own/demo/step.hlo" >/dev/null 2>&1
	for f in $(find "$T/ro/own" -name '*.hlo' | sort); do
		"$H" "$c" "$f" >/dev/null 2>&1 </dev/null
	done
done
for f in $(find "$T/ro" -name '*.hlo' | sort); do
	"$H" print -o "$T/printed.hlo" "$f" >/dev/null 2>&1 </dev/null
done
(cd "$T/ro" && find . -type f | sort | xargs sha256sum) >"$T/after"
(cd "$T/ro" && find . | sort) >"$T/list-after"
if cmp -s "$T/before" "$T/after" && cmp -s "$T/list-before" "$T/list-after"; then ok
else bad "inputs changed:"; diff "$T/before" "$T/after" | head; diff "$T/list-before" "$T/list-after" | head; fi
[ "$(wc -l <"$T/before")" -gt 10 ] && ok || bad "read-only copy holds too few files"

# 2. print -o: the output names the input -> refused, input intact
cp corpus/demo/step.hlo "$T/in.hlo"
sum=$(sha256sum <"$T/in.hlo")
"$H" print -o "$T/in.hlo" "$T/in.hlo" >/dev/null 2>"$T/err"; st=$?
[ $st = 2 ] && [ "$(sha256sum <"$T/in.hlo")" = "$sum" ] && grep -q "is the input" "$T/err" && ok \
	|| bad "print -o INPUT INPUT: exit $st: $(head -n 1 "$T/err")"
if "$H" --help | grep -q '^  check '; then
	for opt in -o --write-baseline; do
		"$H" check "$opt" "$T/in.hlo" "$T/in.hlo" >/dev/null 2>"$T/err"; st=$?
		[ $st = 2 ] && [ "$(sha256sum <"$T/in.hlo")" = "$sum" ] && grep -q "is the input" "$T/err" && ok \
			|| bad "check $opt INPUT INPUT: exit $st: $(head -n 1 "$T/err")"
	done
fi
ln -s in.hlo "$T/link.hlo"
"$H" print -o "$T/link.hlo" "$T/in.hlo" >/dev/null 2>&1; st=$?
[ $st = 2 ] && [ "$(sha256sum <"$T/in.hlo")" = "$sum" ] && ok || bad "print -o via a symlink to the input: exit $st"

# 3. -o writes the same bytes as stdout, and leaves no temporary file behind
"$H" print "$T/in.hlo" >"$T/stdout.hlo"
"$H" print -o "$T/out.hlo" "$T/in.hlo"; st=$?
[ $st = 0 ] && cmp -s "$T/stdout.hlo" "$T/out.hlo" && ok || bad "print -o differs from stdout (exit $st)"
# over an existing file: replaced whole
echo old >"$T/out.hlo"
"$H" print -o "$T/out.hlo" "$T/in.hlo" && cmp -s "$T/stdout.hlo" "$T/out.hlo" && ok || bad "print -o over an existing file"
# a bad input: the old output stays as it was
echo old >"$T/out.hlo"
printf 'HloModule broken\n' >"$T/bad.hlo"
"$H" print -o "$T/out.hlo" "$T/bad.hlo" >/dev/null 2>&1; st=$?
[ $st = 2 ] && [ "$(cat "$T/out.hlo")" = old ] && ok || bad "print -o with bad input: exit $st, output changed"
# unwritable places: exit 2 with FILE: error, nothing created
"$H" print -o "$T/no-such-dir/out.hlo" "$T/in.hlo" >/dev/null 2>"$T/err"; st=$?
[ $st = 2 ] && grep -q "^$T/no-such-dir/out.hlo: error: cannot create output file" "$T/err" && ok \
	|| bad "print -o into a missing directory: exit $st: $(head -n 1 "$T/err")"
"$H" print -o "$T/" "$T/in.hlo" >/dev/null 2>"$T/err"; st=$?
[ $st = 2 ] && ok || bad "print -o DIR/: exit $st"
left=$(find "$T" -maxdepth 2 -name '.*.tmp' | wc -l)
[ "$left" = 0 ] && ok || bad "$left temporary files left behind"

# 4. SIGINT / SIGTERM in the middle of writing a large module: no output file and no
# temporary file remain, and the process dies of the signal (status 128+N).
# Background jobs of a non-interactive shell ignore SIGINT; env restores the default.
if ! env --default-signal=INT true 2>/dev/null; then
	bad "env --default-signal is missing (coreutils >= 8.31 needed for the signal test)"
elif [ ! -x "$G" ]; then
	bad "no $G (make build/hlogen)"
else
	"$G" --instructions "$SIG_INSTRUCTIONS" >"$T/big.hlo" 2>/dev/null
	for sig in INT TERM; do
		rm -f "$T/OUT"
		env --default-signal=INT "$H" print "$T/big.hlo" -o "$T/OUT" 2>/dev/null &
		pid=$!
		seen=0 i=0
		while [ $i -lt 6000 ]; do          # up to 60 s for the parse to finish
			for tmp in "$T"/.OUT.*.tmp; do [ -s "$tmp" ] && seen=1; done
			[ $seen = 1 ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.01; i=$((i + 1))
		done
		kill -$sig $pid 2>/dev/null
		wait $pid 2>/dev/null; st=$?
		case $sig in INT) want=130 ;; TERM) want=143 ;; esac
		left=$(find "$T" -maxdepth 1 -name '.OUT.*' | wc -l)
		if [ $seen != 1 ]; then bad "SIG$sig: never saw the temporary file being written (exit $st)"
		elif [ -e "$T/OUT" ] || [ "$left" != 0 ]; then bad "SIG$sig: OUT exists=$([ -e "$T/OUT" ] && echo yes || echo no), $left temporary files"
		elif [ $st != $want ]; then bad "SIG$sig: exit $st, want $want"
		else ok; fi
	done
	# a signal that was ignored when the run started (nohup, a background job) stays
	# ignored: the run completes and commits the whole output
	rm -f "$T/OUT"
	env --ignore-signal=INT "$H" print "$T/big.hlo" -o "$T/OUT" 2>/dev/null &
	pid=$!
	seen=0 i=0
	while [ $i -lt 6000 ]; do
		for tmp in "$T"/.OUT.*.tmp; do [ -s "$tmp" ] && seen=1; done
		[ $seen = 1 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.01; i=$((i + 1))
	done
	kill -INT $pid 2>/dev/null
	wait $pid 2>/dev/null; st=$?
	"$H" print "$T/big.hlo" | cmp -s - "$T/OUT"; same=$?
	if [ $seen = 1 ] && [ $st = 0 ] && [ $same = 0 ]; then ok
	else bad "ignored SIGINT: exit $st, saw the temporary: $seen, output complete: $([ $same = 0 ] && echo yes || echo no)"; fi
fi

# 5. A repair lists each control edge once: "repair (graph: N ordering(s) ...):
# control edges" names N distinct edges. (A buffer whose hazards force the same
# edge many times printed it once per hazard past the 64th.)
if [ -x "$G" ] && "$G" --instructions 40000 >"$T/rep.hlo" 2>/dev/null; then
	"$H" check "$T/rep.hlo" >"$T/rep.out" 2>&1
	res=$(grep -o 'repair (graph: [0-9]* ordering(s).*control edges .*' "$T/rep.out" | awk '{
		n = $3 + 0; sub(/.*control edges /, ""); k = split($0, e, ", "); delete seen; d = 0
		for (i = 1; i <= k; i++) if (!(e[i] in seen)) { seen[e[i]] = 1; d++ }
		lines++; if (k != d || d != n) { bad++; printf "%d forced, %d listed, %d distinct\n", n, k, d }
	} END { printf "%d lines %d bad\n", lines, bad + 0 }' | tail -n 2)
	case "$res" in
	*" lines 0 bad") [ "${res%% lines*}" -gt 0 ] && ok || bad "no repair lines in the 40k module" ;;
	*) bad "repair edges: $res" ;;
	esac
else
	bad "no $G to generate the repair-list module"
fi

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
