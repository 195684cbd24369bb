"""Type stubs of the compiled extension (see specprobe/__init__.py for the documented API; the
exceptions it raises are the classes of specprobe._errors). Checked against the extension by
mypy's stubtest in CI."""

from os import PathLike
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple, Union, final

__all__ = ["__version__", "MAX_THREADS", "run", "validate", "plot", "merge", "compare", "policies", "VecWorld",
           "ProbeWorld", "ProbeVecWorld"]

__version__: str
MAX_THREADS: int

def run(
    scenario: str,
    *,
    json: bool = ...,
    runs: Optional[int] = ...,
    horizon: Optional[int] = ...,
    seed: Optional[int] = ...,
    threads: Optional[int] = ...,
    out: Optional[Union[str, PathLike[str]]] = ...,
    force: bool = ...,
    formats: Optional[Sequence[str]] = ...,
    max_memory: Optional[int] = ...,
    max_time: Optional[str] = ...,
    policies: Sequence[Tuple[str, Any]] = ...,
    identifiers: Sequence[Tuple[str, Any]] = ...,
    teams: Sequence[Tuple[str, Any]] = ...,
    progress: bool = ...,
) -> Tuple[str, List[Tuple[str, bytes]]]: ...
def validate(scenario: str, *, json: bool = ...) -> str: ...
def plot(results: Union[str, PathLike[str]], *, formats: Optional[Sequence[str]] = ...) -> List[Path]: ...
def merge(
    inputs: Sequence[Union[str, PathLike[str]]],
    *,
    out: Optional[Union[str, PathLike[str]]] = ...,
    force: bool = ...,
    formats: Optional[Sequence[str]] = ...,
) -> Path: ...
def compare(
    inputs: Sequence[Union[str, PathLike[str]]],
    *,
    out: Optional[Union[str, PathLike[str]]] = ...,
    runs: Optional[int] = ...,
    horizon: Optional[int] = ...,
    seed: Optional[int] = ...,
    threads: Optional[int] = ...,
    force: bool = ...,
    formats: Optional[Sequence[str]] = ...,
) -> Path: ...
def policies() -> str: ...

@final
class VecWorld:
    """N copies of a scenario's world stepped in Rust (the core of ``specprobe.envs``)."""

    def __new__(
        cls,
        scenario: str,
        *,
        json: bool,
        n: int,
        steps: Optional[int] = ...,
        experiment: int = ...,
        seed: Optional[int] = ...,
        last: bool = ...,
        stats: bool = ...,
        time: bool = ...,
        window: int = ...,
        action: str = ...,
        autoreset: str = ...,
        threads: int = ...,
        first: int = ...,
    ) -> "VecWorld": ...
    def shape(self) -> Tuple[int, int, int, int, int]: ...
    def cost_range(self) -> Tuple[float, float]: ...
    def buffers(self) -> List[Tuple[str, int, int, str]]: ...
    def seed(self, seed: int) -> None: ...
    def reset(self, seed: Optional[int] = ..., mask: Optional[Sequence[bool]] = ...) -> None: ...
    def reset_run(self, run: int, index: int = ...) -> None: ...
    def runs(self) -> List[int]: ...
    def totals(self) -> List[Tuple[float, float, float]]: ...
    def step_first(self) -> Tuple[float, bool, bool, float, float]: ...
    def step(self) -> None: ...

@final
class ProbeWorld:
    """A regret scenario's world played probe by probe (the core of ``SpectrumProbeEnv``)."""

    def __new__(
        cls,
        scenario: str,
        *,
        json: bool,
        experiment: int = ...,
        seed: Optional[int] = ...,
        index: int = ...,
        steps: Optional[int] = ...,
        stats: bool = ...,
        time: bool = ...,
    ) -> "ProbeWorld": ...
    def shape(self) -> Tuple[int, int, int, int]: ...
    def cost_range(self) -> Tuple[float, float]: ...
    def buffers(self) -> List[Tuple[str, int, int, str]]: ...
    def reset(self, seed: Optional[int] = ...) -> None: ...
    def probe(self, channel: int) -> Tuple[bool, float, float, bool, bool, int]: ...
    def stop(self) -> int: ...
    def last(self) -> Optional[Tuple[float, float, float]]: ...
    def totals(self) -> Tuple[float, float, float]: ...
    def run(self) -> int: ...

@final
class ProbeVecWorld:
    """N copies of the probe-level world stepped in one call (the core of
    ``SpectrumProbeVectorEnv``)."""

    def __new__(
        cls,
        scenario: str,
        *,
        json: bool,
        n: int,
        experiment: int = ...,
        seed: Optional[int] = ...,
        first: int = ...,
        steps: Optional[int] = ...,
        stats: bool = ...,
        time: bool = ...,
        autoreset: str = ...,
    ) -> "ProbeVecWorld": ...
    def shape(self) -> Tuple[int, int, int, int]: ...
    def cost_range(self) -> Tuple[float, float]: ...
    def reset(self, seed: Optional[int] = ..., mask: Optional[List[bool]] = ...) -> None: ...
    def buffers(self) -> List[Tuple[str, int, int, str]]: ...
    def step(self) -> None: ...
    def totals(self) -> List[Tuple[float, float, float]]: ...
    def runs(self) -> List[int]: ...
