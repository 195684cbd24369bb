"""specprobe from Python: run cost-aware spectrum-access and best-K identification scenarios on
the Rust engine, read the results as dicts or DataFrames, and race policies written in Python
against the built-in ones.

    import specprobe
    res = specprobe.run("scenarios/paper-fig1a.ron", runs=50, threads=2)
    res.summary["policies"][0]["pseudo_regret"]["mean"]
    df = res.curves()          # a pandas DataFrame (a dict of lists without pandas)

Every function mirrors a command of the `specprobe` command line, with its flags as keywords.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple, TypedDict, Union

from . import _specprobe
from ._errors import PolicyError, ScenarioError, SpecprobeError
from ._specprobe import __version__

__all__ = [
    "run",
    "validate",
    "plot",
    "merge",
    "compare",
    "policies",
    "Results",
    "ScenarioError",
    "SpecprobeError",
    "PolicyError",
    "Policy",
    "PolicyClass",
    "Identifier",
    "IdentifierClass",
    "Team",
    "TeamClass",
    "Problem",
    "__version__",
]


def __dir__() -> List[str]:
    # What the package offers, not the modules and typing names it uses.
    return sorted(__all__)


class Policy(Protocol):
    """A cascade policy written in Python (pass its class in ``run(policies={label: cls})``)."""

    def plan(self, t: int) -> Sequence[int]:
        """The probe order of slot ``t`` (from 1): distinct channels below K, possibly empty."""
        ...

    def observe(self, channel: int, idle: bool, cost: float) -> None:
        """One probe of ``channel`` in the current slot: its sensed state and its cost."""
        ...


class PolicyClass(Protocol):
    """What ``run`` calls once per run to build a Python policy."""

    def __call__(self, channels: int, *, mean_costs: List[float]) -> Policy: ...


class Team(Protocol):
    """The M users of a ``MultiUser`` scenario, written in Python (``run(teams={label: cls})``).
    ``busy`` is optional.

    A class attribute ``one_channel = True`` declares that every user's list holds at most one
    channel a slot (checked on every list): the team is then measured as the built-in
    one-channel teams are (the M best channels, pseudo-regret, decomposition, lower bounds),
    and adding it changes nothing about them. Without it the team may list cascades, and every
    team of the scenario is measured against the cascade benchmark. A single-user ``Policy``
    run on a many-users scenario may declare the same."""

    def plan(self, t: int) -> Sequence[Sequence[int]]:
        """One list per user for slot ``t`` (from 1): distinct channels below K, possibly empty."""
        ...

    def busy(self, user: int, channel: int, cost: float) -> None:
        """``user`` probed ``channel`` and sensed it busy."""
        ...

    def seen(self, user: int, transmitted: Optional[int], last: Optional[int], sample: bool,
             collision: Optional[bool], ack: bool, cost: float) -> None:
        """The end of the slot for ``user``: the channel it transmitted on, its last channel,
        what an index learns of it, the collision indicator (None where its feedback level
        does not show it), the acknowledgement and the cost of its last probe."""
        ...


class TeamClass(Protocol):
    """What ``run`` calls once per run to build a Python team."""

    def __call__(self, channels: int, users: int, *, mean_costs: List[float], horizon: int) -> Team: ...


class Identifier(Protocol):
    """A best-K identification algorithm written in Python (``run(identifiers={name: cls})``)."""

    def next(self) -> Optional[int]:
        """The next arm to sample, or None to stop."""
        ...

    def observe(self, arm: int, reward: float) -> None:
        """One sample of ``arm``."""
        ...

    def answer(self) -> Sequence[int]:
        """The K arms it names as the best."""
        ...


class Problem(TypedDict):
    """What an identification algorithm is told about its runs: N arms, the top K to find, the
    rewards' sub-Gaussian σ and the required error probability ν (``confidence``)."""

    arms: int
    k: int
    sigma: float
    confidence: float


class IdentifierClass(Protocol):
    """What ``run`` calls once per run to build a Python identifier:
    ``cls(problem["arms"], problem["k"], sigma=problem["sigma"], confidence=problem["confidence"])``."""

    def __call__(self, arms: int, k: int, *, sigma: float, confidence: float) -> Identifier: ...

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _scenario(scenario: Scenario) -> tuple:
    """(text or path, is JSON text) for the extension."""
    if isinstance(scenario, Mapping):
        try:
            return json.dumps(scenario, allow_nan=False), True
        except (TypeError, ValueError) as e:
            err = ScenarioError(f"<dict>: cannot be written as JSON: {e}")
            err.file, err.line, err.column, err.field, err.rule = None, 0, 0, "(scenario)", str(e)
            err.problems = [{"line": 0, "column": 0, "field": "(scenario)", "rule": str(e)}]
            raise err from e
    if isinstance(scenario, str) and ("\n" in scenario or scenario.lstrip().startswith(("{", "Regret(", "Identification(", "MultiUser("))) \
            and not os.path.exists(scenario):
        # Scenario text rather than a path: JSON text is read as the dict it spells; RON text
        # has no file to resolve trace paths against, so it must be saved first.
        if scenario.lstrip().startswith("{"):
            try:
                return _scenario(json.loads(scenario))
            except json.JSONDecodeError as e:
                raise ScenarioError(f"<text>:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from e
        raise TypeError(
            "scenario: pass a path to a .ron or .json file, or a dict; this looks like RON text "
            "(save it to a file first: its trace and scenario references are relative to it)")
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario), False
    raise TypeError(f"scenario: expected a path or a dict, got {type(scenario).__name__}")


def _classes(name: str, value: Optional[Mapping[str, Any]]) -> List[Tuple[str, Any]]:
    """``policies``, ``identifiers`` or ``teams`` as (label, class) pairs, or a ``TypeError``
    naming the keyword and the rule (a list of classes has no labels to give them)."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        hint = ""
        if isinstance(value, (list, tuple, set)) or callable(value):
            hint = (f"; to label classes by name, write {name}={{cls.__name__: cls for cls in "
                    f"[...]}}")
        raise TypeError(f"{name} must map labels to classes, as {name}={{\"mine\": Mine}}, "
                        f"not a {type(value).__name__}{hint}")
    pairs = []
    for label, cls in value.items():
        if not isinstance(label, str):
            raise TypeError(f"{name}: every label must be a str, not {type(label).__name__} "
                            f"({label!r})")
        if not callable(cls):
            raise TypeError(f"{name}[{label!r}] must be a class (called once per run), not a "
                            f"{type(cls).__name__}")
        pairs.append((label, cls))
    return pairs


def _count(name: str, value: Any, least: int = 1) -> Optional[int]:
    """A keyword that counts (runs, horizon, threads, seed): an int, or a float naming a whole
    number as papers write horizons (``1e5``); ``TypeError``/``ValueError`` naming the keyword."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name}: expected a whole number, got {type(value).__name__} {value!r}")
    if isinstance(value, float):
        if not (value.is_integer() and abs(value) <= 2.0 ** 53):
            raise ValueError(f"{name}: expected a whole number, got {value!r}")
        value = int(value)
    if value < least:
        raise ValueError(f"{name}: must be at least {least}, got {value}")
    if value >= 2 ** 64:
        raise ValueError(f"{name}: must be below 2**64, got {value}")
    return value


_UNITS = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}


def _duration(name: str, value: Any) -> Optional[str]:
    """A duration as the command line takes it (``"3h"``), from seconds or text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    raise TypeError(f"{name}: expected seconds (a number) or a duration such as \"3h\", got {type(value).__name__}")


def _bytes(name: str, value: Any) -> Optional[int]:
    """A memory size: bytes, or text as the command line takes it (``"8G"``, ``"512M"``)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return _count(name, value)
    if isinstance(value, str):
        text = value.strip()
        digits = len(text) - len(text.lstrip("0123456789."))
        number, unit = text[:digits], text[digits:].strip().upper().rstrip("B").rstrip("I")
        try:
            size = float(number) * 2 ** _UNITS[unit]
        except (ValueError, KeyError):
            raise ValueError(f"{name}: {value!r} is not a size such as 8G, 512M or 1000000000") from None
        if size < 1:
            raise ValueError(f"{name}: {value!r} is not a usable memory size")
        return int(size)
    raise TypeError(f"{name}: expected bytes (an int) or a size such as \"8G\", got {type(value).__name__}")


def _formats(formats: Any) -> List[str]:
    """Chart formats: ``"png"`` alone, or a sequence of ``"png"``/``"svg"``."""
    if isinstance(formats, str):
        formats = [formats]
    formats = list(formats)
    for f in formats:
        if f not in ("png", "svg"):
            raise ValueError(f"formats: {f!r} is not a chart format (\"png\" or \"svg\")")
    return formats


def _table(data: bytes) -> Any:
    """A CSV file as a DataFrame, or as a dict of lists (numbers parsed) without pandas."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        return pd.read_csv(io.BytesIO(data))
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    if not rows:
        return {}
    header, body = rows[0], rows[1:]
    columns: Dict[str, List[Any]] = {h: [] for h in header}
    for row in body:
        for h, cell in zip(header, row):
            columns[h].append(_number(cell))
    return columns


def _number(cell: str) -> Any:
    if cell == "":
        # An empty cell is a missing value (an interval of a single run), as pandas reads it.
        return None
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            pass
    return cell


class Results:
    """The results of a run: the same data as the files the command line writes.

    ``summary`` is ``summary.json`` as a dict (the same numbers, bit for bit); ``curves()``,
    ``runs()`` and ``table()`` are ``curves.csv``, ``runs.csv`` and ``identification.csv`` as
    DataFrames; ``files`` maps each file name to its bytes; ``out`` is the folder written, if any.
    """

    def __init__(self, kind: str, files: Dict[str, bytes], out: Optional[str]):
        self.kind = kind
        self.files = files
        self.out = out
        self.summary: Dict[str, Any] = json.loads(files["summary.json"])

    def __repr__(self) -> str:
        where = f", out={self.out!r}" if self.out else ""
        return f"<specprobe.Results {self.kind} {self.summary.get('scenario')!r}{where}>"

    def _csv(self, name: str) -> Any:
        if name not in self.files:
            raise KeyError(f"{name}: not written for {self.kind} results (files: {sorted(self.files)})")
        return _table(self.files[name])

    def curves(self) -> Any:
        """``curves.csv``: every policy's metrics at every checkpoint (regret and sweep results)."""
        return self._csv("curves.csv")

    def runs(self) -> Any:
        """``runs.csv``: one row per (experiment, policy, run) with its final values."""
        return self._csv("runs.csv")

    def users(self) -> Any:
        """``users.csv`` of many-users results: each user's reward, transmissions and switches."""
        return self._csv("users.csv")

    def channels(self) -> Any:
        """``channels.csv`` of many-users results: selections, collisions and probes per channel."""
        return self._csv("channels.csv")

    def table(self) -> Any:
        """``identification.csv`` for identification results, ``sweep.csv`` for an identification
        or many-users sweep's (one row per entry and swept value); ``curves.csv`` otherwise."""
        if self.kind == "identification":
            return self._csv("identification.csv")
        if self.kind in ("identification-sweep", "multi-user-sweep"):
            return self._csv("sweep.csv")
        return self.curves()

    def _write_files(self, target: str) -> None:
        """The data files into ``target``, a sweep's cells into their folders."""
        for name, data in self.files.items():
            path = os.path.join(target, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)

    def plot(self, out: Optional[Union[str, "os.PathLike[str]"]] = None,
             formats: Sequence[str] = ("png", "svg")) -> List[str]:
        """Draws specprobe's own charts and ``report.md``, the same files ``specprobe plot`` writes.

        Into ``out`` (default: the folder the run wrote, else a new temporary folder), which
        receives the data files first. Returns the paths of the files drawn.
        """
        target = os.fspath(out) if out is not None else self.out
        if target is None:
            # One folder for these results, kept as ``out``: a second call redraws there.
            target = os.path.join(tempfile.mkdtemp(prefix="specprobe-"), str(self.summary.get("scenario", "results")))
            os.makedirs(target, exist_ok=True)
            self._write_files(target)
            self.out = target
        elif target != self.out:
            os.makedirs(target, exist_ok=True)
            self._write_files(target)
        drawn = [os.fspath(p) for p in _specprobe.plot(target, formats=_formats(formats))]
        # The folder now holds these results: a later plot() redraws there.
        self.out = target
        return drawn

    def _repr_html_(self) -> str:
        """The report's results table, for notebooks."""
        report = self.files.get("report.md", b"").decode("utf-8")
        rows = _first_results_table(report) or _summary_table(self.summary)
        title = html.escape(str(self.summary.get("scenario", "")))
        if not rows:
            return f"<p><b>specprobe {html.escape(self.kind)} results</b> {title}</p>"
        head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
        return (f"<p><b>specprobe {html.escape(self.kind)} results</b> {title}</p>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def _repr_png_(self) -> Optional[bytes]:
        """The main chart (regret, or samples against N), for notebooks, when it was drawn."""
        if "regret.png" in self.files:
            return self.files["regret.png"]
        samples = sorted(n for n in self.files if n.startswith("samples-") and n.endswith(".png"))
        return self.files[samples[0]] if samples else None


def _summary_table(summary: Mapping[str, Any]) -> List[List[str]]:
    """The results table from ``summary.json`` when no report was drawn (a run without ``out``):
    final regret per policy, or samples per (instance, N, setting, algorithm)."""
    def stat(s: Any) -> str:
        if not isinstance(s, Mapping):
            return "" if s is None else f"{s:.4g}"
        ci = s.get("ci95")
        return f"{s['mean']:.4g}" + (f" [{ci[0]:.4g}, {ci[1]:.4g}]" if ci else "")
    if isinstance(summary.get("policies"), list):
        rows = [["policy", "pseudo-regret", "realised regret", "reward/slot"]]
        for p in summary["policies"]:
            rows.append([str(p.get("name", "")), stat(p.get("pseudo_regret")), stat(p.get("realized_regret")),
                         stat(p.get("reward_per_slot"))])
        return rows
    if isinstance(summary.get("results"), list):
        rows = [["instance", "N", "setting", "algorithm", "samples", "errors"]]
        for r in summary["results"]:
            rows.append([str(r.get("instance", "")), str(r.get("n", "")), str(r.get("setting", "")),
                         str(r.get("algorithm", "")), stat(r.get("samples")), str(r.get("errors", ""))])
        return rows
    return []


def _first_results_table(report: str) -> List[List[str]]:
    """The first table of ``report.md`` that does not describe the scenario (channels, top-K sets), as cells (the
    table ``specprobe run`` prints)."""
    lines = report.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith(("|-", "|:")):
            cells = lambda row: [c.strip().replace("<br>", " / ").replace("**", "") for c in row.strip().strip("|").split("|")]
            if cells(lines[i])[0] not in ("channel", "ch", "N"):
                rows = [cells(lines[i])]
                j = i + 2
                while j < len(lines) and lines[j].startswith("|"):
                    rows.append(cells(lines[j]))
                    j += 1
                return rows
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
        i += 1
    return []


def _progress(progress: Optional[bool]) -> bool:
    if progress is None:
        try:
            return bool(sys.stderr.isatty())
        except (AttributeError, ValueError):  # no stderr, or a closed one
            return False
    if not isinstance(progress, bool):
        raise TypeError(f"progress: expected True, False or None, got {type(progress).__name__}")
    return progress


def run(
    scenario: Scenario,
    *,
    runs: Optional[int] = None,
    horizon: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    force: bool = False,
    formats: Sequence[str] = ("png", "svg"),
    max_memory: Optional[Union[int, str]] = None,
    max_time: Optional[Union[float, str]] = None,
    policies: Optional[Mapping[str, PolicyClass]] = None,
    identifiers: Optional[Mapping[str, IdentifierClass]] = None,
    teams: Optional[Mapping[str, TeamClass]] = None,
    progress: Optional[bool] = None,
) -> Results:
    """Runs a scenario (a path to a RON or JSON file, or a dict with the same schema).

    ``progress``: a line on ``sys.stderr``, rewritten once a second after the first, with the
    runs done and started (``specprobe: 120/400 runs, 35 s``); by default when stderr is a
    terminal, as the command line draws its bar.

    Keywords mirror ``specprobe run``: ``runs``, ``horizon``, ``seed``, ``threads``, ``out``
    (write the usual folder, with ``formats`` charts: ``"png"``, ``"svg"`` or both), ``force``,
    ``max_memory`` (bytes, or a size as the command line takes it: ``"8G"``), ``max_time``
    (refuse a run estimated to take longer: seconds, or ``"90m"``, ``"3h"``; no limit by
    default, unlike the command line's hour). Counts may be
    floats naming whole numbers, as papers write horizons (``horizon=1e5``); a wrong keyword
    value raises ``TypeError`` or ``ValueError`` naming the keyword.

    ``policies`` adds Python policies by label: a class called as ``cls(channels,
    mean_costs=[...])`` for every run, with ``plan(t) -> list of channels`` (the probe order of
    slot t) and ``observe(channel, idle, cost)``; on a many-users scenario every user runs its
    own instance on its own acknowledgements (as ``Selfish`` runs a built-in). ``teams`` adds
    many-users policies to a ``MultiUser`` scenario: ``cls(channels, users, mean_costs=[...],
    horizon=T)`` with ``plan(t) -> one list per user``, ``seen(user, transmitted, last, sample,
    collision, ack, cost)`` and optionally ``busy(user, channel, cost)``. ``identifiers`` adds best-K algorithms to an
    identification scenario: ``cls(arms, k, sigma=..., confidence=...)`` with ``next() -> arm or
    None`` (None stops), ``observe(arm, reward)`` and ``answer() -> list of k arms``. Python
    code runs on one thread (it holds the interpreter); built-in policies alone run on
    ``threads`` with the interpreter released. Ctrl-C stops a run within a second with
    ``KeyboardInterrupt`` and writes nothing.
    """
    text, is_json = _scenario(scenario)
    kind, files = _specprobe.run(
        text,
        json=is_json,
        runs=_count("runs", runs),
        horizon=_count("horizon", horizon),
        seed=_count("seed", seed, least=0),
        threads=_count("threads", threads),
        out=None if out is None else os.fspath(out),
        force=force,
        formats=_formats(formats),
        max_memory=_bytes("max_memory", max_memory),
        max_time=_duration("max_time", max_time),
        policies=_classes("policies", policies),
        identifiers=_classes("identifiers", identifiers),
        teams=_classes("teams", teams),
        progress=_progress(progress),
    )
    return Results(kind, dict(files), None if out is None else os.fspath(out))


def validate(scenario: Scenario) -> str:
    """``specprobe validate``: the checked scenario, its optimum, bounds and resource needs."""
    text, is_json = _scenario(scenario)
    return _specprobe.validate(text, json=is_json)


def plot(results: Union[str, "os.PathLike[str]"], *, formats: Sequence[str] = ("png", "svg")) -> List[str]:
    """``specprobe plot``: redraws the charts and report of a results folder."""
    return [os.fspath(p) for p in _specprobe.plot(os.fspath(results), formats=_formats(formats))]


def merge(inputs: Sequence[Union[str, "os.PathLike[str]"]], *, out: Optional[Union[str, "os.PathLike[str]"]] = None,
          force: bool = False, formats: Sequence[str] = ("png", "svg")) -> str:
    """``specprobe merge``: combines shards' ``partial.json`` into the unsharded outputs."""
    return os.path.abspath(_specprobe.merge([os.fspath(i) for i in inputs],
                                            out=None if out is None else os.fspath(out),
                                            force=force, formats=_formats(formats)))


def compare(inputs: Sequence[Union[str, "os.PathLike[str]"]], *, out: Optional[Union[str, "os.PathLike[str]"]] = None,
            runs: Optional[int] = None, horizon: Optional[int] = None, seed: Optional[int] = None,
            threads: Optional[int] = None, force: bool = False, formats: Sequence[str] = ("png", "svg")) -> str:
    """``specprobe compare``: runs or loads each input and draws all their policies together."""
    # Absolute, as merge() returns it.
    return os.path.abspath(_specprobe.compare([os.fspath(i) for i in inputs],
                                              out=None if out is None else os.fspath(out),
                                              runs=_count("runs", runs), horizon=_count("horizon", horizon),
                                              seed=_count("seed", seed, least=0),
                                              threads=_count("threads", threads), force=force,
                                              formats=_formats(formats)))


def policies() -> str:
    """``specprobe policies``: every built-in policy with its parameters and defaults."""
    return _specprobe.policies()
