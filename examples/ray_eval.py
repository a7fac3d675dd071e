#!/usr/bin/env python3
"""Cone tests of a folder of Parquet shards with Ray Data, answers written as Parquet shards.

Input columns are those of `planar-hold eval`: `generators` (a list of lists of 3 numbers,
up to 16 for the planar enumeration, or more, or of 6 numbers: the general engine, up to 256),
optional `need` and `id`. Output rows have the keys of eval's JSON Lines answers (every
column in every row: `binding` null on general rows, `facet` null on planar ones).

    python examples/ray_eval.py cases/ answers/                  # a local Ray instance
    python examples/ray_eval.py cases/ answers/ --address auto   # the cluster `ray start` made
    python examples/ray_eval.py cases/ answers/ --address auto --backend gpu  # 1 GPU per actor

On a cluster the input and output paths must be visible to every node (shared storage or
s3://, gs:// URLs, which Ray Data reads and writes directly).
"""

import argparse

import ray

import planar_hold.ray


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="folder (or URL) of Parquet shards")
    parser.add_argument("output", help="folder (or URL) for the answer shards")
    parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--address", default=None,
                        help='Ray cluster to join ("auto": the one `ray start` made here)')
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of a local Ray instance (ignored with --address)")
    parser.add_argument("--batch-size", type=int, default=65536)
    parser.add_argument("--concurrency", type=int, default=None, help="actors (default: Ray's)")
    args = parser.parse_args()

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    cases = ray.data.read_parquet(args.input)
    answers = planar_hold.ray.evaluate(
        cases, backend=args.backend, batch_size=args.batch_size, concurrency=args.concurrency
    )
    answers.write_parquet(args.output)
    print(f"planar-hold: answers written to {args.output}")


if __name__ == "__main__":
    main()
