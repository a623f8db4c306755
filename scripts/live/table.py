#!/usr/bin/env python3
"""The verdict table of `make live` (docs/live.md): one row per vector.

    table.py [--gate all|check] RUN_DIR KNOWN_FAILURES.tsv

RUN_DIR holds share/out/verbs.json (the vectors run in the guest), split.tsv (frames per
vector), check/NAME.json and check/NAME.txt (`rocecert check` of each vector's capture), and
check/NAME.status (its exit code). Prints the table, the counts, and the known failures that did
not fail; exits 1 when a FAIL (verbs or check; with --gate check, check only) is neither
DEVIATION nor a known failure, or a check could not run; 0 otherwise.
"""
import fnmatch
import json
import os
import sys


def load_known(path):
    known = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 4 or cols[2] not in ("verbs", "check"):
                sys.exit(f"{path}: line {number}: expected finding, vectors, verbs|check, patterns")
            known.append({"finding": cols[0], "vectors": cols[1].split(","), "side": cols[2],
                          "patterns": [p.strip() for p in cols[3].split(" | ")], "used": False})
    return known


def tail(difference):
    at = difference.find("steps[")
    return difference[at:] if at >= 0 else difference


def known_finding(known, vector, side, items):
    for k in known:
        if k["side"] != side or not any(fnmatch.fnmatchcase(vector, v) for v in k["vectors"]):
            continue
        if items and all(any(fnmatch.fnmatchcase(i, p) for p in k["patterns"]) for i in items):
            k["used"] = True
            return k["finding"]
    return None


def main():
    args = sys.argv[1:]
    gate = "all"
    if args[:1] == ["--gate"] and len(args) >= 2 and args[1] in ("all", "check"):
        gate, args = args[1], args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    run, known = args[0], load_known(args[1])
    verbs = json.load(open(os.path.join(run, "share/out/verbs.json")))["vectors"]
    frames = {}
    with open(os.path.join(run, "split.tsv")) as f:
        for line in f:
            name, count = line.split("\t")[:2]
            frames[name] = count
    rows, bad, counts = [], 0, {}
    for v in verbs:
        vid, name = v["id"], v["id"].replace("/", "_")
        verdict_v = v["verdict"]
        finding = ""
        note = v.get("declared", "") if verdict_v == "DEVIATION" else ""
        if verdict_v == "FAIL":
            diffs = [tail(d) for d in v["differences"]]
            k = known_finding(known, vid, "verbs", diffs)
            if k:
                verdict_v, note = "FAIL(known)", "docs/rxe-divergences.md#" + k
            elif gate == "all":
                bad += 1
            finding = diffs[0] if diffs else ""
        elif verdict_v == "UNSUPPORTED":
            note = v["differences"][0] if v["differences"] else ""
        check = "-"
        report = os.path.join(run, "check", name + ".json")
        if name in frames:
            try:
                c = json.load(open(report))
                check = c["verdict"]
            except (OSError, ValueError, KeyError):
                status = open(os.path.join(run, "check", name + ".status")).read().strip()
                check, bad = f"ERROR({status})", bad + 1
            if check == "FAIL":
                items = [f'{x["rule"]} ({x["cause"]})' for x in c["violations"]
                         if not x.get("deviation") and not x.get("explained")]
                k = known_finding(known, vid, "check", items)
                if k:
                    check = "FAIL(known)"
                    note = note or "docs/rxe-divergences.md#" + k
                else:
                    bad += 1
                finding = finding or (items[0] if items else "")
            elif check in ("DEVIATION", "INCONCLUSIVE"):
                first = [f'{x["rule"]} ({x["cause"]})' for x in c["violations"]]
                notes = [n["message"] for n in c["notes"] if n["kind"] in
                         ("capture_error", "gap", "truncated", "one_direction", "unpaired")]
                finding = finding or (first[0] if first else notes[0] if notes else "")
        counts[("verbs", verdict_v)] = counts.get(("verbs", verdict_v), 0) + 1
        if check != "-":
            counts[("check", check)] = counts.get(("check", check), 0) + 1
        rows.append((vid, verdict_v, frames.get(name, "-"), check, finding or note))
    print(f'{"vector":<52} {"verbs":<12} {"frames":>6} {"check":<12} finding')
    for vid, vv, fr, ch, text in rows:
        print(f"{vid:<52} {vv:<12} {fr:>6} {ch:<12} {text[:170]}")
    print()
    for side in ("verbs", "check"):
        parts = [f"{n} {verdict}" for (s, verdict), n in sorted(counts.items()) if s == side]
        print(f"{side}: " + ", ".join(parts))
    unused = sorted({k["finding"] for k in known if not k["used"]})
    if unused:
        print("known failures that did not fail this time (fixed, or not run?): " + ", ".join(unused))
    print(f"unexplained FAILs: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
