"""The runtime implements exactly the host API the registry declares (runtime/hostimpl.py),
and its handles answer by the registry: lazy ops refuse the handles' attribute names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cutile.compiler.hostapi import HANDLE_ATTRIBUTES, HOST_API, Effect, HostEntry
from cutile.runtime import hostimpl
from cutile.runtime.ops import DeviceOp, GraphOp
from cutile.runtime.tensor import Tensor


def test_registry_and_runtime_agree() -> None:
    assert hostimpl.problems() == []


def test_a_method_without_an_entry_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    class Grown(Tensor):
        __slots__ = ()

        def frobnicate(self) -> None: ...

    monkeypatch.setitem(hostimpl._SURFACES, "tensor", (Grown,))
    assert hostimpl.problems() == ["Grown.frobnicate has no host API entry (tensor)"]


def test_an_entry_without_a_method_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = HostEntry("tensor", "frobnicate", "method", Effect.INSPECTS, "X.")
    monkeypatch.setitem(HOST_API, ("tensor", "frobnicate"), extra)
    assert hostimpl.problems() == ["Tensor.frobnicate is declared but not implemented"]


def test_a_declared_signature_must_match(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = HOST_API["tensor", "narrow"]
    monkeypatch.setitem(HOST_API, ("tensor", "narrow"), replace(entry, sig="axis: int, n: int"))
    assert hostimpl.problems() == [
        "Tensor.narrow takes ['axis', 'start', 'length'], declared ['axis', 'n']"]


def test_verify_raises_on_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = HostEntry("ct", "frobnicate", "function", Effect.CREATES, "X.")
    monkeypatch.setitem(HOST_API, ("ct", "frobnicate"), extra)
    with pytest.raises(RuntimeError, match=r"ct\.frobnicate is declared"):
        hostimpl.verify()


@pytest.mark.parametrize("cls", [DeviceOp, GraphOp])
def test_ops_refuse_every_handle_attribute(cls: type) -> None:
    for name in HANDLE_ATTRIBUTES:
        assert isinstance(getattr(cls, name), property), name
