"""Accelerators as data: dense peak FLOP/s per dtype, memory bandwidth and capacity, with the
datasheet each figure comes from. Peaks are the dense figures (never the 2:4-sparse ones the
datasheets print beside them); bandwidth and capacity in decimal units (10^12 bytes/s, 10^9
bytes), as the vendors state them. fp16 runs at the bf16 rate on every part listed; int8 at
the fp8 rate where the part has fp8 (int8 TOPS where it has none)."""

from __future__ import annotations

from dataclasses import dataclass

T = 10**12
G = 10**9


@dataclass(frozen=True)
class Accelerator:
    name: str
    peaks: dict[str, float]  # dtype -> dense FLOP/s
    bandwidth: float  # bytes/s
    memory: int  # bytes
    source: str


def _p(bf16: float, fp8: float | None = None, fp32: float | None = None) -> dict[str, float]:
    out = {"bf16": bf16 * T, "fp16": bf16 * T}
    if fp8 is not None:
        out["fp8"] = out["int8"] = fp8 * T
    if fp32 is not None:
        out["fp32"] = fp32 * T
    return out


ACCELERATORS: dict[str, Accelerator] = {a.name: a for a in (
    Accelerator("h100-sxm", _p(989.4, 1978.9, 66.9), 3.35 * T, 80 * G,
                "NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 / FP8 3,958 TFLOPS with sparsity, halved"),
    Accelerator("h100-pcie", _p(756.5, 1513.0, 51.2), 2.0 * T, 80 * G,
                "NVIDIA H100 Tensor Core GPU datasheet (PCIe): BF16 1,513 / FP8 3,026 TFLOPS with sparsity, halved"),
    Accelerator("h200", _p(989.4, 1978.9, 66.9), 4.8 * T, 141 * G,
                "NVIDIA H200 Tensor Core GPU datasheet (SXM): H100 SXM's compute, 4.8 TB/s HBM3e, 141 GB"),
    Accelerator("b200", _p(2250.0, 4500.0), 8.0 * T, 180 * G,
                "NVIDIA DGX/HGX B200 datasheet, per GPU: BF16 4.5 / FP8 9 PFLOPS with sparsity, halved; 8 TB/s, 180 GB"),
    Accelerator("a100-40gb", {**_p(312.0, None, 19.5), "int8": 624.0 * T}, 1.555 * T, 40 * G,
                "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB): BF16 312 TFLOPS dense, INT8 624 TOPS, 1,555 GB/s"),
    Accelerator("a100-80gb", {**_p(312.0, None, 19.5), "int8": 624.0 * T}, 2.039 * T, 80 * G,
                "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): BF16 312 TFLOPS dense, INT8 624 TOPS, 2,039 GB/s"),
    Accelerator("l40s", _p(362.05, 733.0, 91.6), 0.864 * T, 48 * G,
                "NVIDIA L40S datasheet: BF16 733 / FP8 1,466 TFLOPS with sparsity, halved; 864 GB/s, 48 GB"),
    Accelerator("l4", _p(121.0, 242.5, 30.3), 0.300 * T, 24 * G,
                "NVIDIA L4 datasheet: BF16 242 / FP8 485 TFLOPS with sparsity, halved; 300 GB/s, 24 GB"),
    Accelerator("rtx-4090", _p(165.2, 330.3, 82.6), 1.008 * T, 24 * G,
                "NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090: BF16 and FP8 tensor, FP32 accumulate, dense; 1,008 GB/s"),
    Accelerator("mi300x", _p(1307.4, 2614.9, 163.4), 5.3 * T, 192 * G,
                "AMD Instinct MI300X datasheet: BF16 1,307.4 / FP8 2,614.9 TFLOPS dense; 5.3 TB/s, 192 GB"),
    Accelerator("tpu-v5e", {"bf16": 197.0 * T, "int8": 394.0 * T}, 0.819 * T, 16 * G,
                "Google Cloud TPU v5e documentation: 197 TFLOPS bf16, 394 TOPS int8, 819 GB/s, 16 GB HBM2"),
)}  # fmt: skip
