#!/bin/sh
# tests/same-output.sh OLD_BIN NEW_BIN [KNOWN_DIFFS_FILE]
#
# Do two hloproof binaries behave the same? A merge-time developer tool (make
# same-output REF=OLD_BIN), not part of `make test` or `make check`.
#
# The cases, run with both binaries from the current directory (the top of the
# repository), each compared on stdout, stderr and exit status:
#   check --format=json FILE, donation --format=json FILE, explain FILE --all,
#   buffers --format=json FILE
#     for every *.hlo file under corpus/ and every *.hlo file, and every *.txt file
#     that starts with HloModule, under $HLOPROOF_SHARED/corpus (default ../shared);
#     rejected inputs (corpus/bad, exit 2) included: their messages are compared too;
#   gate --format=json BASE HEAD
#     for the pairs of corpus/gate (base against each head), each real module against
#     itself, the real modules that are versions of one model (listed below), and
#     the real directory against itself (directory pairing).
# Prints one line per differing case (its command line, what differs, and the first
# lines of the diff), then `N same, M differ` (and how many of those were known).
#
# KNOWN_DIFFS_FILE: the intended differences, one shell pattern a line, matched
# against a case's command line as printed (e.g. `explain corpus/bad/* --all`);
# blank lines and lines starting with # are ignored. A known difference is listed
# but does not fail the run; a pattern that matches no differing case is reported.
#
# Exit status: 0 when every difference is known, 1 otherwise, 2 on bad usage.
# Runs $SAME_OUTPUT_JOBS cases at a time (default 2): the real corpus has 3.9 MB
# modules; the whole run (about 1100 cases) takes some 15 s on two cores.
set -u
if [ "${1:-}" = --one ]; then
	# internal: run case number $2 of $SO_DIR/cases with both binaries
	n=$2
	line=$(sed -n "${n}p" "$SO_DIR/cases")
	for side in old new; do
		if [ $side = old ]; then bin=$SO_OLD; else bin=$SO_NEW; fi
		# shellcheck disable=SC2086 # the case line is the command's words
		"$bin" $line >"$SO_DIR/$side/$n.out" 2>"$SO_DIR/$side/$n.err" </dev/null
		echo $? >"$SO_DIR/$side/$n.rc"
	done
	exit 0
fi
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: tests/same-output.sh OLD_BIN NEW_BIN [KNOWN_DIFFS_FILE]" >&2
	exit 2
fi
OLD=$1 NEW=$2 KNOWN=${3:-}
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || { echo "same-output: $b is not an executable" >&2; exit 2; }
done
[ -z "$KNOWN" ] || [ -r "$KNOWN" ] || { echo "same-output: cannot read $KNOWN" >&2; exit 2; }
[ -d corpus ] || { echo "same-output: run it from the top of the repository" >&2; exit 2; }
SHARED=${HLOPROOF_SHARED:-../shared}
JOBS=${SAME_OUTPUT_JOBS:-2}
# absolute paths: the binaries run from here, but name them as given
case $OLD in /*) ;; *) OLD=$(pwd)/$OLD ;; esac
case $NEW in /*) ;; *) NEW=$(pwd)/$NEW ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-same.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
mkdir "$T/old" "$T/new"

# --- the inputs, sorted, and the cases --------------------------------------
{
	find corpus -type f -name '*.hlo'
	if [ -d "$SHARED/corpus" ]; then
		find "$SHARED/corpus" -type f -name '*.hlo'
		find "$SHARED/corpus" -type f -name '*.txt' | while read -r f; do
			head -c 64 "$f" | grep -q '^[[:space:]]*HloModule' && echo "$f"
		done
	else
		echo "same-output: warning: no $SHARED/corpus: the shared corpus is not compared" >&2
	fi
} | LC_ALL=C sort >"$T/files"
if grep -q '[[:space:]]' "$T/files"; then
	echo "same-output: file names with blanks are not supported:" >&2
	grep '[[:space:]]' "$T/files" >&2
	exit 2
fi
R=$SHARED/corpus/real
{
	while read -r f; do
		echo "check --format=json $f"
		echo "donation --format=json $f"
		echo "explain $f --all"
		echo "buffers --format=json $f"
	done <"$T/files"
	for h in corpus/gate/head*.hlo; do
		echo "gate --format=json corpus/gate/base.hlo $h"
	done
	if [ -d "$R" ]; then
		for f in "$R"/*.hlo; do
			echo "gate --format=json $f $f"
		done
		# versions of one model: two configurations, or a forward and an inverse
		for p in maxtext_llama3_8b_cp_train_preopt:maxtext_llama3_8b_offload_train_preopt \
			 ptxla_neuron_llama2_tp1:ptxla_neuron_llama2_tp8_pp4 \
			 jaxdecomp_jaxfft_fft_gpu16:jaxdecomp_pfft3d_ifft_gpu16; do
			a=$R/${p%%:*}.hlo b=$R/${p#*:}.hlo
			[ -f "$a" ] && [ -f "$b" ] && echo "gate --format=json $a $b"
		done
		echo "gate --format=json $R $R"
	fi
} >"$T/cases"
total=$(wc -l <"$T/cases")

# --- run: both binaries per case, $JOBS cases at a time -----------------------
export SO_DIR="$T" SO_OLD="$OLD" SO_NEW="$NEW"
seq 1 "$total" | xargs -P "$JOBS" -n 1 sh "$0" --one

# --- compare ------------------------------------------------------------------
is_known() {
	[ -n "$KNOWN" ] || return 1
	while IFS= read -r pat; do
		case $pat in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254 # the pattern is a pattern
		case $1 in $pat) echo "$pat" >>"$T/used"; return 0 ;; esac
	done <"$KNOWN"
	return 1
}
same=0 differ=0 known=0 n=0
: >"$T/used"
while IFS= read -r line; do
	n=$((n + 1))
	what=""
	cmp -s "$T/old/$n.out" "$T/new/$n.out" || what="$what stdout"
	cmp -s "$T/old/$n.err" "$T/new/$n.err" || what="$what stderr"
	ro=$(cat "$T/old/$n.rc") rn=$(cat "$T/new/$n.rc")
	[ "$ro" = "$rn" ] || what="$what status($ro->$rn)"
	if [ -z "$what" ]; then
		same=$((same + 1))
		continue
	fi
	differ=$((differ + 1))
	if is_known "$line"; then
		known=$((known + 1))
		echo "known: $line:$what"
	else
		echo "DIFFER: $line:$what"
	fi
	for s in out err; do
		cmp -s "$T/old/$n.$s" "$T/new/$n.$s" ||
			diff "$T/old/$n.$s" "$T/new/$n.$s" | head -n 6 | sed "s/^/    std$s: /"
	done
done <"$T/cases"
if [ -n "$KNOWN" ]; then
	while IFS= read -r pat; do
		case $pat in '' | '#'*) continue ;; esac
		grep -qxF -- "$pat" "$T/used" || echo "same-output: note: known difference '$pat' matched no case"
	done <"$KNOWN"
fi
echo "same-output: $same same, $differ differ ($known known) of $n cases"
[ "$differ" -eq "$known" ]
