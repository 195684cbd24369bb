#!/usr/bin/env python3
"""Small files that ask for too much: each must be refused within a second using less than
100 MB (peak resident memory from /usr/bin/time when present, else getrusage).

    scripts/faults/bombs.py [SPECPROBE]     (default: target/release/specprobe)
"""
import os, resource, subprocess, sys, tempfile, time

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/specprobe")


def files(d):
    ch = ",\n".join("(count: 1048576, theta: 0.5, cost: Bernoulli(0.4))" for _ in range(64))
    one = '(theta: 0.5, cost: Bernoulli(0.4))'
    grid = ",\n".join(f'(label: "c{i}", channels: [(count: 4000, theta: 0.5, cost: Bernoulli(0.4))])' for i in range(400))
    many_cp = ",\n".join(f'(label: "c{i}", channels: [{one}, {one}])' for i in range(2000))
    pol = ", ".join(f'(label: "p{i}", policy: CcUcb)' for i in range(40))
    os.mkfifo(os.path.join(d, "fifo"))
    return {
        "64 × count 1048576": f'Regret(name: "b", horizon: 10, runs: 1, channels: [{ch}], policies: [(policy: CcUcb)])',
        "grid of 400 × 4000 channels": f'Regret(name: "b", horizon: 1000, runs: 2, grid: [{grid}], policies: [(policy: CcUcb)])',
        "grid × policies × checkpoints": f'Regret(name: "b", horizon: 1000000, runs: 2000000, checkpoints: (per_decade: 20, linear: 10000), grid: [{many_cp}], policies: [{pol}])',
        "runs 10^12": f'Regret(name: "b", horizon: 10, runs: 1000000000000, channels: [{one}], policies: [(policy: CcUcb)])',
        "horizon 10^18": f'Regret(name: "b", horizon: 1000000000000000000, runs: 1, channels: [{one}], policies: [(policy: CcUcb)])',
        "sweep of 1000 cells × 100k channels": f'Regret(name: "b", horizon: 10, runs: 1, channels: [(count: 100000, theta: 0.5, cost: Bernoulli(0.4))], policies: [(policy: CcUcb)], sweep: (field: "seed", values: [{", ".join(str(i) for i in range(1000))}]))',
        "Channels(/dev/zero)": 'Identification(name: "b", runs: 1, instances: [(label: "x", family: Channels(scenario: "/dev/zero"), k: Fixed(1))], algorithms: [Lucb1])',
        "Channels(FIFO)": 'Identification(name: "b", runs: 1, instances: [(label: "x", family: Channels(scenario: "fifo"), k: Fixed(1))], algorithms: [Lucb1])',
        "Channels(itself)": 'Identification(name: "b", runs: 1, instances: [(label: "x", family: Channels(scenario: "bomb.ron"), k: Fixed(1))], algorithms: [Lucb1])',
        "trace from /dev/urandom": f'Regret(name: "b", horizon: 10, runs: 1, channels: [(occupancy: Trace(file: "/dev/urandom", column: 1), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])',
        "identification 10^12 runs": 'Identification(name: "b", runs: 1000000000000, instances: [(label: "x", family: OneSparse, k: Fixed(1), arms: [1000000])], algorithms: [Lucb1])',
        # Valid and within memory, but hours of work: `run` refuses from the estimate
        # (--max-time); `validate` prints it.
        "time: runs 2·10^7 × horizon 10^4": f'Regret(name: "b", horizon: 10000, runs: 20000000, channels: [{one}, {one}], policies: [(policy: CcUcb)])',
        "time: identification at N = 2^20": 'Identification(name: "b", seed: 5, runs: 1000, instances: [(label: "a", family: OneSparse, k: Fixed(2), arms: [1048576])], algorithms: [Lucb1])',
    }


def measure(args, cwd):
    t = time.monotonic()
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *args], capture_output=True, text=True, cwd=cwd, timeout=60)
        lines = p.stderr.strip().splitlines()
        rss_kb = int(lines[-1])
        stderr = "\n".join(l for l in lines[:-1] if not l.startswith("Command exited"))
    else:
        p = subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=60)
        rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        stderr = p.stderr
    return p.returncode, time.monotonic() - t, rss_kb / 1024, stderr


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for name, text in files(d).items():
            path = os.path.join(d, "bomb.ron")
            open(path, "w").write(text)
            commands = [["validate", path], ["run", path, "--out", os.path.join(d, "out"), "--no-charts"]]
            for command in commands[1:] if name.startswith("time:") else commands:
                try:
                    rc, secs, mb, err = measure([B, *command], d)
                except subprocess.TimeoutExpired:
                    rc, secs, mb, err = None, 60.0, float("nan"), "timed out after 60 s"
                ok = rc == 1 and secs < 1.0 and mb < 100
                bad += not ok
                last = (err.strip().splitlines() or [""])[-1].strip()[:130]
                print(f"{'ok ' if ok else 'BAD'} {name:38} {command[0]:8} exit {rc}  {secs:5.2f} s  {mb:6.1f} MB  {last}")
    print(f"\n{bad} bombs not refused within 1 s and 100 MB")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
