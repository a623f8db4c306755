#!/usr/bin/env python3
"""The mutation score over more seeds and captures than the unit test's (docs/mutate.md).

`MutationScore` (conformance/mutate/tests/mutation_score_test.cpp) mutates every real capture of
vectors/real/ with seeds 1-3. This sweep drives the CLI instead, over any captures and any seed
range, so that a rule that catches a mutant only on the frames those three seeds pick shows up:

    scripts/mutation-sweep.py --seeds 4-40 vectors/real/*.pcap
    scripts/mutation-sweep.py --seeds 1-10 --profile iba $(find vectors -name '*.pcap')

The judgement is the unit test's: a forbidden mutant is judged right when the verdict is FAIL
and its recorded rule has more violations (not declared deviations) than the unmutated capture
has; a control is judged right when it does not turn a capture that is not FAIL into FAIL. On
every capture and mutant the Z3 invariants must agree with the C++ rules over the same facts
(z3.key with key.static; z3.psn with ack.epsn or psn.window). Each seed draws the frame among
the eligible ones and the values written (mutate.cpp): on a capture with few eligible frames two
seeds may make the same mutant, and it is judged again.
Exit 0 when every mutant is judged right, 1 otherwise (each misjudged one is printed with the
command that remakes it).
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

DEFAULT_ROCECERT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                "release", "apps", "rocecert", "rocecert")
NOT_ELIGIBLE = 3  # `rocecert mutate`'s exit code when no frame of the capture is eligible


def kinds(rocecert):
    out = subprocess.run([rocecert, "mutate", "--list"], check=True, capture_output=True,
                         text=True).stdout
    result = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            result.append((parts[0], parts[1]))
    return result


def check(rocecert, profile, pcap):
    """The JSON report of `rocecert check` (exit 0 or 1), or raises on anything else."""
    p = subprocess.run([rocecert, "check", "-q", "--profile", profile, "--json", "-", pcap],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"check {pcap}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def failures(report, rule):
    return sum(1 for v in report["violations"] if v["rule"] == rule and not v["deviation"])


def z3_disagreement(report):
    key = (failures(report, "z3.key") > 0) != (failures(report, "key.static") > 0)
    psn = (failures(report, "z3.psn") > 0) != (
        failures(report, "ack.epsn") + failures(report, "psn.window") > 0)
    return ", ".join(w for w, bad in (("z3.key vs key.static", key),
                                      ("z3.psn vs ack.epsn/psn.window", psn)) if bad)


def sweep_capture(rocecert, profile, pcap, kind_list, seeds, tmpdir):
    """Every kind and seed on one capture: a list of (kind, rule, seed, outcome, detail)."""
    rows = []
    base = check(rocecert, profile, pcap)
    bad = z3_disagreement(base)
    if bad:
        rows.append(("(base)", "-", 0, "z3", bad))
    mutant = os.path.join(tmpdir, f"{os.getpid()}-{os.path.basename(pcap)}")
    for name, rule in kind_list:
        control = rule == "control"
        if control and base["verdict"] == "FAIL":
            continue
        for seed in seeds:
            m = subprocess.run([rocecert, "mutate", pcap, mutant, "--op", name, "--seed",
                                str(seed)], capture_output=True, text=True)
            if m.returncode == NOT_ELIGIBLE:
                break
            if m.returncode != 0:
                rows.append((name, rule, seed, "error", m.stderr.strip()))
                continue
            rep = check(rocecert, profile, mutant)
            bad = z3_disagreement(rep)
            if bad:
                rows.append((name, rule, seed, "z3", bad))
            if control:
                right = rep["verdict"] != "FAIL"
            else:
                right = rep["verdict"] == "FAIL" and failures(rep, rule) > failures(base, rule)
            detail = "" if right else rep["verdict"] + ": " + "; ".join(
                sorted({v["rule"] for v in rep["violations"] if not v["deviation"]}))
            rows.append((name, rule, seed, "right" if right else "wrong", detail))
    if os.path.exists(mutant):
        os.remove(mutant)
    return pcap, rows


def seed_range(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("captures", nargs="+")
    ap.add_argument("--seeds", type=seed_range, default=seed_range("1-3"), help="A-B (default 1-3)")
    ap.add_argument("--profile", default="rxe")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rocecert", default=DEFAULT_ROCECERT)
    args = ap.parse_args()
    kind_list = kinds(args.rocecert)
    per_kind = defaultdict(lambda: [set(), 0, 0])  # eligible captures, mutants, judged right
    wrong = []
    with tempfile.TemporaryDirectory() as tmpdir, \
            concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(sweep_capture, args.rocecert, args.profile, c, kind_list,
                               args.seeds, tmpdir) for c in args.captures]
        for f in concurrent.futures.as_completed(futures):
            pcap, rows = f.result()
            for name, rule, seed, outcome, detail in rows:
                if outcome in ("right", "wrong"):
                    k = per_kind[(name, rule)]
                    k[0].add(pcap)
                    k[1] += 1
                    k[2] += outcome == "right"
                if outcome != "right":
                    wrong.append((pcap, name, rule, seed, outcome, detail))
    total = right = 0
    for name, rule in kind_list:
        eligible, mutants, judged = per_kind[(name, rule)]
        total += mutants
        right += judged
        print(f"{name:24} {rule:16} eligible in {len(eligible):3} of {len(args.captures)} "
              f"captures, {judged} of {mutants} mutants judged right")
    for pcap, name, rule, seed, outcome, detail in sorted(wrong):
        print(f"MISJUDGED ({outcome}) {name} seed {seed} on {pcap}: {detail}\n"
              f"  rocecert mutate {pcap} m.pcap --op {name} --seed {seed} && "
              f"rocecert check --profile {args.profile} m.pcap")
    print(f"{right} of {total} mutants judged right, seeds {args.seeds[0]}-{args.seeds[-1]}, "
          f"profile {args.profile}; {len(wrong)} misjudged or in error")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
