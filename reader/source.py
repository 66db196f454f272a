"""A parsed module: positions, how it names cutile, its kernels, helpers and literal constants.

The frontend reads Python's own `ast` (with end positions): it parses a 1,000-line module in about
a tenth of the time libcst needs for parsing and positions, which is what keeps the editor and
the checker within their latency budgets. Nothing here imports or runs the user's code.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import re
import sys
import threading
import tokenize
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span
from .constants import ConstValue, bind_constants, constant_value
from .imports import (
    DEFAULT_FINDER,
    PACKAGE,
    ImportReader,
    ModuleFinder,
    Stamp,
    Unread,
    cutile_names,
    is_cutile,
    unbind,
)

# Levels of blocks and expressions one module may nest (each `elif` is one more level, as in
# Python's AST: the host analysis follows that nesting).
# The analyses recurse once per level, a few Python frames each: 200 levels stay well inside
# Python's default recursion limit even below a deep caller (pytest, an editor's thread), and
# no hand-written code comes near it.
MAX_NESTING = 200


@dataclass
class FunctionDef:
    """A `@ct.kernel` or `@ct.function` definition found in the module."""

    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef  # async is rejected (CT107), not ignored
    is_kernel: bool
    options: dict[str, ConstValue] = field(default_factory=dict)  # @ct.kernel(unsafe=True, ...)
    # its key in ModuleInfo.functions: Python's __qualname__ (`make.<locals>.copy` for a kernel
    # defined in a function, `Ops.copy` in a class body), the name itself at module level
    key: str = ""

    def __post_init__(self) -> None:
        self.key = self.key or self.name


@dataclass
class ModuleInfo:
    path: str
    source: str
    tree: ast.Module
    lines: list[str]
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> "cutile[.NAME]"
    functions: dict[str, FunctionDef] = field(default_factory=dict)
    constants: dict[str, ConstValue] = field(default_factory=dict)
    assigned_globals: set[str] = field(default_factory=set)  # every module-level name
    # names from project modules that no static read can follow (reader/imports.py), and the
    # `from m import *` of modules it cannot read, where any unknown name may come from
    unresolved: dict[str, Unread] = field(default_factory=dict)
    star_unread: list[Unread] = field(default_factory=list)
    # names from-imported from modules found nowhere in the project (installed packages, or
    # modules found only through sys.path when the program runs): name -> the module as written
    foreign: dict[str, str] = field(default_factory=dict)
    conditional: set[str] = field(default_factory=set)  # bound inside if/for/try/with
    computed: set[str] = field(default_factory=set)  # assigned what no static read can tell
    public: tuple[str, ...] | None = None  # a literal __all__
    # the plain functions around kernels (kernel factories): (first line, last line, name,
    # the names it binds), made when a kernel reads a name it does not know (frontend)
    enclosing: list[tuple[int, int, str, frozenset[str]]] | None = None
    public_dynamic: bool = False  # an __all__ no static read can tell
    depends: dict[str, Stamp] = field(default_factory=dict, compare=False, repr=False)
    partial: bool = False  # read inside a circular import: not cached
    # what the compiler derives from this parse and keeps as long as it (its kernel units: one
    # per kernel, so every user of one parse shares them); not part of the module's value
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def kernels(self) -> list[FunctionDef]:
        return [f for f in self.functions.values() if f.is_kernel]

    def _col(self, line: int, byte_col: int) -> int:
        """ast columns count UTF-8 bytes; spans count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> Span:
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        col = self._col(line, node.col_offset)  # type: ignore[attr-defined]
        end = self._col(end_line, node.end_col_offset or 0)  # type: ignore[attr-defined]
        return Span(self.path, line, col, end_line, end)

    def keyword_span(self, node: ast.stmt, keyword: str) -> Span:
        """The keyword that starts a statement (`try`, `with`, ...)."""
        s = self.span(node)
        return Span(self.path, s.line, s.col, s.line, s.col + len(keyword))

    def name_span(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Span:
        """The name in `def name(...)`."""
        s = self.span(node)
        text = self.lines[s.line - 1]
        col = text.find(node.name, s.col + 3)
        col = s.col if col < 0 else col
        return Span(self.path, s.line, col, s.line, col + len(node.name))

    def arg_span(self, node: ast.arg) -> Span:
        s = self.span(node)
        return Span(self.path, s.line, s.col, s.line, s.col + len(node.arg))

    def attr_span(self, node: ast.Attribute) -> Span:
        """The attribute name after the dot."""
        s = self.span(node)
        return Span(self.path, s.end_line, s.end_col - len(node.attr), s.end_line, s.end_col)

    def code(self, node: ast.AST) -> str:
        """The source text of a node (the lines are split once, not per call)."""
        s = self.span(node)
        if s.line == s.end_line:
            return self.lines[s.line - 1][s.col:s.end_col]
        first, *middle, last = self.lines[s.line - 1:s.end_line]
        return "\n".join([first[s.col:], *middle, last[:s.end_col]])

    def qualified(self, expr: ast.AST) -> str | None:
        """The full dotted name an expression refers to through the module's imports
        ('cutile.exp' for `ct.exp`, 'math.inf' for `inf`), or None."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def resolve(self, expr: ast.AST) -> str | None:
        """The cutile name an expression refers to ('exp' for `ct.exp`), or None."""
        full = self.qualified(expr)
        if full is None:
            return None
        prefix = PACKAGE + "."
        return full[len(prefix):] if full.startswith(prefix) else None


def dotted_name(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted_name(expr.value)
        return None if base is None else f"{base}.{expr.attr}"
    return None


# The file name Python's parser is given: one no file can have. For a syntax error in a module
# parsed from text, CPython reads the error's line from the file of that name on disk (and counts
# the column in that line's characters), so the real path made a buffer's CT100 depend on the
# saved file.
NO_FILE = ""
_text_lock = threading.RLock()


@contextlib.contextmanager
def text_alone() -> Iterator[None]:
    """Around Python's parser or tokenizer reading a text: its warnings about the text (invalid
    escape sequences) are neither printed nor, under `python -W error`, raised as a SyntaxError,
    so findings depend on the text alone.

    Warning filters are process-wide: readers take a lock so that no two swap them at once
    (parsing and tokenizing hold the GIL anyway, so this serialises nothing that ran in
    parallel). Reentrant: a reader may call another."""
    with _text_lock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def parse_text(source: str) -> ast.Module:
    """`ast.parse` of the text alone (no file read, no warnings: `text_alone`). Raises what
    ast.parse raises."""
    with text_alone():
        return ast.parse(source, filename=NO_FILE)


def parse_expression(source: str) -> ast.expr:
    """One expression's text (a quoted annotation) parsed as `parse_text` parses a module.
    Raises what ast.parse raises."""
    with text_alone():
        return ast.parse(source, filename=NO_FILE, mode="eval").body


def tokenize_text(source: str) -> tuple[list[tokenize.TokenInfo], bool]:
    """The text's tokens (`text_alone`) up to the first error, and whether there was none."""
    out: list[tokenize.TokenInfo] = []
    with text_alone():
        try:
            out.extend(tokenize.generate_tokens(io.StringIO(source).readline))
        except (tokenize.TokenError, SyntaxError, UnicodeError):
            # UnicodeEncodeError: Python 3.12+ tokenizes in C, which refuses text holding a
            # lone surrogate (an editor can send one); 3.11 tokenized it
            return out, False
    return out, True


def parse_module(source: str, path: str, finder: ModuleFinder | None = None
                 ) -> ModuleInfo | Diagnostic:
    """The module, or the one CT100 that says why it cannot be analysed. `finder` locates the
    project modules it imports names from (reader/imports.py)."""
    with analysis_guard():
        try:
            tree = parse_text(source)
        except SyntaxError as err:
            if "\0" in source and "null" in (err.msg or ""):
                return _unparsable_text(source, path, err)
            line = err.lineno or 1
            col = max(0, (err.offset or 1) - 1)
            span = Span(path, line, col, line, col + 1)
            return msg.SYNTAX_ERROR.at(span, detail=_syntax_detail(err))
        except ValueError as err:  # null characters, lone surrogates
            return _unparsable_text(source, path, err)
        except (RecursionError, MemoryError):
            # Python's own parser gives up on deeper nesting still (MemoryError is how its
            # parser reports a stack overflow)
            return nesting_diagnostic(path, *_biggest_statement(source))
        info = ModuleInfo(path, source, tree, source.splitlines())
        too_deep = _too_deep(info)
        if too_deep is not None:
            return too_deep
        _scan_top_level(info, ImportReader(info, finder or DEFAULT_FINDER, parse_module))
    return info


def _syntax_detail(err: SyntaxError) -> str:
    """Python's reason, without its own "invalid syntax" (the message already says it): the
    text it stopped at instead, and its hint ("Perhaps you forgot a comma?") if it has one."""
    reason = err.msg or ""
    if not reason.startswith("invalid syntax"):
        return reason or "cannot parse"
    hint = reason[len("invalid syntax"):].lstrip(". ")
    if hint:
        return hint[0].lower() + hint[1:]
    if err.text is None:
        return "Python cannot parse the code here"
    start, end = (err.offset or 1) - 1, (err.end_offset or 0) - 1
    same_line = err.end_lineno in (None, err.lineno)
    found = err.text[start:end if same_line and end > start else start + 1].strip()
    return f"unexpected '{found}'" if found else "unexpected end of line"


def _unparsable_text(source: str, path: str, err: Exception) -> Diagnostic:
    """CT100 at the character Python's parser refuses before parsing: a NUL, or a lone surrogate
    (text an editor holds can have one; no file decodes to one)."""
    if isinstance(err, UnicodeEncodeError) and 0 <= err.start < len(source):
        at = err.start
        detail = f"the text holds the lone surrogate U+{ord(source[at]):04X}, not a character"
    else:
        at = source.find("\0")
        detail = "the text holds a NUL character (a binary file?)" if at >= 0 else str(err)
    line, col = _line_col(source, at) if at >= 0 else (1, 0)
    return msg.SYNTAX_ERROR.at(Span(path, line, col, line, col + 1), detail=detail)


def _line_col(source: str, at: int) -> tuple[int, int]:
    """Python's line (its line breaks: \\r\\n, \\r, \\n) and column of a text offset."""
    lines = _LINE_BREAK.split(source[:at])
    return len(lines), len(lines[-1])


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ModuleCache:
    """One parse per document version: the last `size` (path, text) pairs and their modules.

    The language server's diagnostics, hovers, inlay hints and quick fixes of one version of a
    document, and the kernels of one file in a program, share one `ModuleInfo` (it is not
    changed after parsing, so threads may share it). Keyed by the text itself: an edit is a new
    version, and a version that restores earlier text finds that text's parse."""

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[str, str], ModuleInfo | Diagnostic] = OrderedDict()
        self._lock = threading.Lock()
        self.parses = 0  # how many parses it did (tests count them)

    def read(self, source: str, path: str) -> ModuleInfo | Diagnostic:
        key = (path, source)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
        # a module it imports names from changed: read it again
        if found is not None and (isinstance(found, Diagnostic)
                                  or DEFAULT_FINDER.fresh(found.depends)):
            return found
        info = parse_module(source, path)  # outside the lock: other documents need not wait
        with self._lock:
            self.parses += 1
            self._entries[key] = info
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return info

    def forget(self, path: str) -> None:
        """Drop every version of a file (the editor closed it)."""
        with self._lock:
            for key in [k for k in self._entries if k[0] == path]:
                del self._entries[key]


MODULES = ModuleCache()


def read_module(source: str, path: str) -> ModuleInfo | Diagnostic:
    """`parse_module` through the shared cache (`MODULES`): for callers that may read the same
    text again (the language server, the JIT's kernels of one file). One-shot readers of many
    files (the command-line checker) call parse_module, so their trees die with the check."""
    return MODULES.read(source, path)


_guard_lock = threading.Lock()
_guards = 0
_gc_was_enabled = False
_old_recursion_limit = 0
# Python frames an analysis may stack: inlined helpers and nesting up to MAX_NESTING take a few
# thousand at most (about five per level of a nested call). Python 3.11 keeps pure-Python calls
# off the C stack, so this costs no C stack; a deeper case still fails cleanly (CT100).
RECURSION_LIMIT = 20_000


@contextlib.contextmanager
def analysis_guard() -> Iterator[None]:
    """Parse and analyse a module with cyclic garbage collection paused and room for deep
    recursion.

    A big module's AST is millions of objects, and every automatic full collection walks all
    of them: with collection on, parsing a 100,000-line file took 3x longer than without, and the
    whole check grew faster than the file. The ASTs hold no cycles, and what an analysis leaves
    behind is collected once collection resumes. Counted, so that analyses on several threads
    (the language server) restore both settings only when the last one ends.
    """
    global _guards, _gc_was_enabled, _old_recursion_limit
    with _guard_lock:
        if _guards == 0:
            _gc_was_enabled = gc.isenabled()
            _old_recursion_limit = sys.getrecursionlimit()
            gc.disable()
            sys.setrecursionlimit(max(_old_recursion_limit, RECURSION_LIMIT))
        _guards += 1
    try:
        yield
    finally:
        with _guard_lock:
            _guards -= 1
            if _guards == 0:
                sys.setrecursionlimit(_old_recursion_limit)
                if _gc_was_enabled:
                    gc.enable()


def nesting_diagnostic(path: str, line: int, text: str) -> Diagnostic:
    """CT100 for a statement nested deeper than MAX_NESTING, at its first line."""
    return msg.NESTED_TOO_DEEP.at(Span(path, line, 0, line, len(text)), limit=MAX_NESTING)


def _too_deep(info: ModuleInfo) -> Diagnostic | None:
    """The first statement holding nesting deeper than MAX_NESTING, as a CT100; else None.

    Iterative, and it skips every one-line node too short to be that deep (each level takes at
    least a character of source, two in the worst case), so it costs little on big files."""
    stack: list[tuple[ast.AST, int, ast.AST]] = [(info.tree, 0, info.tree)]
    while stack:
        node, depth, stmt = stack.pop()
        if depth > MAX_NESTING:
            line = getattr(stmt, "lineno", 1)
            text = info.lines[line - 1] if 0 < line <= len(info.lines) else ""
            return nesting_diagnostic(info.path, line, text)
        budget = MAX_NESTING - depth
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not _shallow(child, budget):
                stack.append((child, depth + 1, child if isinstance(child, ast.stmt) else stmt))
    return None


def _shallow(node: ast.AST, budget: int) -> bool:
    line = getattr(node, "lineno", None)
    if line is None or line != getattr(node, "end_lineno", None):
        return False  # several lines (or no position): look inside
    width = getattr(node, "end_col_offset", 0) - getattr(node, "col_offset", 0)
    return 2 * width + 4 < budget


def _biggest_statement(source: str) -> tuple[int, str]:
    """The first line of the top-level statement with the most tokens (where a module too deep
    for Python's parser most likely nests), and that line's text."""
    counts: dict[int, int] = {}
    start, indent, at_start = 1, 0, True
    for tok in tokenize_text(source)[0]:
        if tok.type == tokenize.INDENT:
            indent += 1
        elif tok.type == tokenize.DEDENT:
            indent -= 1
        elif tok.type == tokenize.NEWLINE:
            at_start = True
            continue
        if at_start and indent == 0 and tok.type not in (tokenize.NL, tokenize.COMMENT):
            start, at_start = tok.start[0], False
        counts[start] = counts.get(start, 0) + 1
    line = max(counts, key=lambda k: counts[k]) if counts else 1
    lines = source.splitlines()
    return line, lines[line - 1] if 0 < line <= len(lines) else ""


def _scan_top_level(info: ModuleInfo, imports: ImportReader) -> None:
    counts: dict[str, int] = {}
    assigned: set[str] = set()
    literal: dict[str, ConstValue] = {}
    renamed: set[str] = set()  # names bound to one of cutile's by assignment (`kern = ct.kernel`)

    def bump(name: str, by: int = 1) -> None:
        counts[name] = counts.get(name, 0) + by

    for stmt in info.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                info.aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
                unbind(info, local)
                bump(local)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name == "*":
                    if stmt.module == PACKAGE and stmt.level == 0:  # every public name
                        for name in cutile_names():
                            info.aliases[name] = f"{PACKAGE}.{name}"
                            unbind(info, name)
                            bump(name)
                    else:  # a project module's names, as it binds them
                        for name in imports.star(stmt):
                            bump(name)
                    continue
                local = alias.asname or alias.name
                if stmt.module and stmt.level == 0:
                    info.aliases[local] = f"{stmt.module}.{alias.name}"
                if is_cutile(stmt.module, stmt.level):
                    unbind(info, local)
                bump(local)
            imports.names(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            _alias_assignment(info, targets, stmt.value, renamed)
            for tgt in targets:
                _read_all(info, tgt, stmt.value)
                for name in target_names(tgt):
                    unbind(info, name)
                    assigned.add(name)
                    bump(name)
                if stmt.value is not None:
                    bind_constants(tgt, constant_value(stmt.value, literal, info.qualified),
                                   literal)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bump(stmt.name)
            unbind(info, stmt.name)
            for node, key in _definitions(stmt, stmt.name):
                _register_function(info, node, key)
        else:
            # Names bound by augmented assignment or inside if/for/with/try are never constants.
            for name in _bound_names(stmt):
                bump(name, 2)
                info.conditional.add(name)
    info.assigned_globals = set(counts)
    for name in renamed:  # bound more than once: what it names depends on where it is used
        if counts.get(name) != 1 or name in info.conditional:
            info.aliases.pop(name, None)
    if "__all__" in info.conditional:  # `__all__ += [...]`, or set in a block
        info.public, info.public_dynamic = None, True
    info.constants = {n: v for n, v in literal.items() if counts.get(n) == 1}
    info.computed = assigned - set(info.constants)


def _read_all(info: ModuleInfo, target: ast.expr, value: ast.expr | None) -> None:
    """`__all__ = [...]`: the names `from module import *` binds, when a literal lists them."""
    if not (isinstance(target, ast.Name) and target.id == "__all__"):
        return
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
    names = [e.value for e in items or () if isinstance(e, ast.Constant)
             and isinstance(e.value, str)]
    if items is None or len(names) != len(items):
        info.public, info.public_dynamic = None, True
    else:
        info.public = tuple(names)


def literal_value(expr: ast.AST) -> ConstValue | None:
    """The value of a literal expression (numbers, bools, strings, tuples of those), or None."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (bool, int, float, str)):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = literal_value(expr.operand)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return None
    if isinstance(expr, ast.Tuple):
        items = [literal_value(e) for e in expr.elts]
        if any(i is None for i in items):
            return None
        return tuple(i for i in items if i is not None)
    return None


def target_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in target_names(e)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []


def _bound_names(stmt: ast.stmt) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):  # `try: from cutile import Mut`
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return names


def definition(info: ModuleInfo, key: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose __qualname__ is `key`, decorated or not, or None."""
    for stmt in info.tree.body:
        name = getattr(stmt, "name", None)
        if name is not None and (key == name or key.startswith(name + ".")):
            for node, found in _definitions(stmt, name):
                if found == key:
                    return node
    return None


def _definitions(node: ast.stmt, key: str
                 ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Each function defined by `node` or inside it (a kernel made in a factory function or a
    class body), with its __qualname__: the name at module level, `outer.<locals>.name` in a
    function, `Cls.name` in a class."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node, key
        inner = f"{key}.<locals>."
    elif isinstance(node, ast.ClassDef):
        inner = f"{key}."
    else:
        return
    for stmt in _nested_statements(node.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _definitions(stmt, inner + stmt.name)


def _nested_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a scope, through if/for/while/with/try blocks (which make none)."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field_name in ("body", "orelse", "finalbody"):
                yield from _nested_statements(getattr(stmt, field_name, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _nested_statements(handler.body)


def _alias_assignment(info: ModuleInfo, targets: Sequence[ast.expr], value: ast.expr | None,
                      renamed: set[str]) -> None:
    """`kern = ct.kernel` (one name, one of cutile's objects): the name is that object, as an
    import would make it (decorators read at their `def`, as Python applies them)."""
    if len(targets) != 1 or not isinstance(targets[0], ast.Name) or value is None:
        return
    full = info.qualified(value)
    if full is not None and full.split(".")[0] == PACKAGE:
        info.aliases[targets[0].id] = full
        renamed.add(targets[0].id)
    elif targets[0].id in renamed:
        info.aliases.pop(targets[0].id, None)


def _register_function(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                       key: str) -> None:
    for deco in node.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        target = info.resolve(call.func if call else deco)
        if target not in ("kernel", "function"):
            continue
        options: dict[str, ConstValue] = {}
        for kw in call.keywords if call else ():
            value = literal_value(kw.value)
            if kw.arg is not None and value is not None:
                options[kw.arg] = value
        info.functions[key] = FunctionDef(node.name, node, target == "kernel", options, key)
        return
