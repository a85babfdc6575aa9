#!/bin/sh
# Compares `logdown parse FILE --json` of two binaries (REF, say main's,
# and NEW) on every file under tests/corpus, tests/fixtures and content
# (each with its detected parser) and on any further FILEs named (with
# --parser cerebras: the bench logs of build/gencorpus): the sha256 of
# standard output, and standard error and the exit status, must be the
# same.  Prints each file that differs and a count; exits 1 if any does.
#
#   sh tools/json-same.sh /tmp/logdown.main ./logdown [BIG.log ...]
set -u
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 REF NEW [BIG.log ...]" >&2; exit 2; }
ref=$1 new=$2
shift 2
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
one() {
	n=$((n + 1))
	"$ref" parse "$@" --json >"$tmp/o" 2>"$tmp/ea"
	a="$? $(sha256sum <"$tmp/o")"
	"$new" parse "$@" --json >"$tmp/o" 2>"$tmp/eb"
	b="$? $(sha256sum <"$tmp/o")"
	if [ "$a" != "$b" ] || ! cmp -s "$tmp/ea" "$tmp/eb"; then
		echo "differs: $*"
		bad=$((bad + 1))
	fi
}
find tests/corpus tests/fixtures content -type f | LC_ALL=C sort >"$tmp/files"
while IFS= read -r f; do
	one "$f"
done <"$tmp/files"
for f in "$@"; do
	one "$f" --parser cerebras
done
echo "$n files, $bad differ"
[ "$bad" -eq 0 ]
