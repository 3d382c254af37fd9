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

            The Redis variants are backends of their own: `redis/lettuce` runs the Redis backend on
            the Lettuce driver instead of Redisson (`RedisLockBackend.builder().driver(RedisDriver.LETTUCE)`),
            `redis/fair` in fair mode (`fair(true)`: waiters queue on the server, a release hands the
            lock to the first live waiter), `redis/lettuce/fair` both; plain `redis` is Redisson, not
            fair. Name them on the command line beside the others (`./scripts/chaos.sh redis/lettuce
            etcd`); the switches `--redis-driver lettuce` and `--redis-fair` add their part to every
            Redis backend named (to `redis` alone when none is). The backend column and the JSON carry
            the label, so a variant's rows are never mistaken for the default Redisson runs. Each
            worker prints the backend it built on the first line of its `wN.err`
            (`RedisLockBackend[... (Lettuce)]`). The Sentinel runs (failover, failover-wait) build
            the same variant; not yet run with it.

            The full run (`./scripts/chaos.sh` without `--faults` and `--workloads`) runs each variant
            with the basic workload under pause, waiter-pause, net-cut, waiter-cut, server-kill and
            silent-partition - where the driver's connection handling and renewals and fair mode's
            server-side queue and hand-off change what happens; the other faults strike the server or
            the clocks alike for every client. These added rows, and the shared and permits rows below,
            run for `--short-seconds` (default 15 s: two faults per row) rather than `--seconds` (or
            for `--seconds` where that is shorter), so the full run grows by about half rather than
            doubling; the header says which rows ran how long, and the JSON gives each row's `seconds`.

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
            pause, waiter-pause and net-cut, in the full run on every backend and Redis variant. The pause rule
            "no stale write attempted" does not apply to them (readers and permit holders do not
            write): the victims' `onLost` shows the pause bit.
            """;
}
