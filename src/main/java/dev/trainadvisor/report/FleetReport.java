package dev.trainadvisor.report;

import dev.trainadvisor.report.BatchTable.Row;
import dev.trainadvisor.report.BatchTable.Standing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;
import static dev.trainadvisor.report.Html.esc;

/**
 * The fleet report (`batch --format html|md`): what the fleet loses, counted like with like (a total over the hours
 * each run's log covers; a rate per hour of running where the log gives no step count; nothing for runs whose
 * measurements cannot be right or that measured nothing), the rankings, the charts, the failed and skipped files, then
 * each run's report (a section of the page, or a page of its own: {@link Fleet}).
 */
final class FleetReport {
    private FleetReport() {}

    static final String FORMULA = "A run loses the share lost = max(0, 1 - observed / predicted, 1 - 1 / s) of its "
            + "time, s the speedup of its best recommendation that keeps the optimisation (priced by the model, or by the "
            + "run's history for a stall, a straggler or the data loader). Where its log gives the steps it covers, it "
            + "loses GPUs x hours x lost GPU-hours, hours = steps x the observed step time, and the fleet's total is their "
            + "sum over those runs. Where it gives none, the loss is a rate, GPUs x lost GPU-hours per hour of running: "
            + "ranked apart and never added to the total.";

    static final String APART = "Not ranked: a measurement no hardware can produce (a printed TFLOPS figure off the "
            + "tokens it processed, an MFU over 100%, a step shorter than its own compute at peak) says the log or its "
            + "reading is wrong, not the run; no loss is computed from it. Check what the advice names, then advise it again.";

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

    /** What the fleet loses, like with like: the total over the runs with hours, the rate of the others, the rest. */
    record Totals(int total, double lostGpuHours, double gpuHours, int rate, double lostPerHour, int rateGpus,
                  int implausible, int unmeasured) {
        static Totals of(BatchTable t) {
            double lost = 0, run = 0, perHour = 0;
            int gpus = 0;
            for (Row r : t.rows(Standing.TOTAL)) {
                lost += r.lostGpuHours();
                run += r.gpus() * r.hours();
            }
            for (Row r : t.rows(Standing.RATE)) {
                perHour += r.lostGpuHoursPerHour();
                gpus += r.gpus();
            }
            return new Totals(t.rows(Standing.TOTAL).size(), lost, run, t.rows(Standing.RATE).size(), perHour, gpus,
                    t.rows(Standing.IMPLAUSIBLE).size(), t.rows(Standing.UNMEASURED).size());
        }

        /** The summary in sentences. */
        String say(int runs) {
            StringBuilder s = new StringBuilder();
            if (total > 0) s.append(total).append(total == 1 ? " run" : " runs").append(" logged how long they ran: together they lose ")
                    .append(num(lostGpuHours)).append(" GPU-hours of the ").append(num(gpuHours)).append(" they ran (")
                    .append(pct(gpuHours > 0 ? lostGpuHours / gpuHours : 0)).append("). ");
            if (rate > 0) s.append(rate).append(rate == 1 ? " run" : " runs").append(" measured throughput but no step count: ")
                    .append("together they lose ").append(num(lostPerHour)).append(" GPU-hours per hour of running, of their ")
                    .append(rateGpus).append(" GPUs; a rate, not added to any total. ");
            if (implausible > 0) s.append(implausible).append(implausible == 1 ? " run's" : " runs'")
                    .append(" measurements cannot be right: listed apart, not ranked. ");
            if (unmeasured > 0) s.append(unmeasured).append(unmeasured == 1 ? " run" : " runs").append(" measured no throughput. ");
            if (runs == 0) s.append("No run was advised. ");
            return s.toString().strip();
        }
    }

    // ------------------------------------------------------------------------------------------------ HTML

    static String html(Fleet fleet) {
        BatchTable t = fleet.table();
        Totals totals = Totals.of(t);
        StringBuilder b = new StringBuilder("<h1>train-advisor: a fleet of ").append(t.rows().size())
                .append(t.rows().size() == 1 ? " run" : " runs").append("</h1>\n");
        b.append("<p class=\"verdict info\">").append(esc(totals.say(t.rows().size())));
        if (!fleet.failures().isEmpty()) b.append(" ").append(fleet.failures().size()).append(fleet.failures().size() == 1
                ? " file" : " files").append(" could not be advised (<a href=\"#failed\">listed below</a>).");
        if (!fleet.skipped().isEmpty()) b.append(" ").append(fleet.skipped().size()).append(fleet.skipped().size() == 1
                ? " file was" : " files were").append(" skipped as no run (<a href=\"#skipped\">listed below</a>).");
        b.append("</p>\n<p>").append(esc(FORMULA)).append(" Click a column's header to sort by it.</p>\n");
        scatter(b, fleet, t);
        Map<String, Double> totalsByCause = fleet.lostByCause(Standing.TOTAL), ratesByCause = fleet.lostByCause(Standing.RATE);
        b.append(Charts.bars("fleet-causes", "causes", "GPU-hours lost by top cause", "The GPU-hours lost of the runs that "
                + "logged how long they ran, summed by the cause each run's advice ranks first.",
                new ArrayList<>(totalsByCause.keySet()), new ArrayList<>(totalsByCause.values()), "GPU-hours"));
        b.append(Charts.bars("fleet-cause-rates", "cause-rates", "GPU-hours lost per hour of running by top cause", "The "
                + "rates of the runs that logged no step count, summed by the cause each run's advice ranks first; a rate, "
                + "apart from the totals.", new ArrayList<>(ratesByCause.keySet()), new ArrayList<>(ratesByCause.values()),
                "GPU-hours per hour"));

        for (Listing l : Listing.values()) {
            List<Row> rows = t.rows(l.standing);
            if (rows.isEmpty()) continue;
            b.append("<h2 id=\"").append(l.key).append("\">").append(esc(l.heading)).append("</h2>\n<p>")
                    .append(esc(l.intro(totals))).append("</p>\n");
            l.table(b, fleet, rows.subList(0, Math.min(ON_PAGE, rows.size())), 0, r -> fleet.link(r.file(), "html"),
                    t.rows(Standing.TOTAL).isEmpty() && l == Listing.RATES ? "ranking" : l.tableId);
            if (rows.size() > ON_PAGE) b.append("<p class=\"more\" data-list=\"").append(l.key).append("\">")
                    .append(more(fleet, l, rows.size(), "html", true)).append("</p>\n");
        }

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
        if (fleet.inline()) {
            for (int k = 0; k < fleet.runs().size(); k++) {
                AdviceView a = fleet.runs().get(k);
                b.append("<section class=\"run\" id=\"run-").append(k + 1).append("\"><h2>").append(k + 1).append(". ")
                        .append(esc(a.run().path("name").asText())).append(" <small>").append(esc(fleet.files().get(k)))
                        .append("</small></h2>\n").append(Html.run(a, "run-" + (k + 1), 3)).append("<p><a href=\"#top\">Back to "
                                + "the top</a></p></section>\n");
            }
        } else {
            b.append("<h2 id=\"reports\">Each run's report</h2>\n<p>").append(esc(elsewhere(fleet))).append("</p>\n");
        }
        b.append(Glossary.html(Glossary.fleet()));
        return Html.page("train-advisor: fleet", "<div id=\"top\"></div>\n" + b, SORT_SCRIPT);
    }

    /** Where each run's report is when it is not on the fleet's page. */
    static String elsewhere(Fleet fleet) {
        if (fleet.runPages() != null)
            return "Each run's report is a page of its own in " + fleet.runPages() + ", linked from its row.";
        return "The " + fleet.entries().size() + " runs' reports are not on this page (it holds them for a fleet of at most "
                + Fleet.INLINE_RUNS + " runs): write the fleet with batch --out FILE to have each written beside it and linked "
                + "from its row, or advise a run on its own.";
    }

    /** Observed against predicted, a point a run; the runs outside their class's prediction interval labelled. */
    static void scatter(StringBuilder b, Fleet fleet, BatchTable t) {
        List<String> names = new ArrayList<>(), links = new ArrayList<>();
        List<double[]> points = new ArrayList<>();
        for (Fleet.Entry e : fleet.entries()) {
            if (e.implausible() != null || Double.isNaN(e.observedTokens())) continue;   // set apart: no point to place
            names.add(e.name());
            links.add(fleet.link(e.file(), "html"));
            points.add(new double[]{e.predictedTokens(), e.observedTokens(), e.intervalLow(), e.intervalHigh()});
        }
        b.append(Charts.scatter("fleet-scatter", names, links, points));
    }

    /** Rows of a list the fleet's page shows; the rest are on the list's pages (written with the run pages). */
    static final int ON_PAGE = 100;

    /** Rows of a list a page of its own holds. */
    static final int PER_PAGE = 500;

    /** The report's lists of runs, one a standing, in its order: two rankings, then the runs not ranked. */
    public enum Listing {
        TOTALS(Standing.TOTAL, "lost-totals", "ranking", "Ranked by GPU-hours lost", "GPU-hours lost"),
        RATES(Standing.RATE, "lost-rates", "ranking-rates", "Ranked by GPU-hours lost per hour of running", "GPU-hours lost per hour"),
        IMPLAUSIBLE(Standing.IMPLAUSIBLE, "implausible", "implausible-runs", "Runs whose measurements cannot be right", null),
        UNMEASURED(Standing.UNMEASURED, "unmeasured", "unmeasured-runs", "Runs that measured no throughput", null);

        final Standing standing;
        final String key, tableId, heading, lost;

        Listing(Standing standing, String key, String tableId, String heading, String lost) {
            this.standing = standing;
            this.key = key;
            this.tableId = tableId;
            this.heading = heading;
            this.lost = lost;
        }

        String intro(Totals totals) {
            return switch (this) {
                case TOTALS -> "GPUs x hours the log covers x lost; " + num(totals.lostGpuHours()) + " GPU-hours together.";
                case RATES -> "Their logs give no step count: GPUs x lost, per hour each runs; " + num(totals.lostPerHour())
                        + " GPU-hours per hour together, a rate apart from the total.";
                case IMPLAUSIBLE -> APART;
                case UNMEASURED -> "Predicted only: nothing to lose against.";
            };
        }

        /** The rows {@code rows} (the {@code from}-th on of the list) as a table; each run linked by {@code link}. */
        void table(StringBuilder b, Fleet fleet, List<Row> rows, int from, java.util.function.Function<Row, String> link, String id) {
            if (lost != null) {
                b.append("<table class=\"sortable\" id=\"").append(id).append("\"><thead><tr>");
                String[][] cols = {{"#", "num"}, {"run", "text"}, {"GPUs", "num"}, {"observed TFLOPS/GPU", "num"},
                        {"achievable", "num"}, {"lost", "num"}, {lost, "num"}, {"top cause", "text"}, {"best remedy", "text"}};
                for (String[] c : cols)
                    b.append("<th data-sort=\"").append(c[1]).append("\" tabindex=\"0\">").append(esc(c[0])).append("</th>");
                b.append("</tr></thead><tbody>\n");
                int i = from + 1;
                for (Row r : rows) {
                    double x = BatchTable.rankedBy(r);
                    String shown = r.standing() == Standing.TOTAL ? num(x) + " over " + num(r.hours()) + " h" : num(x);
                    b.append("<tr>").append(td(i, Integer.toString(i))).append(runCell(r, link.apply(r)))
                            .append(td(r.gpus(), r.gpus() + " x " + esc(r.gpu()))).append(td(r.observedTflops(), cell(r.observedTflops())))
                            .append(td(r.achievableTflops(), num(r.achievableTflops())))
                            .append(td(r.lostVsAchievable(), pct(r.lostVsAchievable()))).append(td(x, shown)).append(causeCell(r))
                            .append(remedyCell(r)).append("</tr>\n");
                    i++;
                }
            } else if (this == IMPLAUSIBLE) {
                b.append("<table id=\"").append(id).append("\"><thead><tr><th>run</th><th>GPUs</th><th>what cannot be right</th>"
                        + "</tr></thead><tbody>\n");
                for (Row r : rows)
                    b.append("<tr>").append(runCell(r, link.apply(r))).append("<td class=\"num\">").append(r.gpus()).append(" x ")
                            .append(esc(r.gpu())).append("</td><td>").append(esc(implausible(fleet, r))).append("</td></tr>\n");
            } else {
                b.append("<table id=\"").append(id).append("\"><thead><tr><th>run</th><th>GPUs</th><th>predicted TFLOPS/GPU</th>"
                        + "<th>achievable</th><th>top cause</th><th>best remedy</th></tr></thead><tbody>\n");
                for (Row r : rows)
                    b.append("<tr>").append(runCell(r, link.apply(r))).append("<td class=\"num\">").append(r.gpus()).append(" x ")
                            .append(esc(r.gpu())).append("</td><td class=\"num\">").append(num(predictedTflops(fleet, r)))
                            .append("</td><td class=\"num\">").append(num(r.achievableTflops())).append("</td>")
                            .append(causeCell(r)).append(remedyCell(r)).append("</tr>\n");
            }
            b.append("</tbody></table>\n");
        }

        /** The rows as a Markdown table, as {@link #table} writes them in HTML. */
        void markdownTable(StringBuilder s, Fleet fleet, List<Row> rows, int from, java.util.function.Function<Row, String> link) {
            if (lost != null) {
                s.append("| # | run | GPUs | observed TFLOPS/GPU | achievable | lost | ").append(lost).append(" | top cause | best remedy |\n");
                s.append("|---:|---|---:|---:|---:|---:|---:|---|---|\n");
                int i = from + 1;
                for (Row r : rows) {
                    double x = BatchTable.rankedBy(r);
                    s.append("| ").append(i++).append(" | ").append(mdRun(r, link.apply(r))).append(" | ").append(r.gpus()).append(" x ")
                            .append(md(r.gpu())).append(" | ").append(cell(r.observedTflops())).append(" | ").append(num(r.achievableTflops()))
                            .append(" | ").append(pct(r.lostVsAchievable())).append(" | ")
                            .append(r.standing() == Standing.TOTAL ? num(x) + " over " + num(r.hours()) + " h" : num(x))
                            .append(" | ").append(mdCause(r)).append(" | ").append(mdRemedy(r)).append(" |\n");
                }
            } else if (this == IMPLAUSIBLE) {
                s.append("| run | GPUs | what cannot be right |\n|---|---:|---|\n");
                for (Row r : rows)
                    s.append("| ").append(mdRun(r, link.apply(r))).append(" | ").append(r.gpus()).append(" x ").append(md(r.gpu()))
                            .append(" | ").append(md(implausible(fleet, r))).append(" |\n");
            } else {
                s.append("| run | GPUs | predicted TFLOPS/GPU | achievable | top cause | best remedy |\n|---|---:|---:|---:|---|---|\n");
                for (Row r : rows)
                    s.append("| ").append(mdRun(r, link.apply(r))).append(" | ").append(r.gpus()).append(" x ").append(md(r.gpu()))
                            .append(" | ").append(num(predictedTflops(fleet, r))).append(" | ").append(num(r.achievableTflops()))
                            .append(" | ").append(mdCause(r)).append(" | ").append(mdRemedy(r)).append(" |\n");
            }
        }

        /** The file name of the list's {@code page}-th page (from 1): lost-totals-001.html. */
        String pageName(int page, String ext) { return String.format(java.util.Locale.ROOT, "%s-%03d.%s", key, page, ext); }

        static int pages(int rows) { return (rows + PER_PAGE - 1) / PER_PAGE; }
    }

    /** Under a list cut short on the fleet's page: how many are shown, and where the rest are (or how to have them). */
    static String more(Fleet fleet, Listing l, int rows, String ext, boolean html) {
        StringBuilder s = new StringBuilder("The first ").append(ON_PAGE).append(" of ").append(rows).append(" shown");
        if (fleet.runPages() == null)
            return s.append("; all of them are in batch --format csv, and in the report written with --out FILE, ")
                    .append(PER_PAGE).append(" a page.").toString();
        s.append("; all of them, ").append(PER_PAGE).append(" a page:");
        for (int p = 1; p <= Listing.pages(rows); p++) {
            String target = fleet.runPages() + l.pageName(p, ext);
            s.append(' ').append(html ? "<a href=\"" + esc(target) + "\">" + p + "</a>" : "[" + p + "](" + target + ")");
        }
        return s.append('.').toString();
    }

    /** A list's pages beyond the fleet's page, by file name: each in the run pages' folder, linking its runs there. */
    static Map<String, String> listPages(Fleet fleet, String ext) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        BatchTable t = fleet.table();
        for (Listing l : Listing.values()) {
            List<Row> rows = t.rows(l.standing);
            if (rows.size() <= ON_PAGE) continue;
            int pages = Listing.pages(rows.size());
            for (int p = 1; p <= pages; p++) {
                int from = (p - 1) * PER_PAGE, to = Math.min(rows.size(), from + PER_PAGE);
                String title = "train-advisor: fleet, " + l.heading.toLowerCase(java.util.Locale.ROOT) + ", " + (from + 1) + "-" + to
                        + " of " + rows.size();
                StringBuilder nav = new StringBuilder();
                String back = fleet.page() == null ? null : "../" + fleet.page();
                if (ext.equals("md")) {
                    StringBuilder m = new StringBuilder("# ").append(title).append("\n\n");
                    if (back != null) m.append("[Back to the fleet](").append(back).append(")");
                    if (p > 1) m.append(" · [previous](").append(l.pageName(p - 1, ext)).append(")");
                    if (p < pages) m.append(" · [next](").append(l.pageName(p + 1, ext)).append(")");
                    m.append("\n\n");
                    l.markdownTable(m, fleet, rows.subList(from, to), from, r -> Fleet.pageName(fleet.indexOf(r.file()), "md"));
                    out.put(l.pageName(p, ext), m.toString());
                    continue;
                }
                if (back != null) nav.append("<a href=\"").append(esc(back)).append("\">Back to the fleet</a>");
                if (p > 1) nav.append(" · <a href=\"").append(l.pageName(p - 1, ext)).append("\">previous</a>");
                if (p < pages) nav.append(" · <a href=\"").append(l.pageName(p + 1, ext)).append("\">next</a>");
                StringBuilder b = new StringBuilder("<h1>").append(esc(title)).append("</h1>\n<p>").append(nav).append("</p>\n");
                l.table(b, fleet, rows.subList(from, to), from, r -> Fleet.pageName(fleet.indexOf(r.file()), "html"),
                        l.tableId);
                b.append("<p>").append(nav).append("</p>\n");
                out.put(l.pageName(p, ext), Html.page(title, b.toString(), l.lost == null ? "" : SORT_SCRIPT));
            }
        }
        return out;
    }

    private static String runCell(Row r, String link) {
        return "<td data-value=\"" + esc(r.run()) + "\">" + (link == null ? esc(r.run()) : "<a href=\"" + esc(link) + "\">"
                + esc(r.run()) + "</a>") + "<br><small>" + esc(r.file()) + "</small></td>";
    }

    private static String causeCell(Row r) {
        return "<td data-value=\"" + esc(r.topCause()) + "\">" + (r.topCause().isEmpty() ? "" : "<span class=\"badge "
                + esc(r.topSeverity()) + "\">" + esc(r.topSeverity()) + "</span> " + esc(r.topCause())) + "</td>";
    }

    private static String remedyCell(Row r) {
        return "<td data-value=\"" + esc(r.bestRemedy()) + "\">" + (r.bestRemedy().isEmpty() ? "" : esc(r.bestRemedy()) + " x"
                + num(r.bestSpeedup())) + "</td>";
    }

    /** "tflops_per_gpu is 18.2x what the tokens it processed allow (printed-tflops-mismatch)": the first failed check. */
    static String implausible(Fleet fleet, Row r) { return fleet.entry(r.file()).implausible(); }

    static double predictedTflops(Fleet fleet, Row r) { return fleet.entry(r.file()).predictedTflops(); }

    private static String td(double value, String shown) {
        return "<td class=\"num\" data-value=\"" + (Double.isNaN(value) ? "" : Double.toString(value)) + "\">" + shown + "</td>";
    }

    private static String cell(double v) { return Double.isNaN(v) ? "" : num(v); }

    /** A run's report as a page of its own, under a link back to the fleet ({@code back}, null for none). */
    static String runHtml(AdviceView a, String file, String back) {
        String name = a.run().path("name").asText();
        return Html.page("train-advisor: " + name, (back == null ? "" : "<p><a href=\"" + esc(back) + "\">Back to the fleet</a></p>\n")
                + "<h1>train-advisor: " + esc(name) + " <small>" + esc(file) + "</small></h1>\n" + Html.run(a, "r", 2)
                + Glossary.html(), "");
    }

    // ------------------------------------------------------------------------------------------------ Markdown

    static String markdown(Fleet fleet) {
        BatchTable t = fleet.table();
        Totals totals = Totals.of(t);
        StringBuilder s = new StringBuilder("# train-advisor: a fleet of ").append(t.rows().size())
                .append(t.rows().size() == 1 ? " run" : " runs").append("\n\n").append(md(totals.say(t.rows().size())))
                .append("\n\n").append(FORMULA).append("\n\n");
        for (Listing l : List.of(Listing.TOTALS, Listing.RATES)) mdListing(s, fleet, t, totals, l);
        for (Standing standing : List.of(Standing.TOTAL, Standing.RATE)) {
            Map<String, Double> byCause = fleet.lostByCause(standing);
            if (byCause.isEmpty()) continue;
            String unit = standing == Standing.TOTAL ? "GPU-hours lost" : "GPU-hours lost per hour";
            s.append("\n## ").append(unit).append(" by top cause\n\n| cause | ").append(unit).append(" |\n|---|---:|\n");
            for (Map.Entry<String, Double> e : byCause.entrySet())
                s.append("| ").append(md(e.getKey())).append(" | ").append(num(e.getValue())).append(" |\n");
        }
        for (Listing l : List.of(Listing.IMPLAUSIBLE, Listing.UNMEASURED)) mdListing(s, fleet, t, totals, l);
        s.append("\n## Files that could not be advised\n\n");
        if (fleet.failures().isEmpty()) s.append("None.\n");
        for (Fleet.Failure f : fleet.failures()) s.append("- `").append(MdText.code(f.file())).append("`: ")
                .append(md(f.message())).append("\n");
        if (!fleet.skipped().isEmpty()) {
            s.append("\n## Files skipped\n\n").append(SKIPPED).append("\n\n");
            for (Fleet.Skipped f : fleet.skipped()) s.append("- `").append(MdText.code(f.file())).append("`: ")
                    .append(md(f.why())).append("\n");
        }
        if (fleet.inline()) {
            for (int k = 0; k < fleet.runs().size(); k++) {
                s.append("\n<a id=\"run-").append(k + 1).append("\"></a>\n\n");
                // each run's report, its headings one level down
                for (String line : Markdown.of(fleet.runs().get(k)).split("\n", -1))
                    s.append(line.startsWith("#") ? "#" + line : line).append("\n");
            }
        } else {
            s.append("\n## Each run's report\n\n").append(md(elsewhere(fleet))).append("\n");
        }
        s.append("\n## Glossary\n\n").append(Glossary.markdown(Glossary.fleet()));
        return s.toString();
    }

    /** One list in Markdown: its heading, what it counts, its first rows, and where the rest are. */
    private static void mdListing(StringBuilder s, Fleet fleet, BatchTable t, Totals totals, Listing l) {
        List<Row> rows = t.rows(l.standing);
        if (rows.isEmpty()) return;
        s.append("\n## ").append(l.heading).append("\n\n").append(l.intro(totals)).append("\n\n");
        l.markdownTable(s, fleet, rows.subList(0, Math.min(ON_PAGE, rows.size())), 0, r -> fleet.link(r.file(), "md"));
        if (rows.size() > ON_PAGE) s.append("\n").append(more(fleet, l, rows.size(), "md", false)).append("\n");
    }

    private static String mdRun(Row r, String link) {
        return link == null ? md(r.run()) : "[" + md(r.run()) + "](" + link + ")";
    }

    private static String mdCause(Row r) { return r.topCause().isEmpty() ? "" : md(r.topCause()) + " (" + r.topSeverity() + ")"; }

    private static String mdRemedy(Row r) { return r.bestRemedy().isEmpty() ? "" : md(r.bestRemedy()) + " x" + num(r.bestSpeedup()); }

    /** A run's report as a Markdown page of its own, under a link back to the fleet. */
    static String runMarkdown(AdviceView a, String file, String back) {
        return (back == null ? "" : "[Back to the fleet](" + back + ")\n\n") + Markdown.of(a);
    }

    /**
     * A run's own text in a Markdown table or list: angle brackets as entities so nothing renders as HTML, link syntax
     * escaped (MdText), pipes escaped.
     */
    static String md(String s) {
        return MdText.prose(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")).replace("|", "\\|");
    }
}
