"""Spans, notes and wording: the primary span is the use, a note points at the move."""

from __future__ import annotations

import re

from hostcheck import PRELUDE, run, with_prelude

from cutile.diagnostics import messages as msg
from cutile.diagnostics.diagnostic import Diagnostic

_INTERNAL = re.compile(r"TensorVal|PartitionVal|OpVal|KernelVal|ModuleVal|Unknown|IntVal|"
                       r"TupleVal|Moved|Escaped|None|<|object at")


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _col(source: str, line: int, text: str) -> int:
    return source.splitlines()[line - 1].index(text)


def _one(source: str, code: str) -> Diagnostic:
    diags = [d for d in run(source) if d.code == code]
    assert len(diags) == 1, diags
    return diags[0]


def test_use_after_move_spans() -> None:
    source = with_prelude("""
t = ct.zeros((1024,), f32)
p = t.partition((128,))
t.numpy()
""")
    d = _one(source, "CT301")
    use = _line(source, "t.numpy()")
    assert (d.span.line, d.span.col, d.span.end_col) == (use, 0, 1)
    assert d.message == "'t' was moved by .partition() and cannot be used here"
    (note,) = d.notes
    move = _line(source, "p = t.partition")
    assert note.span is not None
    assert (note.span.line, note.span.col) == (move, _col(source, move, "t.partition"))
    assert note.message == msg.MOVED_HERE.format(name="t")


def test_moved_into_pending_launch_names_the_kernel() -> None:
    source = with_prelude("""
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
p.unpartition()
op.sync()
""")
    d = _one(source, "CT301")
    assert "launch of 'scale' that has not been synced" in d.message
    assert d.notes[0].span is not None
    assert d.notes[0].span.line == _line(source, "op = scale(p")
    assert d.notes[0].span.col == _col(source, d.notes[0].span.line, "p, x")


def test_lease_note_points_at_the_launch_argument() -> None:
    source = with_prelude("""
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
q = x.partition((128,))
op.sync()
""")
    d = _one(source, "CT303")
    assert d.span.line == _line(source, "q = x.partition")
    assert d.notes[0].message == msg.LEASED_HERE.format(kernel="'scale'")
    assert d.notes[0].span is not None
    assert d.notes[0].span.col == _col(source, d.notes[0].span.line, "x, 1.0")


def test_aliasing_names_both_arguments() -> None:
    source = with_prelude("""
x = ct.ones((64,), f32)
p = ct.zeros((64,), f32).partition((64,))
pair(p, p, x).sync()
""")
    d = _one(source, "CT302")
    line = _line(source, "pair(p, p, x)")
    assert (d.span.line, d.span.col) == (line, _col(source, line, "p, x"))
    assert d.notes[0].span is not None and d.notes[0].span.col == _col(source, line, "p, p")
    assert "'a'" in d.message and "'b'" in d.message


def test_never_run_is_reported_at_the_creating_call() -> None:
    source = with_prelude("""
def f(p, x):
    op = scale(p, x, 1.0)
""")
    d = _one(source, "CT305")
    line = _line(source, "op = scale")
    assert (d.span.line, d.span.col) == (line, _col(source, line, "scale("))


def test_move_in_loop_points_at_the_move_inside_the_loop() -> None:
    source = with_prelude("""
x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
for _ in range(3):
    scale(z, x, 1.0).sync()
""")
    d = _one(source, "CT306")
    line = _line(source, "scale(z, x, 1.0).sync()")
    assert d.span.line == line and d.notes[0].span is not None
    assert d.notes[0].span.line == line


def test_messages_contain_no_internal_names() -> None:
    snippets = [
        "t = ct.zeros((1024,), f32)\np = t.partition((128,))\nt.numpy()\n",
        "z = ct.zeros((1024,), f32)\nscale(z, z, 1.0).sync()\n",
        "x = ct.ones((8,), f16)\nz = ct.zeros((1024,), f32).partition((64,))\n"
        "add(z, x, x, 1, 2).sync()\nadd(z, x, x).sync()\nscale(z, x, x).sync()\n"
        "mm(z, x, x).sync()\n",
        "def f(p, x):\n    scale(p, x, 1.0)\n",
    ]
    diags = [d for s in snippets for d in run(with_prelude(s))]
    assert len(diags) >= 6
    for d in diags:
        texts = [d.message] + [n.message for n in d.notes]
        assert not any(_INTERNAL.search(t) for t in texts), d


def test_one_root_cause_one_diagnostic() -> None:
    source = with_prelude("""
t = ct.zeros((1024,), f32)
p = t.partition((128,))
t.numpy()
t.numpy()
q = t.partition((64,))
""")
    assert [d.code for d in run(source)] == ["CT301"]


def test_unknown_function_silences_later_findings() -> None:
    source = with_prelude("""
x = ct.ones((1024,), f32)
p = ct.zeros((1024,), f32).partition((128,))
op = scale(p, x, 1.0)
register(op)
q = x.partition((128,))
""")
    assert run(source) == []


def test_prelude_alone_is_clean() -> None:
    assert run(PRELUDE) == []
