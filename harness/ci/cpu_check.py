#!/usr/bin/env python3
"""cpu_check.py: loopbench's CPU figure against a burner's own, on the platform it runs on.

    python3 harness/ci/cpu_check.py LOOPBENCH [--tolerance POINTS] [--keep DIR]

The check wine cannot make (docs/platforms.md), run by the macOS and Windows jobs of
.github/workflows/ci.yml. tests/helpers/burner.c is Linux's; this script is its own
burner, in Python, which every runner has. It writes a profile whose target is this
script in burner mode, at 25% and 50% of one core (an environment knob), and runs a
campaign of it, 2 runs each. The burner idles 3.5 s, burns its share for 6 s (spinning
until its process CPU clock has caught up with the share of the time since the burn
began, sleeping to the end of each 10 ms period), prints the CPU time the burn used by
its own clock, and idles until stopped. loopbench's window starts 2 s after the start
(ready.delay, which every platform has) and lasts 10 s: the burner is idle at both
edges, so its own figure is the truth for the window, whatever the edges' exact
instants. Exit status 1 when any run's CPU % differs from the burner's by more than
POINTS (default 0.5), 2 when the campaign itself fails.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DELAY_S, BURN_S, READY_S, WINDOW_S, PERIOD_S = 3.5, 6.0, 2.0, 10.0, 0.01


def burn(share):
    """Burner mode: the target of the campaign."""
    time.sleep(DELAY_S)
    c0, t0 = time.process_time(), time.monotonic()
    k = 0
    while True:
        k += 1
        period_end = min(t0 + k * PERIOD_S, t0 + BURN_S)
        target = c0 + share * (period_end - t0)
        while time.process_time() < target and time.monotonic() < period_end:
            pass
        left = period_end - time.monotonic()
        if left > 0:
            time.sleep(left)
        if period_end >= t0 + BURN_S:
            break
    used = time.process_time() - c0
    print(f"burner: burned cpu_seconds={used:.6f} share={share}", flush=True)
    while True:
        time.sleep(3600)


def profile(work):
    return {
        "name": "selfburn",
        "description": "cpu_check.py's burner: idles, burns a share of one core, idles",
        "command": [sys.executable, os.path.abspath(__file__), "burn"],
        "cwd": ".",
        "knob": {"name": "share", "label": "share of a core", "values": ["0.25", "0.5"],
                 "env": "BURN_SHARE"},
        "ready": {"delay": READY_S},
        "stop": {"signal": "SIGTERM", "grace": 2},
        "defaults": {"warmup": 0, "sample": WINDOW_S, "repeat": 2},
    }


def check(loopbench, tolerance, work):
    path = os.path.join(work, "selfburn.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(profile(work), f, indent=2)
    out = os.path.join(work, "campaign")
    run = subprocess.run([loopbench, "run", path, "-o", out, "-q"], check=False)
    if run.returncode != 0:
        print(f"cpu_check: loopbench run exited {run.returncode}")
        return 2
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
        results = json.load(f)
    failed = 0
    for r in results["runs"]:
        with open(os.path.join(out, r["stdout_log"]), encoding="utf-8") as f:
            said = re.search(r"burner: burned cpu_seconds=([0-9.]+)", f.read())
        if r.get("status") != "ok" or not said:
            print(f"FAIL: run {r['setting']}-{r['repeat']}: status {r.get('status')}, "
                  f"burner line {'found' if said else 'missing'}")
            failed += 1
            continue
        own = float(said.group(1)) / r["wall_seconds"] * 100
        diff = r["cpu_percent"] - own
        ok = abs(diff) <= tolerance
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'}: share {r['setting']} run {r['repeat']}: loopbench "
              f"{r['cpu_percent']:.3f} % ({r.get('cpu_source')}), the burner's own {own:.3f} %, "
              f"{diff:+.3f} points (tolerance {tolerance})")
    return 1 if failed else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "burn":
        burn(float(os.environ["BURN_SHARE"]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loopbench")
    parser.add_argument("--tolerance", type=float, default=0.5)
    parser.add_argument("--keep", help="run in DIR and keep it")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="loopbench-cpu-check-")
    os.makedirs(work, exist_ok=True)
    try:
        return check(os.path.abspath(args.loopbench), args.tolerance, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
