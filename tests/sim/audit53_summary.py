#!/usr/bin/python3
"""Summarise audit53_decide.py's JSON lines: per scenario and harness, winners named (A / B), the
verdict kinds, trials whose winner differs from vllm's (detailed vllm bench serve: the reference),
and load points judged pass/fail differently from vllm on the same requests.
Usage: audit53_summary.py FILE.jsonl..."""
import json, os, sys
from collections import Counter, defaultdict
by = defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        d = json.loads(l)
        by[os.path.basename(f).replace(".jsonl", "")].append(d)
for sc, rows in by.items():
    hs = list(rows[0]["res"].keys())
    print("## %s: %d trials" % (sc, len(rows)))
    print("| harness | A named | B named | winner differs from vllm | points judged differently from vllm | kinds |")
    print("|---|---:|---:|---:|---:|---|")
    for h in hs:
        rs = [r["res"].get(h, {}) for r in rows]
        kinds = Counter((x.get("kind") or "ERROR") for x in rs)
        wd = sum(1 for r in rows if r["res"].get(h, {}).get("higher") != r["res"]["vllm"].get("higher"))
        pd = 0
        for r in rows:
            x, v = r["res"].get(h, {}), r["res"]["vllm"]
            for s in "ab":
                for p, q in zip(x.get("pts_" + s) or [], v.get("pts_" + s) or []):
                    if p.get("meets") != q.get("meets"):
                        pd += 1
        print("| %s | %d | %d | %d | %d | %s |" % (h, sum(x.get("higher") == "a" for x in rs),
              sum(x.get("higher") == "b" for x in rs), wd, pd,
              ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
