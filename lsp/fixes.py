"""Quick fixes that rewrite code: `.astype(...)` for a dtype mix (CT202) and rebinding from
`.sync()` after a use of a value moved into a launch (CT301).

Which code gets which fix is the registry's (`Code.fix`); `quick_fixes` maps each kind to its
function once. Fixes read the values the message was built from (`Diagnostic.fields`), never its
text. Each returns no fix when the code around the diagnostic is not the shape it understands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import libcst as cst

from cutile.diagnostics.codes import QuickFix
from cutile.diagnostics.diagnostic import Diagnostic, Span
from cutile.diagnostics.messages import DTYPE_MIX, USE_AFTER_MOVE_LAUNCH, WHERE_DTYPES
from cutile.reader.source import read_module

from .edits import Edit, Fix
from .syntax import Outline, Parsed, covers, outline, parse_region, size

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
    made = DTYPE_MIX.made(diag) or WHERE_DTYPES.made(diag)
    parsed = parse_region(source, diag.span.line, diag.span.end_line, where) if made else None
    if parsed is None:
        return []
    left, right = str(diag.fields["a"]), str(diag.fields["b"])
    operands = _operands(parsed, diag.span)
    if operands is None:
        return []
    spell = _dtype_spelling(source, diag.span.path, aliases)
    (first, second), (first_label, second_label) = operands
    return [
        Fix(f"Convert the {second_label} to {left} with .astype({spell(left)})",
            _astype(parsed, second, spell(left))),
        Fix(f"Convert the {first_label} to {right} with .astype({spell(right)})",
            _astype(parsed, first, spell(right))),
    ]


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


def _astype(parsed: Parsed, node: cst.BaseExpression, dtype: str) -> tuple[Edit, ...]:
    where = parsed.range(node)
    call = f".astype({dtype})"
    if isinstance(node, _PRIMARY) or node.lpar:
        return (Edit.insert(where.end.line, where.end.column, call),)
    return (Edit.insert(where.start.line, where.start.column, "("),
            Edit.insert(where.end.line, where.end.column, ")" + call))


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
    """For a use after a move into a launch: bind the launch's results, `z, x = k(z, x).sync()`."""
    sites = [n.span for n in diag.notes if n.span is not None and n.span.path == diag.span.path]
    where = where or (outline(source) if sites else None)
    if where is None:
        return []
    into_launch = USE_AFTER_MOVE_LAUNCH.made(diag)
    fixes: list[Fix] = []
    for site in sites:
        parsed = parse_region(source, site.line, site.end_line, where)
        fix = None if parsed is None else _rebind_from_sync(parsed, site, into_launch)
        if fix is not None and fix not in fixes:
            fixes.append(fix)
    return fixes


def _rebind_from_sync(parsed: Parsed, site: Span, into_launch: bool) -> Fix | None:
    for node in parsed.nodes(cst.Expr):
        assert isinstance(node, cst.Expr)
        where = parsed.range(node)
        if not covers(where, site) or not isinstance(node.value, cst.Call):
            continue
        call = node.value
        synced = (isinstance(call.func, cst.Attribute) and call.func.attr.value == "sync"
                  and isinstance(call.func.value, cst.Call) and not call.args)
        if synced:
            assert isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call)
            launch, expr = call.func.value, parsed.code(call)
        elif into_launch:
            launch, expr = call, parsed.code(call) + ".sync()"
        else:
            return None
        targets = [a.value.value if isinstance(a.value, cst.Name) else "_"
                   for a in launch.args if a.keyword is None and not a.star]
        if not any(t != "_" for t in targets):
            return None
        lhs = f"({targets[0]},)" if len(targets) == 1 else ", ".join(targets)
        value = parsed.range(call)
        text = f"{lhs} = {expr}"
        edit = Edit(value.start.line, value.start.column, value.end.line, value.end.column, text)
        return Fix(f"Use the values returned by .sync(): {lhs} = ...", (edit,), preferred=True)
    return None


FIXES: dict[QuickFix, Callable[[str, Diagnostic, Outline | None, Aliases | None], list[Fix]]] = {
    QuickFix.ASTYPE: astype_fixes,
    QuickFix.REBIND_FROM_SYNC: sync_fixes,
}
