#!/usr/bin/env python3
"""A deep-RL agent on Figure 1(a)'s channels: Stable-Baselines3 PPO trained on specprobe's
vector environment, then measured on the same channel paths as UCR-T1 (the oracle) and
CC-UCB, slot by slot.

    pip install './python[envs,sb3]'
    python examples/python/ppo_fig1a.py [--timesteps 200000] [--out ppo-fig1a.png]

Figure 1(a): K = 6 channels, θ = 0.8 … 0.3, every probe costing Bernoulli(0.55). The agent
sees the last slot's probes and the episode's per-channel statistics and chooses each slot's
ordered probe list as 6 scores (the channels of positive score, in decreasing score). It
learns on episodes of 1000 slots; it is then measured on runs 0..R−1 of the scenario's seed,
T slots each, the paths ``specprobe run`` gives the built-in policies, and the chart shows
the three per-slot net rewards averaged over the runs, cumulatively (specprobe's colours
and font).
"""
import argparse
import os

import numpy as np

import specprobe
import specprobe.envs as envs
from specprobe.sb3 import SpectrumSB3VecEnv

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# Okabe–Ito, as specprobe's charts colour series.
COLOURS = {"ppo": "#D55E00", "oracle (UCR-T1)": "#000000", "cc-ucb": "#0072B2"}


def scenario(horizon, runs):
    theta = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    return {"Regret": {
        "name": "ppo-fig1a", "seed": 2018, "horizon": horizon, "runs": runs,
        "channels": [{"theta": t, "cost": {"Bernoulli": 0.55}} for t in theta],
        "policies": [{"label": "cc-ucb", "policy": {"CcUcb": {"alpha": 1.5, "epsilon": 1e-5}}},
                     {"label": "oracle", "policy": "Oracle"}],
    }}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--horizon", type=int, default=10_000, help="slots of each measured run")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default="ppo-fig1a.png")
    args = ap.parse_args()

    from stable_baselines3 import PPO

    train = SpectrumSB3VecEnv(scenario(1000, 1), args.envs, seed=7)
    model = PPO("MlpPolicy", train, n_steps=256, batch_size=256, learning_rate=3e-4,
                ent_coef=0.01, seed=0, device="cpu", verbose=0)
    model.learn(args.timesteps)

    # The agent on runs 0..R-1 of the scenario's seed: environment i is run i.
    test = scenario(args.horizon, args.runs)
    vec = envs.SpectrumVectorEnv(test, args.runs)
    obs, _ = vec.reset(seed=2018)
    rewards = np.empty((args.horizon, args.runs))
    for t in range(args.horizon):
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, _, _, _ = vec.step(action)
        rewards[t] = reward
    agent = rewards.mean(axis=1)
    totals = vec.totals()

    # The built-in policies on the same runs.
    res = specprobe.run(test, threads=os.cpu_count())
    curves = res.curves()
    # A DataFrame with pandas, a dict of columns without it (the `[envs,sb3]` install).
    if isinstance(curves, dict):
        rows = [dict(zip(curves, values)) for values in zip(*curves.values())]
    else:
        rows = curves.to_dict("records")
    per_slot = {}
    for label in ("cc-ucb", "oracle"):
        pts = sorted((int(r["t"]), float(r["reward_mean"])) for r in rows if r["policy"] == label)
        per_slot[label] = pts

    t = np.arange(1, args.horizon + 1)
    cumulative = np.cumsum(agent) / t
    final = {
        "ppo": cumulative[-1],
        "cc-ucb": per_slot["cc-ucb"][-1][1] / args.horizon,
        "oracle (UCR-T1)": per_slot["oracle"][-1][1] / args.horizon,
    }
    optimum = res.summary["optimum"]["expected_reward"]
    print(f"per-slot net reward over {args.runs} runs × {args.horizon} slots "
          f"(UCR-T1's expected reward {optimum:.4f}):")
    for name, value in final.items():
        print(f"  {name:16} {value:.4f}")
    print(f"  ppo pseudo-regret at T: {np.mean([x[1] for x in totals]):.1f} "
          f"(realised {np.mean([x[2] for x in totals]):.1f})")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import font_manager
    except ImportError:
        print("(matplotlib is not installed: no chart)")
        return
    font = os.path.join(ROOT, "assets", "DejaVuSans.ttf")
    if os.path.exists(font):
        font_manager.fontManager.addfont(font)
        plt.rcParams["font.family"] = "DejaVu Sans"
    fig, ax = plt.subplots(figsize=(10, 6), dpi=100)
    ax.plot(t, cumulative, color=COLOURS["ppo"], label=f"PPO ({args.timesteps:,} steps of training)")
    for label, name in (("cc-ucb", "cc-ucb"), ("oracle", "oracle (UCR-T1)")):
        xs = [p[0] for p in per_slot[label]]
        ys = [p[1] / p[0] for p in per_slot[label]]
        ax.plot(xs, ys, color=COLOURS[name], label=name, linestyle="--" if label == "oracle" else "-")
    ax.axhline(optimum, color="#999999", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("slot t")
    ax.set_ylabel("average net reward per slot, slots 1..t")
    ax.set_title(f"Figure 1(a)'s channels: PPO against UCR-T1 and CC-UCB ({args.runs} runs)")
    ax.legend(loc="lower right")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"chart: {args.out}")


if __name__ == "__main__":
    main()
