"""Training environments on specprobe's spectrum: Gymnasium environments stepped in Rust.

    import gymnasium as gym
    import specprobe.envs                      # registers "specprobe/Spectrum-v0"
    env = gym.make("specprobe/Spectrum-v0", scenario="scenarios/paper-fig1a.ron")
    obs, info = env.reset(seed=2018)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

    envs = specprobe.envs.SpectrumVectorEnv("scenarios/spectrum-markov.ron", num_envs=4096)

Every environment is the engine's own world (``specprobe.Stepper`` in Rust): the scenario's
occupancy processes, cost laws, sensing model and probe timing apply unchanged. A slot is one
step. The agent's action is the slot's ordered probe list; the world probes it in order, the
user transmits on the first channel sensed idle, and the step's reward is the engine's net
reward, 1{idle found} − the probes' costs.

Actions (``action=``):
- ``"scores"`` (default): K scores in [−1, 1] (``Box``); the channels of positive score are
  probed in decreasing score (ties: the lower channel). Every action is a valid list, so that
  a policy-gradient agent can explore freely.
- ``"list"``: K entries in 0..K (``MultiDiscrete``), the channels in probe order, then the
  stop symbol K (what follows it is ignored). Every element of a Gymnasium space must be a
  valid action (its checker and agents sample the space), so a channel already listed is
  skipped; a value outside 0..K is an error naming the environment and the entry.
- ``"channel"``: one channel in 0..K (``Discrete(K + 1)``), probed alone in the slot, or K to
  stay silent: the classic dynamic-spectrum-access formulation (one sensing per slot) that DQN
  and its relatives take. The world is the same; the info's oracle is still the benchmark of
  the cascade (UCR-T1's list), which a one-probe agent cannot reach where a longer list pays,
  so its pseudo-regret there includes that price of probing once.

Observations (``observation=``, float32, per user, in this order):
- ``"last"``: per channel, 3 values of the last slot: probed (0/1), sensed idle (0/1), the
  probe's cost (0 when not probed); with ``window=W`` (1 to 1024, default 1), the last W slots
  so, the most recent first (a window of history; zeros before the episode's first slot);
- ``"stats"``: per channel, 3 values of the episode so far: ln(1 + N)/ln(1 + T) with N the
  probes, the fraction sensed idle, the mean cost (0 before the first probe);
- ``"time"``: the slot reached over the episode's length, t/T.

``info`` (arrays over the vector's environments, each with its Gymnasium mask ``_key``):
``oracle_expected_reward`` (the benchmark's expected net reward in the slot: UCR-T1's with the
true statistics, per segment when the channels move) and ``pseudo_regret`` (that less the
expected reward of the list played), so that a learning curve can be drawn against the
optimum. Their sums over an episode are the run's pseudo-regret, as ``specprobe run`` reports
it, bit for bit when the same lists are played.

Seeds: environment i of a vector seeded S plays run i of the scenario with seed S (the same
channel paths, costs and sensing draws as ``specprobe run``), whatever the number of
environments or threads; its episode e plays run i + e·2³². Episodes end by truncation at
the scenario's horizon (or ``max_episode_steps``); nothing terminates them earlier.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _scenario, _specprobe

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "specprobe.envs needs gymnasium (>= 1.1): pip install 'specprobe[envs]' or pip install gymnasium"
    ) from e

__all__ = ["SpectrumEnv", "SpectrumVectorEnv", "SpectrumProbeEnv", "SpectrumProbeVectorEnv",
           "MultiUserParallelEnv", "MultiUserVectorEnv", "OBSERVATION_PARTS",
           "PROBE_OBSERVATION_PARTS"]

_CLOSED = "the environment is closed (close() was called): make a new one"
_NOT_RESET = "reset() the environment before its first step()"
_NO_PICKLE = (
    "specprobe's environments are not picklable: their worlds (paths, streams, the learners' "
    "statistics) live in Rust. Make a new one from the same scenario, seed and index instead: "
    "environment i of seed S replays run i of `specprobe run` bit for bit")


class _NoPickle:
    """Refuses pickling with the reason and the way round it (subprocess vector envs build
    their copies from a constructor, which works)."""

    def __reduce__(self) -> Any:
        raise TypeError(_NO_PICKLE)


#: The parts an observation may hold, in the order they are laid out.
OBSERVATION_PARTS = ("last", "stats", "time")

_DTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double, "bool": ctypes.c_bool,
           "int64": ctypes.c_int64}


def _views(core: Any) -> Dict[str, np.ndarray]:
    """NumPy arrays over the Rust buffers (no copy: the core writes, NumPy reads). Each view
    holds the core: its memory lives as long as any view of it (an array returned with
    ``copy=False`` and kept after ``close()``, say), never freed under one."""
    out = {}
    for name, address, length, dtype in core.buffers():
        memory = (_DTYPES[dtype] * length).from_address(address)
        memory._owner = core  # the array's base is `memory`, which keeps the core alive
        array = np.ctypeslib.as_array(memory)
        out[name] = array.view(np.bool_) if dtype == "bool" else array
    return out


def _whole(value: Any, name: str, least: int = 0, below: Optional[int] = None) -> int:
    """`value` as an int, or a ValueError naming `name` and the rule."""
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least
            or (below is not None and value >= below)):
        rule = f"at least {least}" if below is None else f"in {least}..{below - 1}"
        raise ValueError(f"{name}: expected a whole number {rule}, got {value!r}")
    return int(value)


def _count(value: Any, name: str) -> int:
    """A count of environments or threads: a whole number at least 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: must be a whole number at least 1 (got {value!r})")
    return int(value)


def _threads(value: Any) -> int:
    """A count of worker threads, bounded as the command line's ``--threads`` is (a larger
    count would overflow the batches each thread steps)."""
    return _whole(value, "threads", 1, _specprobe.MAX_THREADS + 1)


def _final_obs(final: np.ndarray, ended: np.ndarray) -> np.ndarray:
    """Gymnasium's `final_obs`: per environment, a copy of its last observation where its
    episode ended in the step (`ended`), None elsewhere."""
    out = np.full(len(ended), None, dtype=object)
    for i in np.flatnonzero(ended):
        out[i] = final[i].copy()
    return out


def _seed(seed: Any, name: str = "seed") -> Optional[int]:
    """A seed (64 bits, as the scenario's) or None."""
    return None if seed is None else _whole(seed, name, 0, 2**64)


def _vector_seed(seed: Any, n: int) -> Optional[int]:
    """A vector's seed: an int S, or Gymnasium's list of one seed per environment. Environment
    i plays run i of one seed S, so a list must read S, S + 1, … (None for any entry but the
    first: Gymnasium's own vectors pass that too)."""
    if not isinstance(seed, (list, tuple)):
        return _seed(seed)
    if len(seed) != n:
        raise ValueError(f"seed: {len(seed)} seeds for {n} environments")
    first = _seed(seed[0], "seed[0]")
    for i, s in enumerate(seed[1:], start=1):
        if s is None:
            continue
        if first is None or _seed(s, f"seed[{i}]") != first + i:
            raise ValueError(
                f"seed: environment i plays run i of one seed S, so a list of seeds reads S, "
                f"S + 1, ... (or None); seed[{i}] is {s!r} after seed[0] = {first!r}")
    return first


def _channel(action: Any, k: int, name: str = "action") -> int:
    """One channel (or the stop symbol K) as Gymnasium's ``Discrete(K + 1)`` holds it: an
    integer, not a float that would be truncated."""
    a = action
    if isinstance(a, np.ndarray) and a.shape == ():
        a = a[()]
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"{name}: expected a channel, an integer in 0..{k} (got {action!r})")
    if not 0 <= a <= k:
        raise ValueError(f"{name}: {a} is not a channel (0..{k}) nor the stop symbol {k}")
    return int(a)


def _check_actions(raw: np.ndarray, want: Tuple[int, ...], kind: str, name: str) -> None:
    """The rules every action array follows before it reaches the core: its shape, and its
    dtype (real numbers for scores, integers for lists and channels, each one that fits)."""
    if raw.shape != want:
        raise ValueError(f"{name}: expected shape {want}, got {raw.shape}")
    if kind == "scores":
        if raw.dtype.kind not in "fiub":
            raise TypeError(f"{name}: scores are real numbers (got dtype {raw.dtype})")
        return
    if raw.dtype.kind not in "iu":
        raise TypeError(f"{name}: {kind} actions are integers (got dtype {raw.dtype})")
    if raw.dtype.kind == "u" and raw.size and raw.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name}: {raw.max()} is not a channel nor the stop symbol")


def _parts(observation: Sequence[str]) -> Dict[str, bool]:
    if isinstance(observation, str):
        observation = (observation,)
    unknown = [p for p in observation if p not in OBSERVATION_PARTS]
    if unknown:
        raise ValueError(
            f"observation: {unknown[0]!r} is not a part (choose among {', '.join(OBSERVATION_PARTS)})")
    if not observation:
        raise ValueError("observation: choose at least one part (last, stats or time)")
    return {p: p in observation for p in OBSERVATION_PARTS}


PROBE_OBSERVATION_PARTS = ("stats", "time")


def _probe_parts(observation: Sequence[str]) -> Dict[str, bool]:
    """The probe-level observation's optional parts (the current slot's probes always show)."""
    if isinstance(observation, str):
        observation = (observation,)
    unknown = [p for p in observation if p not in PROBE_OBSERVATION_PARTS]
    if unknown:
        hint = (" (the probe-level observation always shows the current slot's probes)"
                if unknown[0] == "last" else "")
        raise ValueError(f"observation: {unknown[0]!r} is not a probe-level part (choose among "
                         f"{', '.join(PROBE_OBSERVATION_PARTS)}){hint}")
    return {p: p in observation for p in PROBE_OBSERVATION_PARTS}


def _probe_bounds(core: Any, stats: bool, k: int, dim: int) -> Tuple[np.ndarray, np.ndarray]:
    """The probe-level observation's bounds: 0 and 1 but for the statistics' mean costs."""
    lo, hi = core.cost_range()
    low, high = np.zeros(dim, np.float32), np.ones(dim, np.float32)
    if stats:
        low[k + 2:4 * k:3] = min(0.0, lo)
        high[k + 2:4 * k:3] = max(0.0, hi)
    return low, high


def _bounds(core: Any, observation: Sequence[str], k: int, dim: int,
            window: int = 1) -> Tuple[np.ndarray, np.ndarray]:
    """The observation's bounds: 0 and 1 but for the costs, within the range of the costs a
    learner observes (the cost laws' supports, under TimeLeft with the time used)."""
    lo, hi = core.cost_range()
    low, high = np.zeros(dim, np.float32), np.ones(dim, np.float32)
    at = 0
    for part in OBSERVATION_PARTS:
        if part not in observation:
            continue
        if part == "time":
            at += 1
            continue
        # Triplets (probed or count, idle, cost) per channel; `last` has one per slot shown.
        span = 3 * k * (window if part == "last" else 1)
        low[at + 2:at + span:3] = min(0.0, lo)
        high[at + 2:at + span:3] = max(0.0, hi)
        at += span
    return low, high


def _mode(mode: Any) -> Tuple[str, Any]:
    names = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step",
             AutoresetMode.DISABLED: "disabled"}
    if isinstance(mode, str):
        try:
            mode = AutoresetMode(mode)
        except ValueError:
            raise ValueError(
                f"autoreset_mode: {mode!r} is not a mode (NextStep, SameStep or Disabled)") from None
    if mode not in names:
        raise ValueError(f"autoreset_mode: {mode!r} is not an AutoresetMode")
    return names[mode], mode


class SpectrumVectorEnv(_NoPickle, VectorEnv):
    """``num_envs`` copies of a scenario's world, stepped in Rust in one call.

    ``scenario``: a path (``.ron``/``.json``) or a dict, as ``specprobe.run`` takes it, of a
    ``Regret`` scenario (of a grid, its configuration ``experiment``, which draws from its own
    streams as the grid's runs do). ``threads``: copies are split among up to that many threads
    inside a step, each given at least 256 copies (fewer step faster on one); results never
    depend on it. ``first_index``: the index of this vector's
    first environment among all the environments of an experiment (environment j here plays
    runs ``first_index + j``), so that environments split across processes play what one
    vector of all of them would. ``copy``: return
    copies of the observation and reward arrays (default, as Gymnasium's vector environments
    do); with ``copy=False`` they are the arrays the Rust core writes into, overwritten by the
    next step.
    """

    def __init__(
        self,
        scenario: Any,
        num_envs: int = 1,
        *,
        max_episode_steps: Optional[int] = None,
        observation: Sequence[str] = OBSERVATION_PARTS,
        window: int = 1,
        action: str = "scores",
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        threads: int = 1,
        seed: Optional[int] = None,
        copy: bool = True,
        experiment: int = 0,
        first_index: int = 0,
    ) -> None:
        _count(num_envs, "num_envs")
        if action not in ("scores", "list", "channel"):
            raise ValueError(f"action: {action!r} is not an action kind (scores, list or channel)")
        _threads(threads)
        steps = None if max_episode_steps is None else _whole(max_episode_steps, "max_episode_steps", 1)
        mode_name, self._autoreset = _mode(autoreset_mode)
        text, json = _scenario(scenario)
        parts = _parts(observation)
        self._core = _specprobe.VecWorld(
            text, json=json, n=int(num_envs), steps=steps, seed=_seed(seed),
            action=action, autoreset=mode_name, threads=int(threads),
            experiment=_whole(experiment, "experiment"),
            first=_whole(first_index, "first_index", 0, 2**64),
            window=_whole(window, "window", 1, 1025), **parts)
        k, users, dim, steps, horizon = self._core.shape()
        if users != 1:
            raise ValueError(
                "scenario: a many-users scenario steps its users together: use "
                "specprobe.envs.MultiUserParallelEnv")
        self.num_envs = int(num_envs)
        self.channels, self.episode_steps, self.horizon = k, steps, horizon
        self._action = action
        self._copy = copy
        self._buf = _views(self._core)
        self._obs = self._buf["obs"].reshape(self.num_envs, dim)
        self._final = self._buf["final_obs"].reshape(self.num_envs, dim)
        self._act = self._buf["action"].reshape(
            (self.num_envs,) if action == "channel" else (self.num_envs, k))
        low, high = _bounds(self._core, [p for p in OBSERVATION_PARTS if parts[p]], k, dim, window)
        self.single_observation_space = spaces.Box(low, high, (dim,), np.float32)
        self.observation_space = spaces.Box(
            np.tile(low, (self.num_envs, 1)), np.tile(high, (self.num_envs, 1)),
            (self.num_envs, dim), np.float32)
        if action == "scores":
            self.single_action_space = spaces.Box(-1.0, 1.0, (k,), np.float32)
            self.action_space = spaces.Box(-1.0, 1.0, (self.num_envs, k), np.float32)
        elif action == "channel":
            self.single_action_space = spaces.Discrete(k + 1)
            self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, k + 1))
        else:
            self.single_action_space = spaces.MultiDiscrete([k + 1] * k)
            self.action_space = spaces.MultiDiscrete(np.full((self.num_envs, k), k + 1))
        self.metadata = {"autoreset_mode": self._autoreset, "render_modes": []}
        self.render_mode = None
        self._seeded = seed
        self._started = False

    # -- Gymnasium's VectorEnv ---------------------------------------------------------------

    def reset(self, *, seed: Any = None, options: Optional[Dict[str, Any]] = None):
        """Resets every environment (or those of ``options["reset_mask"]``); ``seed``: an int
        S (environment i plays run i of seed S) or a list of one seed per environment, whose
        first entry seeds the vector (the others must follow it as S, S + 1, … or be None)."""
        seed = _vector_seed(seed, self.num_envs)
        mask = None
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask']: expected {self.num_envs} booleans, got shape {mask.shape}")
            mask = [bool(m) for m in mask]
        self._live().reset(seed, mask)
        self._started = True
        return self._out(self._obs), {}

    def step(self, actions: Any):
        core = self._live()
        if not self._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        self._write_actions(actions)
        core.step()
        buf = self._buf
        # Gymnasium's vector convention: each key with its mask `_key` of the environments
        # that reported it. Those reset by this step report nothing (NEXT_STEP); those whose
        # episode ended and restarted in it report their last step's info in `final_info`, its
        # observation in `final_obs`, and nothing of the new episode (SAME_STEP).
        ended = buf["has_final"].copy()
        stepped = ~buf["reset_now"] & ~ended
        infos = self._info(stepped)
        if ended.any():
            infos["final_obs"], infos["_final_obs"] = _final_obs(self._final, ended), ended
            infos["final_info"], infos["_final_info"] = self._info(ended), ended.copy()
        return (self._out(self._obs), self._out(buf["reward"]), self._out(buf["terminated"]),
                self._out(buf["truncated"]), infos)

    def close_extras(self, **kwargs: Any) -> None:
        # The buffers stay readable through the arrays already returned (each holds the core);
        # the vector itself steps no more.
        self._core = None

    def _live(self) -> Any:
        if self._core is None:
            raise RuntimeError(_CLOSED)
        return self._core

    # -- specprobe's extras ---------------------------------------------------------------------

    def runs(self) -> List[int]:
        """The run of the scenario each environment is playing."""
        return list(self._live().runs())

    def totals(self) -> List[Tuple[float, float, float]]:
        """Each environment's episode so far: (reward, pseudo-regret, realised regret), as the
        run's row of ``runs.csv`` reads them at the horizon."""
        return list(self._live().totals())

    def _info(self, mask: np.ndarray) -> Dict[str, Any]:
        """The step's info of the environments `mask` selects, as Gymnasium batches it."""
        if not mask.any():
            return {}
        buf = self._buf
        return {
            "oracle_expected_reward": np.where(mask, buf["oracle"], 0.0),
            "_oracle_expected_reward": mask.copy(),
            "pseudo_regret": np.where(mask, buf["regret"], 0.0),
            "_pseudo_regret": mask.copy(),
        }

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self._copy else array

    def _write_actions(self, actions: Any) -> None:
        """Checks `actions` and writes them into the core's action buffer."""
        raw = np.asarray(actions)
        _check_actions(raw, self._act.shape, self._action, "actions")
        self._act[...] = raw


class SpectrumEnv(_NoPickle, gymnasium.Env):
    """One copy of a scenario's world as a ``gymnasium.Env``: the slot-level environment of
    :class:`SpectrumVectorEnv` with ``num_envs=1`` (see the module's docs for the spaces).
    ``reset(seed=S)`` starts run ``index`` of seed S (its episode e: run index + e·2³²), so
    that ``SpectrumEnv(index=i)`` is environment i of a vector; ``reset(options={"run": r})``
    starts run r."""

    metadata = {"render_modes": []}

    def __init__(self, scenario: Any, *, max_episode_steps: Optional[int] = None,
                 observation: Sequence[str] = OBSERVATION_PARTS, window: int = 1,
                 action: str = "scores", seed: Optional[int] = None, experiment: int = 0,
                 index: int = 0) -> None:
        self._vec = SpectrumVectorEnv(
            scenario, 1, max_episode_steps=max_episode_steps, observation=observation,
            window=window,
            action=action, autoreset_mode=AutoresetMode.DISABLED, seed=seed, copy=False,
            experiment=experiment, first_index=_whole(index, "index", 0, 2**64))
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.channels, self.horizon = self._vec.channels, self._vec.horizon
        self.render_mode = None
        # The one copy's views, looked up once (a step is a few microseconds).
        self._views = (self._vec._act[0:1] if action == "channel" else self._vec._act[0],
                       self._vec._obs[0])
        self._shape = () if action == "channel" else (self.channels,)
        self._fast = "f" if action == "scores" else "i"

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        run = None if options is None else options.get("run")
        if run is not None:
            run = _whole(run, "options['run']", 0, 2**64)
        obs, _ = self._vec.reset(seed=seed)
        if run is not None:
            self._vec._live().reset_run(run)
            obs = self._vec._obs
        return obs[0].copy(), {}

    def step(self, action: Any):
        # One copy: straight to the core's buffers, without the vector's batching.
        a = np.asarray(action)
        if a.shape != self._shape or a.dtype.kind != self._fast:
            _check_actions(a, self._shape, self._vec._action, "action")
        core = self._vec._live()
        if not self._vec._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        act, obs = self._views
        act[...] = a
        reward, terminated, truncated, oracle, regret = core.step_first()
        return (obs.copy(), reward, terminated, truncated,
                {"oracle_expected_reward": oracle, "pseudo_regret": regret})

    def totals(self) -> Tuple[float, float, float]:
        """The episode so far: (reward, pseudo-regret, realised regret)."""
        return self._vec.totals()[0]

    def close(self) -> None:
        """Frees the world; ``reset`` and ``step`` then raise."""
        self._vec.close()


class SpectrumProbeEnv(_NoPickle, gymnasium.Env):
    """A regret scenario's world played probe by probe: one step is one probe.

    The action (``Discrete(K + 1)``) is the channel to probe next, or K to stop the slot
    without transmitting; a channel already probed in the slot also stops it (every element of
    the space must be an action). The slot ends at the first channel sensed idle (the user
    transmits on it), at a stop, when the slot's time is used up (probe timing) or when every
    channel has been probed; the next step opens the next slot. The reward of a step is minus
    its probe's cost, plus the transmission's gain on the step that ends the slot (1 for a
    success; under ``reward: TimeLeft`` the rate times the part of the slot left): a slot's
    steps sum to the engine's net reward of the slot, and the slots are drawn as ``specprobe
    run``'s (the same run: ``SpectrumProbeEnv(index=i)`` plays run i of the seed given to
    ``reset``).

    Observation (float32): per channel, whether it was probed in the current slot (0/1); then
    the parts ``observation`` names, in this order: ``"stats"``, the episode's statistics of
    :class:`SpectrumEnv` (3 values per channel, the same bits), and ``"time"``, t/T and the
    fraction of the channels probed in the slot (default both; the slot-level ``"last"`` part
    has no probe-level form: the current slot's probes are always shown). ``info`` at the
    step that ends a slot:
    ``oracle_expected_reward``, ``pseudo_regret`` (of the list of channels probed: the list an
    agent would have probed after a channel sensed idle is never told) and ``slot_reward``.
    Episodes end by truncation after the horizon's slot, or after ``max_episode_steps``
    slots (which also scale the statistics' counts and t, as in :class:`SpectrumEnv`)."""

    metadata = {"render_modes": []}

    def __init__(self, scenario: Any, *, max_episode_steps: Optional[int] = None,
                 observation: Sequence[str] = PROBE_OBSERVATION_PARTS,
                 seed: Optional[int] = None, experiment: int = 0, index: int = 0) -> None:
        text, json = _scenario(scenario)
        steps = None if max_episode_steps is None else _whole(max_episode_steps, "max_episode_steps", 1)
        parts = _probe_parts(observation)
        self._core = _specprobe.ProbeWorld(
            text, json=json, experiment=_whole(experiment, "experiment"), seed=_seed(seed),
            index=_whole(index, "index", 0, 2**64), steps=steps, **parts)
        k, steps, horizon, dim = self._core.shape()
        self.channels, self.episode_steps, self.horizon = k, steps, horizon
        low, high = _probe_bounds(self._core, parts["stats"], k, dim)
        self.observation_space = spaces.Box(low, high, (dim,), np.float32)
        self.action_space = spaces.Discrete(k + 1)
        self.render_mode = None
        # The core keeps the observation as probes change it, its statistics encoded as the
        # slot-level environment's (one encoder, the same bits).
        self._view = _views(self._core)["obs"]
        self._t = 0
        self._done = False
        self._started = False

    def _obs(self) -> np.ndarray:
        return self._view.copy()

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        seed = _seed(seed)
        core = self._live()
        super().reset(seed=seed)
        core.reset(seed)
        self._t = 0
        self._done = False
        self._started = True
        return self._obs(), {}

    def _live(self) -> Any:
        if self._core is None:
            raise RuntimeError(_CLOSED)
        return self._core

    def close(self) -> None:
        """Frees the world; ``reset`` and ``step`` then raise."""
        self._core = None

    def step(self, action: Any):
        self._live()
        if not self._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        if self._done:
            raise ValueError("the episode ended (the horizon's slot): reset before stepping again")
        k = self.channels
        a = _channel(action, k)
        reward, info = 0.0, {}
        if a == k or self._view[a]:
            self._t = self._core.stop()
            ended = True
        else:
            _, _, reward, ended, _, self._t = self._core.probe(a)
        if ended:
            oracle, regret, slot_reward = self._core.last()
            info = {"oracle_expected_reward": oracle, "pseudo_regret": regret,
                    "slot_reward": slot_reward}
        truncated = ended and self._t >= self.episode_steps
        self._done = truncated
        return self._obs(), float(reward), False, bool(truncated), info

    def totals(self) -> Tuple[float, float, float]:
        """The episode so far: (reward, pseudo-regret, realised regret)."""
        return self._live().totals()


class SpectrumProbeVectorEnv(_NoPickle, VectorEnv):
    """``num_envs`` copies of :class:`SpectrumProbeEnv` stepped in Rust in one call: each
    step is one probe (or a stop) of every copy, environment j playing run ``first_index + j``
    of the seed (``SpectrumProbeEnv(index=first_index + j)`` bit for bit). Actions: one
    integer in 0..K per environment (``MultiDiscrete``); the other arguments as
    :class:`SpectrumProbeEnv` and :class:`SpectrumVectorEnv` take them (``autoreset_mode``,
    ``copy``). ``info``: ``oracle_expected_reward`` and ``pseudo_regret`` of the environments
    whose slot ended in the step, with their masks."""

    def __init__(
        self,
        scenario: Any,
        num_envs: int = 1,
        *,
        max_episode_steps: Optional[int] = None,
        observation: Sequence[str] = PROBE_OBSERVATION_PARTS,
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        seed: Optional[int] = None,
        copy: bool = True,
        experiment: int = 0,
        first_index: int = 0,
    ) -> None:
        _count(num_envs, "num_envs")
        steps = None if max_episode_steps is None else _whole(max_episode_steps, "max_episode_steps", 1)
        mode_name, self._autoreset = _mode(autoreset_mode)
        text, json = _scenario(scenario)
        parts = _probe_parts(observation)
        self._core = _specprobe.ProbeVecWorld(
            text, json=json, n=int(num_envs), experiment=_whole(experiment, "experiment"),
            seed=_seed(seed), first=_whole(first_index, "first_index", 0, 2**64), steps=steps,
            autoreset=mode_name, **parts)
        k, steps, horizon, dim = self._core.shape()
        self.num_envs = int(num_envs)
        self.channels, self.episode_steps, self.horizon = k, steps, horizon
        self._copy = copy
        self._buf = _views(self._core)
        self._obs = self._buf["obs"].reshape(self.num_envs, dim)
        self._final = self._buf["final_obs"].reshape(self.num_envs, dim)
        low, high = _probe_bounds(self._core, parts["stats"], k, dim)
        self.single_observation_space = spaces.Box(low, high, (dim,), np.float32)
        self.observation_space = spaces.Box(
            np.tile(low, (self.num_envs, 1)), np.tile(high, (self.num_envs, 1)),
            (self.num_envs, dim), np.float32)
        self.single_action_space = spaces.Discrete(k + 1)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, k + 1))
        self.metadata = {"autoreset_mode": self._autoreset, "render_modes": []}
        self.render_mode = None
        self._started = False

    def reset(self, *, seed: Any = None, options: Optional[Dict[str, Any]] = None):
        """As :meth:`SpectrumVectorEnv.reset` (``options["reset_mask"]`` included)."""
        seed = _vector_seed(seed, self.num_envs)
        mask = None
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask']: expected {self.num_envs} booleans, got shape {mask.shape}")
            mask = [bool(m) for m in mask]
        self._live().reset(seed, mask)
        self._started = True
        return self._out(self._obs), {}

    def step(self, actions: Any):
        core = self._live()
        if not self._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        raw = np.asarray(actions)
        _check_actions(raw, (self.num_envs,), "channel", "actions")
        self._buf["action"][...] = raw
        core.step()
        buf = self._buf
        ended = buf["has_final"].copy()
        reported = buf["ended"] & ~buf["reset_now"] & ~ended
        infos = self._info(reported)
        if ended.any():
            infos["final_obs"], infos["_final_obs"] = _final_obs(self._final, ended), ended
            infos["final_info"], infos["_final_info"] = self._info(ended), ended.copy()
        return (self._out(self._obs), self._out(buf["reward"]), self._out(buf["terminated"]),
                self._out(buf["truncated"]), infos)

    def close_extras(self, **kwargs: Any) -> None:
        self._core = None

    def _live(self) -> Any:
        if self._core is None:
            raise RuntimeError(_CLOSED)
        return self._core

    def _info(self, mask: np.ndarray) -> Dict[str, Any]:
        if not mask.any():
            return {}
        buf = self._buf
        return {
            "oracle_expected_reward": np.where(mask, buf["oracle"], 0.0),
            "_oracle_expected_reward": mask.copy(),
            "pseudo_regret": np.where(mask, buf["regret"], 0.0),
            "_pseudo_regret": mask.copy(),
        }

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self._copy else array

    def runs(self) -> List[int]:
        """The run of the scenario each environment is playing."""
        return list(self._live().runs())

    def totals(self) -> List[Tuple[float, float, float]]:
        """Each environment's episode so far: (reward, pseudo-regret, realised regret)."""
        return list(self._live().totals())


def _action_space(action: str, k: int) -> "spaces.Space[Any]":
    if action == "channel":
        return spaces.Discrete(k + 1)
    if action == "scores":
        return spaces.Box(-1.0, 1.0, (k,), np.float32)
    if action == "list":
        return spaces.MultiDiscrete([k + 1] * k)
    raise ValueError(f"action: {action!r} is not an action kind (channel, scores or list)")


class MultiUserVectorEnv(_NoPickle):
    """``num_envs`` copies of a many-users scenario's world, its M users stepped together, in
    one Rust call: the batched form of :class:`MultiUserParallelEnv`, arrays shaped
    ``(num_envs, M, …)``.

    ``action``: ``"channel"`` (default: each user one channel, or K to stay silent; the classic
    multi-player bandit, whose pseudo-regret has a closed form), ``"scores"`` or ``"list"``
    (each user a cascade, as for :class:`SpectrumVectorEnv`; the pseudo-regret of several users'
    cascades has no closed form and reads NaN: the realised regret of ``totals()`` holds). The
    scenario's timing (carrier sensing), collision and feedback models apply. Copy i of a
    vector seeded S plays run i of the scenario with seed S; its episodes end by truncation at
    the horizon (or ``max_episode_steps``). ``autoreset_mode`` (declared in ``metadata``):
    ``NEXT_STEP`` (default: the next ``step`` starts the next episode, ``info["reset"]``
    marking the copies it reset), ``SAME_STEP`` (the step that ends an episode returns the
    next one's first observation, the last in ``info["final_obs"]`` with its mask
    ``info["_final_obs"]``) or ``DISABLED`` (``reset(options={"reset_mask": mask})``)."""

    def __init__(self, scenario: Any, num_envs: int = 1, *, max_episode_steps: Optional[int] = None,
                 observation: Sequence[str] = OBSERVATION_PARTS, window: int = 1,
                 action: str = "channel", threads: int = 1, seed: Optional[int] = None,
                 first_index: int = 0,
                 copy: bool = True, autoreset_mode: Any = AutoresetMode.NEXT_STEP) -> None:
        _count(num_envs, "num_envs")
        _threads(threads)
        steps = None if max_episode_steps is None else _whole(max_episode_steps, "max_episode_steps", 1)
        mode_name, self._autoreset = _mode(autoreset_mode)
        text, json = _scenario(scenario)
        parts = _parts(observation)
        _action_space(action, 1)
        self._core = _specprobe.VecWorld(
            text, json=json, n=int(num_envs), steps=steps, seed=_seed(seed), action=action,
            autoreset=mode_name, threads=int(threads),
            first=_whole(first_index, "first_index", 0, 2**64),
            window=_whole(window, "window", 1, 1025), **parts)
        k, users, dim, steps, horizon = self._core.shape()
        self.num_envs, self.users, self.channels = int(num_envs), users, k
        self.episode_steps, self.horizon = steps, horizon
        self._action, self._copy = action, copy
        self._buf = _views(self._core)
        self._obs = self._buf["obs"].reshape(self.num_envs, users, dim)
        self._final = self._buf["final_obs"].reshape(self.num_envs, users, dim)
        self._reward = self._buf["reward"].reshape(self.num_envs, users)
        self.metadata = {"autoreset_mode": self._autoreset}
        self._act = self._buf["action"].reshape(
            (self.num_envs, users) if action == "channel" else (self.num_envs, users, k))
        low, high = _bounds(self._core, [p for p in OBSERVATION_PARTS if parts[p]], k, dim, window)
        self.single_observation_space = spaces.Box(low, high, (dim,), np.float32)
        self.single_action_space = _action_space(action, k)
        self._started = False

    def reset(self, *, seed: Any = None, options: Optional[Dict[str, Any]] = None):
        self._live()
        seed = _vector_seed(seed, self.num_envs)
        mask = None
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask']: expected {self.num_envs} booleans, got shape {mask.shape}")
            mask = [bool(m) for m in mask]
        self._core.reset(seed, mask)
        self._started = True
        return self._out(self._obs), {}

    def _live(self) -> Any:
        if self._core is None:
            raise RuntimeError(_CLOSED)
        return self._core

    def close(self) -> None:
        """Frees the copies' worlds (arrays already returned stay readable); ``reset``,
        ``step`` and ``totals`` then raise."""
        self._core = None

    def step(self, actions: Any):
        core = self._live()
        if not self._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        raw = np.asarray(actions)
        n, u, k = self.num_envs, self.users, self.channels
        want = (n, u) if self._action == "channel" else (n, u, k)
        _check_actions(raw, want, self._action, "actions")
        self._act[...] = raw
        core.step()
        buf = self._buf
        info = {"oracle_expected_reward": self._out(buf["oracle"]),
                "pseudo_regret": self._out(buf["regret"]),
                "reset": self._out(buf["reset_now"])}
        ended = buf["has_final"]
        if ended.any():
            # SAME_STEP: the copies whose episode ended in this step return the next one's
            # first observation; their last is here (the reward, flags and info are the
            # step's own), as Gymnasium's vectors give it.
            info["final_obs"], info["_final_obs"] = _final_obs(self._final, ended), ended.copy()
        return (self._out(self._obs), self._out(self._reward), self._out(buf["terminated"]),
                self._out(buf["truncated"]), info)

    def totals(self) -> List[Tuple[float, float, float]]:
        """Each copy's episode so far, summed over its users: (reward, pseudo-regret,
        realised regret)."""
        return list(self._live().totals())

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self._copy else array


try:
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError:  # pragma: no cover - PettingZoo is optional
    _ParallelEnv = object  # type: ignore[misc,assignment]


class MultiUserParallelEnv(_NoPickle, _ParallelEnv):  # type: ignore[misc,valid-type]
    """A many-users scenario as a PettingZoo ``ParallelEnv``: the agents are the users
    (``user_0`` … ``user_{M-1}``), stepped together through the scenario's timing, collision and
    feedback models. Each agent observes its own probes (the observation parts of
    :class:`SpectrumEnv`, per user) and is rewarded its own net reward; ``infos[agent]`` holds
    the system's ``oracle_expected_reward`` and ``pseudo_regret`` of the slot (the latter only
    with one channel per user, ``action="channel"``: several users' cascades have no closed
    form). ``reset(seed=S)``
    plays run ``index`` of seed S. Needs ``pettingzoo``."""

    metadata = {"name": "specprobe_multi_user_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, scenario: Any, *, max_episode_steps: Optional[int] = None,
                 observation: Sequence[str] = OBSERVATION_PARTS, window: int = 1,
                 action: str = "channel", seed: Optional[int] = None, index: int = 0) -> None:
        if _ParallelEnv is object:
            raise ImportError("MultiUserParallelEnv needs pettingzoo: pip install pettingzoo")
        self._vec = MultiUserVectorEnv(
            scenario, 1, max_episode_steps=max_episode_steps, observation=observation,
            window=window, action=action, seed=seed, first_index=_whole(index, "index", 0, 2**64),
            copy=False,
            autoreset_mode=AutoresetMode.DISABLED)
        self.possible_agents = [f"user_{u}" for u in range(self._vec.users)]
        self.agents: List[str] = []
        self.render_mode = None
        self._obs_space = self._vec.single_observation_space
        self._act_space = self._vec.single_action_space

    def observation_space(self, agent: str) -> "spaces.Space[Any]":
        return self._obs_space

    def action_space(self, agent: str) -> "spaces.Space[Any]":
        return self._act_space

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        obs, _ = self._vec.reset(seed=seed)
        self.agents = self.possible_agents[:]
        return ({a: obs[0, u].copy() for u, a in enumerate(self.agents)},
                {a: {} for a in self.agents})

    def step(self, actions: Dict[str, Any]):
        self._vec._live()
        if not self._vec._started:
            raise gymnasium.error.ResetNeeded(_NOT_RESET)
        if not isinstance(actions, dict):
            raise TypeError(f"actions: expected a dict of one action per agent, got {type(actions).__name__}")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions: no action for {missing[0]!r} (one per agent: {self.agents})")
        unknown = [a for a in actions if a not in self.possible_agents]
        if unknown:
            raise ValueError(f"actions: {unknown[0]!r} is not an agent ({self.possible_agents})")
        if self._vec._action == "channel":
            k = self._vec.channels
            a = np.array([[_channel(actions[x], k, f"actions[{x!r}]") for x in self.possible_agents]],
                         dtype=np.int64)
        else:
            a = np.array([[np.asarray(actions[x]) for x in self.possible_agents]])
        obs, reward, terminated, truncated, info = self._vec.step(a)
        agents = self.agents
        done = bool(truncated[0])
        extra = {"oracle_expected_reward": float(info["oracle_expected_reward"][0])}
        regret = float(info["pseudo_regret"][0])
        # Several users' cascades have no closed form: the key is then absent (not NaN).
        if np.isfinite(regret):
            extra["pseudo_regret"] = regret
        out = ({x: obs[0, u].copy() for u, x in enumerate(agents)},
               {x: float(reward[0, u]) for u, x in enumerate(agents)},
               {x: False for x in agents},
               {x: done for x in agents},
               {x: dict(extra) for x in agents})
        if done:
            self.agents = []
        return out

    def totals(self) -> Tuple[float, float, float]:
        """The episode so far, summed over users: (reward, pseudo-regret, realised regret)."""
        return self._vec.totals()[0]

    def close(self) -> None:
        """Frees the world; ``reset`` and ``step`` then raise."""
        self._vec.close()


# `gymnasium.make_vec("specprobe/Spectrum-v0", num_envs=N, scenario=...)` builds the vector
# stepped in Rust (its default mode when a vector entry point is registered).
gymnasium.register(id="specprobe/Spectrum-v0", entry_point="specprobe.envs:SpectrumEnv",
                   vector_entry_point="specprobe.envs:SpectrumVectorEnv")
gymnasium.register(id="specprobe/SpectrumProbe-v0", entry_point="specprobe.envs:SpectrumProbeEnv",
                   vector_entry_point="specprobe.envs:SpectrumProbeVectorEnv")
