#!/usr/bin/env bash
# bench.sh: logdown against the tools users would pick instead, each pair
# measured side by side in one run, one table of ratios at the end
# (make bench).
#
#   BENCH_QUICK=1 tools/bench.sh     100 MB log, 1,000 pages, fewer runs
#   tools/bench.sh                   the issue's sizes: 1 GB log, 1,000 and
#                                    10,000 pages, 1M-point chart
#
# Rows: (a) extracting train(step, loss, rate, global_rate) from a
# Cerebras-style log against grep -oP, rg -o and the plain-Python re
# script (../shared/bench/anchors/parse_results.py), with peak RSS, and
# the floor: the same job by a one-thread C loop around PCRE2 JIT
# (tools/pcre_floor.c), what the library allows on this machine;
# (b) building a 1,000- and a 10,000-page site (time and peak RSS) against Hugo and against
# the floor, cmark-gfm alone parsing and writing the same pages
# (tools/cmark_floor.c); (c) a
# 1M-point line chart against gnuplot and matplotlib; (d) `logdown serve`
# against `python3 -m http.server` under wrk; (e) `logdown pdf` against
# Chromium's print to PDF of the same pages; (f) the rebuild of a
# 1,000-report site after appending to one of its logs; (t) a 200 MB
# TensorBoard event file (tools/gen_tfevents.py) read by logdown and by
# the plain-Python reader tools/bench/tfevents_read.py, with and without
# its CRC checks (20 MB with BENCH_QUICK; BENCH_TB_SIZE=200M sets it).
# (m) a report of 500 formulas and 5,000 lines of code (tools/bench/gen_mathcode.py)
# against pandoc --mathml, with the 2 s target, and what math and
# highlighting add to building the example site (at most 20%);
# (j) reading a JSON Lines training log of $LOGSIZE (tools/bench/gen_jsonl.py) into its
# series against Python's json module (tools/bench/read_jsonl.py), with
# peak RSS; (p) `logdown parse --json` against `parse --csv` on the same
# $LOGSIZE log (issue 22: at most twice its time), both with peak RSS.
# (g) one report (a value, a mean, a chart) over the $LOGSIZE log as a
# running job writes it: the first build against grep -oP on the same
# file (at most 1.3x its time; peak RSS at most 400 MiB for 1 GB), the
# rebuild after a sentence is added (< 100 ms, < 100 MiB), after 1 KB
# is appended to the log (< 150 ms) (issue 22), the same append with
# 3 s of nothing before the build (a user saving a while after the job
# printed: no target), and after a sentence saved right after an
# append's build (the log read again: no target).
#
# Times are hyperfine medians.  Builds in (b), (c), (e) and the clean
# build of (f) start with no output and no .logdown-cache, as a first
# build does; the rebuild of (f) has both from the build before.  The corpus comes from build/gencorpus
# (seed BENCH_SEED, default 1) into $CORPUS (default /tmp/logdown-bench);
# every output, logdown's and the peers', goes to $BENCH_OUT (default
# /dev/shm/logdown-bench): the same kind of folder for every tool, and
# never /dev/null, where GNU grep stops at the first match.  A peer that
# is missing is installed from Debian when we are root; otherwise its row
# says it was skipped.  Progress goes to stderr, the table to stdout (and
# $CORPUS/results/table.md; with BENCH_OUT set, $BENCH_OUT/results/table.md,
# so that two benches run at once, each with its own BENCH_OUT, keep their
# own timings, peak RSS and table; BENCH_RESULTS names the folder outright).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] && QUICK=""
SEED=${BENCH_SEED:-1}
SHARED=${SHARED:-$ROOT/../shared}
CORPUS=${CORPUS:-/tmp/logdown-bench}
OUT=${BENCH_OUT:-/dev/shm/logdown-bench}
if [ -n "${BENCH_RESULTS:-}" ]; then RES=$BENCH_RESULTS
elif [ -n "${BENCH_OUT:-}" ]; then RES=$BENCH_OUT/results
else RES=$CORPUS/results; fi
PY=/usr/bin/python3
if [ -n "$QUICK" ]; then
	LOGSIZE=100M SMALLLOG=10M PAGES="1000" RUNS=${BENCH_RUNS:-3} SERVE_SECS=5 TBSIZE=${BENCH_TB_SIZE:-20M}
else
	LOGSIZE=1G SMALLLOG=100M PAGES="1000 10000" RUNS=${BENCH_RUNS:-5} SERVE_SECS=10 TBSIZE=${BENCH_TB_SIZE:-200M}
fi
# The log rows take a minute a run for Python on 1 GB: three runs there.
LOGRUNS=${BENCH_LOG_RUNS:-3}
POINTS=1000000
REPORTS=1000
PDFPAGES=10

say() { echo "bench: $*" >&2; }
commas() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# ---- peers: install from Debian, or remember why a row is skipped ----

apt_updated=""
apt_install() { # package...
	[ "$(id -u)" -eq 0 ] || return 1
	command -v apt-get >/dev/null || return 1
	say "installing $* from Debian"
	if [ -z "$apt_updated" ]; then
		apt-get update -q >/dev/null 2>&1 || true
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1
}

# have CMD PKG: is CMD there (after installing PKG if need be)?
have() {
	command -v "$1" >/dev/null 2>&1 && return 0
	apt_install "$2" || true
	command -v "$1" >/dev/null 2>&1
}

have_matplotlib() {
	$PY -c 'import matplotlib, numpy' 2>/dev/null && return 0
	apt_install python3-matplotlib || true
	$PY -c 'import matplotlib, numpy' 2>/dev/null
}

for need in "hyperfine hyperfine" "python3 python3"; do
	set -- $need
	if ! have "$1" "$2"; then
		say "$1 is needed to measure anything: apt-get install $2"
		exit 1
	fi
done
[ -x /usr/bin/time ] || apt_install time || true
[ -x $PY ] || { say "needs Debian's $PY"; exit 1; }
[ -x ./logdown ] && [ -x build/gencorpus ] || { say "run through make bench"; exit 1; }

mkdir -p "$CORPUS" "$RES" "$OUT"
ROWS=$RES/rows.tsv
: > "$ROWS"
rm -f "$RES"/*.json "$RES"/*.rss

# row KIND FIELDS...: one line of the table, read by tools/bench/table.py
row() {
	local IFS=$'\t'
	echo "$*" >> "$ROWS"
}
skip() { # id what reason
	row skip "$1" "$2" "$3"
	say "$1 $2: skipped: $3"
}

hf() { # json-name runs hyperfine-args...: side by side, medians to JSON
	local json=$RES/$1.json runs=$2
	shift 2
	say "$(basename "$json" .json): $runs runs each, load $(load)"
	# A command that fails leaves no JSON: its rows then say so, and the
	# other rows are still measured.
	if ! hyperfine --style basic --runs "$runs" --export-json "$json" "$@" >&2; then
		say "$(basename "$json" .json): a command failed (above); its rows show the error"
		rm -f "$json"
		return 1
	fi
}

LD=${LOGDOWN:-$ROOT/logdown}
# The servers of (d), stopped however the script ends.
ld_pid="" py_pid=""
trap 'kill $ld_pid $py_pid 2>/dev/null || true' EXIT
export LD PY OUT RES

# ---- the corpus ----

gen() { # what-exists gencorpus-args...
	local there=$1
	shift
	[ -e "$CORPUS/$there" ] && return 0
	say "generating $there"
	build/gencorpus --seed "$SEED" "$@" "$CORPUS" 2>&1 | sed 's/^/bench: /' >&2
}
# A corpus made with another seed is made again.
if [ "$(cat "$CORPUS/.seed" 2>/dev/null)" != "$SEED" ]; then
	rm -rf "$CORPUS"/logs "$CORPUS"/site-* "$CORPUS"/chart-* "$CORPUS"/reports-*
	echo "$SEED" > "$CORPUS/.seed"
fi
gen logs/cerebras-$LOGSIZE.log --log-size "$LOGSIZE"
gen logs/cerebras-$SMALLLOG.log --log-size "$SMALLLOG"
for n in $PAGES; do gen site-$n --pages "$n"; done
gen chart-$POINTS --points $POINTS
gen reports-$REPORTS --reports $REPORTS

{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "mode	$([ -n "$QUICK" ] && echo "quick (BENCH_QUICK=1)" || echo full)"
	echo "commit	$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "machine	$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Debian $(cat /etc/debian_version)"
	echo "load	$(load) at the start"
} > "$RES/meta.tsv"

# ---- (a) log extraction ----
bench_a() {
	LOG=$CORPUS/logs/cerebras-$LOGSIZE.log
	SMALL=$CORPUS/logs/cerebras-$SMALLLOG.log
	PAT='Train Device=\w+, Step=(\d+), Loss=([0-9.]+), Rate=([0-9.]+) samples/sec, GlobalRate=([0-9.]+)'
	PYSCRIPT=$SHARED/bench/anchors/parse_results.py
	export LOG PAT PYSCRIPT
	BYTES=$(stat -L -c %s "$LOG")
	GB=$(awk -v b="$BYTES" 'BEGIN {printf "%.2f GB", b / 1e9}')
	# Every command runs under /usr/bin/time, which adds its peak RSS to a
	# file: the memory comes from the timed runs themselves.
	T="/usr/bin/time -f %M -a -o"
	names=(-n logdown "$T \"\$RES/logdown.rss\" \"\$LD\" parse \"\$LOG\" --parser cerebras --csv train > \"\$OUT/a-logdown.csv\"")
	peers=()
	if have rg ripgrep; then
		names+=(-n "rg -o" "$T \"\$RES/rg.rss\" rg -o \"\$PAT\" \"\$LOG\" > \"\$OUT/a-rg.out\"")
		peers+=("rg -o")
	else
		skip "(a)" "$GB log vs rg -o" "ripgrep not installed"
	fi
	names+=(-n "grep -oP" "LC_ALL=C $T \"\$RES/grep.rss\" grep -oP \"\$PAT\" \"\$LOG\" > \"\$OUT/a-grep.out\"")
	peers+=("grep -oP")
	# The floor: the same extraction by a one-thread C loop around PCRE2
	# JIT and nothing else (tools/pcre_floor.c), for what the library
	# allows on this machine.
	FLOOR=$ROOT/build/pcre-floor
	export FLOOR
	names+=(-n "C floor" "\"\$FLOOR\" \"\$PAT\" 'Train Device=' \"\$LOG\" > \"\$OUT/a-floor.csv\"")
	if [ -f "$PYSCRIPT" ]; then
		names+=(-n "python re" "$T \"\$RES/python.rss\" \"\$PY\" \"\$PYSCRIPT\" \"\$LOG\" \"\$OUT/a-py.csv\"")
		peers+=("python re")
	else
		skip "(a)" "$GB log vs python re" "$PYSCRIPT not found (../shared beside the checkout)"
	fi
	cat "$LOG" > /dev/null # into the page cache
	if ! hf extract "$LOGRUNS" "${names[@]}"; then
		for p in "${peers[@]}"; do
			row time "(a)" "$GB log vs $p" extract logdown "$p" -
		done
		return 0
	fi
	rows=$(($(wc -l < "$OUT/a-logdown.csv") - 1))
	grep_rows=$(wc -l < "$OUT/a-grep.out")
	if [ "$rows" != "$grep_rows" ]; then
		say "logdown extracted $rows rows, grep $grep_rows: not the same work"
		exit 1
	fi
	if [ "$(wc -l < "$OUT/a-floor.csv")" != "$grep_rows" ]; then
		say "the C floor extracted $(wc -l < "$OUT/a-floor.csv") rows, grep $grep_rows"
		exit 1
	fi
	for p in "${peers[@]}"; do
		case $p in
		# Issue 22 retired the 30x-python target (the floor row shows
		# what PCRE2 allows on two cores): these hold today's ratios.
		"grep -oP") target=">=1.5" ;;
		"python re") target=">=11" ;;
		*) target="-" ;;
		esac
		row time "(a)" "$GB log, $(commas "$rows") rows, vs $p" extract logdown "$p" "$target"
	done
	row time "(a)" "$GB log vs the one-thread C floor (read, memmem, PCRE2 JIT, CSV)" extract \
		logdown "C floor" -
	[ -f "$PYSCRIPT" ] && row time "(a)" "the C floor (not logdown) vs python re" extract \
		"C floor" "python re" -
	row rate "(a)" "logdown extraction throughput" extract logdown "$BYTES" 2e9
	# Memory flat in file size: the same extraction of a log a tenth the size.
	/usr/bin/time -f %M -o "$RES/logdown-small.rss" "$LD" parse "$SMALL" --parser cerebras --csv train \
		> "$OUT/a-small.csv"
	row rss "(a)" "logdown peak RSS, $GB vs $(awk -v b="$(stat -L -c %s "$SMALL")" 'BEGIN {printf "%.2f GB", b / 1e9}') log" \
		logdown.rss logdown-small.rss flat
	for p in "${peers[@]}"; do
		f=$(echo "$p" | cut -d' ' -f1).rss
		row rss "(a)" "peak RSS, logdown vs $p" logdown.rss "$f" -
	done
	rm -f "$OUT"/a-*
}

# ---- (t) a TensorBoard event file against a plain-Python reader ----
bench_t() {
	# tools/gen_tfevents.py writes it (pure Python, a minute for 200 MB):
	# once per size, kept in the corpus.
	TB=$CORPUS/logs/events.out.tfevents.$TBSIZE
	if [ ! -e "$TB" ]; then
		say "generating $(basename "$TB")"
		mkdir -p "$CORPUS/logs"
		$PY tools/gen_tfevents.py bench "$TB.tmp" "${TBSIZE%M}" >&2 && mv "$TB.tmp" "$TB"
	fi
	TBREAD=$ROOT/tools/bench/tfevents_read.py
	export TB TBREAD
	local mb
	mb=$(awk -v b="$(stat -L -c %s "$TB")" 'BEGIN {printf "%.0f MB", b / 1e6}')
	T="/usr/bin/time -f %M -a -o"
	cat "$TB" > /dev/null
	# Both read every scalar into memory and list the tags' row counts.
	if ! hf tfevents "$LOGRUNS" \
		-n logdown "$T \"\$RES/tb-logdown.rss\" \"\$LD\" parse \"\$TB\" --list-columns > \"\$OUT/t-logdown.txt\"" \
		-n "python (CRC checked)" "$T \"\$RES/tb-python.rss\" \"\$PY\" \"\$TBREAD\" \"\$TB\" > \"\$OUT/t-py.txt\"" \
		-n "python (no CRC)" "\"\$PY\" \"\$TBREAD\" --no-crc \"\$TB\" > \"\$OUT/t-py-nocrc.txt\""; then
		row time "(t)" "$mb event file vs a plain-Python reader" tfevents logdown "python (CRC checked)" -
		return 0
	fi
	local rows
	rows=$(awk '{s += $2} END {print s}' "$OUT/t-py.txt")
	if [ "$(grep -c '\.value ' "$OUT/t-logdown.txt")" != "$(wc -l < "$OUT/t-py.txt")" ]; then
		say "logdown and python found different tags: not the same work"
		exit 1
	fi
	row time "(t)" "$mb event file, $(commas "$rows") scalars, vs python reading as tensorboard's PyRecordReader (CRCs checked)" \
		tfevents logdown "python (CRC checked)" ">=1"
	row time "(t)" "$mb event file vs python, CRCs not checked" tfevents logdown "python (no CRC)" ">=1"
	row rss "(t)" "peak RSS on the $mb event file, logdown vs python" tb-logdown.rss tb-python.rss -
	rm -f "$OUT"/t-*
}

# ---- (b) sites of 1,000 and 10,000 pages against Hugo ----
bench_b() {
	# The floor: the same pages' Markdown parsed, rendered and written by
	# cmark-gfm alone on one thread (tools/cmark_floor.c): what the
	# Markdown library allows, beside Hugo.
	export FLOOR=$ROOT/build/cmark-floor
	local hugo="" T="/usr/bin/time -f %M -a -o"
	have hugo hugo && hugo=1
	for n in $PAGES; do
		export SITE=$CORPUS/site-$n
		rm -f "$RES"/b-$n-*.rss
		names=(-n logdown "$T \"\$RES/b-$n-logdown.rss\" \"\$LD\" build \"\$SITE\" -o \"\$OUT/b-logdown\" 2>/dev/null"
			-n "cmark-gfm floor" "mkdir -p \"\$OUT/b-floor\" && $T \"\$RES/b-$n-floor.rss\" \"\$FLOOR\" \"\$SITE/content\" \"\$OUT/b-floor\"")
		[ -n "$hugo" ] && names+=(-n hugo "$T \"\$RES/b-$n-hugo.rss\" hugo --quiet -s \"\$SITE\" -d \"\$OUT/b-hugo\"")
		# Hugo as the corpus configures it leaves code fences plain
		# (config.toml); logdown highlights them, so Hugo with Chroma on
		# (highlight.toml, the corpus's own switch) is the same work for
		# that part.  Beside the target row, not in place of it: the
		# target was set against the plain configuration.
		[ -n "$hugo" ] && names+=(-n "hugo (highlighting)" "hugo --quiet -s \"\$SITE\" --config \"\$SITE/config.toml,\$SITE/highlight.toml\" -d \"\$OUT/b-hugo\"")
		hf "site-$n" "$RUNS" --warmup 1 \
			--prepare 'rm -rf "$OUT/b-logdown" "$OUT/b-hugo" "$OUT/b-floor" "$SITE/.logdown-cache"' \
			"${names[@]}" || true
		if [ "$n" = 10000 ]; then target=">=4" floor=">=0.67"; else target="-" floor="-"; fi
		if [ -n "$hugo" ]; then
			row time "(b)" "$(commas "$n")-page site vs hugo" "site-$n" logdown hugo "$target"
			row time "(b)" "$(commas "$n")-page site vs hugo highlighting code as logdown does (Chroma)" \
				"site-$n" logdown "hugo (highlighting)" -
		else
			skip "(b)" "$(commas "$n")-page site vs hugo" "hugo not installed"
		fi
		row time "(b)" "$(commas "$n")-page site vs cmark-gfm alone (floor)" "site-$n" logdown \
			"cmark-gfm floor" "$floor"
		row rss "(b)" "peak RSS, $(commas "$n") pages, logdown vs cmark-gfm alone" \
			"b-$n-logdown.rss" "b-$n-floor.rss" -
		[ -n "$hugo" ] && row rss "(b)" "peak RSS, $(commas "$n") pages, logdown vs hugo" \
			"b-$n-logdown.rss" "b-$n-hugo.rss" -
	done
	rm -rf "$OUT/b-logdown" "$OUT/b-hugo" "$OUT/b-floor" "$CORPUS"/site-*/.logdown-cache
}

# ---- (c) a 1M-point line chart against gnuplot and matplotlib ----
bench_c() {
	export CHART=$CORPUS/chart-$POINTS CSV=$CORPUS/chart-$POINTS/content/loss/points.csv
	export GP=$ROOT/tools/bench/plot.gp MPL=$ROOT/tools/bench/plot_mpl.py
	names=(-n logdown '"$LD" build "$CHART" -o "$OUT/c-logdown" 2>/dev/null')
	peers=()
	if have gnuplot gnuplot-nox; then
		names+=(-n "gnuplot svg" "gnuplot -e \"in='\$CSV'; out='\$OUT/c-gnuplot.svg'\" \"\$GP\" 2>/dev/null")
		peers+=("gnuplot svg")
	else
		skip "(c)" "1M-point chart vs gnuplot" "gnuplot-nox not installed"
	fi
	if have_matplotlib; then
		names+=(-n "matplotlib svg" '"$PY" "$MPL" "$CSV" "$OUT/c-mpl.svg"')
		peers+=("matplotlib svg")
	else
		skip "(c)" "1M-point chart vs matplotlib" "python3-matplotlib not installed"
	fi
	hf chart "$RUNS" --warmup 1 --prepare 'rm -rf "$OUT/c-logdown" "$CHART/.logdown-cache"' "${names[@]}" || true
	for p in "${peers[@]}"; do
		row time "(c)" "$(commas $POINTS)-point chart vs $p" chart logdown "$p" -
	done
	# (--prepare runs before every command's runs: build once more to weigh it.)
	"$LD" build "$CHART" -o "$OUT/c-logdown" 2>/dev/null || true
	ldsvg=$(stat -c %s "$OUT/c-logdown/loss/figures/fig-loss.svg" 2>/dev/null || echo 0)
	for p in "${peers[@]}"; do
		f=$OUT/c-gnuplot.svg
		[ "$p" = "gnuplot svg" ] || f=$OUT/c-mpl.svg
		row size "(c)" "chart SVG size, logdown vs $p" "$ldsvg" "$(stat -c %s "$f" 2>/dev/null || echo 0)"
	done
	rm -rf "$OUT"/c-* "$CHART/.logdown-cache"
}

# ---- (d) serve against python's http.server under wrk ----
serve_bench() {
	local site=$CORPUS/site-1000 page=/reports/report-00001/index.html work=$OUT/d
	local ld_port py_port
	rm -rf "$work"
	mkdir -p "$work"
	"$LD" serve "$site" -o "$work/site" --port 0 2>"$work/serve.log" &
	ld_pid=$!
	for _ in $(seq 1 300); do
		grep -q 'serving .* at http' "$work/serve.log" 2>/dev/null && break
		sleep 0.1
	done
	ld_port=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -n 1 | cut -d: -f2)
	if [ -z "$ld_port" ]; then
		say "logdown serve did not start:"
		cat "$work/serve.log" >&2
		kill "$ld_pid" 2>/dev/null || true
		ld_pid=""
		skip "(d)" "serve vs python http.server" "logdown serve did not start"
		return 0
	fi
	py_port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	$PY -m http.server "$py_port" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
	py_pid=$!
	for _ in $(seq 1 100); do
		curl -s -o /dev/null "http://127.0.0.1:$py_port$page" 2>/dev/null && break
		sleep 0.1
	done
	say "serve: wrk -t2 -c64 -d${SERVE_SECS}s on $page, load $(load)"
	wrk -t2 -c64 -d"${SERVE_SECS}s" --latency "http://127.0.0.1:$ld_port$page" > "$RES/wrk-logdown.txt" 2>&1 || true
	wrk -t2 -c64 -d"${SERVE_SECS}s" --latency "http://127.0.0.1:$py_port$page" > "$RES/wrk-python.txt" 2>&1 || true
	kill "$ld_pid" "$py_pid" 2>/dev/null || true
	wait "$ld_pid" "$py_pid" 2>/dev/null || true
	ld_pid="" py_pid=""
	cat "$RES/wrk-logdown.txt" "$RES/wrk-python.txt" >&2
	row rps "(d)" "serve vs python http.server (wrk, 64 connections)" wrk-logdown.txt wrk-python.txt 10
	rm -rf "$work"
}
bench_d() {
	if have wrk wrk && have curl curl; then
		serve_bench
	else
		skip "(d)" "serve vs python http.server" "wrk not installed"
	fi
}

# ---- (e) PDF against Chromium's print of the same pages ----
pdf_bench() {
	local proj=$OUT/e-project i
	rm -rf "$proj" "$OUT"/e-*
	mkdir -p "$proj/content/reports"
	for i in $(seq 1 $PDFPAGES); do
		cp "$CORPUS/site-1000/content/reports/report-$(printf %05d "$i").md" "$proj/content/reports/"
	done
	"$LD" build "$proj" -o "$OUT/e-html" 2>/dev/null || true
	export PROJ=$proj CHROME_PROFILE=$OUT/e-profile
	# Chromium prints every report page, one process per page, as a user
	# scripting it would.
	hf pdf "$(( RUNS < 3 ? RUNS : 3 ))" --warmup 1 \
		--prepare 'rm -rf "$OUT/e-logdown" "$PROJ/.logdown-cache" "$OUT/e-chromium" && mkdir -p "$OUT/e-chromium"' \
		-n logdown '"$LD" pdf "$PROJ" -o "$OUT/e-logdown" 2>/dev/null' \
		-n chromium 'for f in "$OUT"/e-html/reports/*/index.html; do chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$CHROME_PROFILE" --no-pdf-header-footer --print-to-pdf="$OUT/e-chromium/$(basename "$(dirname "$f")").pdf" "file://$f" 2>/dev/null; done' || true
	row time "(e)" "pdf of $PDFPAGES pages vs chromium --print-to-pdf" pdf logdown chromium -
	local ldsize chsize
	# (--prepare ran again before chromium's runs: make logdown's once more.)
	"$LD" pdf "$proj" -o "$OUT/e-logdown" 2>/dev/null || true
	ldsize=$(find "$OUT/e-logdown" -name '*.pdf' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
	chsize=$(find "$OUT/e-chromium" -name '*.pdf' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
	row size "(e)" "PDF bytes of $PDFPAGES pages, logdown vs chromium" "$ldsize" "$chsize"
	rm -rf "$proj" "$OUT"/e-*
}
bench_e() {
	if ! "$LD" pdf --help >/dev/null 2>&1; then
		skip "(e)" "pdf vs chromium --print-to-pdf" "logdown pdf not available"
	elif ! have chromium chromium; then
		skip "(e)" "pdf vs chromium --print-to-pdf" "chromium not installed"
	else
		pdf_bench
	fi
}

# ---- (f) rebuild after appending to one log of a 1,000-report site ----
bench_f() {
	export FSITE=$OUT/f-site FLOG=$OUT/f-site/content/r-00500/run.log
	rm -rf "$FSITE" "$OUT/f-out"
	cp -r "$CORPUS/reports-$REPORTS" "$FSITE"
	# A running job's log: without its last two lines (Training
	# completed, Processed ...).  A finished Cerebras log's Processed
	# line ends its run, so a line appended after it starts a second one
	# and the report's {{ run.x }} fails; the throughput it gives goes
	# out of the report with it.
	head -n -2 "$FLOG" > "$FLOG.tmp" && mv "$FLOG.tmp" "$FLOG"
	sed -i 's/, at {{ run.throughput :,.1f }} samples\/s\././' "$FSITE/content/r-00500/index.md"
	"$LD" build "$FSITE" -o "$OUT/f-out" 2>/dev/null || true
	hf rebuild "$RUNS" --warmup 1 \
		--prepare 'printf "2024-12-31 23:59:59,999 INFO:   | Train Device=CSX, Step=99999, Loss=1.00000, Rate=3000.00 samples/sec, GlobalRate=3000.00 samples/sec\n" >> "$FLOG"' \
		-n "logdown rebuild" '"$LD" build "$FSITE" -o "$OUT/f-out" 2>/dev/null' || true
	hf rebuild-clean "$RUNS" --warmup 1 --prepare 'rm -rf "$OUT/f-clean" "$FSITE/.logdown-cache"' \
		-n "logdown clean build" '"$LD" build "$FSITE" -o "$OUT/f-clean" 2>/dev/null' || true
	row abs "(f)" "rebuild after appending to 1 log of $(commas $REPORTS) reports (vs a clean build)" \
		rebuild "logdown rebuild" rebuild-clean "logdown clean build" 0.1
	rm -rf "$FSITE" "$OUT/f-out" "$OUT/f-clean"
}

# ---- (m) math and highlighted code against pandoc --mathml ----
bench_m() {
	export MPROJ=$OUT/m-project MPLAIN=$OUT/m-plain
	rm -rf "$MPROJ" "$MPLAIN" "$OUT"/m-*
	$PY tools/bench/gen_mathcode.py "$MPROJ" 500 5000
	# The example site without math or colour: every $ escaped, every
	# code fence's language dropped (the directives' fences stay).
	mkdir -p "$MPLAIN"
	cp -r site.yaml content parsers "$MPLAIN"/
	find "$MPLAIN/content" -name '*.md' -exec sed -i -E \
		-e 's/\$/\\$/g' -e 's/^([ >]*```+) *[A-Za-z][^ {]*[ ]*$/\1/' {} +
	export MROOT=$ROOT
	local cmds=(-n "logdown build" '"$LD" build "$MPROJ" -o "$OUT/m-out" 2>/dev/null')
	if have pandoc pandoc; then
		cmds+=(-n "pandoc --mathml" 'pandoc --mathml -s --highlight-style=pygments "$MPROJ/content/mathcode.md" -o "$OUT/m-pandoc.html"')
	fi
	hf mathcode "$RUNS" --warmup 1 --prepare 'rm -rf "$OUT/m-out" "$MPROJ/.logdown-cache"' "${cmds[@]}" || true
	if have pandoc pandoc; then
		row time "(m)" "a report of 500 formulas and 5,000 lines of code vs pandoc --mathml" \
			mathcode "logdown build" "pandoc --mathml" -
	else
		skip "(m)" "500 formulas and 5,000 lines of code vs pandoc" "pandoc not installed"
	fi
	row under "(m)" "the same report: logdown's time against the target" mathcode "logdown build" 2
	hf mathcode-example "$RUNS" --warmup 1 \
		--prepare 'rm -rf "$OUT/m-ex" "$OUT/m-explain" "$MROOT/.logdown-cache" "$MPLAIN/.logdown-cache"' \
		-n "example site" 'cd "$MROOT" && "$LD" build . -o "$OUT/m-ex" 2>/dev/null' \
		-n "without math and colour" '"$LD" build "$MPLAIN" -o "$OUT/m-explain" 2>/dev/null' || true
	row overhead "(m)" "the example site's build, with math and highlighting vs without" \
		mathcode-example "example site" "without math and colour" 0.2
	rm -rf "$MPROJ" "$MPLAIN" "$OUT"/m-*
}

# ---- (j) a JSON Lines log against Python's json module ----
bench_j() {
	JSONL=$CORPUS/logs/metrics-$LOGSIZE.jsonl
	if [ ! -e "$JSONL" ]; then
		say "generating logs/metrics-$LOGSIZE.jsonl"
		$PY tools/bench/gen_jsonl.py "$LOGSIZE" "$JSONL.tmp" "$SEED" && mv "$JSONL.tmp" "$JSONL"
	fi
	export JSONL READJ=$ROOT/tools/bench/read_jsonl.py
	local bytes gb T="/usr/bin/time -f %M -a -o"
	bytes=$(stat -L -c %s "$JSONL")
	gb=$(awk -v b="$bytes" 'BEGIN {printf "%.2f GB", b / 1e9}')
	cat "$JSONL" > /dev/null # into the page cache
	# Both collect every column of every line and show the row count
	# and the last row.
	hf jsonl "$LOGRUNS" \
		-n logdown "$T \"\$RES/jsonl-logdown.rss\" \"\$LD\" parse \"\$JSONL\" > \"\$OUT/j-logdown.txt\"" \
		-n "python json" "$T \"\$RES/jsonl-python.rss\" \"\$PY\" \"\$READJ\" \"\$JSONL\" > \"\$OUT/j-py.txt\"" || true
	local rows py_rows
	rows=$(sed -n 's/^series rows: \([0-9]*\) rows.*/\1/p' "$OUT/j-logdown.txt" 2>/dev/null)
	py_rows=$(head -n 1 "$OUT/j-py.txt" 2>/dev/null | cut -d' ' -f1)
	if [ -n "$rows" ] && [ "$rows" != "$py_rows" ]; then
		say "logdown read $rows rows, python $py_rows: not the same work"
		exit 1
	fi
	row time "(j)" "$gb JSON Lines log, $(commas "${rows:-0}") rows, vs python json" jsonl logdown \
		"python json" ">=1"
	row rss "(j)" "peak RSS, logdown vs python json" jsonl-logdown.rss jsonl-python.rss -
	rm -f "$OUT"/j-*
}

# ---- (p) parse --json against parse --csv of the same log ----
bench_p() {
	LOG=$CORPUS/logs/cerebras-$LOGSIZE.log
	export LOG
	local gb T="/usr/bin/time -f %M -a -o"
	gb=$(awk -v b="$(stat -L -c %s "$LOG")" 'BEGIN {printf "%.2f GB", b / 1e9}')
	cat "$LOG" > /dev/null # into the page cache
	# --json writes every series (rows and lines) and the fields; --csv
	# the train series' rows, looking for nothing else (no fields, no
	# eval series, no split: several threads); --list-columns is
	# --json's parse without the writing.
	hf parsejson "$LOGRUNS" \
		-n "parse --json" "$T \"\$RES/pj-json.rss\" \"\$LD\" parse \"\$LOG\" --parser cerebras --json > \"\$OUT/p-json.json\"" \
		-n "parse --csv" "$T \"\$RES/pj-csv.rss\" \"\$LD\" parse \"\$LOG\" --parser cerebras --csv train > \"\$OUT/p-csv.csv\"" \
		-n "parse --list-columns" "\"\$LD\" parse \"\$LOG\" --parser cerebras --list-columns > \"\$OUT/p-list.txt\"" || true
	# The ratio is --csv's time over --json's: at least 0.5, --json at
	# most twice as long.
	row time "(p)" "$gb log: parse --json vs parse --csv (JSON at most 2x the time)" parsejson \
		"parse --json" "parse --csv" ">=0.5"
	row time "(p)" "$gb log: parse --json vs its parse alone (--list-columns)" parsejson \
		"parse --json" "parse --list-columns" -
	row rss "(p)" "peak RSS, parse --json vs parse --csv" pj-json.rss pj-csv.rss -
	rm -f "$OUT"/p-*
}

# ---- (g) one report over the $LOGSIZE log: first build, prose edit, append ----
bench_g() {
	# A running job's log: the corpus log without its closing lines
	# (Training completed, Processed ...), copied beside the report so
	# that the appends of the third part leave the corpus alone.
	export GPROJ=$OUT/g-project GPAT='Train Device=\w+, Step=(\d+), Loss=([0-9.]+), Rate=([0-9.]+) samples/sec, GlobalRate=([0-9.]+)'
	export GLOG=$GPROJ/logs/run.log GMD=$GPROJ/content/big.md
	local src=$CORPUS/logs/cerebras-$LOGSIZE.log gb T="/usr/bin/time -f %M -a -o"
	rm -rf "$GPROJ" "$OUT"/g-*
	mkdir -p "$GPROJ/logs" "$GPROJ/content"
	head -c "$(grep -b -m 1 'Training completed' "$src" | cut -d: -f1)" "$src" > "$GLOG"
	gb=$(awk -v b="$(stat -L -c %s "$GLOG")" 'BEGIN {printf "%.2f GB", b / 1e9}')
	printf 'title: Big log\n' > "$GPROJ/site.yaml"
	cat > "$GMD" <<'MD'
---
title: One big run
runs:
  cs: {file: ../logs/run.log, parser: cerebras}
---

The loss ended at {{ cs.final_loss }} after {{ cs.final_step }} steps, at
{{ mean(cs.train.rate) }} samples/s on average.

```{chart}
type: line
series: cs
x: train.step
y: train.loss
```
MD
	# The 8 lines (1 KB) the job prints next.
	export GMORE=$OUT/g-more.log
	tail -n 8 "$GLOG" | grep 'Train Device' > "$GMORE"
	# 1. the first build (the log parsed, its store written, the site
	# made) against grep -oP taking the same rows out of the same file
	hf bigfirst "$LOGRUNS" --prepare 'rm -rf "$OUT/g-site" "$GPROJ/.logdown-cache"' \
		-n "logdown first build" "$T \"\$RES/g-first.rss\" \"\$LD\" build \"\$GPROJ\" -o \"\$OUT/g-site\" 2>/dev/null" \
		-n "grep -oP" "LC_ALL=C grep -oP \"\$GPAT\" \"\$GLOG\" > \"\$OUT/g-grep.out\"" || true
	# logdown at most 1.3x grep's time: grep's over logdown's >= 0.77
	row time "(g)" "first build of one report over a $gb log vs grep -oP on it" bigfirst \
		"logdown first build" "grep -oP" ">=0.77"
	row rssmax "(g)" "peak RSS of that first build" g-first.rss "$([ -n "$QUICK" ] && echo - || echo 400)"
	# 2. a sentence added to the report, the site built again
	"$LD" build "$GPROJ" -o "$OUT/g-site" 2>/dev/null || true
	hf bigedit "$RUNS" --warmup 1 --prepare 'echo "A sentence more." >> "$GMD"' \
		-n "logdown prose edit" "$T \"\$RES/g-edit.rss\" \"\$LD\" build \"\$GPROJ\" -o \"\$OUT/g-site\" 2>/dev/null" || true
	row abs "(g)" "rebuild after a prose edit (vs the first build)" bigedit "logdown prose edit" \
		bigfirst "logdown first build" 0.1
	row rssmax "(g)" "peak RSS of the prose-edit rebuild" g-edit.rss 100
	# 3. the job printed 1 KB more
	hf bigappend "$RUNS" --warmup 1 --prepare 'cat "$GMORE" >> "$GLOG"' \
		-n "logdown append" "$T \"\$RES/g-append.rss\" \"\$LD\" build \"\$GPROJ\" -o \"\$OUT/g-site\" 2>/dev/null" || true
	row abs "(g)" "rebuild after 1 KB appended to the log (vs the first build)" bigappend "logdown append" \
		bigfirst "logdown first build" 0.15
	row rss "(g)" "peak RSS, the append's rebuild vs the first build" g-append.rss g-first.rss -
	# 3b. the same, the build 3 s after the append with nothing running
	# between: the appends above follow each other at once, and this
	# machine reads memory more slowly after an idle spell
	# (docs/performance.md, "Session 28")
	hf bigappendidle "$RUNS" --prepare 'cat "$GMORE" >> "$GLOG"; sleep 3' \
		-n "logdown append after 3 s idle" "\"\$LD\" build \"\$GPROJ\" -o \"\$OUT/g-site\" 2>/dev/null" || true
	row abs "(g)" "rebuild after 1 KB appended, 3 s idle before it (vs the first build)" \
		bigappendidle "logdown append after 3 s idle" bigfirst "logdown first build" -
	# 4. a sentence saved right after an append was built (the log
	# changed under 2 s before: "racy", its content read again)
	hf bigracy "$RUNS" --prepare 'cat "$GMORE" >> "$GLOG"; "$LD" build "$GPROJ" -o "$OUT/g-site" 2>/dev/null; echo "A sentence more." >> "$GMD"' \
		-n "logdown prose edit after an append" "$T \"\$RES/g-racy.rss\" \"\$LD\" build \"\$GPROJ\" -o \"\$OUT/g-site\" 2>/dev/null" || true
	row abs "(g)" "rebuild after a prose edit saved within 2 s of an append's build (vs the first build)" \
		bigracy "logdown prose edit after an append" bigfirst "logdown first build" -
	row rssmax "(g)" "peak RSS of that rebuild" g-racy.rss -
	rm -rf "$GPROJ" "$OUT"/g-*
}

for r in ${BENCH_ROWS:-a b c d e f t j m p g}; do
	bench_$r
done

# ---- the table ----

{
	echo "load	$(load) at the end"
	echo "peers	$(
		v() { "$@" 2>/dev/null | head -n 1 | tr -d '\n'; }
		printf '%s; ' "$(v hugo version | cut -d' ' -f1-2)" "$(v gnuplot --version)" \
			"matplotlib $($PY -c 'import matplotlib; print(matplotlib.__version__)' 2>/dev/null)" \
			"$(v rg --version)" "$(v grep --version)" "$(v $PY --version)" \
			"$(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)" "$(v hyperfine --version)" \
			"$(v chromium --version | cut -d' ' -f1-2)"
	)"
} >> "$RES/meta.tsv"
$PY tools/bench/table.py "$RES" | tee "$RES/table.md"
rmdir "$OUT" 2>/dev/null || true
