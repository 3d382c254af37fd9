package dev.mortise.lock.internal.deadlock;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.DeadlockReport;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A client's deadlock detection: watches its waits, publishes those that outlast the threshold while
 * their owner holds other locks of the client, runs a round per published wait every period (refresh
 * the record, {@link CycleSearch find} a cycle, confirm it) and stops a wait that is a confirmed
 * cycle's victim. Thread-safe. Its threads (two daemons) start with the first watched wait.
 *
 * <p>A record is removed before the wait's acquire returns; if the removal fails (the server is away)
 * the acquire returns only once the record's TTL has passed since its last publish was answered, so
 * a record on the server always means its owner is still blocked in that acquire.
 */
public final class DeadlockDetector {

    private static final Logger log = LoggerFactory.getLogger(DeadlockDetector.class);
    private static final int RECENT = 16;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final LockBackend backend;
    private final UnaryOperator<String> holderIds;
    private final String backendName;
    private final DeadlockDetection settings;
    private final WaitRecords records;
    private final Set<WaitWatch> watches = ConcurrentHashMap.newKeySet();
    private final Deque<DeadlockCycle> recent = new ArrayDeque<>(); // guarded by itself
    private final AtomicLong found = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final ThreadLocal<WaitWatch> onThread = new ThreadLocal<>();
    private ScheduledThreadPoolExecutor scheduler; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param holderIds the holder-id digest of owner strings, as {@link dev.mortise.lock.LockLease#holderId()}
     *                  and inspection show them
     */
    public DeadlockDetector(LockBackend backend, DeadlockDetection settings, UnaryOperator<String> holderIds) {
        this.holderIds = holderIds;
        this.backend = backend;
        this.backendName = backend.name();
        this.records = settings.enabled() ? backend.waitRecords().orElse(null) : null;
        this.settings = records != null ? settings : DeadlockDetection.off();
    }

    /** Whether waits are watched at all (on, and the backend keeps wait records). */
    public boolean active() {
        return records != null;
    }

    /**
     * Starts watching a wait of the calling thread for {@code key}; a confirmed cycle ends it by
     * interrupting the thread. {@code holds} (holder id → key of the holds its owner has) is asked
     * once, when the wait outlasts the threshold; an owner that holds nothing is not published.
     *
     * @return the watch to {@link #end} when the acquire is over, or null when detection is off
     */
    public WaitWatch watchThisThread(String key, LockMode mode, Supplier<Map<String, String>> holds) {
        Thread thread = Thread.currentThread();
        WaitWatch watch = watch(key, mode, holds, thread::interrupt);
        if (watch != null) {
            onThread.set(watch);
        }
        return watch;
    }

    /** As {@link #watchThisThread}, for a wait that {@code stop} ends (an asynchronous one). */
    public WaitWatch watch(String key, LockMode mode, Supplier<Map<String, String>> holds, Runnable stop) {
        if (records == null) {
            return null;
        }
        ScheduledThreadPoolExecutor rounds = scheduler();
        if (rounds == null) {
            return null;
        }
        WaitWatch watch = new WaitWatch(key, mode, holds, stop, holderIds);
        watches.add(watch);
        watch.rounds = rounds.scheduleWithFixedDelay(() -> round(watch), settings.threshold().toNanos(),
                settings.period().toNanos(), TimeUnit.NANOSECONDS);
        return watch;
    }

    /** Whether the calling thread's watched wait was stopped as a deadlock's victim (and has not ended). */
    public boolean stoppedOnThisThread() {
        WaitWatch watch = onThread.get();
        return watch != null && watch.stoppedBy() != null;
    }

    /**
     * Ends watching: no round runs for it any more, its record is off the server (or its TTL has
     * passed), and a thread interrupted by a round has its interrupt cleared.
     *
     * @return the exception the wait was stopped with, or null if no round stopped it
     */
    public LockDeadlockException end(WaitWatch watch) {
        LockDeadlockException victim = watch.finish();
        if (onThread.get() == watch) {
            onThread.remove();
            if (victim != null) {
                Thread.interrupted(); // ours, delivered inside stopAsVictim before finish() saw VICTIM
            }
        }
        watch.rounds.cancel(false);
        watches.remove(watch);
        synchronized (watch.publishing) { // a publish in flight lands before the removal
            if (watch.sentAtNanos != 0) { // sent, answered or not: it may be on the server
                removeRecord(watch);
            }
        }
        return victim;
    }

    private void removeRecord(WaitWatch watch) {
        try {
            records.remove(watch.entries(), watch.record.nonce());
        } catch (RuntimeException e) {
            // The record may stay until its TTL: wait that out, so a record on the server always
            // means its owner is blocked in the acquire (no cycle is ever confirmed through us after).
            // Counted from the last send, answered or not (its request may have been applied all the same).
            Duration ttl = watch.appliedTtl.isZero() ? settings.period().multipliedBy(3) : watch.appliedTtl;
            long until = Math.max(watch.sentAtNanos, watch.publishedAtNanos) + ttl.toNanos() + ttl.toNanos() / 10;
            log.warn("Removing the wait record of lock '{}' on backend '{}' failed ({}); the acquire returns once "
                    + "its TTL has passed", watch.key(), backendName, e.toString());
            long left;
            while ((left = until - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
        }
    }

    private void round(WaitWatch watch) {
        try {
            synchronized (watch.publishing) {
                if (!watch.waiting()) {
                    return;
                }
                if (!watch.resolve()) {
                    watch.rounds.cancel(false); // a reader holding nothing: in no cycle, holds no one back
                    return;
                }
                if (!watch.searches() && !readersHold(watch)) {
                    return; // a writer holding nothing matters only to readers queued behind it
                }
                publish(watch);
            }
            if (!watch.searches()) {
                return;
            }
            CycleSearch search = new CycleSearch(backend, records, holderIds);
            List<CycleSearch.Edge> chain = search.find(watch);
            boolean real = chain != null && watch.waiting() && search.confirm(chain);
            requests.addAndGet(search.requests());
            if (real) {
                breakCycle(watch, chain);
            }
        } catch (RuntimeException e) {
            log.debug("A deadlock detection round for lock '{}' on backend '{}' failed", watch.key(), backendName, e);
        }
    }

    /**
     * Whether readers hold the key an exclusive wait whose owner holds nothing waits for: only then can
     * a reader be queued behind it (no writer starvation), so only then is its record written, and a
     * plain contended mutex or a standby leader costs one read a period, never a write.
     */
    private boolean readersHold(WaitWatch watch) {
        requests.incrementAndGet();
        return backend.inspect(watch.key()).mode() == LockMode.SHARED;
    }

    private void publish(WaitWatch watch) {
        Duration ttl = settings.period().multipliedBy(3);
        watch.sentAtNanos = System.nanoTime();
        Duration applied = records.publish(watch.entries(), watch.record.nonce(), watch.record.encode(), ttl);
        watch.appliedTtl = applied.compareTo(ttl) > 0 ? applied : ttl;
        watch.publishedAtNanos = System.nanoTime();
        requests.incrementAndGet();
    }

    private void breakCycle(WaitWatch watch, List<CycleSearch.Edge> chain) {
        DeadlockCycle cycle = CycleMembers.of(watch, chain, backendName, Instant.now());
        if (!cycle.members().get(0).victim()) {
            return; // another member is the youngest: its own round ends its wait
        }
        LockDeadlockException exception = new LockDeadlockException(watch.key(), backendName, cycle);
        if (watch.stopAsVictim(exception)) {
            found.incrementAndGet();
            synchronized (recent) {
                recent.addLast(cycle);
                while (recent.size() > RECENT) {
                    recent.removeFirst();
                }
            }
        }
    }

    /** What the actuator and {@link dev.mortise.lock.LockClient#deadlocks()} show. */
    public DeadlockReport report() {
        List<DeadlockReport.LongWait> waits = new ArrayList<>();
        long now = System.nanoTime();
        for (WaitWatch watch : watches) {
            if (watch.publishedAtNanos != 0 && watch.waiting()) {
                waits.add(new DeadlockReport.LongWait(watch.key(), watch.mode(),
                        Duration.ofNanos(now - watch.startNanos), watch.holderIds()));
            }
        }
        synchronized (recent) {
            return new DeadlockReport(settings, waits, new ArrayList<>(recent), found.get());
        }
    }

    /** Requests detection rounds have sent (publishes, inspections, record reads): for benchmarks. */
    public long requestsSent() {
        return requests.get();
    }

    private synchronized ScheduledThreadPoolExecutor scheduler() {
        if (closed) {
            return null;
        }
        if (scheduler == null) {
            scheduler = new ScheduledThreadPoolExecutor(2, r -> {
                Thread thread = new Thread(r, "mortise-deadlocks-" + backendName + "-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            scheduler.setRemoveOnCancelPolicy(true);
        }
        return scheduler;
    }

    /** Stops the rounds; waits under way end through their acquires as the client closes them. */
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
