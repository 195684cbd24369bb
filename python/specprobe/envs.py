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

Observations (``observation=``, float32, per user, in this order):
- ``"last"``: per channel, 3 values of the last slot: probed (0/1), sensed idle (0/1), the
  probe's cost (0 when not probed);
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

__all__ = ["SpectrumEnv", "SpectrumVectorEnv", "OBSERVATION_PARTS"]

#: The parts an observation may hold, in the order they are laid out.
OBSERVATION_PARTS = ("last", "stats", "time")

_DTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double, "bool": ctypes.c_bool}


def _views(core: Any) -> Dict[str, np.ndarray]:
    """NumPy arrays over the Rust buffers (no copy: the core writes, NumPy reads)."""
    out = {}
    for name, address, length, dtype in core.buffers():
        array = np.ctypeslib.as_array((_DTYPES[dtype] * length).from_address(address))
        out[name] = array.view(np.bool_) if dtype == "bool" else array
    return out


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


def _bounds(core: Any, observation: Sequence[str], k: int, dim: int) -> Tuple[np.ndarray, np.ndarray]:
    """The observation's bounds: 0 and 1 but for the costs, within the cost laws' supports."""
    lo, hi = core.cost_range()
    low, high = np.zeros(dim, np.float32), np.ones(dim, np.float32)
    at = 0
    for part in OBSERVATION_PARTS:
        if part not in observation:
            continue
        if part == "time":
            at += 1
            continue
        low[at + 2:at + 3 * k:3] = min(0.0, lo)
        high[at + 2:at + 3 * k:3] = max(0.0, hi)
        at += 3 * k
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


class SpectrumVectorEnv(VectorEnv):
    """``num_envs`` copies of a scenario's world, stepped in Rust in one call.

    ``scenario``: a path (``.ron``/``.json``) or a dict, as ``specprobe.run`` takes it, of a
    ``Regret`` scenario (of a grid, its configuration ``experiment``, which draws from its own
    streams as the grid's runs do). ``threads``: copies are split among that many threads
    inside a step (results never depend on it). ``first_index``: the index of this vector's
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
        action: str = "scores",
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        threads: int = 1,
        seed: Optional[int] = None,
        copy: bool = True,
        experiment: int = 0,
        first_index: int = 0,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs: must be a whole number at least 1 (got {num_envs!r})")
        if action not in ("scores", "list"):
            raise ValueError(f"action: {action!r} is not an action kind (scores or list)")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads: must be a whole number at least 1 (got {threads!r})")
        mode_name, self._autoreset = _mode(autoreset_mode)
        text, json = _scenario(scenario)
        parts = _parts(observation)
        self._core = _specprobe.VecWorld(
            text, json=json, n=int(num_envs), steps=max_episode_steps, seed=seed,
            action=action, autoreset=mode_name, threads=int(threads), experiment=int(experiment),
            first=int(first_index), **parts)
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
        low, high = _bounds(self._core, [p for p in OBSERVATION_PARTS if parts[p]], k, dim)
        self.single_observation_space = spaces.Box(low, high, (dim,), np.float32)
        self.observation_space = spaces.Box(
            np.tile(low, (self.num_envs, 1)), np.tile(high, (self.num_envs, 1)),
            (self.num_envs, dim), np.float32)
        if action == "scores":
            self.single_action_space = spaces.Box(-1.0, 1.0, (k,), np.float32)
            self.action_space = spaces.Box(-1.0, 1.0, (self.num_envs, k), np.float32)
        else:
            self.single_action_space = spaces.MultiDiscrete([k + 1] * k)
            self.action_space = spaces.MultiDiscrete(np.full((self.num_envs, k), k + 1))
        self.metadata = {"autoreset_mode": self._autoreset, "render_modes": []}
        self.render_mode = None
        self._seeded = seed

    # -- Gymnasium's VectorEnv ---------------------------------------------------------------

    def reset(self, *, seed: Any = None, options: Optional[Dict[str, Any]] = None):
        """Resets every environment (or those of ``options["reset_mask"]``); ``seed``: an int
        S (environment i plays run i of seed S) or a list of one seed per environment, whose
        first entry seeds the vector (the others must follow it as S, S + 1, … or be None)."""
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed: {len(seed)} seeds for {self.num_envs} environments")
            seed = seed[0]
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed: expected a whole number at least 0, got {seed!r}")
        mask = None
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask']: expected {self.num_envs} booleans, got shape {mask.shape}")
            mask = [bool(m) for m in mask]
        self._core.reset(None if seed is None else int(seed), mask)
        return self._out(self._obs), {}

    def step(self, actions: Any):
        a = self._actions(actions)
        self._core.step(a.ctypes.data)
        buf = self._buf
        # Gymnasium's vector convention: each key with its mask `_key` of the environments
        # that reported it. Those reset by this step report nothing (NEXT_STEP); those whose
        # episode ended and restarted in it report their last step's info in `final_info`, its
        # observation in `final_obs`, and nothing of the new episode (SAME_STEP).
        ended = buf["has_final"].copy()
        stepped = ~buf["reset_now"] & ~ended
        infos = self._info(stepped)
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                final[i] = self._final[i].copy()
            infos["final_obs"], infos["_final_obs"] = final, ended
            infos["final_info"], infos["_final_info"] = self._info(ended), ended.copy()
        return (self._out(self._obs), self._out(buf["reward"]), self._out(buf["terminated"]),
                self._out(buf["truncated"]), infos)

    def close_extras(self, **kwargs: Any) -> None:
        self._core = None

    # -- specprobe's extras ---------------------------------------------------------------------

    def runs(self) -> List[int]:
        """The run of the scenario each environment is playing."""
        return list(self._core.runs())

    def totals(self) -> List[Tuple[float, float, float]]:
        """Each environment's episode so far: (reward, pseudo-regret, realised regret), as the
        run's row of ``runs.csv`` reads them at the horizon."""
        return list(self._core.totals())

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

    def _actions(self, actions: Any) -> np.ndarray:
        k = self.channels
        raw = np.asarray(actions)
        if raw.shape != (self.num_envs, k):
            raise ValueError(
                f"actions: expected shape ({self.num_envs}, {k}) (one {self._action} row per environment), got {raw.shape}")
        if self._action == "scores":
            if raw.dtype.kind not in "fiub":
                raise TypeError(f"actions: scores are numbers (got dtype {raw.dtype})")
            a = np.ascontiguousarray(raw, dtype=np.float32)
        else:
            if raw.dtype.kind not in "iu":
                raise TypeError(f"actions: a list action holds integers (got dtype {raw.dtype})")
            a = np.ascontiguousarray(raw, dtype=np.int64)
        if a.shape != (self.num_envs, k):
            raise ValueError(
                f"actions: expected shape ({self.num_envs}, {k}) (one {self._action} row per environment), got {a.shape}")
        return a


class SpectrumEnv(gymnasium.Env):
    """One copy of a scenario's world as a ``gymnasium.Env``: the slot-level environment of
    :class:`SpectrumVectorEnv` with ``num_envs=1`` (see the module's docs for the spaces).
    ``reset(seed=S)`` starts run ``index`` of seed S (its episode e: run index + e·2³²), so
    that ``SpectrumEnv(index=i)`` is environment i of a vector; ``reset(options={"run": r})``
    starts run r."""

    metadata = {"render_modes": []}

    def __init__(self, scenario: Any, *, max_episode_steps: Optional[int] = None,
                 observation: Sequence[str] = OBSERVATION_PARTS, action: str = "scores",
                 seed: Optional[int] = None, experiment: int = 0, index: int = 0) -> None:
        self._vec = SpectrumVectorEnv(
            scenario, 1, max_episode_steps=max_episode_steps, observation=observation,
            action=action, autoreset_mode=AutoresetMode.DISABLED, seed=seed, copy=False,
            experiment=experiment, first_index=index)
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.channels, self.horizon = self._vec.channels, self._vec.horizon
        self.render_mode = None

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        run = None if options is None else options.get("run")
        if run is not None:
            if isinstance(run, bool) or not isinstance(run, (int, np.integer)) or run < 0:
                raise ValueError(f"options['run']: expected a whole number at least 0, got {run!r}")
        obs, _ = self._vec.reset(seed=seed)
        if run is not None:
            self._vec._core.reset_run(int(run))
            obs = self._vec._obs
        return obs[0].copy(), {}

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self._vec.step(np.asarray(action)[None])
        return (obs[0].copy(), float(reward[0]), bool(terminated[0]), bool(truncated[0]),
                {"oracle_expected_reward": float(info["oracle_expected_reward"][0]),
                 "pseudo_regret": float(info["pseudo_regret"][0])})

    def totals(self) -> Tuple[float, float, float]:
        """The episode so far: (reward, pseudo-regret, realised regret)."""
        return self._vec.totals()[0]


gymnasium.register(id="specprobe/Spectrum-v0", entry_point="specprobe.envs:SpectrumEnv")
