package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Composer / llm-foundry. No composer sample is in shared/samples/logs at the time of writing; any composer-N.log that
 * appears is checked for detection and a positive per-device token rate. The block below is built from the
 * ConsoleLogger format of docs/logs.md (Composer) (header, one tab-indented "Train name: value" per metric, .4f
 * floats); the numbers are made up.
 */
class ComposerLogTest {
    final ComposerLog parser = new ComposerLog();

    static String block(int batch, double batchesPerSec, double deviceTokens, double mfu) {
        return "[epoch=1][batch=" + batch + "/100]:\n"
                + "\t Train time/batch: " + (batch - 1) + "\n"
                + "\t Train loss/train/total: 8.4213\n"
                + "\t Train throughput/batches_per_sec: " + batchesPerSec + "\n"
                + "\t Train throughput/samples_per_sec: 2.7330\n"
                + "\t Train throughput/device/batches_per_sec: 0.0002\n"
                + "\t Train throughput/tokens_per_sec: 20082.8418\n"
                + "\t Train throughput/device/tokens_per_sec: " + deviceTokens + "\n"
                + "\t Train throughput/device/flops_per_sec: 150000000000000.0\n"
                + "\t Train throughput/device/mfu: " + mfu + "\n"
                + "\t Train memory/peak_reserved_mem: 61.2000\n"
                + "\t Train time/train: 0.5249\n";
    }

    @Test
    void consoleLoggerBlocks() {
        String log = block(10, 0.1, 1000.0, 0.40) + block(20, 0.5, 2500.0, 0.45) + block(30, 0.52, 2400.0, 0.44)
                + block(40, 0.48, 2600.0, 0.46);
        assertEquals("composer", LogFormats.detectAndParse(log, "c.log").format());
        ParsedLog p = parser.parse(log);
        assertEquals(4, p.steps());
        // batches 20, 30, 40 after dropping batch 10: device tokens 2500, 2400, 2600 -> 2500
        assertEquals(3, p.steadySteps());
        assertEquals(2500.0, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        assertEquals(0.45, metric(p, "mfu"), 1e-12, "a fraction already");
        assertEquals(150.0, metric(p, "tflops_per_gpu"), 1e-9, "flops_per_sec / 1e12");
        assertEquals("composer", p.tflopsConvention());
        // step time 1 / batches_per_sec of batches 20, 30, 40: 1/0.5 = 2, 1/0.52 = 1.923, 1/0.48 = 2.083 -> 2 s
        // (batch 10: 1/0.1 = 10 s, dropped as the first step)
        assertEquals(2.0, metric(p, "step_time_s"), 1e-12);
        assertEquals(61.2, metric(p, "peak_memory_gb"), 1e-12, "GB of 1e9 bytes as Composer logs them");
        assertEquals(40.0, metric(p, "steps"));
    }

    @Test
    void tokenHeadersAndMissingMfu() {
        String log = "[token=1000/100000]:\n  Train throughput/device/tokens_per_sec: 1255.1776\n"
                + "[token=2000/100000]:\n  Train throughput/device/tokens_per_sec: 1293.4943\n";
        ParsedLog p = parser.parse(log);
        assertEquals(2, p.steps(), "blocks numbered in order");
        assertEquals(1293.4943, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        assertFalse(p.metrics().containsKey("mfu"), "no MFU on a device Composer does not know (e.g. MI300X)");
    }

    @Test
    void anyComposerSampleIsDetected() {
        for (String name : Samples.named("composer")) {
            ParsedLog p = Samples.parse(parser, name);
            assertTrue(p.steps() > 0, name);
        }
    }
}
