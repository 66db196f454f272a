"""Random kernels with loops over tuples against the same kernels unrolled by hand (the body
written out once per item after `v = item`): both must store the same row, on the interpreter,
for every flag pattern. The programs nest tuple loops, range loops and ifs, and return from
inside them, which exercises how the unrolled copies are spliced into the statement list."""

from __future__ import annotations

import importlib.util
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import cutile as ct
from cutile.compiler import check_source

HEADER = """import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def k(z: Mut[Tensor[f32, (1, 16)]], f: Tensor[i32, (-1,)]) -> None:
    t = z.load()
"""
FLAGS = 6


@dataclass
class Node:
    kind: str  # "set", "if", "tuple", "range", "return"
    text: str = ""
    var: str = ""
    items: tuple[str, ...] = ()
    body: list[Node] = field(default_factory=list)


def _body(rng: random.Random, depth: int, names: list[str], counter: list[int]) -> list[Node]:
    out: list[Node] = []
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if depth < 3 and roll < 0.25:
            counter[0] += 1
            var = f"v{counter[0]}"
            items = tuple(str(rng.choice((0.5, 1.5, 2.0, -1.0, 3.0))) for _ in range(
                rng.randint(1, 3)))
            out.append(Node("tuple", var=var, items=items,
                            body=_body(rng, depth + 1, [*names, var], counter)))
        elif depth < 3 and roll < 0.35:
            counter[0] += 1
            var = f"i{counter[0]}"
            out.append(Node("range", var=var, items=(str(rng.randint(1, 3)),),
                            body=_body(rng, depth + 1, names, counter)))
        elif depth < 3 and roll < 0.6:
            flag = rng.randrange(FLAGS)
            out.append(Node("if", text=f"f.load_tile((1,), ({flag},)).reshape(()) == 1",
                            body=_body(rng, depth + 1, names, counter) +
                            ([Node("return")] if rng.random() < 0.6 else [])))
        else:
            scale = rng.choice([*names, "1.25"]) if names else "1.25"
            out.append(Node("set", text=f"t = t * {scale} + {rng.randint(-2, 2)}.0"))
    return out


def _emit(nodes: list[Node], indent: int, unroll: bool) -> list[str]:
    pad, lines = "    " * indent, []
    for n in nodes:
        if n.kind == "set":
            lines.append(pad + n.text)
        elif n.kind == "return":
            lines.append(pad + "return")
        elif n.kind == "if":
            lines += [pad + f"if {n.text}:", *_emit(n.body, indent + 1, unroll)]
        elif n.kind == "range":
            lines += [pad + f"for {n.var} in range({n.items[0]}):",
                      *_emit(n.body, indent + 1, unroll)]
        elif unroll:
            for item in n.items:
                lines += [pad + f"{n.var} = {item}", *_emit(n.body, indent, unroll)]
        else:
            lines += [pad + f"for {n.var} in ({', '.join(n.items)},):",
                      *_emit(n.body, indent + 1, unroll)]
    return lines


def _module(src: str, path: Path) -> object:
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed", range(24))
def test_unrolled_loops_equal_the_hand_unrolled_kernel(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    tree = _body(rng, 0, [], [0])
    looped, by_hand = (HEADER + "\n".join([*_emit(tree, 1, u), "    z.store(t)"]) + "\n"
                       for u in (False, True))
    assert check_source(looped, "looped.py") == [], looped
    a = _module(looped, tmp_path / f"looped_{seed}.py")
    b = _module(by_hand, tmp_path / f"by_hand_{seed}.py")
    flags = np.random.default_rng(seed).integers(0, 2, (4, FLAGS)).astype(np.int32)
    flags[0] = 0
    for row in flags:
        outs = []
        for mod in (a, b):
            z = ct.from_numpy(np.arange(16, dtype=np.float32).reshape(1, 16) / 7)
            out, *_ = mod.k(z.partition((1, 16)), ct.from_numpy(row)).sync()  # type: ignore[attr-defined]
            outs.append(out.unpartition().numpy())
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=looped)
