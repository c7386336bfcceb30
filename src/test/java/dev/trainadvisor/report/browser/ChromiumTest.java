package dev.trainadvisor.report.browser;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.opentest4j.TestAbortedException;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.*;

/** The headless-Chromium harness itself, on small pages written to a temporary directory. */
class ChromiumTest {
    static Chromium shared;

    @TempDir
    Path dir;

    /**
     * The class's one browser, started by the first test that needs it (not in {@code @BeforeAll}: Surefire
     * does not report a skip thrown there, so a missing Chromium would pass silently), with the console
     * drained of what earlier tests left.
     */
    static Chromium browser() {
        if (shared == null) shared = Chromium.start();
        shared.consoleErrors();
        return shared;
    }

    @AfterAll
    static void closeBrowser() {
        if (shared != null) shared.close();
    }

    Path page(String name, String body) throws IOException {
        Path file = dir.resolve(name + ".html");
        Files.writeString(file, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + name
                + "</title></head><body>\n" + body + "\n</body></html>\n");
        return file;
    }

    @Test
    void consoleErrorIsReportedOnce() throws IOException {
        assertOneError(page("error", "<p>hi</p><script>console.error(\"boom\")</script>"), "boom");
        assertEquals(List.of(), browser().consoleErrors(), "read once: a second call has nothing new");
    }

    @Test
    void cleanPageHasNoErrorsEvenWithLogsAndWarnings() throws IOException {
        Chromium browser = browser();
        browser.load(page("clean", "<p>fine</p><script>console.log(\"note\"); console.warn(\"careful\")</script>"));
        assertEquals(List.of(), browser.consoleErrors());
        // the page did run: its title and text are there
        assertEquals("clean", browser.driver().getTitle());
        assertEquals("fine", browser.driver().findElement(By.tagName("p")).getText());
    }

    @Test
    void uncaughtExceptionIsAConsoleError() throws IOException {
        assertOneError(page("throws", "<script>throw new Error(\"kaboom\")</script>"), "kaboom");
    }

    /** Loading the page gives exactly one console error, which says {@code word}. */
    void assertOneError(Path page, String word) {
        Chromium browser = browser();
        browser.load(page);
        List<String> errors = browser.consoleErrors();
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains(word), errors.get(0));
    }

    @Test
    void findsMarksInAnInlineSvg() throws IOException {
        Chromium browser = browser();
        browser.load(page("svg", """
                <svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">
                  <rect class="frame" x="0" y="0" width="120" height="40" fill="none" stroke="black"/>
                  <rect class="mark" x="10" y="10" width="20" height="20"/>
                  <rect class="mark" x="50" y="10" width="20" height="20"/>
                  <rect class="mark" x="90" y="10" width="20" height="20"/>
                </svg>"""));
        assertEquals(3, browser.driver().findElements(By.cssSelector("svg .mark")).size());
        assertEquals(4, browser.driver().findElements(By.cssSelector("svg rect")).size());
        assertEquals(List.of(), browser.consoleErrors());
    }

    @Test
    void screenshotIsAFullPagePng() throws IOException {
        Chromium browser = browser();
        // taller than the 2000-pixel window: a viewport-only capture would be cut short
        browser.load(page("tall", "<div style=\"height:3000px;background:linear-gradient(red,blue)\"></div>"));
        Path png = browser.screenshot("chromium-test-tall");
        assertEquals(Path.of("target", "screenshots", "chromium-test-tall.png"), png);
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 0);
        byte[] magic = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        assertArrayEquals(magic, Arrays.copyOf(bytes, 8), "PNG signature");
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "decodes as an image");
        assertTrue(image.getHeight() >= 3000, "whole page captured, height " + image.getHeight());
        assertTrue(image.getWidth() > 0);
    }

    @Test
    void missingBrowserSkipsUnlessRequired() {
        AssertionError failed = assertThrows(AssertionError.class, () -> Chromium.unavailable("chromium", true));
        assertTrue(failed.getMessage().contains("apt-get install chromium chromium-driver"), failed.getMessage());
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> Chromium.unavailable("chromedriver", false));
        assertTrue(skipped.getMessage().contains("chromedriver not found"), skipped.getMessage());
    }
}
