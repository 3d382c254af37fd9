package dev.mortise.lock.chaos;

/**
 * The report's how-to for the Redis variants and the shared and permits workloads, appended to
 * {@code docs/RELIABILITY.md} after the soak (kept out of {@link ReliabilityReport}, which is long enough).
 */
final class ModesLegend {

    private ModesLegend() {
    }

    /** The Markdown section. */
    static final String TEXT = """
            ## Redis variants, shared holds and permits

            `--redis-driver lettuce` runs the Redis backend on the Lettuce driver instead of Redisson
            (`RedisLockBackend.builder().driver(RedisDriver.LETTUCE)`), `--redis-fair` in fair mode
            (`fair(true)`: waiters queue on the server, a release hands the lock to the first live
            waiter). Both apply to the redis runs only, to every workload and fault, and name them:
            the backend column reads `redis/lettuce`, `redis/fair` or `redis/lettuce/fair` (also in
            the JSON), so they are never mistaken for the default Redisson runs. Each worker prints the
            backend it built on the first line of its `wN.err` (`RedisLockBackend[... (Lettuce)]`).
            The Sentinel runs (failover, failover-wait) build the same variant; not yet run with it.

            `--workloads shared` (read-write locks): each cycle takes one of the keys shared
            (`LockSpec.of(key).shared()`, 60 % of cycles) or exclusive. A writer runs the basic cycle;
            a reader logs `MODE_SHARED` after its grant, does a fenced read (which raises the key's
            fence to its token: every grant of a key, in either mode, draws on one counter, so a
            writer granted before the reader can no longer write and one granted after it can),
            the sampled critical section, a second fenced read (`READ_AGAIN`) and releases; it never
            writes. Readers beside readers are expected. **False grants** and **validity overlaps**
            count a writer granted beside any holder, or a reader beside a writer; the validity
            overlaps also count **torn reads**: a reader whose two reads differ while it saw its
            lease valid after the second - a write accepted beside a valid reader, from the ledger
            and one worker's own lines alone.

            `--workloads permits`: a semaphore (`locks.semaphore(key, 2)`) that the 3 workers take
            one permit of per cycle (`MODE_PERMIT`, `INSIDE`, sampled section, `OUTSIDE`, release;
            no ledger writes). Natively (Redis, etcd, ZooKeeper, JDBC) every permit is a hold of
            `key#permits`; in the slot fallback (Redis fair mode) of `key#permit-i`, counted
            together. A **false grant** or **validity overlap** is a grant made beside 2 other
            holders (not lost, not struck; respectively seen valid after it): more than the
            permit count at once.

            For both, the overlap column counts grants beside more open critical sections than the
            mode allows (what fencing or lease expiry had to absorb), and a hold ends at its
            `RELEASING` line (the release is sent after it). Without `--faults` they run with none,
            pause, waiter-pause and net-cut; they are not in the default full run. The pause rule
            "no stale write attempted" does not apply to them (readers and permit holders do not
            write): the victims' `onLost` shows the pause bit.
            """;
}
