"""Hovers on host API calls and properties show their registry entry (compiler/hostapi)."""

from __future__ import annotations

from cutile.lsp import engine
from cutile.lsp.hover import api_hover

SOURCE = '''\
import cutile as ct
from cutile import Mut, Tensor, f32, zeros


@ct.kernel
def k(z: Mut[Tensor[f32, (16,)]]) -> None:
    z.store(ct.zeros((16,), f32))


def main():
    t = ct.zeros((1024,), f32)
    a, b = t.split_at(0, 512)
    n = t.shape
    z = zeros((16,), f32).partition((16,))
    op = k(z)
    z, = op.sync()
    return a, b, n
'''


def _hover(line: int, col: int) -> str | None:
    info = api_hover(engine.ownership(SOURCE, "m.py"), line, col)
    return info.markdown if info is not None else None


def test_constructor_method_and_property_show_their_entry() -> None:
    text = _hover(11, 12)  # ct.zeros
    assert text is not None and text.startswith(
        "```python\nct.zeros(shape: tuple[int, ...] | int, dtype: DType) -> Tensor\n```")
    assert "Ownership: creates a new tensor." in text and "Errors: CT406, CT412." in text
    text = _hover(12, 15)  # t.split_at
    assert text is not None and "t.split_at(axis: int, k: int) -> tuple[Tensor, Tensor]" in text
    assert "Ownership: returns a view" in text
    text = _hover(13, 10)  # t.shape
    assert text is not None and text.startswith("```python\nt.shape: tuple[int, ...]\n```")
    text = _hover(16, 12)  # op.sync
    assert text is not None and "op.sync() -> tuple[Any, ...]" in text


def test_imported_constructor_and_partition() -> None:
    assert (_hover(14, 8) or "").startswith("```python\nct.zeros(")
    assert (_hover(14, 30) or "").startswith("```python\nt.partition(")


def test_the_span_is_the_name_only() -> None:
    info = api_hover(engine.ownership(SOURCE, "m.py"), 12, 15)
    assert info is not None
    assert (info.span.line, info.span.col, info.span.end_col) == (12, 13, 21)


def test_no_entry_elsewhere() -> None:
    assert _hover(11, 9) is None  # `ct` itself
    assert _hover(12, 11) is None  # `t`, the receiver (the ownership hover's)
    assert _hover(7, 15) is None  # ct.zeros inside a kernel is the kernel op


def test_a_new_method_is_hovered_from_its_row() -> None:
    """`fill_` is a registry row and a runtime method: its hover needed nothing else."""
    view = engine.ownership("import cutile as ct\nt = ct.ones((4,), ct.f32)\nt.fill_(0.0)\n",
                            "f.py")
    info = api_hover(view, 3, 3)
    assert info is not None and info.markdown.startswith(
        "```python\nt.fill_(value: float | bool) -> Tensor\n```")
    assert "Ownership: writes every element" in info.markdown
    assert "Errors: CT301, CT303, CT306, CT307, CT406." in info.markdown
