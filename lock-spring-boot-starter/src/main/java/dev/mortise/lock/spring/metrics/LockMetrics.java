package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer metrics of Mortise locks.
 *
 * <ul>
 *   <li>{@value #ACQUIRE}: timer of {@code @DistributedLock} acquisitions, tagged
 *       {@value #TAG_BACKEND}, {@value #TAG_NAME} and {@value #TAG_OUTCOME}
 *       ({@code acquired}, {@code busy}, {@code timeout}, {@code error});</li>
 *   <li>{@value #HELD}: long-task timer of {@code @DistributedLock} holds, tagged backend and name;</li>
 *   <li>{@value #RENEWALS} and {@value #LOST}: counters of watchdog renewals and lost holds (the latter also
 *       tagged {@value #TAG_REASON})
 *       of every lock of the clients, tagged backend and name ({@value #PROGRAMMATIC} for
 *       locks taken through the {@code LockClient} API).</li>
 * </ul>
 *
 * The {@code name} tag is the annotation's name or key expression, never the evaluated
 * key, so the number of series stays bounded. Thread-safe; recording never throws into a
 * lock call (Micrometer does not throw, and the core ignores failing listeners).
 */
public final class LockMetrics implements LockObserver, LockListener {

    public static final String ACQUIRE = "mortise.lock.acquire";
    public static final String HELD = "mortise.lock.held";
    public static final String RENEWALS = "mortise.lock.renewals";
    public static final String LOST = "mortise.lock.lost";
    public static final String TAG_BACKEND = "backend";
    public static final String TAG_NAME = "name";
    /** Tag of {@value #LOST}: why the hold was lost ({@code expired}, {@code session_lost}, ...). */
    public static final String TAG_REASON = "reason";
    public static final String TAG_OUTCOME = "outcome";
    /** The {@code name} of locks not taken through {@code @DistributedLock}. */
    public static final String PROGRAMMATIC = "programmatic";

    private final MeterRegistry registry;
    /** Names of the annotated holds open now, by backend and key; bounded by what is held. */
    private final Map<String, String> namesOfHeldKeys = new ConcurrentHashMap<>();

    public LockMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Acquisition acquiring(LockOperation operation, String backend, String key) {
        long start = System.nanoTime();
        return new Acquisition() {
            @Override
            public void notAcquired(Outcome outcome, Throwable failure) {
                recordAcquire(operation, backend, outcome, System.nanoTime() - start);
            }

            @Override
            public Runnable acquired() {
                recordAcquire(operation, backend, Outcome.ACQUIRED, System.nanoTime() - start);
                return held(operation, backend, key);
            }
        };
    }

    private void recordAcquire(LockOperation operation, String backend, Outcome outcome, long nanos) {
        Timer.builder(ACQUIRE)
                .description("Time to acquire @DistributedLock locks, by outcome")
                .tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, operation.name())
                .tag(TAG_OUTCOME, outcome.tag())
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    private Runnable held(LockOperation operation, String backend, String key) {
        LongTaskTimer.Sample sample = LongTaskTimer.builder(HELD)
                .description("@DistributedLock locks held now, and for how long")
                .tag(TAG_BACKEND, backend)
                .tag(TAG_NAME, operation.name())
                .register(registry)
                .start();
        String heldKey = backend + '\u0000' + key;
        boolean outermost = namesOfHeldKeys.putIfAbsent(heldKey, operation.name()) == null;
        return () -> {
            sample.stop();
            if (outermost) {
                namesOfHeldKeys.remove(heldKey, operation.name());
            }
        };
    }

    @Override
    public void onEvent(LockEvent event) {
        if (event.type() == LockEvent.Type.RENEWED) {
            counter(RENEWALS, "Watchdog renewals of held locks", event).register(registry).increment();
        } else if (event.type() == LockEvent.Type.LOST) {
            String reason = event.lostReason() == null ? "unknown" : event.lostReason().name().toLowerCase(Locale.ROOT);
            counter(LOST, "Locks lost while held", event).tag(TAG_REASON, reason).register(registry).increment();
        }
    }

    private Counter.Builder counter(String name, String description, LockEvent event) {
        String lockName = namesOfHeldKeys.getOrDefault(event.backend() + '\u0000' + event.key(), PROGRAMMATIC);
        return Counter.builder(name)
                .description(description)
                .tag(TAG_BACKEND, event.backend())
                .tag(TAG_NAME, lockName);
    }
}
