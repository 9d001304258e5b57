#!/usr/bin/env python3
"""Builds data/gpus.csv, the GPU table frugal ships, from the raw inputs beside the project.

Full specifications come from the curated gpus.csv (vendor datasheets, dense figures); GPUs that
appear in the price lists without such a row get a memory-only row from SkyPilot's GPU metadata,
so offers for them can be listed and memory-checked, but not timed.

usage: scripts/build-gpu-table.py RAW_DATA_DIR > data/gpus.csv
"""
import csv
import re
import sys

raw = sys.argv[1]
# Who a part is sold to: GeForce boards (named so in their notes, or RTX plus four digits) are
# consumer parts, whose datasheet peak is the rated boost clock's; the professional RTX and
# Quadro boards are workstation parts; the rest are data-centre parts.
WORKSTATION = {"A6000", "RTXA6000", "RTXA5000", "RTXA4500", "RTXA4000", "A4000", "RTX6000",
               "RTX8000", "RTX6000-Ada", "RTX5880-Ada", "RTX4000-Ada", "RTXPRO6000WS", "M4000",
               "P4000"}


def segment_of(name, notes):
    if name in WORKSTATION:
        return "workstation"
    if "GeForce" in notes or re.fullmatch(r"RTX\d{4}(Ti)?", name):
        return "consumer"
    return "data_centre"


class SegmentedWriter:
    """Writes each row with its market segment (segment_of) as the last column."""

    def __init__(self, writer):
        self.writer = writer
        self.header = True

    def writerow(self, row):
        row = list(row)
        row.append("segment" if self.header else segment_of(row[0], row[15]))
        self.header = False
        self.writer.writerow(row)


out = SegmentedWriter(csv.writer(sys.stdout, lineterminator="\n"))
columns = ["name", "memory_gib", "memory_bandwidth_gbps", "fp32_tflops", "tf32_tflops",
           "bf16_tflops", "fp8_tflops", "nvlink_gbps", "tdp_watts", "architecture",
           "release_year", "supports_bf16", "tensor_cores", "estimated", "source_url", "notes"]
out.writerow(columns)
seen = set()

# GPUs the price lists rent for which no vendor datasheet gives dense per-GPU figures (only
# sparse, boost, per-board or community figures) or which the curated table lacks: figures
# derived as the derivation says, flagged estimated. Columns: name, memory GiB, bandwidth GB/s,
# fp32, tf32, bf16/fp16, fp8 dense TFLOPS, NVLink GB/s, TDP W, architecture, year, bf16,
# tensor cores, estimated, source, derivation.
DERIVED = [
    ("A100-80GB-PCIe", 80, 1935, 19.5, 156, 312, "", "", 300, "Ampere", 2021, "true", "true",
     "false",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     "A100 80GB PCIe (datasheet column \"A100 80GB PCIe\"): HBM2e 1935 GB/s, 300 W, same dense "
     "compute as SXM4 (TF32 156|312*, BF16 312|624*; *sparse); its NVLink bridge joins two "
     "boards only, so taken as PCIe between GPUs"),
    ("A10G", 24, 600, 35, 35, 70, "", "", 300, "Ampere", 2021, "true", "true", "true",
     "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/",
     "AWS-only GA102 variant, no NVIDIA datasheet; FP32 35 and FP16/BF16 tensor 70 TFLOPS as "
     "published by Baseten's A10-vs-A10G comparison; TF32 taken as half the 16-bit rate"),
    ("A40", 48, 696, 37.4, 74.8, 149.7, "", 112.5, 300, "Ampere", 2020, "true", "true", "false",
     "https://www.nvidia.com/en-us/data-center/a40/",
     "datasheet dense figures: TF32 74.8|149.6*, BF16 149.7|299.4* (*sparse); NVLink bridge "
     "112.5 GB/s"),
    ("L40", 48, 864, 90.5, 90.5, 181, 362, "", 300, "Ada Lovelace", 2022, "true", "true",
     "false", "https://www.nvidia.com/en-us/data-center/l40/",
     "datasheet dense figures: TF32 90.5|181*, BF16 181|362*, FP8 362|724* (*sparse); PCIe only"),
    ("A6000", 48, 768, 38.7, 77.4, 154.8, "", 112.5, 300, "Ampere", 2020, "true", "true", "true",
     "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/",
     "RTX A6000 (Lambda's name); datasheet gives one 'Tensor Performance 309.7 TFLOPS' "
     "(sparse FP16): dense BF16 = half, TF32 = a quarter"),
    ("RTXA6000", 48, 768, 38.7, 77.4, 154.8, "", 112.5, 300, "Ampere", 2020, "true", "true",
     "true", "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/",
     "datasheet gives one 'Tensor Performance 309.7 TFLOPS' (sparse FP16): dense BF16 = half, "
     "TF32 = a quarter"),
    ("RTXA5000", 24, 768, 27.8, 55.6, 111.1, "", 112.5, 230, "Ampere", 2021, "true", "true",
     "true", "https://www.nvidia.com/en-us/design-visualization/rtx-a5000/",
     "datasheet 'Tensor Performance 222.2 TFLOPS' (sparse FP16): dense BF16 = half, TF32 = a "
     "quarter"),
    ("RTXA4000", 16, 448, 19.2, 38.4, 76.7, "", "", 140, "Ampere", 2021, "true", "true", "true",
     "https://www.nvidia.com/en-us/design-visualization/rtx-a4000/",
     "datasheet 'Tensor Performance 153.4 TFLOPS' (sparse FP16): dense BF16 = half"),
    ("A4000", 16, 448, 19.2, 38.4, 76.7, "", "", 140, "Ampere", 2021, "true", "true", "true",
     "https://www.nvidia.com/en-us/design-visualization/rtx-a4000/",
     "RTX A4000; datasheet 'Tensor Performance 153.4 TFLOPS' (sparse FP16): dense BF16 = half"),
    ("RTXA4500", 20, 640, 23.7, 47.3, 94.6, "", 112.5, 200, "Ampere", 2021, "true", "true", "true",
     "https://www.nvidia.com/en-us/design-visualization/rtx-a4500/",
     "datasheet 'Tensor Performance 189.2 TFLOPS' (sparse FP16): dense BF16 = half"),
    ("RTX3090", 24, 936, 35.6, 35.6, 71, "", 112.5, 350, "Ampere", 2020, "true", "true", "false",
     "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf",
     "GA102 whitepaper, GeForce RTX 3090: FP16/BF16 tensor with FP32 accumulate 71 dense (142 "
     "with FP16 accumulate), TF32 35.6"),
    ("RTX3080", 10, 760, 29.8, 29.8, 59.5, "", "", 320, "Ampere", 2020, "true", "true", "false",
     "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf",
     "GA102 whitepaper, GeForce RTX 3080: FP16 tensor with FP32 accumulate 59.5 dense"),
    ("RTX3060", 12, 360, 12.7, 12.7, 25.5, "", "", 170, "Ampere", 2021, "true", "true", "true",
     "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/",
     "GA106: 28 SMs x 1.777 GHz boost x 512 FP16 FLOPs/clock/SM with FP32 accumulate (the "
     "GA10x GeForce rate of the GA102 whitepaper)"),
    ("RTX4090", 24, 1008, 82.6, 82.6, 165.2, 330.3, "", 450, "Ada Lovelace", 2022, "true", "true",
     "false",
     "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
     "Ada whitepaper, GeForce RTX 4090: FP16/BF16 tensor with FP32 accumulate 165.2 dense, FP8 "
     "with FP32 accumulate 330.3 dense; PCIe only"),
    ("RTX4070", 16, 504, 29.1, 29.1, 58.3, 116.6, "", 200, "Ada Lovelace", 2023, "true", "true",
     "true", "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/",
     "46 SMs x 2.475 GHz boost x 512 FP16 FLOPs/clock/SM with FP32 accumulate (RTX 4090's "
     "whitepaper rate per SM); memory as the price list reports it"),
    ("RTX4060", 16, 288, 22.1, 22.1, 44.1, 88.2, "", 165, "Ada Lovelace", 2023, "true", "true",
     "true", "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/",
     "16 GB variant = RTX 4060 Ti: 34 SMs x 2.535 GHz boost x 512 FP16 FLOPs/clock/SM with "
     "FP32 accumulate"),
    ("RTX5090", 32, 1792, 104.8, 104.8, 209.5, 419, "", 575, "Blackwell", 2025, "true", "true",
     "true", "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
     "NVIDIA publishes 3352 'AI TOPS' (FP4, sparse): FP8 dense = /8 = 419, BF16 with FP32 "
     "accumulate = /16 = 209.5"),
    ("RTX5070", 12, 672, 30.9, 30.9, 61.8, 123.5, "", 250, "Blackwell", 2025, "true", "true",
     "true", "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5070-family/",
     "NVIDIA publishes 988 'AI TOPS' (FP4, sparse): FP8 dense = /8, BF16 = /16"),
    ("RTX6000", 24, 672, 16.3, "", 130.5, "", 100, 295, "Turing", 2018, "false", "true", "false",
     "https://www.nvidia.com/en-us/design-visualization/quadro/rtx-6000/",
     "Quadro RTX 6000 datasheet: FP32 16.3, tensor 130.5 TFLOPS (FP16, dense; Turing has no "
     "sparsity); no BF16/TF32"),
    ("RTX8000", 48, 672, 16.3, "", 130.5, "", 100, 295, "Turing", 2018, "false", "true", "false",
     "https://www.nvidia.com/en-us/design-visualization/quadro/rtx-8000/",
     "Quadro RTX 8000 datasheet: same compute as RTX 6000, 48 GB"),
    ("RTX6000-Ada", 48, 960, 91.1, 182.1, 364.2, 728.5, "", 300, "Ada Lovelace", 2022, "true",
     "true", "true", "https://www.nvidia.com/en-us/design-visualization/rtx-6000/",
     "datasheet gives 'Tensor Performance 1457 TFLOPS' (FP8, sparse): FP8 dense = half, BF16 = "
     "a quarter, TF32 = an eighth"),
    ("RTX5880-Ada", 48, 960, 69.3, 138.7, 277.4, 554.8, "", 285, "Ada Lovelace", 2024, "true",
     "true", "true", "https://www.nvidia.com/en-us/design-visualization/rtx-5880/",
     "datasheet 'Tensor Performance 1109.6 TFLOPS' (FP8, sparse): FP8 dense = half, BF16 = a "
     "quarter"),
    ("RTX4000-Ada", 20, 360, 26.7, 40.95, 81.9, 163.8, "", 130, "Ada Lovelace", 2023, "true",
     "true", "true", "https://www.nvidia.com/en-us/design-visualization/rtx-4000/",
     "datasheet 'Tensor Performance 327.6 TFLOPS' (FP8, sparse): FP8 dense = half, BF16 = a "
     "quarter"),
    ("RTXPRO6000WS", 96, 1792, 125, 250, 500, 1000, "", 600, "Blackwell", 2025, "true", "true",
     "true",
     "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000/",
     "NVIDIA publishes 4000 'AI TOPS' (FP4, sparse): FP8 dense = /4, BF16 = /8, TF32 = /16"),
    ("GH200", 80, 4000, 67, 494.5, 989.5, 1979, 900, 700, "Hopper", 2023, "true", "true", "true",
     "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/",
     "the Hopper GPU of the superchip: H100 SXM dense compute (sparse datasheet figures halved), "
     "HBM3 at 4 TB/s; memory as the price list's metadata gives it"),
    ("B300", 268, 8000, 75, 1125, 2250, 4500, 1800, 1100, "Blackwell", 2025, "true", "true",
     "true", "https://www.nvidia.com/en-us/data-center/hgx/",
     "HGX B300 platform figures are sparse totals for 8 GPUs (FP8 72 PF, BF16 36 PF, TF32 18 "
     "PF): per GPU dense = /8 /2; FP32 75 per GPU; memory per the AWS p6-b300 GpuInfo"),
    ("P100", 16, 732, 9.3, "", 18.7, "", "", 250, "Pascal", 2016, "false", "false", "false",
     "https://www.nvidia.com/en-us/data-center/tesla-p100/",
     "PCIe 16 GB datasheet: FP32 9.3, FP16 18.7 (packed half2, no tensor cores, no BF16)"),
    ("P4", 8, 192, 5.5, "", "", "", "", 75, "Pascal", 2016, "false", "false", "false",
     "https://www.nvidia.com/en-us/data-center/tesla-p4/",
     "datasheet: FP32 5.5 TFLOPS, INT8 22 TOPS; no fast FP16 (16-bit training runs at the FP32 "
     "rate)"),
    ("M60", 8, 160, 4.8, "", "", "", "", 150, "Maxwell", 2015, "false", "false", "true",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/solutions/resources/documents1/nvidia-m60-datasheet.pdf",
     "the board holds two GPUs; clouds rent one GPU: per-GPU = board figures (9.65 TFLOPS FP32 "
     "at boost, 320 GB/s, 300 W) halved; no fast FP16"),
    ("K80", 12, 240, 4.4, "", "", "", "", 150, "Kepler", 2014, "false", "false", "true",
     "https://www.nvidia.com/en-gb/data-center/tesla-k80/",
     "the board holds two GPUs: per-GPU = board figures (8.73 TFLOPS FP32 at boost, 480 GB/s, "
     "300 W) halved"),
    ("T4g", 16, 320, 8.1, "", 65, "", "", 70, "Turing", 2021, "false", "true", "true",
     "https://aws.amazon.com/ec2/instance-types/g5g/",
     "AWS g5g's T4G: taken as a T4 (same TU104 part per AWS); no BF16/TF32"),
    ("MI25", 16, 484, 12.3, "", 24.6, "", "", 300, "Vega", 2017, "false", "false", "false",
     "https://www.amd.com/en/support/downloads/drivers.html/accelerators/instinct/instinct-mi-series/instinct-mi25.html",
     "AMD datasheet: FP32 12.29, FP16 24.6 (packed, no matrix cores, no BF16)"),
]
derived_names = {row[0] for row in DERIVED}
with open(f"{raw}/gpus.csv", newline="") as f:
    for r in csv.DictReader(f):
        if r["name"] in derived_names:
            continue  # a memory-only curated row the derived table completes
        fp16_only = r["architecture"] in ("Turing", "Volta")
        out.writerow([r["name"], r["memory_gib"], r["mem_bandwidth_gbps"], r["fp32_tflops"],
                      r["tf32_tflops"], r["fp16_bf16_dense_tflops"], r["fp8_dense_tflops"],
                      r["nvlink_gbps"], r["tdp_w"], r["architecture"], r["release_year"],
                      "false" if fp16_only else "true", "true", "false", r["source_url"],
                      r["notes"]])
        seen.add(r["name"])
for row in DERIVED:
    out.writerow(list(row))
    seen.add(row[0])

# Names the price lists use that the curated table covers under another name.
covered = {"A100", "A100-80GB", "H100", "H100-MEGA", "V100", "V100-32GB", "A100-80GB-SXM",
           "H100-SXM", "H200-SXM", "H100-NVL", "H100-NVLINK"}
with open(f"{raw}/catalog/gpu_metadata.csv", newline="") as f:
    for r in csv.DictReader(f):
        name = r["GPU"].replace("Radeon ", "").replace(" ", "-")
        if name in seen or r["GPU"] in covered:
            continue
        out.writerow([name, r["MemoryGB"], "", "", "", "", "", "", "", "", "", "", "", "",
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
        out.writerow([name, gib, "", "", "", "", "", "", "", "", "", "", "", "", source,
                      "memory only"])
