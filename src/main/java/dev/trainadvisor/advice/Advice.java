package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.facts.Diagnosis;

import java.util.List;

/**
 * Everything train-advisor concludes about one run; the renderers see only this.
 *
 * @param run        the validated configuration, in run-file terms
 * @param observed   null when the run gave no measurements
 * @param gap        null when the run gave no measurements
 * @param fit        the model fitted to the run's timings (what the diagnoses and what-ifs start from); null
 *                   when the run measured no timing
 * @param diagnoses  sorted by impact, highest first
 * @param recommendations sorted by predicted speedup, highest first
 */
public record Advice(JsonNode run, PredictionView prediction, ObservedView observed, GapView gap, FitView fit,
                     List<Diagnosis> diagnoses, List<Recommendation> recommendations) {

    public record PredictionView(double stepTimeS, double tflopsPerGpu, double mfu, double hfu,
                                 double tokensPerGpuPerS, double modelFlopsPerToken, double hardwareFlopsPerToken,
                                 List<BreakdownLine> breakdown, List<CollectiveLine> collectives, MemoryView memory,
                                 EfficiencyView efficiency, List<String> notes) {}

    public record BreakdownLine(String phase, double seconds, double exposedSeconds, String link) {}

    public record CollectiveLine(String name, String kind, String group, int groupSize, double bytesPerStep,
                                 String link, String scope, double busbwGbps, double seconds, double exposedSeconds,
                                 String overlapsWith) {}

    /** The peak pipeline stage's memory, and every stage's total (one entry without pipeline parallelism). */
    public record MemoryView(double totalGb, double capacityGb, double headroomGb, double weightsGb, double gradientsGb,
                             double optimizerGb, double activationsGb, double logitsGb, double buffersGb,
                             List<StageMemoryView> stages) {}

    public record StageMemoryView(int stage, double totalGb, double activationsGb) {}

    public record EfficiencyView(double gemmFractionOfPeak, double attentionFractionOfPeak, double hbmFraction,
                                 double overlapFraction, double elementwiseTraffic) {}

    /**
     * @param tflopsPerGpu       as the framework printed it, in {@code tflopsConvention}
     * @param tflopsPerGpuHouse  the same run counted in the house convention
     */
    public record ObservedView(double tokensPerGpuPerS, String tokensSource, double stepTimeS, double fwdBwdTimeS,
                               double tflopsPerGpu, String tflopsConvention, double tflopsPerGpuHouse, double mfuHouse,
                               String relation) {}

    /** Throughput observed over predicted; unexplained seconds are observed minus predicted step time. */
    public record GapView(double observedOverPredicted, double observedStepTimeS, double predictedStepTimeS,
                          double unexplainedSeconds) {}

    /**
     * The step model fitted to the run's timings.
     *
     * @param stepTimeS the fitted step; the diagnoses' impacts and the recommendations' speedups start from it
     */
    public record FitView(List<FitParameterView> parameters, List<FitObservationView> observations, double stepTimeS,
                          double tokensPerGpuPerS, double tflopsPerGpu, double exposedCommSeconds, boolean converged) {}

    /** A fitted parameter: what the model expected (catalogue or measured), and what the run's timings say. */
    public record FitParameterView(String parameter, String unit, double expected, double fitted, double relativeChange,
                                   boolean constrained, String priorSource) {}

    public record FitObservationView(String name, double measured, double expected, double fitted) {}

    /** The diagnosis that costs the most, or null. */
    public Diagnosis top() { return diagnoses.isEmpty() ? null : diagnoses.get(0); }
}
