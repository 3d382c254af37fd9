package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.internal.AcquiringName;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer metrics of Mortise locks: a {@link LockListener} registered on every
 * auto-configured lock client when it is built, so locks taken through an injected
 * {@code LockClient} are measured exactly as {@code @DistributedLock} ones are.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Name</th><th>Type</th><th>Tags</th><th>Recorded</th></tr>
 *   <tr><td>{@value #ACQUIRE}</td><td>timer</td><td>backend, name, mode, outcome</td>
 *       <td>each acquire (nested ones too): {@code acquired}, {@code busy} (a try found it held),
 *       {@code timeout} (a wait ran out); {@code error} (the acquire failed: the backend, an
 *       interrupt, a closed client), for {@code @DistributedLock} and injected-client acquires
 *       alike, once per call</td></tr>
 *   <tr><td>{@value #HELD}</td><td>long-task timer</td><td>backend, name, mode</td>
 *       <td>from the grant until the hold ends (released, left to expire, or lost)</td></tr>
 *   <tr><td>{@value #RENEWALS}</td><td>counter</td><td>backend, name, mode</td><td>each watchdog renewal</td></tr>
 *   <tr><td>{@value #LOST}</td><td>counter</td><td>backend, name, mode, reason</td><td>each hold lost while open</td></tr>
 *   <tr><td>{@value #DEADLOCKS}</td><td>counter</td><td>backend, name, mode</td><td>each wait ended
 *       as the victim of a deadlock ({@link LockEvent.Type#DEADLOCK}; that acquire is also an
 *       {@code error} of {@value #ACQUIRE})</td></tr>
 *   <tr><td>{@value #FENCE_REJECTED}</td><td>counter</td><td>backend, name</td><td>each write the
 *       auto-configured fence guard refused (a stale fencing token)</td></tr>
 * </table>
 *
 * The {@code name} tag is the annotation's name (or key expression) for
 * {@code @DistributedLock} locks and {@value #PROGRAMMATIC} for the others — never the
 * evaluated key, so the number of series stays bounded. The {@code mode} tag is {@code read} or
 * {@code write}: the mode of the hold ({@link LockEvent#mode()}; for a request not granted, the
 * mode asked for), for annotated and programmatic locks alike. A shared request that nests in
 * its owner's exclusive hold shares that hold and is tagged {@code write}. A multi-key lock is
 * measured per key (each part is a hold of its own), with the annotation's name and each part's
 * mode. {@link #register(String)} creates a backend's meters when its client is built, so they
 * exist before the first lock ({@value #LOST} with every reason, and {@value #DEADLOCKS}), at zero.
 * Thread-safe; recording never throws into a lock call.
 */
public final class LockMetrics implements LockListener {

    public static final String ACQUIRE = "mortise.lock.acquire";
    public static final String HELD = "mortise.lock.held";
    public static final String RENEWALS = "mortise.lock.renewals";
    public static final String LOST = "mortise.lock.lost";
    public static final String FENCE_REJECTED = "mortise.lock.fence.rejected";
    /** Counter of waits ended as a deadlock's victim ({@code LockDeadlockException}). */
    public static final String DEADLOCKS = "mortise.lock.deadlocks";
    public static final String TAG_BACKEND = "backend";
    public static final String TAG_NAME = "name";
    /** Tag of {@value #LOST}: why the hold was lost ({@code expired}, {@code session_lost}, ...). */
    public static final String TAG_REASON = "reason";
    public static final String TAG_OUTCOME = "outcome";
    /** Tag of every meter but {@value #FENCE_REJECTED}: {@code read} (shared) or {@code write} (exclusive). */
    public static final String TAG_MODE = "mode";
    private static final String WRITE = LockAccess.WRITE.tag();
    /** The {@code name} of locks not taken through {@code @DistributedLock}. */
    public static final String PROGRAMMATIC = "programmatic";

    private final MeterRegistry registry;
    /** The open holds: name and held-timer sample by backend, key and token; bounded by what is held. */
    private final Map<String, Open> open = new ConcurrentHashMap<>();

    private record Open(String name, LongTaskTimer.Sample sample) {
    }

    public LockMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Creates the meters of {@code backend} for programmatic locks, so they exist from start-up. */
    public void register(String backend) {
        for (String outcome : new String[] {"acquired", "busy", "timeout", "error"}) {
            acquireTimer(backend, PROGRAMMATIC, WRITE, outcome);
        }
        heldTimer(backend, PROGRAMMATIC, WRITE);
        Counter.builder(RENEWALS).description(RENEWALS_DESCRIPTION).tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, PROGRAMMATIC).tag(TAG_MODE, WRITE).register(registry);
        // One series per reason, so an alert on any reason (or on their sum) sees 0, not "no data".
        for (LostReason reason : LostReason.values()) {
            lostCounter(backend, PROGRAMMATIC, WRITE, reason.name().toLowerCase(Locale.ROOT));
        }
        deadlockCounter(backend, PROGRAMMATIC, WRITE);
    }

    /**
     * Records a {@code @DistributedLock} acquire that failed. The starter calls it for annotated
     * calls (also for failures before the client's acquire, and once for a multi-key call); the
     * client's own ERROR events of those acquires are then not counted again.
     */
    public void acquireFailed(String backend, String name, long nanos) {
        acquireFailed(backend, name, LockAccess.WRITE, nanos);
    }

    /** As {@link #acquireFailed(String, String, long)} for an acquire in {@code mode}. */
    public void acquireFailed(String backend, String name, LockAccess mode, long nanos) {
        acquireTimer(backend, name, mode.tag(), "error").record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts a write the fence guard refused ({@value #FENCE_REJECTED}). */
    public void fenceRejected(String backend, String name) {
        Counter.builder(FENCE_REJECTED).description("Writes refused by the fence guard: stale fencing tokens")
                .tag(TAG_BACKEND, backend).tag(TAG_NAME, name).register(registry).increment();
    }

    @Override
    public void onEvent(LockEvent event) {
        switch (event.type()) {
            case ACQUIRED -> acquired(event);
            case BUSY -> acquireTimer(event.backend(), acquiringName(event), mode(event), "busy")
                    .record(event.duration());
            case TIMEOUT -> acquireTimer(event.backend(), acquiringName(event), mode(event), "timeout")
                    .record(event.duration());
            case ERROR -> {
                if (isApiAcquireFailure(event)) {
                    acquireTimer(event.backend(), PROGRAMMATIC, mode(event), "error").record(event.duration());
                }
            }
            case DEADLOCK -> deadlock(event);
            case RELEASED -> ended(event);
            case RENEWED -> {
                Open hold = open.get(holdKey(event));
                Counter.builder(RENEWALS).description(RENEWALS_DESCRIPTION).tag(TAG_BACKEND, event.backend())
                        .tag(TAG_NAME, hold == null ? PROGRAMMATIC : hold.name())
                        .tag(TAG_MODE, mode(event)).register(registry).increment();
            }
            case LOST -> {
                String reason = event.lostReason() == null ? "unknown"
                        : event.lostReason().name().toLowerCase(Locale.ROOT);
                Open hold = open.get(holdKey(event));
                lostCounter(event.backend(), hold == null ? PROGRAMMATIC : hold.name(), mode(event), reason)
                        .increment();
                ended(event);
            }
        }
    }

    private static final String RENEWALS_DESCRIPTION = "Watchdog renewals of held locks";

    private void acquired(LockEvent event) {
        String name = acquiringName(event);
        String mode = mode(event);
        acquireTimer(event.backend(), name, mode, "acquired").record(event.duration());
        // A nested lease shares the hold (same token): one held sample per hold.
        open.computeIfAbsent(holdKey(event), k -> new Open(name, heldTimer(event.backend(), name, mode).start()));
    }

    /**
     * A wait ended as a deadlock's victim: counted, and as a failed acquire when it was programmatic
     * (an annotated call's failure is recorded by the starter, {@link #acquireFailed}); the core tells
     * it as DEADLOCK, not also as ERROR.
     */
    private void deadlock(LockEvent event) {
        String annotated = AcquiringName.of(event.backend(), event.key());
        deadlockCounter(event.backend(), annotated == null ? PROGRAMMATIC : annotated, mode(event)).increment();
        if (annotated == null) {
            acquireTimer(event.backend(), PROGRAMMATIC, mode(event), "error").record(event.duration());
        }
    }

    private void ended(LockEvent event) {
        Open hold = open.remove(holdKey(event));
        if (hold != null) {
            hold.sample().stop();
        }
    }

    /**
     * An acquire through the client's API that failed: not a renewal or release failure, not
     * the exception of a wait that ran out (its TIMEOUT event counted it), and not inside an
     * annotated call's acquire (the starter records those itself, see {@link #acquireFailed}).
     */
    private static boolean isApiAcquireFailure(LockEvent event) {
        return event.operation() == LockEvent.Operation.ACQUIRE && !(event.cause() instanceof LockTimeoutException)
                && AcquiringName.of(event.backend(), event.key()) == null;
    }

    private static String acquiringName(LockEvent event) {
        String name = AcquiringName.of(event.backend(), event.key());
        return name == null ? PROGRAMMATIC : name;
    }

    /** {@code read} or {@code write}: the event's hold's mode (or the mode asked for). */
    private static String mode(LockEvent event) {
        return LockAccess.of(event.mode()).tag();
    }

    private static String holdKey(LockEvent event) {
        return event.backend() + '\u0000' + event.key() + '\u0000' + event.fencingToken();
    }

    private Timer acquireTimer(String backend, String name, String mode, String outcome) {
        return Timer.builder(ACQUIRE)
                .description("Time to acquire locks, by outcome")
                .tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, name)
                .tag(TAG_MODE, mode)
                .tag(TAG_OUTCOME, outcome)
                .register(registry);
    }

    private Counter lostCounter(String backend, String name, String mode, String reason) {
        return Counter.builder(LOST).description("Locks lost while held").tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, name).tag(TAG_MODE, mode).tag(TAG_REASON, reason).register(registry);
    }

    private Counter deadlockCounter(String backend, String name, String mode) {
        return Counter.builder(DEADLOCKS).description("Lock waits ended as the victim of a deadlock")
                .tag(TAG_BACKEND, backend).tag(TAG_NAME, name).tag(TAG_MODE, mode).register(registry);
    }

    private LongTaskTimer heldTimer(String backend, String name, String mode) {
        return LongTaskTimer.builder(HELD)
                .description("Locks held now, and for how long")
                .tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, name)
                .tag(TAG_MODE, mode)
                .register(registry);
    }
}
