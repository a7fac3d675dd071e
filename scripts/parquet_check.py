#!/usr/bin/env python3
"""Checks that `planar-hold eval` answers the same through JSON Lines and Parquet.

Usage: parquet_check.py BIN CASES.jsonl WORKDIR   (needs pyarrow)

Writes CASES as Parquet (generators list<list<float64>>, need, id), runs eval for every pair
of input and output formats, and compares each Parquet output's `table.to_pylist()` with the
JSON Lines answers row by row: same keys (a Parquet row also has null `line`/`error` on
answered rows and null answer columns on refused ones) and equal values.
"""
import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main(bin_, cases, work):
    os.makedirs(work, exist_ok=True)
    rows = []
    for line in open(cases, encoding="utf-8"):
        if line.strip():
            o = json.loads(line)
            rows.append(o)
    ids = [str(o.get("id")) if o.get("id") is not None else None for o in rows]
    table = pa.table({
        "id": pa.array(ids, pa.string()),
        "generators": pa.array([o["generators"] for o in rows], pa.list_(pa.list_(pa.float64()))),
        "need": pa.array([o.get("need") for o in rows], pa.list_(pa.float64())),
    })
    src_pq = os.path.join(work, "cases.parquet")
    pq.write_table(table, src_pq)
    src_json = os.path.join(work, "cases.jsonl")
    with open(src_json, "w") as f:
        for o, i in zip(rows, ids):
            o = dict(o)
            if i is None:
                o.pop("id", None)
            else:
                o["id"] = i
            f.write(json.dumps(o) + "\n")
    outs = {}
    for src in (src_json, src_pq):
        for ext in ("jsonl", "parquet"):
            out = os.path.join(work, "answers-%s.%s" % (os.path.basename(src).split(".")[1], ext))
            r = subprocess.run([bin_, "eval", src, "--backend", "cpu", "-o", out], capture_output=True, text=True)
            if r.returncode not in (0, 5):
                sys.exit("%s -> %s: exit %d: %s" % (src, out, r.returncode, r.stderr))
            outs[(src, ext)] = out
    reference = [json.loads(l) for l in open(outs[(src_json, "jsonl")])]
    failures = 0
    for key, out in outs.items():
        if out.endswith(".jsonl"):
            got = [json.loads(l) for l in open(out)]
        else:
            got = pq.read_table(out).to_pylist()
        if len(got) != len(reference):
            print("%s: %d rows, want %d" % (out, len(got), len(reference)))
            failures += 1
            continue
        for k, (g, want) in enumerate(zip(got, reference)):
            extra = {c: v for c, v in g.items() if c not in want}
            g = {c: v for c, v in g.items() if c in want}
            if "id" in want and "id" not in g:
                g["id"] = None
            if g != want or any(v is not None for v in extra.values()):
                failures += 1
                if failures < 5:
                    print("%s row %d:\n  got  %s\n  want %s\n  extra %s" % (out, k + 1, g, want, extra))
        print("%s: %d rows compared" % (out, len(got)))
    print("parquet check: %s" % ("ok" if failures == 0 else "%d failures" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
