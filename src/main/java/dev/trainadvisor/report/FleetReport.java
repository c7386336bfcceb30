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
        Summary sum = Summary.of(fleet);
        StringBuilder sections = new StringBuilder();
        for (int k = 0; k < fleet.runs().size(); k++) sections.append(htmlSection(k, fleet.runs().get(k), fleet.files().get(k)));
        return Html.page(TITLE, htmlHead(sum) + sections + htmlTail(), SORT_SCRIPT);
    }

    static final String TITLE = "train-advisor: fleet";

    /**
     * What the head of a fleet report needs of every run, without the runs' advice: the ranking's rows, and in file-name
     * order each run's name, predicted and observed throughput and file. A batch keeps this and streams the runs'
     * sections, so that its memory does not grow with their reports.
     */
    record Summary(BatchTable table, List<String> names, double[] predicted, double[] observed, List<String> files,
                   Map<String, Integer> index, List<Fleet.Failure> failures, List<Fleet.Skipped> skipped) {
        static Summary of(Fleet fleet) {
            List<String> names = new ArrayList<>();
            double[] predicted = new double[fleet.runs().size()], observed = new double[fleet.runs().size()];
            for (int k = 0; k < fleet.runs().size(); k++) {
                AdviceView a = fleet.runs().get(k);
                names.add(a.run().path("name").asText());
                predicted[k] = a.prediction().tokensPerGpuPerS();
                observed[k] = a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS();
            }
            return new Summary(fleet.table(), names, predicted, observed, fleet.files(), indexOf(fleet.files()), fleet.failures(),
                    fleet.skipped());
        }

        /** Each file's place in file-name order (the first, where a name repeats, as List.indexOf finds it). */
        static Map<String, Integer> indexOf(List<String> files) {
            Map<String, Integer> index = new java.util.HashMap<>();
            for (int k = 0; k < files.size(); k++) index.putIfAbsent(files.get(k), k);
            return index;
        }

        /** The anchor of a run's section: its place in file-name order. */
        String anchor(String file) { return "run-" + (index.getOrDefault(file, -1) + 1); }

        /** GPU-hours lost by each run's top cause, summed over the fleet, most first. */
        Map<String, Double> lostByCause() { return Fleet.lostByCause(table); }
    }

    /** The body of the HTML fleet report before the runs' sections: the ranking, its charts, the failed and skipped files. */
    static String htmlHead(Summary fleet) {
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
        List<String> anchors = new ArrayList<>();
        for (int k = 0; k < fleet.names().size(); k++) anchors.add("run-" + (k + 1));
        b.append(Charts.scatter("fleet-scatter", fleet.names(), anchors, fleet.predicted(), fleet.observed()));
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
        return b.toString();
    }

    /** A run's section of the HTML fleet report: its report, its headings one level down, under its place {@code k}. */
    static String htmlSection(int k, AdviceView a, String file) {
        return "<section class=\"run\" id=\"run-" + (k + 1) + "\"><h2>" + (k + 1) + ". " + esc(a.run().path("name").asText())
                + " <small>" + esc(file) + "</small></h2>\n" + Html.run(a, "run-" + (k + 1), 3)
                + "<p><a href=\"#ranking\">Back to the ranking</a></p></section>\n";
    }

    static String htmlTail() { return Glossary.html(); }

    static String markdown(Fleet fleet) {
        StringBuilder s = new StringBuilder(markdownHead(Summary.of(fleet)));
        for (int k = 0; k < fleet.runs().size(); k++) s.append(markdownSection(k, fleet.runs().get(k)));
        return s.append(markdownTail()).toString();
    }

    /** The Markdown fleet report before the runs' sections. */
    static String markdownHead(Summary fleet) {
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
        return s.toString();
    }

    /** A run's section of the Markdown fleet report: its anchor, then its report with its headings one level down. */
    static String markdownSection(int k, AdviceView a) {
        StringBuilder s = new StringBuilder("\n<a id=\"run-").append(k + 1).append("\"></a>\n\n");
        for (String line : Markdown.of(a).split("\n", -1)) s.append(line.startsWith("#") ? "#" + line : line).append("\n");
        return s.toString();
    }

    static String markdownTail() { return "\n## Glossary\n\n" + Glossary.markdown(); }

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
