"""Golden tileirdisasm texts of lowered kernels (regenerate with CUTILE_UPDATE_GOLDEN=1 after a
deliberate change to the lowering, and review the diff)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lower_util import EXAMPLES, module, spec_for

from cutile.compiler.bytecode import encode
from cutile.compiler.compile import lower_kernel
from cutile.compiler.dsl.orders import grouped
from cutile.compiler.toolchain import Toolchain, disassemble

GOLDEN = Path(__file__).parent / "golden"
CASES: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "add": ("add.py", "add", {"B": 1024}, {}),
    "saxpy": ("saxpy.py", "saxpy", {"B": 1024}, {}),
    "softmax": ("softmax.py", "softmax", {"BM": 4, "N": 1024}, {}),
    "gemm_persistent": ("gemm.py", "gemm_persistent", {"BM": 128, "BN": 128, "BK": 64},
                        {"order": grouped(8), "persistent": True}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_tileir(toolchain: Toolchain, case: str) -> None:
    if toolchain.disasm is None:
        pytest.skip("no tileirdisasm")
    file, name, consts, opts = CASES[case]
    info = module(EXAMPLES / file)
    text = disassemble(toolchain, encode(lower_kernel(info, name,
                                                      spec_for(info, name, consts, **opts)).module))
    path = GOLDEN / f"{case}.tileir"
    if os.environ.get("CUTILE_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path.name}; run with CUTILE_UPDATE_GOLDEN=1"
    assert text == path.read_text()
