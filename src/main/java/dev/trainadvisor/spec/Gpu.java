package dev.trainadvisor.spec;

import java.util.Map;

/**
 * One accelerator from the catalogue (or given inline in a run file).
 *
 * @param peakTflops dense tensor-core peak per precision, from the datasheet
 * @param mamfTflopsBf16 measured maximum achievable bf16 matmul TFLOPS, or NaN when unmeasured
 * @param attentionFraction FlashAttention-2 forward + backward throughput over dense bf16 peak as benchmarked, or NaN
 * @param nvlinkLink the NVLink generation of this GPU's NVLink (SXM) nodes, or null for PCIe-only cards
 * @param hostPcieGen the PCIe generation of its host interface (3, 4, 5), 0 when unknown
 * @param pcieP2p     whether the driver allows peer-to-peer between two of them over PCIe (not on GeForce cards)
 */
public record Gpu(String key, Map<Precision, Double> peakTflops, double hbmGb, double hbmGbps,
                  double mamfTflopsBf16, double attentionFraction, int sms, String architecture, String nvlinkLink,
                  String source, int hostPcieGen, boolean pcieP2p) {

    public Gpu {
        java.util.EnumMap<Precision, Double> peaks = new java.util.EnumMap<>(Precision.class);
        peaks.putAll(peakTflops);   // an EnumMap: the step model asks for a peak at every prediction
        peakTflops = java.util.Collections.unmodifiableMap(peaks);
    }

    /** Peak for a precision; fp8 falls back to bf16 on GPUs without fp8 tensor cores. */
    public double peakTflops(Precision p) {
        Double v = peakTflops.get(p);
        if (v == null && p == Precision.FP8) v = peakTflops.get(Precision.BF16);
        if (v == null && p == Precision.FP16) v = peakTflops.get(Precision.BF16);
        if (v == null && p == Precision.BF16) v = peakTflops.get(Precision.FP16);
        if (v == null) v = peakTflops.get(Precision.FP32);
        return v == null ? Double.NaN : v;
    }

    public boolean hasFp8() { return peakTflops.get(Precision.FP8) != null; }

    /**
     * The CUDA compute capability of the architecture times ten (80 for Ampere's A100, 90 for Hopper), or 0 for a GPU
     * that is not NVIDIA's or of unknown architecture: NVIDIA, "CUDA GPUs - Compute Capability"
     * (https://developer.nvidia.com/cuda-gpus): Volta 7.0, Turing 7.5, Ampere 8.0 (A100; 8.6 for GeForce), Ada
     * Lovelace 8.9, Hopper 9.0, Blackwell 10.0 (B200, GB200).
     */
    public int smVersion() {
        if (architecture == null) return 0;
        return switch (architecture) {
            case "Volta" -> 70;
            case "Turing" -> 75;
            case "Ampere" -> 80;
            case "Ada Lovelace" -> 89;
            case "Hopper" -> 90;
            case "Blackwell" -> 100;
            default -> 0;
        };
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Gpu g && Double.compare(hbmGb, g.hbmGb) == 0
                && Double.compare(hbmGbps, g.hbmGbps) == 0 && Double.compare(mamfTflopsBf16, g.mamfTflopsBf16) == 0
                && Double.compare(attentionFraction, g.attentionFraction) == 0 && sms == g.sms
                && hostPcieGen == g.hostPcieGen && pcieP2p == g.pcieP2p && java.util.Objects.equals(key, g.key)
                && java.util.Objects.equals(peakTflops, g.peakTflops)
                && java.util.Objects.equals(architecture, g.architecture)
                && java.util.Objects.equals(nvlinkLink, g.nvlinkLink) && java.util.Objects.equals(source, g.source);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(key);
        h = 31 * h + java.util.Objects.hashCode(peakTflops);
        h = 31 * h + Double.hashCode(hbmGb);
        h = 31 * h + Double.hashCode(hbmGbps);
        h = 31 * h + Double.hashCode(mamfTflopsBf16);
        h = 31 * h + Double.hashCode(attentionFraction);
        h = 31 * h + sms;
        h = 31 * h + java.util.Objects.hashCode(architecture);
        h = 31 * h + java.util.Objects.hashCode(nvlinkLink);
        h = 31 * h + java.util.Objects.hashCode(source);
        h = 31 * h + hostPcieGen;
        return 31 * h + Boolean.hashCode(pcieP2p);
    }
}
