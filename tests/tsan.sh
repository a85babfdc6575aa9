#!/bin/sh
# ThreadSanitizer over the threaded code: `make tsan`.
#
#   sh tests/tsan.sh UNIT-TESTS... -- E2E-TESTS...
#
# The unit tests before `--` are linked against the modules compiled with
# -fsanitize=thread (build/tsan/test_*).  The end-to-end tests after it
# are the ASan binaries, run with LOGDOWN=build/tsan/logdown, so that
# every build they start (on several threads: -j, the store's two
# writers, the seal, the parse's pipeline) runs under ThreadSanitizer.
# Each report is written to a file of its own in build/tsan/reports
# (TSAN_OPTIONS log_path), not into the stderr a test compares; the run
# fails when any report was written or any test failed.
set -u

export TSAN_OPTIONS="${TSAN_OPTIONS:-log_path=$(pwd)/build/tsan/reports/tsan:second_deadlock_stack=1:suppressions=$(pwd)/tests/tsan.supp}"
# A test that times logdown would time ThreadSanitizer: it skips, as
# under valgrind (tests/e2e/bounded.h).
export LOGDOWN_VALGRIND=1
rm -rf build/tsan/reports
mkdir -p build/tsan/reports

unit=""
e2e=""
seen=0
for t in "$@"; do
	if [ "$t" = "--" ]; then seen=1; continue; fi
	if [ $seen = 0 ]; then unit="$unit $t"; else e2e="$e2e $t"; fi
done

rc=0
# shellcheck disable=SC2086
[ -n "$unit" ] && { sh tests/run.sh $unit || rc=1; }
# shellcheck disable=SC2086
[ -n "$e2e" ] && { LOGDOWN="$(pwd)/build/tsan/logdown" sh tests/run.sh $e2e || rc=1; }

n=$(find build/tsan/reports -type f | wc -l)
if [ "$n" -gt 0 ]; then
	echo "tsan: $n report file(s) in build/tsan/reports:"
	for f in build/tsan/reports/*; do
		echo "== $f"
		head -n 60 "$f"
	done
	rc=1
else
	echo "tsan: no data race or lock-order report"
fi
exit $rc
