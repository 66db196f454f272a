"""The host target: random host programs (constructors, partitions, launches, sync, then,
graph, await, cancelled awaits) run on the interpreter. Each line runs on its own: a line may
fail with a `ct.CutileError` (then the program goes on); any other exception is a crash.

With a backend to compare (`configure("cuda")`, `python -m tests.fuzz --target host --backend
cuda`), each program runs on the interpreter and then on that backend, and the two runs must
agree: the same outcome on every line (ok, or the same error codes), the same contents of every
tensor and partition the program holds at its end. Both runs are also held to NumPy: each
launch of a `host_kernels` kernel that is synced is compared with that kernel's NumPy model of
the arguments it was given (`host_kernels.MODELS`). `--backend interpreter` compares the
interpreter with itself and with NumPy (a CPU smoke test of the comparison).

A program is a list of lines, so a failure shrinks over lines."""

from __future__ import annotations

import ast
import builtins
import os
import random
import re
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any

SHAPES_OK = ("(128,)", "(256,)", "(512,)", "(1000,)", "(64,)")
SHAPES_BAD = ("None", "(1.5,)", "(-1,)", "(0,)", "()", "(2 ** 62,)", "(1 << 45,)", "'abc'",
              "(128, None)", "((1,),)", "True", "(16, 16, 16, 16)", "(10 ** 30,)", "[128]",
              "(-(2 ** 63),)", "(float('nan'),)")
TILES_OK = ("(64,)", "(128,)", "(32,)")
TILES_BAD = ("None", "(1.5,)", "(-1,)", "(0,)", "()", "(3,)", "(64, 64)", "(2 ** 62,)", "'x'",
             "(128, 1)", "[64]", "(True,)")
DTYPES = tuple("ct." + d for d in ("f32", "f32", "f32", "f16", "i32", "bf16", "f8e4m3", "f64",
                                    "bool_", "u8"))
DTYPES_BAD = ("'f32'", "None", "np.float32", "float", "1")
SCALARS = ("0.5", "2", "-1", "1e308", "float('nan')", "float('inf')", "2 ** 70", "True", "None",
           "'s'", "np.float32(1)", "1 + 2j")
LOOP_COUNTS = ("0", "1", "3", "-5", "2 ** 31 - 1", "2 ** 40", "10 ** 9")
LOOP_STEPS = ("1", "2", "3", "-1", "0", "2 ** 31")


@dataclass
class _Program:
    rng: random.Random
    valid: bool = False  # only well-formed arguments (what must always work)
    lines: list[str] = field(default_factory=list)
    tensors: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    ops: list[tuple[str, list[str]]] = field(default_factory=list)  # (op name, argument names)
    graphs: list[tuple[str, list[str]]] = field(default_factory=list)
    n: int = 0

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def pick(self, good: tuple[str, ...], bad: tuple[str, ...], p_bad: float = 0.1) -> str:
        return self.rng.choice(bad if not self.valid and self.rng.random() < p_bad else good)


def _tensor(p: _Program) -> None:
    name = p.fresh("t")
    shape = p.pick(SHAPES_OK, SHAPES_BAD)
    dtype = p.pick(DTYPES[:3] if p.valid else DTYPES, DTYPES_BAD, 0.05)
    form = p.rng.randrange(9)
    if form == 0:
        expr = f"ct.ones({shape}, {dtype})"
    elif form == 1:
        expr = f"ct.full({shape}, {p.pick(SCALARS[:2], SCALARS[2:], 0.5)}, {dtype})"
    elif form == 2:
        expr = f"ct.arange({p.pick(('128', '256'), ('0', '-3', '2 ** 62', '1.5'), 0.3)}, {dtype})"
    elif form == 3:
        expr = f"ct.rand({shape}, {dtype}, seed={p.pick(('0', 'None'), ('-1', '2 ** 80'), 0.5)})"
    elif form == 4:
        expr = f"ct.randn({shape}, {dtype})"
    elif form == 5:
        np_shape = p.pick(SHAPES_OK, ("()", "(0,)", "(2, 0)", "(3, 4, 5)"), 0.2)
        np_dtype = p.pick(("np.float32", "np.float16", "np.int32", "np.float64"),
                          ("np.int64", "np.bool_", "np.complex64", "object"), 0.5)
        expr = f"ct.from_numpy(np.ones({np_shape}, {np_dtype}))"
    elif form == 6:
        expr = f"ct.meta({shape}, {dtype})"
    else:
        expr = f"ct.zeros({shape}, {dtype})"
    p.lines.append(f"{name} = {expr}")
    p.tensors.append(name)


def _partition(p: _Program) -> None:
    if not p.tensors:
        return _tensor(p)
    src = p.rng.choice(p.tensors)
    name = p.fresh("p")
    extra = ""
    if p.rng.random() < 0.2:
        extra += ", order=" + p.pick(("ct.row_major", "ct.col_major", "ct.grouped(2)"),
                                     ("ct.grouped(0)", "ct.grouped(-1)", "None", "'x'"), 0.5)
    if p.rng.random() < 0.15:
        extra += ", blocks=" + p.pick(("1", "2"), ("0", "-1", "2 ** 40", "1.5", "None"), 0.5)
    p.lines.append(f"{name} = {src}.partition({p.pick(TILES_OK, TILES_BAD)}{extra})")
    p.parts.append(name)


def _unpartition(p: _Program) -> None:
    if not p.parts:
        return _partition(p)
    p.lines.append(f"{p.fresh('t')} = {p.rng.choice(p.parts)}.unpartition()")
    p.tensors.append(f"t{p.n}")


def _launch(p: _Program) -> None:
    if not p.parts:
        return _partition(p)
    r = p.rng
    z = r.choice(p.parts)
    t = p.tensors or [z]
    kind = r.randrange(6)
    if kind == 0:
        args = [z, r.choice(t), r.choice(t)]
        call = f"hk.add({', '.join(args)})"
        if r.random() < 0.25:  # y by keyword: .sync() hands back the positional two
            call = f"hk.add({z}, {args[1]}, y={args.pop()})"
    elif kind == 1:
        args = [z, r.choice(t)]
        call = f"hk.scale({', '.join(args)}, {p.pick(SCALARS[:2], SCALARS[2:], 0.5)})"
    elif kind == 2:
        args = [z]
        call = f"hk.inc({z})"
    elif kind == 3:
        args = [z]
        call = f"hk.loop({z}, {p.pick(LOOP_COUNTS[:3], LOOP_COUNTS[3:], 0.5)}, " \
            f"{p.pick(LOOP_STEPS[:3], LOOP_STEPS[3:], 0.5)})"
    elif kind == 4:
        args = [z, r.choice(p.parts)]
        call = f"hk.pair({args[0]}, {args[1]})"
    else:
        args = [z, r.choice(t)]
        call = f"hk.add({z}, {args[1]}, {args[1]})"
        args.append(args[1])
    if r.random() < 0.1 and not p.valid:
        call = call[:-1] + ", " + r.choice(("grid=(1, 1, 1)", "grid=(2,)", "B=64", "B=3",
                                            "B=32", "B=128", "B=64.0", "B=[64]", "nope=1",
                                            "grid=None")) + ")"
    name = p.fresh("o")
    p.lines.append(f"{name} = {call}")
    p.ops.append((name, args))


def _finish(p: _Program) -> None:
    if not p.ops:
        return _launch(p)
    r = p.rng
    op, args = r.choice(p.ops)
    back = ", ".join(args) + ("," if len(args) == 1 else "")
    kind = r.randrange(8)
    if kind <= 2:
        p.lines.append(f"{back} = {op}.sync()")
    elif kind == 3:
        p.lines.append(f"{back} = hk.run_await({op})")
    elif kind == 4:
        p.lines.append(f"{back} = hk.cancel_await({op})")
    elif kind == 5:
        nxt = p.fresh("o")
        fn = r.choice(("lambda *a: hk.inc(a[0])", "lambda *a: a", "lambda *a: 1 / 0",
                       "lambda *a: None", "lambda *a: hk.inc(a[-1])"))
        p.lines.append(f"{nxt} = {op}.then({fn})")
        p.ops.append((nxt, args))
    elif kind == 6:
        g = p.fresh("g")
        p.lines.append(f"{g} = {op}.graph()")
        p.graphs.append((g, args))
    else:
        p.lines.append(f"{op}.start()")


def _graph(p: _Program) -> None:
    if not p.graphs:
        return _finish(p)
    g, args = p.rng.choice(p.graphs)
    back = ", ".join(args) + ("," if len(args) == 1 else "")
    p.lines.append(p.rng.choice((f"{g}.replay()", f"{back} = {g}.sync()",
                                 f"{back} = hk.run_await({g})")))


def _read(p: _Program) -> None:
    names = p.tensors + p.parts
    if not names:
        return _tensor(p)
    x = p.rng.choice(names)
    forms = [f"{x}.numpy()", f"ct.from_dlpack({x})", f"{x}.shape", "ct.synchronize()"]
    if x in p.tensors:
        forms.append(f"{x}.reshape({p.pick(SHAPES_OK, SHAPES_BAD)})")
    p.lines.append(p.rng.choice(forms))


def _view(p: _Program) -> None:
    """A host view of a tensor (`t[a:b]`, `t.narrow(0, a, n)`, a split half), now and then
    out of bounds; it is a tensor the program goes on with (partitions, launches, copies)."""
    if not p.tensors:
        return _tensor(p)
    x, other = p.rng.choice(p.tensors), p.rng.choice(p.tensors)
    a, n = p.pick(("0", "64", "128"), ("-1", "999", "1.5"), 0.2), p.rng.choice(("64", "128"))
    step = p.pick(("1", "2"), ("0", "-1"), 0.3)
    expr = p.rng.choice((f"{x}[{a}:{a} + {n}]", f"{x}.narrow(0, {a}, {n})",
                         f"{x}.split_at(0, {n})[{p.rng.randrange(2)}]", f"{x}[::{step}]",
                         f"{x}.copy_({other})"))
    name = p.fresh("t")
    p.lines.append(f"{name} = {expr}")
    p.tensors.append(name)


_STEPS = ((_tensor, 4), (_partition, 3), (_unpartition, 1), (_launch, 4), (_finish, 4),
          (_graph, 1), (_read, 1), (_view, 2))


def case(rng: random.Random, huge_lines: int = 0, valid: bool = False) -> list[str]:
    if _COMPARE is not None:
        return coherent_case(rng, valid)
    p = _Program(rng, valid)
    for _ in range(rng.randint(3, 14)):
        step = rng.choices([s for s, _ in _STEPS], [w for _, w in _STEPS])[0]
        step(p)
    return p.lines


def coherent_case(rng: random.Random, valid: bool = False) -> list[str]:
    """A program that mostly does what it means to (for comparing backends, where what runs
    matters): it partitions live tensors, launches on live partitions and usually syncs,
    with the same odd values now and then as `case`."""
    p = _Program(rng, valid)
    tensors: list[str] = []  # live tensors (reads leave them live)
    parts: list[str] = []  # live partitions
    flying: list[tuple[str, list[str], str]] = []  # launches not yet handed back
    for _ in range(rng.randint(4, 16)):
        r = rng.random()
        if r < 0.2 or not (tensors or parts):
            tensors.append(_coherent_tensor(p, rng))
        elif r < 0.35 and tensors:
            t = tensors.pop(rng.randrange(len(tensors)))
            name = p.fresh("p")
            p.lines.append(f"{name} = {t}.partition({p.pick(TILES_OK, TILES_BAD, 0.05)})")
            parts.append(name)
        elif r < 0.75 and parts:
            _coherent_launch(p, rng, tensors, parts, flying)
        elif r < 0.85 and flying:
            _coherent_finish(p, rng, flying, parts)
        elif r < 0.9 and parts:
            t = p.fresh("t")
            p.lines.append(f"{t} = {parts.pop(rng.randrange(len(parts)))}.unpartition()")
            tensors.append(t)
        else:
            _read(p)
    while flying and rng.random() < 0.8:
        _coherent_finish(p, rng, flying, parts)
    return p.lines


def _coherent_tensor(p: _Program, rng: random.Random) -> str:
    """Mostly f32 tensors of the kernels' dtype; now and then `case`'s odd ones."""
    if rng.random() < 0.15:
        _tensor(p)
        return p.tensors[-1]
    name = p.fresh("t")
    shape = rng.choice((*SHAPES_OK, "(1,)", "(47,)", "(3,)"))
    expr = rng.choice((f"ct.ones({shape}, ct.f32)", f"ct.zeros({shape}, ct.f32)",
                       f"ct.full({shape}, {rng.choice(('0.5', '-3', '1e30'))}, ct.f32)",
                       f"ct.rand({shape}, ct.f32, seed={rng.randrange(4)})",
                       f"ct.randn({shape}, ct.f32, seed={rng.randrange(4)})",
                       f"ct.randn({shape}, ct.f32)",
                       f"ct.arange({rng.choice(('128', '1000', '47'))}, ct.f32)",
                       f"ct.from_numpy(np.linspace(-2, 2, {rng.choice(('64', '47'))}, "
                       "dtype=np.float32))"))
    p.lines.append(f"{name} = {expr}")
    p.tensors.append(name)
    return name


def _coherent_launch(p: _Program, rng: random.Random, tensors: list[str], parts: list[str],
                     flying: list[tuple[str, list[str], str]]) -> None:
    z = parts.pop(rng.randrange(len(parts)))
    reads = tensors or [z]
    kind = rng.randrange(5)
    if kind == 0:
        args = [z, rng.choice(reads), rng.choice(reads)]
        call = f"hk.add({', '.join(args)})"
    elif kind == 1:
        args = [z, rng.choice(reads)]
        call = f"hk.scale({', '.join(args)}, {p.pick(SCALARS[:2], SCALARS[2:], 0.2)})"
        args.append("_")  # .sync() hands the scalar back too
    elif kind == 2:
        args = [z]
        call = f"hk.inc({z})"
    elif kind == 3:
        args = [z, "_", "_"]
        call = (f"hk.loop({z}, {p.pick(LOOP_COUNTS[:3], LOOP_COUNTS[3:], 0.2)}, "
                f"{p.pick(LOOP_STEPS[:3], LOOP_STEPS[3:], 0.2)})")
    else:
        other = parts.pop(rng.randrange(len(parts))) if parts else z
        args = [z, other]
        call = f"hk.pair({z}, {other})"
    name = p.fresh("o")
    p.lines.append(f"{name} = {call}")
    p.ops.append((name, args))
    flying.append((name, args, "launch"))
    if rng.random() < 0.7:
        _coherent_finish(p, rng, flying, parts, len(flying) - 1)


def _coherent_finish(p: _Program, rng: random.Random, flying: list[tuple[str, list[str], str]],
                     parts: list[str], at: int | None = None) -> None:
    op, args, kind = flying.pop(rng.randrange(len(flying)) if at is None else at)
    back = ", ".join(args) + ("," if len(args) == 1 else "")
    form = rng.randrange(10)
    if kind == "graph":
        p.lines.append(f"{op}.replay()")
        p.lines.append(f"{back} = {op}.sync()")
    elif form < 6:
        p.lines.append(f"{back} = {op}.sync()")
    elif form == 6:
        p.lines.append(f"{back} = hk.run_await({op})")
    elif form == 7:
        p.lines.append(f"{back} = hk.cancel_await({op})")
    elif form == 8:
        nxt = p.fresh("o")
        p.lines.append(f"{nxt} = {op}.then(lambda *a: hk.inc(a[0]))")
        p.lines.append(f"{args[0]}, = {nxt}.sync()")
        parts.append(args[0])
        return
    else:
        g = p.fresh("g")
        p.lines.append(f"{g} = {op}.graph()")
        flying.append((g, args, "graph"))
        return
    parts.extend(a for a in args if a.startswith("p") and a not in parts)


def setup() -> None:
    os.environ["CUTILE_BACKEND"] = "interpreter"
    warnings.simplefilter("ignore")


def check(lines: list[str]) -> str | None:
    if _COMPARE is not None:
        return compare(lines, _COMPARE)
    import numpy as np

    import cutile as ct

    from . import host_kernels

    env: dict[str, object] = {"ct": ct, "np": np, "hk": host_kernels}
    for line in lines:
        code = compile(line, FILENAME, "exec")
        if not _names(line) <= env.keys() | _BUILTINS:
            continue  # an earlier line that would bind a name failed with a CutileError
        try:
            exec(code, env)
        except ct.CutileError:
            continue
        except Exception as err:
            if not _raised_by_program(err):
                raise
    return None


FILENAME = "<fuzz-host>"
_BUILTINS = frozenset(dir(builtins))


def _names(line: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(line))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _raised_by_program(err: BaseException) -> bool:
    """The program's own code raised it (a lambda dividing by zero, a wrong unpacking): an
    error of the fuzzed program, not of cutile."""
    frames = traceback.extract_tb(err.__traceback__)
    return bool(frames) and frames[-1].filename == FILENAME


def render(lines: list[str]) -> str:
    """A repro file: run it with `CUTILE_BACKEND=interpreter python FILE` from the repo root."""
    head = ["# CUTILE_BACKEND=interpreter python FILE (from the repository root)",
            "import numpy as np", "import cutile as ct",
            "from tests.fuzz import host_kernels as hk", ""]
    body = [f"try:\n    {line}\nexcept ct.CutileError as err:\n    print('ok:', err)"
            for line in lines]
    return "\n".join(head + body) + "\n"


# -- comparing backends (`configure`) ----------------------------------------------------------
_COMPARE: str | None = None  # the backend each program also runs on, when comparing
_BACKENDS: dict[str, Any] = {}  # the CUDA backend, made once per worker process
# nondeterministic tensors (drawn without a seed): their contents differ from run to run
_RANDOM = re.compile(r"ct\.randn?\((?!.*seed=\d)")
_SYNCS = ("sync", "run_await", "cancel_await")


def configure(backend: str | None) -> None:
    """Compare every program's run on the interpreter with its run on `backend` ("cuda",
    "interpreter" for a second interpreter run, "python-path" for one with the compiled launch
    path off: runtime/native.py); None: the interpreter alone, crashes only."""
    if backend not in (None, "cuda", "interpreter", "python-path"):
        raise ValueError(f"no backend {backend!r} to compare (cuda, interpreter or "
                         "python-path)")
    global _COMPARE
    _COMPARE = backend


@dataclass
class Trace:
    """One run of a program: each line's outcome (`ok`, `error CT301,CT406`, `skip` when a name
    it reads was never bound, `program ZeroDivisionError`), the contents (or the error code) of
    each tensor and partition name at the end, the names whose contents came from unseeded
    random draws, and what disagreed with the kernels' NumPy models."""

    outcomes: list[str] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    random: set[str] = field(default_factory=set)
    numpy: list[str] = field(default_factory=list)


def backend_named(name: str) -> Any:
    """The interpreter (a new one), or the CUDA backend made once per worker process."""
    if name == "interpreter":
        from cutile.runtime.backends.interpreter import InterpreterBackend

        return InterpreterBackend()
    if name not in _BACKENDS:
        from cutile.runtime.backends.cuda import CudaBackend

        _BACKENDS[name] = CudaBackend(0)
    return _BACKENDS[name]


def compare(lines: list[str], other: str) -> str | None:
    """Runs the program on the interpreter and on `other`; what differs, or None. A line that
    reaches a resource limit (CT412: the interpreter's step budget, a backend's memory) ends the
    comparison there: past it the two runs hold different launches (and a loop the interpreter
    refuses as too long would only keep the GPU busy)."""
    first = run_on(lines, backend_named("interpreter"))
    cut = _limit(first.outcomes)
    if cut < len(lines):
        lines = lines[:cut]
        first = run_on(lines, backend_named("interpreter"))
    if other == "python-path":
        from cutile.runtime import native

        with native.python_path():
            second = run_on(lines, backend_named("interpreter"))
    else:
        second = run_on(lines, backend_named(other))
    problems = [f"interpreter: {p}" for p in first.numpy] + [f"{other}: {p}" for p in
                                                             second.numpy]
    end = min(_limit(second.outcomes), len(lines))
    for i, (a, b) in enumerate(zip(first.outcomes[:end], second.outcomes[:end], strict=True)):
        if a != b:
            problems.append(f"outcome differs on {_what(lines[i])}: interpreter {a!r}, {other} "
                            f"{b!r}\n  line {i + 1}: {lines[i]}")
            break
    if end == len(lines) and not problems:
        problems += _compare_final(first, second, other)
    return "\n".join(problems) or None


def _limit(outcomes: list[str]) -> int:
    return next((i for i, o in enumerate(outcomes) if "CT412" in o), len(outcomes))


def _what(line: str) -> str:
    """The line's kind, for grouping failures: the function or method it calls."""
    calls = [n for n in ast.walk(ast.parse(line)) if isinstance(n, ast.Call)]
    if not calls:
        return "an expression"
    f = calls[0].func
    return ast.unparse(f) if isinstance(f, ast.Name) or not isinstance(f, ast.Attribute) else (
        f"{ast.unparse(f.value)}.{f.attr}" if isinstance(f.value, ast.Name) and
        f.value.id in ("ct", "hk", "np") else f".{f.attr}()")


def _compare_final(a: Trace, b: Trace, other: str) -> list[str]:
    for name in sorted(a.final.keys() | b.final.keys()):
        if name in a.random or name in b.random:
            continue
        x, y = a.final.get(name), b.final.get(name)
        if not _same(x, y):
            return [f"contents differ at the end: interpreter {_show(x)}, {other} {_show(y)}\n"
                    f"  name {name}"]
    return []


def _same(x: Any, y: Any) -> bool:
    import numpy as np

    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return x.dtype == y.dtype and x.shape == y.shape and bool(
            np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    return bool(x == y)


def _show(x: Any) -> str:
    import numpy as np

    if isinstance(x, np.ndarray):
        return f"array {x.dtype}{list(x.shape)} {np.array2string(x.ravel()[:6])}"
    return repr(x)


def run_on(lines: list[str], backend: Any) -> Trace:
    """Runs the program's lines on `backend`, as `check` does, recording what the comparison
    needs; exceptions other than CutileErrors and the program's own still escape."""
    import numpy as np

    import cutile as ct
    from cutile.runtime import context

    from . import host_kernels

    trace = Trace()
    old = context.set_backend(backend)
    env: dict[str, Any] = {"ct": ct, "np": np, "hk": host_kernels}
    pending: dict[str, tuple[str, list[Any]] | None] = {}  # launch name -> (kernel, args)
    try:
        for line in lines:
            tree = ast.parse(line)
            if not _names(line) <= env.keys() | _BUILTINS:
                trace.outcomes.append("skip")
                continue
            launch = _launch_line(tree)
            args = _arguments(env, launch[2]) if launch is not None else None
            trace.outcomes.append(_exec(line, env))
            _taint(tree, line, trace.random)
            if trace.outcomes[-1] == "ok":
                _follow(tree, env, launch, args, pending, trace.numpy)
        trace.final = {name: _contents(v) for name, v in env.items()
                       if isinstance(v, (ct.Tensor, ct.Partition))}
    finally:
        context.set_backend(old)
    return trace


def _exec(line: str, env: dict[str, Any]) -> str:
    import cutile as ct

    try:
        exec(compile(line, FILENAME, "exec"), env)
    except ct.CutileError as err:
        return "error " + ",".join(sorted({d.code for d in err.diagnostics}))
    except Exception as err:
        if not _raised_by_program(err):
            raise
        return f"program {type(err).__name__}"
    return "ok"


def _taint(tree: ast.AST, line: str, random_names: set[str]) -> None:
    """Names a line binds carry unseeded random contents when it draws them or reads such a
    name (a partition of it, a launch on it, its results)."""
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                      ast.Load)}
    if _RANDOM.search(line) or loads & random_names:
        random_names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
                         isinstance(n.ctx, ast.Store)}


def _launch_line(tree: ast.Module) -> tuple[str, str, ast.Call] | None:
    """(the name bound, the kernel, the call) of `name = hk.kernel(...)`."""
    from . import host_kernels

    stmt = tree.body[0] if tree.body else None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)):
        return None
    f = stmt.value.func
    if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "hk"
            and f.attr in host_kernels.MODELS):
        return stmt.targets[0].id, f.attr, stmt.value
    return None


def _arguments(env: dict[str, Any], call: ast.Call) -> list[Any] | None:
    """The positional arguments as the launch will see them: a tensor's or partition's
    contents now (earlier launches that wrote it have been synced: it is live), any other value
    as given; None when one cannot be had (then no model is checked)."""
    import numpy as np

    import cutile as ct

    out: list[Any] = []
    for node in call.args:
        try:
            value = eval(compile(ast.Expression(node), FILENAME, "eval"), env)
            out.append(np.array(value.numpy()) if isinstance(value, (ct.Tensor, ct.Partition))
                       else value)
        except Exception:
            return None
    return out


def _follow(tree: ast.Module, env: dict[str, Any], launch: tuple[str, str, ast.Call] | None,
            args: list[Any] | None, pending: dict[str, tuple[str, list[Any]] | None],
            problems: list[str]) -> None:
    """After a line that ran: remember a launch, check a synced one against its model."""
    if launch is not None:
        pending[launch[0]] = (launch[1], args) if args is not None else None
        return
    stmt = tree.body[0] if tree.body else None
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
    op = _synced(value)
    if op is not None and op in pending:
        record = pending.pop(op)
        if record is not None and isinstance(stmt, ast.Assign) and \
                isinstance(stmt.targets[0], ast.Tuple):
            _check_model(record, stmt.targets[0], env, problems)
        return
    for name in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & pending.keys():
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and
                value.func.attr == "start"):
            pending.pop(name)  # chained, captured or handed on: not followed further


def _synced(value: ast.expr | None) -> str | None:
    """`op` of `op.sync()`, `hk.run_await(op)` or `hk.cancel_await(op)`."""
    if not isinstance(value, ast.Call):
        return None
    f = value.func
    if isinstance(f, ast.Attribute) and f.attr == "sync" and isinstance(f.value, ast.Name):
        return f.value.id
    if (isinstance(f, ast.Attribute) and f.attr in _SYNCS and value.args and
            isinstance(value.args[0], ast.Name)):
        return value.args[0].id
    return None


def _check_model(record: tuple[str, list[Any]], names: ast.Tuple, env: dict[str, Any],
                 problems: list[str]) -> None:
    import numpy as np

    from . import host_kernels

    kernel, args = record
    try:
        want = host_kernels.MODELS[kernel](*args)
    except (TypeError, ValueError, OverflowError):
        return  # arguments the model takes differently (the launch checked them)
    if want is None:
        return
    for at, expected in want.items():
        target = names.elts[at] if at < len(names.elts) else None
        if not isinstance(target, ast.Name):
            continue
        got = _contents(env.get(target.id))
        if not (isinstance(got, np.ndarray) and got.shape == expected.shape and
                np.array_equal(got, expected, equal_nan=True)):
            problems.append(f"hk.{kernel} differs from its NumPy model: got {_show(got)}, want "
                            f"{_show(expected)} (argument {at})")


def _contents(v: Any) -> Any:
    """A tensor's or partition's contents, or the code of the error reading it raises."""
    import numpy as np

    import cutile as ct

    try:
        return np.array(v.numpy())
    except ct.CutileError as err:
        return "error " + ",".join(sorted({d.code for d in err.diagnostics}))
