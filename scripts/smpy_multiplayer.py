#!/usr/bin/env python3
"""The multi-player workload of scenarios/multi-bk2018-k9.ron in SMPyBandits, for the numbers
and the speed comparison in the guide (guide/src/cross-checks.md).

K = 9 Bernoulli channels, means 0.1..0.9, M = 6 users, T = 10^4, the default collision model
(onlyUniqUserGetsReward: every user on a collision loses the slot; learners observe sensing and
the collision indicator, specprobe's `feedback: SensingAndCollision`). Prints, per policy, the
mean final centralised regret from the rewards (SMPyBandits' "less accurate" one, comparable
with specprobe's realised regret), the three terms of the decomposition (the third summed over
time: this SMPyBandits version's `getThirdRegretTerm` returns the per-slot losses without
accumulating them, so its "more accurate" regret leaves the collisions out), and the process
CPU time per user-slot.

    python3 scripts/smpy_multiplayer.py [repetitions] [horizon] [policy,policy,...]

Needs `pip install SMPyBandits "scipy<1.14"`.
"""
import sys
import time

from SMPyBandits.Arms import Bernoulli
from SMPyBandits.Environment.EvaluatorMultiPlayers import EvaluatorMultiPlayers
from SMPyBandits.Policies import SIC_MMAB, klUCB, UCB
from SMPyBandits.PoliciesMultiPlayers import (
    CentralizedMultiplePlay,
    MCTopM,
    RandTopM,
    Selfish,
    rhoRand,
)


def main():
    repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    horizon = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    means = [0.1 * i for i in range(1, 10)]
    k, m = len(means), 6
    policies = {
        "centralized-klucb": lambda: CentralizedMultiplePlay(m, k, klUCB).children,
        "mctopm-klucb": lambda: MCTopM(m, k, klUCB).children,
        "randtopm-klucb": lambda: RandTopM(m, k, klUCB).children,
        "rhorand-klucb": lambda: rhoRand(m, k, klUCB).children,
        "selfish-ucb": lambda: Selfish(m, k, UCB).children,
        # Its own collision handling: the players themselves (Selfish would hide collisions).
        "sic-mmab": lambda: [SIC_MMAB(k, horizon) for _ in range(m)],
    }
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else list(policies)
    print(f"K = {k}, M = {m}, T = {horizon}, {repetitions} repetitions")
    for name, players in policies.items():
        if name not in only:
            continue
        cfg = {
            "horizon": horizon,
            "repetitions": repetitions,
            "n_jobs": 1,
            "verbosity": 0,
            "environment": [{"arm_type": Bernoulli, "params": means}],
            "players": players(),
            "showplot": False,
        }
        start = time.process_time()
        ev = EvaluatorMultiPlayers(cfg)
        ev.startAllEnv()
        cpu = time.process_time() - start
        regret = ev.getCentralizedRegret(0, moreAccurate=False)[-1]
        a = ev.getFirstRegretTerm(0)[-1]
        b = ev.getSecondRegretTerm(0)[-1]
        c = ev.getThirdRegretTerm(0).sum()
        per = cpu / (repetitions * horizon * m)
        print(
            f"RESULT {name}: regret {regret:.1f} (a {a:.1f}, b {b:.1f}, c {c:.1f}; a+b+c {a + b + c:.1f}),"
            f" CPU {cpu:.1f} s, {per * 1e6:.2f} µs per user-slot"
        )


if __name__ == "__main__":
    main()
