"""The exceptions of specprobe: one base, ``SpecprobeError``, for everything the package raises.

Defined in Python (the extension raises these very classes) so that a scenario error is both a
``SpecprobeError`` and the ``ValueError`` Python users expect of bad input.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class SpecprobeError(RuntimeError):
    """A specprobe command failed (the message says why, as the command line would)."""

    __module__ = "specprobe"


class ScenarioError(SpecprobeError, ValueError):
    """A scenario that cannot be read, parsed or checked.

    ``file`` is None for a dict; ``problems`` lists dicts with ``line``, ``column``, ``field``
    and ``rule`` (line and column 0 when unknown); ``line``, ``column``, ``field`` and ``rule``
    are the first problem's.
    """

    __module__ = "specprobe"
    file: Optional[str] = None
    problems: List[Dict[str, Any]] = []
    line: Optional[int] = None
    column: Optional[int] = None
    field: Optional[str] = None
    rule: Optional[str] = None


class PolicyError(SpecprobeError):
    """A Python policy or identifier raised, or returned something invalid; the message names
    it and the slot (or sample), and the original exception is the ``__cause__``."""

    __module__ = "specprobe"
