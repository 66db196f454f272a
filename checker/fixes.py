"""Fixes that rewrite code: `.astype(...)` for a dtype mix (CT202) and rebinding from `.sync()`
(or `await`) after a use of a value moved into a launch (CT301). The language server offers them
as code actions and `cutile-check --fix` applies them (`checker/autofix.py`): one set of fixes,
pure functions of the source text and a diagnostic.

Which code gets which fix is the registry's (`Code.fix`); `quick_fixes` maps each kind to its
function once. Fixes read the values the message was built from (`Diagnostic.fields`), never its
text. Each returns no fix when the code around the diagnostic is not the shape it understands.
Each fix says whether the command line may apply it (`Applicability`): safe when the program
does what it meant minus the error, unsafe when it changes what runs (a wait, a conversion).
"""

from __future__ import annotations

import re
import symtable
from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from ..compiler.dtypes import BY_NAME
from ..diagnostics.codes import QuickFix
from ..diagnostics.diagnostic import Diagnostic, Span
from ..diagnostics.messages import (
    DTYPE_MIX,
    USE_AFTER_MOVE,
    USE_AFTER_MOVE_LAUNCH,
    WHERE_DTYPES,
)
from ..reader.source import read_module
from .edits import Applicability, Edit, Fix
from .regions import Outline, Parsed, covers, outline, parse, parse_region, physical_lines, size

# Operands that take `.astype(...)` without parentheses.
_PRIMARY = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


Aliases = Mapping[str, str]  # the module's local name -> "cutile[.NAME]"


def quick_fixes(source: str, diag: Diagnostic, where: Outline | None = None,
                aliases: Aliases | None = None) -> list[Fix]:
    """The rewriting fixes the registry declares for the diagnostic's code. `where` and
    `aliases` are the document's outline and cutile aliases when the caller keeps them."""
    kind = diag.entry.fix
    return [] if kind is None else FIXES[kind](source, diag, where, aliases)


def astype_fixes(source: str, diag: Diagnostic, where: Outline | None = None,
                 aliases: Aliases | None = None) -> list[Fix]:
    """Convert either operand of a dtype mix to the other's dtype. The operands are found by
    their spans: the finding's own (the operand of dtype `b`) and its note's ("this is a f32
    tile", dtype `a`), so any binary operation, comparison, augmented assignment, elementwise
    call or conditional expression gets them; without a note, the smallest binary operation
    or where() call around the finding."""
    mix, branches = DTYPE_MIX.made(diag), WHERE_DTYPES.made(diag)
    if not (mix or branches):
        return []
    first_span = next((n.span for n in diag.notes if n.span is not None
                       and n.span.path == diag.span.path), None) if mix else None
    lines = [diag.span.line, diag.span.end_line]
    lines += [first_span.line, first_span.end_line] if first_span is not None else []
    parsed = parse_region(source, min(lines), max(lines), where)
    if parsed is None:
        return []
    left, right = str(diag.fields["a"]), str(diag.fields["b"])
    operands = _located_operands(parsed, diag.span, first_span, branches) or _operands(
        parsed, diag.span)
    if operands is None:
        return []
    spell = _dtype_spelling(source, diag.span.path, aliases)
    (first, second), (first_label, second_label) = operands
    targets = _assigned(parsed)
    fixes = [
        _conversion(f"Convert the {second_label} to {left} with .astype({spell(left)})",
                    None if second in targets else _astype(parsed, second, spell(left)),
                    widens(right, left)),
        _conversion(f"Convert the {first_label} to {right} with .astype({spell(right)})",
                    None if first in targets else _astype(parsed, first, spell(right)),
                    widens(left, right)),
    ]
    return [f for f in fixes if f is not None]


def _located_operands(parsed: Parsed, span: Span, first_span: Span | None,
                      branches: bool) -> _Pair | None:
    """The operand at `span` and the one it meets: at `first_span`, or the other branch of
    the where() call or conditional expression it is the second branch of."""
    second = _expression_at(parsed, span)
    if second is None:
        return None
    parents = parsed.parents
    parent = parents.get(second)
    if branches:
        if isinstance(parent, cst.IfExp) and parent.orelse is second:
            return (parent.body, second), ("first branch", "second branch")
        call = parents.get(parent) if isinstance(parent, cst.Arg) else None
        if (isinstance(call, cst.Call) and _called_name(call) == "where" and len(call.args) == 3
                and call.args[2].value is second):
            return (call.args[1].value, second), ("first branch", "second branch")
        return None
    if isinstance(second, cst.Tuple | cst.List) and len(second.elements) == 2:  # ct.cat((a, b))
        return ((second.elements[0].value, second.elements[1].value),
                ("first tile", "second tile"))
    first = _expression_at(parsed, first_span) if first_span is not None else None
    if first is None:
        return None
    if isinstance(parent, cst.BinaryOperation) and (parent.left, parent.right) == (first, second):
        return (first, second), ("left operand", "right operand")
    return (first, second), (_quoted(parsed, first), _quoted(parsed, second))


def _expression_at(parsed: Parsed, span: Span) -> cst.BaseExpression | None:
    """The outermost expression whose text is exactly `span`."""
    found = [n for n in parsed.positions
             if isinstance(n, cst.BaseExpression) and _exactly(parsed, n, span)]
    if not found:
        return None
    parents = parsed.parents
    return next((n for n in found if parents.get(n) not in found), None)


def _exactly(parsed: Parsed, node: cst.CSTNode, span: Span) -> bool:
    """Whether the node's text is `span`, with or without its own parentheses (Python's spans
    of a parenthesized tuple hold them, libcst's ranges do not)."""
    r = parsed.range(node)
    wrapped = len(getattr(node, "lpar", ()))
    return any((r.start.line, r.start.column - k, r.end.line, r.end.column + k)
               == (span.line, span.col, span.end_line, span.end_col) for k in {0, wrapped})


def _quoted(parsed: Parsed, node: cst.CSTNode) -> str:
    text = " ".join(parsed.code(node).split())
    return f"operand `{text if len(text) <= 30 else text[:27] + '...'}`"


def _assigned(parsed: Parsed) -> set[cst.CSTNode]:
    """Assignment targets: `a += b` can convert `b`, never `a`."""
    out: set[cst.CSTNode] = set()
    for node in parsed.positions:
        if isinstance(node, cst.AugAssign | cst.AssignTarget | cst.AnnAssign):
            out.add(node.target)
    return out


def _conversion(title: str, edits: tuple[Edit, ...] | None, exact: bool) -> Fix | None:
    """The conversion that loses nothing is the one `--unsafe-fixes` applies (unsafe: the
    expression then computes in the wider dtype); the other stays an editor choice."""
    if edits is None:
        return None
    return Fix(title, edits, preferred=exact,
               applicability=Applicability.UNSAFE if exact else Applicability.DISPLAY)


# Exponent and mantissa bits of each float format: a float converts exactly to another whose
# exponent and mantissa are both at least as wide.
_FLOAT_BITS = {"f4e2m1": (2, 1), "f8e4m3": (4, 3), "f8e5m2": (5, 2), "f8e8m0": (8, 0),
               "f16": (5, 10), "bf16": (8, 7), "tf32": (8, 10), "f32": (8, 23), "f64": (11, 52)}


def widens(source: str, target: str) -> bool:
    """Whether every value of dtype `source` is exactly a value of dtype `target`."""
    a, b = BY_NAME.get(source), BY_NAME.get(target)
    if a is None or b is None or a == b or b.is_bool:
        return False
    if a.is_bool:
        return True
    if b.is_float:
        exponent, mantissa = _FLOAT_BITS.get(b.name, (0, 0))
        if a.is_float:
            ea, ma = _FLOAT_BITS.get(a.name, (99, 99))
            return ea <= exponent and ma <= mantissa
        magnitude = a.bits - (1 if a.kind == "int" else 0)
        return magnitude <= mantissa + 1
    if a.is_float:
        return False
    if a.kind == b.kind:
        return b.bits > a.bits
    return a.kind == "uint" and b.kind == "int" and b.bits > a.bits


_Pair = tuple[tuple[cst.BaseExpression, cst.BaseExpression], tuple[str, str]]


def _operands(parsed: Parsed, span: Span) -> _Pair | None:
    """The two operands of the smallest binary operation or where() call covering `span`."""
    best: _Pair | None = None
    best_size: tuple[int, int] | None = None
    for node in parsed.positions:
        where = parsed.range(node)
        pair: _Pair | None = None
        if isinstance(node, cst.BinaryOperation):
            pair = ((node.left, node.right), ("left operand", "right operand"))
        elif isinstance(node, cst.Call) and _called_name(node) == "where" and len(node.args) == 3:
            pair = ((node.args[1].value, node.args[2].value), ("first branch", "second branch"))
        if pair is not None and covers(where, span) and (best_size is None
                                                         or size(where) < best_size):
            best, best_size = pair, size(where)
    return best


def _called_name(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _astype(parsed: Parsed, node: cst.BaseExpression, dtype: str) -> tuple[Edit, ...] | None:
    where = parsed.range(node)
    call = f".astype({dtype})"
    if node.lpar:  # ranges stop inside the parentheses: the call goes after the last one
        end = _after_parentheses(parsed, where.end.line, where.end.column, len(node.rpar))
        return None if end is None else (Edit.insert(where.end.line, end, call),)
    if isinstance(node, _PRIMARY):
        return (Edit.insert(where.end.line, where.end.column, call),)
    return (Edit.insert(where.start.line, where.start.column, "("),
            Edit.insert(where.end.line, where.end.column, ")" + call))


def _after_parentheses(parsed: Parsed, line: int, col: int, count: int) -> int | None:
    """The column after `count` closing parentheses from `col` on (spaces between); None when
    they do not close on that line."""
    lines = physical_lines(parsed.module.code)  # Python's line breaks only
    index = line - parsed.first_line
    text = lines[index] if 0 <= index < len(lines) else ""
    for _ in range(count):
        while col < len(text) and text[col] in " \t":
            col += 1
        if col >= len(text) or text[col] != ")":
            return None
        col += 1
    return col


def module_aliases(source: str, path: str) -> dict[str, str]:
    info = read_module(source, path)
    return {} if isinstance(info, Diagnostic) else info.aliases


def _dtype_spelling(source: str, path: str, aliases: Aliases | None) -> _Spelling:
    """How this module writes a cutile dtype: `f32` if imported by name, else `ct.f32`."""
    aliases = module_aliases(source, path) if aliases is None else aliases
    module_alias = next((name for name, target in aliases.items() if target == "cutile"), None)
    return _Spelling(aliases, module_alias)


class _Spelling:
    def __init__(self, aliases: Aliases, module_alias: str | None) -> None:
        self._by_target = {target: name for name, target in aliases.items()}
        self._module_alias = module_alias

    def __call__(self, dtype: str) -> str:
        local = self._by_target.get(f"cutile.{dtype}")
        if local is not None:
            return local
        return f"{self._module_alias or 'cutile'}.{dtype}"


def sync_fixes(source: str, diag: Diagnostic, where: Outline | None = None,
               aliases: Aliases | None = None) -> list[Fix]:
    """For a use of a value moved into a launch: bind the launch's results to its argument names
    where the code already waits for it (safe: `z, x = add(z, x).sync()`, `z, x = await op`), or
    add the wait (unsafe: it runs the launch and blocks there) before the use."""
    name = diag.fields.get("name")
    sites = [n.span for n in diag.notes if n.span is not None and n.span.path == diag.span.path]
    if not isinstance(name, str) or not sites:
        return []
    where = where or outline(source)
    if where is None:
        return []
    pending = USE_AFTER_MOVE_LAUNCH.made(diag)
    into_launch = USE_AFTER_MOVE.made(diag) and str(diag.fields.get("how", "")).startswith(
        "into a launch")  # not a move by .partition() or reshape(): those have no results
    if not (pending or into_launch):
        return []
    fixes: list[Fix] = []
    for site in sites:
        first, last = min(site.line, diag.span.line), max(site.end_line, diag.span.end_line)
        parsed = parse_region(source, first, last, where)
        fix = None if parsed is None else _Rebind(parsed, where, site, diag.span, name,
                                                  pending).fix()
        if fix is not None and fix not in fixes:
            fixes.append(fix)
    return fixes


class _Rebind:
    """The launch whose argument was moved at `site`, the statement around it and the rebinding
    that gives `name` back before `use`."""

    def __init__(self, parsed: Parsed, where: Outline, site: Span, use: Span, name: str,
                 pending: bool) -> None:
        self.parsed, self.where, self.site, self.use = parsed, where, site, use
        self.name, self.pending = name, pending
        self.parents = parsed.parents

    def fix(self) -> Fix | None:
        launch = self._launch()
        stmt = None if launch is None else self._enclosing(launch, (cst.Expr, cst.Assign))
        if launch is None or stmt is None:
            return None
        scope = self._enclosing(launch, (cst.FunctionDef,))
        if scope is not None and not covers(self.parsed.range(scope), self.use):
            return None  # moved inside a helper: rebinding there leaves the caller's name moved
        targets = self._targets(launch, stmt)
        if targets is None or self.name not in targets:
            return None
        lhs = f"({targets[0]},)" if len(targets) == 1 else ", ".join(targets)
        if isinstance(stmt, cst.Expr):
            return self._rebind_statement(stmt, launch, lhs)
        assert isinstance(stmt, cst.Assign)
        return self._rebind_named(stmt, launch, lhs)

    def _launch(self) -> cst.Call | None:
        """The innermost call that takes the moved name as a positional argument."""
        best: cst.Call | None = None
        for node in self.parsed.nodes(cst.Call):
            assert isinstance(node, cst.Call)
            takes = any(isinstance(a.value, cst.Name) and a.keyword is None
                        and covers(self.parsed.range(a.value), self.site) for a in node.args)
            if takes and (best is None
                          or size(self.parsed.range(node)) < size(self.parsed.range(best))):
                best = node
        return best

    def _enclosing(self, node: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...]
                   ) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, kinds):
            current = self.parents.get(current)
        return current

    def _targets(self, launch: cst.Call, stmt: cst.CSTNode) -> list[str] | None:
        """What `.sync()` returns, named: the positional arguments that are names this scope may
        bind (rebinding a global inside a function would make it local there: `_`)."""
        if any(a.star for a in launch.args):
            return None  # how many values come back is not known here
        names = [a.value.value if isinstance(a.value, cst.Name) else "_"
                 for a in launch.args if a.keyword is None]
        bindable = self._bindable(stmt, {n for n in names if n != "_"})
        if bindable is None:
            return None
        return [n if n in bindable else "_" for n in names]

    def _bindable(self, stmt: cst.CSTNode, names: set[str]) -> set[str] | None:
        scope = self._enclosing(stmt, (cst.FunctionDef, cst.ClassDef))
        if scope is None:
            return names  # module level: every name is the module's own
        if not isinstance(scope, cst.FunctionDef):
            return None
        table = _function_table(self.parsed, scope)
        if table is None:
            return None
        out = set()
        for name in names:
            try:
                symbol = table.lookup(name)
            except KeyError:
                continue
            if symbol.is_local() or symbol.is_declared_global() or symbol.is_nonlocal():
                out.add(name)
        return out

    def _rebind_statement(self, stmt: cst.Expr, launch: cst.Call, lhs: str) -> Fix | None:
        """`add(z, x).sync()` or `await add(z, x)` as a statement: bind what it returns;
        a bare `add(z, x)` (dropped unrun) gets `.sync()` too."""
        start = self.parsed.range(stmt).start
        bind = Edit.insert(start.line, start.column, f"{lhs} = ")
        if _waits_on(stmt.value, launch):
            return Fix(f"Use the values the launch returns: {lhs} = ...", (bind,),
                       preferred=True, applicability=Applicability.SAFE)
        if stmt.value is launch:
            end = self.parsed.range(launch).end
            return Fix(f"Sync the launch and use the values it returns: {lhs} = ....sync()",
                       (bind, Edit.insert(end.line, end.column, ".sync()")), preferred=True,
                       applicability=Applicability.UNSAFE, group=self._group())
        return None

    def _rebind_named(self, stmt: cst.Assign, launch: cst.Call, lhs: str) -> Fix | None:
        """`op = add(z, x)`: bind the results at the statement that waits for `op` between the
        launch and the use (safe), else wait for it just before the use (unsafe), moving a later
        `op.sync()` or `await op` statement up rather than waiting twice."""
        if (len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name)
                or not _launched(stmt.value, launch)):
            return None
        op = stmt.targets[0].target.value
        line = self.parents.get(stmt)
        block = None if line is None else self.parents.get(line)
        if (not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1
                or not isinstance(block, cst.IndentedBlock | cst.Module)):
            return None
        siblings = list(block.body)
        here = next(i for i, s in enumerate(siblings) if s is line)
        use = next((i for i in range(here + 1, len(siblings))
                    if covers(self.parsed.range(siblings[i]), self.use)), None)
        if use is None or _mentions(siblings[use], op):
            return None
        between = [s for s in siblings[here + 1:use] if _mentions(s, op)]
        if between:
            wait = _bare_wait(between[0], op)
            if len(between) != 1 or wait is None:
                return None
            start = self.parsed.range(wait).start
            return Fix(f"Use the values {op} returns: {lhs} = ...",
                       (Edit.insert(start.line, start.column, f"{lhs} = "),),
                       preferred=True, applicability=Applicability.SAFE)
        if not self.pending:
            return None
        return self._wait_before(siblings, use, op, lhs)

    def _wait_before(self, siblings: Sequence[cst.CSTNode], use: int, op: str, lhs: str
                     ) -> Fix | None:
        later = self._next_mention(siblings, use, op)
        wait_text, edits = f"{op}.sync()", []
        if later is not None:
            tree, stmt = later
            wait = _bare_wait(stmt, op)
            if wait is None or _has_comment(stmt):
                return None  # chained, passed on or commented: moving it is a guess
            wait_text = tree.code(wait.value)
            r = tree.range(stmt)
            edits.append(Edit(r.start.line, 0, r.end.line + 1, 0, ""))
        start = self.parsed.range(siblings[use]).start
        text = self.where.lines[start.line - 1] if start.line <= len(self.where.lines) else ""
        indent = text[:start.column]
        if indent.strip():
            return None
        newline = text[len(text.rstrip("\r\n")):] or "\n"
        edits.insert(0, Edit.insert(start.line, 0, f"{indent}{lhs} = {wait_text}{newline}"))
        return Fix(f"Wait for the launch before this use: {lhs} = {wait_text}", tuple(edits),
                   preferred=True, applicability=Applicability.UNSAFE, group=self._group())

    def _next_mention(self, siblings: Sequence[cst.CSTNode], use: int, op: str
                      ) -> tuple[Parsed, cst.CSTNode] | None:
        """The first statement after the use that names `op`, with the tree it is in. In a
        function the region holds the whole body; at module level it ends at the use, so the
        module's later statements are searched (their text first, a parse where it names op)."""
        found = next((s for s in siblings[use + 1:] if _mentions(s, op)), None)
        if found is not None or not siblings or not isinstance(
                self.parents.get(siblings[use]), cst.Module):
            return None if found is None else (self.parsed, found)
        end = self.parsed.range(siblings[-1]).end.line
        word = re.compile(rf"\b{re.escape(op)}\b")
        for first, last in self.where.statements:
            if first <= end or not word.search(self.where.text((first, last))):
                continue
            tree = parse(self.where.text((first, last)), first)
            named = None if tree is None else next(
                (s for s in tree.module.body if _mentions(s, op)), None)
            if tree is not None and named is not None:
                return tree, named
        return None

    def _group(self) -> str:
        # Several uses of one launch's arguments: one wait per round, the re-check sees the rest.
        return f"wait:{self.site.line}:{self.site.col}"


def _receiver(value: cst.BaseExpression, method: str) -> cst.BaseExpression | None:
    """`x` of `x.method()` (no arguments), else None."""
    if (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == method):
        return value.func.value
    return None


def _waited(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.sync()` or `await x`, else None."""
    return value.expression if isinstance(value, cst.Await) else _receiver(value, "sync")


def _launched(value: cst.BaseExpression, launch: cst.Call) -> bool:
    """`add(...)` or `add(...).start()`: the launch itself, maybe started."""
    return value is launch or _receiver(value, "start") is launch


def _waits_on(value: cst.BaseExpression, launch: cst.Call) -> bool:
    """`launch.sync()` or `await launch` (either maybe after `.start()`)."""
    waited = _waited(value)
    return waited is not None and _launched(waited, launch)


def _bare_wait(stmt: cst.CSTNode, op: str) -> cst.Expr | None:
    """The statement `op.sync()` or `await op` on a line of its own, results dropped."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    expr = stmt.body[0]
    if not isinstance(expr, cst.Expr):
        return None
    waited = _waited(expr.value)
    return expr if isinstance(waited, cst.Name) and waited.value == op else None


def _has_comment(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine)
            and stmt.trailing_whitespace.comment is not None)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(current.children)
    return False


def _function_table(parsed: Parsed, fn: cst.FunctionDef) -> symtable.SymbolTable | None:
    """Python's own symbol table of `fn` (which names it binds), from the region's text."""
    try:
        top = symtable.symtable(parsed.module.code, "<fix>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    line = parsed.positions[fn].start.line  # the `def` line, in the region's own numbering
    stack = [top]
    while stack:
        table = stack.pop()
        if (table.get_type() == "function" and table.get_name() == fn.name.value
                and table.get_lineno() == line):
            return table
        stack.extend(table.get_children())
    return None


FIXES: dict[QuickFix, Callable[[str, Diagnostic, Outline | None, Aliases | None], list[Fix]]] = {
    QuickFix.ASTYPE: astype_fixes,
    QuickFix.REBIND_FROM_SYNC: sync_fixes,
}
