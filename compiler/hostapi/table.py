"""The host API, one row per constructor, method and property (docs/design.md §4).

Adding a host call: a row here, its implementation in the runtime (runtime/hostimpl.py fails
at import until every row has one and every public attribute of a handle has a row), and a
checker handler only when its effect does not say enough (checker/host/core.py).
"""

from __future__ import annotations

from typing import cast

from ...diagnostics import messages as msg
from ...diagnostics.messages import Message
from .registry import Effect, HostEntry, Memory, Receiver, declare

SHAPE = "shape: tuple[int, ...] | int"
_SIZES = (msg.BAD_CONSTRUCTOR_ARG, msg.SHAPE_TOO_LARGE, msg.TOO_LARGE)


def _function(name: str, sig: str, doc: str, *raises: Message,
              memory: Memory = "new") -> None:
    declare(HostEntry("ct", name, "function", Effect.CREATES, doc, sig, "Tensor",
                      raises or _SIZES, memory=memory))


def _method(receiver: Receiver, name: str, sig: str, returns: str, effect: Effect, doc: str,
            *raises: Message, action: str = "") -> None:
    declare(HostEntry(receiver, name, "method", effect, doc, sig, returns, raises, action))


def _properties(table: str) -> None:
    """Rows of `receivers; name; type; doc` (receivers separated by spaces)."""
    for row in table.strip().splitlines():
        receivers, name, returns, doc = (part.strip() for part in row.split(";"))
        for receiver in receivers.split():
            declare(HostEntry(cast(Receiver, receiver), name, "property", Effect.INSPECTS, doc,
                              returns=returns))


# -- constructors (ct.NAME): a tensor at once, its fill or copy enqueued on the current stream --
_function("zeros", f"{SHAPE}, dtype: DType", "A new tensor of zeros.")
_function("ones", f"{SHAPE}, dtype: DType", "A new tensor of ones.")
_function("full", f"{SHAPE}, value: float | bool, dtype: DType",
          "A new tensor with every element `value` (it must fit the dtype; an integer dtype "
          "truncates a finite float).")
_function("empty", f"{SHAPE}, dtype: DType",
          "A new tensor whose elements are whatever the allocator hands out.")
_function("arange", "n: int, dtype: DType = i32", "A new rank-1 tensor 0, 1, ..., n - 1 (i32 "
          "unless `dtype` says, as the kernel op).")
_function("rand", f"{SHAPE}, dtype: DType, seed: int | None = None",
          "A new tensor uniform in [0, 1), drawn on the host (`seed=` repeats the draw on every "
          "backend).")
_function("randn", f"{SHAPE}, dtype: DType, seed: int | None = None",
          "A new tensor of standard normal values, drawn on the host.")
_function("meta", f"{SHAPE}, dtype: DType",
          "A shape and dtype without memory: for `kernel.compile(...)` ahead of time and warm-up.",
          msg.BAD_CONSTRUCTOR_ARG, msg.SHAPE_TOO_LARGE, memory="none")
_LIKE = "t: Tensor"
_DTYPE = "dtype: DType | None = None"
_function("zeros_like", f"{_LIKE}, {_DTYPE}",
          "A new tensor of zeros with `t`'s shape and dtype (`dtype=` another dtype).")
_function("ones_like", f"{_LIKE}, {_DTYPE}",
          "A new tensor of ones with `t`'s shape and dtype (`dtype=` another dtype).")
_function("empty_like", f"{_LIKE}, {_DTYPE}",
          "A new tensor of `t`'s shape and dtype (`dtype=` another dtype), uninitialized.")
_function("full_like", f"{_LIKE}, value: float | bool, {_DTYPE}",
          "A new tensor of `t`'s shape and dtype (`dtype=` another dtype), every element "
          "`value`.")
_function("from_numpy", "array: NDArray[Any], dtype: DType | None = None",
          "A new tensor holding a copy of a NumPy array (`dtype=` converts while copying).",
          *_SIZES, msg.FROM_NUMPY_RANGE)
_function("from_dlpack", "obj: Any",
          "A tensor on another library's memory (torch, CuPy, JAX, NumPy): zero copy where the "
          "backend computes on that memory, else one copy.", msg.BAD_DLPACK, memory="imported")

# -- tensors ----------------------------------------------------------------------------------
_method("tensor", "partition",
        "tile_shape: tuple[int, ...] | int, order: TileOrder = ct.row_major, "
        "blocks: int | None = None", "Partition", Effect.MOVES,
        "Moves the tensor into a partition of slabs of `tile_shape` (the argument of a `Mut` "
        "parameter); `blocks=` makes it persistent.",
        msg.MUT_RANK, msg.BAD_PARTITION, msg.READ_ONLY_PARTITION, action="partitioned")
_method("tensor", "reshape", f"{SHAPE}, *dims: int", "Tensor", Effect.MOVES,
        "Moves the tensor into a handle of another shape (one extent may be -1): the same "
        "memory when contiguous, else a copy. `t.reshape((3, 4))` or `t.reshape(3, 4)`.",
        msg.BAD_CONSTRUCTOR_ARG, msg.BAD_RESHAPE, action="reshaped")
_method("tensor", "__getitem__", "key: Any", "Tensor", Effect.VIEWS,
        "`t[a:b, :, c]`: a view (ints drop their axis, slice steps are positive, one `...`).",
        msg.BAD_VIEW)
_method("tensor", "narrow", "axis: int, start: int, length: int", "Tensor", Effect.VIEWS,
        "The view of `length` elements from `start` along `axis`.", msg.BAD_VIEW)
_method("tensor", "split_at", "axis: int, k: int", "tuple[Tensor, Tensor]", Effect.VIEWS,
        "Two disjoint views, elements [0, k) and [k, n) along `axis`: both may be `Mut`.",
        msg.BAD_VIEW)
_method("tensor", "permute", "*axes: int", "Tensor", Effect.VIEWS,
        "A view with its axes reordered: `t.permute(1, 0)` or `t.permute((1, 0))`.",
        msg.BAD_VIEW)
_method("tensor", "view", f"{SHAPE}, *dims: int", "Tensor", Effect.VIEWS,
        "A view of another shape over the same elements (contiguous tensors only): "
        "`t.view((3, 4))` or `t.view(3, 4)`.",
        msg.BAD_VIEW, msg.BAD_RESHAPE)
_method("tensor", "fill_", "value: float | bool", "Tensor", Effect.WRITES,
        "Writes `value` into every element in place (enqueued on the current stream, as "
        "`ct.full`'s fill; the value must fit the dtype) and returns the tensor.",
        msg.BAD_CONSTRUCTOR_ARG, msg.META_TENSOR_DATA, msg.READ_ONLY_WRITE, action="filled")
_method("tensor", "copy_", "src: Any", "Tensor", Effect.WRITES,
        "Writes `src` (a NumPy array, a cutile tensor or a DLPack array of the tensor's shape, "
        "or broadcasting to it) into every element in place, converted as "
        "`ct.from_numpy(src, dtype=t.dtype)` converts (enqueued on the current stream, as "
        "`fill_`), and returns the tensor.",
        msg.BAD_CONSTRUCTOR_ARG, msg.FROM_NUMPY_RANGE, msg.COPY_SHAPE, msg.COPY_INTO_BROADCAST,
        msg.BAD_DLPACK, msg.META_TENSOR_DATA, msg.READ_ONLY_WRITE, action="written")
_method("tensor", "numpy", "", "NDArray[Any]", Effect.READS,
        "A host copy, once pending work on the tensor is done (bf16 and f8 come back as "
        "float32).", msg.META_TENSOR_DATA, action="copied to the host")
_method("tensor", "__dlpack__",
        "*, stream: int | None = None, max_version: tuple[int, int] | None = None, "
        "dl_device: tuple[int, int] | None = None, copy: bool | None = None", "PyCapsule",
        Effect.READS, "Exports the tensor's memory (never a copy unless `copy=True`) for "
        "another library's `from_dlpack`.", msg.BAD_DLPACK, action="exported")
_method("tensor", "__dlpack_device__", "", "tuple[int, int]", Effect.INSPECTS,
        "The DLPack device the tensor's memory is on.")
_method("tensor", "is_contiguous", "", "bool", Effect.INSPECTS,
        "Whether the elements are laid out row-major without gaps.")

# -- partitions -------------------------------------------------------------------------------
_method("partition", "unpartition", "", "Tensor", Effect.MOVES,
        "Moves the tensor back out of the partition.")
_method("partition", "numpy", "", "NDArray[Any]", Effect.READS,
        "A host copy of the whole tensor (the partition stays usable).", msg.META_TENSOR_DATA,
        action="copied to the host")

# -- both handles -----------------------------------------------------------------------------
for _receiver in ("tensor", "partition"):
    _method(_receiver, "active_leases", "", "list[LaunchOp]", Effect.INSPECTS,
            "The pending launches that read it.")

# -- lazy ops: a launch `kernel(args)` and a `.then` chain --------------------------------------
_method("op", "sync", "", "tuple[Any, ...]", Effect.WAITS,
        "Runs the op if it has not started, waits, and returns the launch's positional "
        "arguments, in order.", msg.SYNC_UNPACK)
_method("op", "__await__", "", "tuple[Any, ...]", Effect.WAITS,
        "`.sync()` without blocking the event loop (the op starts on a worker thread).",
        msg.WAIT_UNPACK)
_method("op", "start", "", "DeviceOp", Effect.ENQUEUES,
        "Enqueues the op without waiting; `.sync()` later hands the arguments back.")
_method("op", "then", "fn: Callable[..., DeviceOp | tuple[Any, ...]]", "DeviceOp",
        Effect.ENQUEUES, "Chains `fn` after the op on its stream: `fn` receives the op's "
        "results and returns the next op.", msg.THEN_ARITY)
_method("op", "graph", "", "GraphOp", Effect.ENQUEUES,
        "Captures the op into a CUDA graph and runs it once; the graph owns its arguments.",
        msg.GRAPH_OF_STARTED_OP)

# -- properties -------------------------------------------------------------------------------
_properties("""
tensor partition; shape; tuple[int, ...]; The extents (a partition's: its tensor's).
tensor partition; dtype; DType; The element type (`t.dtype == ct.f32` compares it with a DSL dtype).
tensor partition; state; State; Live, moved, shared-leased or exclusively-leased.
tensor partition; readers; int; How many pending launches read it.
tensor; strides; tuple[int, ...]; The strides, in elements.
tensor; device; Device | None; Where the memory is (None for ct.meta).
tensor; ndim; int; The rank.
tensor; size; int; The number of elements.
tensor; is_meta; bool; Whether it is a ct.meta tensor (no memory).
tensor; data_ptr; int; The address of element 0 (0 for ct.meta).
partition; tile; tuple[int, ...]; The slab shape.
partition; order; TileOrder; Which block owns which slab.
partition; blocks; int | None; The block count of a persistent partition.
partition; grid; tuple[int, ...]; The slab grid: ceil(shape / tile) per axis.
partition; launch_grid; tuple[int, int, int]; The launch grid its order gives.
partition; num_tiles; int; The number of slabs.
partition; tiling; Tiling; Which block owns which slab, in full.
op; finished; bool; Whether the op has run (or failed).
op; phase; Phase; Where the op is: created, starting, enqueued or done.
op; backend; Backend; The backend it runs on.
op; stream; int; The stream it is enqueued on.
op; site; Site; Where in the user's code it was made.
op; kernel_name; str; The kernel it launches (a chain's: its first).
""")

# -- graphs: `op.graph()` ---------------------------------------------------------------------
_method("graph", "replay", "", "None", Effect.ENQUEUES,
        "Enqueues one more run of the captured work without waiting.")
_method("graph", "sync", "", "tuple[Any, ...]", Effect.WAITS,
        "Waits for every replay and hands the arguments back; the graph is finished.",
        msg.WAIT_UNPACK)
_method("graph", "__await__", "", "tuple[Any, ...]", Effect.WAITS,
        "The graph's `.sync()` without blocking the event loop.", msg.WAIT_UNPACK)
