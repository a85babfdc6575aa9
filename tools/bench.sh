#!/usr/bin/env bash
# bench.sh: logdown against the tools users would pick instead, measured
# side by side in one run (make bench).
#
#   tools/bench.sh [SIZE]        SIZE of the Cerebras-style log (default 1G)
#
# Extracts train(step, loss, rate, global_rate) plus the scalar fields from
# a log made by ../shared/bench/gen-corpus, and compares wall time (median
# of hyperfine runs), throughput and peak memory with:
#   rg -o and grep -oP with the same pattern, and the plain-Python re script
#   of ../shared/bench/anchors (one re.search per line, a CSV out).
# Output of every command goes to a file on tmpfs: GNU grep stops at the
# first match when its output is /dev/null, which would fake its number.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-1G}
SHARED=${SHARED:-../shared}
CORPUS=${CORPUS:-/tmp/bench-corpus}
OUT=${BENCH_OUT:-/dev/shm}
GEN=$SHARED/bench/gen-corpus
PYSCRIPT=$SHARED/bench/anchors/parse_results.py

if [ ! -x "$GEN" ]; then
	echo "bench: $GEN not found: the benchmark needs ../shared beside the checkout" >&2
	exit 1
fi
need=""
command -v hyperfine >/dev/null || need="$need hyperfine"
command -v rg >/dev/null || need="$need ripgrep"
[ -x /usr/bin/time ] || need="$need time"
[ -x /usr/bin/python3 ] || need="$need python3"
if [ -n "$need" ]; then
	echo "bench: installing$need" >&2
	if [ "$(id -u)" -eq 0 ]; then
		apt-get install -y -q$need >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q$need >/dev/null; }
	else
		echo "bench: run as root or install:$need" >&2
		exit 1
	fi
fi

LOG=$CORPUS/logs/cerebras-$SIZE.log
if [ ! -f "$LOG" ]; then
	echo "bench: generating $LOG" >&2
	"$GEN" --seed 1 --log-size "$SIZE" "$CORPUS" >/dev/null
fi
BYTES=$(stat -c %s "$LOG")
PAT='Train Device=\w+, Step=(\d+), Loss=([0-9.]+), Rate=([0-9.]+) samples/sec, GlobalRate=([0-9.]+)'
export LOG PAT OUT PYSCRIPT
LD=$PWD/logdown
export LD

declare -a names=(
	"cat (read only)"
	"logdown parse --csv train"
	"rg -o"
	"grep -oP (LC_ALL=C)"
	"python3 re"
)
declare -a cmds=(
	'cat "$LOG" > /dev/null'
	'"$LD" parse "$LOG" --parser cerebras --csv train > "$OUT/bench-logdown.csv"'
	'rg -o "$PAT" "$LOG" > "$OUT/bench-rg.out"'
	'LC_ALL=C grep -oP "$PAT" "$LOG" > "$OUT/bench-grep.out"'
	'/usr/bin/python3 "$PYSCRIPT" "$LOG" "$OUT/bench-py.csv"'
)

RUNS=${RUNS:-3}
json=$(mktemp)
trap 'rm -f "$json" "$OUT"/bench-*.out "$OUT"/bench-*.csv' EXIT
args=()
for i in "${!names[@]}"; do
	args+=(-n "${names[$i]}" "${cmds[$i]}")
done
echo "bench: $LOG ($BYTES bytes), $RUNS runs each, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$json" "${args[@]}" >&2

# Peak memory of each command, one run apiece.
declare -a rss=()
for i in "${!names[@]}"; do
	kb=$(/usr/bin/time -f %M bash -c "${cmds[$i]}" 2>&1 >/dev/null | tail -n 1)
	rss+=("$kb")
done
rows=$(wc -l < "$OUT/bench-logdown.csv")

/usr/bin/python3 - "$json" "$BYTES" "$rows" "${rss[@]}" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
nbytes, rows = int(sys.argv[2]), int(sys.argv[3])
rss = [int(x) for x in sys.argv[4:]]
med = {r["command"]: r["median"] for r in res}
ld = med["logdown parse --csv train"]
print(f"\n{nbytes/1e9:.2f} GB log, {rows - 1} train rows extracted by logdown\n")
print(f"| command | median s | MB/s | peak RSS MiB | logdown speed-up |")
print(f"|---|---:|---:|---:|---:|")
for r, kb in zip(res, rss):
    name, m = r["command"], r["median"]
    print(f"| {name} | {m:.3f} | {nbytes/1e6/m:.0f} | {kb/1024:.1f} | {m/ld:.2f}x |")
rg, py = med["rg -o"], med["python3 re"]
print(f"\nlogdown vs rg -o: {rg/ld:.2f}x (target >= 1)")
print(f"logdown vs python3 re: {py/ld:.1f}x (target >= 30)")
EOF
