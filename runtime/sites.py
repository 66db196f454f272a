"""Call sites in user code: where a runtime diagnostic points.

Recording a site is cheap (a code object and an instruction offset); turning it into a Span, or
into the source text of a call's arguments, happens only when a diagnostic is built.
"""

from __future__ import annotations

import ast
import linecache
import os
import sys
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from ..compiler.launch.facts import argument_name
from ..diagnostics.diagnostic import Span


def _internal_dirs() -> tuple[str, ...]:
    import cutile
    import cutile.compiler

    dirs = {os.path.dirname(os.path.realpath(__file__)),
            os.path.dirname(os.path.realpath(cutile.__file__)),
            os.path.dirname(os.path.realpath(cutile.compiler.__file__))}
    return tuple(os.path.join(d, "") for d in dirs)


_internal: tuple[str, ...] | None = None
internal_files: dict[str, bool] = {}  # file name -> inside cutile?


def is_internal(filename: str) -> bool:
    """Whether a file is part of cutile (its frames are not the user's)."""
    known = internal_files.get(filename)
    if known is not None:
        return known
    global _internal
    if _internal is None:
        _internal = _internal_dirs()
    inside = os.path.realpath(filename).startswith(_internal) and not filename.startswith("<")
    internal_files[filename] = inside
    return inside


class Site(tuple[Any, ...]):  # (code, lasti), or with the caller's (code, lasti) after
    """An instruction in user code (a call), resolved to positions on demand: `Site((code,
    lasti))`, only what the frame gives for free (its code object and instruction offset).
    One is made per launch: a tuple subclass builds without running any Python code, and even
    `f_lineno` would cost a line-table walk."""

    __slots__ = ()

    @property
    def code(self) -> CodeType:
        code: CodeType = self[0]
        return code

    @property
    def lasti(self) -> int:
        lasti: int = self[1]
        return lasti

    @property
    def parent(self) -> Site | None:
        """The call this site's function was called from, when recorded (`caller_with_parent`):
        it tells a second call of a helper from the next iteration of a loop."""
        return Site((self[2], self[3])) if len(self) == 4 else None

    def __repr__(self) -> str:
        return f"Site({self.code.co_filename}:{self.lineno})"

    @property
    def path(self) -> str:
        return self.code.co_filename

    @property
    def lineno(self) -> int:
        for start, end, line in self.code.co_lines():
            if start <= self.lasti < end and line is not None:
                return line
        return self.code.co_firstlineno

    def span(self) -> Span:
        pos = _positions(self.code, self.lasti)
        if pos is None:
            line = self.lineno
            return Span(self.path, line, 0, line, 0)
        line, end_line, col, end_col = pos
        lines = linecache.getlines(self.path)
        # co_positions counts UTF-8 bytes; Span counts characters.
        return Span(self.path, line, _char_col(lines, line, col), end_line,
                    _char_col(lines, end_line, end_col))

    def call(self) -> CallText | None:
        """The source text of the call made at this site (receiver and arguments), if readable."""
        return _call_text(self)


class LinkSite(Site):
    """A `.then(fn)` call: the site of the link and of the launch it makes when `fn` is a kernel
    (the launch is written there, its arguments are not: they are the previous op's results, so
    argument texts fall back to parameter names and argument spans to the whole call)."""

    __slots__ = ()

    def call(self) -> CallText | None:
        return None


def caller_site() -> Site:
    """The innermost frame outside cutile: the user's line that called into the runtime."""
    return site_of(sys._getframe(1))


def caller_with_parent() -> Site:
    """`caller_site()`, plus the user's call of the function it is in (for moves: CT301 or
    CT306 when a helper that moves its argument runs twice)."""
    frame = _user_frame(sys._getframe(1))
    back = frame.f_back
    if back is None or is_internal(back.f_code.co_filename):
        return Site((frame.f_code, frame.f_lasti))
    return Site((frame.f_code, frame.f_lasti, back.f_code, back.f_lasti))


def in_loop(site: Site) -> bool:
    """Whether the site's call is inside a `for` or `while` of its own function (error path)."""
    tree = _tree(site.path)
    if tree is None:
        return False
    pos = _positions(site.code, site.lasti)
    if pos is None:
        return False
    line, _, col, _ = pos
    return _loop_around(tree, line, col, False)


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _loop_around(node: ast.AST, line: int, col: int, looping: bool) -> bool:
    """Whether a loop of the innermost function around (line, col) encloses it."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.stmt | ast.expr):
            if _loop_around(child, line, col, looping):
                return True
            continue
        end = (child.end_lineno or child.lineno, child.end_col_offset or 0)
        if not (child.lineno, child.col_offset) <= (line, col) < end:
            continue
        if isinstance(child, _SCOPES):
            return _loop_around(child, line, col, False)  # a function's own loops only
        return _loop_around(child, line, col, looping or isinstance(child, _LOOPS))
    return looping


def caller_of(frame: FrameType) -> Site:
    """`site_of(frame)`, without the walk when `frame` is in a known user file (the common
    case on the launch path: a user calling a kernel or `.then`)."""
    code = frame.f_code
    if internal_files.get(code.co_filename) is False:
        return Site((code, frame.f_lasti))
    return site_of(frame)


def site_of(frame: FrameType) -> Site:
    """The first frame from `frame` outwards that is outside cutile (`frame` itself when it is
    user code: callers that know their caller's frame skip walking their own)."""
    frame = _user_frame(frame)
    return Site((frame.f_code, frame.f_lasti))


def _user_frame(frame: FrameType) -> FrameType:
    """The first frame from `frame` outwards outside cutile (else the outermost)."""
    known = internal_files
    while True:
        code = frame.f_code
        inside = known.get(code.co_filename)
        if inside is None:
            inside = is_internal(code.co_filename)
        back = frame.f_back
        if not inside or back is None:
            return frame
        frame = back


def _positions(code: CodeType, lasti: int) -> tuple[int, int, int, int] | None:
    for i, (line, end_line, col, end_col) in enumerate(code.co_positions()):
        if i == lasti // 2:
            if line is None or end_line is None or col is None or end_col is None:
                return None
            return line, end_line, col, end_col
    return None


@dataclass(frozen=True)
class CallText:
    """A call expression's pieces as written: `recv.method(args, kw=...)`, with their spans."""

    receiver: str | None
    args: tuple[tuple[str, Span], ...]
    keywords: dict[str, tuple[str, Span]]
    names: dict[str, Span]  # the `k` of each `k=v`


def _site_expr(site: Site) -> tuple[str, Span, ast.expr] | None:
    """The expression at a site as written: its text, span and tree."""
    span = site.span()
    lines = linecache.getlines(site.path)
    if not lines or span.line > len(lines) or (span.col == 0 and span.end_col == 0):
        return None
    text = _slice(lines, span)
    try:
        return text, span, ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def _call_text(site: Site) -> CallText | None:
    found = _site_expr(site)
    if found is None or not isinstance(found[2], ast.Call):
        return None
    text, span, call = found
    assert isinstance(call, ast.Call)

    def seg(node: ast.expr) -> tuple[str, Span]:
        return ast.get_source_segment(text, node) or "?", _sub_span(span, text, node)

    receiver = None
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "__call__":  # `t.partition.__call__(s)`
        func = func.value
    if isinstance(func, ast.Attribute):
        receiver = ast.get_source_segment(text, func.value)
    args = tuple(seg(a) for a in call.args)
    keywords = {k.arg: seg(k.value) for k in call.keywords if k.arg is not None}
    names = {k.arg: _name_span(span, text, k) for k in call.keywords if k.arg is not None}
    return CallText(receiver, args, keywords, names)


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    if not 1 <= line <= len(lines):
        return byte_col
    return len(lines[line - 1].encode()[:byte_col].decode(errors="replace"))


def _slice(lines: list[str], span: Span) -> str:
    if span.line == span.end_line:
        return lines[span.line - 1][span.col:span.end_col]
    first = lines[span.line - 1][span.col:]
    middle = lines[span.line:span.end_line - 1]
    last = lines[span.end_line - 1][:span.end_col]
    return "".join([first, *middle, last])


def _name_span(outer: Span, text: str, keyword: ast.keyword) -> Span:
    """The `k` of `k=v` (the checker's span for launch errors about a keyword)."""
    whole = _sub_span(outer, text, keyword)
    return Span(whole.path, whole.line, whole.col, whole.line, whole.col + len(keyword.arg or ""))


def _sub_span(outer: Span, text: str, node: ast.expr | ast.keyword) -> Span:
    # Positions in the parsed snippet count from the call's first character (line 1).
    snippet = text.splitlines(keepends=True)

    def at(lineno: int, byte_col: int) -> tuple[int, int]:
        col = _char_col(snippet, lineno, byte_col)
        return outer.line + lineno - 1, col + (outer.col if lineno == 1 else 0)

    line, col = at(node.lineno, node.col_offset)
    end_line, end_col = at(node.end_lineno or node.lineno, node.end_col_offset or 0)
    return Span(outer.path, line, col, end_line, end_col)


def receiver_name(site: Site | None, fallback: str) -> str:
    """The text before `.method(...)` at a call site (`x` in `x.partition(...)`), or before
    `.name` or `[...]` at an attribute or subscript site (`x` in `x.shape`), else fallback."""
    if site is None:
        return fallback
    call = site.call()
    if call is not None:
        return call.receiver or fallback
    return _operand_text(site) or fallback


def _operand_text(site: Site) -> str | None:
    found = _site_expr(site)
    if found is None or not isinstance(found[2], (ast.Attribute, ast.Subscript)):
        return None
    return ast.get_source_segment(found[0], found[2].value)


def argument_text(site: Site | None, index: int | str, fallback: str) -> str:
    """The source text of a positional (int) or keyword (str) argument at a call site."""
    call = site.call() if site is not None else None
    if call is None:
        return fallback
    if isinstance(index, int):
        return call.args[index][0] if index < len(call.args) else fallback
    return call.keywords[index][0] if index in call.keywords else fallback


def argument_label(site: Site | None, index: int | str, fallback: str) -> str:
    """How launch messages name an argument (`argument_name`, as the checker names it: `z` for
    `z.partition((128,))`)."""
    text = argument_text(site, index, fallback)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):  # text that is no expression on its own: as written
        return text
    source = text.strip()
    return argument_name(tree.body, lambda node: ast.get_source_segment(source, node) or source)


def keyword_span(site: Site, key: str) -> Span:
    """The name of the keyword argument `key` at a call site, else the call."""
    call = site.call()
    if call is not None and key in call.names:
        return call.names[key]
    return site.span()


def argument_span(site: Site, index: int | str) -> Span:
    call = site.call()
    if call is not None and isinstance(index, int) and index < len(call.args):
        return call.args[index][1]
    if call is not None and isinstance(index, str) and index in call.keywords:
        return call.keywords[index][1]
    return site.span()


# (id(code), lasti) of a `.sync()` call -> its code (kept alive, so the id is not reused while
# cached) and (names, target span) when its result is unpacked
_unpacks: dict[tuple[int, int], tuple[CodeType, tuple[int, Span] | None]] = {}
_trees: dict[str, tuple[list[str], ast.Module | None]] = {}  # by file, with linecache's lines


def unpack_target(code: CodeType, lasti: int) -> tuple[int, Span] | None:
    """When the call at (code, lasti) is the whole right side of `a, b, c = ...` (no starred
    name): how many names receive its result, and where they are. Worked out once per call."""
    key = (id(code), lasti)
    entry = _unpacks.get(key)
    if entry is None or entry[0] is not code:
        entry = _unpacks[key] = (code, _find_unpack(code, lasti))
    return entry[1]


def _find_unpack(code: CodeType, lasti: int) -> tuple[int, Span] | None:
    pos = _positions(code, lasti)
    tree = _tree(code.co_filename)
    if pos is None or tree is None:
        return None
    line, end_line, col, end_col = pos
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Tuple | ast.List)):
            continue
        value, target = node.value, node.targets[0]
        if ((value.lineno, value.end_lineno, value.col_offset, value.end_col_offset)
                == (line, end_line, col, end_col)
                and not any(isinstance(e, ast.Starred) for e in target.elts)):
            lines = linecache.getlines(code.co_filename)
            span = Span(code.co_filename, target.lineno, _char_col(lines, target.lineno,
                                                                    target.col_offset),
                        target.end_lineno or target.lineno,
                        _char_col(lines, target.end_lineno or target.lineno,
                                  target.end_col_offset or 0))
            return len(target.elts), span
    return None


def _tree(path: str) -> ast.Module | None:
    """The file's syntax tree, parsed again when linecache's text of it changes."""
    lines = linecache.getlines(path)
    entry = _trees.get(path)
    if entry is None or entry[0] is not lines:
        try:
            tree = ast.parse("".join(lines)) if lines else None
        except SyntaxError:
            tree = None
        entry = _trees[path] = (lines, tree)
    return entry[1]
