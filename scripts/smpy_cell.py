#!/usr/bin/env python3
"""One chunk of one cell of the multi-player cross-check, run by SMPyBandits' own code.

Run by `scripts/smpy_crosscheck.py` with the Python of a virtual environment that has
SMPyBandits 0.9.7 (`python3 -m venv smpy && smpy/bin/pip install SMPyBandits "scipy<1.14"`);
not meant to be called by hand. Reads a JSON cell from argv[1]:

    {"means": [...], "users": M, "horizon": T, "policy": "mctopm-klucb",
     "runs": R, "seed": S, "memo": true, "numba": true, "simd": false}

and prints one JSON line: the per-run pseudo-regret and its three terms, computed from
`EvaluatorMultiPlayers`' own per-repetition arrays (`lastPulls`, `lastCumCollisions`), with its
default collision model (`onlyUniqUserGetsReward`: every colliding user loses the slot; every
user observes its sensing and the collision indicator, specprobe's `SensingAndCollision`).

The repetitions run one after another in this process (`n_jobs = 1`), from
`np.random.seed(S)` and `random.seed(S)`: the driver gives every chunk its own seed. (With
`n_jobs > 1` the evaluator draws the repetitions' seeds from `randint(0, 100 * repetitions)`,
so two repetitions often share a seed and run identically; a chunk per process avoids that.)

Policies are built as SMPyBandits' own configuration files build them: the index policies'
mothers with their children, Selfish over a single-player index policy, and MEGA, Musical
Chairs and SIC-MMAB as the players themselves (wrapped in `Selfish`, their collision handling
would be bypassed: Selfish turns a collision into a zero reward).
"""
import contextlib
import io
import json
import os
import random
import sys

#: numpy's SIMD sorts (x86-simd-sort, dispatched on AVX2 and AVX-512 machines since numpy
#: 1.25) order equal values differently from its baseline sort, and data-dependently; the
#: baseline sort (introsort, insertion sort below 17 elements) keeps them in index order, as
#: every numpy did when SMPyBandits' figures were made. SMPyBandits takes its policies' M best
#: channels as the last M of `np.argsort(index)`, so MCTopM's and RandTopM's numbers depend on
#: that order: the worker disables the SIMD dispatch (a documented numpy switch), so that its
#: numbers are the same on every machine, and checks the sort it gets.
SIMD = "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR AVX2 FMA3"
CELL = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
if not CELL.get("simd", False):
    os.environ["NPY_DISABLE_CPU_FEATURES"] = SIMD

import numpy as np  # noqa: E402  (after the switch, which numpy reads at import)

if CELL.get("numba", True):
    # SMPyBandits' kl-UCB (Policies/kullback.py) is written for numba's jit, imported as
    # `from numba.decorators import jit` (Policies/usenumba.py); numba 0.49 moved it to
    # `numba.jit`, so SMPyBandits silently falls back to pure Python. Restoring the old name
    # lets SMPyBandits run its own jitted functions, which give the same values bit for bit
    # (`smpy_crosscheck.py --check-memo` runs chunks both ways and compares every run).
    try:
        import numba

        sys.modules.setdefault("numba.decorators", numba)
    except ImportError:
        pass


def check_sort():
    """Fails unless `np.argsort` keeps equal values in index order on small arrays."""
    rng = np.random.default_rng(0)
    for n in range(2, 17):
        for _ in range(200):
            a = rng.integers(0, 3, size=n).astype(float)
            if not (np.argsort(a) == np.argsort(a, kind="stable")).all():
                raise SystemExit(
                    "smpy_cell.py: numpy's argsort orders equal values out of index order even "
                    f"with NPY_DISABLE_CPU_FEATURES={SIMD!r}; the cross-check needs the "
                    "baseline sort"
                )


def players(name, k, m, horizon):
    """The M players of policy `name`, as SMPyBandits' configuration files build them."""
    from SMPyBandits.Policies import MEGA, SIC_MMAB, UCB, MusicalChair, klUCB
    from SMPyBandits.PoliciesMultiPlayers import (
        MCTopM,
        CentralizedMultiplePlay,
        RandTopM,
        Selfish,
        rhoRand,
    )

    index = {"klucb": klUCB, "ucb": UCB}
    mothers = {
        "centralized": CentralizedMultiplePlay,
        "mctopm": MCTopM,
        "randtopm": RandTopM,
        "rhorand": rhoRand,
        "selfish": Selfish,
    }
    family, _, kind = name.rpartition("-")
    if family in mothers and kind in index:
        return mothers[family](m, k, index[kind]).children
    if name == "mega":
        return [MEGA(k, p0=0.5, alpha=0.5, beta=0.5, c=0.1, d=0.01) for _ in range(m)]
    if name == "musical-chairs":
        return [MusicalChair(k, Time0=0.25, Time1=horizon) for _ in range(m)]
    if name == "sic-mmab":
        return [SIC_MMAB(k, horizon) for _ in range(m)]
    raise SystemExit(f"smpy_cell.py: unknown policy {name!r}")


def memoise_indices():
    """Makes SMPyBandits' index policies compute each index vector once per state.

    MCTopM and RandTopM ask their index policy for every index three or four times per
    decision (`Mbest`, `worst_Mbest`, `_index`, `handleCollision`), each a bisection per arm in
    pure Python. `computeAllIndex` is a pure function of the policy's `t`, `pulls` and
    `rewards` (no random draw), so keeping its last result for an unchanged state changes no
    value, only the CPU time (`--no-memo` runs the code untouched; the two give the same
    per-run results for a seed, which `smpy_crosscheck.py --check-memo` verifies)."""
    from SMPyBandits.Policies import UCB, klUCB

    for cls in (klUCB, UCB):
        compute = cls.computeAllIndex

        def cached(self, compute=compute):
            state = (self.t, self.pulls.tobytes(), self.rewards.tobytes())
            if getattr(self, "_memo_state", None) != state:
                compute(self)
                self._memo_state = state
                self._memo_index = self.index.copy()
            else:
                self.index[:] = self._memo_index

        cls.computeAllIndex = cached


def main():
    cell = CELL
    if not cell.get("simd", False):
        check_sort()
    means = [float(x) for x in cell["means"]]
    k, m, horizon, runs = len(means), cell["users"], cell["horizon"], cell["runs"]
    np.random.seed(cell["seed"])
    random.seed(cell["seed"])
    # SMPyBandits prints a great deal (and a progress bar per repetition): keep stdout for
    # the result line.
    noise = io.StringIO()
    with contextlib.redirect_stdout(noise), contextlib.redirect_stderr(noise):
        if cell.get("memo", True):
            memoise_indices()
        from SMPyBandits.Arms import Bernoulli
        from SMPyBandits.Environment.EvaluatorMultiPlayers import EvaluatorMultiPlayers

        cfg = {
            "horizon": horizon,
            "repetitions": runs,
            "n_jobs": 1,
            "verbosity": 0,
            "environment": [{"arm_type": Bernoulli, "params": means}],
            "players": players(cell["policy"], k, m, horizon),
            "showplot": False,
        }
        ev = EvaluatorMultiPlayers(cfg)
        ev.startAllEnv()
        regret = ev.getLastRegrets_MoreAccurate(0)
    # The terms of the decomposition per repetition, from the same arrays.
    mu = np.array(means)
    order = np.argsort(mu, kind="stable")
    mm = min(m, k)
    best = order[-mm:]
    star = mu[order[-mm]] if m <= k else 0.0
    pulls = ev.lastPulls[0].sum(axis=0)  # (arms, repetitions)
    coll = ev.lastCumCollisions[0]  # (arms, repetitions)
    worst = np.setdiff1d(np.arange(k), best)
    a = ((star - mu[worst])[:, None] * pulls[worst]).sum(axis=0)
    b = ((mu[best] - star)[:, None] * (horizon - pulls[best])).sum(axis=0)
    c = (mu[:, None] * coll).sum(axis=0)
    print(
        json.dumps(
            {
                "regret": [float(x) for x in regret],
                "a": [float(x) for x in a],
                "b": [float(x) for x in b],
                "c": [float(x) for x in c],
            }
        )
    )


if __name__ == "__main__":
    main()
