package dev.trainadvisor.report;

import java.util.List;

/** The terms the reports use, one line each; the HTML and Markdown reports end with them, and docs/reports.md lists them. */
public final class Glossary {
    private Glossary() {}

    public record Term(String term, String meaning) {}

    public static final List<Term> TERMS = List.of(
            new Term("achievable", "the TFLOPS per GPU the best recommendation that keeps the optimisation predicts; the fitted step when none gains"),
            new Term("alpha", "the fixed cost of one collective call (launch and latency), in microseconds; a call takes alpha + factor x bytes / busbw"),
            new Term("arithmetic intensity", "FLOPs an operation does per byte it moves through HBM; below the ridge (peak / HBM bandwidth) it is memory-bound"),
            new Term("busbw", "bus bandwidth as nccl-tests reports it: bytes per rank x the collective's factor (2(n-1)/n for an all-reduce, (n-1)/n for a gather) / time"),
            new Term("compute-scale", "the fitted multiple of the GEMM and attention rates the catalogue expects: 1 is as benchmarked, 0.8 is 20% slower"),
            new Term("exposed", "seconds of communication, bubble or optimizer that no compute hides: they add to the step"),
            new Term("fitted", "the step model with its uncertain quantities (compute-scale, link bandwidths, overlap) fitted to the run's measured times"),
            new Term("GPU-hours lost", "GPUs x hours of running x (1 - observed / achievable throughput): what the run would save at the throughput the model says it can reach"),
            new Term("HFU", "hardware FLOPs utilisation: like MFU but counting recomputed forwards"),
            new Term("house", "train-advisor's own FLOP count per token (matmuls of every layer, causal attention counted half, the logits), the same for every framework, so runs compare"),
            new Term("interval", "the range 8 in 10 validated published runs of the same kind landed in, around the prediction, each run predicted with the constants fitted without its own source and each source counted once"),
            new Term("MAMF", "maximum achievable matmul FLOPS: the best bf16 GEMM rate measured on the GPU (Bekman's mamf-finder), below the datasheet peak"),
            new Term("MFU", "model FLOPs utilisation: house FLOPs per second over the GPU's dense bf16 peak (PaLM, appendix B)"),
            new Term("micro-batch", "the sequences one GPU runs forward and backward at a time; micro-batches per step accumulate gradients"),
            new Term("next bottleneck", "the collective that would bound the step once a recommendation is applied"),
            new Term("observed", "what the run measured (its log or run file), converted to the house FLOP count"),
            new Term("pipeline bubble", "time pipeline stages wait at a step's start and end: (stages - 1) / (micro-batches x virtual stages) of the compute"),
            new Term("predicted", "the step model on the catalogue's hardware at its default efficiencies, before looking at the run's times"),
            new Term("roofline", "a chart of each operation's achieved rate against its arithmetic intensity, under the GPU's compute and HBM ceilings"),
            new Term("rule", "a Drools rule in rules/*.drl; every diagnosis names the rule that concluded it and the facts it matched"),
            new Term("ruled out", "a diagnosis rule that was tested and missed its threshold, with the share of the step it found"),
            new Term("same math", "a change that keeps the optimisation (global batch, sequence length, weight precision); others are listed last"),
            new Term("set by", "whether the run's measurements or the prior (the catalogue's expectation) decided a fitted value"),
            new Term("severity", "high: 20% of the step or more; medium: 5% or more (the materiality threshold); low and info: worth knowing"),
            new Term("speedup", "predicted over fitted throughput; its range covers the explanations of the run's times the fit cannot rule out"),
            new Term("tp, pp, dp, cp, ep", "tensor, pipeline, data, context and expert parallelism: how many GPUs split each layer, the layers, the batch, the sequence and the experts"),
            new Term("wall time", "the run's elapsed time over its logged steps, stalls between steps included; a cause seen in the history (a stall, a slowdown) is a share of it, not of the modelled step"),
            new Term("ZeRO", "sharding of optimizer state (1), gradients (2) and weights (3, as FSDP) over the data-parallel ranks"));

    /** The terms only the fleet report uses, after the others in its glossary. */
    public static final List<Term> FLEET_TERMS = List.of(
            new Term("GPU-hours lost per hour", "GPUs x (1 - observed / achievable throughput) for a run whose log gives no step count: a rate, ranked apart from the totals and never added to them"),
            new Term("outlier", "a run whose observed over predicted throughput falls outside the interval of its class; the fleet's scatter draws them red and names the furthest"));

    /** The glossary as a Markdown list. */
    public static String markdown() { return markdown(TERMS); }

    static String markdown(List<Term> terms) {
        StringBuilder s = new StringBuilder();
        for (Term t : terms) s.append("- **").append(t.term()).append("**: ").append(t.meaning()).append(".\n");
        return s.toString();
    }

    static String html() { return html(TERMS); }

    static String html(List<Term> terms) {
        StringBuilder s = new StringBuilder("<section id=\"glossary\"><h2>Glossary</h2>\n<dl>\n");
        for (Term t : terms) s.append("<dt>").append(Html.esc(t.term())).append("</dt><dd>").append(Html.esc(t.meaning()))
                .append(".</dd>\n");
        return s.append("</dl></section>\n").toString();
    }

    /** The fleet report's glossary: every term, then the fleet's own. */
    static List<Term> fleet() {
        List<Term> all = new java.util.ArrayList<>(TERMS);
        all.addAll(FLEET_TERMS);
        return all;
    }
}
