"""planar-hold over Ray Data: cone tests and grasps of a dataset of any size, on a cluster.

``evaluate(ds)`` maps a ``ray.data.Dataset`` with the Parquet input columns of
``planar-hold eval`` (``generators``: a list of lists of 3 or 6 numbers, float32 or float64;
optional ``need``: as many numbers, null for the nominal weight, (0, 1, 0) or
(0, 0, 1, 0, 0, 0); optional ``id``: any type, passed through) to a Dataset of answer rows
with the keys of ``eval``'s JSON Lines answers: ``id``, ``verdict`` (a string), ``margin``,
``capped``, ``witness`` ({``generators``, ``weights``} or null), ``certificate`` (or null),
``binding``, ``binding_candidate`` (planar answers), ``facet`` ({``normal``,
``generators``} or null; general answers), ``margin_checked`` (general answers; false only where
the margin could not be proven: it is then an upper bound) and ``margin_lower`` (general
answers: the proven bound from below). Rows of up to 16 three-number generators go to
the planar enumeration, the others (more than 16, or six numbers: docs/contract-general.md, up
to 256 generators) to the general engine; a batch may mix them. Every row has every column,
null where its kind of answer has no such key (as in ``eval``'s Parquet answers). Each actor
builds one ``Engine`` once and reuses it for every batch it is handed.

``gate(ds)`` maps a Dataset of scene rows (a scene line's fields as columns, planar or
spatial, sliding contacts' ``slip`` a field of their contact) to rows of the gate's verdicts
(``SCENE_SCHEMA``: held, robust margin, which contacts slide, why not, the whole report as
JSON; docs/contract-scenes.md).

``grasp_quality(ds)`` maps a Dataset of grasp rows (a grasp line's fields as columns:
``contacts``, optional ``half_size``, ``pyramid``, ``friction``, ``id``) to rows of the grasp
reports (``GRASP_SCHEMA``: force closure, q1, the weakest wrench, the facet; docs/contract-grasp.md);
on the CPU as Ray tasks, each worker process keeping one engine for all its batches.

Needs ``pip install "./python[ray]"``.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import pyarrow as pa

from . import MAX_GENERAL_GENERATORS, Engine

__all__ = ["evaluate", "grasp_quality", "gate", "ANSWER_SCHEMA", "GRASP_SCHEMA", "SCENE_SCHEMA"]

#: The answer columns after ``id`` (whose type is the input's). Floats are the values of the
#: JSON answers (a planar ``margin`` as eval prints its float32, re-read as a float64).
#: ``binding`` and ``binding_candidate`` are null on general rows, ``facet`` on planar rows.
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
        (
            "facet",
            pa.struct([("normal", pa.list_(pa.float64())), ("generators", pa.list_(pa.int64()))]),
        ),
        ("margin_checked", pa.bool_()),
        ("margin_lower", pa.float64()),
    ]
)

#: The default need of each dimension (eval's): the nominal weight.
DEFAULT_NEED = {3: (0.0, 1.0, 0.0), 6: (0.0, 0.0, 1.0, 0.0, 0.0, 0.0)}


def _column(batch: pa.Table, name: str) -> pa.Array:
    column = batch.column(name)
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _list_lengths(column: pa.Array) -> np.ndarray:
    """The length of each list of a list (or fixed-size list) column; null rows 0."""
    if pa.types.is_fixed_size_list(column.type):
        return np.full(len(column), column.type.list_size, dtype=np.int64)
    return column.value_lengths().fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)


class Generators:
    """A ``generators`` column read once: every row's generator count and length (3 or 6),
    and the numbers back to back (``Engine.answer_rows``'s ragged form)."""

    def __init__(self, column: pa.Array, need: Optional[pa.Array] = None) -> None:
        n = len(column)
        if column.null_count:
            row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"row {row}: generators is null")
        self.counts = _list_lengths(column)
        inner = column.flatten()
        lengths = _list_lengths(inner)
        row_of = np.repeat(np.arange(n), self.counts)
        starts = np.cumsum(self.counts) - self.counts  # first generator of each row
        if inner.null_count:
            flat = int(np.flatnonzero(inner.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"row {row_of[flat]}: generator {flat - starts[row_of[flat]]} is null")
        # A row's dimension: its first generator's length, else its need's, else 3 (eval's).
        dims = np.full(n, 3, dtype=np.int64)
        if need is not None:
            given = ~need.is_null().to_numpy(zero_copy_only=False)
            dims[given] = _list_lengths(need)[given]
        has = self.counts > 0
        dims[has] = lengths[starts[has]]
        bad = np.flatnonzero(lengths != dims[row_of])
        if len(bad):
            flat = int(bad[0])
            row = int(row_of[flat])
            raise ValueError(
                f"row {row}: generator {flat - starts[row]} has {lengths[flat]} numbers, "
                f"generator 0 has {dims[row]}"
            )
        bad = np.flatnonzero((dims != 3) & (dims != 6))
        if len(bad):
            row = int(bad[0])
            raise ValueError(f"row {row}: a generator must be 3 or 6 numbers, got {dims[row]}")
        bad = np.flatnonzero(self.counts > MAX_GENERAL_GENERATORS)
        if len(bad):
            row = int(bad[0])
            raise ValueError(
                f"row {row}: {self.counts[row]} generators, more than {MAX_GENERAL_GENERATORS}"
            )
        values = inner.flatten().to_numpy(zero_copy_only=False)
        if values.dtype not in (np.float32, np.float64):
            values = values.astype(np.float64)
        self.values = values
        self.dims = dims


def needs_by_dim(column: pa.Array, dims: Optional[np.ndarray] = None) -> Dict[int, np.ndarray]:
    """A ``need`` column as one (N, d) float64 array per dimension d of ``dims`` (each row's,
    default all 3), null rows the nominal weight (eval's default); rows of another dimension
    hold the default there."""
    n = len(column)
    dims = np.full(n, 3, dtype=np.int64) if dims is None else dims
    out = {d: np.tile(np.array(DEFAULT_NEED[d]), (n, 1)) for d in (3, 6) if (dims == d).any()}
    present = ~column.is_null().to_numpy(zero_copy_only=False)
    if present.any():
        given = column.filter(pa.array(present))
        lengths = _list_lengths(given)
        rows = np.flatnonzero(present)
        bad = np.flatnonzero(lengths != dims[rows])
        if len(bad):
            row = int(rows[bad[0]])
            raise ValueError(f"row {row}: need must be {dims[row]} numbers, got {lengths[bad[0]]}")
        values = given.flatten().to_numpy(zero_copy_only=False).astype(np.float64)
        starts = np.cumsum(lengths) - lengths
        for d, table in out.items():
            mine = dims[rows] == d
            at = starts[mine][:, None] + np.arange(d)[None, :]
            table[rows[mine]] = values[at]
    return out


def _renamed(e: ValueError) -> ValueError:
    """The engine's "case i: ..." of the batch's rows as "row i: ..."."""
    text = str(e)
    m = re.search(r"\bcase (\d+): ", text)
    return ValueError(f"{text[:m.start()]}row {m[1]}: {text[m.end():]}") if m else e


def answer_rows(engine: Engine, batch: pa.Table) -> List[dict]:
    """Every row of a batch answered as ``eval`` answers its line, in order, in one engine
    call: each row goes to the engine its shape and its numbers pick (the core's routing
    rule)."""
    need_column = _column(batch, "need") if "need" in batch.column_names else None
    g = Generators(_column(batch, "generators"), need_column)
    needs = None
    if need_column is not None:
        # Each row's need back to back, its dimension's default where null.
        needs = np.empty(int(g.dims.sum()))
        starts = np.cumsum(g.dims) - g.dims
        for d, table in needs_by_dim(need_column, g.dims).items():
            mine = np.flatnonzero(g.dims == d)
            needs[starts[mine][:, None] + np.arange(d)[None, :]] = table[mine]
    try:
        return engine.answer_rows(g.values, g.dims, g.counts, needs)
    except ValueError as e:
        raise _renamed(e) from None


class _Evaluator:
    """One Ray actor: the engine is made once, in the constructor, then serves every batch."""

    def __init__(self, backend: str) -> None:
        self.engine = Engine(backend)

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = answer_rows(self.engine, batch)
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
            stacklevel=4,
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

    A bad row (more than 256 generators, generators of different lengths or of a length
    other than 3 or 6, a need of another length, a number not finite: in float32 for a
    planar row) fails the job with a ValueError naming its position in the batch.
    """
    return _map_actors(dataset, _Evaluator, backend, batch_size, concurrency, map_batches_args)


def _map_actors(
    dataset: Any,
    actor: type,
    backend: str,
    batch_size: int,
    concurrency: Optional[Union[int, Tuple[int, int]]],
    map_batches_args: Dict[str, Any],
    actor_args: Optional[Dict[str, Any]] = None,
) -> Any:
    """``dataset.map_batches`` over actors of class ``actor`` (each its own Engine of
    ``backend``, one GPU each for "gpu" unless ``num_gpus`` says otherwise; ``actor_args``
    its other constructor arguments), Arrow batches."""
    if backend not in ("cpu", "gpu"):
        raise ValueError(f'backend must be "cpu" or "gpu", got {backend!r}')
    if backend == "gpu":
        map_batches_args.setdefault("num_gpus", 1)
        _warn_without_gpus(map_batches_args["num_gpus"])
    return dataset.map_batches(
        actor,
        fn_constructor_kwargs={"backend": backend, **(actor_args or {})},
        batch_size=batch_size,
        batch_format="pyarrow",
        concurrency=concurrency,
        **map_batches_args,
    )


# ------------------------------------------------------------------ grasps

#: The grasp answer columns after ``id``: the keys of a grasp's report (docs/contract-grasp.md
#: §6); ``force_closure`` as a string ("true", "false" or "uncertain"), ``q1_upper`` null but
#: for "coulomb", ``facet`` null where W has none; a row's threshold answered as ``gate``'s
#: Parquet answers have it: ``q1_at_least`` (null where undecided) and
#: ``q1_at_least_uncertain``, both null where the row asked none.
GRASP_SCHEMA = pa.schema(
    [
        ("force_closure", pa.string()),
        ("q1", pa.float64()),
        ("q1_lower", pa.float64()),
        ("q1_upper", pa.float64()),
        ("weakest", pa.list_(pa.float64())),
        (
            "facet",
            pa.struct(
                [
                    ("normal", pa.list_(pa.float64())),
                    ("generators", pa.list_(pa.int64())),
                    ("contacts", pa.list_(pa.int64())),
                ]
            ),
        ),
        ("margin_checked", pa.bool_()),
        ("friction", pa.string()),
        ("pyramid", pa.int64()),
        ("n_generators", pa.int64()),
        ("q1_at_least", pa.bool_()),
        ("q1_at_least_uncertain", pa.bool_()),
        ("reason", pa.string()),
    ]
)

#: The fields of a grasp row, as of a grasp line (docs/contract-grasp.md §1).
GRASP_FIELDS = ("half_size", "pyramid", "friction", "contacts", "q1_at_least", "tolerance")


def grasp_table(out: Any) -> pa.Table:
    """A ``GraspQualities`` as a table of GRASP_SCHEMA, column by column (no row made in
    Python)."""
    import pyarrow.compute as pc

    a = out._columns
    n = len(out)

    def lists(offsets: np.ndarray, values: np.ndarray, valid: np.ndarray) -> pa.Array:
        return pa.LargeListArray.from_arrays(
            pa.array(offsets, pa.int64()), pa.array(values.astype(np.int64)),
            mask=pa.array(~valid),
        ).cast(pa.list_(pa.int64()))  # fmt: skip

    def names(codes: np.ndarray, words: List[str]) -> pa.Array:
        return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(words)).cast(pa.string())

    six = pa.FixedSizeListArray.from_arrays(pa.array(out.weakest.ravel()), 6)
    weakest = six.cast(pa.list_(pa.float64()))
    normal = pc.if_else(pa.array(out.has_facet), weakest, pa.scalar(None, weakest.type))
    facet = pa.StructArray.from_arrays(
        [
            normal,
            lists(a["facet_generator_offsets"], a["facet_generators"], out.has_facet),
            lists(a["facet_contact_offsets"], a["facet_contacts"], out.has_facet),
        ],
        names=["normal", "generators", "contacts"],
        mask=pa.array(~out.has_facet),
    )
    reasons = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(a["reason_offsets"]), pa.py_buffer(a["reason_bytes"])
    )
    reason = pc.if_else(pa.array(a["has_reason"]), reasons, pa.scalar(None, reasons.type))
    asked = a["q1_at_least_code"] != 3
    columns = [
        names(a["force_closure_code"], ["false", "true", "uncertain"]),
        pa.array(out.q1),
        pa.array(out.q1_lower),
        pa.array(out.q1_upper, mask=np.isnan(out.q1_upper)),
        weakest,
        facet,
        pa.array(out.margin_checked),
        names(a["friction_code"], list(a["friction_names"])),
        pa.array(out.pyramid),
        pa.array(out.n_generators),
        pa.array(out.q1_at_least, mask=~asked | out.q1_at_least_uncertain),
        pa.array(out.q1_at_least_uncertain, mask=~asked),
        reason.cast(pa.string()),
    ]
    return pa.Table.from_arrays(columns, schema=GRASP_SCHEMA)


def grasp_rows(engine: Engine, batch: pa.Table) -> pa.Table:
    """Every grasp row of a batch answered in one engine call, as a table of GRASP_SCHEMA
    with the batch's ``id`` column first: the rows handed to the engine as Arrow columns
    (the C data interface) and read there column by column, each row's fields as a grasp
    line's (null meaning absent), its place in the batch for its id."""
    from ._native import grasp_arrow
    from .grasp import GraspQualities

    n = len(batch)
    ids = batch.column("id") if "id" in batch.column_names else pa.nulls(n)
    if n == 0:
        return GRASP_SCHEMA.empty_table().add_column(0, "id", ids)
    columns = [c for c in GRASP_FIELDS if c in batch.column_names]
    rows = batch.select(columns).append_column("id", pa.array(np.arange(n), pa.int64()))
    record = rows.combine_chunks().to_batches()[0]
    return grasp_table(GraspQualities(grasp_arrow(engine, record))).add_column(0, "id", ids)


class _GraspEvaluator:
    """One Ray actor for grasps on a GPU: its engine made once, serving every batch."""

    def __init__(self, backend: str) -> None:
        self.engine = Engine(backend)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return grasp_rows(self.engine, batch)


#: The CPU engine of this worker process, made by its first batch of grasps and kept for
#: every later batch and job (Ray reuses a task's worker process).
_task_engine: Optional[Engine] = None


def _grasp_task(batch: pa.Table) -> pa.Table:
    """A batch of grasp rows answered as a Ray task, on the process's own CPU engine."""
    global _task_engine
    if _task_engine is None:
        _task_engine = Engine("cpu")
    return grasp_rows(_task_engine, batch)


def grasp_quality(
    dataset: Any,
    backend: str = "cpu",
    batch_size: int = 4096,
    concurrency: Optional[Union[int, Tuple[int, int]]] = None,
    **map_batches_args: Any,
) -> Any:
    """The Ferrari–Canny quality of every grasp row of ``dataset`` (columns as a grasp line's
    fields: ``contacts``, a list of {``points``, ``normal``, ``mu``}; optional
    ``half_size``, ``pyramid``, ``friction``; optional ``id``, passed through), as a lazy
    ``ray.data.Dataset`` of rows of ``GRASP_SCHEMA`` after ``id``: the reports of
    ``planar_hold.grasp_quality``. ``backend``, ``concurrency`` and ``map_batches_args`` as
    for :func:`evaluate`; ``batch_size`` grasps per engine call. A bad row fails the job
    with a ValueError naming its position in the batch ("grasp 3: ...").

    On the CPU the batches are Ray tasks, not actors: each worker process makes its engine
    with its first batch and keeps it, a job starts no actor (their start was most of a job's
    fixed cost, seconds on a small machine), and Ray Data fuses the read with the map, so a
    batch goes from the file to the engine in one process. ``concurrency`` is then the most
    tasks at once (an int)."""
    if backend == "cpu":
        return dataset.map_batches(
            _grasp_task,
            batch_size=batch_size,
            batch_format="pyarrow",
            concurrency=concurrency,
            **map_batches_args,
        )
    return _map_actors(
        dataset, _GraspEvaluator, backend, batch_size, concurrency, map_batches_args
    )


# ------------------------------------------------------------------ scenes

#: The scene answer columns after ``id``: the gate's verdict (docs/contract-scenes.md), the
#: contacts that slide (indices into the row's contacts), the reason when not held, and the
#: whole report as its JSON line (its fields differ between planar and spatial scenes).
SCENE_SCHEMA = pa.schema(
    [
        ("held", pa.bool_()),
        ("robust_margin", pa.float64()),
        ("uncertain", pa.bool_()),
        ("n_generators", pa.int64()),
        ("sliding", pa.list_(pa.int64())),
        ("reason", pa.string()),
        ("report", pa.string()),
    ]
)

#: The fields of a scene row, as of a scene line (planar, or spatial with ``dim``).
SCENE_FIELDS = (
    "dim", "half_size", "pyramid", "friction", "mass", "com_offset", "com_offset_x",
    "contacts", "before", "after", "margin_min",
)


def _present(value: Any) -> Any:
    """A row's value without its null fields (a Parquet struct has every field of every
    contact: a planar contact's ``points``, a sticking contact's ``slip`` are null). An Arrow
    list holds one type: its first item that is not null says whether to look inside."""
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        for item in value:
            if item is not None:
                if isinstance(item, (dict, list)):
                    return [_present(v) for v in value]
                break
    return value


def _scene_line(i: int, row: Dict[str, Any]) -> Dict[str, Any]:
    """A scene row as its scene line, its place in the batch for the line's id."""
    line = {"id": i}
    line.update({k: _present(v) for k, v in row.items() if k in SCENE_FIELDS and v is not None})
    return line


def gate_rows(engine: Engine, batch: pa.Table, support_region: bool = True) -> pa.Table:
    """Every scene row of a batch judged in one engine call, as a table of SCENE_SCHEMA
    with the batch's ``id`` column first (``support_region=False``: the reports without
    their ``support_region`` fields, as ``gate --no-region``)."""
    columns = [c for c in SCENE_FIELDS if c in batch.column_names]
    rows = [_scene_line(i, r) for i, r in enumerate(batch.select(columns).to_pylist())]
    # The columns and each report's JSON text straight from the engine (json.dumps of the
    # report dicts took as long as the engine).
    out = (engine.gate_columns(rows, support_region=support_region) if rows
           else {name: [] for name in SCENE_SCHEMA.names})
    table = pa.Table.from_pydict(out, schema=SCENE_SCHEMA)
    ids = batch.column("id") if "id" in batch.column_names else pa.nulls(len(rows))
    return table.add_column(0, "id", ids)


class _SceneEvaluator:
    """One Ray actor for scenes: its engine made once, serving every batch."""

    def __init__(self, backend: str, support_region: bool = True) -> None:
        self.engine = Engine(backend)
        self.support_region = support_region

    def __call__(self, batch: pa.Table) -> pa.Table:
        return gate_rows(self.engine, batch, self.support_region)


def gate(
    dataset: Any,
    backend: str = "cpu",
    batch_size: int = 4096,
    concurrency: Optional[Union[int, Tuple[int, int]]] = None,
    support_region: bool = True,
    **map_batches_args: Any,
) -> Any:
    """The hold gate of every scene row of ``dataset`` (columns as a scene line's fields:
    ``contacts``, a list of {``pair``, ``p0``, ``p1`` or ``points``, ``normal``, ``mu``,
    optional ``slip``}; ``half_size``; optional ``dim``, ``pyramid``, ``friction``,
    ``mass``, ``com_offset``/``com_offset_x``, ``margin_min``; optional ``id``, passed
    through), as a lazy ``ray.data.Dataset`` of rows of ``SCENE_SCHEMA`` after ``id``: the
    reports of ``planar_hold.gate``. ``backend``, ``concurrency`` and ``map_batches_args``
    as for :func:`evaluate`; ``batch_size`` scenes per engine call; ``support_region=False``:
    each report without its ``support_region`` fields (as ``gate --no-region``). A bad row
    fails the job with a ValueError naming its position in the batch ("scene 3: ...")."""
    return _map_actors(
        dataset,
        _SceneEvaluator,
        backend,
        batch_size,
        concurrency,
        map_batches_args,
        {"support_region": support_region},
    )
