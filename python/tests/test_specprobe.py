"""The Python package against the command line and the engine's own policies."""

import _thread
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import specprobe

ROOT = Path(__file__).resolve().parents[2]
FIG1A = ROOT / "scenarios" / "paper-fig1a.ron"
TOP3 = ROOT / "scenarios" / "spectrum-8ch-top3.ron"


def cli():
    """The specprobe binary: $SPECPROBE, else this checkout's build (cargo test builds debug)."""
    for candidate in (os.environ.get("SPECPROBE"), ROOT / "target/release/specprobe", ROOT / "target/debug/specprobe"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    found = shutil.which("specprobe")
    if found is None:
        pytest.skip("no specprobe binary (run cargo build first)")
    return found


def test_python_and_cli_write_the_same_bytes(tmp_path):
    out = tmp_path / "cli"
    subprocess.run([cli(), "run", str(FIG1A), "--runs", "3", "--horizon", "3000", "--seed", "5",
                    "--out", str(out), "--no-charts"], check=True, capture_output=True)
    res = specprobe.run(FIG1A, runs=3, horizon=3000, seed=5, threads=2)
    for name in ("summary.json", "curves.csv", "runs.csv"):
        assert res.files[name] == (out / name).read_bytes(), name
    mean = res.summary["policies"][0]["pseudo_regret"]["mean"]
    assert mean == json.loads((out / "summary.json").read_text())["policies"][0]["pseudo_regret"]["mean"]


def test_many_users_run_from_python_as_from_the_cli(tmp_path):
    scenario = ROOT / "scenarios" / "multi-bk2018-k9.ron"
    out = tmp_path / "cli"
    subprocess.run([cli(), "run", str(scenario), "--runs", "2", "--horizon", "800", "--out", str(out),
                    "--no-charts"], check=True, capture_output=True)
    res = specprobe.run(scenario, runs=2, horizon=800, threads=1)
    assert res.kind == "multi-user"
    for name in ("summary.json", "curves.csv", "runs.csv", "users.csv", "channels.csv"):
        assert res.files[name] == (out / name).read_bytes(), name
    assert res.summary["users"] == 6
    policies = res.summary["policies"]
    assert all(p["decomposition"]["runs_summing_exactly"] == 2 for p in policies)
    users = res.users()
    assert len(users) == 6 * len(policies)


class Hop:
    """Each user keeps a channel and moves to the next one after a collision."""

    def __init__(self, channels, users, mean_costs, horizon):
        assert len(mean_costs) == channels and horizon == 800
        self.k, self.on, self.busy_calls = channels, list(range(users)), 0

    def plan(self, t):
        return [[c % self.k] for c in self.on]

    def busy(self, user, channel, cost):
        self.busy_calls += 1

    def seen(self, user, transmitted, last, sample, collision, ack, cost):
        if collision:
            self.on[user] += 1


class BadTeam(Hop):
    def plan(self, t):
        return [[0]] * (len(self.on) - 1) + [[self.k if t == 9 else 0]]


class First:
    def __init__(self, channels, mean_costs):
        pass

    def plan(self, t):
        return [0]

    def observe(self, channel, idle, cost):
        pass


def test_many_users_take_python_teams_and_policies():
    scenario = ROOT / "scenarios" / "multi-bk2018-k9.ron"
    res = specprobe.run(scenario, runs=2, horizon=800, teams={"hop": Hop}, policies={"first": First})
    names = [p["name"] for p in res.summary["policies"]]
    assert names[-2:] == ["first", "hop"]
    hop = res.summary["policies"][-1]
    assert hop["policy"] == "python:Hop"
    assert hop["at_horizon"]["realized_regret"]["mean"] > 0
    assert res.summary["policies"][-2]["policy"] == "Selfish(policy: python:First)"
    with pytest.raises(specprobe.PolicyError, match=r"bad \(user 5\).*slot 9"):
        specprobe.run(scenario, runs=1, horizon=800, teams={"bad": BadTeam})


class OneChannelHop(Hop):
    one_channel = True


class OneChannelFirst(First):
    one_channel = True


class TwoChannels(OneChannelHop):
    def plan(self, t):
        return [[0, 1] if t == 4 and u == 0 else [c % self.k] for u, c in enumerate(self.on)]


def test_a_declared_one_channel_team_leaves_the_built_ins_alone():
    scenario = ROOT / "scenarios" / "multi-bk2018-k9.ron"
    alone = specprobe.run(scenario, runs=2, horizon=800)
    res = specprobe.run(scenario, runs=2, horizon=800, teams={"hop": OneChannelHop},
                        policies={"first": OneChannelFirst})
    for field in ("benchmark", "pseudo_regret", "lower_bound"):
        assert res.summary[field] == alone.summary[field], field
    n = len(alone.summary["policies"])
    assert res.summary["policies"][:n] == alone.summary["policies"]
    for p in res.summary["policies"][n:]:
        assert p["at_horizon"]["pseudo_regret"]["mean"] >= 0
        assert p["decomposition"]["runs_summing_exactly"] == 2
    # Undeclared, the team may list cascades: every team is measured against them.
    undeclared = specprobe.run(scenario, runs=2, horizon=800, teams={"hop": Hop})
    assert undeclared.summary["benchmark"] != alone.summary["benchmark"]
    with pytest.raises(specprobe.PolicyError, match=r"two \(user 0\).*slot 4.*one_channel"):
        specprobe.run(scenario, runs=1, horizon=800, teams={"two": TwoChannels})


def test_json_files_and_dicts_are_the_same_scenario():
    ron = specprobe.run(FIG1A, runs=2, horizon=1000)
    from_json = specprobe.run(ROOT / "scenarios" / "paper-fig1a.json", runs=2, horizon=1000)
    as_dict = specprobe.run(json.loads((ROOT / "scenarios" / "paper-fig1a.json").read_text()), runs=2, horizon=1000)
    assert ron.files["curves.csv"] == from_json.files["curves.csv"] == as_dict.files["curves.csv"]
    assert ron.summary["policies"] == from_json.summary["policies"] == as_dict.summary["policies"]


def test_out_writes_the_usual_folder(tmp_path):
    res = specprobe.run(FIG1A, runs=2, horizon=500, out=tmp_path / "fig", formats=["svg"])
    names = set(os.listdir(tmp_path / "fig"))
    assert {"summary.json", "curves.csv", "runs.csv", "report.md", "regret.svg"} <= names
    assert res.out == str(tmp_path / "fig")
    drawn = res.plot(tmp_path / "again", formats=["svg"])
    assert any(p.endswith("regret.svg") for p in drawn)
    # The results now live there too: out says so, and a later plot() redraws there.
    assert res.out == str(tmp_path / "again")


def test_scenario_errors_name_the_file_line_field_and_rule(tmp_path):
    bad = tmp_path / "bad.ron"
    bad.write_text(FIG1A.read_text().replace("theta: 0.7", "theta: 7.0"))
    with pytest.raises(specprobe.ScenarioError) as e:
        specprobe.run(bad)
    err = e.value
    assert err.file == str(bad)
    assert err.field == "channels[1].theta" and "[0, 1]" in err.rule
    assert err.line == 12 and err.column > 0
    bad_json = tmp_path / "bad.json"
    bad_json.write_text((ROOT / "scenarios" / "paper-fig1a.json").read_text().replace("0.7", "7.0", 1))
    with pytest.raises(specprobe.ScenarioError) as e:
        specprobe.validate(bad_json)
    assert (e.value.file, e.value.line, e.value.column, e.value.field) == (str(bad_json), 10, 17, "channels[1].theta")
    assert str(bad) in str(err) and "channels[1].theta" in str(err)
    assert isinstance(err, ValueError)


def test_dict_errors_name_the_field_including_a_wrong_type():
    base = json.loads((ROOT / "scenarios" / "paper-fig1a.json").read_text())
    base["Regret"]["channels"][0]["theta"] = 1.5
    with pytest.raises(specprobe.ScenarioError) as e:
        specprobe.validate(base)
    assert e.value.field == "channels[0].theta" and e.value.file is None
    assert e.value.line == 1 and e.value.column > 1
    base["Regret"]["channels"][0]["theta"] = "high"
    with pytest.raises(specprobe.ScenarioError) as e:
        specprobe.run(base)
    assert "channels[0].theta" in e.value.field and "string" in e.value.rule
    with pytest.raises(specprobe.ScenarioError):
        specprobe.run({"Regret": {"name": "x", "theta": float("nan")}})
    with pytest.raises(TypeError):
        specprobe.run(42)


class PyOracle:
    """Probes UCR-T1's list for Figure 1(a) (θ = 0.8 .. 0.3, c = 0.55): channels 0, 1, 2."""

    def __init__(self, channels, mean_costs=None):
        assert channels == 6 and len(mean_costs) == 6

    def plan(self, t):
        return [0, 1, 2]

    def observe(self, channel, idle, cost):
        pass


def test_a_python_oracle_gives_the_built_in_oracles_statistics_exactly():
    res = specprobe.run(FIG1A, runs=3, horizon=2000, policies={"py-oracle": PyOracle})
    by_name = {p["name"]: p for p in res.summary["policies"]}
    built_in, python = dict(by_name["oracle"]), dict(by_name["py-oracle"])
    for p in (built_in, python):
        p.pop("name"), p.pop("policy"), p.pop("paired")
    assert built_in == python


class Fails:
    def __init__(self, channels, mean_costs=None):
        pass

    def plan(self, t):
        if t == 5:
            raise ZeroDivisionError("boom")
        return [0]

    def observe(self, channel, idle, cost):
        pass


def test_a_failing_python_policy_raises_naming_it_and_the_slot_and_writes_nothing(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(specprobe.PolicyError) as e:
        specprobe.run(FIG1A, runs=2, horizon=1000, out=out, policies={"fails": Fails})
    assert "'fails'" in str(e.value) or '"fails"' in str(e.value)
    assert "slot 5" in str(e.value) and "boom" in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert not out.exists()


class BadPlan(PyOracle):
    def plan(self, t):
        return [0, 0, 99]


def test_an_invalid_plan_is_an_error_not_a_crash():
    with pytest.raises(specprobe.PolicyError, match="distinct indices below 6"):
        specprobe.run(FIG1A, runs=1, horizon=100, policies={"bad": BadPlan})


def test_ctrl_c_interrupts_a_run_within_a_second(tmp_path):
    out = tmp_path / "interrupted"
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        specprobe.run(FIG1A, runs=4, horizon=10**11, threads=2, out=out)
    assert time.monotonic() - started < 0.5 + 1.0
    assert not out.exists()


def test_ctrl_c_stops_a_run_whose_slots_are_slow():
    # Thompson sampling on 65 536 channels draws 65 536 Betas a slot (milliseconds): the
    # engine looks at the flag by channel-slots, not every 2^10 slots (a minute here).
    scenario = {"Regret": {"name": "wide", "seed": 1, "horizon": 10**6, "runs": 1,
                           "channels": [{"count": 65536, "theta": 0.5, "cost": {"Bernoulli": 0.4}}],
                           "policies": [{"policy": "ThompsonSampling"}]}}
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        specprobe.run(scenario, threads=1)
    assert time.monotonic() - started < 0.5 + 1.5


class SlowOracle(PyOracle):
    def plan(self, t):
        time.sleep(0.01)
        return super().plan(t)


# A slow policy (10 ms a slot) too: the engine looks at the flag every 2^16 slots (11 minutes
# here); the policy is no longer called once Ctrl-C is seen.
@pytest.mark.parametrize("cls", [PyOracle, SlowOracle])
def test_ctrl_c_interrupts_a_python_policy_run(cls):
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        specprobe.run(FIG1A, runs=1, horizon=10**9, policies={"py": cls})
    assert time.monotonic() - started < 0.5 + 1.0


def test_built_in_runs_release_the_interpreter():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    # A run long enough to tell (over 0.2 s): a fast machine needs a longer horizon.
    for horizon in (300_000, 1_200_000, 4_800_000):
        ticks.clear()
        started = time.monotonic()
        specprobe.run(FIG1A, runs=4, horizon=horizon, threads=1)
        elapsed = time.monotonic() - started
        if elapsed > 0.2:
            break
    stop.set()
    counter.join()
    # The counter thread ran throughout (about one tick per millisecond when not starved).
    assert elapsed > 0.2 and len(ticks) > elapsed * 100, (elapsed, len(ticks))


class Uniform:
    """Samples every arm in turn 30 times, then answers the k best empirical means."""

    def __init__(self, arms, k, sigma=None, confidence=None):
        self.arms, self.k = arms, k
        self.n, self.s, self.i = [0] * arms, [0.0] * arms, 0

    def next(self):
        if self.i >= 30 * self.arms:
            return None
        self.i += 1
        return (self.i - 1) % self.arms

    def observe(self, arm, reward):
        self.n[arm] += 1
        self.s[arm] += reward

    def answer(self):
        means = [s / max(n, 1) for s, n in zip(self.s, self.n)]
        return sorted(range(self.arms), key=lambda a: -means[a])[: self.k]


def test_identification_gives_its_table_and_runs_python_identifiers():
    res = specprobe.run(TOP3, runs=2, identifiers={"uniform": Uniform})
    assert res.kind == "identification"
    table = res.table()
    algorithms = table["algorithm"] if isinstance(table, dict) else list(table["algorithm"])
    assert "uniform" in algorithms and "LUCB1" in algorithms
    rows = [r for r in res.summary["results"] if r["algorithm"] == "uniform"]
    assert rows and all(r["samples"]["mean"] == 30 * r["n"] for r in rows)


def test_an_identification_sweep_gives_its_sweep_table():
    res = specprobe.run(ROOT / "scenarios" / "identification-sweep-confidence.ron", runs=3)
    assert res.kind == "identification-sweep"
    assert res.summary["values"] == [0.2, 0.1, 0.05, 0.01, 0.001]
    table = res.table()
    nu = table["confidence"] if isinstance(table, dict) else list(table["confidence"])
    # One row per algorithm and value: four algorithms, five values.
    assert len(nu) == 4 * 5 and sorted(set(nu)) == [0.001, 0.01, 0.05, 0.1, 0.2]
    entry = res.summary["entries"][0]
    assert [p["runs"] for p in entry["points"]] == [3] * 5
    # The cells' data files come along, so that plot() redraws the cells too.
    assert "confidence=0.01/identification.csv" in res.files
    drawn = res.plot(formats=["svg"])
    assert any(p.endswith("report.md") and "confidence=0.01" in p for p in drawn)
    assert any(os.path.basename(p).startswith("sweep-1-") for p in drawn)


def test_curves_without_pandas_are_a_dict_of_lists(monkeypatch):
    res = specprobe.run(FIG1A, runs=2, horizon=500)
    monkeypatch.setitem(sys.modules, "pandas", None)
    curves = res.curves()
    assert isinstance(curves, dict) and curves["policy"][0] == "cc-ucb"
    assert isinstance(curves["t"][0], int) and isinstance(curves["pseudo_regret_mean"][0], float)
    # A single run has no interval: missing, not an empty string.
    one = specprobe.run(FIG1A, runs=1, horizon=300).curves()
    low = [k for k in one if k.endswith("ci95_lo")][0]
    assert one[low][0] is None


def test_curves_with_pandas_are_a_dataframe():
    pd = pytest.importorskip("pandas")
    df = specprobe.run(FIG1A, runs=2, horizon=500).curves()
    assert isinstance(df, pd.DataFrame) and set(df["policy"]) >= {"cc-ucb", "oracle"}


def test_validate_merge_compare_and_policies(tmp_path):
    assert "UCR-T1 optimum" in specprobe.validate(FIG1A)
    assert "CcUcb" in specprobe.policies()
    shards = []
    for i in range(2):
        d = tmp_path / f"shard{i}"
        subprocess.run([cli(), "run", str(FIG1A), "--runs", "2", "--horizon", "500", "--shard", f"{i}/2",
                        "--out", str(d)], check=True, capture_output=True)
        shards.append(d)
    merged = specprobe.merge(shards, out=tmp_path / "merged", formats=["svg"])
    whole = specprobe.run(FIG1A, runs=2, horizon=500)
    assert (Path(merged) / "summary.json").read_bytes() == whole.files["summary.json"]
    cmp = specprobe.compare([merged, FIG1A], out=tmp_path / "cmp", runs=2, horizon=500, formats=["svg"])
    assert (Path(cmp) / "report.md").exists()
    # Both absolute, whatever the working directory.
    assert os.path.isabs(merged) and os.path.isabs(cmp)


@pytest.mark.parametrize("keyword, value, error, says", [
    ("runs", -1, ValueError, "runs: must be at least 1"),
    ("runs", 0, ValueError, "runs: must be at least 1"),
    ("horizon", 1.5, ValueError, "horizon: expected a whole number"),
    ("horizon", "1e5", TypeError, "horizon: expected a whole number"),
    ("threads", True, TypeError, "threads"),
    ("formats", "jpg", ValueError, "formats: 'jpg' is not a chart format"),
    ("max_memory", "lots", ValueError, "max_memory"),
    ("max_time", "soon", ValueError, "max_time"),
    ("max_time", True, TypeError, "max_time"),
    # A list of classes has no labels: a TypeError saying how to write it, not AttributeError.
    ("policies", [object], TypeError, "policies must map labels to classes.*not a list.*__name__"),
    ("teams", (object,), TypeError, "teams must map labels to classes.*not a tuple"),
    ("identifiers", object, TypeError, "identifiers must map labels to classes.*not a type"),
    ("policies", {1: object}, TypeError, "policies: every label must be a str"),
    ("teams", {"hop": 3}, TypeError, r"teams\['hop'\] must be a class"),
])
def test_keyword_errors_name_the_keyword(keyword, value, error, says):
    with pytest.raises(error, match=says.replace("(", r"\(")):
        specprobe.run(FIG1A, **{keyword: value})


def test_keywords_take_what_the_command_line_takes(tmp_path):
    res = specprobe.run(FIG1A, runs=2.0, horizon=5e2, max_memory="8G", out=tmp_path / "o", formats="svg")
    assert res.summary["horizon"] == 500 and res.summary["runs"] == 2
    assert (tmp_path / "o" / "regret.svg").exists() and not (tmp_path / "o" / "regret.png").exists()
    # A run estimated to take longer than max_time is refused before anything runs.
    with pytest.raises(specprobe.SpecprobeError, match="max-time"):
        specprobe.run(FIG1A, runs=10**6, horizon=10**6, max_time=60)
    assert specprobe.run(FIG1A, runs=2, horizon=500, max_time="1h").summary["runs"] == 2


def test_scenario_text_is_read_or_refused_with_what_to_pass():
    as_dict = json.loads((ROOT / "scenarios" / "paper-fig1a.json").read_text())
    from_text = specprobe.run(json.dumps(as_dict), runs=2, horizon=300)
    assert from_text.files["summary.json"] == specprobe.run(as_dict, runs=2, horizon=300).files["summary.json"]
    with pytest.raises(TypeError, match="pass a path to a .ron or .json file, or a dict"):
        specprobe.run(FIG1A.read_text())


def test_plot_without_out_draws_into_one_folder_kept_as_out():
    res = specprobe.run(FIG1A, runs=2, horizon=300)
    first = res.plot(formats="svg")
    assert res.out is not None and all(p.startswith(res.out) for p in first)
    second = res.plot(formats="svg")
    assert os.path.dirname(second[0]) == os.path.dirname(first[0]) == res.out


class Seeded:
    """Records the seed each run gives it; plans a random list from it."""

    seeds = []

    def __init__(self, channels, mean_costs=None, seed=None):
        Seeded.seeds.append(seed)
        import random
        self.k, self.rng = channels, random.Random(seed)

    def plan(self, t):
        return self.rng.sample(range(self.k), 2)

    def observe(self, channel, idle, cost):
        pass


def test_each_run_of_a_python_policy_gets_its_own_seed_and_a_rerun_the_same():
    Seeded.seeds = []
    first = specprobe.run(FIG1A, runs=4, horizon=200, policies={"seeded": Seeded})
    seeds = list(Seeded.seeds)
    assert len(seeds) == 4 and len(set(seeds)) == 4 and all(isinstance(s, int) for s in seeds)
    Seeded.seeds = []
    again = specprobe.run(FIG1A, runs=4, horizon=200, policies={"seeded": Seeded})
    assert sorted(Seeded.seeds) == sorted(seeds)
    assert again.files["runs.csv"] == first.files["runs.csv"]
    Seeded.seeds = []
    specprobe.run(FIG1A, runs=4, horizon=200, seed=7, policies={"seeded": Seeded})
    assert not set(Seeded.seeds) & set(seeds)


def test_results_show_their_table_in_a_notebook():
    res = specprobe.run(FIG1A, runs=2, horizon=300)
    page = res._repr_html_()
    assert "<table>" in page and "<th>policy</th>" in page and "<td>cc-ucb</td>" in page
    drawn = specprobe.run(FIG1A, runs=2, horizon=300, formats=["png"], out=None)
    assert drawn._repr_png_() is None or drawn._repr_png_().startswith(b"\x89PNG")


def test_every_exception_is_a_specprobe_error_and_scenario_errors_are_value_errors():
    assert issubclass(specprobe.ScenarioError, specprobe.SpecprobeError)
    assert issubclass(specprobe.ScenarioError, ValueError)
    assert issubclass(specprobe.PolicyError, specprobe.SpecprobeError)
    # Tracebacks name the package, not the extension module.
    assert specprobe.PolicyError.__module__ == "specprobe"
    assert specprobe.ScenarioError.__module__ == "specprobe"


def test_the_version_is_the_crates():
    import importlib.metadata

    assert specprobe.__version__ == importlib.metadata.version("specprobe")
    cargo = (Path(__file__).resolve().parents[2] / "Cargo.toml").read_text()
    assert f'\nversion = "{specprobe.__version__}"\n' in cargo


def test_dir_lists_the_api_only():
    names = dir(specprobe)
    for helper in ["Any", "Dict", "os", "json", "tempfile", "csv", "io"]:
        assert helper not in names, helper
    for api in ["run", "validate", "plot", "merge", "compare", "Results", "Policy", "Problem"]:
        assert api in names, api


def test_a_run_refuses_more_threads_than_the_command_line_allows():
    """`threads` is bounded as `--threads` is: a count such as 2^62 is refused by name before
    any worker starts (the pool would otherwise ask the system for that many threads)."""
    with pytest.raises(specprobe.SpecprobeError, match=r"threads: must lie in 1\.\.=4095 \(got 4611686018427387904\)"):
        specprobe.run(FIG1A, runs=1, horizon=10, threads=2**62)
    assert specprobe._specprobe.MAX_THREADS == 4095


def test_the_policies_after_2018_and_system_rewards_from_python():
    """DPE, BEACON, CUCB and Game of Thrones run from a dict scenario, with users who see Markov
    channels differently and a system reward; the summary names the benchmark and its kind."""
    channels = [{"occupancy": {"Markov": {"idle_to_busy": 0.05, "busy_to_idle": 0.15}}, "cost": {"Constant": 0.0}},
                {"theta": 0.5, "cost": {"Constant": 0.0}},
                {"theta": 0.3, "cost": {"Constant": 0.0}}]
    scenario = {"MultiUser": {
        "name": "frontier", "seed": 3, "horizon": 3000, "runs": 2, "users": 2,
        "feedback": "SensingAndCollision", "collision": "SameChannel",
        "system_reward": "MaxMin",
        "channels": channels,
        "user_theta": [[0.75, 0.3], [0.5, 0.9], [0.3, 0.2]],
        "policies": [{"policy": {"Beacon": {"initial_pulls": 20}}}, {"policy": {"Cucb": {}}},
                     {"policy": {"GameOfThrones": {}}}]}}
    res = specprobe.run(scenario, threads=1)
    assert [p["name"] for p in res.summary["policies"]] == ["beacon", "cucb", "got"]
    assert res.summary["system_reward"]["kind"] == "max_min"
    assert res.summary["benchmark"]["lists"] == [[0], [1]]
    assert abs(res.summary["benchmark"]["expected_reward_per_slot"] - 0.75 * 0.9) < 1e-12
    dpe = {"MultiUser": {
        "name": "dpe", "seed": 3, "horizon": 2000, "runs": 2, "users": 2,
        "feedback": "SensingAndCollision", "shuffle": True,
        "channels": [{"theta": t, "cost": {"Constant": 0.0}} for t in (0.9, 0.6, 0.3)],
        "policies": [{"policy": {"Dpe": {"convention": "Reference"}}}]}}
    res = specprobe.run(dpe, threads=1)
    assert res.summary["policies"][0]["name"] == "dpe-ref"
    with pytest.raises(specprobe.ScenarioError, match="needs the collision indicator in every slot"):
        dpe["MultiUser"]["feedback"] = "SensingThenCollision"
        specprobe.run(dpe)


def test_a_long_run_shows_its_progress_on_stderr_when_asked(capfd):
    # Runs of over a second and a half: the line appears after the first second and ends with
    # a newline (a fast machine needs the longer horizon).
    for horizon in (2_000_000, 6_000_000):
        started = time.monotonic()
        specprobe.run(FIG1A, runs=4, horizon=horizon, threads=1, progress=True)
        if time.monotonic() - started > 1.5:
            break
    err = capfd.readouterr().err
    assert re.search(r"specprobe: \d+/4 runs, \d+ s", err), err
    assert err.endswith("\n"), err
    specprobe.run(FIG1A, runs=2, horizon=1000, progress=False)
    assert capfd.readouterr().err == ""
    with pytest.raises(TypeError, match="progress"):
        specprobe.run(FIG1A, runs=2, horizon=1000, progress="yes")
