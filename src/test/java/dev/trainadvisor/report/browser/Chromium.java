package dev.trainadvisor.report.browser;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Debian's Chromium, headless, driven through Selenium's Chrome driver, for testing self-contained HTML
 * reports. Share one per test class: start it from the first test that needs it, keep it in a static field,
 * close it in {@code @AfterAll} (see {@code ChromiumTest}). Starting it in {@code @BeforeAll} works too, but
 * Surefire does not report a skip thrown there, so a missing browser would go unnoticed.
 *
 * <p>Both binaries come from the system (packages {@code chromium} and {@code chromium-driver}); the driver
 * executable is handed to Selenium explicitly, so Selenium Manager never runs and nothing is downloaded.
 * When they are missing the calling test is skipped, unless {@code TRAIN_ADVISOR_BROWSER=required} (as in
 * CI), where it fails.
 */
public final class Chromium implements AutoCloseable {

    static final String MODE_ENV = "TRAIN_ADVISOR_BROWSER";
    static final String INSTALL_HINT = "apt-get install chromium chromium-driver";

    private static final Path BROWSER = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    static final double MAX_SCREENSHOT_HEIGHT = 16384;

    // Selenium warns on every start that it has no DevTools module for this Chromium version; none is needed
    // (executeCdpCommand goes through chromedriver), so keep that quiet. Held here: JUL loggers are weak.
    private static final Logger CDP_VERSION_LOG = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

    static {
        CDP_VERSION_LOG.setLevel(Level.SEVERE);
    }

    private final ChromeDriver driver;
    private final Path profile;

    private Chromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts a headless browser, or skips (fails, when required) the calling test if none is installed. */
    public static Chromium start() {
        Optional<Path> browser = locate(BROWSER, "chromium");
        Optional<Path> driver = locate(DRIVER, "chromedriver");
        if (browser.isEmpty() || driver.isEmpty()) {
            String missing = browser.isEmpty() && driver.isEmpty() ? "chromium and chromedriver"
                    : browser.isEmpty() ? "chromium" : "chromedriver";
            unavailable(missing, "required".equals(System.getenv(MODE_ENV)));
        }
        return launch(browser.get(), driver.get());
    }

    /** Fails when the browser is required, else aborts (skips) the calling test; never returns normally. */
    static void unavailable(String missing, boolean required) {
        String message = missing + " not found (looked in /usr/bin and on PATH); install it with: " + INSTALL_HINT;
        if (required) {
            throw new AssertionError(message + " [" + MODE_ENV + "=required]");
        }
        Assumptions.assumeTrue(false, message);
    }

    private static Chromium launch(Path browser, Path driverExe) {
        // A driver path given to the service makes DriverFinder skip Selenium Manager; the system property
        // is the same path by a second route, in case something builds a default service.
        System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, driverExe.toString());
        Path profile;
        try {
            profile = Files.createTempDirectory("train-advisor-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driverExe.toFile())
                .usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(20))
                .withSilent(true)
                .build();

        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--user-data-dir=" + profile,
                "--window-size=1280,2000",
                // no name resolves: nothing leaves the machine (Chromium looks up Google hosts at start even with
                // the flags above), and a report that names a remote resource shows it as a console error
                "--host-resolver-rules=MAP * ~NOTFOUND");
        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logging);

        ChromeDriver driver;
        try {
            driver = new ChromeDriver(service, options);
        } catch (RuntimeException e) {
            service.stop();
            deleteTree(profile);
            throw e;
        }
        Chromium chromium = new Chromium(driver, profile);
        try {
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            chromium.close();
            throw e;
        }
        return chromium;
    }

    /** {@code preferred} if it is executable, else the first {@code name} on PATH. */
    private static Optional<Path> locate(Path preferred, String name) {
        if (isProgram(preferred)) {
            return Optional.of(preferred);
        }
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name))
                .filter(Chromium::isProgram)
                .findFirst();
    }

    private static boolean isProgram(Path file) {
        return Files.isRegularFile(file) && Files.isExecutable(file);
    }

    /** Opens a local HTML file (as a file:// URL) and waits for it to load. */
    public void load(Path htmlFile) {
        driver.get(htmlFile.toAbsolutePath().toUri().toString());
    }

    /**
     * Messages of the SEVERE browser-console entries since the last call: {@code console.error} calls,
     * uncaught JavaScript exceptions, failed resource loads. Reading them empties the driver's buffer.
     */
    public List<String> consoleErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(entry.getMessage());
            }
        }
        return errors;
    }

    /** The underlying driver, for finding elements and running scripts. */
    public WebDriver driver() {
        return driver;
    }

    /** Saves a full-page PNG of the current page as {@code target/screenshots/<name>.png}; returns its path. */
    public Path screenshot(String name) {
        if (name.isBlank() || name.contains("/") || name.contains("\\")) {
            throw new IllegalArgumentException("screenshot name must be a plain file name: " + name);
        }
        // The whole document, not just the viewport: clip to the content size and capture beyond the viewport.
        Map<String, Object> metrics = driver.executeCdpCommand("Page.getLayoutMetrics", Map.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> content = (Map<String, Object>) metrics.get("cssContentSize");
        double width = ((Number) content.get("width")).doubleValue();
        // Chromium captures at most 16384 px in one image: a longer page (a fleet of hundreds of runs) is cut there
        double height = Math.min(MAX_SCREENSHOT_HEIGHT, ((Number) content.get("height")).doubleValue());
        Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of(
                "format", "png",
                "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        byte[] png = Base64.getDecoder().decode((String) shot.get("data"));
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, png);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Quits the browser and the driver, then deletes the temporary profile. */
    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            deleteTree(profile);
        }
    }

    /** Deletes a directory tree; retries briefly because Chromium's processes may still be writing on exit. */
    private static void deleteTree(Path dir) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (Files.exists(dir)) {
                    List<Path> paths;
                    try (Stream<Path> walk = Files.walk(dir)) {
                        paths = walk.sorted(Comparator.reverseOrder()).toList();
                    }
                    for (Path p : paths) {
                        Files.deleteIfExists(p);
                    }
                }
                return;
            } catch (IOException | UncheckedIOException e) {
                if (attempt == 5) {
                    throw new IllegalStateException("could not delete Chromium profile " + dir, e);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
