"""Control flow that must compile to Tile IR tileiras accepts (sm_90 cubins, no GPU): a kernel's
early `return` (in `if` regions only; a loop it leaves breaks out with a flag), regions that end
in an `if` every branch of which leaves them, and range loops that cannot run forever
(compiler/lower/loops.py: the step check and its status word, and each `for`'s form)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from lower_util import ROOT, example, load_file

import cutile as ct
from cutile import f32, i32

RUNTIME_TESTS = ROOT / "tests" / "runtime"


R = load_file(RUNTIME_TESTS / "return_kernels.py", "cutile_lower_return_kernels")
L = load_file(RUNTIME_TESTS / "loop_kernels.py", "cutile_lower_loop_kernels")


def _ir(kernel: Any, *args: Any, **consts: Any) -> str:
    c = kernel.compile(*args, arch="sm_90", **consts)
    assert c.cubin[:4] == b"\x7fELF"
    return str(c.tileir)


def _row(n: int = 1) -> Any:
    return ct.meta((n,), f32).partition((1,))


def test_a_guard_return_is_a_return_in_an_if() -> None:
    text = _ir(R.scale_first, ct.meta((1024,), f32).partition((64,)), ct.meta((1024,), f32),
               700)
    assert re.search(r"if %\w+ \{\s+return\s+\} else \{", text), text
    assert text.count("return") == 2  # the guard's and the body's end


@pytest.mark.parametrize("name", ["first_above", "running_sum"])
def test_a_return_inside_a_loop_breaks_out_with_a_flag(name: str) -> None:
    kernel = getattr(R, name)
    out = ct.meta((1,), i32 if name == "first_above" else f32).partition((1,))
    text = _ir(kernel, out, ct.meta((10, 16), f32), 1.0, B=16)
    assert " for " not in text and "loop iter_values" in text  # Tile IR's for cannot break
    assert "break" in text and "tile<i1>" in text
    loop_at = text.index("loop iter_values")
    assert "return" in text[text.index("}", loop_at):]  # `if flag: return` after the loop


def test_returns_out_of_a_while_inside_a_for() -> None:
    text = _ir(R.collatz_steps, ct.meta((4,), i32).partition((1,)), ct.meta((4,), i32), 100)
    assert text.count("loop iter_values") == 2


@pytest.mark.parametrize("name", ["cross_entropy", "jsd", "classify", "both_branches"])
def test_guards_in_branches_compile(name: str) -> None:
    kernel = getattr(R, name)
    if name == "cross_entropy":
        _ir(kernel, _row(), ct.meta((8, 32), f32), ct.meta((8,), i32))
    elif name == "jsd":
        _ir(kernel, _row(), ct.meta((8, 32), f32), ct.meta((8, 32), f32), ct.meta((8,), i32))
    else:
        _ir(kernel, ct.meta((256,), f32).partition((64,)), ct.meta((256,), f32))


def test_atomics_and_printf_around_a_return() -> None:
    text = _ir(R.tally_until, ct.meta((2,), f32), ct.meta((5,), i32), B=1, grid=(5, 1, 1))
    assert text.count("atomic_red_view_tko") == 2 and "print" in text


SOURCE = '''
import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def ends_in_jumps(z: Mut[Tensor[f32, (64,)]], n: i32) -> None:
    acc = ct.zeros((64,), f32)
    for i in range(n):
        acc = acc + 1.0
        if ct.sum(acc, 0) > 100.0:
            break
        else:
            continue
    z.store(acc)
'''


def test_a_region_ending_in_an_if_of_jumps_gets_a_terminator(tmp_path: Path) -> None:
    path = tmp_path / "jumps.py"
    path.write_text(SOURCE)
    kernel = load_file(path, "cutile_lower_jumps").ends_in_jumps
    _ir(kernel, ct.meta((64,), f32).partition((64,)), 5)


def _walk_ir(kernel: Any, *args: Any) -> str:
    return _ir(kernel, ct.meta((4,), i32).partition((4,)), *args)


def test_a_run_time_step_is_checked_into_the_status_word() -> None:
    text = _walk_ir(L.walk, 0, 10, 1)
    head = text[:text.index("{")]
    assert head.rstrip(") ").endswith("tile<ptr<i64>>")  # the status word: the last parameter
    assert re.search(r"cmpi greater_than_or_equal %arg\d+, %cst_1_i32", text)
    assert "atomic_rmw_tko relaxed device" in text and "xchg" in text
    assert "loop iter_values" in text and " for " not in text  # the start may be negative
    assert "2147483647" in text  # the step is checked before stepping


def test_a_constant_step_needs_no_status_word() -> None:
    text = _walk_ir(L.walk_by_3, 0, 10)
    assert "ptr<i64>" not in text and "atomic_rmw_tko" not in text
    assert "2147483647" in text


def test_loops_from_a_non_negative_start_compare_unsigned() -> None:
    """Split-K walks k = block_id(2), + SPLIT, ...: a `for` over its trip count by 1, whose body
    sees k = start + t * SPLIT (no unsigned compare, no `loop`)."""
    from cutile import bf16

    mod = example("splitk_gemm")
    text = _ir(mod.splitk_gemm, ct.meta((256, 256), f32), ct.meta((256, 512), bf16),
               ct.meta((512, 256), bf16), BM=64, BN=64, BK=32, SPLIT=4, grid=(4, 4, 4))
    assert "unsigned" not in text and "loop iter_values" not in text
    assert "ptr<i64>" not in text
    trips = re.search(r"(%\w+) = select (%\w+), (%\w+), (%\w+)", text)
    assert trips is not None and re.search(rf"= for %\w+ in \(%\w+ to {trips.group(1)}, ", text)
    assert re.search(r"= divi %\w+, %\w+ signed", text)
    assert re.search(r"= muli %\w+, %\w+", text)


def test_step_one_loops_are_unchanged() -> None:
    from cutile import bf16

    mod = example("gemm")
    c = ct.meta((256, 256), bf16).partition((64, 64))
    text = _ir(mod.gemm, c, ct.meta((256, 128), bf16), ct.meta((128, 256), bf16), BK=32)
    assert re.search(r"= for %\w+ in", text) and "unsigned" not in text
