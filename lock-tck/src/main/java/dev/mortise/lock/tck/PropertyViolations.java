package dev.mortise.lock.tck;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** Violations of the property suite's invariants found, grouped by invariant, with the first examples kept. Thread-safe. */
final class PropertyViolations {
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
    private final int keep;
    private final Consumer<String> onFirst;

    PropertyViolations(int keep, Consumer<String> onFirst) {
        this.keep = keep;
        this.onFirst = Objects.requireNonNull(onFirst);
    }

    void add(String invariant, String message) {
        int count = counts.computeIfAbsent(invariant, k -> new AtomicInteger()).incrementAndGet();
        if (count <= keep) {
            examples.add("(" + invariant + ") " + message);
        }
        if (total() == 1) {
            onFirst.accept("(" + invariant + ") " + message);
        }
    }

    int total() {
        int total = 0;
        for (AtomicInteger count : counts.values()) {
            total += count.get();
        }
        return total;
    }

    Map<String, AtomicInteger> counts() {
        return counts;
    }

    List<String> examples() {
        return List.copyOf(examples);
    }
}
