"""Type stubs of the compiled extension (see specprobe/__init__.py for the documented API)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

__version__: str

class SpecprobeError(RuntimeError): ...

class ScenarioError(ValueError):
    file: Optional[str]
    problems: List[Dict[str, Any]]
    line: Optional[int]
    column: Optional[int]
    field: Optional[str]
    rule: Optional[str]

class PolicyError(SpecprobeError): ...

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
    policies: Sequence[Tuple[str, Any]] = ...,
    identifiers: Sequence[Tuple[str, Any]] = ...,
) -> Tuple[str, List[Tuple[str, bytes]]]: ...
def validate(scenario: str, *, json: bool = ...) -> str: ...
def plot(results: Union[str, PathLike[str]], *, formats: Optional[Sequence[str]] = ...) -> List[str]: ...
def merge(
    inputs: Sequence[Union[str, PathLike[str]]],
    *,
    out: Optional[Union[str, PathLike[str]]] = ...,
    force: bool = ...,
    formats: Optional[Sequence[str]] = ...,
) -> str: ...
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
) -> str: ...
def policies() -> str: ...
