#!/usr/bin/env python3
"""Rows of Megatron-Bridge's performance archive that no public row measures, never fitted.

Each row of docs/performance-summary-archive.md in the chosen set becomes a measured-run row
like its public siblings in the public file given (moe-public.jsonl; public.jsonl for `llama`):
the sibling of the same model (and GPU, where the set keeps the sibling's cluster) gives the
model and its family, the archive row the layout, batch, precision and tokens a second. The
source names the container as the public rows do, so that the converter applies each release's
recipe switches. Three sets:

- `b300`: the B300 rows with experts (DeepSeek-V3, gpt-oss-120b, Qwen3-30B, Qwen3-235B;
  containers 26.02 to 26.06). The sibling of the same container and model (B200 first, then
  GB300, GB200; else the nearest container); a DGX B300 the cluster (8 GPUs a node and NVLink
  domain, 1,800 GB/s; `--scale-out` Gb/s a GPU, not published: 800 for ConnectX-8, 400 where
  the fabric runs NDR). Recompute as the B300 recipes of Megatron-Bridge v0.6.0 set it.
- `bf16-blackwell`: the 25.11 rows of DeepSeek-V3 and Qwen3-235B in BF16 on GB200 and GB300,
  the only BF16 runs of those models on Blackwell the archive holds. The sibling of the same
  model and GPU in FP8, of 25.11 or the nearest container after it, and its cluster. Recompute
  as the 25.11 recipes (v0.2.0) set it; the table's "w/o MTP" without the MTP layer.
- `llama`: the Llama 3 8B, 70B and 3.1 405B pre-training rows of 25.11 to 26.06 that no
  public row (public.jsonl) measures; 25.09's tables name no precision and are left out, as are
  the SFT and LoRA tables. The public row of the same model and GPU gives the model and the
  cluster, the archive row the layout (FSDP where its column is above 0), batch, precision and
  tokens a second ("FP8" in the 26.x tables, Megatron-Bridge's FP8-CS recipe, scales per
  tensor, as the converter takes every FP8 row that names no MXFP8). Recompute none, as the
  public rows assume (not published).

    git -C MIRROR show HEAD:docs/performance-summary-archive.md > archive.md
    tools/archive-rows.py b300 archive.md ../shared/reference/validation/moe-public.jsonl -o b300.jsonl
    clusterscope-cli validate-runs b300.jsonl
    tools/archive-rows.py llama archive.md ../shared/reference/validation/public.jsonl -o llama.jsonl
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
# Recompute as the recipes set it: B300's of v0.6.0; GB200's and GB300's of v0.2.0 (25.11).
B300_RECOMPUTE = {"dsv3": ["mla_up_proj"], "gptoss-120b": "none", "qwen3-30b": "none",
                  "qwen3-235b": "none"}
BF16_RECOMPUTE = {("dsv3", "gb300"): ["moe_act"], ("dsv3", "gb200"): ["mla_up_proj"],
                  ("qwen3-235b", "gb300"): "none", ("qwen3-235b", "gb200"): "none"}
NEAREST = ["260401", "2604", "2602", "260201", "2606", "2608", "2511"]
AFTER_2511 = ["2511", "2602", "260201", "2604", "260401", "2606", "2608"]


def sibling(public, containers, model, gpus, bf16):
    for c in containers:
        for gpu in gpus:
            for row in public:
                if (row["id"].startswith(f"mbridge_{c}_{model}_{gpu}_")
                        and "tokendrop" not in row["id"]
                        and (row["precision"] == "bf16") == bf16):
                    return row
    return None


def table_rows(archive_lines):
    """Every table row of a container's pre-training section as (container, cells, line), the
    cells keyed by the header and holding `System` and `Model` whichever the heading names (26.x
    tables are one a model, 25.x tables one a system)."""
    section = heading = None
    pretraining = True
    header = []
    for line in archive_lines:
        if m := re.match(r"## (\S+) NeMo Container", line):
            section, heading, pretraining = m.group(1), None, True
        elif m := re.match(r"### (.*)", line):
            pretraining, heading = "Pre-Training" in m.group(1), None
        elif not pretraining:
            continue
        elif m := re.match(r"#### (Model|System): (.*)", line):
            heading = (m.group(1), m.group(2).strip())
        elif line.startswith("| System") or line.startswith("| Model"):
            header = [h.strip() for h in line.strip().strip("|").split("|")]
        elif line.startswith("| ") and header and heading and not line.startswith("|--"):
            cells = dict(zip(header, (c.strip() for c in line.strip().strip("|").split("|"))))
            cells.setdefault(heading[0], heading[1])
            yield section, cells, line.strip()


def from_archive(template, cells, section, line, row_id):
    """The sibling with the archive row's layout, batch and measured step."""
    row = copy.deepcopy(template)
    gpus, gbs, seq = int(cells["#-GPUs"]), int(cells["GBS"]), int(cells["Sequence Length"])
    tp, pp, cp = int(cells["TP"]), int(cells["PP"]), int(cells["CP"])
    tokens = float(cells["Tokens / sec / GPU"])
    row["id"] = row_id
    row["source"] = (f"NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md "
                     f"'## {section} NeMo Container' / '{cells['System']}' / "
                     f"'{cells['Model']}': row `{line}` "
                     f"(built from {template['id']} by tools/archive-rows.py)")
    row["parallelism"].update({
        "tp": tp, "pp": pp, "cp": cp, "ep": int(cells["EP"]), "dp": gpus // (tp * pp * cp),
        "vp": 1 if cells["VP"] == "n/a" else int(cells["VP"]), "sequence_parallel": tp > 1})
    row["batch"] = {"micro": int(cells["MBS"]), "global": gbs}
    row["model"]["seq_len"] = seq
    row["measured"] = {"step_time_s": gbs * seq / (tokens * gpus), "kind": "derived",
                       "tokens_per_s_per_gpu": tokens}
    return row


def missing_sibling(cells, section):
    sys.exit(f"archive-rows: no public sibling of {cells['Model']} on {cells['System']} "
             f"({section}, {cells['Precision']}) to build its row from")


def b300_rows(archive_lines, public, scale_out):
    for section, cells, line in table_rows(archive_lines):
        if cells["System"] != "DGX-B300" or section not in CONTAINERS or \
                cells["Model"] not in MODELS:
            continue
        name, container = MODELS[cells["Model"]], CONTAINERS[section]
        nearest = [container] + [x for x in NEAREST if x != container]
        template = sibling(public, nearest, name, ("b200", "gb300", "gb200"),
                           cells["Precision"] == "BF16")
        if template is None:
            missing_sibling(cells, section)
        row = from_archive(template, cells, section, line,
                           f"b300_{container}_{name}_{cells['Precision'].lower()}")
        row["cluster"] = {"gpu": "B300", "gpus": int(cells["#-GPUs"]), "gpus_per_node": 8,
                          "nvlink_domain_gpus": 8, "gpus_used_per_nvlink_domain": 8,
                          "nvlink_GBps_bidir": 1800, "scale_out_Gbps_per_gpu": scale_out}
        row["parallelism"]["recompute"] = B300_RECOMPUTE[name]
        yield row


def bf16_blackwell_rows(archive_lines, public):
    for section, cells, line in table_rows(archive_lines):
        model = cells["Model"].split(" (")[0].strip()
        if section != "25.11" or cells["Precision"] != "BF16" or \
                cells["System"] not in ("DGX-GB200", "DGX-GB300") or \
                MODELS.get(model) not in ("dsv3", "qwen3-235b"):
            continue
        name, gpu = MODELS[model], cells["System"][4:].lower()
        template = sibling(public, AFTER_2511, name, (gpu,), False)
        if template is None:
            missing_sibling(cells, section)
        row = from_archive(template, cells, section, line, f"bf16_2511_{name}_{gpu}")
        row["precision"] = "bf16"
        row.pop("precision_recipe", None)
        row["parallelism"]["recompute"] = BF16_RECOMPUTE[(name, gpu)]
        if "w/o MTP" in cells["Model"]:
            row["model"]["mtp_layers"] = 0
        yield row


LLAMAS = ("LLAMA3_8B", "LLAMA3_70B", "LLAMA3.1_405B")
# What the tables' precisions run as: Megatron-Bridge's FP8 recipes scale per tensor by the
# current amax ("FP8-CS"; written "FP8" from 26.02 beside "MXFP8"), or in blocks.
LLAMA_PRECISIONS = {"BF16": ("bf16", None), "FP8-CS": ("fp8", "fp8 per-tensor current scaling"),
                    "FP8": ("fp8", None), "FP8-MX": ("fp8", "mxfp8"), "MXFP8": ("fp8", "mxfp8"),
                    "NVFP4": ("nvfp4", None)}


def alternatives(cells):
    """A cell pair such as "FP8-CS (FP8-MX)" and "37556 (36108)" as one row each; none where
    the table names no precision (25.09's) or the alternatives change the layout too."""
    layout = (k for k in cells if k not in ("Precision", "Tokens / sec / GPU",
                                            "Model TFLOP / sec / GPU"))
    if "Precision" not in cells or any("(" in cells[k] for k in layout):
        return
    precisions = re.findall(r"[A-Z0-9-]+", cells["Precision"])
    tokens = re.findall(r"[0-9.]+", cells["Tokens / sec / GPU"])
    for precision, rate in zip(precisions, tokens):
        yield dict(cells, **{"Precision": precision, "Tokens / sec / GPU": rate})


def llama_rows(archive_lines, public):
    ids = {row["id"] for row in public}
    for section, table_cells, line in table_rows(archive_lines):
        model = table_cells["Model"]
        if model not in LLAMAS:
            continue
        for cells in alternatives(table_cells):
            system, gpus = cells["System"], int(cells["#-GPUs"])
            key = f"{section}_{system}_{model}_{gpus}gpu_{cells['Precision']}"
            if f"nemo_bridge_{key}" in ids or cells["Precision"] not in LLAMA_PRECISIONS:
                continue
            same_gpu = [r for r in public if f"_{system}_{model}_" in r["id"]]
            if not same_gpu:
                missing_sibling(cells, section)
            # The sibling's assumptions (recompute, optimizer, fabric not published) hold too.
            row = from_archive(same_gpu[0], dict(cells, EP="1"), section, line, f"archive_{key}")
            precision, recipe = LLAMA_PRECISIONS[cells["Precision"]]
            row["precision"] = precision
            row.pop("precision_recipe", None)
            if recipe:
                row["precision_recipe"] = recipe
            row["parallelism"]["fsdp"] = int(cells.get("FSDP", "0")) > 0
            row["parallelism"]["recompute"] = "none"
            row["cluster"]["gpus"] = gpus
            yield row


# Each set's rows from the archive's lines, the public rows and the command's options.
SETS = {"b300": lambda lines, public, args: b300_rows(lines, public, args.scale_out),
        "bf16-blackwell": lambda lines, public, args: bf16_blackwell_rows(lines, public),
        "llama": lambda lines, public, args: llama_rows(lines, public)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("archive")
    parser.add_argument("public")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--scale-out", type=int, default=800,
                        help="Gb/s a GPU of the B300 rows' fabric (b300 only)")
    args = parser.parse_args()
    with open(args.public) as f:
        public = [json.loads(line) for line in f if line.strip()]
    with open(args.archive) as f:
        rows = list(SETS[args.set](f.read().splitlines(), public, args))
    write_atomically(args.output, "".join(json.dumps(r) + "\n" for r in rows),
                     inputs=(args.archive, args.public))
    print(f"{len(rows)} rows written to {args.output}")


def write_atomically(path, text, inputs):
    """Writes through a temporary file in the same folder, renamed over `path` once complete: a
    full disk or a failed write leaves what was there. Refuses an input (however it is named:
    a symlink or another path to it) and anything but a regular file."""
    target = os.path.realpath(path)
    if os.path.exists(target) and any(os.path.samefile(i, target) for i in inputs):
        sys.exit(f"archive-rows: {path} is an input; it would be written over")
    if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
        sys.exit(f"archive-rows: {path} is not a regular file")
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".archive-rows-")
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
        sys.exit(f"archive-rows: cannot write {path}: {e.strerror}")


if __name__ == "__main__":
    main()
