#!/bin/sh
# Runs the end-to-end tests given against build/vg/logdown (a plain -O1
# build) under valgrind memcheck: `make valgrind`.  Every logdown process
# the tests start runs through tests/valgrind-logdown, which writes one
# memcheck log per process into build/vg/logs/ (empty when clean).
# VG_JOBS test binaries (default 2) run at a time.  Fails when a test
# fails or any log shows an error or a definite leak.
set -u

logs=build/vg/logs
out=build/vg/out
export LOGDOWN="$(pwd)/tests/valgrind-logdown"
export LOGDOWN_VG_LOGS="$(pwd)/$logs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
# A test that times logdown would time valgrind: it skips.
export LOGDOWN_VALGRIND=1
jobs=${VG_JOBS:-2}

# One test binary (`valgrind.sh --one BIN`, as xargs runs it): its
# output, status and what it cost under memcheck in build/vg/out/.
if [ "${1:-}" = "--one" ]; then
	name=$(basename "$2")
	t0=$(date +%s)
	sh tests/run.sh "$2" >"$out/$name.log" 2>&1
	echo $? >"$out/$name.rc"
	echo "$(($(date +%s) - t0))" >"$out/$name.time"
	exit 0
fi
rm -rf "$logs" "$out"
mkdir -p "$logs" "$out"
# test_confine runs logdown as user nobody when the tests run as root:
# its memcheck log must be writable for it too (sticky, like /tmp).
chmod 1777 "$logs"

# The longest binaries first (their seconds in a clean CI run,
# 2026-11-28: test_appends 902, test_cache 326, test_swap 304, test_pdf
# 286, ...), so that the last to finish is a short one and the jobs end
# together.
first="test_appends test_cache test_swap test_pdf test_charts test_build test_serve test_golden"
order() {
	for f in $first; do
		for t in "$@"; do
			[ "$(basename "$t")" = "$f" ] && echo "$t"
		done
	done
	for t in "$@"; do
		case " $first " in
		*" $(basename "$t") "*) ;;
		*) echo "$t" ;;
		esac
	done
}

start=$(date +%s)
order "$@" | xargs -P "$jobs" -n 1 sh "$0" --one
end=$(date +%s)

rc=0
times=""
for t in "$@"; do
	name=$(basename "$t")
	cat "$out/$name.log"
	[ "$(cat "$out/$name.rc")" = 0 ] || rc=1
	times="$times $name $(cat "$out/$name.time")s"
done
echo "valgrind: seconds per test binary:$times"

n=$(ls "$logs" | wc -l)
# valgrind -q writes nothing unless it found something.
bad=$(find "$logs" -type f -size +0 | sort)
if [ -n "$bad" ]; then
	for f in $bad; do
		echo "== $f"
		cat "$f"
	done
	echo "valgrind: errors or definite leaks in $(echo "$bad" | wc -l) of $n logdown runs (logs in $logs)"
	rc=1
else
	echo "valgrind: $n logdown runs, 0 errors, 0 definite leaks ($((end - start)) s)"
fi
[ "$n" -gt 0 ] || { echo "valgrind: no logdown run was checked"; rc=1; }
exit $rc
