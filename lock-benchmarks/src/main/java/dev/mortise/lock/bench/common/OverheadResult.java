package dev.mortise.lock.bench.common;

/** One JMH benchmark of the annotation-overhead run: average ns per call and its 99.9% error. */
public record OverheadResult(String benchmark, String description, double nsPerCall, double error) {
}
