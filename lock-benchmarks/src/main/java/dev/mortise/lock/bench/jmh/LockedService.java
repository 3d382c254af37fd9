package dev.mortise.lock.bench.jmh;

import dev.mortise.lock.spring.DistributedLock;

/** The bean of the annotation-overhead benchmark: the same trivial work with and without the annotation. */
public class LockedService {

    /** Locks {@code 'order:' + id} through the starter's proxy and interceptor. */
    @DistributedLock(key = "'order:' + #id")
    public int locked(String id) {
        return id.length();
    }

    /** The same work, no lock: what the proxy-less call costs. */
    public int unlocked(String id) {
        return id.length();
    }
}
