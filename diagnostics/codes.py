"""The registry of diagnostic codes: one entry per code, with a kebab-case name, its docs and its
behaviour (severity, whether a comment can suppress it, the exception it raises at run time, the
language server's quick fix).

Every user-facing failure of cutile (frontend, checker, runtime, toolchain) carries one of these,
and every part of cutile reads a code's behaviour from here: no other table of codes exists.
`cutile-check --explain CODE` prints the entry; docs/codes.md is generated from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Family(enum.Enum):
    """The range a code belongs to, with its title; docs/codes.md has one section per family."""

    SYNTAX = "CT1xx: kernel syntax the compiler does not support"
    TYPES = "CT2xx: tile types"
    OWNERSHIP = "CT3xx: ownership"
    LAUNCH = "CT4xx: launches and bounds"
    TOOLCHAIN = "CT5xx: toolchain and device"
    TOOL = "CT9xx: configuration, suppressions and internal errors"

    @property
    def prefix(self) -> str:
        return self.value[:3]


class Raises(enum.Enum):
    """The exception class a finding raises at run time, by its name in cutile.diagnostics.errors.
    The registry sits below the exception classes, so it names them; errors.py maps each once."""

    KERNEL = "KernelError"
    OWNERSHIP = "OwnershipError"
    LAUNCH = "LaunchError"
    COMPILE = "CompileError"
    DEVICE = "DeviceError"
    CUTILE = "CutileError"  # configuration and internal errors: no narrower class fits


class QuickFix(enum.Enum):
    """A fix that rewrites code (checker/fixes.py maps each to its function), by what it does:
    the language server offers it as a code action, `cutile-check --fix` applies it where it is
    safe and `--unsafe-fixes` where it changes what runs. Suppression comments are offered for
    every suppressible code instead (in the editor only)."""

    ASTYPE = ("convert one operand with `.astype(...)`. Unsafe (`--unsafe-fixes`): the "
              "operand that converts without loss is widened (f16 to f32, i8 to i32), so the "
              "expression then computes in the wider dtype; a mix with no lossless direction "
              "(f32 and i32) is left to the editor, which offers both conversions")
    REBIND_FROM_SYNC = ("rebind the names from the launch's `.sync()` or `await`. Safe (`--fix`) "
                        "where the code already waits for the launch (`add(z, x).sync()`, "
                        "`await add(z, x)`, a later `op.sync()` before the use); unsafe "
                        "(`--unsafe-fixes`) where it adds the wait, `.sync()` after a bare launch "
                        "or `z, x = op.sync()` before the use (moving a later `op.sync()` up), "
                        "since that runs the launch and blocks there")


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    summary: str
    doc: str
    example: str
    family: Family
    raises: Raises
    severity: Severity = Severity.ERROR  # before configuration overrides
    suppressible: bool = True  # whether an ignore comment can silence it
    fix: QuickFix | None = None
    fatal: bool = False  # the run itself is not trustworthy: cutile-check exits 2

    @property
    def behaviour(self) -> str:
        """The behaviour as a sentence, for docs/codes.md and `cutile-check --explain`."""
        parts = [f"Severity: {self.severity.value}.",
                 f"Suppressible: {'yes' if self.suppressible else 'no'}.",
                 f"Raises `ct.{self.raises.value}` at run time."]
        if self.fix is not None:
            parts.append(f"Fix: {self.fix.value}.")
        return " ".join(parts)


@dataclass(frozen=True)
class _Entry:
    """One registry entry as written below; its family gives the defaults it does not set."""

    code: str
    name: str
    summary: str
    doc: str
    example: str = ""
    raises: Raises | None = None
    severity: Severity = Severity.ERROR
    suppressible: bool = True
    fix: QuickFix | None = None
    fatal: bool = False


_c = _Entry


def _family(family: Family, raises: Raises, entries: list[_Entry]) -> list[Code]:
    return [Code(e.code, e.name, e.summary, " ".join(e.doc.split()), e.example.strip("\n"),
                 family, e.raises or raises, e.severity, e.suppressible, e.fix, e.fatal)
            for e in entries]


_ALL: list[Code] = [
    *_family(Family.SYNTAX, Raises.KERNEL, [  # CT1xx: Python the kernel compiler does not support.
    _c("CT100", "syntax-error", "The file is not valid Python",
       "The file could not be parsed, so nothing in it was checked. Fix the syntax error first.",
       suppressible=False),
    _c("CT101", "unsupported-statement", "A statement kernels cannot contain",
       """Kernels and `@ct.function` helpers are compiled to GPU code and support assignments,
       `if`/`elif`/`else`, `for ... in range(...)`, `while`, `break`, `continue`, `pass` and
       `return`. `try`, `with`, `del`, `global`, `import`, `class`, `async` and `yield` are not
       supported; the message says what to use instead.""",
       """
@ct.kernel
def k(z: Mut[Tensor[f32, (128,)]]) -> None:
    try:  # E: CT101
        z.store(ct.zeros((128,), f32))
    except ValueError:
        pass
"""),
    _c("CT102", "unsupported-expression", "An expression kernels cannot contain",
       """Comprehensions, lambdas, f-strings, dict/set/list literals, stepped slices
       (`t[::2]`; a plain sub-tile `t[:, 32:64]` is fine), starred arguments, `await` and the
       walrus operator have no tile equivalent. Use tile operations instead (for example
       `ct.arange` instead of a list comprehension)."""),
    _c("CT103", "unknown-name", "A name that is not defined for kernels",
       """Kernels may use their parameters, local variables, `cutile` operations, `@ct.function`
       helpers and module-level names bound once to a constant expression: numbers, strings,
       tuples, `math.inf`/`np.pi`, `float("-inf")`, earlier such names and arithmetic on them
       (`NEG_INF = -math.inf`, `BLOCK = 1 << 7`); they become compile-time constants. Other
       globals (objects, arrays, names assigned more than once, in a loop or an `if`) are not
       visible to kernels: pass them as parameters. cutile's own names may come through other
       project modules (`from common import *`), which cutile reads without running them; a name
       whose origin it cannot read (a module it cannot find, a computed or conditional binding)
       is CT103 naming that module: import the name from cutile itself."""),
    _c("CT104", "non-kernel-call", "A call to a function that cannot run on the GPU",
       """Kernels can only call `cutile` operations, `@ct.function` helpers and `range`.
       Calling an ordinary Python function (or a builtin such as `print` or `len`) is an error:
       decorate the helper with `@ct.function`, or use `ct.printf` for printing."""),
    _c("CT105", "recursion", "A helper function that calls itself",
       """`@ct.function` helpers are inlined into the kernel at every call, so recursion (direct
       or through other helpers) cannot be compiled. Rewrite it as a loop."""),
    _c("CT106", "nested-function", "A function defined inside a kernel",
       """Closures and nested functions are not supported in kernels. Define the helper at module
       level with `@ct.function` and pass what it needs as arguments."""),
    _c("CT107", "bad-signature", "A kernel parameter without a usable annotation",
       """Every kernel parameter needs an annotation cutile understands: `Tensor[dtype, shape]`,
       `Mut[Tensor[dtype, shape]]`, `Const[int]`, `Const[bool]`, `Const[DType]` or a scalar dtype
       such as `f32`. `*args`, `**kwargs` and default values are not supported. Kernels return
       `None`."""),
    _c("CT108", "kernel-return-value", "A kernel that returns a value",
       """Kernels communicate only through their `Mut` outputs: `return` with a value is only
       allowed in `@ct.function` helpers. Store the result with `z.store(tile)`."""),
    _c("CT109", "unknown-attribute", "An attribute or method that does not exist",
       """The name is not a `cutile` operation or not a method of that kind of value (for example
       `.store` on a read-only tensor, or `ct.expp`). The message lists what is available."""),
    _c("CT110", "bad-arguments", "Wrong number or names of arguments in a call",
       """The call does not match the operation's signature: too many or too few positional
       arguments, or an unknown keyword."""),
    _c("CT111", "possibly-unbound", "A name that is not bound on every path",
       """A variable assigned only inside a loop body or only in some branches of an `if` cannot be
       used after it, because tiles have one static type on every path. Assign it before the
       loop or in every branch."""),
    _c("CT112", "unsafe-operation", "An operation reserved for unsafe kernels",
       """Index-addressed stores, atomics and pointer tiles can break the disjointness that makes
       kernels race-free. They are only allowed in `@ct.kernel(unsafe=True)`."""),
    _c("CT113", "unsupported-loop", "A loop over something other than range(), z.tiles() or a "
       "tuple",
       """`for` loops in kernels iterate over `range(...)` (with tile or Const bounds), over
       `z.tiles()` of a persistent partition, or over a tuple (`ct.split(...)`, a literal,
       `enumerate`/`zip` of tuples), which is unrolled at compile time. Iterating over a tile
       or another object is not supported, and an unrolled loop has no `break` or `continue`
       (there is no loop left to leave)."""),
    _c("CT114", "bad-kernel-option", "A kernel option that does not exist or a bad value",
       """`@ct.kernel(...)` takes the options in the table of docs/language.md ("Kernel options
       and hints"), each with the values it accepts; the code-generation hints among them can
       also be set per launch configuration with `kernel.with_hints(...)`. Options must be
       literal values. The same code covers `ct.autotune` configs and keys that name no hint or
       Const parameter.""",
       """
@ct.kernel(occupancy=0)  # E: CT114
def k(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))
"""),
    _c("CT115", "unsafe-kernel", "A kernel that opts out of the safety rules",
       """`@ct.kernel(unsafe=True)` allows scatters and index-addressed stores into shared
       tensors, which may race between blocks. Every such kernel is reported, so a review sees
       each one; suppress it with `# cutile: ignore[CT115]` on the decorator's line once the
       kernel is known to write disjoint elements. Prefer a `Mut` slab or an accumulator.""",
       """
@ct.kernel(unsafe=True)  # E: CT115
def k(y: Tensor[f32, (-1,)], x: Tensor[i32, (-1,)]) -> None:
    i = x.load_tile((128,), (0,))
    ct.scatter(y, (i,), 1.0)
""", severity=Severity.WARNING),
    _c("CT116", "pdl-wait", "A predecessor wait that is missing, misplaced or not opted into",
       """A `@ct.kernel(pdl=True)` kernel may start while the launch before it in a `.then`
       chain (or its graph) still runs, so every block must pass
       `ct.wait_for_predecessor()` before it touches what that launch writes. The wait is
       therefore a statement of the kernel's own body (not inside an `if`, a loop or after a
       `return` that could skip it), called exactly once; a `pdl=True` kernel without it, or
       a wait in a kernel without `pdl=True`, is an error (docs/runtime.md, "Programmatic
       dependent launch").""",
       """
@ct.kernel
def k(z: Mut[Tensor[f32, (128,)]]) -> None:
    ct.wait_for_predecessor()  # E: CT116
    z.store(ct.zeros((128,), f32))
"""),
    ]),
    *_family(Family.TYPES, Raises.KERNEL, [  # CT2xx: tile types.
    _c("CT201", "shape-mismatch", "Tile shapes that do not broadcast or do not match",
       """Elementwise operations broadcast NumPy-style: shapes are right-aligned and a dimension of
       size 1 expands. `(128,) + (64,)` is an error; `(128,) + (1,)` is not. Stores need the tile
       shape of their destination.""",
       """
t = ct.zeros((128,), f32) + ct.zeros((64,), f32)  # E: CT201
"""),
    _c("CT202", "dtype-mismatch", "Tiles of different dtypes mixed without a cast",
       """cutile never converts implicitly between float widths or between integers and floats:
       `f16 + f32` is an error. Convert explicitly with `t.astype(f32)`. Python number literals
       take the dtype of the tile they meet, but a float literal cannot meet an integer tile.""",
       fix=QuickFix.ASTYPE),
    _c("CT203", "rank-mismatch", "A tile or index of the wrong rank",
       """The operation needs a tile (or index tuple) of a different rank: for example a tuple of
       two indices for a rank-2 partition, a rank-2 tile for `transpose()`, or a rank-0 tile for a
       loop bound."""),
    _c("CT204", "mma-shape", "Operand shapes of a matrix multiply do not fit",
       """`ct.mma(a, b, acc)` needs `a` of shape (M, K), `b` of shape (K, N) and `acc` of shape
       (M, N) (optionally with a shared leading batch dimension)."""),
    _c("CT205", "mma-dtype", "An unsupported matrix-multiply dtype combination",
       """Supported operand -> accumulator pairs: f16 -> f16 or f32, bf16 -> f32, tf32 -> f32,
       f32 -> f32, f8 (e4m3/e5m2) -> f16 or f32, f64 -> f64, i8 or u8 -> i32. Both operands must
       have the same dtype (tileiras takes one element type for both)."""),
    _c("CT206", "bad-axis", "An axis that the tile does not have",
       """Reductions, scans, `expand_dims`, `cat` and `permute` take axes in `[-rank, rank)`;
       `permute` needs every axis exactly once."""),
    _c("CT207", "reshape-size", "A reshape that changes the number of elements",
       """`t.reshape(shape)` keeps every element: the product of the new shape must equal the
       product of the old one."""),
    _c("CT208", "non-power-of-two", "A tile dimension that is not a power of two",
       """Tile IR requires every tile dimension to be a power of two (1, 2, 4, ..., 2**k). Pick a
       power of two; out-of-range elements of edge tiles are padded on load and masked on store.
       A Mut slab may have any extents: `z.load()`, `z.store(t)` and `ct.load_tile_like(x, z)`
       move it as one tile of `z.tile_shape`, but a tile shaped by the slab's own extents
       (`ct.full(z.shape, ...)`, `x.load_tile(z.shape, ...)`) is not a tile shape. Where the
       extent is a Const, the error shows when a launch gives it a value; cutile-check reports
       it then too, at the same line, if the host code shows that value.
       """),
    _c("CT209", "not-constant", "A value that must be known at compile time",
       """Tile shapes, axes, dtypes and `keepdims` must be compile-time constants: literals,
       `Const` parameters, module-level literal constants or arithmetic on them."""),
    _c("CT210", "const-misuse", "A Const parameter used in a way it cannot be",
       """`Const` parameters are compile-time values: they cannot be reassigned, and a
       `Const[DType]` is a dtype, not a number."""),
    _c("CT211", "bad-operand", "An operand of the wrong kind or dtype for the operation",
       """The operation does not accept this kind of value: bitwise operators need integer or bool
       tiles, `if`/`while` conditions need a scalar bool, tensors must be loaded into tiles before
       arithmetic, and so on."""),
    _c("CT212", "type-changes", "A variable whose tile type differs between paths",
       """A variable carried around a loop, or assigned in several branches of an `if`, must keep
       one shape and dtype: the compiled code has one type per variable. Cast or reshape so that
       every path produces the same type."""),
    _c("CT213", "store-type", "A store whose tile does not match its destination",
       """`z.store(t)` writes this block's slab of a `Mut` tensor: `t` must have the slab's
       shape and dtype. Use `t.astype(...)` to convert."""),
    _c("CT214", "literal-type", "A literal that does not fit the tile's dtype",
       """A Python literal adopts the dtype of the tile it meets; a float literal cannot meet an
       integer tile, and an integer literal must fit the integer dtype."""),
    _c("CT215", "dynamic-slab", "Whole-slab access to a slab whose extent is dynamic",
       """`z.load()`, `z.store(t)` and `ct.load_tile_like(x, z)` move the whole slab as one tile
       of `z.tile_shape`, which needs every extent of the slab known when the kernel compiles.
       A slab declared with a dynamic extent (`Mut[Tensor[f32, (1, -1)]]`) is walked tile by
       tile instead:
       `for j in range(ct.cdiv(z.shape[1], BN)): z.store(t, (0, j))`."""),
    _c("CT216", "accumulator-misuse", "An accumulator read, or accumulated with another op",
       """An `Acc[Tensor[...], "add"]` parameter is an output every block may accumulate into
       with its declared op only: `acc.add(t, index)` / `acc.add_at(indices, values)` for
       "add", `acc.max` / `acc.max_at` for "max", and so on. Nothing reads it inside the launch
       (its value is undefined until every block is done), so `load`, `load_tile`, `partition`
       and `ct.load_tile_like` of an `Acc` are errors, as is accumulating with another op.""",
       """
@ct.kernel
def k(z: Acc[Tensor[f32, (128,)], "add"]) -> None:
    z.max(ct.zeros((128,), f32), (0,))  # E: CT216
"""),
    _c("CT217", "load-hint", "A memory hint of a load that tileiras cannot take",
       """`latency=` asks tileiras to expect a load to take longer (an int from 1 to 10: it keeps
       more copies in flight) and `allow_tma=False` keeps it off the TMA unit; both must be
       compile-time constants of those kinds.""",
       """
@ct.kernel
def k(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(x.load_tile((128,), 0, latency=12))  # E: CT217
"""),
    _c("CT218", "tile-too-large", "A tile with more elements than Tile IR allows",
       """A tile holds at most 2**24 (16,777,216) elements: tileiras refuses larger ones, so the
       interpreter does too. A tile shape that comes from a Const (a partition's tile shape, a
       keyword) is checked when the kernel is specialized, before it compiles or runs. Walk a
       large slab with indexed loads of smaller tiles instead.""",
       """
@ct.kernel
def k(z: Mut[Tensor[f32, (16,)]]) -> None:
    big = ct.zeros((8192, 4096), f32)  # E: CT218
"""),
    ]),
    *_family(Family.OWNERSHIP, Raises.OWNERSHIP, [  # CT3xx: ownership.
    _c("CT301", "use-after-move", "A tensor used after it was moved",
       """`t.partition(...)` moves `t` into the partition, and passing a partition to a `Mut`
       parameter moves it into the launch. The old name is dead until the launch returns it:
       rebind from the result, e.g. `z, x = add(z, x).sync()`.""",
       fix=QuickFix.REBIND_FROM_SYNC),
    _c("CT302", "aliased-arguments", "The same storage passed as Mut and as another argument",
       """A launch owns its `Mut` arguments exclusively. Passing the same tensor (or a view of it)
       as a `Mut` output and as an input, or as two `Mut` outputs, of one launch would be a data
       race."""),
    _c("CT303", "write-while-leased", "A tensor changed while a pending launch reads it",
       """A tensor passed to a read-only parameter is leased to the launch until it is synced.
       Partitioning it (a write) before then is an error: sync or await the launch first."""),
    _c("CT304", "unpartitioned-mut", "A tensor passed to a Mut parameter without a partition",
       """`Mut` parameters receive one disjoint slab per tile block, so the argument must be a
       partition: `z.partition((128,))`."""),
    _c("CT305", "launch-never-run", "A launch that is never run",
       """Host calls are lazy: `kernel(...)` only builds a launch. Run it with `.sync()`, `await`,
       `.then(...)` or `.graph()`; otherwise nothing happens and its arguments stay moved. A
       `.then` chain that is never run leaves its first launch unrun: the finding is there."""),
    _c("CT306", "move-in-loop", "A tensor moved inside a loop",
       """A tensor moved in one iteration is gone in the next. Rebind it from the launch's result
       inside the loop body."""),
    _c("CT307", "region-written", "A tensor or view used while a pending launch writes into it",
       """A view passed to a `Mut` parameter (after `.partition`) leases the region it covers to
       the launch until it is synced. The base tensor and other views stay usable where their
       regions do not overlap that one (element ranges per axis; `split_at` halves never do);
       reading, partitioning or launching with an overlapping one before the sync is an error.
       Sync or await the launch first."""),
    _c("CT308", "access-before-wait", "A pdl kernel touching its predecessor's data too early",
       """In a `.then` chain (and the graph captured from one) a `@ct.kernel(pdl=True)` launch
       may start while the launch before it still runs. Before its
       `ct.wait_for_predecessor()` it may read only what that launch does not write, and write
       only what that launch neither reads nor writes; the error points at the first such
       access in the kernel, with notes at the two launches. Move the access after the wait.
       cutile-check reports it where it sees the chain (`op.then(kernel)`,
       `op.then(lambda ...: kernel(...))`); the runtime checks every link."""),
    ]),
    *_family(Family.LAUNCH, Raises.LAUNCH, [  # CT4xx: launch and bounds.
    _c("CT401", "partition-shape", "A partition whose tile shape does not fit the kernel",
       """The partition's tile shape must match the `Mut` parameter's static shape (and rank)."""),
    _c("CT402", "grid-mismatch", "Mut outputs that need different grids",
       """The launch grid is the partition grid (`ceil(shape / tile)` per axis). Every `Mut`
       argument of one launch must give the same grid; trailing 1s do not count, at any rank
       ((4, 1) and (4,) agree, as (2, 3, 5, 1) and (2, 3, 5) do)."""),
    _c("CT403", "mut-rank", "A Mut partition of rank above 5",
       """`Mut` partitions have rank 1 to 5. A launch grid has three axes: a partition of rank
       4 or 5 folds its axes 2 and up into the grid's third, row-major."""),
    _c("CT404", "index-out-of-range", "A constant tile index outside the partition",
       """A tile index that is provably outside the partition grid reads only padding or writes
       nothing; it is almost certainly a bug. Proven: negative constant indices, constants past
       a static extent (a Const extent at specialization), and the extremes of
       `for k in range(a, b, s)` loops with constant bounds (`k`, `k + 1`, `2 * k`) where every
       iteration reaches the access. Dynamic extents are not judged (docs/language.md)."""),
    _c("CT405", "missing-const", "A Const parameter that is neither given nor inferable",
       """Const parameters are inferred from partition tile shapes and static tensor shapes;
       otherwise pass them by keyword: `k(z, x, B=128)`."""),
    _c("CT406", "argument-mismatch", "A launch argument that does not fit its parameter",
       """Each argument must match its parameter: a tensor of the declared dtype and rank (and
       static extents), a partition for `Mut`, a number for a scalar."""),
    _c("CT407", "foreign-tile-index", "A store into a Mut tensor at a chosen tile index",
       """Each block writes only its own slab. `z.store(t, index)` writes a tile inside the slab
       (`index` counts tiles of `t`'s shape from the slab's origin), so an index is meaningless
       when `t` covers the whole slab (only the origin is inside it: write `z.store(t)`) or when
       the value is a number (no tile shape to count in). A persistent kernel writes each of its
       slabs through the slab the loop gives it: `for zt in z.tiles(): zt.store(tile)`.""",
       raises=Raises.KERNEL),
    _c("CT408", "bad-partition", "An invalid partition tile shape, order or block count",
       """A partition's slab shape has the tensor's rank and positive extents (any size: a block
       computes on power-of-two tiles inside its slab); `order` must be `ct.row_major`,
       `ct.col_major` or `ct.grouped(n)` with n >= 1, and `blocks` a positive integer."""),
    _c("CT409", "partition-in-tiles-loop", "A Mut tensor used inside its own z.tiles() loop",
       """Inside `for zt in z.tiles():` the block is working on the slab `zt`; `z` itself names
       no single slab there, so `z.load()` or `z.store(t)` would touch the wrong one. Use `zt`:
       `zt.store(t)`, `zt.load()`, `zt.tile_index()`, `ct.load_tile_like(x, zt)`.""",
       raises=Raises.KERNEL),
    _c("CT410", "persistent-without-loop", "A persistent partition for a kernel that does not loop",
       """`z.partition(tile, blocks=n)` launches n blocks that each own several slabs, which
       only `for zt in z.tiles():` visits. A kernel that uses `z.store(t)`, `z.load()`,
       `z.tile_index()` or `ct.load_tile_like(x, z)` outside such a loop would reach one slab per
       block and leave the others unwritten, so the launch is refused."""),
    _c("CT412", "too-large", "A tensor or an interpreted loop beyond what the backend can do",
       """An allocation larger than the backend's memory (the message names its size and the
       limit), a shape whose element count does not fit in 63 bits, or an interpreted launch
       that takes more steps (blocks plus loop iterations) than
       `CUTILE_INTERPRETER_MAX_ITERATIONS` (default 16,777,216 per launch; the interpreter stops
       instead of seeming to hang). Use smaller
       shapes, or run on the GPU."""),
    _c("CT413", "write-to-copied-import", "A kernel or fill writes a DLPack import that was copied",
       """`ct.from_dlpack(obj)` uses the producer's memory in place only where the backend
       computes on it (host memory for the interpreter, GPU memory for CUDA); otherwise it
       copies it once, for example a NumPy array or a CPU torch tensor on the CUDA backend.
       Partitioning such a tensor for a `Mut` parameter, passing it to an `Acc` parameter or
       calling `fill_` on it then writes the copy only, and the producer's array keeps its old
       values, while the interpreter writes through. The runtime warns
       (`ct.CopiedImportWarning`) at that call. Read the results back with `.numpy()` or
       `np.from_dlpack(t)` / `torch.from_dlpack(t)`, or import device memory (a CUDA torch
       tensor) to write in place.""",
       severity=Severity.WARNING, suppressible=False),
    _c("CT411", "loop-step", "A kernel loop whose step is zero or negative",
       """`for i in range(start, stop, step)` in a kernel counts up: a step of 0 (or below)
       would never finish on the GPU. A constant step is rejected by the frontend (CT211); a
       step that arrives at run time fails the launch with this code on both backends, raised
       by whatever waits for the launch: that loop runs 0 times and the launch's other work
       runs. To count down, loop over `range(n)` and use `n - 1 - i`."""),
    ]),
    *_family(Family.TOOLCHAIN, Raises.COMPILE, [  # CT5xx: toolchain and device.
    _c("CT501", "toolchain-missing", "tileiras (or its ptxas/libnvvm) was not found",
       """cutile compiles through NVIDIA's `tileiras`. Install the pinned wheels
       (`pip install 'cutile[cuda]'` brings them; the base `pip install cutile` is the checker,
       the language server and the interpreter only) or point `CUTILE_TILEIRAS` at a tileiras
       binary."""),
    _c("CT502", "toolchain-mismatch", "tileiras found a ptxas or libnvvm of another version",
       """tileiras loads the ptxas and libnvvm of `CUDA_HOME`/`CUDA_PATH` when they are set; if that
       toolkit is another 13.x it fails. Unset them or install matching versions."""),
    _c("CT503", "compile-failed", "tileiras rejected the generated program",
       """This is a cutile bug or an unsupported combination. The bytecode is kept (the message
       says where) for a bug report."""),
    _c("CT504", "no-device", "No usable CUDA device",
       """The CUDA backend needs an NVIDIA GPU and driver. Use `CUTILE_BACKEND=interpreter` to run
       on the CPU.""",
       raises=Raises.DEVICE),
    _c("CT505", "driver-error", "The CUDA driver reported an error",
       """A driver call failed; the message names the call and the driver's error. A failed
       `ct.device_assert` in a kernel is this code too: on the interpreter the message gives
       the assert's text, block and line; on the GPU it is the driver's error for the trap.""",
       raises=Raises.DEVICE),
    _c("CT506", "unreadable-cubin", "A cubin whose resource usage cannot be read",
       """`Compiled.resources` reads registers, threads and memory sizes from the cubin's ELF
       sections. The bytes were not a cubin, or one of a layout this reader does not know (the
       message says what was missing); tileiras's output format may have changed."""),
    _c("CT507", "dtype-not-on-gpu", "A dtype the target GPU (or cutile's GPU backend) lacks",
       """The MX formats `f4e2m1` and `f8e8m0` exist in Tile IR 13.3+, but tileiras compiles
       them only for sm_100 and newer (for sm_90, the H200, it answers "Incompatibility with
       architecture 'sm_90': unsupported type"). cutile also keeps `f4e2m1` tensors one value
       per byte, not packed two per byte as the device reads them, so f4e2m1 tensor parameters
       run on the interpreter only (f4e2m1 tiles inside a kernel are fine on sm_100+). Run on
       the interpreter (`CUTILE_BACKEND=interpreter`), or compile for a newer `arch`."""),
    _c("CT508", "layout-not-on-gpu", "A tensor layout the GPU backend cannot read",
       """Compiled kernels address tensors through TMA descriptors, whose strides must be
       positive: a tensor with a negative stride (CuPy's `a[::-1]` brought in through DLPack;
       host memory such as NumPy's is copied compact, positive strides) would make the kernel
       read outside its memory, so the launch is refused. Copy
       it to a fresh tensor first (e.g. `ct.from_numpy(np.ascontiguousarray(a))`), or run on
       the interpreter, which takes any strides."""),
    ]),
    *_family(Family.TOOL, Raises.CUTILE, [  # CT9xx: configuration, suppressions, internal errors.
    _c("CT901", "bad-config", "Invalid cutile-check configuration",
       """A key or value in `[tool.cutile-check]` of `pyproject.toml` is not valid.""",
       suppressible=False, fatal=True),
    _c("CT902", "unused-suppression", "A suppression comment that suppresses nothing",
       """`# cutile: ignore[...]` on a line with no matching finding. Remove it.""",
       severity=Severity.WARNING, suppressible=False),
    _c("CT903", "unknown-suppression-code", "A suppression naming an unknown code",
       """The code in `# cutile: ignore[...]` is not a cutile code (see
       `cutile-check --explain`).""",
       suppressible=False),
    _c("CT904", "path-not-found", "A path on the command line that does not exist",
       """`cutile-check` was asked to check a file or directory that does not exist (a typo, or a
       file deleted since). Nothing was checked for it, so the run exits with status 2.""",
       suppressible=False, fatal=True),
    _c("CT905", "no-python-files", "A directory with no Python files to check",
       """The directory holds no `.py` or `.pyi` file (after `exclude`), so nothing in it was
       checked. This is a warning, as in ruff: check the path and the excludes.""",
       severity=Severity.WARNING, suppressible=False),
    _c("CT906", "unreadable-file", "A file that cannot be read or decoded",
       """`cutile-check` could not read the file (no permission, a broken symbolic link, a
       directory or device rather than a file) or could not decode its bytes as Python does: UTF-8
       unless a coding cookie (`# -*- coding: latin-1 -*-`) or a UTF-8 byte order mark says
       otherwise. Nothing in it was checked; Python would not import it either. The finding points
       at the first byte that does not decode, or at the cookie. Save the file as UTF-8 (or fix
       the cookie, the permissions or the link); the other files are still checked. Like ruff's
       E902. At run time, a kernel whose source cannot be read (defined in `python -c`,
       standard input or an interactive prompt, where Python keeps no source) is CT906 at its
       launch: cutile compiles a kernel from its source, so define it in a file or a notebook
       cell.""",
       suppressible=False),
    _c("CT907", "unwritable-file", "A fixed file that cannot be written back",
       """`cutile-check --fix` fixed findings in the file but could not write the result (no
       permission, a read-only file system, the file changed or disappeared while it was
       checked). The file is left as it was and the findings are reported as if unfixed; the run
       exits with status 2.""",
       suppressible=False, fatal=True),
    _c("CT999", "internal-error", "cutile failed internally",
       """A bug in cutile. Please report it with the file that triggered it.""",
       suppressible=False, fatal=True),
    ]),
]

# In numeric order (codes.md, --explain, SARIF rules), whatever order the entries above are in.
CODES: dict[str, Code] = {c.code: c for c in sorted(_ALL, key=lambda c: c.code)}
BY_NAME: dict[str, Code] = {c.name: c for c in _ALL}


def lookup(code_or_name: str) -> Code | None:
    key = code_or_name.strip()
    return CODES.get(key.upper()) or BY_NAME.get(key.lower())
