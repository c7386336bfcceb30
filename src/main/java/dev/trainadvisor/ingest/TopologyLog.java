package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code nvidia-smi topo -m} matrix (docs/logs.md (nvidia-smi topo -m)): how each pair of
 * GPUs (and GPU and NIC) is connected.
 *
 * <p>The header row names the devices ({@code GPU0 ... GPUn-1}, then NICs as {@code NIC0...} on newer
 * drivers or by device name such as {@code mlx5_0} on older ones), followed by {@code CPU Affinity},
 * {@code NUMA Affinity} and, on newer drivers, {@code GPU NUMA ID}. Each device row gives one cell per
 * device column: {@code X} on the diagonal, {@code NV#} for a bonded set of # NVLinks, or a PCIe path
 * class {@code PIX < PXB < PHB < NODE < SYS} ({@code SOC}, an old name of {@code SYS}). Cells are
 * tab-separated, or space-separated in some pastes; the legend may be present or not; excerpts may cut
 * rows off.
 *
 * <p>{@link ParsedLog#extra()}: {@code gpus}, {@code intra_node} ({@code NVLink} when every GPU pair is
 * NV#, {@code PCIe} when none is, {@code mixed} otherwise), {@code nvlink_links} (fewest NVLinks between
 * two GPUs, when {@code NVLink}), {@code nics}, {@code pcie_paths} (the worst PCIe path class between two
 * GPUs, when any pair is joined by PCIe only). {@link ParsedLog#config()}: {@code cluster.gpus_per_node} and
 * {@code cluster.intra_node.gpu_path} (NV when every pair is NVLink, else the worst PCIe path class).
 */
public final class TopologyLog extends GuardedLogParser {
    public static final String FORMAT = "nvidia-smi-topo";

    /** PCIe path classes, best first (SOC: the old name of SYS). */
    static final List<String> PCIE_ORDER = List.of("PIX", "PXB", "PHB", "NODE", "SYS");

    private static final Pattern GPU = Pattern.compile("GPU(\\d+)");
    private static final Pattern NV = Pattern.compile("NV(\\d+)");
    private static final Pattern CELL = Pattern.compile("X|NV\\d+|PIX|PXB|PHB|NODE|SYS|SOC");
    /** A device column or row name: GPU0, NIC0, mlx5_0, mlx4_0, bnxt_re0, ... (always ends in a number). */
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*\\d");
    /** Header words after the device columns: "CPU Affinity", "NUMA Affinity", "GPU NUMA ID" (split when space-separated). */
    private static final Set<String> NOT_DEVICES = Set.of("CPU", "NUMA", "GPU", "AFFINITY", "ID", "LEGEND", "X");

    public TopologyLog() { super(FORMAT); }

    /**
     * 0.95 with a header row starting {@code GPU0} and at least one matrix row under it; 0.6 with matrix
     * rows but no header (a cut excerpt); 0.3 with a header only; 0.2 with only the legend's NV# line; else 0.
     */
    @Override
    double score(String text) {
        if (text == null || text.isEmpty()) return 0;
        boolean header = false, legend = false;
        int headerlessRows = 0;
        int n = text.length();
        for (int start = 0; start <= n; ) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            String line = LogText.clean(text.substring(start, end));
            start = end + 1;
            if (!mayBeMatrixLine(line)) continue;
            String[] t = tokens(line);
            if (t.length == 0) continue;
            if (isHeader(t)) {
                header = true;
            } else if (isMatrixRow(t)) {
                if (header) return 0.95;
                if (GPU.matcher(t[0]).matches()) headerlessRows++;
            } else if (t[0].startsWith("NV#")) {
                legend = true;
            }
        }
        if (headerlessRows >= 2) return 0.6;   // two GPU rows: a matrix whose header was cut off
        if (header) return 0.3;
        return legend ? 0.2 : 0;
    }

    /**
     * Whether the first cell of {@code line} (as {@link #tokens} splits it) can start a header ({@code GPU0}), a matrix
     * row (a device name: a letter first, a digit last) or the legend's {@code NV#} line. Detection runs on every log,
     * and this skips the lines of other formats without splitting them.
     */
    static boolean mayBeMatrixLine(String line) {
        int a = 0, b = line.length();
        while (a < b && Character.isWhitespace(line.charAt(a))) a++;
        while (b > a && Character.isWhitespace(line.charAt(b - 1))) b--;
        if (a == b) return false;
        int tab = line.indexOf('\t', a);
        int e = a;
        if (tab >= 0 && tab < b) {
            e = tab;                                   // tab-separated: the first cell is stripped
            while (e > a && Character.isWhitespace(line.charAt(e - 1))) e--;
        } else {
            while (e < b && !LogText.isSpace(line.charAt(e))) e++;
        }
        if (e == a) return false;
        char first = line.charAt(a), last = line.charAt(e - 1);
        boolean letter = (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z');
        return letter && ((last >= '0' && last <= '9') || line.startsWith("NV#", a));
    }

    @Override
    ParsedLog read(LogSource log) {
        List<String> warnings = new ArrayList<>();
        Map<String, Object> extra = new LinkedHashMap<>();
        Map<String, Object> config = new LinkedHashMap<>();
        try (LogSource.Pass lines = log.lines()) {
            Matrix m = matrix(lines, warnings);
            if (m != null) summarize(m, extra, config, warnings);
            else warnings.add("no nvidia-smi topo -m matrix found (a header row starting GPU0 or rows of X/NV#/PIX/PXB/PHB/NODE/SYS cells)");
        } catch (dev.trainadvisor.input.SpecException e) {
            throw e;                                   // the file cannot be read: the user's to see
        } catch (RuntimeException e) {
            // keep what was read before the failure, with the reason (the base class would keep nothing)
            warnings.add("the topology could not be read: " + e);
        }
        return new ParsedLog(FORMAT, 0, 0, Map.of(), null, config, extra, warnings);
    }

    /** The device columns (from the header, or inferred from the rows) and the rows read, by device name. */
    record Matrix(List<String> columns, boolean hasHeader, Map<String, List<String>> rows) {}

    static Matrix matrix(String text, List<String> warnings) {
        try (LogSource.Pass lines = Lines.of(text)) {
            return matrix(lines, warnings);
        }
    }

    /** More rows than a node's GPUs and NICs (4 x MAX_GPUS): a longer matrix is not read further. */
    static final int MAX_ROWS = 1024;

    /** The matrix in {@code lines} (cleaned lines, see {@link Lines}), or null when there is none. */
    static Matrix matrix(Iterable<String> lines, List<String> warnings) {
        List<String> columns = null;
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : lines) {
            String[] t = tokens(line);
            if (t.length == 0) continue;
            if (isHeader(t)) {
                if (columns != null || !rows.isEmpty()) {
                    warnings.add("a second topology matrix follows the first; only the first was read");
                    break;
                }
                columns = headerColumns(t);
            } else if (isMatrixRow(t)) {
                if (rows.containsKey(t[0])) {
                    warnings.add("row " + t[0] + " appears twice; a second matrix was ignored");
                    break;
                }
                if (rows.size() >= MAX_ROWS) {
                    warnings.add("more than " + MAX_ROWS + " matrix rows; the rest was not read");
                    break;
                }
                List<String> cells = new ArrayList<>();
                int n = columns == null ? t.length - 1 : Math.min(columns.size(), t.length - 1);
                for (int i = 1; i <= n; i++) cells.add(t[i]);
                rows.put(t[0], cells);
            }
        }
        if (columns == null && rows.isEmpty()) return null;
        boolean hasHeader = columns != null;
        if (!hasHeader) {
            // No header: assume the usual order, GPU rows' columns first (GPU0..GPUn-1), then the NIC rows'.
            warnings.add("no header row (GPU0 GPU1 ...): columns assumed to be the rows' devices in order");
            columns = new ArrayList<>(rows.keySet());
            columns.sort((a, b) -> Boolean.compare(!GPU.matcher(a).matches(), !GPU.matcher(b).matches()));
        }
        return new Matrix(columns, hasHeader, rows);
    }

    /** More GPU columns than any node holds (NVL72 racks show 72): above it the matrix is not one node's. */
    static final int MAX_GPUS = 256;

    private static void summarize(Matrix m, Map<String, Object> extra, Map<String, Object> config, List<String> warnings) {
        List<String> gpus = new ArrayList<>(), nics = new ArrayList<>();
        for (String c : m.columns()) (GPU.matcher(c).matches() ? gpus : nics).add(c);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < m.columns().size(); i++) index.putIfAbsent(m.columns().get(i), i);

        int gpuRows = 0, nicRows = 0;
        for (String r : m.rows().keySet()) {
            if (!index.containsKey(r)) warnings.add("row " + r + " has no column in the header; ignored");
            else if (GPU.matcher(r).matches()) gpuRows++;
            else nicRows++;
        }
        if (gpuRows < gpus.size() || nicRows < nics.size())
            warnings.add("the matrix is cut short: " + gpuRows + " of " + gpus.size() + " GPU rows and " + nicRows + " of "
                    + nics.size() + " NIC rows are present");

        extra.put("gpus", gpus.size());
        if (!gpus.isEmpty()) config.put("cluster.gpus_per_node", gpus.size());

        if (gpus.size() > MAX_GPUS) {
            // nvidia-smi lists the GPUs of one node; thousands of columns are not a topology matrix, and comparing
            // every pair would take quadratic time
            warnings.add(gpus.size() + " GPU columns: more than a node holds (" + MAX_GPUS + "); GPU pairs not compared");
            return;
        }
        // Each GPU pair, from either of its two cells.
        int pairs = 0, nvPairs = 0, pciePairs = 0, unknown = 0, minLinks = Integer.MAX_VALUE, worstPcie = -1;
        for (int i = 0; i < gpus.size(); i++) {
            for (int j = i + 1; j < gpus.size(); j++) {
                pairs++;
                String a = cell(m, gpus.get(i), gpus.get(j), index), b = cell(m, gpus.get(j), gpus.get(i), index);
                int links = Math.max(nvLinks(a), nvLinks(b));
                if (links >= 0) {
                    nvPairs++;
                    minLinks = Math.min(minLinks, links);
                    continue;
                }
                int p = Math.max(pcieRank(a), pcieRank(b));
                if (p >= 0) {
                    pciePairs++;
                    worstPcie = Math.max(worstPcie, p);
                } else {
                    unknown++;
                }
            }
        }
        if (unknown > 0)
            warnings.add(unknown + " of " + pairs + " GPU pairs have no readable cell; the link type is judged from the other "
                    + (pairs - unknown));
        if (pairs > 0 && unknown < pairs) {
            if (pciePairs == 0) extra.put("intra_node", "NVLink");
            else if (nvPairs == 0) extra.put("intra_node", "PCIe");
            else extra.put("intra_node", "mixed");
            if (pciePairs == 0) extra.put("nvlink_links", minLinks);
            if (worstPcie >= 0) extra.put("pcie_paths", PCIE_ORDER.get(worstPcie));
            // the worst path a ring over all the node's GPUs may take: what NCCL's choice of transport follows
            config.put("cluster.intra_node.gpu_path", pciePairs == 0 ? "NV" : PCIE_ORDER.get(worstPcie));
        } else if (gpus.size() == 1) {
            warnings.add("one GPU: no GPU pairs, so no intra-node link");
        }
        extra.put("nics", nics.size());
    }

    /** The cell of row {@code row} in column {@code col}, upper-cased, or null when not printed. */
    private static String cell(Matrix m, String row, String col, Map<String, Integer> index) {
        List<String> cells = m.rows().get(row);
        Integer c = index.get(col);
        if (cells == null || c == null || c >= cells.size()) return null;
        String v = cells.get(c).toUpperCase(Locale.ROOT);
        return CELL.matcher(v).matches() ? v : null;
    }

    /** The # of an NV# cell (0 for a count too large to read), -1 when not NV#. */
    static int nvLinks(String cell) {
        if (cell == null) return -1;
        Matcher m = NV.matcher(cell);
        if (!m.matches()) return -1;
        try {
            return Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Index in {@link #PCIE_ORDER}, SOC counted as SYS; -1 when not a PCIe path class. */
    static int pcieRank(String cell) {
        if (cell == null) return -1;
        if (cell.equals("SOC")) return PCIE_ORDER.indexOf("SYS");
        return PCIE_ORDER.indexOf(cell);
    }

    /** Cells of a line: tab-separated when it has tabs (each trimmed, empty ones kept), else split on spaces. */
    static String[] tokens(String line) {
        String s = line.strip();
        if (s.isEmpty()) return new String[0];
        if (s.indexOf('\t') >= 0) {
            String[] t = s.split("\t", -1);
            for (int i = 0; i < t.length; i++) t[i] = t[i].strip();
            return t;
        }
        return s.split("\\s+");
    }

    /** {@code GPU0} first, then another device name or a header word, never a cell value. */
    static boolean isHeader(String[] t) {
        return t[0].equals("GPU0") && (t.length == 1 || !CELL.matcher(t[1].toUpperCase(Locale.ROOT)).matches());
    }

    /** A device name, then a cell value ({@code X}, {@code NV#} or a PCIe path class). */
    static boolean isMatrixRow(String[] t) {
        return t.length >= 2 && isDevice(t[0]) && CELL.matcher(t[1].toUpperCase(Locale.ROOT)).matches();
    }

    private static boolean isDevice(String s) {
        return DEVICE.matcher(s).matches() && !NOT_DEVICES.contains(s.toUpperCase(Locale.ROOT))
                && !CELL.matcher(s.toUpperCase(Locale.ROOT)).matches();
    }

    /** The header's device columns: the leading device names, up to "CPU Affinity" and the like. */
    private static List<String> headerColumns(String[] t) {
        List<String> cols = new ArrayList<>();
        for (String s : t) {
            if (s.isEmpty()) continue;
            if (!isDevice(s)) break;
            cols.add(s);
        }
        return cols;
    }
}
