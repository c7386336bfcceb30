package dev.trainadvisor.report;

import dev.trainadvisor.perf.Phase;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;
import static dev.trainadvisor.report.Html.esc;

/**
 * The reports' charts, as inline SVG drawn from the advice's view and nothing else. Each is a {@code <figure
 * class="chart" data-chart=NAME data-marks=N>}: a title, axis units, a text alternative ({@code <title>} and
 * {@code <desc>} inside the SVG, and the numbers as a table under it), and N elements of class {@code mark}, one per
 * datum drawn (a bar segment, a point, a bar). Colours differ in lightness and the communication segments carry a
 * hatch, so the charts survive greyscale printing.
 */
final class Charts {
    private Charts() {}

    /** Fills ordered by lightness (dark to light) so that neighbours differ in greyscale too (Okabe and Ito 2008 hues). */
    static final String COMPUTE_FORWARD = "#1d4e89", COMPUTE_BACKWARD = "#5a8ac6", BUBBLE = "#bdbdbd", OPTIMIZER = "#00745a",
            OTHER = "#e0e0e0", OBSERVED = "#404040";
    static final String[] LINKS = {"#e69f00", "#d55e00", "#cc79a7", "#f0e442"};
    static final String[] MEMORY = {"#1d4e89", "#5a8ac6", "#00745a", "#e69f00", "#d55e00", "#bdbdbd"};

    record Segment(String label, double value, String fill, boolean hatched) {}

    record Bar(String label, List<Segment> segments) {
        double total() { return segments.stream().mapToDouble(Segment::value).sum(); }
    }

    /** The step as a timeline: one bar each for the predicted, fitted and observed step, segments in step order. */
    static String timeline(String id, AdviceView a) {
        List<Bar> bars = new ArrayList<>();
        bars.add(new Bar("predicted", phases(a.prediction().breakdown())));
        if (a.fit() != null) bars.add(new Bar("fitted", phases(a.fit().breakdown())));
        AdviceView.ObservedView o = a.observed();
        if (o != null && o.stepTimeS() > 0) {
            List<Segment> seg = new ArrayList<>();
            if (o.fwdBwdTimeS() > 0 && o.fwdBwdTimeS() <= o.stepTimeS()) {
                seg.add(new Segment("forward-backward (measured)", o.fwdBwdTimeS(), OBSERVED, false));
                if (o.stepTimeS() > o.fwdBwdTimeS())
                    seg.add(new Segment("rest of the step (measured)", o.stepTimeS() - o.fwdBwdTimeS(), OTHER, false));
            } else {
                seg.add(new Segment("step (measured)", o.stepTimeS(), OBSERVED, false));
            }
            bars.add(new Bar("observed", seg));
        }
        return stacked(id, "timeline", "The step, predicted, fitted and observed",
                "Seconds of one optimizer step by what the GPU waits on: compute, the communication no compute hides (per "
                        + "link), the pipeline bubble and the optimizer.", bars, "s", Double.NaN, null);
    }

    /** Exposed seconds by phase, communication summed per link, in the order the step runs them. */
    static List<Segment> phases(List<AdviceView.BreakdownLine> lines) {
        List<Segment> out = new ArrayList<>();
        Map<String, Double> links = new LinkedHashMap<>();
        for (AdviceView.BreakdownLine l : lines) {
            if (!(l.exposedSeconds() > 0)) continue;
            if (l.link() != null) {
                links.merge(l.link(), l.exposedSeconds(), Double::sum);
                continue;
            }
            String fill = switch (l.phase()) {
                case Phase.FORWARD -> COMPUTE_FORWARD;
                case Phase.BACKWARD -> COMPUTE_BACKWARD;
                case Phase.PIPELINE_BUBBLE -> BUBBLE;
                case Phase.OPTIMIZER -> OPTIMIZER;
                default -> OTHER;
            };
            out.add(new Segment(l.phase(), l.exposedSeconds(), fill, false));
        }
        int i = 0;
        for (Map.Entry<String, Double> e : links.entrySet())
            out.add(new Segment("exposed communication on " + e.getKey(), e.getValue(), LINKS[i++ % LINKS.length], true));
        return out;
    }

    /** Memory per GPU on the peak stage, stacked against the GPU's capacity. */
    static String memory(String id, AdviceView.MemoryView m) {
        String[] names = {"weights", "gradients", "optimizer state", "activations", "logits", "buffers"};
        double[] gb = {m.weightsGb(), m.gradientsGb(), m.optimizerGb(), m.activationsGb(), m.logitsGb(), m.buffersGb()};
        List<Segment> seg = new ArrayList<>();
        for (int i = 0; i < names.length; i++) if (gb[i] > 0) seg.add(new Segment(names[i], gb[i], MEMORY[i], false));
        return stacked(id, "memory", "Memory per GPU against its capacity",
                "Gigabytes per GPU on the pipeline stage that holds the most, by what holds them; the line is the GPU's "
                        + "memory (" + num(m.capacityGb()) + " GB).", List.of(new Bar("per GPU", seg)), "GB",
                m.capacityGb(), "capacity " + num(m.capacityGb()) + " GB");
    }

    /**
     * Horizontal stacked bars on one scale, one mark per segment; a vertical reference line at {@code limit} when it is
     * a number.
     */
    static String stacked(String id, String chart, String title, String desc, List<Bar> bars, String unit, double limit,
                          String limitLabel) {
        int labelW = 90, plotW = 560, barH = 30, gap = 14, top = Double.isNaN(limit) ? 10 : 24, axisH = 46;
        double max = bars.stream().mapToDouble(Bar::total).max().orElse(0);
        if (!Double.isNaN(limit)) max = Math.max(max, limit);
        if (!(max > 0)) return "";
        double scaleMax = niceCeil(max);
        List<Segment> legend = new ArrayList<>();
        int marks = 0;
        StringBuilder svg = new StringBuilder();
        int y = top;
        for (Bar b : bars) {
            svg.append(text(labelW - 6, y + barH / 2 + 4, "end", esc(b.label())));
            double x = labelW;
            for (Segment s : b.segments()) {
                double w = s.value() / scaleMax * plotW;
                svg.append(String.format(Locale.ROOT, "<rect class=\"mark\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                                + "fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"><title>%s, %s: %s %s (%s)</title></rect>",
                        x, y, w, barH, s.fill(), esc(b.label()), esc(s.label()), num(s.value()), unit, pct(s.value() / b.total())));
                if (s.hatched()) svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"url(#%s-hatch)\" pointer-events=\"none\"/>",
                        x, y, w, barH, id));
                if (w > 46) svg.append(text(x + w / 2, y + barH / 2 + 4, "middle", num(s.value()),
                        lightness(s.fill()) < 0.179 ? "#fff" : "#000"));
                x += w;
                marks++;
                if (legend.stream().noneMatch(l -> l.label().equals(s.label()))) legend.add(s);
            }
            svg.append(text(x + 4, y + barH / 2 + 4, "start", num(b.total()) + " " + unit));
            y += barH + gap;
        }
        int plotBottom = y - gap;
        if (!Double.isNaN(limit)) {
            double lx = labelW + limit / scaleMax * plotW;
            svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                    + "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>", lx, top - 6, lx, plotBottom + 4));
            // the total's label beside the bar would sit on the line: a bar that ends near it is labelled inside
            svg.append(text(lx, top - 10, "middle", esc(limitLabel)));
        }
        svg.append(axis(labelW, plotW, plotBottom + 4, scaleMax, unit));
        int legendY = plotBottom + axisH;
        int col = 0, row = 0;
        for (Segment s : legend) {
            int lx = labelW + col * 300, ly = legendY + row * 18;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#000\" "
                    + "stroke-width=\"0.5\"/>", lx, ly, s.fill()));
            if (s.hatched()) svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
                    + "fill=\"url(#%s-hatch)\"/>", lx, ly, id));
            svg.append(text(lx + 16, ly + 10, "start", esc(s.label())));
            if (++col == 2) { col = 0; row++; }
        }
        int height = legendY + (row + (col > 0 ? 1 : 0)) * 18 + 6;
        StringBuilder table = new StringBuilder("<table><tr><th></th><th>part</th><th>").append(esc(unit)).append("</th></tr>");
        for (Bar b : bars)
            for (Segment s : b.segments())
                table.append("<tr><td>").append(esc(b.label())).append("</td><td>").append(esc(s.label())).append("</td><td>")
                        .append(num(s.value())).append("</td></tr>");
        table.append("</table>");
        String defs = "<defs><pattern id=\"" + id + "-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                + "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"1.5\" "
                + "stroke-opacity=\"0.45\"/></pattern></defs>";
        return figure(id, chart, title, desc + " " + summary(bars, unit), labelW + plotW + 90, height, defs + svg, marks,
                table.toString());
    }

    private static String summary(List<Bar> bars, String unit) {
        List<String> parts = new ArrayList<>();
        for (Bar b : bars) {
            List<String> s = new ArrayList<>();
            for (Segment x : b.segments()) s.add(x.label() + " " + num(x.value()));
            parts.add(b.label() + " " + num(b.total()) + " " + unit + " (" + String.join(", ", s) + ")");
        }
        return String.join("; ", parts) + ".";
    }

    /**
     * A roofline: the step's operations (one forward on one GPU) at their arithmetic intensity and achieved TFLOPS,
     * under the GPU's dense peak and its HBM slope; the memory-bound kernels, which do next to no FLOPs, as bars of
     * the HBM bandwidth they reach.
     */
    static String roofline(String id, AdviceView.PredictionView p) {
        AdviceView.CeilingsView c = p.ceilings();
        List<AdviceView.OperationView> compute = new ArrayList<>(), memory = new ArrayList<>();
        for (AdviceView.OperationView o : p.operations()) {
            if (o.flops() > 0 && o.intensity() > 0) compute.add(o);
            else if (o.hbmBytes() > 0) memory.add(o);
        }
        if (compute.isEmpty() || !(c.peakTflops() > 0) || !(c.hbmGbps() > 0)) return "";
        int left = 60, plotW = 520, plotH = 240, top = 16;
        // ceilings: HBM slope up to the ridge, then the dense peak; a decade of room around the ridge and the points
        double ridge = c.peakTflops() / (c.hbmGbps() / 1000);
        double lowI = ridge, highI = ridge, lowT = c.peakTflops();
        for (AdviceView.OperationView o : compute) {
            lowI = Math.min(lowI, o.intensity());
            highI = Math.max(highI, o.intensity());
            lowT = Math.min(lowT, o.achievedTflops());
        }
        double xMin = Math.pow(10, Math.floor(Math.log10(lowI)) - 1), xMax = Math.pow(10, Math.ceil(Math.log10(highI * 1.5)));
        double yMin = Math.pow(10, Math.floor(Math.log10(Math.min(lowT, c.hbmGbps() / 1000 * xMin * 10)))), yMax = Math.pow(10,
                Math.ceil(Math.log10(c.peakTflops() * 1.3)));
        StringBuilder svg = new StringBuilder();
        double slopeStart = Math.max(xMin, yMin / (c.hbmGbps() / 1000));
        svg.append(String.format(Locale.ROOT, "<polyline class=\"ceiling\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
                        + "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
                lx(slopeStart, xMin, xMax, left, plotW), ly(c.hbmGbps() / 1000 * slopeStart, yMin, yMax, top, plotH),
                lx(ridge, xMin, xMax, left, plotW), ly(c.peakTflops(), yMin, yMax, top, plotH),
                lx(xMax, xMin, xMax, left, plotW), ly(c.peakTflops(), yMin, yMax, top, plotH)));
        svg.append(text(lx(xMax, xMin, xMax, left, plotW) - 4, ly(c.peakTflops(), yMin, yMax, top, plotH) - 5, "end",
                "dense peak " + num(c.peakTflops()) + " TFLOPS"));
        double hbmLabelX = Math.sqrt(slopeStart * ridge);
        svg.append(text(lx(hbmLabelX, xMin, xMax, left, plotW) - 8, ly(c.hbmGbps() / 1000 * hbmLabelX, yMin, yMax, top, plotH) - 4,
                "end", "HBM " + num(c.hbmGbps() / 1000) + " TB/s"));
        if (c.mamfTflops() > 0) {
            double my = ly(c.mamfTflops(), yMin, yMax, top, plotH);
            svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                    + "stroke-dasharray=\"4 3\"/>", lx(ridge * c.mamfTflops() / c.peakTflops(), xMin, xMax, left, plotW), my,
                    lx(xMax, xMin, xMax, left, plotW), my));
            svg.append(text(lx(ridge * c.mamfTflops() / c.peakTflops(), xMin, xMax, left, plotW) + 4, my + 13, "start",
                    "MAMF " + num(c.mamfTflops()) + " TFLOPS"));
        }
        int marks = 0;
        String[] shapes = {"circle", "square", "diamond"};
        int i = 0;
        for (AdviceView.OperationView o : compute) {
            double x = lx(o.intensity(), xMin, xMax, left, plotW), y = ly(o.achievedTflops(), yMin, yMax, top, plotH);
            String tip = "<title>" + esc(o.name()) + ": " + num(o.intensity()) + " FLOP/byte, " + num(o.achievedTflops())
                    + " TFLOPS (" + pct(o.achievedTflops() / c.peakTflops()) + " of peak)</title>";
            String shape = o.kind().equals("attention") ? shapes[2] : shapes[i % 2];
            svg.append(marker(shape, x, y, o.kind().equals("attention") ? "#d55e00" : "#1d4e89", tip));
            // numbered, the names in a key under the plot: the GEMMs of a layer sit close together
            svg.append(text(x + 3 + (i % 2 == 0 ? 4 : -14), y + (i % 2 == 0 ? 14 : -7), "start", Integer.toString(i + 1)));
            marks++;
            i++;
        }
        StringBuilder key = new StringBuilder();
        for (int k = 0; k < compute.size(); k++) key.append(k == 0 ? "" : ", ").append(k + 1).append(" ").append(compute.get(k).name());
        svg.append(logAxes(left, plotW, top, plotH, xMin, xMax, yMin, yMax, "arithmetic intensity (FLOP per byte of HBM)",
                "TFLOPS per GPU"));
        svg.append(text(left, top + plotH + 48, "start", esc(key.toString())));
        int panelTop = top + plotH + 78;
        int rowH = 18;
        if (!memory.isEmpty()) {
            svg.append(text(left, panelTop - 6, "start", "Memory-bound kernels: HBM bandwidth reached (GB/s), line at "
                    + num(c.hbmGbps()) + " GB/s"));
            double max = c.hbmGbps();
            int y = panelTop;
            for (AdviceView.OperationView o : memory) {
                double w = Math.min(o.achievedGbps(), max * 1.2) / max * (plotW - 120);
                svg.append(text(left + 110, y + 12, "end", esc(o.name())));
                svg.append(String.format(Locale.ROOT, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                                + "fill=\"#5a8ac6\"><title>%s: %s GB/s of %s</title></rect>", left + 116, y, w, rowH - 4, esc(o.name()),
                        num(o.achievedGbps()), num(c.hbmGbps())));
                svg.append(text(left + 120 + w, y + 12, "start", num(o.achievedGbps())));
                marks++;
                y += rowH;
            }
            double hx = left + 116 + (plotW - 120);
            svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                    + "stroke-width=\"2\"/>", hx, panelTop - 2, hx, y));
        }
        int height = panelTop + memory.size() * rowH + 10;
        StringBuilder table = new StringBuilder("<table><tr><th>operation</th><th>kind</th><th>FLOP per byte</th><th>TFLOPS</th>"
                + "<th>GB/s</th><th>ms per micro-batch</th></tr>");
        List<AdviceView.OperationView> all = new ArrayList<>(compute);
        all.addAll(memory);
        for (AdviceView.OperationView o : all)
            table.append("<tr><td>").append(esc(o.name())).append("</td><td>").append(esc(o.kind())).append("</td><td>")
                    .append(Double.isNaN(o.intensity()) ? "" : num(o.intensity())).append("</td><td>")
                    .append(o.flops() > 0 ? num(o.achievedTflops()) : "").append("</td><td>").append(num(o.achievedGbps()))
                    .append("</td><td>").append(num(o.secondsPerMicroBatch() * 1000)).append("</td></tr>");
        table.append("</table>");
        String desc = "Each GEMM and attention kernel of one micro-batch's forward at its FLOPs per byte of HBM traffic and "
                + "the TFLOPS the model gives it, under the " + c.gpu() + "'s dense peak (" + num(c.peakTflops())
                + " TFLOPS) and its HBM bandwidth (" + num(c.hbmGbps()) + " GB/s); the memory-bound kernels below, as the "
                + "bandwidth they reach.";
        return figure(id, "roofline", "Roofline of the step's operations on the " + c.gpu(), desc, left + plotW + 150, height,
                svg.toString(), marks, table.toString());
    }

    /**
     * Each recommendation's predicted TFLOPS per GPU with its interval (a whisker), against the run as it is (a
     * dashed line at the fitted step, or the predicted one without a fit).
     */
    static String recommendations(String id, AdviceView a) {
        List<AdviceView.RecommendationView> recs = a.recommendations();
        if (recs.isEmpty()) return "";
        double asRun = a.fit() != null ? a.fit().tflopsPerGpu() : a.prediction().tflopsPerGpu();
        int labelW = 200, plotW = 440, rowH = 28, top = 22;
        double max = asRun;
        for (AdviceView.RecommendationView r : recs) max = Math.max(max, asRun * r.speedupInterval()[1]);
        max = Math.max(max, recs.stream().mapToDouble(AdviceView.RecommendationView::predictedTflopsPerGpu).max().orElse(0));
        double scaleMax = niceCeil(max);
        StringBuilder svg = new StringBuilder();
        int y = top, n = 1;
        for (AdviceView.RecommendationView r : recs) {
            double w = r.predictedTflopsPerGpu() / scaleMax * plotW;
            svg.append(text(labelW - 6, y + 15, "end", n++ + ". " + esc(r.id())));
            svg.append(String.format(Locale.ROOT, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"%s\">"
                            + "<title>%s: %s TFLOPS, x%s (x%s-%s)</title></rect>", labelW, y, w, r.sameMath() ? "#5a8ac6" : "#bdbdbd",
                    esc(r.id()), num(r.predictedTflopsPerGpu()), num(r.speedup()), num(r.speedupInterval()[0]),
                    num(r.speedupInterval()[1])));
            double lo = labelW + asRun * r.speedupInterval()[0] / scaleMax * plotW;
            double hi = labelW + asRun * r.speedupInterval()[1] / scaleMax * plotW;
            svg.append(String.format(Locale.ROOT, "<path class=\"interval\" d=\"M%.1f %d H%.1f M%.1f %d V%d M%.1f %d V%d\" "
                    + "stroke=\"#000\" stroke-width=\"1.5\" fill=\"none\"/>", lo, y + 9, hi, lo, y + 3, y + 15, hi, y + 3, y + 15));
            svg.append(text(Math.max(hi, labelW + w) + 5, y + 14, "start", num(r.predictedTflopsPerGpu()) + " (x"
                    + num(r.speedup()) + ")"));
            y += rowH;
        }
        double ax = labelW + asRun / scaleMax * plotW;
        svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                + "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>", ax, top - 8, ax, y - 6));
        svg.append(text(ax + 4, top - 10, "start", "as run " + num(asRun)));
        svg.append(axis(labelW, plotW, y, scaleMax, "TFLOPS per GPU"));
        StringBuilder table = new StringBuilder("<table><tr><th>#</th><th>recommendation</th><th>TFLOPS per GPU</th>"
                + "<th>speedup</th><th>range</th></tr>");
        n = 1;
        for (AdviceView.RecommendationView r : recs)
            table.append("<tr><td>").append(n++).append("</td><td>").append(esc(r.id())).append("</td><td>")
                    .append(num(r.predictedTflopsPerGpu())).append("</td><td>x").append(num(r.speedup())).append("</td><td>x")
                    .append(num(r.speedupInterval()[0])).append("-").append(num(r.speedupInterval()[1])).append("</td></tr>");
        table.append("</table>");
        String desc = "Predicted TFLOPS per GPU after each recommended change, with the range of its speedup as a whisker; "
                + "the dashed line is the run as it is (" + num(asRun) + " TFLOPS); grey bars change the optimisation.";
        return figure(id, "recommendations", "Predicted throughput of each recommendation", desc, labelW + plotW + 120,
                y + 34, svg.toString(), recs.size(), table.toString());
    }

    /** Fitted over expected for each fitted parameter, its one-sigma range as a whisker, on a log scale around 1. */
    static String fit(String id, AdviceView.FitView f) {
        if (f == null || f.parameters().isEmpty()) return "";
        int labelW = 150, plotW = 420, rowH = 30, top = 24;
        double lo = 0.25, hi = 4;
        StringBuilder svg = new StringBuilder();
        double one = labelW + plotW / 2.0;
        svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                + "stroke-dasharray=\"6 3\"/>", one, top - 10, one, top + rowH * f.parameters().size()));
        svg.append(text(one, top - 12, "middle", "as expected (1x)"));
        int y = top;
        for (AdviceView.FitParameterView p : f.parameters()) {
            double r = clamp(p.fitted() / p.expected(), lo, hi);
            double x = ratioX(r, lo, hi, labelW, plotW);
            double x0 = ratioX(clamp(p.low() / p.expected(), lo, hi), lo, hi, labelW, plotW);
            double x1 = ratioX(clamp(p.high() / p.expected(), lo, hi), lo, hi, labelW, plotW);
            svg.append(text(labelW - 6, y + 14, "end", esc(p.parameter())));
            svg.append(String.format(Locale.ROOT, "<path class=\"interval\" d=\"M%.1f %d H%.1f\" stroke=\"#000\" stroke-width=\"1.5\"/>",
                    x0, y + 10, x1));
            svg.append(marker("circle", x, y + 10, "#1d4e89", "<title>" + esc(p.parameter()) + ": expected " + num(p.expected())
                    + " " + esc(p.unit()) + ", fitted " + num(p.fitted()) + " " + esc(p.unit()) + " (set by " + esc(p.setBy())
                    + ")</title>"));
            svg.append(text(labelW + plotW + 8, y + 14, "start", num(p.fitted() / p.expected()) + "x"));
            y += rowH;
        }
        svg.append(ratioAxis(labelW, plotW, y, lo, hi));
        StringBuilder table = new StringBuilder("<table><tr><th>parameter</th><th>expected</th><th>fitted</th><th>one sigma</th>"
                + "<th>set by</th></tr>");
        for (AdviceView.FitParameterView p : f.parameters())
            table.append("<tr><td>").append(esc(p.parameter())).append("</td><td>").append(num(p.expected())).append(' ')
                    .append(esc(p.unit())).append("</td><td>").append(num(p.fitted())).append(' ').append(esc(p.unit()))
                    .append("</td><td>").append(num(p.low())).append("-").append(num(p.high())).append("</td><td>")
                    .append(esc(p.setBy())).append("</td></tr>");
        table.append("</table>");
        return figure(id, "fit", "Expected and fitted parameters",
                "Each fitted quantity as a multiple of what the model expected (1x), with its one-sigma range.",
                labelW + plotW + 70, y + 40, svg.toString(), f.parameters().size(), table.toString());
    }

    /** Observed against predicted tokens per GPU per second, one point per run, on log axes with the y = x line. */
    /** At most this many runs are named beside their points: the ones furthest outside their prediction interval. */
    static final int SCATTER_LABELS = 12;

    /**
     * Up to this many points each carry their run's name as a tip and link to its report; beyond, a point is a plain
     * dot (40 bytes, not 250) but for the named outliers, so that 10,000 runs stay a chart a browser draws at once.
     */
    static final int SCATTER_RICH = 1000;

    /**
     * Observed against predicted tokens per GPU per second, a point a run ({@code points}: predicted, observed, and the
     * low and high ratio of its class's prediction interval), linked to its report where {@code links} has a link. The
     * runs outside their interval are outliers: the {@link #SCATTER_LABELS} furthest out (by the log of how far) are
     * named beside their points.
     */
    static String scatter(String id, List<String> names, List<String> links, List<double[]> points) {
        double min = Double.POSITIVE_INFINITY, max = 0;
        int n = 0;
        List<Integer> outliers = new java.util.ArrayList<>();
        double[] outside = new double[names.size()];
        for (int i = 0; i < names.size(); i++) {
            double p = points.get(i)[0], o = points.get(i)[1];
            if (!(o > 0) || !(p > 0)) continue;
            min = Math.min(min, Math.min(o, p));
            max = Math.max(max, Math.max(o, p));
            n++;
            double ratio = o / p, low = points.get(i)[2], high = points.get(i)[3];
            outside[i] = ratio < low ? Math.log(low / ratio) : ratio > high ? Math.log(ratio / high) : 0;
            if (outside[i] > 0) outliers.add(i);
        }
        if (n == 0) return "";
        outliers.sort(java.util.Comparator.<Integer>comparingDouble(i -> -outside[i]).thenComparing(names::get));
        java.util.Set<Integer> labelled = new java.util.HashSet<>(outliers.subList(0, Math.min(SCATTER_LABELS, outliers.size())));
        double lo = Math.pow(10, Math.floor(Math.log10(min))), hi = Math.pow(10, Math.ceil(Math.log10(max)));
        if (hi / lo < 10) hi = lo * 10;
        int left = 60, size = 360, top = 12, room = 170;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                        + "stroke-dasharray=\"6 3\"/>", lx(lo, lo, hi, left, size), ly(lo, lo, hi, top, size), lx(hi, lo, hi, left, size),
                ly(hi, lo, hi, top, size)));
        svg.append(text(lx(hi, lo, hi, left, size) - 4, ly(hi, lo, hi, top, size) + 14, "end", "observed = predicted"));
        StringBuilder labels = new StringBuilder();
        List<double[]> placed = new java.util.ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            double p = points.get(i)[0], o = points.get(i)[1];
            if (!(o > 0) || !(p > 0)) continue;
            double x = lx(p, lo, hi, left, size), y = ly(o, lo, hi, top, size);
            String fill = outside[i] > 0 ? "#b3261e" : "#1d4e89";
            if (n > SCATTER_RICH && !labelled.contains(i)) {
                // a large fleet: a plain point, its run in the tables; the named outliers keep their tip and link
                svg.append(String.format(Locale.ROOT, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x, y, fill));
                continue;
            }
            String tip = "<title>" + esc(names.get(i)) + ": observed " + num(o) + ", predicted " + num(p) + " tokens/GPU/s</title>";
            String mark = marker("circle", x, y, fill, tip);
            svg.append(links.get(i) == null ? mark : "<a href=\"" + esc(links.get(i)) + "\">" + mark + "</a>");
            if (labelled.contains(i)) {
                String name = names.get(i).length() > 28 ? names.get(i).substring(0, 27) + "\u2026" : names.get(i);
                String label = name + " (x" + num(o / p, 2) + ")";
                // below the labels already placed that it would cover (10 px type, about 5.5 px a character)
                double lyy = y + 3, w = label.length() * 5.5;
                // each move is down, to a placed label's line plus one: at most one move a label placed
                for (int moves = 0; moves <= placed.size(); moves++) {
                    double below = lyy;
                    for (double[] box : placed)
                        if (x + 6 < box[0] + box[2] && box[0] < x + 6 + w && lyy > box[1] - 11 && lyy < box[1] + 11)
                            below = Math.max(below, box[1] + 11);
                    if (below == lyy) break;
                    lyy = below;
                }
                placed.add(new double[]{x + 6, lyy, w});
                if (lyy != y + 3) labels.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        + "stroke=\"#888\" stroke-width=\"0.5\"/>", x, y, x + 6, lyy - 3));
                labels.append(String.format(Locale.ROOT, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s</text>",
                        x + 6, lyy, esc(label)));
            }
        }
        svg.append(labels);
        svg.append(logAxes(left, size, top, size, lo, hi, lo, hi, "predicted tokens per GPU per second",
                "observed tokens per GPU per second"));
        return figure(id, "scatter", "Observed against predicted throughput", "One point per run that measured its "
                        + "throughput plausibly; points under the dashed line ran slower than the model predicts. Red points fall "
                        + "outside the range 8 in 10 validated runs of their class landed in (" + outliers.size() + " runs); the "
                        + Math.min(SCATTER_LABELS, outliers.size()) + " furthest out are named, with observed over predicted.",
                left + size + room, size + 60, svg.toString(), n, "");
    }

    /** Horizontal bars, one mark each: lost GPU-hours per cause. */
    static String bars(String id, String chart, String title, String desc, List<String> labels, List<Double> values,
                       String unit) {
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        if (!(max > 0)) return "";
        double scaleMax = niceCeil(max);
        int labelW = 220, plotW = 400, rowH = 24, top = 6;
        StringBuilder svg = new StringBuilder();
        int y = top;
        for (int i = 0; i < labels.size(); i++) {
            double w = values.get(i) / scaleMax * plotW;
            svg.append(text(labelW - 6, y + 14, "end", esc(labels.get(i))));
            svg.append(String.format(Locale.ROOT, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"%s\">"
                    + "<title>%s: %s %s</title></rect>", labelW, y, w, i % 2 == 0 ? "#1d4e89" : "#5a8ac6", esc(labels.get(i)),
                    num(values.get(i)), esc(unit)));
            svg.append(text(labelW + w + 4, y + 14, "start", num(values.get(i))));
            y += rowH;
        }
        svg.append(axis(labelW, plotW, y, scaleMax, unit));
        StringBuilder table = new StringBuilder("<table><tr><th></th><th>").append(esc(unit)).append("</th></tr>");
        for (int i = 0; i < labels.size(); i++)
            table.append("<tr><td>").append(esc(labels.get(i))).append("</td><td>").append(num(values.get(i))).append("</td></tr>");
        table.append("</table>");
        return figure(id, chart, title, desc, labelW + plotW + 80, y + 36, svg.toString(), labels.size(), table.toString());
    }

    // ---- drawing helpers

    static String figure(String id, String chart, String title, String desc, int width, int height, String body, int marks,
                         String table) {
        return "<figure class=\"chart\" id=\"" + id + "\" data-chart=\"" + chart + "\" data-marks=\"" + marks + "\">\n"
                + "<figcaption>" + esc(title) + "</figcaption>\n"
                + String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                + "height=\"%d\" role=\"img\" aria-labelledby=\"%s-title %s-desc\" font-family=\"system-ui,sans-serif\" "
                + "font-size=\"11\">", width, height, width, height, id, id)
                + "<title id=\"" + id + "-title\">" + esc(title) + "</title><desc id=\"" + id + "-desc\">" + esc(desc) + "</desc>"
                + body + "</svg>\n"
                + (table.isEmpty() ? "" : "<details><summary>The numbers</summary>" + table + "</details>\n") + "</figure>\n";
    }

    static String text(double x, double y, String anchor, String escaped) { return text(x, y, anchor, escaped, "#000"); }

    static String text(double x, double y, String anchor, String escaped, String fill) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">%s</text>", x, y, anchor, fill,
                escaped);
    }

    static String marker(String shape, double x, double y, String fill, String tip) {
        return switch (shape) {
            case "square" -> String.format(Locale.ROOT, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\" "
                    + "stroke=\"#000\">%s</rect>", x - 4.5, y - 4.5, fill, tip);
            case "diamond" -> String.format(Locale.ROOT, "<path class=\"mark\" d=\"M%.1f %.1f l6 6 l-6 6 l-6 -6 z\" fill=\"%s\" "
                    + "stroke=\"#000\">%s</path>", x, y - 6, fill, tip);
            default -> String.format(Locale.ROOT, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"#000\">"
                    + "%s</circle>", x, y, fill, tip);
        };
    }

    /** A linear x axis under a plot, ticks at fifths of {@code max}, with its unit. */
    static String axis(int left, int width, int y, double max, String unit) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>", left, y, left + width, y));
        for (int i = 0; i <= 5; i++) {
            double x = left + width * i / 5.0;
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", x, y, x, y + 4));
            s.append(text(x, y + 15, "middle", num(max * i / 5)));
        }
        s.append(text(left + width / 2.0, y + 29, "middle", esc(unit)));
        return s.toString();
    }

    static String logAxes(int left, int w, int top, int h, double xMin, double xMax, double yMin, double yMax,
                          String xLabel, String yLabel) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "<path d=\"M%d %d V%d H%d\" stroke=\"#000\" fill=\"none\"/>",
                left, top, top + h, left + w));
        for (double v = xMin; v <= xMax * 1.0001; v *= 10) {
            double x = lx(v, xMin, xMax, left, w);
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", x, top + h, x,
                    top + h + 4));
            s.append(text(x, top + h + 15, "middle", num(v)));
        }
        for (double v = Math.pow(10, Math.floor(Math.log10(yMin))); v <= yMax * 1.0001; v *= 10) {
            if (v < yMin) continue;
            double y = ly(v, yMin, yMax, top, h);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>", left - 4, y, left, y));
            s.append(text(left - 6, y + 4, "end", num(v)));
        }
        s.append(text(left + w / 2.0, top + h + 30, "middle", esc(xLabel)));
        s.append(String.format(Locale.ROOT, "<text transform=\"translate(%d %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>",
                14, top + h / 2.0, esc(yLabel)));
        return s.toString();
    }

    static String ratioAxis(int left, int width, int y, double lo, double hi) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>", left, y, left + width, y));
        for (double v : new double[]{0.25, 0.5, 1, 2, 4}) {
            double x = ratioX(v, lo, hi, left, width);
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", x, y, x, y + 4));
            s.append(text(x, y + 15, "middle", num(v) + "x"));
        }
        s.append(text(left + width / 2.0, y + 29, "middle", "fitted / expected (log scale)"));
        return s.toString();
    }

    static double ratioX(double r, double lo, double hi, int left, int width) {
        return left + (Math.log(r) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) * width;
    }

    static double lx(double v, double min, double max, int left, int width) {
        return left + (Math.log10(clamp(v, min, max)) - Math.log10(min)) / (Math.log10(max) - Math.log10(min)) * width;
    }

    static double ly(double v, double min, double max, int top, int height) {
        return top + height - (Math.log10(clamp(v, min, max)) - Math.log10(min)) / (Math.log10(max) - Math.log10(min)) * height;
    }

    static double clamp(double v, double lo, double hi) { return Math.max(lo, Math.min(hi, v)); }

    /** The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 or 10 times a power of ten at or above {@code v}: an axis end. */
    static double niceCeil(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) if (m * p >= v * 0.9999) return m * p;
        return 10 * p;
    }

    /** Relative luminance of a #rrggbb colour (WCAG 2.1), to pick black or white text on it. */
    static double lightness(String hex) {
        double l = 0;
        double[] w = {0.2126, 0.7152, 0.0722};
        for (int i = 0; i < 3; i++) {
            double c = Integer.parseInt(hex.substring(1 + 2 * i, 3 + 2 * i), 16) / 255.0;
            l += w[i] * (c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
        }
        return l;
    }
}
