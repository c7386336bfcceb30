package dev.trainadvisor.bench;

import dev.trainadvisor.report.Fleet;
import dev.trainadvisor.report.FleetFixtures;
import dev.trainadvisor.report.Html;
import dev.trainadvisor.report.browser.Chromium;
import org.openqa.selenium.JavascriptExecutor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fleet page of a batch of N runs in headless Chromium (bench/fleetpage.sh N): its size, and how long the browser
 * takes to open it, five times, the median. "Opened" is the load event plus a forced layout of the whole page
 * (document.body.getBoundingClientRect after reading scrollHeight), timed by the browser itself (performance.now from
 * navigation start). Each run's report is a page of its own, linked, as batch --out writes it.
 */
public final class FleetPage {
    public static void main(String[] args) throws Exception {
        Path page;
        if (args.length > 1 && args[0].equals("load")) {
            // a page written elsewhere (another version's fleet report, for comparison)
            page = Path.of(args[1]);
            System.out.printf("%s: %.2f MB%n", page, Files.size(page) / 1e6);
        } else {
            int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
            boolean inline = args.length > 1 && args[1].equals("inline");
            long t0 = System.nanoTime();
            FleetFixtures.Advised base = FleetFixtures.published();
            Fleet fleet = FleetFixtures.of(base, n);
            if (!inline) fleet = fleet.withRunPages("fleet-runs/", "fleet.html");
            Path dir = Files.createDirectories(Path.of("target", "fleetpage"));
            page = dir.resolve("fleet.html");
            Files.writeString(page, Html.of(fleet));
            System.out.printf("%d runs (%d distinct advice): page %.2f MB, written in %.1f s%n", n, base.views().size(),
                    Files.size(page) / 1e6, (System.nanoTime() - t0) / 1e9);
        }
        try (Chromium c = Chromium.start()) {
            List<Double> times = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                c.load(page);
                Object t = ((JavascriptExecutor) c.driver()).executeScript("document.body.scrollHeight;"
                        + "document.body.getBoundingClientRect();var n=performance.getEntriesByType('navigation')[0];"
                        + "return {load: n.loadEventEnd, dom: n.domContentLoadedEventEnd, laid: performance.now()};");
                @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) t;
                double laid = ((Number) m.get("laid")).doubleValue();
                if (i > 0) times.add(laid);   // the first load warms the browser's caches and is not counted
                System.out.printf("load %d: DOM ready %.0f ms, load event %.0f ms, laid out %.0f ms%n", i,
                        ((Number) m.get("dom")).doubleValue(), ((Number) m.get("load")).doubleValue(), laid);
            }
            times.sort(null);
            System.out.printf("median of 5: opened in %.0f ms%n", times.get(2));
        }
    }
}
