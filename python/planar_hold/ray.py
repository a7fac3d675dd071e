"""planar-hold over Ray Data: cone tests of a dataset of any size, on a cluster.

``evaluate(ds)`` maps a ``ray.data.Dataset`` with the Parquet input columns of
``planar-hold eval`` (``generators``: a list of up to 16 three-number lists, float32 or
float64; optional ``need``: three numbers, null for (0, 1, 0); optional ``id``: any type,
passed through) to a Dataset of answer rows with the keys of ``eval``'s JSON Lines answers:
``id``, ``verdict`` (a string), ``margin``, ``capped``, ``witness`` ({``generators``,
``weights``} or null), ``certificate`` (or null), ``binding``, ``binding_candidate``.
Each actor builds one ``Engine`` once and reuses it for every batch it is handed.

Needs ``pip install "./python[ray]"``.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Tuple, Union

import numpy as np
import pyarrow as pa

from . import Engine

__all__ = ["evaluate", "ANSWER_SCHEMA"]

#: The answer columns after ``id`` (whose type is the input's). Floats are the values of the
#: JSON answers (``margin`` as eval prints its float32, re-read as a float64).
ANSWER_SCHEMA = pa.schema(
    [
        ("verdict", pa.string()),
        ("margin", pa.float64()),
        ("capped", pa.bool_()),
        (
            "witness",
            pa.struct([("generators", pa.list_(pa.int64())), ("weights", pa.list_(pa.float64()))]),
        ),
        ("certificate", pa.list_(pa.float64())),
        ("binding", pa.int64()),
        ("binding_candidate", pa.string()),
    ]
)


def _column(batch: pa.Table, name: str) -> pa.Array:
    column = batch.column(name)
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def padded_generators(column: pa.Array) -> Tuple[np.ndarray, np.ndarray]:
    """A list-of-lists column as ``(generators (N, K, 3), active (N, K))``, K the longest
    row: the ragged Parquet form turned into ``Engine.cone_test``'s arguments."""
    n = len(column)
    if column.null_count:
        row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(f"row {row}: generators is null")
    counts = column.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
    inner = column.flatten()
    if pa.types.is_fixed_size_list(inner.type):
        lengths = np.full(len(inner), inner.type.list_size)
    else:
        lengths = inner.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    if len(lengths) and (lengths != 3).any():
        flat = int(np.flatnonzero(lengths != 3)[0])
        row = int(np.searchsorted(np.cumsum(counts), flat, side="right"))
        raise ValueError(f"row {row}: a generator must be three numbers, got {lengths[flat]}")
    values = inner.flatten().to_numpy(zero_copy_only=False)
    if values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    k = int(counts.max()) if n else 0
    generators = np.zeros((n, k, 3), dtype=values.dtype)
    active = np.zeros((n, k), dtype=bool)
    total = int(counts.sum())
    rows = np.repeat(np.arange(n), counts)
    slots = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    generators[rows, slots] = values.reshape(total, 3)
    active[rows, slots] = True
    return generators, active


def needs(column: pa.Array) -> np.ndarray:
    """A ``need`` column as (N, 3) float64, null rows as (0, 1, 0) (eval's default)."""
    n = len(column)
    out = np.tile(np.array([0.0, 1.0, 0.0]), (n, 1))
    present = ~column.is_null().to_numpy(zero_copy_only=False)
    if present.any():
        given = column.filter(pa.array(present))
        lengths = (
            np.full(len(given), given.type.list_size)
            if pa.types.is_fixed_size_list(given.type)
            else given.value_lengths().to_numpy(zero_copy_only=False)
        )
        if (lengths != 3).any():
            row = int(np.flatnonzero(present)[np.flatnonzero(lengths != 3)[0]])
            raise ValueError(f"row {row}: need must be three numbers")
        out[present] = given.flatten().to_numpy(zero_copy_only=False).reshape(-1, 3)
    return out


class _Evaluator:
    """One Ray actor: the engine is made once, in the constructor, then serves every batch."""

    def __init__(self, backend: str) -> None:
        self.engine = Engine(backend)

    def __call__(self, batch: pa.Table) -> pa.Table:
        generators, active = padded_generators(_column(batch, "generators"))
        need = needs(_column(batch, "need")) if "need" in batch.column_names else None
        rows = self.engine.answers(generators, active, need)
        table = pa.Table.from_pylist(rows, schema=ANSWER_SCHEMA)
        ids = batch.column("id") if "id" in batch.column_names else pa.nulls(len(rows))
        return table.add_column(0, "id", ids)


def _warn_without_gpus(num_gpus: float) -> None:
    """Actors that ask for a GPU on a cluster without one wait forever: say so up front."""
    import ray  # the Ray package (this module is planar_hold.ray)

    if num_gpus and ray.is_initialized() and not ray.cluster_resources().get("GPU"):
        warnings.warn(
            "backend='gpu' asks each actor for a GPU but this Ray cluster has none (yet): the "
            "job waits until a node with a GPU joins. Pass num_gpus=0 to run on a software "
            "adapter, or backend='cpu'.",
            stacklevel=3,
        )


def evaluate(
    dataset: Any,
    backend: str = "cpu",
    batch_size: int = 65536,
    concurrency: Optional[Union[int, Tuple[int, int]]] = None,
    **map_batches_args: Any,
) -> Any:
    """The cone test of every row of ``dataset``, as a lazy ``ray.data.Dataset`` of answers.

    backend: "cpu" (each actor runs the SIMD path on the cores of its node) or "gpu" (each
        actor holds one GPU: ``num_gpus=1``).
    batch_size: rows per engine call (65,536: long enough that the per-call costs vanish).
    concurrency: actors (an int, or (min, max) to autoscale); None lets Ray Data decide.
    map_batches_args: passed to ``Dataset.map_batches`` (e.g. ``num_cpus``).

    A bad row (more than 16 generators, a number not finite in float32) fails the job with a
    ValueError naming its position in the batch.
    """
    if backend not in ("cpu", "gpu"):
        raise ValueError(f'backend must be "cpu" or "gpu", got {backend!r}')
    if backend == "gpu":
        map_batches_args.setdefault("num_gpus", 1)
        _warn_without_gpus(map_batches_args["num_gpus"])
    return dataset.map_batches(
        _Evaluator,
        fn_constructor_kwargs={"backend": backend},
        batch_size=batch_size,
        batch_format="pyarrow",
        concurrency=concurrency,
        **map_batches_args,
    )
