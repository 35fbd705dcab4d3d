#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads `nvidia-smi topo -m` on standard input and prints the GPU subsets that
scripts/gpu/gpu-scaling.sh times, one per line: "COUNT PLACING LIST", e.g. "2 spread 0,4".

For each count of 1, 2, 4, 8 ... GPUs (and all of them), "near" takes GPU 0 and the GPUs
closest to it: its NUMA node first, then by the PCIe path to it (PIX, PXB, PHB, NODE, SYS);
"spread" takes one GPU from each NUMA node in turn. A spread subset that is the near one is
left out, so a host of one NUMA node gets near subsets only.
Usage: nvidia-smi topo -m | scripts/gpu/gpu-subsets.py [GPU_COUNT]"""
import re
import sys

# How far a GPU is from GPU 0 over PCIe; NVLink ("NV18") says nothing of the PCIe path.
PATH_RANK = {"X": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}


def read_topology(text):
    """{gpu: (numa node, {other gpu: link})} from the matrix's GPU rows."""
    # nvidia-smi underlines the header even into a pipe (ESC [4m ... ESC [0m).
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    lines = [line for line in text.splitlines() if line.strip()]
    header = next((line for line in lines if re.search(r"\bGPU0\b", line) and not line.startswith("GPU")), None)
    if header is None:
        raise ValueError("no GPU0 column: not the output of nvidia-smi topo -m")
    columns = [cell.strip() for cell in header.split("\t")]
    gpus = {}
    for line in lines:
        match = re.match(r"GPU(\d+)\t", line)
        if not match:
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        row = dict(zip(columns, cells))
        numa = row.get("NUMA Affinity", "")
        links = {int(name[3:]): value for name, value in row.items() if re.fullmatch(r"GPU\d+", name)}
        gpus[int(match.group(1))] = (int(numa) if numa.isdigit() else 0, links)
    if 0 not in gpus:
        raise ValueError("no GPU0 row")
    return gpus


def subsets(gpus, count=None):
    first_node = gpus[0][0]
    path_to_first = lambda gpu: PATH_RANK.get(gpus[0][1].get(gpu, ""), 4)
    near = sorted(gpus, key=lambda gpu: (gpus[gpu][0] != first_node, path_to_first(gpu), gpu))
    nodes = sorted({node for node, _ in gpus.values()}, key=lambda node: (node != first_node, node))
    by_node = [[gpu for gpu in near if gpus[gpu][0] == node] for node in nodes]
    spread = []
    while any(by_node):
        for group in by_node:
            if group:
                spread.append(group.pop(0))
    total = len(gpus) if count is None else min(count, len(gpus))
    counts = []
    size = 1
    while size < total:
        counts.append(size)
        size *= 2
    counts.append(total)
    lines = []
    for size in counts:
        lines.append(f"{size} near {','.join(map(str, near[:size]))}")
        if set(spread[:size]) != set(near[:size]):
            lines.append(f"{size} spread {','.join(map(str, spread[:size]))}")
    return lines


def main():
    try:
        count = int(sys.argv[1]) if len(sys.argv) > 1 else None
        if count is not None and count < 1:
            raise ValueError(f"the GPU count must be 1 or more, not {count}")
        print("\n".join(subsets(read_topology(sys.stdin.read()), count)))
    except ValueError as error:
        sys.exit(f"gpu-subsets: {error}")


if __name__ == "__main__":
    main()
