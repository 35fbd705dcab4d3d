#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns `aesgpu bench --json` output into a Markdown table (stdout) and, given an output path,
a PNG bar chart of throughput per backend and stage (needs matplotlib).

Usage: scripts/plot-bench.py BENCH.json [PLOT.png]
"""
import json
import sys

STAGE_COLOURS = {"ceiling": "#9e9e9e", "memory": "#1f77b4", "kernel": "#d62728",
                 "pipeline": "#ff7f0e", "file": "#2ca02c"}


def human_bytes(count):
    """As aesgpu prints sizes (common/units.cpp): "16 B", "256.0 KiB", "1.0 GiB"."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    unit = 0
    while count >= 1024 and unit < 4:
        count /= 1024
        unit += 1
    return f"{count:.0f} B" if unit == 0 else f"{count:.1f} {units[unit]}"


def label(result):
    return f'{result["backend"]} {result["stage"]}: {result["what"]}'


def markdown(report):
    lines = [f'{report["machine"]}; {human_bytes(report["size_bytes"])} per in-memory measurement, '
             f'median of {report["reps"]}' + (f'; file {report["file"]}' if report["file"] else ""), "",
             "| backend | stage | what | GB/s | against its ceiling |", "| --- | --- | --- | ---: | --- |"]
    for r in report["results"]:
        lines.append(f'| {r["backend"]} | {r["stage"]} | {r["what"]} | {r["gbps"]:.2f} | {r["ratio_text"]} |')
    files = [r for r in report["results"] if r.get("user_seconds") is not None]
    if files:
        lines += ["", "| backend | file run | wall s | user s | system s | CPU s/GiB |",
                  "| --- | --- | ---: | ---: | ---: | ---: |"]
        for r in files:
            cpu = r["user_seconds"] + r["system_seconds"]
            lines.append(f'| {r["backend"]} | {r["what"]} | {r["seconds"]:.3f} | {r["user_seconds"]:.2f} | '
                         f'{r["system_seconds"]:.2f} | {cpu / (r["bytes"] / 2**30):.2f} |')
    lines += [f"\nunavailable: {u}" for u in report["unavailable"]]
    lines += [f"\nfailed: {u}" for u in report.get("failed", [])]
    return "\n".join(lines)


def plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = report["results"]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(results) + 1.4))
    ys = range(len(results))[::-1]
    ax.barh(list(ys), [r["gbps"] for r in results], color=[STAGE_COLOURS[r["stage"]] for r in results])
    ax.set_yticks(list(ys), [label(r) for r in results], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(left=1)  # bars from 1 GB/s, so that their lengths compare on the log scale
    ax.set_xlabel("GB/s (log scale)")
    for y, r in zip(ys, results):
        ax.text(r["gbps"] * 1.05, y, f'{r["gbps"]:.1f}', va="center", fontsize=7)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in STAGE_COLOURS.values()]
    ax.legend(handles, STAGE_COLOURS.keys(), loc="lower right", fontsize=8)
    ax.set_title(report["machine"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        report = json.load(f)
    print(markdown(report))
    if len(sys.argv) == 3:
        plot(report, sys.argv[2])


if __name__ == "__main__":
    main()
