"""specprobe's vector environment as a Stable-Baselines3 ``VecEnv``.

    from stable_baselines3 import PPO
    from specprobe.sb3 import SpectrumSB3VecEnv
    env = SpectrumSB3VecEnv("scenarios/paper-fig1a.ron", num_envs=64, max_episode_steps=1000)
    PPO("MlpPolicy", env).learn(100_000)

The copies step in Rust (:class:`specprobe.envs.SpectrumVectorEnv`); the adapter speaks SB3's
protocol: ``step_async``/``step_wait``, a copy whose episode ended is reset in the same step and
its last observation is in ``infos[i]["terminal_observation"]`` (with
``infos[i]["TimeLimit.truncated"]``, episodes ending by truncation), ``seed``, ``get_attr``,
``set_attr``, ``env_method`` and ``env_is_wrapped``. Seeds are specprobe's: after
``seed(S)``, copy i plays run i of the scenario with seed S (SB3's own vectors give copy i the
seed S + i); its later episodes play run i + e·2³².

Importing this module imports Stable-Baselines3 (and PyTorch); ``specprobe.envs`` does not.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Type, Union

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn

from .envs import SpectrumVectorEnv

__all__ = ["SpectrumSB3VecEnv"]


class SpectrumSB3VecEnv(VecEnv):
    """``num_envs`` copies of a scenario's world as an SB3 ``VecEnv``; every keyword of
    :class:`specprobe.envs.SpectrumVectorEnv` but ``autoreset_mode`` (SB3 resets in the same
    step) applies."""

    def __init__(self, scenario: Any, num_envs: int = 1, **kwargs: Any) -> None:
        if "autoreset_mode" in kwargs:
            raise TypeError("autoreset_mode: SB3 resets a copy in the step that ends its episode")
        self.vec = SpectrumVectorEnv(scenario, num_envs, autoreset_mode=AutoresetMode.SAME_STEP,
                                     **kwargs)
        super().__init__(num_envs, self.vec.single_observation_space, self.vec.single_action_space)
        self._actions: Optional[np.ndarray] = None
        self._next_seed: Optional[int] = None

    def reset(self) -> VecEnvObs:
        obs, _ = self.vec.reset(seed=self._next_seed)
        self._next_seed = None
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait: call step_async(actions) first")
        obs, reward, terminated, truncated, info = self.vec.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: List[dict] = [{} for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            # A copy that ended reports its last step's info (Gymnasium's final_info).
            source = info.get("final_info", {}) if dones[i] else info
            for key in ("oracle_expected_reward", "pseudo_regret"):
                if key in source and source["_" + key][i]:
                    infos[i][key] = float(source[key][i])
            # As SB3's own vectors write it, at every step.
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if dones[i]:
                infos[i]["terminal_observation"] = info["final_obs"][i]
        return obs, reward.astype(np.float32), dones, infos

    def seed(self, seed: Optional[int] = None) -> Sequence[Union[None, int]]:
        """Copy i plays run i of seed ``seed`` from the next reset on."""
        self._next_seed = seed
        return [seed] * self.num_envs

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> List[Any]:
        value = getattr(self.vec, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        if attr_name.startswith("_"):
            raise AttributeError(f"{attr_name}: private attributes cannot be set")
        setattr(self.vec, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> List[Any]:
        """Calls ``method_name`` of the vector once; per-copy results (lists of num_envs
        entries, such as ``totals``) are returned for the copies ``indices`` selects."""
        result = getattr(self.vec, method_name)(*method_args, **method_kwargs)
        idx = self._indices(indices)
        if isinstance(result, (list, tuple)) and len(result) == self.num_envs:
            return [result[i] for i in idx]
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: Type[Any], indices: Any = None) -> List[bool]:
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
