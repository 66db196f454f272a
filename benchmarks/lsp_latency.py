"""Latency of the language server on a 1,000-line file, through the real server over stdio.

Starts `python -m cutile.lsp` (default 150 ms debounce), opens a generated module of about 1,000
lines (kernels and host code), then makes edits one at a time and measures the time from sending
each didChange to receiving the publishDiagnostics of that version. The target is that this minus
the debounce stays under 300 ms. It also times the checker alone on the same text, in-process, to
separate the server's overhead from the analysis itself.

    python benchmarks/lsp_latency.py [--edits 20] [--lines 1000] [--debounce-ms 150]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

KERNEL = '''
@ct.kernel
def add_{i}(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
          B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    s = tx * 2.0 + ty
    z.store(ct.where(s > 0.0, s, ct.exp(s)))


def run_{i}() -> None:
    x = ct.ones((1024,), f32)
    y = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    z, x, y = add_{i}(z, x, y).sync()
    print(z.numpy()[:4], x, y)
'''
HEADER = "import cutile as ct\nfrom cutile import Const, Mut, Tensor, f32\n"


def make_module(lines: int) -> str:
    parts = [HEADER]
    i = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(KERNEL.format(i=i))
        i += 1
    return "".join(parts)


async def measure(edits: int, lines: int, debounce_ms: float) -> dict[str, float]:
    source = make_module(lines)
    published: dict[int, float] = {}
    arrived = asyncio.Event()
    client = LanguageClient("cutile-latency", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    await client.start_io(sys.executable, "-m", "cutile.lsp", "--debounce-ms", str(debounce_ms))
    with tempfile.TemporaryDirectory() as tmp:
        uri = (Path(tmp) / "big_module.py").as_uri()
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities()))
        client.initialized(types.InitializedParams())

        async def wait_for(version: int) -> float:
            while version not in published:
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 60)
            return published[version]

        start = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=source)))
        first = await wait_for(1) - start
        samples: list[float] = []
        for version in range(2, edits + 2):
            # Type one character into a kernel body near the end of the file.
            text = source.replace("s = tx * 2.0 + ty", f"s = tx * 2.0 + ty  # {version}", 1)
            sent = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
            samples.append(await wait_for(version) - sent)
        await client.shutdown_async(None)
        client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    debounce = debounce_ms / 1000
    return {
        "lines": source.count("\n"),
        "open_ms": first * 1000,
        "median_ms": statistics.median(samples) * 1000,
        "p95_ms": sorted(samples)[max(0, int(len(samples) * 0.95) - 1)] * 1000,
        "max_ms": max(samples) * 1000,
        "median_after_debounce_ms": (statistics.median(samples) - debounce) * 1000,
        "max_after_debounce_ms": (max(samples) - debounce) * 1000,
    }


def analyzer_ms(lines: int, repeats: int = 3) -> float:
    """The checker alone on the same text, in this process: what the server cannot go below."""
    from cutile.lsp.engine import Analyzer

    source = make_module(lines)
    analyzer = Analyzer()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        analyzer.analyze(source, str(Path(tempfile.gettempdir()) / "big_module.py"))
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--debounce-ms", type=float, default=150.0)
    args = parser.parse_args()
    result = asyncio.run(measure(args.edits, args.lines, args.debounce_ms))
    result["analyzer_alone_ms"] = analyzer_ms(args.lines)
    for key, value in result.items():
        print(f"{key:>26}: {value:8.1f}")
    verdict = "PASS" if result["max_after_debounce_ms"] < 300 else "FAIL"
    print(f"{verdict}: diagnostics within 300 ms after the debounce (max "
          f"{result['max_after_debounce_ms']:.0f} ms)")
    sys.exit(0 if verdict == "PASS" else 1)


if __name__ == "__main__":
    main()
