"""Mutators over Python source: statements (delete, duplicate, swap), tokens, literals, dtypes,
shapes, inserted constructs, deep nesting, truncation, huge files and odd encodings.

Each mutator takes a random generator and a text and returns a text, or bytes for the encoding
mutators (which model files on disk). Mutators that need an AST fall back to line edits when the
text no longer parses, so mutations compose.
"""

from __future__ import annotations

import ast
import codecs
import io
import random
import re
import tokenize
from collections.abc import Callable

Mutant = str | bytes
HUGE_BYTES = 3_000_000  # a huge module is long, not megabytes per line
Mutator = Callable[[random.Random, str], Mutant]

DTYPES = ("f32", "f16", "bf16", "f64", "tf32", "i8", "i16", "i32", "i64", "u8", "bool_",
          "f8e4m3", "f8e5m2")
DTYPE_NAME = re.compile(r"\b(" + "|".join(DTYPES) + r")\b")
INT_TUPLE = re.compile(r"\(\s*-?\d+\s*(?:,\s*-?\d+\s*)*,?\s*\)")
NUMBERS = ("0", "1", "-1", "2", "3", "7", "127", "128", "255", "256", "1023", "1 << 31",
           "2 ** 63", "2 ** 64", "10 ** 30", "0.5", "1e308", "1e-320", "-0.0", "float('nan')",
           "True", "None", "0x7fffffff", "-129", "65536", "4096")
SHAPES = ("()", "(0,)", "(-1,)", "(3,)", "(1,)", "(128,)", "(64, 64)", "(1 << 40,)",
          "(2 ** 63,)", "(128, 128, 128, 128)", "(1.5,)", "('B',)", "(None,)", "((1,),)",
          "(-128, 64)", "(16, 16, 16)", "(1, 1, 1, 1, 1, 1, 1, 1)")
TOKENS = ("(", ")", "[", "]", "{", "}", ":", ",", ".", "ct.", "lambda: 0", "yield", "await",
          "async", "*", "**", "@", "not", "...", "None", "f'{x}'", "'{}'", "'{0}'", "'{'",
          "global x", "del", "=", ":=", "if", "else", "for", "in", "range", "\\", "#", "'''",
          "\t", "\x0c", "\u00e9", "\U0001f600", "\ud800", "\x00", "0x", "1_", "\n    ")
# Statements inserted into kernel bodies: unsupported constructs, braces in user text, odd calls.
SNIPPETS = (
    "try:\n    pass\nexcept Exception:\n    pass",
    "with open('x') as f:\n    pass",
    "x = [i for i in range(3)]",
    "x = lambda a: a",
    "x = {'{a}': 1}",
    "ct.printf('{} {x} {{', 1)",
    "ct.printf('%d %s {0!r}', 1, 2)",
    "ct.device_assert(True, '{oops}')",
    "global g",
    "nonlocal q",
    "yield 1",
    "del x",
    "import os",
    "class C:\n    pass",
    "async def f():\n    pass",
    "x = f'{1:{2}}'",
    "x = (y := 3)",
    "x: Tile[f32, (128,)] = ct.zeros((128,), f32)",
    "match x:\n    case 1:\n        pass",
    "for i in range(0, 10, 0):\n    pass",
    "for i in range(1 << 62):\n    pass",
    "while True:\n    pass",
    "x = ct.zeros((128,), f32)[0:4]",
    "x = ct.full((128,), 1e400, f32)",
    "x = ct.arange(-1, i32)",
    "x = ct.zeros((3,), f32)",
    "x = ct.zeros((128,), f32).reshape((7,))",
    "x = ct.sum(ct.zeros((128,), f32), 5)",
    "x = ct.mma(ct.zeros((16, 16), f16), ct.zeros((16, 16), f16), ct.zeros((16, 16), f32))",
    "x = ct.permute(ct.zeros((2, 2), f32), (0, 0))",
    "x = ct.cat((ct.zeros((2,), f32), ct.zeros((2,), f16)), 0)",
    "x = ct.where(True, 1, 2.0)",
    "x = ct.block_id(7)",
    "x = ct.exp(1)",
    "x = ct.zeros((128,), f32).astype('f32')",
    "x = ct.zeros(x, f32)",
    "x = ct.undefined_op(1)",
    "return 5",
    "raise ValueError('x')",
    "assert False, '{}'",
    "print('{')",
    "x = ct.zeros((128,), f32) @ ct.zeros((128,), f32)",
    "x = ~ct.zeros((4,), f32)",
    "x = ct.zeros((4,), i32) << 40",
    "x = 1 if ct.block_id(0) else 2",
    "x, *y = 1, 2, 3",
    "x = (1, 2)[5]",
    "x = ct.num_tiles(x, 9)",
)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _stmts(text: str) -> list[ast.stmt]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def _span(node: ast.stmt) -> tuple[int, int]:
    """0-based [first, last) line range of a statement (decorators included)."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first - 1, node.end_lineno or node.lineno


def _random_line_range(rng: random.Random, lines: list[str]) -> tuple[int, int]:
    start = rng.randrange(len(lines))
    return start, min(len(lines), start + rng.randint(1, 3))


def _pick_range(rng: random.Random, text: str) -> tuple[list[str], int, int]:
    lines = _lines(text) or ["\n"]
    stmts = _stmts(text)
    if stmts:
        start, end = _span(rng.choice(stmts))
    else:
        start, end = _random_line_range(rng, lines)
    return lines, start, end


def delete_statement(rng: random.Random, text: str) -> str:
    lines, start, end = _pick_range(rng, text)
    return "".join(lines[:start] + lines[end:])


def duplicate_statement(rng: random.Random, text: str) -> str:
    lines, start, end = _pick_range(rng, text)
    return "".join(lines[:end] + lines[start:end] + lines[end:])


def swap_statements(rng: random.Random, text: str) -> str:
    """Swap two sibling statements (or two line ranges when the text does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return duplicate_statement(rng, text)
    bodies = [body for node in ast.walk(tree) for body in
              (getattr(node, f, None) for f in ("body", "orelse", "finalbody"))
              if isinstance(body, list) and len(body) >= 2]
    if not bodies:
        return delete_statement(rng, text)
    body = rng.choice(bodies)
    i, j = sorted(rng.sample(range(len(body)), 2))
    lines = _lines(text)
    (a0, a1), (b0, b1) = _span(body[i]), _span(body[j])
    if a1 > b0:
        return text
    return "".join(lines[:a0] + lines[b0:b1] + lines[a1:b0] + lines[a0:a1] + lines[b1:])


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    out: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            out.append(tok)
    except (tokenize.TokenError, SyntaxError, IndentationError, UnicodeError):
        pass  # (3.12+ tokenizes in C, which refuses a lone surrogate with UnicodeEncodeError)
    return out


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in _lines(text):
        starts.append(starts[-1] + len(line))
    return starts


def _replace_token(text: str, tok: tokenize.TokenInfo, new: str) -> str:
    starts = _offsets(text)
    a = starts[tok.start[0] - 1] + tok.start[1]
    b = starts[tok.end[0] - 1] + tok.end[1]
    return text[:a] + new + text[b:]


def mutate_literal(rng: random.Random, text: str) -> str:
    nums = [t for t in _tokens(text) if t.type == tokenize.NUMBER]
    if not nums:
        return token_edit(rng, text)
    return _replace_token(text, rng.choice(nums), rng.choice(NUMBERS))


def mutate_dtype(rng: random.Random, text: str) -> str:
    found = list(DTYPE_NAME.finditer(text))
    if not found:
        return mutate_literal(rng, text)
    m = rng.choice(found)
    new = rng.choice((*DTYPES, "float", "int", "np.float32", "'f32'", "None"))
    return text[:m.start()] + new + text[m.end():]


def mutate_shape(rng: random.Random, text: str) -> str:
    found = list(INT_TUPLE.finditer(text))
    if not found:
        return mutate_literal(rng, text)
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(SHAPES) + text[m.end():]


def token_edit(rng: random.Random, text: str) -> str:
    """Delete, duplicate, replace or insert one token; or swap a name for another name."""
    toks = [t for t in _tokens(text) if t.type not in (tokenize.ENDMARKER, tokenize.DEDENT)]
    if not toks:
        return text + rng.choice(TOKENS)
    tok = rng.choice(toks)
    op = rng.randrange(5)
    if op == 0:
        return _replace_token(text, tok, "")
    if op == 1:
        return _replace_token(text, tok, tok.string + " " + tok.string)
    if op == 2:
        names = [t.string for t in toks if t.type == tokenize.NAME]
        return _replace_token(text, tok, rng.choice(names) if names else "x")
    if op == 3:
        return _replace_token(text, tok, rng.choice(TOKENS))
    return _replace_token(text, tok, tok.string + rng.choice(TOKENS))


def _kernel_bodies(text: str) -> list[ast.FunctionDef]:
    return [n for n in _stmts(text) if isinstance(n, ast.FunctionDef) and n.body]


def _insert_in_body(rng: random.Random, text: str, block: str) -> str:
    """Insert `block` (dedented code) before a random statement of a random function body,
    or at the end of the module."""
    funcs = _kernel_bodies(text)
    lines = _lines(text)
    if funcs:
        stmt = rng.choice(rng.choice(funcs).body)
        at, indent = _span(stmt)[0], " " * stmt.col_offset
    else:
        at, indent = len(lines), ""
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new = "".join(indent + line + "\n" for line in block.split("\n"))
    return "".join(lines[:at]) + new + "".join(lines[at:])


def insert_snippet(rng: random.Random, text: str) -> str:
    return _insert_in_body(rng, text, rng.choice(SNIPPETS))


def deep_nesting(rng: random.Random, text: str) -> str:
    """A statement nested from a little to far beyond what Python itself parses."""
    depth = rng.choice((10, 50, 120, 199, 200, 201, 260, 500, 1000, 3000))
    kind = rng.randrange(8)
    if kind == 0:
        block = "x = t" + " + t" * depth
    elif kind == 1:
        block = "x = " + "-" * depth + "t"
    elif kind == 2:
        depth = min(depth, 190)  # Python's own limit is 200 parentheses
        block = "x = " + "ct.exp(" * depth + "t" + ")" * depth
    elif kind == 3:
        block = "x = t" + ".astype(f32)" * depth
    elif kind == 4:
        depth = min(depth, 95)  # Python's own limit is 100 indentation levels
        block = "".join("    " * i + "if x:\n" for i in range(depth)) + "    " * depth + "pass"
    elif kind == 5:
        block = "if x:\n    pass\n" + "elif x:\n    pass\n" * depth
    elif kind == 6:
        block = "x = " + "not " * depth + "t"
    else:
        depth = min(depth, 190)
        block = "x = " + "(" * depth + "1" + ")" * depth
    return _insert_in_body(rng, text, block.rstrip("\n"))


def truncate(rng: random.Random, text: str) -> str:
    return text[:rng.randrange(len(text) + 1)]


def splice(rng: random.Random, text: str, other: str) -> str:
    """Lines of another seed pasted into this one."""
    mine, theirs = _lines(text), _lines(other)
    if not theirs:
        return text
    a, b = _random_line_range(rng, theirs)
    at = rng.randrange(len(mine) + 1)
    return "".join(mine[:at] + theirs[a:b] + mine[at:])


def huge(rng: random.Random, text: str, lines: int) -> str:
    """The text's functions repeated under fresh names until the module has `lines` lines."""
    funcs = [n for n in _stmts(text) if isinstance(n, ast.FunctionDef)]
    if not funcs:
        return text * max(1, lines // max(1, text.count("\n")))
    src = _lines(text)
    out = [text if text.endswith("\n") else text + "\n"]
    count, n = text.count("\n"), 0
    size = len(text)
    while count < lines and size < HUGE_BYTES:
        fn = rng.choice(funcs)
        a, b = _span(fn)
        chunk = "".join(src[a:b]).replace(f"def {fn.name}(", f"def {fn.name}_{n}(", 1)
        out.append("\n\n" + chunk)
        count += chunk.count("\n") + 2
        size += len(chunk)
        n += 1
    return "".join(out)


def encode_oddly(rng: random.Random, text: str) -> bytes:
    """The text as a file whose bytes Python may or may not accept."""
    raw = text.encode("utf-8", errors="surrogatepass")
    kind = rng.randrange(10)
    if kind == 0:
        return b"# -*- coding: " + rng.choice((b"bogus", b"utf-9", b"", b"hex", b"rot13",
                                               b"zlib")) + b" -*-\n" + raw
    if kind == 1:  # an invalid UTF-8 byte somewhere
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80")) + raw[at:]
    if kind == 2:
        return codecs.BOM_UTF8 + b"# coding: latin-1\n" + raw
    if kind == 3:
        return codecs.BOM_UTF8 + raw
    if kind == 4:
        return b"# coding: latin-1\n" + text.encode("latin-1", errors="replace") + b"\n# \xe9\n"
    if kind == 5:
        return b"# coding: utf-16\n" + raw
    if kind == 6:
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + b"\x00" + raw[at:]
    if kind == 7:
        return text.encode("utf-16", errors="surrogatepass")
    if kind == 8:
        return b"#!/usr/bin/env python\n# vim: set fileencoding=" + \
            rng.choice((b"cp1252", b"ascii", b"nope")) + b" :\n" + raw
    return raw.replace(b"\n", rng.choice((b"\r\n", b"\r", b"\n\x0c")))


MUTATORS: tuple[Mutator, ...] = (
    delete_statement, duplicate_statement, swap_statements, mutate_literal, mutate_dtype,
    mutate_shape, token_edit, insert_snippet, deep_nesting, truncate,
)


def mutant(rng: random.Random, seeds: tuple[str, ...], huge_lines: int = 0) -> Mutant:
    """One fuzz case: a seed with one to four mutations; sometimes spliced, huge or re-encoded."""
    text = rng.choice(seeds)
    if rng.random() < 0.1:
        text = splice(rng, text, rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        out = rng.choice(MUTATORS)(rng, text)
        text = out if isinstance(out, str) else out.decode("utf-8", errors="replace")
    if huge_lines and rng.random() < 0.002:
        text = huge(rng, text, huge_lines)
    if rng.random() < 0.08:
        return encode_oddly(rng, text)
    return text
