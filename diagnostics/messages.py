"""The registry of diagnostic messages: every user-facing message template, bound to its code.

Keeping the wording here (as mypy's message_registry does) lets the frontend, the checker and the
runtime say the same thing the same way, and keeps messages searchable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .codes import CODES
from .diagnostic import Diagnostic, Note, Span, field_value


@dataclass(frozen=True)
class Message:
    code: str
    template: str

    def __post_init__(self) -> None:
        assert self.code in CODES, self.code

    def at(self, span: Span, notes: Sequence[Note] = (), /, **fields: Any) -> Diagnostic:
        """The finding this message makes at `span`: its text built once from `fields`, which the
        Diagnostic keeps (quick fixes read them rather than parsing the text)."""
        return Diagnostic(self.code, self.template.format(**fields), span, notes=tuple(notes),
                          fields={k: field_value(v) for k, v in fields.items()},
                          template=self.template)

    def made(self, diag: Diagnostic) -> bool:
        """Whether `diag` was built from this message."""
        return diag.code == self.code and diag.template == self.template

    def format(self, **kwargs: Any) -> str:
        """The text alone, for notes and warnings that are not Diagnostics."""
        return self.template.format(**kwargs)


# CT1xx
SYNTAX_ERROR = Message("CT100", "invalid syntax: {detail}")
UNSUPPORTED_STATEMENT = Message("CT101", "'{what}' is not supported in kernels{hint}")
UNSUPPORTED_EXPRESSION = Message("CT102", "{what} {verb} not supported in kernels{hint}")
UNKNOWN_NAME = Message("CT103", "name '{name}' is not defined in this kernel")
CLOSURE_NAME = Message("CT103", "'{name}' is a variable of the enclosing function '{outer}'; a "
                       "kernel sees only its parameters, module-level constants and cutile's "
                       "names: pass it as a parameter (a Const[...] for a compile-time value)")
NON_CONSTANT_GLOBAL = Message(
    "CT103",
    "global '{name}' is not a compile-time constant; kernels only see module-level names "
    "bound once to a constant expression (numbers, strings, tuples, math.inf and arithmetic "
    "on them); pass other values as parameters",
)
_FROM_CUTILE = ("import it from cutile itself (cutile reads a kernel's names from the source, "
                "without running it)")
UNREAD_IMPORT = Message("CT103", "'{name}' comes from module '{module}', which cutile cannot "
                        "read{why}; " + _FROM_CUTILE)
UNREAD_STAR = Message("CT103", "name '{name}' is not defined in this module; it may come from "
                      "`from {module} import *`, which cutile cannot read{why}; " + _FROM_CUTILE)
KERNEL_NOT_SEEN = Message(
    "CT103", "cutile cannot see that '{name}' is a kernel: its definition has no @ct.kernel "
    "decorator naming cutile (directly or through a module of the project); write @ct.kernel "
    "above `def {name}`")
NON_KERNEL_CALL = Message(
    "CT104", "'{name}' cannot be called in a kernel: only cutile operations and @ct.function "
    "helpers can{hint}"
)
NUMBERS_ONLY = Message(
    "CT104", "'{name}' takes compile-time numbers in a kernel (Consts, literals, shapes), not "
    "tiles: {advice}")
RECURSION = Message("CT105", "'{name}' calls itself (through {chain}); helpers are inlined, so "
                    "recursion is not supported")
NESTED_FUNCTION = Message("CT106", "functions cannot be defined inside a kernel; move '{name}' to "
                          "module level and decorate it with @ct.function")
MISSING_ANNOTATION = Message("CT107", "kernel parameter '{name}' needs an annotation such as "
                             "Tensor[f32, (-1,)], Mut[Tensor[f32, (128,)]] or Const[int]")
BAD_ANNOTATION = Message("CT107", "cannot understand the annotation of '{name}': {detail}")
BAD_PARAMETER_KIND = Message("CT107", "{what} is not supported in kernel signatures")
KERNEL_RETURNS_VALUE = Message("CT108", "a kernel cannot return a value; store results into a "
                               "Mut parameter with z.store(tile)")
UNKNOWN_OPERATION = Message("CT109", "cutile has no operation '{name}'{hint}")
UNKNOWN_METHOD = Message("CT109", "{kind} has no method '{name}'{hint}")
UNKNOWN_ATTRIBUTE = Message("CT109", "{kind} has no attribute '{name}'{hint}")
TOO_MANY_ARGS = Message("CT110", "{name}() takes at most {most} positional argument{s}, {given} "
                        "given")
MISSING_ARG = Message("CT110", "{name}() is missing the argument '{param}'")
UNKNOWN_KEYWORD = Message("CT110", "{name}() has no argument named '{param}'")
DUPLICATE_ARG = Message("CT110", "{name}() got two values for '{param}'")
POSSIBLY_UNBOUND = Message("CT111", "'{name}' is only bound {where}; assign it before so it has a "
                           "value on every path")
UNSAFE_ONLY = Message("CT112", "{what} is only allowed in @ct.kernel(unsafe=True)")
UNSUPPORTED_LOOP = Message("CT113", "for loops in kernels iterate over range(...), z.tiles() or "
                           "a tuple (unrolled), not over {what}")
UNROLLED_JUMP = Message("CT113", "'{kind}' in a loop over a tuple: the loop is unrolled at "
                        "compile time, so there is no loop to leave; use an if, or range()")
BAD_KERNEL_OPTION = Message("CT114", "kernel option '{name}' {problem}")

# CT2xx
NOT_BROADCASTABLE = Message("CT201", "cannot {op} tiles of shapes {a} and {b}: not broadcastable")
BROADCAST_TO = Message("CT201", "cannot broadcast a tile of shape {a} to {b}")
CAT_SHAPES = Message("CT201", "cannot concatenate tiles of shapes {a} and {b} along axis {axis}")
LOAD_LIKE_RANK = Message("CT203", "load_tile_like needs tensors of the same rank: {a} has rank "
                         "{ra} but {b} has rank {rb}")
DTYPE_MIX = Message("CT202", "cannot {op} {a} and {b} tiles: use .astype() to convert one of them")
WHERE_DTYPES = Message("CT202", "where() branches have dtypes {a} and {b}; convert one with "
                       ".astype()")
RANK_NEEDED = Message("CT203", "{what} needs a tile of rank {want}, got shape {shape}")
INDEX_RANK = Message("CT203", "{what} needs {want} ({rank} for a rank-{rank} partition), got "
                     "{given}")
SCALAR_NEEDED = Message("CT203", "{what} must be a scalar (rank-0) value, got a tile of shape "
                        "{shape}")
MMA_SHAPE = Message("CT204", "mma shapes do not fit: a {a} @ b {b} -> acc {c}; {why}")
MMA_DTYPE = Message("CT205", "mma does not support {a} x {b} -> {c}; supported: {supported}")
MMA_FAST_ACC = Message("CT205", "mma's fast_acc=True applies to f8 operands (f8e4m3, f8e5m2), "
                                "not {a}")
BAD_AXIS = Message("CT206", "axis {axis} is out of range for a tile of rank {rank}")
BAD_GRID_AXIS = Message("CT206", "grid axis {axis} does not exist: the grid has axes 0, 1 and 2")
BAD_PERMUTATION = Message("CT206", "permute axes {axes} are not a permutation of range({rank})")
RESHAPE_SIZE = Message("CT207", "cannot reshape a tile of shape {a} ({na} elements) to {b} "
                       "({nb} elements)")
RESHAPE_HOLES = Message("CT207", "reshape() can infer one dimension given as -1, not {n} of them "
                        "in {b}")
NOT_POW2 = Message("CT208", "tile dimension {dim} in shape {shape} is not a power of two; use "
                   "{lo} or {hi}")
TILE_TOO_LARGE = Message("CT218", "a tile of shape {shape} has {count} elements, more than the "
                         "{limit} a tile may hold; load or compute it in smaller tiles")
NOT_CONSTANT = Message("CT209", "{what} must be a compile-time constant (a literal, a Const "
                       "parameter or a module-level constant)")
CONST_REASSIGNED = Message("CT210", "Const parameter '{name}' cannot be reassigned")
CONST_DTYPE_AS_VALUE = Message("CT210", "'{name}' is a dtype, not a number")
BAD_OPERAND = Message("CT211", "{op} does not accept {what}")
TENSOR_AS_TILE = Message("CT211", "{what} is a tensor in global memory, not a tile; load it first "
                         "(e.g. ct.load_tile_like({name}, z) or {name}.load_tile(shape, index))")
SCATTER_INTO_MUT = Message("CT211", "ct.scatter cannot write the Mut tensor '{name}': it writes "
                           "shared tensors in @ct.kernel(unsafe=True) only; a block writes its "
                           "slab in whole tiles ({name}.store(tile), or ct.where to pick the "
                           "elements of a tile first), and adds at data-dependent places go "
                           "through an Acc (acc.add_at(indices, values))")
CONDITION_TYPE = Message("CT211", "the condition of '{stmt}' must be a scalar bool, got {got}")
TYPE_CHANGES_LOOP = Message("CT212", "'{name}' changes type inside the loop: {before} before, "
                            "{after} at the end of the body")
TYPE_CHANGES_BRANCH = Message("CT212", "'{name}' has type {a} in one branch and {b} in another")
STORE_TYPE = Message("CT213", "cannot store a {got} tile into {name}, a slab of {want}{hint}")
STORE_INDEXED_TYPE = Message("CT213", "cannot store a {got} tile into {name}, a rank-{rank} "
                             "{dtype} tensor{hint}")
FLOAT_LITERAL_INT = Message(
    "CT214", "float {value} cannot be combined with a tile of integer dtype {dtype}")
LITERAL_RANGE = Message("CT214", "literal {value} does not fit in {dtype}")

# CT3xx: ownership. The checker (statically) and the runtime (dynamically) both use these.
# {kernel} is the kernel's name in quotes ('add'); {how} is "by .partition()", "by
# .unpartition()" or "into a launch of 'add'". Notes are plain strings with their own span.
USE_AFTER_MOVE = Message("CT301", "'{name}' was moved {how} and cannot be used here")
MOVED_HERE = "'{name}' was moved here"
USE_AFTER_MOVE_LAUNCH = Message(
    "CT301", "'{name}' was moved into a launch of {kernel} that has not been synced; use the "
    "values returned by .sync() instead")
ALIASED_MUT = Message("CT302", "'{name}' is passed to {kernel} both as Mut parameter '{mut}' and "
                      "as parameter '{other}'; a Mut argument must not share storage with "
                      "another argument")
WRITE_WHILE_LEASED = Message("CT303", "'{name}' is read by a pending launch of {kernel} and "
                             "cannot be {action} until that launch is synced")
LEASED_HERE = "leased here to a launch of {kernel}"
MUT_PASSED_HERE = "passed here as Mut parameter '{param}'"
# the runtime names the handle: the aliased argument may be another handle of the same memory
MUT_ARGUMENT_HERE = "'{name}' is passed here as Mut parameter '{param}'"
UNPARTITIONED_MUT = Message("CT304", "Mut parameter '{param}' of {kernel} needs a partition; pass "
                            "{name}.partition(tile_shape) instead of the tensor")
LAUNCH_NEVER_RUN = Message("CT305", "this launch of {kernel} is never run; call .sync(), await it, "
                           "chain it with .then(...) or capture it with .graph()")
MOVE_IN_LOOP = Message("CT306", "'{name}' is moved inside the loop, so the next iteration would "
                       "use a moved value; rebind it from the launch's result inside the loop")

# CT4xx: launch and bounds.
PARTITION_SHAPE = Message("CT401", "partition tile shape {got} does not fit Mut parameter "
                          "'{param}' of {kernel}, which expects {want}")
GRID_MISMATCH = Message("CT402", "Mut parameters of {kernel} need the same grid, but '{a}' gets "
                        "{ga} and '{b}' gets {gb}")
GRID_FROM_HERE = "'{param}' gets the grid {grid} from this argument"
MUT_RANK = Message("CT403", "Mut partitions have rank 1 to 5, got rank {rank}")
INDEX_OUT_OF_RANGE = Message("CT404", "tile index {index} is outside the partition grid {grid}")
NEGATIVE_TILE_INDEX = Message("CT404", "tile index {index} is negative on axis {axis}; tile "
                              "indices count from 0 (a negative one does not count from the end)")
INDEX_LOOP_NOTE = "'{name}' runs from {lo} to {hi} in this loop, so the index reaches {value}"
MISSING_CONST = Message("CT405", "Const parameter '{param}' of {kernel} is neither given nor "
                        "inferable from the arguments; pass it by keyword: {param}=...")
ARGUMENT_MISMATCH = Message("CT406", "argument '{param}' of {kernel}: expected {want}, got {got}")
LAUNCH_ARG_COUNT = Message("CT406", "{kernel} takes {most} positional argument{s}, {given} given")
LAUNCH_UNKNOWN_KEYWORD = Message("CT406", "{kernel} has no parameter named '{param}'")
LAUNCH_DUPLICATE_ARG = Message("CT406", "{kernel} got two values for parameter '{param}'")
LAUNCH_MISSING_ARG = Message("CT406", "{kernel} is missing the argument '{param}'")
LAUNCH_NO_GRID = Message("CT406", "{kernel} has no Mut parameter, so the grid cannot be inferred; "
                         "pass grid=(x, y, z)")
BAD_RESHAPE = Message("CT406", "cannot reshape a tensor of shape {a} ({na} elements) to {b} "
                      "({nb} elements)")
META_TENSOR_DATA = Message("CT406", "{name} is a meta tensor (ct.meta): it has a shape and dtype "
                           "but no memory, so it cannot be {action}")
BAD_CONSTRUCTOR_ARG = Message("CT406", "{what}: expected {want}, got {got!r}")
BAD_DLPACK = Message("CT406", "from_dlpack: {detail}")
# a DLPack import of read-only memory (np.broadcast_to, np.frombuffer, a read-only memmap):
# kernels may read it; writing it is refused (CT408 for a partition, CT406 otherwise)
_READ_ONLY = ("'{name}' is read-only memory (a {source} imported with ct.from_dlpack) and cannot "
              "be {action}; kernels may read it, but to write one, copy it into memory of its "
              "own first (ct.from_numpy(...) copies)")
READ_ONLY_WRITE = Message("CT406", _READ_ONLY)
READ_ONLY_PARTITION = Message("CT408", _READ_ONLY)
# a write to a DLPack import the backend copied (host memory on the CUDA backend)
COPIED_IMPORT_WRITE = Message("CT413", "'{name}' is a copy of the {source} imported with "
                              "ct.from_dlpack (the {backend} backend cannot compute on that "
                              "memory): {action} here, it is written in the copy only, never in "
                              "the {source}; read the results back with .numpy() (or "
                              "np.from_dlpack / torch.from_dlpack of the tensor)")
GRAPH_OF_STARTED_OP = Message("CT406", "this op was already enqueued (by .start(), .then or "
                              "await), so .graph() has nothing left to capture; call .graph() on "
                              "an op that has not run")
PARTITIONED_HERE = "partitioned here with tile shape {tile}"
FOREIGN_TILE_INDEX = Message("CT407", "{name}.store(tile, index): {why}; each block writes only "
                             "its own slab, and the index counts tiles of the stored tile's "
                             "shape inside it")
SLAB_DYNAMIC = Message("CT215", "{what} needs the whole slab's shape at compile time, but "
                       "'{name}' has a dynamic extent {shape}; walk it in tiles: "
                       "{name}.{form} with an index counting tiles from the slab's origin")
BAD_PARTITION = Message("CT408", "{detail}")
PARENT_IN_TILES_LOOP = Message("CT409", "'{name}' cannot be used inside 'for {slab} in "
                               "{name}.tiles()': it names no single slab there; use the slab "
                               "'{slab}' ({slab}.store(t), {slab}.load(), {slab}.tile_index(), "
                               "ct.load_tile_like(x, {slab}))")
PERSISTENT_WITHOUT_LOOP = Message("CT410", "the argument for '{name}' is partitioned with blocks= "
                                  "(each block owns several slabs), but {kernel} reaches only "
                                  "each block's first slab of it, so the others would stay "
                                  "unwritten; visit every slab with 'for slab in "
                                  "{name}.tiles()' or drop blocks=")
PER_BLOCK_ACCESS = "here the kernel reaches one slab of '{name}' per block"
TILES_LOOP_TARGET = Message("CT113", "'for ... in {name}.tiles()' binds one name, the slab "
                            "(for slab in {name}.tiles()), not {what}")
ZIPPED_TILES_TARGET = Message("CT113", "a loop over zip() of {count} tiles() walks binds one "
                              "name per slab (for a_slab, b_slab in zip(a.tiles(), "
                              "b.tiles())), not {what}")

# CT5xx: the tileiras toolchain.
TOOLCHAIN_MISSING = Message("CT501", "tileiras was not found ({searched}); install the CUDA "
                            "extra (pip install 'cutile[cuda]', which pins {packages}) or set "
                            "CUTILE_TILEIRAS to a tileiras binary")
TOOLCHAIN_BAD_OVERRIDE = Message("CT501", "CUTILE_TILEIRAS is set to {path}, which is not an "
                                 "executable file")
TOOLCHAIN_PART_MISSING = Message("CT501", "{tool} is missing next to tileiras at {path} (looked "
                                 "in {where}); install {package}")
TOOLCHAIN_VERSIONS = Message("CT502", "tileiras {release} at {path} reads bytecode {theirs}, "
                             "but cutile writes {ours}; install {packages}")
TOOLCHAIN_ENV_MISMATCH = Message("CT502", "tileiras at {path} failed while {var}={value} was "
                                 "set: it loads that toolkit's ptxas and libnvvm, which do not "
                                 "match tileiras {release}; unset {var} or point CUTILE_TILEIRAS "
                                 "at that toolkit's tileiras ({detail})")
TOOLCHAIN_WHEEL_MISMATCH = Message("CT502", "tileiras {release} at {path} failed, and its wheels "
                                   "disagree ({versions}); install matching versions: "
                                   "pip install {packages} ({detail})")
TOOLCHAIN_BROKEN = Message("CT502", "{tool} at {path} does not run: {detail}")
COMPILE_FAILED = Message("CT503", "tileiras could not compile {kernel} for {arch} (exit {rc}): "
                         "{detail}; the bytecode is kept at {kept} for a bug report")
COMPILE_TIMEOUT = Message("CT503", "tileiras took longer than {seconds} s to compile {kernel} for "
                          "{arch}; the bytecode is kept at {kept} for a bug report")
NO_DEVICE = Message("CT504", "{detail}")
DRIVER_ERROR = Message("CT505", "{call} failed: {error}")
DEVICE_ASSERT = Message("CT505", "device_assert failed in block {block}: {message}")
CUBIN_UNREADABLE = Message("CT506", "cannot read the cubin's resource usage: {detail}")
DTYPE_NEEDS_ARCH = Message("CT507", "{dtype} ({what}) needs sm_{min_sm} or newer; tileiras cannot "
                           "compile it for {arch}: run on the interpreter "
                           "(CUTILE_BACKEND=interpreter)")
F4_TENSOR_ON_GPU = Message("CT507", "f4e2m1 tensor parameter '{name}' runs on the interpreter "
                           "only: cutile stores f4e2m1 one value per byte and the GPU reads it "
                           "packed; load f8/bf16 data and .astype(f4e2m1) in the kernel instead")
NEGATIVE_STRIDES = Message("CT508", "argument for '{name}' has negative strides {strides}; "
                           "compiled kernels read tensors through TMA, which needs positive "
                           "strides: pass a copy with positive strides")

# CT9xx
CONFIG_UNREADABLE = Message("CT901", "cannot read {path}: {detail}")
CONFIG_UNKNOWN_KEY = Message("CT901", "unknown option '{key}' in [tool.cutile-check]{hint}")
CONFIG_BAD_VALUE = Message("CT901", "option '{key}' {problem}")
CONFIG_BAD_CODE = Message("CT901", "'{value}' in '{key}' is not a cutile code, code prefix or "
                          "code name (see cutile-check --explain)")
CONFIG_NO_TABLE = Message("CT901", "{path} has no [tool.cutile-check] table")
PATH_NOT_FOUND = Message("CT904", "no such file or directory: {path}")
NO_PYTHON_FILES = Message("CT905", "no Python files found under {path}")
BAD_BACKEND_ENV = Message("CT901", "CUTILE_BACKEND must be 'cuda' or 'interpreter', not "
                          "'{value}'")
UNUSED_SUPPRESSION = Message("CT902", "unused suppression: no {codes} finding on this statement")
UNUSED_SUPPRESSION_ANY = Message("CT902", "unused suppression: no finding on this statement")
UNUSED_FILE_SUPPRESSION = Message("CT902", "unused file suppression: no {codes} finding in this "
                                  "file")
MISPLACED_FILE_SUPPRESSION = Message(
    "CT902", "'cutile: ignore-file' has no effect here; put it in the comments at the top of the "
    "file")
UNKNOWN_SUPPRESSION_CODE = Message("CT903", "'{code}' is not a cutile code, code prefix or code "
                                   "name{hint}")
EMPTY_SUPPRESSION = Message("CT903", "this suppression names no code; write "
                            "'# cutile: ignore[CODE]' or a bare '# cutile: ignore'")
INTERNAL_ERROR = Message("CT999", "internal error in cutile: {detail}")
UNREADABLE_FILE = Message("CT906", "cannot read this file: {detail}")
UNDECODABLE_FILE = Message("CT906", "cannot decode the file: {detail}")
KERNEL_SOURCE_MISSING = Message("CT906", "cannot read the source of kernel '{name}' ({path}): "
                                "cutile compiles a kernel from its source text; define it in a "
                                "file or a notebook cell, not in `python -c`, standard input or "
                                "an interactive prompt")
UNWRITABLE_FILE = Message("CT907", "cannot write the fixed file: {detail}")
UNSUPPRESSIBLE = Message("CT902", "this suppression has no effect: {codes} cannot be suppressed; "
                         "fix the finding instead")
AUTOTUNE_BAD = Message("CT114", "ct.autotune of {kernel}: {problem}")
AUTOTUNE_BAD_CONFIG = Message("CT114", "ct.autotune of {kernel}, config {index} {config}: "
                              "{problem}")

# Messages of the op table's newer operations (issue 13).
LOAD_HINT = Message("CT217", "{what}: {problem}")
PADDING_RANGE = Message("CT214", "padding {value} is not representable in {dtype}{hint}")
PADDING_KIND = Message("CT209", "the padding of {what} must be a compile-time number (a literal, "
                       "a Const, -math.inf, math.inf or math.nan), got {got}")
BITCAST_WIDTH = Message("CT211", "cannot bitcast {src} ({sbits} bits) to {dst} ({dbits} bits): "
                        "a bitcast keeps the bits, so the widths must match")
SLICE_RANGE = Message("CT201", "index {slice} of axis {axis} is outside a tile of extent {dim}")
SLICE_ALIGN = Message("CT201", "slice {slice} of axis {axis} must start at a multiple of its "
                      "length {n} (a tile slice is one block of the tile)")
SLICE_STEP = Message("CT102", "slices with a step ({step}) are not supported in kernels; use "
                     "reshape and a slice")
SUBTILE_SHAPE = Message("CT201", "blocks of shape {shape} do not divide a tile of shape {of}")
SUBTILE_INDEX = Message("CT201", "block index {index} is outside the {grid} grid of {shape} "
                        "blocks (a tuple of compile-time ints)")
SPLIT_PARTS = Message("CT201", "cannot split an extent of {dim} into {n} equal power-of-two "
                      "parts")

# Resource limits and loops that cannot finish (issue 15).
TOO_LARGE = Message("CT412", "{what} of shape {shape} ({dtype}) needs {size}, more than {limit}")
SHAPE_TOO_LARGE = Message("CT412", "{what}: shape {shape} has {count} elements, more than the "
                          "limit of 2**63 - 1")
INTERPRETER_LIMIT = Message("CT412", "{kernel} would take more than {limit} steps (blocks plus "
                            "loop iterations) on the interpreter "
                            "(CUTILE_INTERPRETER_MAX_ITERATIONS); raise the limit or run on the "
                            "GPU")
INTERPRETER_OUT_OF_MEMORY = Message("CT412", "the interpreter ran out of host memory running "
                                    "{kernel}: its tiles need more than the memory free now")
# `call`: "from_numpy", or "t.copy_" (a copy into an existing tensor converts the same way)
FROM_NUMPY_RANGE = Message("CT406", "{call}: {what} do not fit in {dtype} ({lo} to {hi})")
COPY_SHAPE = Message("CT406", "{call}: cannot copy a source of shape {src} into a tensor of "
                     "shape {dst}; the source must have the tensor's shape or broadcast to it")
COPY_INTO_BROADCAST = Message("CT406", "'{name}' has a stride 0 (strides {strides}, shape "
                              "{shape}): its elements share memory, so a copy cannot give each "
                              "its own value; copy into a tensor of its own (ct.empty(...)) "
                              "instead")
LOOP_STEP = Message("CT411", "range() step is {step} in {kernel}: kernel loops count up, so "
                    "the step must be at least 1 (to count down, use range(n) and n - 1 - i)")
BAD_ITERATION_LIMIT = Message("CT901", "CUTILE_INTERPRETER_MAX_ITERATIONS must be a positive "
                              "integer, not '{value}'")

# Launch contract (compiler/launch): notes and messages added with it.
SHAPE_NAME_FROM = "'{name}' is {value} here, from argument '{param}'"
CONSTS_AT_LAUNCH = "with {consts} at this launch"
LAUNCH_RESULT_UNSYNCED = Message(
    "CT406", "this is a pending launch of {kernel}, not its results, so {use}; run it with "
    ".sync() and use the values that returns")
SYNC_UNPACK = Message("CT406", ".sync() of this launch of {kernel} returns {n} value{s} (its "
                      "positional arguments, in order), but {m} name{ms} receive{v} them")
WAIT_UNPACK = Message("CT406", "{how} returns {n} value{s} (its positional arguments, in order), "
                      "but {m} name{ms} receive{v} them")
THEN_ARITY = Message("CT406", "the function given to .then() takes {takes}, but the op before "
                     "it hands on {n} value{s} (its positional arguments, in order)")
GRAPH_RESULT_UNSYNCED = Message(
    "CT406", "this is a captured graph of {kernel}, not its results, so {use}; run it with "
    ".sync() and use the values that returns")
NESTED_TOO_DEEP = Message("CT100", "this statement nests blocks and expressions more than {limit} "
                          "levels deep, more than cutile analyses; split it into smaller "
                          "statements with named intermediate values")

# Gathers and unsafe scatters (issue 16).
UNSAFE_KERNEL = Message("CT115", "kernel '{name}' is unsafe: its scatters and index stores are "
                        "not checked for races between blocks")
PDL_WAIT_NO_OPT_IN = Message("CT116", "ct.wait_for_predecessor() in kernel '{name}', which is not "
                             "declared @ct.kernel(pdl=True): nothing can start it early")
PDL_WAIT_MISSING = Message("CT116", "kernel '{name}' is declared pdl=True but never calls "
                           "ct.wait_for_predecessor(): every block must wait before it touches "
                           "what the launch before it writes")
PDL_WAIT_NESTED = Message("CT116", "ct.wait_for_predecessor() must be a statement of the kernel's "
                          "body, not inside {where}: every block has to pass it")
PDL_WAIT_TWICE = Message("CT116", "ct.wait_for_predecessor() is called more than once in kernel "
                         "'{name}'")
PDL_WAIT_SKIPPED = Message("CT116", "a return before ct.wait_for_predecessor() lets a block end "
                           "without waiting: wait first")
GATHER_INDICES = Message("CT203", "{what} needs {want} (one per axis of the rank-{rank} tensor "
                         "'{name}'), got {given}")
SCATTER_TYPE = Message("CT213", "cannot scatter {got} values into '{name}', a {dtype} "
                       "tensor{hint}")
# Accumulators (issue 16, docs/design.md §3).
ACC_READ = Message("CT216", "'{name}' is an accumulator (Acc): {what} would read it, and its value "
                   "is undefined until the launch ends; accumulate into it with {name}.{op}(...)")
ACC_OTHER_OP = Message("CT216", "'{name}' accumulates with \"{declared}\", so it has {name}.{op}() "
                       "and {name}.{op}_at() only, not {name}.{called}()")
ACC_VALUE_TYPE = Message("CT213", "cannot accumulate {got} into '{name}', a rank-{rank} {dtype} "
                         "accumulator{hint}")
ACC_INDEX_TYPE = Message("CT211", "the indices of {name}.{method}() must be integer tiles or "
                         "scalars, one per axis; got {got}")
GRID_NOT_MUT_GRID = Message("CT402", "grid={given} does not match the grid {grid} that Mut "
                            "parameter '{name}' of {kernel} gives; leave grid= out (Mut "
                            "arguments fix it) or give that grid")
ALIASED_ACC = Message("CT302", "'{name}' is passed to {kernel} both as Acc parameter '{mut}' and "
                      "as parameter '{other}'; an Acc argument must not share storage with "
                      "another argument")
ACC_ARGUMENT_HERE = "'{name}' is passed here as Acc parameter '{param}'"
# CT302 for two different values that share elements (a view and its base, overlapping views)
OVERLAPPING_MUT = Message("CT302", "'{name}', passed to {kernel} as parameter '{other}', overlaps "
                          "'{mut_name}', passed as Mut parameter '{mut}'; a Mut argument must "
                          "not share storage with another argument")
OVERLAPPING_ACC = Message("CT302", "'{name}', passed to {kernel} as parameter '{other}', overlaps "
                          "'{mut_name}', passed as Acc parameter '{mut}'; an Acc argument must "
                          "not share storage with another argument")
# Host views (docs/design.md §3, views.py): view arguments and region leases.
BAD_VIEW = Message("CT406", "view: {detail}")
REGION_READ = Message("CT303", "'{name}' overlaps a region that a pending launch of {kernel} "
                      "reads and cannot be {action} until that launch is synced")
REGION_WRITTEN = Message("CT307", "'{name}' overlaps a region that a pending launch of {kernel} "
                         "writes and cannot be {action} until that launch is synced")
ACCESS_BEFORE_WAIT = Message("CT308", "'{param}' is {verb} before ct.wait_for_predecessor(), "
                             "but the launch of {kernel} before this one in the chain may still "
                             "{their} it: move the access after the wait")
PDL_PREDECESSOR = "the launch of {kernel} that may still run"
PDL_LAUNCH = "this launch of {kernel} may start before it ends (pdl=True)"
BAD_LAUNCH_BINDING_ENV = Message("CT901", "CUTILE_LAUNCH_BINDING must be 'bindings' or 'ctypes', "
                                 "not '{value}'")
