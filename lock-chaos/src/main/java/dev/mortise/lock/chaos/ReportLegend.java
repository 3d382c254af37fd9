package dev.mortise.lock.chaos;

/**
 * The report's legend - what the columns mean, the faults and the soak - appended to
 * {@code docs/RELIABILITY.md} after the tables (kept out of {@link ReliabilityReport}, which
 * renders the figures).
 */
final class ReportLegend {

    private ReportLegend() {
    }

    /** The Markdown sections. */
    static final String TEXT = """
            ## What the columns mean

            Each worker JVM loops: acquire a lock on one of the keys, fenced read of the key's value from
            the ledger, sleep (the critical section), write value + 1 with its fencing token, release.
            Throughout the critical section it samples `isValid()` of every lease it holds: at the
            grant, after the read, every 50 ms of the sleep, before and after the write, before the
            release. It never calls `ensureValid()`: the samples observe, fencing alone protects the
            ledger.
            The ledger is a PostgreSQL table on its own server (not the lock backend's, never behind a
            fault): a read raises the key's token to the reader's, and a write is accepted only if its
            token is at least the key's token, in one conditional statement that also logs the attempt
            in `ledger_log`. Every figure is computed from that log and the workers' event logs.
            Bold columns are safety rules: any non-zero value makes the run **UNSAFE**; the other rules
            (orphans, onLost, takeover, the fault biting) make it **FAILED**. Either exits 1.

            - **workload**: `basic` - one key per cycle, the client's default lease renewed by the
              watchdog; every fault runs with it. `mixed` - two keys held at once per cycle (acquired in
              one global order, so workers cannot deadlock), each with a lease mode drawn per cycle:
              default renewed lease; explicit lease (not renewed) of half the default (at least 1 s, what
              etcd can honour) or twice the default; default lease extended after the read to twice the
              default or to half of it. The client has a slow `LockListener` and each lease a slow
              `onLost`: on a loss either blocks the client's notification thread for one lease (at most
              one lease in two, so the backlog stays bounded and the victims' `onLost` still arrive within
              the run; not on the worker's own thread, where a close reports the loss). It runs with no
              fault, pause, waiter-pause and net-cut, the faults whose outcome depends on leases, extends
              and listeners; the other faults do not change with the lease mode. Key names for both are
              random and unrelated (listed above): any first character, ASCII punctuation, space, Latin,
              Greek, Cyrillic, Arabic, CJK, emoji; no shared prefix. Events carry them percent-encoded.
              `leader` - leader election (`LockClient.leadership`): each worker JVM runs one candidate of
              one group on the first key; only while it leads (`epoch()` present) does it loop fenced
              read, critical section, write, all with its epoch (the leadership lease's fencing token) as
              the token, and it steps down after 8 writes so terms change without faults too. A grant is
              the worker seeing itself elected (token = epoch), a loss its term revoked as lost. The
              holder faults strike the leader (the only worker in a critical section). It runs with no
              fault, pause, kill, net-cut, server-kill and (etcd, ZooKeeper) leader-kill. Its own rules,
              safety (**UNSAFE**): epochs strictly grow across elections (compared only between elections
              seen one after the other), and the ledger never accepts a leader's write with an epoch below
              one it accepted before; and at least one leader is elected (**FAILED**). Its takeover
              column is the failover time: from the fault on the leader to the election of another
              candidate, at most the lease + 1 s; the "Leader election" table sums it up per backend.
            - **server**: the lock server as run. Durable unless the fault says volatile.
            - **faults**: faults injected; the controller strikes only a victim in the right state (a
              pause that lands after the victim's write reached the ledger is not counted; another victim
              is sought).
            - **stale attempted**: writes the ledger rejected because a higher token had been seen. For
              pauses this is the proof that the fault bit (must be > 0).
            - **stale accepted** (must be 0): accepted writes whose token was below one the ledger had
              already logged, or below one a worker had already read with before the write landed.
            - **lost updates** (must be 0): accepted writes that did not read the previous accepted value,
              plus the difference between each key's final value and its number of accepted writes.
            - **false grants** (must be 0): grants made while another worker held the key - granted
              before, critical section not ended - although no fault struck that holder during its
              hold and it never learned it lost the lock (no `onLost`, no failed release). A waiter
              whose session died while it waited and that is granted anyway shows up here.
            - **tokens reused** (must be 0): grants that carried a (key, token) pair already granted
              before. Two holders with one token would both pass the ledger's "token >= highest" check.
            - **overlaps w/o fencing**: pairs of critical sections (grant to end of write) on one key that
              overlapped in time between two workers: what would have corrupted the ledger had it not
              checked tokens. Expected > 0 under pauses, 0 otherwise - but for the mixed workload, where
              an explicit lease of 1 s may run out inside the critical section (while the worker waits
              for its second key) and the key is then rightly granted again; the ledger rejects the late
              write.
            - **isValid samples**: `isValid()` calls the holders logged.
            - **validity overlaps** (must be 0): pairs of holds of one key where the holder's `isValid()`
              returned true although it was called after another grant of the key (another worker or
              another token) had been confirmed - that grantee's acquire had returned - and after the
              holder's own grant: a holder that would have believed, had it checked, that it still held
              a lock someone else had been given. The sample's time is read before `isValid()` is called
              and a grant's after its acquire returned, so the timing can only hide an overlap, never
              invent one. Times are on the host's monotonic clock (`System.nanoTime()`, Linux
              `CLOCK_MONOTONIC`: one clock for every JVM on the host, never stepped; every worker runs on
              this host). Clock-skew runs instead compare wall clocks (`Instant.now()`, microseconds) with
              each worker's known offset taken back out, because libfaketime fakes `CLOCK_MONOTONIC`
              too (it reads as the faked wall clock) - exact as long as the host's wall clock is not
              stepped during that run. The one fault where the guarantee does not hold, marked
              `(void)` and not counted as a violation: **server-kill-volatile**, whose restarted server
              has forgotten every hold and grants the key again at once, while the previous holder's
              lease, confirmed before the crash, is still valid by its clock - no client can tell; only a
              durable server prevents it. A non-zero count under any other fault makes the run **UNSAFE**.
            - **victim writes rejected**: victims whose write after the fault the ledger rejected (only
              where another worker took the key over meanwhile; a cut holder writes to the ledger,
              which is not behind the cut, before its lease runs out).
            - **onLost fired** (must be all): victims whose `onLost` listener fired for the lease the
              fault took (pause, net-cut, clock-skew: the fault outlasts twice the lease). A cut holder
              finishes its write (the ledger is not behind the cut) and closes its lease before the lease
              runs out, so no listener is left to fire: for net-cut a failed release counts too.
            - **takeover**: holder faults - from the fault to the next grant of the key to another
              worker that was already waiting for it before the victim's lease could have run out
              (count in brackets); must be at most the victim's lease + 1 s after a holder's death
              (pause, kill, net-cut, clock-skew). The victim's lease is the default one, or in the mixed
              workload the longest its hold asked for (an explicit or extended lease of twice the default;
              a shorter one does not lower the bound, as a server may keep a hold longer than asked -
              etcd keeps at least 2 s); the JSON lists it per takeover. Server faults - from the kill to the first grant of any key after
              the restart (the recovery, including the second the server is down); reported only.
            - **orphans** (must be 0): lock entries still on the server two leases plus one second after
              every worker ended: Redis `mortise:lock:*` keys; JDBC unexpired owned rows of
              `mortise_locks`; etcd keys under `mortise/locks/` (holders and waiters); ZooKeeper nodes
              under each key's node in `/mortise/locks` (holders and waiters).

            ## The faults

            - **pause**: SIGSTOP of a holder inside its critical section for twice the lease + 1 s, then
              SIGCONT (a stop-the-world GC pause).
            - **waiter-pause**: the same for a worker blocked in acquire for at least 200 ms: its session
              or lease dies while it waits; it must not be granted on the strength of it.
            - **kill**: kill -9 of a holder inside its critical section; a fresh worker replaces it.
            - **net-cut**: each worker reaches the lock server through its own TCP proxy
              (`ChaosProxy`); the holder's proxy closes every connection and refuses new ones, both
              directions, for twice the lease + 1 s.
            - **waiter-cut**: the same for a worker blocked in acquire.
            - **net-delay**: the holder's proxy holds every chunk, both directions, for 3/4 of the lease,
              for twice the lease + 1 s.
            - **clock-skew** (JDBC): worker JVMs run with wall clocks 5 s ahead, 5 s behind and exact
              (libfaketime, `FAKETIME=+5s`; it makes the monotonic clock read as the faked wall clock,
              which still advances at the real rate, so no interval changes), while holders are paused
              as in pause. The JDBC backend takes time from the database server, so skew must not
              matter. Event times are corrected back to the machine's clock.
            - **server-kill**: kill -9 of the lock server while a worker holds a lock, one second down,
              restart on the same port and data directory. Servers durable: Redis with AOF
              `appendfsync always`, PostgreSQL with fsync and synchronous commit on (ZooKeeper runs in
              the controller's JVM and is stopped and restarted instead of killed).
            - **server-kill-volatile** (Redis, JDBC): the same with the server not durable: Redis without
              persistence, PostgreSQL with fsync and synchronous commit off. A Redis restart then loses
              its `fence` counters. With the plain counter (`FencingTokens.COUNTER`) tokens start again at
              1 (**tokens reused**): fencing breaks, as docs/redis.md states ("Fencing tokens"); with the
              default server-clock tokens (`max(counter + 1, server time in µs)`, since this run's code
              if the date says so) they continue above every earlier token unless the server's clock was
              stepped back across the restart. This table shows what the run saw rather than hiding it.
            - **leader-kill** (etcd, ZooKeeper): kill -9 of the leader of a 3-member etcd cluster (found
              with `/v3/maintenance/status`), or shutdown of the leader of a 3-server ZooKeeper ensemble
              (curator-test, in the controller's JVM; found with `srvr`), restarted one second later.
            - **silent-partition**: the holder's proxy keeps every connection open and forwards no byte
              either way (new connections are accepted and not forwarded either) for twice the lease
              + 1 s, then heals as TCP recovers from a partition shorter than its retransmission
              timeout: the held bytes are delivered late, in order, on the same connections. Nothing
              is closed, so the client learns only by time. Rules: the holder is told (its `onLost`,
              or - as it is usually already releasing when the lease runs out, its release stuck in
              the silence - its failed release), takeover within the lease + 1 s, the cut worker is
              granted a lock again after the heal (otherwise **FAILED**), no orphan.
            - **release-kill**: from the holder's read on, its proxy holds the server's replies; once
              the worker logs `RELEASING` and the proxy has forwarded a request after it, the worker
              is killed (-9) with the release's reply in flight, and a fresh worker replaces it. Rule:
              no orphan beyond one lease (another waiter holds the key within the lease + 1 s; nothing
              left at the end). Over JDBC the held reply may be a new connection's handshake, so the
              release may not have been sent; the rule is the same.
            - **renew-stop**: from the holder's read on, its proxy holds the server's replies; the first
              request it forwards before the worker starts to release (a watchdog renewal, an etcd
              keep-alive, a ZooKeeper ping) is caught in its round trip: the worker is stopped
              (SIGSTOP), the reply is delivered into the stopped process, and it is continued after
              twice the lease + 1 s. The late "renewed" reply must not revive the lease: rules as
              pause. In this run the workers' critical section is one lease long (not the settings'),
              so every hold lives through watchdog renewals.
            - **server-clock-jump** (Redis, JDBC, etcd, ZooKeeper): the lock server's wall clock jumps
              while a worker holds a lock - one round 30 s forward and back half a pause later, the next
              30 s backward and forward again - and its monotonic clock does not, as with an NTP or
              operator step. Redis runs under an LD_PRELOAD shim (`clockjump.c`: libfaketime 0.9.10
              aborts a jemalloc redis-server at start-up), PostgreSQL under libfaketime, ZooKeeper under
              libfaketime in a server JVM of its own (not the controller's, as in its other runs), and a
              one-member etcd - a Go binary, which reads the clock through the vDSO without libc, out of
              reach of any preload - under a ptrace tracer (`clocktrace.c`): it hides the vDSO from etcd
              at exec, so Go reads the clock with system calls, and a seccomp filter hands the wall-clock
              ones to the tracer, which answers them; all re-read an offset file. A forward jump expires
              holds early on Redis and PostgreSQL - Redis key expiry and the JDBC backend's expiry are
              the server's wall clock - so another worker may be granted a key whose holder's lease is
              still valid by its own clock: **validity overlaps**, counted and marked UNSAFE with the
              verdict saying so, while fencing must still refuse every stale write (**stale accepted**
              0). Server-clock tokens (`max(counter + 1, server µs)`) stay increasing across the
              backward jump. ZooKeeper expires sessions on its monotonic clock (only znode times follow
              the wall clock), and etcd's lessor times leases on Go's monotonic clock reading, so both
              must show no overlap and no lost lease there.
            - **client-clock-jump**: every worker's wall clock jumps 3 minutes forward, then 3 minutes
              backward, then back, while a worker holds a lock (libfaketime with an offset file and
              `FAKETIME_DONT_FAKE_MONOTONIC=1`: `currentTimeMillis` and `Instant.now()` jump,
              `nanoTime` does not; events are timed on the monotonic clock). The core times leases on
              the monotonic clock, so nothing may change: no lease lost (otherwise **FAILED**), no
              validity overlap, no false grant, no stale write. The JSON's `wallSkewMs` is how far the
              workers' own clocks were off at their events (about 180000: the jump bit; a run where
              they never were 90 s off is **FAILED**).
            - **failover** (Redis): a master, one replica and one Sentinel (quorum 1, down after 1 s),
              no persistence; workers reach the master through the Sentinel. While a worker holds a
              lock the replica is paused for 1 s (it falls behind while the master goes on granting),
              the master is killed (-9), the replica continued and promoted, and the old master
              restarted as the new one's replica. Grants the replica never received are lost: a key
              can be granted again while its holder's lease is still valid (**validity overlaps**,
              UNSAFE, the verdict says so), but server-clock tokens must not repeat (**tokens
              reused** 0) and fencing must refuse every stale write. Takeover: from the pause to the
              first grant after the promotion.
            - **failover-wait** (Redis): the same with `waitForReplicas(1, 500 ms)`: a grant counts
              only once the replica acknowledged it, so the promoted replica knows every hold. The
              table "What `WAIT` costs" compares the two runs' acquire times.

            ## The soak

            `./scripts/chaos.sh --soak 30m` (not in CI; `./scripts/chaos.sh redis --soak 30m` for one
            backend; `--soak-sample 1m` sets the interval) runs each backend in turn for that long: the
            mixed workload (several keys held at once, explicit and extended leases, slow listeners) with
            3 worker JVMs through proxies and, every round, a fault drawn at random from pause,
            waiter-pause, kill, net-cut, waiter-cut, net-delay, server-kill, silent-partition,
            release-kill and renew-stop (the faults that need no server of their own). Each worker JVM
            logs, once a minute, its heap in use right after a full collection, its threads, its open
            file descriptors and, of those, its sockets (connections). It fails (exit 1) on any non-zero
            safety column, an orphan, or a leak: after two warm-up samples, the median of a worker's last
            third of samples above the median of its first third by more than the slack (heap +50 % and
            8 MiB; threads +20 % and 4; descriptors +20 % and 8; sockets +20 % and 4), judged for workers
            with at least six samples after the warm-up. The kills (kill, release-kill) never strike the
            first two workers, w0 and w1 - every other fault does - so their curves span the whole soak;
            the third slot's workers are killed and replaced. The curves are drawn to
            [reliability-soak.svg](reliability-soak.svg) next to this page (one line per worker JVM; a
            killed worker's line ends and its replacement's starts), with the figures in
            `lock-chaos/target/chaos/soak.json`. Two backends at a time halve the time: run
            `./scripts/chaos.sh redis etcd --soak 30m --out A --doc none` and the same for zookeeper jdbc
            with `--out B` side by side, then `./scripts/chaos.sh --soak-chart-from A/soak.json,B/soak.json`
            draws one picture of both. The published soak's `soak.json` files are kept in
            `lock-chaos/results/` (named after the date and the backends).
            """;
}
