"""Summarises what bench/compile/breakdown.sh collected, as Markdown on stdout.

usage: python3 bench/compile/breakdown.py DIR
DIR holds, per nvcc TU, a folder nvcc_<name>/ with
  phases.csv         nvcc -time, one row per phase and run (REPS runs appended)
  steps.txt          "<step> <wall> <user> <sys>" per replayed --dryrun step and run
  device_trace.json  nvcc -fdevice-time-trace (the phases of cicc and ptxas)
  host_report.txt    g++ -ftime-report of nvcc's host compile (the .cudafe1.cpp)
and, per g++ TU, clang_<name>.json (clang++ -ftime-trace) or gxx_<name>.txt (g++
-ftime-report, when clang++ is missing). The order of the columns is that of the
file DIR/sides (one "kind name label" per line).
"""
import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

# nvcc -time's phase names, in the order the steps run; the replayed steps are named alike.
PHASES = ["gcc (preprocessing 4)", "cudafe++", "gcc (preprocessing 1)", "cicc", "ptxas", "fatbinary",
          "gcc (compiling)"]
PHASE_NOTE = {"gcc (preprocessing 4)": "host g++ -E, for cudafe++",
              "cudafe++": "splits host / device code (EDG front end)",
              "gcc (preprocessing 1)": "device g++ -E, for cicc",
              "cicc": "device front end (EDG) + NVVM -> PTX",
              "ptxas": "PTX -> SASS sm_90",
              "fatbinary": "",
              "gcc (compiling)": "host g++ -O3 of the .cudafe1.cpp"}
HOST_ROWS = ["phase setup", "phase parsing", "phase lang. deferred", "phase opt and generate",
             "phase last asm", "preprocessing", "template instantiation", "TOTAL"]
CLANG_ROWS = ["ExecuteCompiler", "Frontend", "Source", "ParseClass", "InstantiateClass",
              "InstantiateFunction", "PerformPendingInstantiations", "Backend", "OptModule",
              "CodeGenPasses", "CodeGen Function"]


def table(head, rows):
    rows = [r for r in rows if any(c for c in r[1:])]  # rows with no figure at all: left out
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def s(v):
    return "" if v is None else f"{v:.2f}"


def nvcc_phases(d):
    """Best wall seconds per phase over the runs of nvcc -time."""
    best = {}
    with open(d / "phases.csv") as f:
        for row in csv.reader(f):
            row = [c.strip() for c in row]
            if len(row) < 8 or row[1] == "phase name" or row[7] != "ms":
                continue
            t = float(row[6]) / 1000
            best[row[1]] = min(best.get(row[1], t), t)
    return best


def replayed(d):
    """Best CPU (user + sys) and best wall seconds per replayed step."""
    cpu, wall = {}, {}
    for line in (d / "steps.txt").read_text().splitlines():
        name, w, u, sy = line.rsplit(" ", 3)
        c = float(u) + float(sy)
        cpu[name] = min(cpu.get(name, c), c)
        wall[name] = min(wall.get(name, float(w)), float(w))
    return cpu, wall


def outermost(events, names):
    """Seconds spent in events named in `names`, counting only those not nested in another."""
    ev = sorted((e for e in events if e.get("ph") == "X" and e["name"] in names),
                key=lambda e: (e["ts"], -e["dur"]))
    total, end = 0, -1
    for e in ev:
        if e["ts"] >= end:
            total += e["dur"]
            end = e["ts"] + e["dur"]
        elif e["ts"] + e["dur"] > end:  # overlaps the end without being nested: count the rest
            total += e["ts"] + e["dur"] - end
            end = e["ts"] + e["dur"]
    return total / 1e6


def device_trace(d):
    """cicc's and ptxas's phases from nvcc -fdevice-time-trace."""
    path = d / "device_trace.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    ev = data["traceEvents"] if isinstance(data, dict) else data
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
    by = defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            by[procs.get(e.get("pid"), "?")].append(e)
    cicc, ptxas = by.get("cicc", []), by.get("ptxas", [])
    r = {"cicc: C++ front end (EDG)": outermost(cicc, {"CUDA C++ Front-End"}),
         "  of which header files (outermost)": outermost(cicc, {"Processing Header File"}),
         "  of which template instantiation (outermost; partly inside the headers)":
             outermost(cicc, {"Instantiating Template Class", "Instantiating Template Function"}),
         "  of which the pending instantiations at the end of the TU":
             outermost(cicc, {"Generating Needed Template Instantiations"}),
         "cicc: NVVM (IR generation, optimiser, PTX codegen)":
             outermost(cicc, {"LibNVVM", "Generating NVVM IR"}),
         "ptxas": outermost(ptxas, {"Total PTXAS Time"}) or outermost(ptxas, {e["name"] for e in ptxas})}
    return r


def host_report(path):
    """g++ -ftime-report: (usr + sys, wall) seconds of the rows in HOST_ROWS."""
    r = {}
    if not path.exists():
        return r
    for line in path.read_text().splitlines():
        m = re.match(r"\s*(.*?)\s*:\s*([\d.]+)\s*(?:\(\s*\d+%\))?\s*([\d.]+)\s*(?:\(\s*\d+%\))?\s*([\d.]+)", line)
        if m and m.group(1) in HOST_ROWS:
            r[m.group(1)] = (float(m.group(2)) + float(m.group(3)), float(m.group(4)))
    return r


def clang_trace(path):
    """clang -ftime-trace: the 'Total <name>' seconds, and the slowest instantiations and headers."""
    data = json.loads(path.read_text())
    ev = data["traceEvents"]
    totals = {e["name"][6:]: e["dur"] / 1e6 for e in ev if e.get("name", "").startswith("Total ")}
    top = {}
    for kind in ("InstantiateFunction", "InstantiateClass", "Source"):
        xs = sorted((e for e in ev if e.get("name") == kind and e.get("ph") == "X"), key=lambda e: -e["dur"])
        seen, lst = set(), []
        for e in xs:
            detail = e.get("args", {}).get("detail", "")
            if detail in seen:
                continue
            seen.add(detail)
            lst.append((e["dur"] / 1e6, detail))
            if len(lst) == 5:
                break
        top[kind] = lst
    return totals, top


def short(text, n=110):
    text = text.replace("|", "\\|")
    return text if len(text) <= n else text[: n - 1] + "…"


def main():
    root = Path(sys.argv[1])
    sides = [line.split(" ", 2) for line in (root / "sides").read_text().splitlines() if line.strip()]
    nv = [(n, lab) for k, n, lab in sides if k == "nvcc"]
    gx = [(n, lab) for k, n, lab in sides if k == "gxx"]
    out = []
    if nv:
        ph = {n: nvcc_phases(root / f"nvcc_{n}") for n, _ in nv}
        rp = {n: replayed(root / f"nvcc_{n}") for n, _ in nv}
        out.append("### nvcc, step by step (seconds; wall: nvcc -time, best of REPS; CPU: the step "
                   "replayed from --dryrun under /usr/bin/time, user + sys, best of REPS)\n")
        head = ["step"] + [f"{lab} wall" for _, lab in nv] + [f"{lab} CPU" for _, lab in nv]
        rows = []
        for p in PHASES:
            rows.append([f"{p}: {PHASE_NOTE[p]}" if PHASE_NOTE[p] else p] + [s(ph[n].get(p)) for n, _ in nv] +
                        [s(rp[n][0].get(p)) for n, _ in nv])
        rows.append(["sum of the steps"] + [s(sum(ph[n].get(p, 0) for p in PHASES)) for n, _ in nv] +
                    [s(sum(rp[n][0].get(p, 0) for p in PHASES)) for n, _ in nv])
        rows.append(["nvcc (driver)"] + [s(ph[n].get("nvcc (driver)")) for n, _ in nv] + [""] * len(nv))
        out.append(table(head, rows))
        # Each TU above its own project's empty TU: KeOps 1.5's above the empty
        # TU under its flags (side keops15_empty) when there is one.
        names = {n for n, _ in nv}
        def base_of(n):
            return "keops15_empty" if n.startswith("keops15") and "keops15_empty" in names else nv[0][0]
        above = [(n, lab) for n, lab in nv if n != nv[0][0] and not n.endswith("_empty")]
        if above:
            out.append(f"\nAbove the empty TU (kops: {nv[0][1]}; KeOps 1.5: the empty TU under its own flags, "
                       f"when measured): CPU of the replayed steps minus its, per step:\n")
            rows = []
            for p in PHASES + ["sum of the steps"]:
                def cpu(n):
                    return sum(rp[n][0].get(q, 0) for q in PHASES) if p == "sum of the steps" else rp[n][0].get(p, 0)
                rows.append([p] + [s(cpu(n) - cpu(base_of(n))) for n, _ in above])
            out.append(table(["step"] + [lab for _, lab in above], rows))
        # (b') in parts: each side of the chain above the one before it.
        chain = [("empty", "the standard headers (b') reaches"), ("kops_std", "kops's headers"),
                 ("kops_headers", "the two formulas"), ("kops_formulas", "the two eval calls")]
        after = {"empty": "kops_std", "kops_std": "kops_headers", "kops_headers": "kops_formulas",
                 "kops_formulas": "kops_min"}
        if all(n in names for n in after.values()) and nv[0][0] == "empty":
            out.append("\nkops (b') in parts, each above the one before (standard headers above the empty TU, "
                       "then its #include lines, its two formulas, its two eval calls): CPU of the replayed "
                       "steps, per step:\n")
            rows = []
            for p in PHASES + ["sum of the steps"]:
                def cpu(n):
                    return sum(rp[n][0].get(q, 0) for q in PHASES) if p == "sum of the steps" else rp[n][0].get(p, 0)
                rows.append([p] + [s(cpu(after[b]) - cpu(b)) for b, _ in chain])
            out.append(table(["step"] + [lab for _, lab in chain], rows))
        dt = {n: device_trace(root / f"nvcc_{n}") for n, _ in nv}
        if any(dt.values()):
            out.append("\n### inside cicc and ptxas (nvcc -fdevice-time-trace, one run, wall seconds)\n")
            keys = next(v for v in dt.values() if v).keys()
            out.append(table(["phase"] + [lab for _, lab in nv],
                             [[k] + [s(dt[n][k]) if dt[n] else "" for n, _ in nv] for k in keys]))
        hr = {n: host_report(root / f"nvcc_{n}" / "host_report.txt") for n, _ in nv}
        out.append("\n### nvcc's host step: g++ -O3 -ftime-report on the .cudafe1.cpp (one run; "
                   "usr + sys / wall seconds)\n")
        out.append(table(["g++ timer"] + [lab for _, lab in nv],
                         [[r] + [f"{hr[n][r][0]:.2f} / {hr[n][r][1]:.2f}" if r in hr[n] else "" for n, _ in nv]
                          for r in HOST_ROWS]))
    if gx:
        clang = [(n, lab) for n, lab in gx if (root / f"clang_{n}.json").exists()]
        if clang:
            tr = {n: clang_trace(root / f"clang_{n}.json") for n, _ in clang}
            out.append("\n### the g++ TUs under clang++ -ftime-trace (same flags, -c without linking; "
                       "one run; seconds, clang's 'Total' events)\n")
            out.append(table(["clang phase"] + [lab for _, lab in clang],
                             [[r] + [s(tr[n][0].get(r)) for n, _ in clang] for r in CLANG_ROWS]))
            for n, lab in clang:
                if not any(tr[n][1].values()):
                    continue
                out.append(f"\nslowest in {lab} (an event's time includes what it triggers):\n")
                for kind, lst in tr[n][1].items():
                    for sec, detail in lst[:3 if kind == "Source" else 5]:
                        out.append(f"- {kind} {sec:.3f} s: `{short(detail)}`")
        rest = [(n, lab) for n, lab in gx if (root / f"gxx_{n}.txt").exists()]
        if rest:
            hr = {n: host_report(root / f"gxx_{n}.txt") for n, _ in rest}
            out.append("\n### the g++ TUs under g++ -ftime-report (clang++ not found; one run; "
                       "usr + sys / wall seconds)\n")
            out.append(table(["g++ timer"] + [lab for _, lab in rest],
                             [[r] + [f"{hr[n][r][0]:.2f} / {hr[n][r][1]:.2f}" if r in hr[n] else "" for n, _ in rest]
                              for r in HOST_ROWS]))
    print("\n".join(out))


if __name__ == "__main__":
    main()
