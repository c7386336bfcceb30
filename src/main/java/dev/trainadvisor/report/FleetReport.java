package dev.trainadvisor.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;
import static dev.trainadvisor.report.Html.esc;

/** The fleet report (`batch --format html|md`): the ranking, its charts, the failed files, then every run's report. */
final class FleetReport {
    private FleetReport() {}

    static final String RANKING = "Ranked by GPU-hours lost: GPUs x hours of running x the share of its time a run "
            + "loses, the larger of 1 - observed / predicted throughput and 1 - 1 / the speedup of its best recommendation "
            + "that keeps the optimisation (priced by the model, or by the run's history for a stall, a straggler or the "
            + "data loader). Hours are the steps the log covers x the step time; a run that logged no "
            + "step count is counted over one hour of running (marked per hour).";

    static final String SKIPPED = "The folder's files that are neither a run file nor a training log of a known format "
            + "(recognised by content), and reports train-advisor wrote: not runs, so left out of the batch.";

    /** Sorts a table on a click of a header carrying data-sort, by each cell's data-value; no server, no library. */
    static final String SORT_SCRIPT = "document.querySelectorAll('table.sortable').forEach(function(t){"
            + "t.querySelectorAll('th[data-sort]').forEach(function(th,i){"
            + "function go(){var dir=th.getAttribute('aria-sort')==='descending'?'ascending':'descending';"
            + "t.querySelectorAll('th[data-sort]').forEach(function(o){o.removeAttribute('aria-sort');});"
            + "th.setAttribute('aria-sort',dir);var col=Array.prototype.indexOf.call(th.parentNode.children,th);"
            + "var body=t.tBodies[0];var rows=Array.prototype.slice.call(body.rows);"
            + "rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-value'),y=b.cells[col].getAttribute('data-value');"
            + "var c=th.getAttribute('data-sort')==='num'?(parseFloat(x)||0)-(parseFloat(y)||0):x.localeCompare(y);"
            + "return dir==='ascending'?c:-c;});rows.forEach(function(r){body.appendChild(r);});}"
            + "th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' ')"
            + "{e.preventDefault();go();}});});});";

    static String html(Fleet fleet) {
        BatchTable t = fleet.table();
        StringBuilder b = new StringBuilder("<h1>train-advisor: a fleet of ").append(t.rows().size())
                .append(t.rows().size() == 1 ? " run" : " runs").append("</h1>\n");
        b.append("<p>").append(esc(RANKING)).append(" Click a column's header to sort by it.</p>\n");
        double lost = 0;
        int known = 0;
        for (BatchTable.Row r : t.rows()) if (!Double.isNaN(r.lostGpuHours())) {
            lost += r.lostGpuHours();
            known++;
        }
        b.append("<p class=\"verdict info\">").append(known).append(" of ").append(t.rows().size())
                .append(" runs measured their throughput; together they lose ").append(num(lost))
                .append(" GPU-hours (per hour of running where a run logged no step count)");
        if (!fleet.failures().isEmpty()) b.append("; ").append(fleet.failures().size()).append(fleet.failures().size() == 1
                ? " file" : " files").append(" could not be advised (<a href=\"#failed\">listed below</a>)");
        if (!fleet.skipped().isEmpty()) b.append("; ").append(fleet.skipped().size()).append(fleet.skipped().size() == 1
                ? " file was" : " files were").append(" skipped as no run (<a href=\"#skipped\">listed below</a>)");
        b.append(".</p>\n");
        List<String> names = new ArrayList<>(), anchors = new ArrayList<>();
        double[] predicted = new double[fleet.runs().size()], observed = new double[fleet.runs().size()];
        for (int k = 0; k < fleet.runs().size(); k++) {
            AdviceView a = fleet.runs().get(k);
            names.add(a.run().path("name").asText());
            anchors.add("run-" + (k + 1));
            predicted[k] = a.prediction().tokensPerGpuPerS();
            observed[k] = a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS();
        }
        b.append(Charts.scatter("fleet-scatter", names, anchors, predicted, observed));
        Map<String, Double> byCause = fleet.lostByCause();
        b.append(Charts.bars("fleet-causes", "causes", "GPU-hours lost by top cause", "Each run's GPU-hours lost, summed "
                + "by the cause its advice ranks first.", new ArrayList<>(byCause.keySet()), new ArrayList<>(byCause.values()),
                "GPU-hours"));

        b.append("<table class=\"sortable\" id=\"ranking\"><thead><tr>");
        String[][] cols = {{"#", "num"}, {"run", "text"}, {"GPUs", "num"}, {"observed TFLOPS/GPU", "num"},
                {"achievable", "num"}, {"lost", "num"}, {"GPU-hours lost", "num"}, {"top cause", "text"},
                {"best remedy", "text"}};
        for (String[] c : cols) b.append("<th data-sort=\"").append(c[1]).append("\" tabindex=\"0\">").append(esc(c[0])).append("</th>");
        b.append("</tr></thead><tbody>\n");
        int i = 1;
        for (BatchTable.Row r : t.rows()) {
            b.append("<tr>").append(td(i, Integer.toString(i))).append("<td data-value=\"").append(esc(r.run())).append("\"><a href=\"#")
                    .append(fleet.anchor(r.file())).append("\">").append(esc(r.run())).append("</a><br><small>").append(esc(r.file()))
                    .append("</small></td>").append(td(r.gpus(), r.gpus() + " x " + esc(r.gpu())))
                    .append(td(r.observedTflops(), cell(r.observedTflops()))).append(td(r.achievableTflops(), num(r.achievableTflops())))
                    .append(td(r.lostVsAchievable(), Double.isNaN(r.lostVsAchievable()) ? "" : pct(r.lostVsAchievable())))
                    .append(td(r.lostGpuHours(), hours(r)));
            b.append("<td data-value=\"").append(esc(r.topCause())).append("\">");
            if (!r.topCause().isEmpty()) b.append("<span class=\"badge ").append(esc(r.topSeverity())).append("\">")
                    .append(esc(r.topSeverity())).append("</span> ").append(esc(r.topCause()));
            b.append("</td><td data-value=\"").append(esc(r.bestRemedy())).append("\">")
                    .append(r.bestRemedy().isEmpty() ? "" : esc(r.bestRemedy()) + " x" + num(r.bestSpeedup())).append("</td></tr>\n");
            i++;
        }
        b.append("</tbody></table>\n");

        b.append("<h2 id=\"failed\">Files that could not be advised</h2>\n");
        if (fleet.failures().isEmpty()) b.append("<p>None.</p>\n");
        else {
            b.append("<ul class=\"failures\">\n");
            for (Fleet.Failure f : fleet.failures())
                b.append("<li><code>").append(esc(f.file())).append("</code>: ").append(esc(f.message())).append("</li>\n");
            b.append("</ul>\n");
        }
        if (!fleet.skipped().isEmpty()) {
            b.append("<h2 id=\"skipped\">Files skipped</h2>\n<p>").append(esc(SKIPPED)).append("</p>\n<ul class=\"skipped\">\n");
            for (Fleet.Skipped f : fleet.skipped())
                b.append("<li><code>").append(esc(f.file())).append("</code>: ").append(esc(f.why())).append("</li>\n");
            b.append("</ul>\n");
        }
        for (int k = 0; k < fleet.runs().size(); k++) {
            AdviceView a = fleet.runs().get(k);
            b.append("<section class=\"run\" id=\"run-").append(k + 1).append("\"><h2>").append(k + 1).append(". ")
                    .append(esc(a.run().path("name").asText())).append(" <small>").append(esc(fleet.files().get(k)))
                    .append("</small></h2>\n").append(Html.run(a, "run-" + (k + 1), 3)).append("<p><a href=\"#ranking\">Back to "
                            + "the ranking</a></p></section>\n");
        }
        b.append(Glossary.html());
        return Html.page("train-advisor: fleet", b.toString(), SORT_SCRIPT);
    }

    static String markdown(Fleet fleet) {
        BatchTable t = fleet.table();
        StringBuilder s = new StringBuilder("# train-advisor: a fleet of ").append(t.rows().size())
                .append(t.rows().size() == 1 ? " run" : " runs").append("\n\n").append(RANKING).append("\n\n");
        s.append("| # | run | GPUs | observed TFLOPS/GPU | achievable | lost | GPU-hours lost | top cause | best remedy |\n");
        s.append("|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        int i = 1;
        for (BatchTable.Row r : t.rows()) {
            s.append("| ").append(i++).append(" | [").append(md(r.run())).append("](#").append(fleet.anchor(r.file())).append(") | ")
                    .append(r.gpus()).append(" x ").append(md(r.gpu())).append(" | ").append(cell(r.observedTflops())).append(" | ")
                    .append(num(r.achievableTflops())).append(" | ")
                    .append(Double.isNaN(r.lostVsAchievable()) ? "" : pct(r.lostVsAchievable())).append(" | ").append(hours(r))
                    .append(" | ").append(r.topCause().isEmpty() ? "" : md(r.topCause()) + " (" + r.topSeverity() + ")").append(" | ")
                    .append(r.bestRemedy().isEmpty() ? "" : md(r.bestRemedy()) + " x" + num(r.bestSpeedup())).append(" |\n");
        }
        Map<String, Double> byCause = fleet.lostByCause();
        if (!byCause.isEmpty()) {
            s.append("\n## GPU-hours lost by top cause\n\n| cause | GPU-hours lost |\n|---|---:|\n");
            for (Map.Entry<String, Double> e : byCause.entrySet())
                s.append("| ").append(md(e.getKey())).append(" | ").append(num(e.getValue())).append(" |\n");
        }
        s.append("\n## Files that could not be advised\n\n");
        if (fleet.failures().isEmpty()) s.append("None.\n");
        for (Fleet.Failure f : fleet.failures()) s.append("- `").append(MdText.code(f.file())).append("`: ")
                .append(md(f.message())).append("\n");
        if (!fleet.skipped().isEmpty()) {
            s.append("\n## Files skipped\n\n").append(SKIPPED).append("\n\n");
            for (Fleet.Skipped f : fleet.skipped()) s.append("- `").append(MdText.code(f.file())).append("`: ")
                    .append(md(f.why())).append("\n");
        }
        for (int k = 0; k < fleet.runs().size(); k++) {
            s.append("\n<a id=\"run-").append(k + 1).append("\"></a>\n\n");
            // each run's report, its headings one level down
            for (String line : Markdown.of(fleet.runs().get(k)).split("\n", -1))
                s.append(line.startsWith("#") ? "#" + line : line).append("\n");
        }
        s.append("\n## Glossary\n\n").append(Glossary.markdown());
        return s.toString();
    }

    private static String hours(BatchTable.Row r) {
        if (Double.isNaN(r.lostGpuHours())) return "";
        return Double.isNaN(r.hours()) ? num(r.lostGpuHours()) + " per hour" : num(r.lostGpuHours()) + " over " + num(r.hours()) + " h";
    }

    private static String td(double value, String shown) {
        return "<td class=\"num\" data-value=\"" + (Double.isNaN(value) ? "" : Double.toString(value)) + "\">" + shown + "</td>";
    }

    private static String cell(double v) { return Double.isNaN(v) ? "" : num(v); }

    /**
     * A run's own text in a Markdown table or list: angle brackets as entities so nothing renders as HTML, link syntax
     * escaped (MdText), pipes escaped.
     */
    static String md(String s) {
        return MdText.prose(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")).replace("|", "\\|");
    }
}
