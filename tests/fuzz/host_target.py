"""The host target: random host programs (constructors, partitions, launches, sync, then,
graph, await, cancelled awaits) run on the interpreter. Each line runs on its own: a line may
fail with a `ct.CutileError` (then the program goes on); any other exception is a crash.

A program is a list of lines, so a failure shrinks over lines."""

from __future__ import annotations

import ast
import builtins
import os
import random
import traceback
import warnings
from dataclasses import dataclass, field

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
                                            "nope=1", "grid=None")) + ")"
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


_STEPS = ((_tensor, 4), (_partition, 3), (_unpartition, 1), (_launch, 4), (_finish, 4),
          (_graph, 1), (_read, 1))


def case(rng: random.Random, huge_lines: int = 0, valid: bool = False) -> list[str]:
    p = _Program(rng, valid)
    for _ in range(rng.randint(3, 14)):
        step = rng.choices([s for s, _ in _STEPS], [w for _, w in _STEPS])[0]
        step(p)
    return p.lines


def setup() -> None:
    os.environ["CUTILE_BACKEND"] = "interpreter"
    warnings.simplefilter("ignore")


def check(lines: list[str]) -> str | None:
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
