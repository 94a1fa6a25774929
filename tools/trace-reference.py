#!/usr/bin/env python3
"""An independent reading of PyTorch profiler (Kineto) traces, for the tests of ClusterScope's
reader (tests/model/test_trace_real.cpp): per file its rank, world size, steps and, per step and
over the whole file, kernel time by kind and compute busy time (the union of compute kernels).

Only the standard library (json, gzip); the definitions are those of docs/measured-profiles.md:
a kernel is communication when its name holds "nccl" or "rccl" (its kind the collective its name
says; where it says none, or says SendRecv, the "Collective name" of its own args or of the
record_param_comms operator that launched it), and belongs to the ProfilerStep#N during which it
was launched (by correlation with its launch; without one, by its start). Times count from the
first step's start.

    tools/trace-reference.py FILE...      # prints a C++ table row per file
"""
import bisect
import gzip
import json
import sys

KINDS = ["compute", "allreduce", "allgather", "reducescatter", "sendrecv", "alltoall",
         "broadcast", "other_comm"]
NAME_WORDS = [("allreduce", "allreduce"), ("allgather", "allgather"),
              ("reducescatter", "reducescatter"), ("sendrecv", "sendrecv"),
              ("alltoall", "alltoall"), ("broadcast", "broadcast")]
COLLECTIVE_WORDS = NAME_WORDS + [("send", "sendrecv"), ("recv", "sendrecv")]


def squeeze(text):
    return "".join(c for c in text.lower() if c not in "_- ")


def kind_of_name(name):
    n = squeeze(name.split("(")[0])
    if "nccl" not in n and "rccl" not in n:
        return "compute"
    for word, kind in NAME_WORDS:
        if word in n:
            return kind
    return "other_comm"


def kind_of_collective(name):
    n = squeeze(name)
    for word, kind in COLLECTIVE_WORDS:
        if word in n:
            return kind
    return None


def union(spans):
    total, end = 0.0, None
    start = None
    for s, e in sorted(spans):
        if e <= s:
            continue
        if end is not None and s <= end:
            end = max(end, e)
            continue
        if end is not None:
            total += end - start
        start, end = s, e
    if end is not None:
        total += end - start
    return total


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    events = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and "ts" in e]
    # Times from the first step's start (else the first kernel's): epoch microseconds (1.7e15)
    # have a grain of 0.25 us in a double, which a start plus a duration would lose.
    step_starts = [e["ts"] for e in events if e.get("cat") in ("user_annotation", "cpu_op")
                   and e.get("name", "").startswith("ProfilerStep#")]
    kernel_starts = [e["ts"] for e in events if e.get("cat") == "kernel"]
    origin = min(step_starts) if step_starts else min(kernel_starts, default=0)
    for e in events:
        e["ts"] -= origin
    info = trace.get("distributedInfo") or {}
    rank, world = info.get("rank", 0), info.get("world_size", info.get("rank", 0) + 1)
    steps = {}
    for e in events:
        name = e.get("name", "")
        if e.get("cat") in ("user_annotation", "cpu_op") and name.startswith("ProfilerStep#"):
            number = int(name[len("ProfilerStep#"):])
            if number not in steps:
                steps[number] = (e["ts"], e.get("dur", 0))
    order = sorted(steps.items(), key=lambda kv: kv[1][0])
    starts = [s[1][0] for s in order]
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "correlation" in e.get("args", {})}
    ops = [e for e in events if e.get("name") == "record_param_comms"]
    op_by_external = {e["args"]["External id"]: e for e in ops if "External id" in e.get("args", {})}

    def launching_op(k, launch):
        for eid in (k["args"].get("External id"), (launch or {}).get("args", {}).get("External id")):
            if eid in op_by_external:
                return op_by_external[eid]
        if launch:
            for op in ops:
                if op.get("tid") == launch.get("tid") and op["ts"] <= launch["ts"] <= op["ts"] + op.get("dur", 0):
                    return op
        return None

    per_step = {n: {"kernel": dict.fromkeys(KINDS, 0.0), "compute": []} for n in steps}
    total = dict.fromkeys(KINDS, 0.0)
    compute_all = []
    for k in events:
        if k.get("cat") != "kernel" or "dur" not in k:
            continue
        args = k.get("args", {})
        launch = launches.get(args.get("correlation"))
        kind = kind_of_name(k.get("name", ""))
        if kind in ("sendrecv", "other_comm"):
            collective = args.get("Collective name")
            if not collective:
                op = launching_op(k, launch)
                collective = op["args"].get("Collective name") if op else None
            if collective and kind_of_collective(collective):
                kind = kind_of_collective(collective)
        dur = max(0.0, k["dur"])
        total[kind] += dur
        if kind == "compute":
            compute_all.append((k["ts"], k["ts"] + dur))
        t = launch["ts"] if launch else k["ts"]
        i = bisect.bisect_right(starts, t) - 1
        if i >= 0 and t <= order[i][1][0] + order[i][1][1]:
            s = per_step[order[i][0]]
            s["kernel"][kind] += dur
            if kind == "compute":
                s["compute"].append((k["ts"], k["ts"] + dur))
    return {"rank": rank, "world": world,
            "steps": [(n, d[1], per_step[n]["kernel"], union(per_step[n]["compute"]))
                      for n, d in order],
            "total": total, "compute_busy": union(compute_all)}


def us(x):
    return "%.3f" % x


def main():
    for path in sys.argv[1:]:
        r = read(path)
        t = r["total"]
        print("    {\"%s\", %d, %d, %d, {%s}, %s, {" % (
            path.split("/traces/")[-1], r["rank"], r["world"], len(r["steps"]),
            ", ".join(us(t[k]) for k in KINDS), us(r["compute_busy"])))
        for n, dur, kernel, busy in r["steps"]:
            print("     /* step #%d */ {%d, %s, {%s}, %s}," % (
                n, n, us(dur), ", ".join(us(kernel[k]) for k in KINDS), us(busy)))
        print("    }},")


if __name__ == "__main__":
    main()
