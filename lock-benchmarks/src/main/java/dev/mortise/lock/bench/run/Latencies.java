package dev.mortise.lock.bench.run;

import java.util.Arrays;

/** A growable list of nanosecond samples with percentiles; one per thread, merged at the end. Not thread-safe. */
public final class Latencies {

    private long[] samples = new long[4096];
    private int size;

    public void add(long nanos) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    public void addAll(Latencies other) {
        for (int i = 0; i < other.size; i++) {
            add(other.samples[i]);
        }
    }

    /** Hands every sample, in the order added, to {@code each}. */
    public void forEach(java.util.function.LongConsumer each) {
        for (int i = 0; i < size; i++) {
            each.accept(samples[i]);
        }
    }

    public int size() {
        return size;
    }

    /** The {@code p}-th percentile (0 < p ≤ 100) in microseconds, nearest rank; NaN if empty. */
    public double percentileMicros(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1000.0;
    }
}
