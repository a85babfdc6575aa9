#!/usr/bin/env bash
# bench-serve.sh: `logdown serve` against `python3 -m http.server` on the
# same built site, measured side by side with wrk (make bench).
#
#   tools/bench-serve.sh [SECONDS] [CONNECTIONS]     default 10 s, 64
#
# Both servers serve this repository's example site on loopback; wrk
# asks for one report page.  Prints requests/s, latency percentiles and
# errors for each, and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-10}
CONNS=${2:-64}
PAGE=/hw07-ai-accelerators/index.html

if ! command -v wrk >/dev/null; then
	if [ "$(id -u)" -eq 0 ]; then
		apt-get install -y -q wrk >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null && apt-get install -y -q wrk >/dev/null; }
	else
		echo "bench-serve: install wrk (apt-get install wrk)" >&2
		exit 1
	fi
fi

work=$(mktemp -d)
ld_pid=""
py_pid=""
cleanup() {
	[ -n "$ld_pid" ] && kill "$ld_pid" 2>/dev/null || true
	[ -n "$py_pid" ] && kill "$py_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# logdown serve builds the site into $work/site and serves it.
./logdown serve . -o "$work/site" --port 0 2>"$work/serve.log" &
ld_pid=$!
for _ in $(seq 1 100); do
	grep -q 'serving .* at http' "$work/serve.log" 2>/dev/null && break
	sleep 0.1
done
ld_port=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -n 1 | cut -d: -f2)
[ -n "$ld_port" ] || { echo "bench-serve: logdown serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }

# python's server on the same files, on a free port of its own.
py_port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
/usr/bin/python3 -m http.server "$py_port" --bind 127.0.0.1 --directory "$work/site" \
	>/dev/null 2>&1 &
py_pid=$!
for _ in $(seq 1 100); do
	curl -s -o /dev/null "http://127.0.0.1:$py_port$PAGE" 2>/dev/null && break
	sleep 0.1
done

run() { # name port
	echo "== $1" >&2
	wrk -t2 -c"$CONNS" -d"${SECS}s" --latency "http://127.0.0.1:$2$PAGE" > "$work/$1.txt" 2>&1 || true
	cat "$work/$1.txt" >&2
}
run logdown "$ld_port"
run python "$py_port"

/usr/bin/python3 - "$work/logdown.txt" "$work/python.txt" "$SECS" "$CONNS" <<'EOF'
import re, sys
def read(path):
    t = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1)) if "Requests/sec" in t else 0.0
    pct = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", t, re.M))
    errs = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
    if m:
        errs += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    if m:
        errs += int(m.group(1))
    return rps, pct, errs
ld, py = read(sys.argv[1]), read(sys.argv[2])
print(f"\nwrk -t2 -c{sys.argv[4]} -d{sys.argv[3]}s on one report page (loopback)\n")
print("| server | requests/s | p50 | p90 | p99 | errors |")
print("|---|---:|---:|---:|---:|---:|")
for name, (rps, pct, errs) in (("logdown serve", ld), ("python3 -m http.server", py)):
    print(f"| {name} | {rps:.0f} | {pct.get('50','-')} | {pct.get('90','-')} | {pct.get('99','-')} | {errs} |")
ratio = ld[0] / py[0] if py[0] else float("inf")
print(f"\nlogdown serve vs python http.server: {ratio:.1f}x requests/s (target >= 10), "
      f"logdown errors: {ld[2]} (target 0)")
EOF
