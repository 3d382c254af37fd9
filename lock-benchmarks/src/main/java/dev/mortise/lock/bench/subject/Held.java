package dev.mortise.lock.bench.subject;

/** A granted hold, released exactly once by the thread that acquired it. */
@FunctionalInterface
public interface Held {

    /** Releases the hold (for a floor: sends its second round trip). */
    void release() throws Exception;
}
