#!/usr/bin/env python3
"""Builds data/gpus.csv, the GPU table frugal ships, from the raw inputs beside the project.

Full specifications come from the curated gpus.csv (vendor datasheets, dense figures); GPUs that
appear in the price lists without such a row get a memory-only row from SkyPilot's GPU metadata,
so offers for them can be listed and memory-checked, but not timed.

usage: scripts/build-gpu-table.py RAW_DATA_DIR > data/gpus.csv
"""
import csv
import sys

raw = sys.argv[1]
out = csv.writer(sys.stdout, lineterminator="\n")
columns = ["name", "memory_gib", "memory_bandwidth_gbps", "fp32_tflops", "tf32_tflops",
           "bf16_tflops", "fp8_tflops", "nvlink_gbps", "tdp_watts", "architecture",
           "release_year", "supports_bf16", "source_url", "notes"]
out.writerow(columns)
seen = set()
with open(f"{raw}/gpus.csv", newline="") as f:
    for r in csv.DictReader(f):
        fp16_only = r["architecture"] in ("Turing", "Volta")
        out.writerow([r["name"], r["memory_gib"], r["mem_bandwidth_gbps"], r["fp32_tflops"],
                      r["tf32_tflops"], r["fp16_bf16_dense_tflops"], r["fp8_dense_tflops"],
                      r["nvlink_gbps"], r["tdp_w"], r["architecture"], r["release_year"],
                      "false" if fp16_only else "true", r["source_url"], r["notes"]])
        seen.add(r["name"])
# Names the price lists use that the curated table covers under another name.
covered = {"A100", "A100-80GB", "H100", "H100-MEGA", "V100", "V100-32GB", "A100-80GB-SXM",
           "H100-SXM", "H200-SXM", "H100-NVL", "H100-NVLINK"}
with open(f"{raw}/catalog/gpu_metadata.csv", newline="") as f:
    for r in csv.DictReader(f):
        name = r["GPU"].replace("Radeon ", "").replace(" ", "-")
        if name in seen or r["GPU"] in covered:
            continue
        out.writerow([name, r["MemoryGB"], "", "", "", "", "", "", "", "", "", "",
                      "https://github.com/skypilot-org/skypilot-catalog (common/metadata.csv)",
                      "memory only: no compute figures, so frugal can list and memory-check "
                      "offers for it but not estimate runtime"])
        seen.add(name)
# Newer GPUs in the price lists that neither table has: memory per GPU from the offers' GpuInfo.
extra = [("B300", 268, "AWS p6-b300 GpuInfo (MemoryInfo.SizeInMiB per GPU)"),
         ("RTX5090", 32, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)"),
         ("RTX5070", 12, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)"),
         ("RTX4070", 16, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)"),
         ("RTX4060", 16, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)"),
         ("RTX5880-Ada", 48, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)"),
         ("RTXPRO6000WS", 96, "Vast offer GpuInfo (MemoryInfo.SizeInMiB / count)")]
for name, gib, source in extra:
    if name not in seen:
        out.writerow([name, gib, "", "", "", "", "", "", "", "", "", "", source,
                      "memory only"])
