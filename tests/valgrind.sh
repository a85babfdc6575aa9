#!/bin/sh
# Runs the end-to-end tests given against build/vg/logdown (a plain -O1
# build) under valgrind memcheck: `make valgrind`.  Every logdown process
# the tests start runs through tests/valgrind-logdown, which writes one
# memcheck log per process into build/vg/logs/ (empty when clean).  Fails when a test fails
# or any log shows an error or a definite leak.
set -u

logs=build/vg/logs
rm -rf "$logs"
mkdir -p "$logs"
export LOGDOWN="$(pwd)/tests/valgrind-logdown"
export LOGDOWN_VG_LOGS="$(pwd)/$logs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"

# A test that times logdown itself would time valgrind: it skips.
export LOGDOWN_VALGRIND=1

# One test binary at a time, to say what each costs under memcheck.
start=$(date +%s)
rc=0
times=""
for t in "$@"; do
	t0=$(date +%s)
	sh tests/run.sh "$t" || rc=1
	times="$times $(basename "$t") $(($(date +%s) - t0))s"
done
end=$(date +%s)
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
