#!/bin/sh
# bench/run.sh HLOPROOF HLOGEN - speed and memory of hloproof on large input.
#
# Generates the synthetic 100k and 1M instruction modules (into BENCH_DIR,
# default bench/ next to HLOGEN), then times commands
# on them and on the three largest real modules. Each row runs its command
# BENCH_RUNS times (default 5) pinned to one core when taskset works, and
# prints the median time, the throughput, the peak RSS and RSS/input next to
# its target. A row whose command fails prints FAIL and the script exits 1;
# a missed target prints MISS (exit 1 only with BENCH_STRICT=1).
#
# Adding a row: bench_cmd LABEL TARGET CMD...
#   LABEL   a short name for the table
#   TARGET  space-separated conditions, or "-":
#           mbps>=N (throughput), rss<Nx (peak RSS / input size), ms<=N,
#           mib<=N (peak RSS in MiB), x<=N (time / $ref_ms: at most N times
#           a reference row), speedup>=N ($ref_ms / time: at least N times
#           faster than the reference row)
#   CMD     the command; its last argument is the input file (for MB/s).
# When the command prints hloproof's "stats: ... parsed in X ms ... peak RSS
# N KiB" line on stderr, those figures are used (parse time only); otherwise
# the wall time of the process and its peak RSS from /usr/bin/time.
# After a row, $last_ms holds its median, $last_out and $last_err the
# stdout and stderr of its last run. PIN="..." before a row overrides the
# pinning (the --jobs rows run on both cores). BENCH_ROWS="check jobs" runs
# only those groups (parse, buffers, timeline, check, jobs, fix, shapes). BENCH_HOST_MIN
# and BENCH_JOBS_TRIES: when the --jobs target rows count (below).
set -u

H=${1:?usage: run.sh HLOPROOF HLOGEN}
G=${2:?usage: run.sh HLOPROOF HLOGEN}
SHARED=${HLOPROOF_SHARED:-../shared}
OUT=${BENCH_DIR:-$(dirname "$G")/bench}
RUNS=${BENCH_RUNS:-5}
STRICT=${BENCH_STRICT:-0}

mkdir -p "$OUT" || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hloproof-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

PIN=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	PIN="taskset -c 0"
fi
TIMECMD=
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	TIMECMD=/usr/bin/time
fi

failed=0
missed=0

now_ns() { date +%s%N; }

# median of the numbers on stdin, one per line
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

header() {
	printf '%-44s %10s %9s %9s %8s  %-22s %s\n' \
		"benchmark" "time ms" "MB/s" "RSS MiB" "RSS/in" "target" "status"
	printf '%-44s %10s %9s %9s %8s  %-22s %s\n' \
		"---------" "-------" "----" "-------" "------" "------" "------"
}

# run_once LABEL TARGET CMD...: one timed run of CMD, its figures appended
# to $TMP/times, rss, user and sys; prints a FAIL row and returns 1 when
# the command fails
run_once() {
	label=$1; target=$2; shift 2
	t0=$(now_ns)
	if [ -n "$TIMECMD" ]; then
		$PIN $TIMECMD -o "$TMP/time.out" -f "%M %U %S" "$@" >"$TMP/out" 2>"$TMP/err"
	else
		$PIN "$@" >"$TMP/out" 2>"$TMP/err"
	fi
	st=$?
	t1=$(now_ns)
	# 0 clean, 1 findings: both are a successful run; 3 (some verdict left
	# unknown) ran to its end and is timed, but its row cannot meet a target
	[ "$st" = 3 ] && unknown_exit=1
	if [ "$st" -gt 1 ] && [ "$st" != 3 ]; then
		printf '%-44s %10s %9s %9s %8s  %-22s %s\n' "$label" - - - - "$target" "FAIL (exit $st)"
		sed 's/^/    /' "$TMP/err" | head -n 5
		failed=1
		return 1
	fi
	stats=$(grep '^stats: .* parsed in ' "$TMP/err" | tail -n 1)
	if [ -n "$stats" ]; then
		echo "$stats" | sed -n 's/.* parsed in \([0-9.]*\) ms.*/\1/p' >>"$TMP/times"
		echo "$stats" | sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' >>"$TMP/rss"
	else
		echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e6 }' >>"$TMP/times"
		if [ -n "$TIMECMD" ]; then
			tail -n 1 "$TMP/time.out" | awk '{ print $1 }' >>"$TMP/rss"
			tail -n 1 "$TMP/time.out" | awk '{ print $2 }' >>"$TMP/user"
			tail -n 1 "$TMP/time.out" | awk '{ print $3 }' >>"$TMP/sys"
		fi
	fi
	return 0
}

# bench_cmd LABEL TARGET CMD...
bench_cmd() {
	label=$1; target=$2; shift 2
	last_ms="" # a failed row leaves no time for the rows that compare with it
	unknown_exit=0
	: >"$TMP/times"; : >"$TMP/rss"; : >"$TMP/user"; : >"$TMP/sys"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		run_once "$label" "$target" "$@" || return 1
	done
	report_row "$label" "$target" "$@"
}

# report_row LABEL TARGET CMD...: the medians of the runs in $TMP as a row
# (the input file, CMD's last argument, gives MB/s)
report_row() {
	label=$1; target=$2; shift 2
	last_ms=""
	ref=${ref_ms:-0}
	eval "input=\${$#}"
	bytes=0
	[ -f "$input" ] && bytes=$(wc -c <"$input")
	ms=$(median <"$TMP/times")
	last_user=$(median <"$TMP/user")
	last_sys=$(median <"$TMP/sys")
	rss=$(median <"$TMP/rss")
	line=$(awk -v ms="$ms" -v rss="$rss" -v bytes="$bytes" -v target="$target" -v ref="$ref" '
	BEGIN {
		mbps = (ms > 0 && bytes > 0) ? bytes / (ms / 1000) / 1e6 : -1
		ratio = (rss != "" && bytes > 0) ? rss * 1024 / bytes : -1
		ok = 1; known = 1
		n = split(target, conds, " ")
		for (i = 1; i <= n; i++) {
			c = conds[i]
			if (c == "-") continue
			if (c ~ /^mbps>=/) { v = substr(c, 7) + 0; if (mbps < 0) known = 0; else if (mbps < v) ok = 0 }
			else if (c ~ /^rss<.*x$/) { v = substr(c, 5, length(c) - 5) + 0; if (ratio < 0) known = 0; else if (ratio >= v) ok = 0 }
			else if (c ~ /^ms<=/) { v = substr(c, 5) + 0; if (ms > v) ok = 0 }
			else if (c ~ /^mib<=/) { v = substr(c, 6) + 0; if (rss == "") known = 0; else if (rss / 1024 > v) ok = 0 }
			else if (c ~ /^x<=/) { v = substr(c, 4) + 0; if (ref <= 0) known = 0; else { x = ms / ref; note = note sprintf(" (%.2fx)", x); if (x > v) ok = 0 } }
			else if (c ~ /^speedup>=/) { v = substr(c, 10) + 0; if (ref <= 0 || ms <= 0) known = 0; else { x = ref / ms; note = note sprintf(" (%.2fx faster)", x); if (x < v) ok = 0 } }
			else known = 0
		}
		status = (!ok ? "MISS" : (!known ? "n/a" : (target == "-" ? "-" : "ok"))) note
		printf "%.1f\t%s\t%s\t%s\t%s\n", ms,
			mbps < 0 ? "-" : sprintf("%.1f", mbps),
			rss == "" ? "-" : sprintf("%.1f", rss / 1024),
			ratio < 0 ? "-" : sprintf("%.2fx", ratio), status
	}')
	ms=$(echo "$line" | cut -f1)
	mbps=$(echo "$line" | cut -f2)
	rssm=$(echo "$line" | cut -f3)
	ratio=$(echo "$line" | cut -f4)
	status=$(echo "$line" | cut -f5)
	if [ "${unknown_exit:-0}" = 1 ]; then
		case "$status" in MISS*) rest=${status#MISS} ;; ok*) rest=${status#ok} ;; *) rest=" $status" ;; esac
		status="MISS (exit 3: verdicts unknown)$rest"
	fi
	case "$status" in MISS*) missed=1 ;; esac
	printf '%-44s %10s %9s %9s %8s  %-22s %s\n' "$label" "$ms" "$mbps" "$rssm" "$ratio" "$target" "$status"
	last_ms=$ms
	cp "$TMP/out" "$TMP/last_out"
	cp "$TMP/err" "$TMP/last_err"
	return 0
}

# ---- inputs ---------------------------------------------------------------
for n in 100000 1000000; do
	f="$OUT/synth_$n.hlo"
	if ! "$G" --instructions "$n" >"$f.tmp" 2>"$TMP/gen.err"; then
		echo "FAIL: $G --instructions $n"; cat "$TMP/gen.err"; exit 1
	fi
	mv "$f.tmp" "$f"
done
SYN100K="$OUT/synth_100000.hlo"
SYN1M="$OUT/synth_1000000.hlo"

# The three largest real modules, largest first.
REAL=$(ls -S "$SHARED"/corpus/real/*.hlo 2>/dev/null | head -n 3)
if [ -z "$REAL" ]; then
	echo "FAIL: no modules in $SHARED/corpus/real"; exit 1
fi
LARGEST=$(echo "$REAL" | head -n 1)

echo "hloproof bench: $RUNS runs per row, median; ${PIN:-not pinned}; $(uname -m)"
for f in $REAL "$SYN100K" "$SYN1M"; do
	printf '  %-40s %9d bytes\n' "$(basename "$f")" "$(wc -c <"$f")"
done
echo
header

# ---- rows -------------------------------------------------------------------
MIXTRAL="$SHARED/corpus/real/maxtext_mixtral_8x7b_train_preopt.hlo"
[ -f "$MIXTRAL" ] || MIXTRAL=$LARGEST
MIX=$(basename "$MIXTRAL" .hlo)
# BENCH_ROWS: the groups to run (default all)
want() {
	case " ${BENCH_ROWS:-parse buffers timeline check jobs fix shapes} " in *" $1 "*) return 0 ;; esac
	return 1
}

if want parse; then
# Issue 2: >= 200 MB/s and peak memory < 6x input on the largest real module.
# The other files show their figures without a target: a fixed ~6 MiB of shared
# libraries (Z3 3.5, libxml2 with ICU 2.6) weighs 3x on a 2 MB file.
for f in $REAL; do
	if [ "$f" = "$LARGEST" ]; then t="mbps>=200 rss<6x"; else t="-"; fi
	bench_cmd "parse $(basename "$f" .hlo)" "$t" "$H" parse --stats "$f"
done
bench_cmd "parse synth_100k" "-" "$H" parse --stats "$SYN100K"
bench_cmd "parse synth_1M" "-" "$H" parse --stats "$SYN1M"
fi

if want buffers; then
# Issue 3: the ownership report of the 1M-instruction module in < 10 s, < 4 GB.
bench_cmd "buffers synth_1M (text)" "ms<=10000 mib<=4096" "$H" buffers "$SYN1M"
bench_cmd "buffers synth_1M (json)" "ms<=10000 mib<=4096" "$H" buffers --format=json "$SYN1M"
fi

# Issue 7: check (parse, analyses, Z3 where needed, every rule, the report).
# The largest real module: at most 0.5 s and 5x its parse, both whole
# processes (wall time); the synthetic modules: 1M in 20 s and 4 GiB, and
# at most 15x the 100k one (near-linear).
# z3_row LABEL TARGET: the --stats line of the last row as figures: queries
# sent to Z3, constraints per query (median, max), query time (median), and
# the share of verdicts the graph decided without a query.
z3_row() {
	st=$(grep '^stats: .*smt_queries=' "$TMP/last_err" | tail -n 1)
	if [ -z "$st" ]; then
		printf '  %-42s %s\n' "$1" "FAIL (no stats line)"; failed=1; return
	fi
	line=$(echo "$st" | awk -v label="$1" -v target="$2" '
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		status = "ok"
		if (target == "(figures only)") status = "-"
		else if (f["smt_queries"] > 0 && f["query_ms_median"] > 1) status = "MISS"
		med = f["smt_queries"] > 0 ? f["query_ms_median"] " ms" : "- (no query)"
		printf "  %-42s queries %s, constraints/query median %s max %s, query time median %s, graph-decided verdicts %s/%s (%s)  [%s] %s\n",
			label, f["smt_queries"], f["constraints_median"], f["constraints_max"], med,
			f["graph_verdicts"], f["verdicts"], f["graph_share"], target, status
	}')
	echo "$line"
	case "$line" in *MISS) missed=1 ;; esac
}

# Issue 24: the timeline page of the largest real module in <= 2 s, <= 10 MB of HTML.
if want timeline; then
bench_cmd "timeline $MIX (html)" "ms<=2000" "$H" timeline -o "$TMP/timeline.html" "$MIXTRAL"
tb=$(wc -c <"$TMP/timeline.html" 2>/dev/null || echo 0)
if [ "$tb" -gt 0 ] && [ "$tb" -le 10000000 ]; then st=ok; else st=MISS; missed=1; fi
printf '  %-42s %d bytes  [<= 10000000] %s\n' "timeline $MIX page size" "$tb" "$st"
fi

if want check; then
bench_cmd "parse $MIX (process)" "-" "$H" parse "$MIXTRAL"
ref_ms=$last_ms
bench_cmd "check $MIX (x: time / parse)" "ms<=500 x<=5" "$H" check --stats "$MIXTRAL"
z3_row "z3 $MIX" "median query <= 1 ms"
ref_ms=
bench_cmd "check synth_100k" "-" "$H" check --stats "$SYN100K"
z3_row "z3 synth_100k" "median query <= 1 ms"
ref_ms=$last_ms
user100k=$last_user
sys100k=$last_sys
bench_cmd "check synth_1M (x: time / 100k)" "ms<=20000 mib<=4096 x<=15" "$H" check --stats "$SYN1M"
z3_row "z3 synth_1M" "median query <= 1 ms"
# the same ratio in CPU time: on a virtual machine the kernel's first touch
# of fresh memory (sys) grows faster than the memory (docs/performance.md)
awk -v u1="$user100k" -v s1="$sys100k" -v u2="$last_user" -v s2="$last_sys" 'BEGIN {
	if (u1 > 0) printf "  %-42s user %.2f s / %.2f s = %.1fx; sys %.2f s / %.2f s\n", "1M / 100k in CPU time (medians)", u2, u1, u2 / u1, s2, s1 }'
ref_ms=
# Z3 with --cross-check (every graph decision asked again): the queries' sizes
bench_cmd "check --cross-check $MIX" "-" "$H" check --stats --cross-check "$MIXTRAL"
z3_row "z3 --cross-check $MIX" "(figures only)"
# Z3 asked every "a schedule with none of the hazards?" question that the
# graph settles otherwise (HLOPROOF_SMT_NONE=1): the queries a view sends
# when it goes to the solver whole
bench_cmd "check synth_100k, HLOPROOF_SMT_NONE=1" "-" env HLOPROOF_SMT_NONE=1 "$H" check --stats "$SYN100K"
z3_row "z3 (every none question) synth_100k" "(figures only)"
fi

if want jobs; then
# --jobs 2 against --jobs 1 on a directory of modules, on both cores, outputs
# byte-identical. Two directories: every real module (no target: mixtral is
# most of the work, and one module runs on one thread, so its share bounds
# the speed-up; the bound is printed), and eight synthetic modules of 30k to
# 100k instructions, where the work can be shared (target 1.7x).
if [ -n "$PIN" ] && taskset -c 0,1 true 2>/dev/null; then
	PIN0=$PIN
	PIN="taskset -c 0,1"
else
	PIN0=$PIN
fi
mkdir -p "$TMP/dir" "$OUT/jobs"
for f in "$SHARED"/corpus/real/*.hlo; do
	# the modules that parse (the corpus keeps a fragment that does not)
	"$H" parse "$f" >/dev/null 2>&1 || continue
	ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$TMP/dir/"
done
for k in 1 2 3 4 5 6 7 8; do
	f="$OUT/jobs/synth_$k.hlo"
	if ! "$G" --instructions $((20000 + 10000 * k)) --seed "$k" >"$f.tmp" 2>"$TMP/gen.err"; then
		echo "FAIL: $G --instructions $((20000 + 10000 * k))"; cat "$TMP/gen.err"; exit 1
	fi
	mv "$f.tmp" "$f"
done
# jobs_rows LABEL DIR TARGET: --jobs 1 and --jobs 2 take turns (1, 2, 1,
# 2, ...) rather than five runs of one and then five of the other, so that
# a change in the host's load during the rows falls on both alike; each
# row is the median of its own runs
jobs_rows() {
	last_ms=""
	for j in 1 2; do for f in times rss user sys; do : >"$TMP/j$j.$f"; done; done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		for j in 1 2; do
			t=-; [ "$j" = 2 ] && t=$3
			for f in times rss user sys; do cp "$TMP/j$j.$f" "$TMP/$f"; done
			run_once "check --jobs $j $1" "$t" "$H" check --jobs "$j" "$2" || return 1
			for f in times rss user sys; do cp "$TMP/$f" "$TMP/j$j.$f"; done
			cp "$TMP/out" "$TMP/jobs$j.out"
		done
	done
	for f in times rss user sys; do cp "$TMP/j1.$f" "$TMP/$f"; done
	cp "$TMP/jobs1.out" "$TMP/out"
	report_row "check --jobs 1 $1" "-" "$H" check --jobs 1 "$2"
	ref_ms=$last_ms
	j1_ms=$last_ms
	j1_cpu="$last_user $last_sys"
	for f in times rss user sys; do cp "$TMP/j2.$f" "$TMP/$f"; done
	cp "$TMP/jobs2.out" "$TMP/out"
	report_row "check --jobs 2 $1" "$3" "$H" check --jobs 2 "$2"
	ref_ms=
	if cmp -s "$TMP/jobs1.out" "$TMP/jobs2.out"; then
		printf '  %-42s %s\n' "--jobs 2 output" "byte-identical to --jobs 1"
	else
		printf '  %-42s %s\n' "--jobs 2 output" "FAIL: differs from --jobs 1"; failed=1
	fi
	# the work itself: two threads that did more of it (locks, faults,
	# shared caches) would show here; the same CPU time in less wall time
	# is what the host gives (docs/performance.md, --jobs)
	echo "$j1_cpu $last_user $last_sys" | awk '$1 != "" && $3 != "" && $1 + $2 > 0 {
		printf "  %-42s %.2f / %.2f s = %.2fx\n", "CPU (user + sys) --jobs 2 / --jobs 1", $3 + $4, $1 + $2, ($3 + $4) / ($1 + $2) }'
}
# What the host gives two threads at the moment: a CPU-bound loop alone on
# core 0, then one on each core at once (medians of 3). A virtual machine's
# two cores can share a physical one, or the host can be busy: then no
# program gets 2x, and --jobs 2 falls short with it (docs/performance.md).
host_cores() {
	taskset -c 0,1 true 2>/dev/null || return 0 # no second core to measure
	: >"$TMP/one"; : >"$TMP/two"
	for k in 1 2 3; do
		t0=$(now_ns)
		taskset -c 0 awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }' 2>/dev/null
		t1=$(now_ns)
		taskset -c 0 awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }' 2>/dev/null &
		taskset -c 1 awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }' 2>/dev/null
		wait
		t2=$(now_ns)
		echo "$t0 $t1" | awk '{ printf "%.1f\n", ($2 - $1) / 1e6 }' >>"$TMP/one"
		echo "$t1 $t2" | awk '{ printf "%.1f\n", ($2 - $1) / 1e6 }' >>"$TMP/two"
	done
	one=$(median <"$TMP/one"); two=$(median <"$TMP/two")
	host_x=$(awk -v a="$one" -v b="$two" 'BEGIN { if (b > 0) printf "%.2f", 2 * a / b }')
	awk -v a="$one" -v b="$two" 'BEGIN { if (b > 0) printf "  %-42s %.0f ms for one loop alone, %.0f ms for two at once: %.2fx\n", "host: the two cores give", a, b, 2 * a / b }'
}
# host_below X: the last host line gave two loops less than X times one
host_below() { [ -n "$host_x" ] && awk -v h="$host_x" -v x="$1" 'BEGIN { exit !(h < x) }'; }
ndir=$(ls "$TMP/dir" | wc -l)
jobs_rows "real/ ($ndir modules)" "$TMP/dir" "-"
# the bound: --jobs 1 time over the largest module's own check (both processes)
bench_cmd "check (largest real module, alone)" "-" "$H" check "$MIXTRAL"
awk -v a="$j1_ms" -v b="$last_ms" 'BEGIN { if (b > 0) printf "  %-42s at most %.2fx (--jobs 1 time / its largest module)\n", "--jobs 2 on real/", a / b }'
# The target row measures --jobs only while the host lends both cores: two
# CPU-bound loops at once at least HOST_MIN times one (BENCH_HOST_MIN, 1.85:
# with its serial part, ~17 ms of ~550, check gets 1.80x from that; 1.7x
# needs 1.74x). When the host line says otherwise before the rows, wait and
# measure the host again; when it says otherwise after them, the rows are
# printed, not counted, and run again; at most BENCH_JOBS_TRIES times (4),
# after which the last rows count whatever the host gave. Every attempt is
# printed.
HOST_MIN=${BENCH_HOST_MIN:-1.85}
TRIES=${BENCH_JOBS_TRIES:-4}
try=0
while :; do
	try=$((try + 1))
	host_x=
	host_cores
	if [ "$try" -lt "$TRIES" ] && host_below "$HOST_MIN"; then
		printf '  %-42s below %s: waiting 20 s (attempt %d of %d)\n' "--jobs rows" "$HOST_MIN" "$try" "$TRIES"
		sleep 20
		continue
	fi
	missed_before=$missed
	jobs_rows "synth 30k-100k (8 modules)" "$OUT/jobs" "speedup>=1.7" || break
	host_cores
	if [ "$try" -lt "$TRIES" ] && host_below "$HOST_MIN"; then
		printf '  %-42s the host fell below %s during them: not counted, again (attempt %d of %d)\n' "--jobs rows" "$HOST_MIN" "$try" "$TRIES"
		missed=$missed_before
		continue
	fi
	break
done
PIN=$PIN0
fi
echo "  (online cores: $(nproc 2>/dev/null || echo ?); load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"

# Issue 25: hloproof fix, and check where fix gets expensive.
# bounded_row LABEL MS SECONDS CMD...: a target of MS milliseconds on a
# command that may run far longer: each run is cut at SECONDS (timeout), a
# run cut or over 3x the target ends the row after it (one run says enough);
# an exit 3 (something left unknown) is a MISS with its reason, not a FAIL.
bounded_row() {
	label=$1; ms_t=$2; lim=$3; shift 3
	: >"$TMP/times"
	i=0; note=; st=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		t0=$(now_ns)
		$PIN timeout "$lim" "$@" >"$TMP/out" 2>"$TMP/err"
		st=$?
		t1=$(now_ns)
		echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e6 }' >>"$TMP/times"
		[ "$st" = 124 ] && { note=" (cut at ${lim} s)"; break; }
		[ "$st" -gt 1 ] && { note=" (exit $st: something left unknown)"; break; }
		awk -v a="$t0" -v b="$t1" -v t="$ms_t" 'BEGIN { exit !((b - a) / 1e6 > 3 * t) }' && break
	done
	ms=$(median <"$TMP/times")
	if [ "$st" -le 1 ] && awk -v m="$ms" -v t="$ms_t" 'BEGIN { exit !(m <= t) }'; then s=ok; else s=MISS; missed=1; fi
	printf '%-44s %10s %9s %9s %8s  %-22s %s\n' "$label" "$ms" - - - "ms<=$ms_t" "$s$note"
	cp "$TMP/out" "$TMP/last_out"
}
if want fix; then
	mkdir -p "$OUT/shapes"
	sh "$(dirname "$0")/shapes.sh" --gen copies 1024 >"$OUT/shapes/copies_1024.hlo"
	sh "$(dirname "$0")/shapes.sh" --gen nesting 64 >"$OUT/shapes/nesting_64.hlo"
	bench_cmd "fix $(basename "$LARGEST" .hlo)" "ms<=3000" "$H" fix "$LARGEST"
	bench_cmd "fix $MIX" "ms<=3000" "$H" fix "$MIXTRAL"
	head -n 1 "$TMP/last_out" | sed 's/^[^:]*: /    /' | cut -c1-120
	# its 2,118 copies are no-op before optimization; read as the program's,
	# fix removes them together (the search fix does on many copies)
	bench_cmd "fix --stage=after $MIX" "ms<=3000" "$H" fix --stage=after "$MIXTRAL"
	head -n 1 "$TMP/last_out" | sed 's/^[^:]*: /    /' | cut -c1-120
	bounded_row "check copies 1024 (one buffer)" 500 120 "$H" check "$OUT/shapes/copies_1024.hlo"
	# the generated modules stand for modules after copy insertion (their
	# copies would be no-op before optimization: nothing to search)
	bounded_row "fix copies 1024 (one buffer)" 5000 120 "$H" fix --stage=after "$OUT/shapes/copies_1024.hlo"
	bounded_row "check nesting 64" 200 120 "$H" check "$OUT/shapes/nesting_64.hlo"
	# how fix grows with copies per computation (docs/performance.md)
	for k in 64 128 256 512; do
		sh "$(dirname "$0")/shapes.sh" --gen copies "$k" >"$OUT/shapes/copies_$k.hlo"
		bounded_row "fix copies $k" 5000 120 "$H" fix --stage=after "$OUT/shapes/copies_$k.hlo"
	done
fi

# How cost grows with copies per buffer and loop nesting (figures, no target)
if want shapes; then
	echo
	mkdir -p "$OUT/shapes"
	sh "$(dirname "$0")/shapes.sh" "$H" "$OUT/shapes" || failed=1
fi

echo
if [ "$failed" -ne 0 ]; then
	echo "bench: FAIL (a command failed)"
	exit 1
fi
if [ "$missed" -ne 0 ]; then
	echo "bench: some targets missed (MISS)"
	[ "$STRICT" = 1 ] && exit 1
	exit 0
fi
echo "bench: all targets met"
exit 0
