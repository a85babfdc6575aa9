#!/bin/sh
# Checks that each stage of src/ includes only headers of its own stage
# and of the stages before it (src/README.md gives the order).  Run by
# make test; prints each include that goes the wrong way and exits 1.
set -eu
cd "$(dirname "$0")/.."
order="base data draw expr parse resolve render site cmd"

rank() {
	i=0
	for s in $order; do
		[ "$s" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

bad=0
for f in src/*/*.c src/*/*.h include/*/*.h; do
	[ -e "$f" ] || continue
	stage=$(basename "$(dirname "$f")")
	me=$(rank "$stage")
	if [ "$me" -lt 0 ]; then
		echo "$f: folder '$stage' is not a stage ($order)"
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([a-z]*\)\/[a-z_]*\.h".*/\1/p' "$f"); do
		them=$(rank "$inc")
		if [ "$them" -lt 0 ] || [ "$them" -gt "$me" ]; then
			echo "$f: stage '$stage' includes a header of '$inc', a later stage"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "layers: every include goes to the same or an earlier stage"
exit $bad
