#!/bin/sh
# Runs libFuzzer harnesses: `run.sh SECONDS BIN...` fuzzes each for
# SECONDS; `run.sh -replay BIN...` only runs every file of
# tests/fuzz/regressions/<name>/ through its harness (each a past crash,
# leak or hang that must stay fixed).
#
# Per harness: the corpus grows in build/fuzz/corpus/<name>/ (kept
# between runs; FUZZ_CORPUS=DIR puts it in DIR/<name>/, and FUZZ_SEED=N
# then starts it afresh and fixes libFuzzer's seed, so that a run on one
# machine goes through the inputs a shorter run elsewhere did: `make
# fuzz-smoke` does, and CI's smoke run tries nothing a local one did not),
# seeded from the fixtures (seed.sh) into
# build/fuzz/seed/<name>/; a crash, leak or timeout leaves its input in
# build/fuzz/artifacts/<name>/ and fails the run.  Ends with one line per
# harness: time, executions, corpus size, and ok or what it found.
# A failing input is run again on its own three times: one that fails
# again fails the run; one that never does (a timeout on a busy machine)
# is reported FLAKY, with its input, and does not.
set -u

replay=false
secs=0
if [ "${1:-}" = "-replay" ]; then
	replay=true
else
	secs=$1
fi
shift

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
# The font libraries' caches live as long as the process.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Inputs are small; anything slower than this is a hang.
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_RSS=${FUZZ_RSS:-2048}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536}

summary=$(mktemp)
failures=$(mktemp)
trap 'rm -f "$summary" "$failures"' EXIT
failed=0

for bin in "$@"; do
	name=$(basename "$bin")
	log=build/fuzz/logs/$name.log
	corpus=${FUZZ_CORPUS:-build/fuzz/corpus}/$name
	seed_arg=""
	if [ -n "${FUZZ_SEED:-}" ]; then
		seed_arg="-seed=$FUZZ_SEED"
		$replay || rm -rf "$corpus"
	fi
	seeds=build/fuzz/seed/$name
	artifacts=build/fuzz/artifacts/$name
	regressions=tests/fuzz/regressions/$name
	mkdir -p "$corpus" "$artifacts" build/fuzz/logs
	status=ok

	if $replay; then
		[ -d "$regressions" ] && [ -n "$(ls "$regressions")" ] || continue
		n=$(ls "$regressions" | wc -l)
		if "$bin" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb="$FUZZ_RSS" \
			"$regressions"/* >"$log" 2>&1; then
			echo "$name: $n regression inputs pass" >>"$summary"
		else
			tail -n 40 "$log"
			echo "$name: FAILED: a regression input fails again; log: $log" >>"$summary"
			failed=$((failed + 1))
		fi
		continue
	fi
	# made again when seed.sh changed since (a harness given its first
	# seeds would otherwise go on from none)
	if [ ! -d "$seeds" ] || [ tests/fuzz/seed.sh -nt "$seeds" ]; then
		sh tests/fuzz/seed.sh "$name" "$seeds" >/dev/null
	fi

	echo "== $name: fuzzing for $secs s"
	start=$(date +%s)
	"$bin" -max_total_time="$secs" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb="$FUZZ_RSS" \
		-max_len="$FUZZ_MAX_LEN" -print_final_stats=1 -artifact_prefix="$artifacts/" \
		$seed_arg "$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	size=$(ls "$corpus" | wc -l)
	if [ $rc -ne 0 ]; then
		tail -n 60 "$log"
		what=$(grep -m 1 -o 'ERROR: [A-Za-z]*: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|runtime error: .*' "$log")
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		# Does the input fail again on its own?  A crash, leak or
		# overflow does; a timeout or memory limit hit only because the
		# machine was busy (or state left by earlier inputs) may not.
		# Only one that fails again fails the run; one that does not is
		# reported as FLAKY, with its input, and kept in the artifacts.
		again=0
		if [ -n "$art" ] && [ -f "$art" ]; then
			for _ in 1 2 3; do
				"$bin" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb="$FUZZ_RSS" "$art" \
					>>"$log.replay" 2>&1 || again=$((again + 1))
			done
		else
			again=3
		fi
		if [ "$again" -gt 0 ]; then
			status="FAILED: ${what:-exit $rc}; input: ${art:-none} (fails again on its own: $again of 3); log: $log"
			failed=$((failed + 1))
		else
			status="FLAKY: ${what:-exit $rc} while fuzzing, but its input passes on its own 3 times; input: $art; log: $log"
		fi
		# for the end: CI keeps only the output's last lines
		{
			echo "== $name: ${status%%;*}: the first frames, and the input"
			grep -m 12 '^ *#[0-9]\|ERROR\|SUMMARY\|runtime error' "$log"
			[ -n "$art" ] && [ -f "$art" ] && head -c 600 "$art" | od -An -c | head -n 12
		} >>"$failures"
	fi
	echo "$name: $((end - start)) s, ${runs:-?} runs, corpus $size, $status" >>"$summary"
done

$replay && echo "== fuzz regressions" || echo "== fuzz summary"
# the failed harnesses last, with what failed: a CI log's tail shows them
grep -v ': FAILED: \|: FLAKY: ' "$summary"
grep ': FAILED: \|: FLAKY: ' "$summary"
cat "$failures"
[ "$failed" -eq 0 ]
