"""`ct.autotune`: choice per key with an injected timer, the disk cache across processes and
under concurrent writers, the interpreter path, and coded errors for bad configs."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import at_kernels as k
import numpy as np
import pytest

import cutile as ct
from cutile import f32
from cutile.runtime.autotune import Trial
from cutile.runtime.tuning_cache import TuningCache

HERE = Path(__file__).resolve().parent
CONFIGS = [ct.Config(K=1), ct.Config(K=2, tile=(32,)), ct.Config(K=3, worker_warps=8)]


class Timer:
    """Runs each trial once (so a broken launch fails here) and returns made-up times."""

    def __init__(self, times: dict[int, float]) -> None:
        self.times = times
        self.calls: list[int] = []

    def __call__(self, trial: Trial) -> float:
        trial.op().sync()
        self.calls.append(trial.index)
        return self.times[trial.index]


def _args(n: int = 128) -> tuple[Any, Any]:
    return ct.zeros((n,), f32).partition((64,)), ct.arange(n, f32)


def test_the_fastest_config_is_launched(tmp_path: Path) -> None:
    timer = Timer({0: 3.0, 1: 1.0, 2: 2.0})
    tuned = ct.autotune(k.shifted, configs=CONFIGS, timer=timer, cache_dir=tmp_path)
    out, x = _args()
    out, x = tuned(out, x).sync()
    assert timer.calls == [0, 1, 2]
    assert out.tile == (32,)  # config 1 re-partitions the output
    np.testing.assert_array_equal(out.unpartition().numpy(), np.arange(128) + 2)
    assert tuned.best(*_args()) == CONFIGS[1] and timer.calls == [0, 1, 2]  # remembered
    assert list(tuned.timings.values()) == [[3.0, 1.0, 2.0]]


def test_each_key_is_tuned_once(tmp_path: Path) -> None:
    timer = Timer({0: 1.0, 1: 2.0, 2: 3.0})
    tuned = ct.autotune(k.shifted, configs=CONFIGS, key=["x"], timer=timer, cache_dir=tmp_path)
    for n in (128, 256, 128, 256):
        out, _ = tuned(*_args(n)).sync()
        np.testing.assert_array_equal(out.unpartition().numpy(), np.arange(n) + 1)
    assert timer.calls == [0, 1, 2, 0, 1, 2]
    assert len(list((tmp_path / "autotune").rglob("*.json"))) == 2


def test_key_function_and_decorator_form(tmp_path: Path) -> None:
    timer = Timer({0: 2.0, 1: 1.0})
    seen: list[int] = []

    def bucket(z: Any, x: Any) -> int:
        seen.append(x.shape[0])
        return x.shape[0] // 1024

    tuned = ct.autotune(configs=CONFIGS[:2], key=bucket, timer=timer,
                        cache_dir=tmp_path)(k.shifted)
    assert isinstance(tuned, ct.Autotuned)
    tuned(*_args(128)).sync()
    tuned(*_args(256)).sync()  # the same bucket: no new timing
    assert timer.calls == [0, 1] and seen == [128, 256]


def test_trials_never_write_the_callers_mut_tensor(tmp_path: Path) -> None:
    tuned = ct.autotune(k.bump, configs=[ct.Config(), ct.Config(tile=(32,))],
                        timer=Timer({0: 1.0, 1: 2.0}), cache_dir=tmp_path)
    z = ct.arange(128, f32).partition((64,))
    z, = tuned(z).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(128) + 1)


def test_trials_never_accumulate_into_the_callers_acc_tensor(tmp_path: Path) -> None:
    tuned = ct.autotune(k.tally, configs=[ct.Config(B=64), ct.Config(B=32)],
                        timer=Timer({0: 2.0, 1: 1.0}), cache_dir=tmp_path)
    acc = ct.full((128,), 5.0, f32)
    acc, = tuned(acc, grid=4).sync()  # B=32 chosen: 4 blocks of 32 cover the tensor once
    np.testing.assert_array_equal(acc.numpy(), np.full(128, 6.0))


def test_the_interpreter_takes_the_first_config_untimed(tmp_path: Path) -> None:
    tuned = ct.autotune(k.shifted, configs=CONFIGS[::-1], cache_dir=tmp_path)
    out, _ = tuned(*_args()).sync()
    np.testing.assert_array_equal(out.unpartition().numpy(), np.arange(128) + 3)
    assert not (tmp_path / "autotune").exists() and tuned.timings == {}


def test_a_config_that_fails_is_never_chosen(tmp_path: Path) -> None:
    timer = Timer({0: 1.0, 1: 9.0})
    configs = [ct.Config(K=1, tile=(48,)), ct.Config(K=2)]  # a tile of B = 48: CT208
    tuned = ct.autotune(k.shifted, configs=configs, timer=timer, cache_dir=tmp_path)
    out, _ = tuned(*_args()).sync()
    np.testing.assert_array_equal(out.unpartition().numpy(), np.arange(128) + 2)
    assert timer.calls == [1]
    assert tuned.timings[tuned.key_of(_args(), {})][0] == float("inf")


def test_when_every_config_fails_the_first_error_is_raised(tmp_path: Path) -> None:
    configs = [ct.Config(K=1, order=ct.grouped(2)), ct.Config(K=2, order=ct.grouped(4))]
    tuned = ct.autotune(k.shifted, configs=configs, timer=Timer({}), cache_dir=tmp_path)
    with pytest.raises(ct.LaunchError) as err:
        tuned(*_args())
    d = err.value.diagnostics[0]
    assert d.code == "CT408" and d.span.path == __file__


def test_a_corrupt_cache_file_is_a_miss(tmp_path: Path) -> None:
    timer = Timer({0: 2.0, 1: 1.0, 2: 3.0})
    tuned = ct.autotune(k.shifted, configs=CONFIGS, timer=timer, cache_dir=tmp_path)
    tuned(*_args()).sync()
    (path,) = (tmp_path / "autotune").rglob("*.json")
    path.write_text("{not json")
    again = ct.autotune(k.shifted, configs=CONFIGS, timer=timer, cache_dir=tmp_path)
    again(*_args()).sync()
    assert timer.calls == [0, 1, 2, 0, 1, 2] and json.loads(path.read_text())["best"] == 1


_CHILD = """
import sys
sys.path.insert(0, {here!r})
import at_kernels as k
import numpy as np
import cutile as ct
from cutile import f32

configs = [ct.Config(K=1), ct.Config(K=2, tile=(32,)), ct.Config(K=3, worker_warps=8)]
times = {times}
calls = []

def timer(trial):
    if times is None:
        raise SystemExit("timed although the choice is cached")
    calls.append(trial.index)
    return times[trial.index]

tuned = ct.autotune(k.shifted, configs=configs, timer=timer, cache_dir={cache!r})
out, x = tuned(ct.zeros((128,), f32).partition((64,)), ct.arange(128, f32)).sync()
print(int(out.unpartition().numpy()[0]), len(calls))
"""


def _child(cache: Path, times: dict[int, float] | None) -> str:
    env = {**os.environ, "CUTILE_BACKEND": "interpreter"}
    code = _CHILD.format(here=str(HERE), times=times, cache=str(cache))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_choice_is_reused_by_another_process(tmp_path: Path) -> None:
    assert _child(tmp_path, {0: 5.0, 1: 4.0, 2: 1.0}) == "3 3"  # K=3 chosen after 3 timings
    assert _child(tmp_path, None) == "3 0"  # read from disk: no timing


def _writer(root: str, worker: int, rounds: int) -> None:
    cache = TuningCache(Path(root))
    configs = [f"K={i}" for i in range(4)]
    for r in range(rounds):
        cache.put("ab" * 32, configs, (worker + r) % 4, {"worker": worker, "pad": "x" * 4000})
        cache.put(f"{worker:02x}" * 32, configs, worker % 4, {"worker": worker})
        got = cache.get("ab" * 32, configs)
        assert got is not None and 0 <= got < 4  # never a torn file


def test_concurrent_writers_leave_only_whole_files(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 60)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    cache = TuningCache(tmp_path)
    configs = [f"K={i}" for i in range(4)]
    assert cache.get("ab" * 32, configs) is not None
    assert [cache.get(f"{w:02x}" * 32, configs) for w in range(4)] == [0, 1, 2, 3]
    assert cache.get("ab" * 32, configs[:3]) is None  # another config list: a miss
    leftovers = [p.name for p in (tmp_path / "autotune").rglob("*") if p.name.startswith(".tmp")]
    assert leftovers == []


def _tune_in_process(root: str, best: int) -> None:
    sys.path.insert(0, str(HERE))
    from cutile.runtime import context
    from cutile.runtime.backends.interpreter import InterpreterBackend

    context.set_backend(InterpreterBackend())
    times = {i: (0.5 if i == best else 1.0) for i in range(3)}
    tuned = ct.autotune(k.shifted, configs=CONFIGS, timer=lambda t: times[t.index],
                        cache_dir=root)
    got = tuned.best(*_args())
    # a process that timed keeps its own choice; one that started later may read another's
    assert got == CONFIGS[best] if tuned.timings else got in CONFIGS


def test_processes_tuning_the_same_key_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_tune_in_process, args=(str(tmp_path), w % 3))
             for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(180)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    (path,) = (tmp_path / "autotune").rglob("*.json")
    assert json.loads(path.read_text())["best"] in (0, 1, 2)  # one writer's whole choice


@pytest.mark.parametrize(("kernel", "configs", "key", "fragment"), [
    ("shifted", [], None, "needs at least one config"),
    ("shifted", [ct.Config(K=1, worker_warps=6)], None, "'worker_warps' must be 4 or 8"),
    ("shifted", [ct.Config(K=1, occupancy=0)], None, "'occupancy' must be an int from 1"),
    ("shifted", [ct.Config(Q=1)], None, "'Q' is neither a Const parameter nor a hint"),
    ("shifted", [ct.Config(x=1)], None, "'x' is neither a Const parameter nor a hint"),
    ("shifted", [{"K": 1}], None, "is a dict, not a ct.Config"),
    ("shifted", [ct.Config(K=1), ct.Config(K=1)], None, "two configs are the same"),
    ("shifted", [ct.Config(K=1, tile=(0,))], None, "tile must be a tuple of positive ints"),
    ("shifted", [ct.Config(K=1, tile=(-2,))], None, "tile must be a tuple of positive ints"),
    ("shifted", [ct.Config(K=1, blocks=0)], None, "blocks must be a positive int"),
    ("shifted", [ct.Config(K=1, order="rows")], None, "order must be ct.row_major"),
    ("two_outputs", [ct.Config(tile=(32,))], None, "need exactly one Mut parameter"),
    ("shifted", [ct.Config(K=1)], ["y"], "key names 'y', which is not a parameter"),
    ("shifted", [ct.Config(K=1)], "x", "key must be a list of parameter names"),
])
def test_bad_configs_are_ct114_at_the_call(kernel: str, configs: list[Any], key: Any,
                                           fragment: str) -> None:
    _assert_ct114(lambda: ct.autotune(getattr(k, kernel), configs=configs, key=key), fragment)


@pytest.mark.parametrize(("options", "fragment"), [
    ({"cold_l2": "yes"}, "cold_l2 must be True or False"),
    ({"cold_l2": True, "timer": Timer({})}, "cold_l2 applies to the built-in timer"),
])
def test_bad_cold_l2_is_ct114_at_the_call(options: dict[str, Any], fragment: str) -> None:
    _assert_ct114(lambda: ct.autotune(k.shifted, configs=CONFIGS, **options), fragment)


def _assert_ct114(call: Any, fragment: str) -> None:
    with pytest.raises(ct.KernelError) as err:
        call()
    d = err.value.diagnostics[0]
    assert d.code == "CT114" and fragment in d.message, d.message
    assert d.span.path == __file__


def test_autotune_needs_a_kernel() -> None:
    with pytest.raises(ct.KernelError) as err:
        ct.autotune(len, configs=[ct.Config()])
    assert err.value.diagnostics[0].code == "CT114" and "needs a @ct.kernel" in str(err.value)


class _CountingGraph:
    """A launch's graph that counts its runs (the capture runs it once) and keeps its results."""

    def __init__(self, op: Any, runs: list[int]) -> None:
        self.graph, self.runs, self.results = op.graph(), runs, None
        runs.append(1)

    def replay(self) -> None:
        self.runs.append(1)
        self.graph.replay()

    def sync(self) -> Any:
        self.results = self.graph.sync()
        return self.results


def test_the_cuda_event_timer_measures_graph_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default timer's arithmetic, with the driver's timing calls faked: 2 ms of device
    time per replay, so every window says 2 ms per launch whatever its length."""
    from cutile.runtime.autotune import cuda_event_timer
    from cutile.runtime.cuda import driver

    runs: list[int] = []
    stamps: dict[int, int] = {}
    made: list[_CountingGraph] = []
    ids = iter(range(100, 200))
    monkeypatch.setattr(driver, "timing_event_create", lambda: next(ids))
    monkeypatch.setattr(driver, "event_record", lambda e, s: stamps.__setitem__(e, len(runs)))
    monkeypatch.setattr(driver, "event_synchronize", lambda e: None)
    monkeypatch.setattr(driver, "event_destroy", lambda e: None)
    monkeypatch.setattr(driver, "event_elapsed_ms", lambda a, b: 2.0 * (stamps[b] - stamps[a]))
    out, x = _args()

    class Op:
        def graph(self) -> _CountingGraph:
            made.append(_CountingGraph(k.shifted(out, x, K=1), runs))
            return made[-1]

    assert cuda_event_timer(Trial(0, CONFIGS[0], Op), windows=3, window_s=0.01) == \
        pytest.approx(0.002)
    assert len(runs) == 1 + 1 + 3 * 5  # capture, the probe window, 3 windows of 10 ms / 2 ms
    out, x = made[0].results  # the graph was synced: the arguments are back
    np.testing.assert_array_equal(out.unpartition().numpy(), np.arange(128) + 1)


def test_cold_l2_tunes_with_its_own_timer_and_cache_entry(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU (faked here) `cold_l2=True` times with the cold-L2 timer, and its choice is a
    disk entry of its own: a warm choice of the same key is not reused for it."""
    import cutile.runtime.autotune as at

    warm, cold = Timer({0: 1.0, 1: 2.0, 2: 3.0}), Timer({0: 3.0, 1: 1.0, 2: 2.0})
    monkeypatch.setattr(at, "cuda_event_timer", warm)
    monkeypatch.setattr(at, "cold_l2_timer", cold)
    monkeypatch.setattr(at, "backend", lambda: SimpleNamespace(name="cuda", arch="sm_90"))
    monkeypatch.setattr(at, "_device_name", lambda be: "a GPU")
    hot = ct.autotune(k.shifted, configs=CONFIGS, cache_dir=tmp_path)
    chilled = ct.autotune(k.shifted, configs=CONFIGS, cache_dir=tmp_path, cold_l2=True)
    assert hot.best(*_args()) == CONFIGS[0] and chilled.best(*_args()) == CONFIGS[1]
    assert warm.calls == [0, 1, 2] and cold.calls == [0, 1, 2]
    assert len(list((tmp_path / "autotune").rglob("*.json"))) == 2


def test_the_cold_l2_timer_flushes_before_each_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold-L2 timer with the driver faked: a buffer larger than L2 is written before every
    timed replay, outside its events; 2 ms of device time per replay is 2 ms per launch; the
    buffer and every event are released."""
    from cutile.runtime.autotune import L2_FLUSH_BYTES, cold_l2_timer
    from cutile.runtime.cuda import driver

    runs: list[int] = []
    stamps: dict[int, int] = {}
    log: list[Any] = []
    destroyed: list[int] = []
    ids = iter(range(100, 200))
    monkeypatch.setattr(driver, "timing_event_create", lambda: next(ids))
    monkeypatch.setattr(driver, "event_record",
                        lambda e, s: (stamps.__setitem__(e, len(runs)), log.append(len(runs))))
    monkeypatch.setattr(driver, "event_synchronize", lambda e: None)
    monkeypatch.setattr(driver, "event_destroy", destroyed.append)
    monkeypatch.setattr(driver, "event_elapsed_ms", lambda a, b: 2.0 * (stamps[b] - stamps[a]))
    monkeypatch.setattr(driver, "mem_alloc", lambda n: log.append(("alloc", n)) or 7)
    monkeypatch.setattr(driver, "memset", lambda dst, pattern, width, count, s:
                        log.append(("memset", dst, width * count)))
    monkeypatch.setattr(driver, "mem_free", lambda ptr: log.append(("free", ptr)))
    out, x = _args()

    class Op:
        def graph(self) -> _CountingGraph:
            return _CountingGraph(k.shifted(out, x, K=1), runs)

    assert cold_l2_timer(Trial(0, CONFIGS[0], Op), runs=3) == pytest.approx(0.002)
    flush = ("memset", 7, L2_FLUSH_BYTES)  # then the replay between its two events
    assert log == [("alloc", L2_FLUSH_BYTES), flush, 2, 3, flush, 3, 4, flush, 4, 5, ("free", 7)]
    assert len(destroyed) == 6
