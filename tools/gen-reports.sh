#!/bin/sh
# Writes a project of N reports (default 1000), each a bundle with one
# small Cerebras-style log, for timing incremental builds:
#
#   sh tools/gen-reports.sh /dev/shm/site1000 1000
#   ./logdown build /dev/shm/site1000            # full build, fills the cache
#   echo '...' >> /dev/shm/site1000/content/r0500/logs/run.log
#   time ./logdown build /dev/shm/site1000       # rebuilds one report
set -eu
dir=${1:?usage: gen-reports.sh DIR [N]}
n=${2:-1000}
mkdir -p "$dir/content"
printf 'title: %s generated reports\n' "$n" > "$dir/site.yaml"
i=0
while [ "$i" -lt "$n" ]; do
	r=$(printf 'r%04d' "$i")
	mkdir -p "$dir/content/$r/logs"
	loss=$(printf '%d.%05d' $((i % 9 + 1)) $((i * 37 % 100000)))
	{
		printf '2024-03-30 14:09:43,663 INFO:   Effective batch size is %d.\n' $((256 + i % 4 * 256))
		s=100
		while [ "$s" -le 1000 ]; do
			printf '2024-03-30 15:%02d:00,000 INFO:   | Train Device=CSX, Step=%d, Loss=%s, Rate=%d.00 samples/sec, GlobalRate=%d.00 samples/sec\n' \
				$((s / 100)) "$s" "$loss" $((4000 + s)) $((4000 + s))
			s=$((s + 100))
		done
		printf '2024-03-30 15:59:00,000 INFO:   Training completed successfully!\n'
	} > "$dir/content/$r/logs/run.log"
	cat > "$dir/content/$r/index.md" <<MD
---
title: Report $i
date: 2024-04-$(printf '%02d' $((i % 28 + 1)))
runs:
  cs: logs/run.log
---
Run $i reached a loss of {{ cs.final_loss }} after {{ cs.final_step }} steps.
MD
	i=$((i + 1))
done
echo "wrote $n reports to $dir"
