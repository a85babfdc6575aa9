#!/usr/bin/env python3
"""read_jsonl.py FILE: what a user writes instead of logdown to read a
JSON Lines log: json.loads on every line, collecting the columns (the
union of the keys, first-seen order, None where a line lacks one), then
the row count and the last row, as logdown parse shows them."""
import json
import sys

cols = {}
n = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if not line.strip():
            continue
        row = json.loads(line)
        for k, v in row.items():
            c = cols.get(k)
            if c is None:
                c = cols[k] = [None] * n
            c.append(v)
        n += 1
        for c in cols.values():
            if len(c) < n:
                c.append(None)
print(n, "rows,", len(cols), "columns")
print({k: c[-1] for k, c in cols.items()})
