"""The checker's glue: kernel frontend + host ownership analysis + suppressions + configuration.

`analyze_source` checks one text (editors use it); `analyze_paths` checks files and directories
and never loses a file's findings: an internal error in one file becomes a CT999 diagnostic for
that file while the others are still checked. Nothing here imports the code it checks.
"""

from __future__ import annotations

import os
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..compiler.api import check_module
from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Severity, Span, dedupe
from ..reader.decode import UndecodableSource, decode_source, read_or_report
from ..reader.source import ModuleInfo, analysis_guard, parse_module
from . import suppressions
from .config import Config, Overrides, parse_table
from .discovery import ConfigResolver, is_force_excluded, iter_files
from .host import ProjectIndex, check_host
from .parallel import FileResult, check_all, default_jobs

if TYPE_CHECKING:
    from .autofix import Fixed


class TableConfig(Protocol):
    """What an editor may pass instead of a Config: a raw `[tool.cutile-check]` table and the
    pyproject.toml it came from (the language server's ProjectConfig has this shape)."""

    @property
    def path(self) -> os.PathLike[str] | str | None: ...

    @property
    def table(self) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class FileFix:
    """What fixing did to one file: its text and findings before and after."""

    path: str
    before: str
    after: str
    found: tuple[Diagnostic, ...] = ()  # the findings of `before`
    remaining: tuple[Diagnostic, ...] = ()  # the findings of `after`

    @property
    def fixed(self) -> int:
        """How many fewer findings the file has, so that found = fixed + remaining: one fix
        may settle more than its own finding (a wait for a launch also answers its CT305)."""
        return max(0, len(self.found) - len(self.remaining))


@dataclass
class Report:
    """The findings of one run, sorted, with the text of every checked file (for `full` output).
    After fixing, `sources` and `diagnostics` are those of the fixed texts and `fixes` says what
    changed (nothing is written here: the command line writes or prints a diff)."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    fixes: list[FileFix] = field(default_factory=list)

    @property
    def fixed(self) -> int:
        return sum(f.fixed for f in self.fixes)

    def revert(self, change: FileFix) -> None:
        """The fixed text of `change` was not written: the file's text and findings are those
        it had before fixing, at their own places, and nothing counts as fixed in it."""
        self.fixes = [f for f in self.fixes if f is not change]
        after = {id(d) for d in change.remaining}
        self.diagnostics = [d for d in self.diagnostics if id(d) not in after]
        self.diagnostics += change.found
        self.diagnostics.sort(key=Diagnostic.sort_key)
        self.sources[change.path] = change.before

    @property
    def failed(self) -> bool:
        """Any finding of error severity (warnings and notes do not fail a run)."""
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def broken(self) -> bool:
        """A configuration or internal error: the run could not check everything it was asked."""
        return any(d.entry.fatal for d in self.diagnostics)

    def statistics(self) -> list[tuple[str, int]]:
        """(code, count) pairs, most frequent first."""
        counts = Counter(d.code for d in self.diagnostics)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def analyze_source(source: str, path: str, config: Config | TableConfig | None = None,
                   *, project: ProjectIndex | None = None,
                   parsed: ModuleInfo | Diagnostic | None = None) -> list[Diagnostic]:
    """Every finding of one file after suppressions, selection and severity overrides.
    `project` resolves kernels imported from other files (one index per run caches them);
    `parsed` is the module of `source` when the caller has it (the language server's one parse
    per document version)."""
    with analysis_guard():  # linear time on big files, room for deep nesting
        raw = _raw_findings(source, path, project, parsed)
    return finish(raw, source, path, _as_config(config))


def _raw_findings(source: str, path: str, project: ProjectIndex | None,
                  parsed: ModuleInfo | Diagnostic | None) -> list[Diagnostic]:
    """Without `parsed`, the module's AST dies on return, before collection resumes, so the
    first collection does not walk millions of dead nodes."""
    # one parse: the kernel frontend and the host analysis
    if project is None:  # the text stands for its file, also where the module imports itself
        project = ProjectIndex(sources={path: source})
    info = parse_module(source, path, project.finder) if parsed is None else parsed
    if isinstance(info, Diagnostic):
        return [info]
    return check_module(info) + check_host(info, project)


def finish(raw: list[Diagnostic], source: str, path: str, config: Config) -> list[Diagnostic]:
    """Suppressions first (so their use is judged on every finding, whatever is selected), then
    select/ignore/per-file-ignores (which also filter CT902/CT903), then severities."""
    found = suppressions.scan(source, path)
    kept = suppressions.apply(dedupe(raw), found)
    kept += found.problems + suppressions.unused(found)
    out: list[Diagnostic] = []
    for diag in kept:
        if not config.enabled(diag.code, path):
            continue
        severity = config.severity_of(diag.code, diag.entry.severity)
        out.append(diag if severity is diag.severity else diag.with_severity(severity))
    return sorted(out, key=Diagnostic.sort_key)


def analyze_paths(paths: Sequence[str], overrides: Overrides | None = None,
                  fix: FixMode | None = None) -> Report:
    """Check files and directories (`.py` and `.pyi` below directories), each with the
    configuration of its nearest pyproject.toml. Many files are checked on several cores
    (`Overrides.jobs`; by default one process per core, at most one per few files). With `fix`,
    files with fixable findings are then fixed and checked again (`Report.fixes`)."""
    overrides = overrides or Overrides()
    resolver = ConfigResolver(overrides)
    report = Report()
    tasks: list[tuple[str, Config]] = []
    for item in iter_files(list(paths), resolver):
        if isinstance(item, Diagnostic):
            report.diagnostics.append(item)
        else:
            tasks.append((item, resolver.for_file(item)))
    jobs = overrides.jobs if overrides.jobs is not None else default_jobs(len(tasks))
    root = _explicit_root(overrides)
    results = check_all(check_file, tasks, root, jobs)
    for (path, config), (source, diags) in zip(tasks, results, strict=True):
        report.files.append(path)
        if source is not None:
            report.sources[path] = source
            if fix is not None:
                diags = _fix(report, path, source, diags, config, fix, root)
        report.diagnostics += diags
    report.diagnostics += resolver.diagnostics
    report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


def analyze_stdin(source: str | bytes, filename: str | None,
                  overrides: Overrides | None = None, fix: FixMode | None = None) -> Report:
    """Check text read from standard input as if it were the file `filename` (for config
    discovery, per-file-ignores and --force-exclude). Bytes are decoded as a file's would be.
    With `fix`, the text is fixed and checked again (`Report.fixes`)."""
    overrides = overrides or Overrides()
    resolver = ConfigResolver(overrides)
    path = filename if filename is not None else "-"
    report = Report()
    if isinstance(source, bytes):
        try:
            source = decode_source(source)
        except UndecodableSource as err:
            report.files.append(path)
            report.diagnostics.append(err.diagnostic(path))
            return report
    config_at = filename if filename is not None else os.path.join(os.getcwd(), "-")
    if filename is None or not is_force_excluded(filename, resolver):
        report.files.append(path)
        report.sources[path] = source
        config = resolver.for_file(config_at)
        root = _explicit_root(overrides)
        project = ProjectIndex(root, sources={path: source})
        diags = _guarded(path, lambda: analyze_source(source, path, config, project=project))
        if fix is not None:
            diags = _fix(report, path, source, diags, config, fix, root)
        report.diagnostics += diags
    report.diagnostics += resolver.diagnostics
    report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


@dataclass(frozen=True)
class FixMode:
    """`--fix`: apply safe fixes; `unsafe` (`--unsafe-fixes`) the unsafe ones too."""

    unsafe: bool = False


def _fix(report: Report, path: str, source: str, diags: list[Diagnostic], config: Config,
         mode: FixMode, root: str | None) -> list[Diagnostic]:
    """Fix one file's text and return the findings of the fixed text (the same findings when
    nothing was fixable); the text before and after goes into `report.fixes`."""
    if not any(d.entry.fix is not None for d in diags):
        return diags
    from .autofix import fix_source  # libcst: loaded only where there is something to fix

    def check(text: str) -> list[Diagnostic]:
        # the fixed text stands for its file, also for a module that imports itself
        project = ProjectIndex(root, sources={path: text})
        return _guarded(path, lambda: analyze_source(text, path, config, project=project))

    done = _guarded_fix(path, lambda: fix_source(source, path, diags, check, mode.unsafe))
    if isinstance(done, Diagnostic):
        return [*diags, done]
    if done.source != source:
        report.fixes.append(
            FileFix(path, source, done.source, tuple(diags), tuple(done.diagnostics)))
        report.sources[path] = done.source
    return done.diagnostics


def _guarded_fix(path: str, run: Callable[[], Fixed]) -> Fixed | Diagnostic:
    """A bug in a fix becomes a CT999 finding for the file, which is then left as it was."""
    try:
        return run()
    except Exception as err:  # any bug in one fix must not hide the other files
        return _internal_error(path, err)


def _explicit_root(overrides: Overrides) -> str | None:
    """A root for absolute imports besides each file's own (`ProjectIndex`): the folder of a
    `--config` file. Never the working directory, so findings do not depend on it."""
    path = overrides.config_path
    return os.path.dirname(os.path.abspath(path)) if path is not None else None


def check_file(path: str, config: Config, project: ProjectIndex) -> FileResult:
    """One file from disk: its text (None if unreadable) and its findings."""
    source = read_or_report(path)  # unreadable, or bytes that do not decode: CT906
    if isinstance(source, Diagnostic):
        return None, [source]
    return source, _guarded(
        path, lambda: analyze_source(source, path, config, project=project))


def _guarded(path: str, run: Callable[[], list[Diagnostic]]) -> list[Diagnostic]:
    """An exception while checking one file becomes a CT999 finding for that file."""
    try:
        return run()
    except Exception as err:  # any bug in one file must not hide the others
        return [_internal_error(path, err)]


def _internal_error(path: str, err: Exception) -> Diagnostic:
    where = traceback.extract_tb(err.__traceback__)[-1]
    detail = (f"{type(err).__name__}: {err} (at {os.path.basename(where.filename)}:"
              f"{where.lineno}); please report this with the file")
    return msg.INTERNAL_ERROR.at(Span(path, 1, 0, 1, 0), detail=detail)


def _as_config(config: Config | TableConfig | None) -> Config:
    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    where = config.path
    if where is None:
        return Config()
    parsed, _ = parse_table(dict(config.table), os.fspath(where), "")
    return parsed  # CT901 for the table is reported by the CLI on the pyproject.toml itself


