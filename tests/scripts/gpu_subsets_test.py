#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/gpu/gpu-subsets.py on topologies as `nvidia-smi topo -m` prints them (tab-separated, the
header's first cell empty): an eight-GPU NVLink host of two NUMA nodes, a four-GPU PCIe host whose
nodes interleave, a two-GPU host with no NUMA affinity, and text that is not a topology.
Usage: gpu_subsets_test.py SCRIPT"""
import subprocess
import sys

script = sys.argv[1]


def matrix(links, numa, nics=()):
    """The table for GPUs whose link to each other is links[i][j] and NUMA node numa[i]."""
    count = len(numa)
    header = "\t" + "\t".join(f"GPU{i}" for i in range(count))
    header += "".join(f"\tNIC{n}" for n in range(len(nics))) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    rows = [header]
    for i in range(count):
        cells = [" X " if i == j else links[i][j] for j in range(count)]
        cells += [nic[i] for nic in nics]
        rows.append(f"GPU{i}\t" + "\t".join(cells) + f"\t0-15\t{numa[i]}\t\tN/A")
    return "\n".join(rows) + "\n\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe\n"


def subsets(text, *args):
    run = subprocess.run([sys.executable, script, *args], input=text, capture_output=True, text=True)
    return run.returncode, run.stdout.split("\n")[:-1] if run.stdout else [], run.stderr


failures = 0


def expect(what, got, wanted):
    global failures
    if got != wanted:
        failures += 1
        print(f"FAIL {what}:\n  got    {got}\n  wanted {wanted}")


nvlink = matrix([["NV18"] * 8 for _ in range(8)], [0, 0, 0, 0, 1, 1, 1, 1],
                nics=(["PXB"] * 4 + ["SYS"] * 4, ["SYS"] * 4 + ["PXB"] * 4))
expect("eight NVLink GPUs on two nodes", subsets(nvlink, "8"),
       (0, ["1 near 0", "2 near 0,1", "2 spread 0,4", "4 near 0,1,2,3", "4 spread 0,4,1,5",
            "8 near 0,1,2,3,4,5,6,7"], ""))
expect("counted from the matrix when no count is given", subsets(nvlink)[1][-1], "8 near 0,1,2,3,4,5,6,7")
expect("a count below the GPUs'", subsets(nvlink, "2")[1], ["1 near 0", "2 near 0,1", "2 spread 0,4"])

# GPUs 0, 1 and 2 on node 0, 0 and 2 under one PCIe switch; GPU 3 on node 1.
pcie = matrix([["X", "NODE", "PIX", "SYS"], ["NODE", "X", "NODE", "SYS"], ["PIX", "NODE", "X", "SYS"],
               ["SYS", "SYS", "SYS", "X"]], [0, 0, 0, 1])
expect("four PCIe GPUs, two under one switch", subsets(pcie, "4"),
       (0, ["1 near 0", "2 near 0,2", "2 spread 0,3", "4 near 0,2,1,3"], ""))

# As the two-GPU H200 host prints it into a pipe: the header underlined.
underlined = ("\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
              "GPU0\t X \tNV18\t0-31\t0\t\tN/A\nGPU1\tNV18\t X \t0-31\t0\t\tN/A\n\nLegend:\n")
expect("the header underlined", subsets(underlined, "2"), (0, ["1 near 0", "2 near 0,1"], ""))

# A VM: the NUMA column says N/A; the same node for all.
two = matrix([["X", "NV18"], ["NV18", "X"]], ["N/A", "N/A"])
expect("two GPUs, no NUMA affinity", subsets(two, "2"), (0, ["1 near 0", "2 near 0,1"], ""))

status, out, err = subsets("No devices were found\n", "1")
expect("not a topology", (status != 0, out, err), (True, [], "gpu-subsets: no GPU0 column: not the output of "
                                                            "nvidia-smi topo -m\n"))
for count in ("0", "-1", "abc"):
    status, out, err = subsets(nvlink, count)
    expect(f"a GPU count of {count}", (status != 0, out, err.startswith("gpu-subsets: ")), (True, [], True))
sys.exit(1 if failures else 0)
