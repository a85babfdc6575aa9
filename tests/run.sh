#!/bin/sh
# Runs every test binary given, shows its output, and closes with one
# line adding them up: "tests: N passed, N failed, N skipped".
# Exits non-zero when any test failed or a binary crashed.
set -u

passed=0 failed=0 skipped=0 crashed=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
# The font libraries' caches live as long as the process (tests/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	echo "== $t"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ $rc -ne 0 ] && [ -z "$f" ]; then
		echo "!! $t exited with status $rc before reporting its results"
		crashed=$((crashed + 1))
		failed=$((failed + 1))
	fi
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$crashed" -eq 0 ]
