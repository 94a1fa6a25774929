#!/usr/bin/env python3
"""Rows of the B300 runs with experts in Megatron-Bridge's performance archive, never fitted.

Each B300 row of docs/performance-summary-archive.md (DeepSeek-V3, gpt-oss-120b, Qwen3-30B,
Qwen3-235B; containers 26.02 to 26.06) becomes a measured-run row like its public siblings in
moe-public.jsonl: the sibling of the same container and model (B200 first, then GB300, GB200;
else the nearest container) gives the model and its family, the archive row the layout, batch,
precision and tokens a second, a DGX B300 the cluster (8 GPUs a node and NVLink domain, 1,800
GB/s; `--scale-out` Gb/s a GPU, not published: 800 for ConnectX-8, 400 where the fabric runs
NDR). Recompute as the B300 recipes of Megatron-Bridge v0.6.0 set it. The source names the
container as the public rows do, so that the converter applies each release's recipe switches.

    git -C MIRROR show HEAD:docs/performance-summary-archive.md > archive.md
    tools/archive-b300-rows.py archive.md ../shared/reference/validation/moe-public.jsonl -o b300.jsonl
    clusterscope-cli validate-runs b300.jsonl
"""

import argparse
import copy
import json
import os
import re
import stat
import sys
import tempfile

MODELS = {"DeepSeekV3": "dsv3", "GPT OSS 120B": "gptoss-120b",
          "Qwen3_30B_a3B": "qwen3-30b", "Qwen3_235B_a22B": "qwen3-235b"}
CONTAINERS = {"26.06": "2606", "26.04.01": "260401", "26.04": "2604",
              "26.02.01": "260201", "26.02": "2602"}
RECOMPUTE = {"dsv3": ["mla_up_proj"], "gptoss-120b": "none", "qwen3-30b": "none",
             "qwen3-235b": "none"}
NEAREST = ["260401", "2604", "2602", "260201", "2606", "2608", "2511"]


def sibling(public, container, model, bf16):
    for c in [container] + [x for x in NEAREST if x != container]:
        for gpu in ("b200", "gb300", "gb200"):
            for row in public:
                if (row["id"].startswith(f"mbridge_{c}_{model}_{gpu}_")
                        and "tokendrop" not in row["id"]
                        and (row["precision"] == "bf16") == bf16):
                    return row
    return None


def b300_rows(archive_lines, public, scale_out):
    section = model = None
    header = []
    for line in archive_lines:
        if m := re.match(r"## (\S+) NeMo Container", line):
            section = m.group(1)
        elif m := re.match(r"#### Model: (.*)", line):
            model = m.group(1).strip()
        elif line.startswith("| System"):
            header = [h.strip() for h in line.strip().strip("|").split("|")]
        elif line.startswith("| DGX-B300") and section in CONTAINERS and model in MODELS:
            cells = dict(zip(header, (c.strip() for c in line.strip().strip("|").split("|"))))
            yield make_row(cells, section, model, line.strip(), public, scale_out)


def make_row(cells, section, model, line, public, scale_out):
    name, container = MODELS[model], CONTAINERS[section]
    template = sibling(public, container, name, cells["Precision"] == "BF16")
    if template is None:
        sys.exit(f"archive-b300-rows: no public sibling of {model} ({section}, "
                 f"{cells['Precision']}) to build its row from")
    row = copy.deepcopy(template)
    gpus, gbs, seq = int(cells["#-GPUs"]), int(cells["GBS"]), int(cells["Sequence Length"])
    tp, pp, cp = int(cells["TP"]), int(cells["PP"]), int(cells["CP"])
    tokens = float(cells["Tokens / sec / GPU"])
    row["id"] = f"b300_{container}_{name}_{cells['Precision'].lower()}"
    row["source"] = (f"NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md "
                     f"'## {section} NeMo Container' / 'Model: {model}': row `{line}` "
                     f"(built from {template['id']} by tools/archive-b300-rows.py)")
    row["cluster"] = {"gpu": "B300", "gpus": gpus, "gpus_per_node": 8, "nvlink_domain_gpus": 8,
                      "gpus_used_per_nvlink_domain": 8, "nvlink_GBps_bidir": 1800,
                      "scale_out_Gbps_per_gpu": scale_out}
    row["parallelism"].update({
        "tp": tp, "pp": pp, "cp": cp, "ep": int(cells["EP"]), "dp": gpus // (tp * pp * cp),
        "vp": 1 if cells["VP"] == "n/a" else int(cells["VP"]),
        "sequence_parallel": tp > 1, "recompute": RECOMPUTE[name]})
    row["batch"] = {"micro": int(cells["MBS"]), "global": gbs}
    row["model"]["seq_len"] = seq
    row["measured"] = {"step_time_s": gbs * seq / (tokens * gpus), "kind": "derived",
                       "tokens_per_s_per_gpu": tokens}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("public")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--scale-out", type=int, default=800)
    args = parser.parse_args()
    with open(args.public) as f:
        public = [json.loads(line) for line in f if line.strip()]
    with open(args.archive) as f:
        rows = list(b300_rows(f.read().splitlines(), public, args.scale_out))
    write_atomically(args.output, "".join(json.dumps(r) + "\n" for r in rows),
                     inputs=(args.archive, args.public))
    print(f"{len(rows)} rows written to {args.output}")


def write_atomically(path, text, inputs):
    """Writes through a temporary file in the same folder, renamed over `path` once complete: a
    full disk or a failed write leaves what was there. Refuses an input (however it is named:
    a symlink or another path to it) and anything but a regular file."""
    target = os.path.realpath(path)
    if os.path.exists(target) and any(os.path.samefile(i, target) for i in inputs):
        sys.exit(f"archive-b300-rows: {path} is an input; it would be written over")
    if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
        sys.exit(f"archive-b300-rows: {path} is not a regular file")
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".archive-b300-rows-")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 is for secrets; this is a row file
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, target)
    except OSError as e:
        if temporary and os.path.exists(temporary):
            os.unlink(temporary)
        sys.exit(f"archive-b300-rows: cannot write {path}: {e.strerror}")


if __name__ == "__main__":
    main()
