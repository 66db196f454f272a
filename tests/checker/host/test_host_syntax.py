"""The host analysis over Python's ast: every statement and expression form it walks, spans of
keywords, parentheses and non-ASCII lines, and names that are not variables (attributes,
keyword arguments) never counting as uses."""

from __future__ import annotations

import ast
from collections.abc import Sequence

import pytest
from hostcheck import PRELUDE, expected, found, run, with_prelude

from cutile.checker.host.core import Evaluator
from cutile.checker.host.values import State
from cutile.diagnostics.diagnostic import Diagnostic

SNIPPETS = {
    "try-except-finally": """
def f():
    t = ct.zeros((1024,), f32)
    try:
        p = t.partition((128,))
    except ValueError as err:
        print(err)
    else:
        pass
    finally:
        print("done")
    t.numpy()  # E: CT301
""",
    "try-star": """
def f():
    t = ct.zeros((1024,), f32)
    try:
        p = t.partition((128,))
    except* ValueError:
        pass
    t.numpy()  # E: CT301
""",
    "handler-name-rebinds": """
def f():
    t = ct.zeros((1024,), f32)
    p = t.partition((128,))
    try:
        pass
    except ValueError as t:
        print(t)
""",
    "match-capture-rebinds": """
def f(cmd):
    t = ct.zeros((1024,), f32)
    p = t.partition((128,))
    match cmd:
        case [t, *rest]:
            print(t, rest)
        case {"k": 1, **t}:
            print(t)
""",
    "match-move-in-one-case": """
def f(cmd):
    t = ct.zeros((1024,), f32)
    match cmd:
        case 1 if cmd:
            p = t.partition((128,))
        case _:
            pass
    t.numpy()  # E: CT301
""",
    "with-and-async-with": """
async def f(lock):
    x = ct.ones((1024,), f32)
    async with lock as (a, b):
        with open("log") as fh:
            p = ct.zeros((1024,), f32).partition((128,))
            scale(p, x, 1.0)  # E: CT305
""",
    "async-for-moves-in-loop": """
async def f(stream):
    x = ct.ones((1024,), f32)
    p = ct.zeros((1024,), f32).partition((128,))
    async for _ in stream:
        await scale(p, x, 1.0)  # E: CT306
""",
    "walrus-binds": """
def f():
    if (t := ct.zeros((1024,), f32)) is not None:
        p = t.partition((128,))
        print(t)  # E: CT301
""",
    "if-expression-joins": """
def f(c):
    t = ct.zeros((1024,), f32)
    u = t.partition((128,)) if c else None
    t.numpy()  # E: CT301
""",
    "elif-chain": """
def f(a, b):
    t = ct.zeros((1024,), f32)
    if a:
        pass
    elif b:
        p = t.partition((128,))
    else:
        pass
    t.numpy()  # E: CT301
""",
    "while-true-break": """
def f():
    x = ct.ones((1024,), f32)
    while True:
        p = x.partition((128,))
        break
    x.numpy()  # E: CT301
""",
    "attribute-target-is-no-use": """
def f(obj):
    t = ct.zeros((1024,), f32)
    p = t.partition((128,))
    obj.t = 1
    del obj.t
    return p
""",
    "attribute-in-lambda-is-no-capture": """
def f():
    t = ct.zeros((1024,), f32)
    cb = lambda r: r.t
    p = t.partition((128,))
    t.numpy()  # E: CT301
    return p, cb
""",
    "keyword-in-lambda-is-no-capture": """
def f():
    t = ct.zeros((1024,), f32)
    cb = lambda: dict(t=1)
    p = t.partition((128,))
    t.numpy()  # E: CT301
    return p, cb
""",
    "lambda-capture-escapes": """
def f():
    t = ct.zeros((1024,), f32)
    cb = lambda: t
    p = t.partition((128,))
    t.numpy()
    return p, cb
""",
    "comprehension-capture-escapes": """
def f():
    t = ct.zeros((1024,), f32)
    ts = [t for _ in range(2)]
    p = t.partition((128,))
    t.numpy()
    return p, ts
""",
    "nested-def-default-escapes": """
def f():
    t = ct.zeros((1024,), f32)
    def g(u=t):
        return u
    p = t.partition((128,))
    t.numpy()
    return p, g
""",
    "global-escapes": """
def f():
    global t
    t = ct.zeros((1024,), f32)
    p = t.partition((128,))
    t.numpy()
    return p
""",
    "subscript-slice-and-fstring-read": """
def f(xs):
    x = ct.ones((1024,), f32)
    op = scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0)
    print(f"{xs[1:2, ::3]!r:>10}")
    op.sync()
""",
    "starred-unpack": """
def f():
    x = ct.ones((1024,), f32)
    p = x.partition((128,))
    a, *rest = (p, x)  # E: CT301
""",
    "aug-assign-and-del": """
def f():
    t = ct.zeros((1024,), f32)
    p = t.partition((128,))
    t += 1  # E: CT301
    del t
    t = ct.ones((1024,), f32)
    t.numpy()
""",
    "dict-keys-and-values-in-order": """
def f():
    t = ct.zeros((1024,), f32)
    d = {"p": t.partition((128,)), "t": t}  # E: CT301
""",
    "keyword-before-star-args": """
def f(rest):
    x = ct.ones((1024,), f32)
    p = ct.zeros((1024,), f32).partition((128,))
    print(sep=p.unpartition(), *rest)
    p.numpy()  # E: CT301
""",
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_construct(name: str) -> None:
    source = with_prelude(SNIPPETS[name])
    diags = run(source)
    assert found(diags) == expected(source), "\n".join(
        f"{d.span}: {d.code} {d.message}" for d in diags)


def _one(snippet: str) -> tuple[Diagnostic, list[str]]:
    source = with_prelude(snippet)
    (diag,) = run(source)
    return diag, source.splitlines()


def test_keyword_span_is_the_keyword_name() -> None:
    diag, lines = _one("""
x = ct.ones((1024,), f32)
scale(ct.zeros((1024,), f32).partition((128,)), x, alpha=1.0, beta=2).sync()
""")
    assert diag.code == "CT406"
    line = lines[diag.span.line - 1]
    assert line[diag.span.col:diag.span.end_col] == "beta"


def test_parenthesized_use_underlines_the_name() -> None:
    diag, lines = _one("""
t = ct.zeros((1024,), f32)
p = (t.partition((128,)))
print((t))
""")
    assert diag.code == "CT301"
    assert lines[diag.span.line - 1][diag.span.col:diag.span.end_col] == "t"
    assert diag.notes[0].span is not None
    note = diag.notes[0].span
    assert lines[note.line - 1][note.col:note.end_col] == "t.partition((128,))"


def test_columns_count_characters_after_non_ascii_text() -> None:
    diag, lines = _one("""
café = ct.zeros((1024,), f32)
p = café.partition((128,)); print("é", café)
""")
    line = lines[diag.span.line - 1]
    assert (diag.code, line[diag.span.col:diag.span.end_col]) == ("CT301", "café")
    assert diag.span.col == line.rindex("café")


def test_an_unnamed_value_is_named_by_its_source_text() -> None:
    diag, lines = _one("""
x = ct.ones((1024,), f32)
pair = (x, x)
op = scale(ct.zeros((1024,), f32).partition((128,)), x, 1.0)
pair[ 0 ].partition((128,))
op.sync()
""")
    assert diag.code == "CT303" and "'pair[ 0 ]'" in diag.message
    assert lines[diag.span.line - 1][diag.span.col:diag.span.end_col] == "pair[ 0 ]"


def test_internal_error_in_one_scope_is_ct999_at_its_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    source = (PRELUDE + "\n\ndef broken():\n    pass\n\n\n"
              "def fine(x):\n    t = x.partition((128,))\n")
    real = Evaluator.run_block

    def flaky(ctx: Evaluator, st: State | None, body: Sequence[ast.stmt]) -> State | None:
        if body and getattr(body[0], "lineno", 0) == source.splitlines().index("    pass") + 1:
            raise KeyError("boom")
        return real(ctx, st, body)

    monkeypatch.setattr(Evaluator, "run_block", flaky)
    (diag,) = run(source)
    line = source.splitlines()[diag.span.line - 1]
    assert diag.code == "CT999" and "KeyError" in diag.message
    assert line[diag.span.col:diag.span.end_col] == "broken"
