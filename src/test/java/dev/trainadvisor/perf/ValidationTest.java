package dev.trainadvisor.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Aggregation of validation errors per group and split. */
class ValidationTest {

    static Validation.Row row(String group, String split, double tokensError, double tflopsError) {
        return new Validation.Row("id", group, split, null, "tokens_per_gpu_per_s", 1000, 1000 * (1 + tokensError), tokensError,
                Double.isNaN(tflopsError) ? null : "composer", 100, 100 * (1 + tflopsError), tflopsError, 8,
                new RunClass(RunClass.Bound.COMPUTE, RunClass.Family.DENSE, false));
    }

    @Test
    void meanAbsoluteAndSignedErrorsPerSplit() {
        List<Validation.Row> rows = List.of(row("g", "tune", 0.10, 0.12), row("g", "tune", -0.20, Double.NaN),
                row("g", "holdout", 0.05, -0.04));
        Validation.Summary tune = Validation.summary("g", "tune", rows);
        assertEquals(2, tune.rows());
        assertEquals((0.10 + 0.20) / 2, tune.tokensMape(), 1e-12);
        assertEquals((0.10 - 0.20) / 2, tune.tokensBias(), 1e-12);
        assertEquals(1, tune.tflopsRows());
        assertEquals(0.12, tune.tflopsMape(), 1e-12);
        Validation.Summary all = Validation.summary("g", "all", rows);
        assertEquals(3, all.rows());
        assertEquals((0.10 + 0.20 + 0.05) / 3, all.tokensMape(), 1e-12);
        assertEquals((0.12 + 0.04) / 2, all.tflopsMape(), 1e-12);
    }
}
