package dev.mortise.lock.bench.common;


/**
 * One subject in a scenario over a small shared set of keys: {@code readwrite} (each op takes one
 * key, shared for a read or exclusive for a write) or {@code multikey} (each op takes
 * {@code keysPerOp} keys at once, all exclusive; its ops count as writes). Latencies in µs are
 * acquire (including the wait) plus release, without the critical section; NaN when a mode had no op.
 * {@code serverRequestsPerOp} is what the server received per op (ZooKeeper and etcd only, heartbeats
 * included), NaN where not counted.
 */
public record KeySetResult(String scenario, String group, String id, String label, Role role, int threads,
                           int keys, int keysPerOp, int readPercent, double seconds, long ops, double opsPerSecond,
                           long reads, double readP50, double readP99, long writes, double writeP50,
                           double writeP99, long timeouts, double serverRequestsPerOp) {

    public static final String READ_WRITE = "readwrite";
    public static final String MULTI_KEY = "multikey";
}
