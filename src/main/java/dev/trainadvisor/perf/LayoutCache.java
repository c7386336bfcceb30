package dev.trainadvisor.perf;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded, thread-safe memo of a pure function of a run's layout: what a prediction, a layout search or the fit needs
 * of the cluster, the model, the parallel layout and the training (value-equal records), and not of what the run
 * measured. A fleet runs each layout many times with different measurements (issue 22: a few hundred layouts in 10,000
 * runs); what depends on the layout alone is worked out once and shared by every run of it, across threads.
 *
 * <p>Least recently used entries go past {@code capacity} entries: a fleet of more layouts than that works some of them
 * out again, never holds more. A value is computed outside the lock (two threads may compute the same one; both are
 * equal, the first kept), so a slow computation never blocks the other threads' look-ups. The function must be pure and
 * its value immutable: every caller gets the same instance.
 */
public final class LayoutCache<K, V> {
    private final int capacity;
    private final Map<K, V> map;
    private long hits, misses;

    /** Every cache made, for {@link #clearAll}. */
    private static final java.util.List<LayoutCache<?, ?>> ALL = new java.util.concurrent.CopyOnWriteArrayList<>();

    public LayoutCache(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity must be positive");
        ALL.add(this);
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) { return size() > LayoutCache.this.capacity; }
        };
    }

    /** The value of {@code key}, computed by {@code f} when it is not held. */
    public V get(K key, Function<? super K, ? extends V> f) {
        synchronized (map) {
            V v = map.get(key);
            if (v != null) {
                hits++;
                return v;
            }
            misses++;
        }
        V v = f.apply(key);
        synchronized (map) {
            V prev = map.putIfAbsent(key, v);
            return prev != null ? prev : v;
        }
    }

    /** Entries held now, at most the capacity. */
    public int size() {
        synchronized (map) {
            return map.size();
        }
    }

    /** Look-ups answered from the cache, and those computed, since it was made. */
    public long hits() {
        synchronized (map) {
            return hits;
        }
    }

    public long misses() {
        synchronized (map) {
            return misses;
        }
    }

    public int capacity() { return capacity; }

    /** Forgets every entry of every cache (tests: each run advised as if it were the first). */
    public static void clearAll() {
        for (LayoutCache<?, ?> c : ALL) c.clear();
    }

    /** Look-ups answered from any cache since they were made (tests: the caches are used). */
    public static long allHits() {
        long h = 0;
        for (LayoutCache<?, ?> c : ALL) h += c.hits();
        return h;
    }

    /** Forgets every entry (tests: a cold cache). */
    public void clear() {
        synchronized (map) {
            map.clear();
        }
    }
}
