package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.AsyncWaits;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * Wraps a real {@link LockBackend} and makes chosen calls go wrong the way a network does,
 * so tests can see what the core makes of it. Each call to {@link Operation one of the five
 * server operations} first consults the scripted faults (see {@link #script}), then the
 * {@link #plan(BiFunction) plan}; the first answer decides:
 *
 * <ul>
 *   <li>{@link Fault#FAIL}: throws {@link LockBackendException} <em>without</em> calling the
 *       server (the request never left);</li>
 *   <li>{@link Fault#DELAY}: calls the server, then sleeps before returning its answer (a slow
 *       reply; the server applied the request at the start);</li>
 *   <li>{@link Fault#DROP_REPLY}: calls the server, then throws {@link LockBackendException} as
 *       if the reply was lost: the server applied the request, the caller does not know it.</li>
 * </ul>
 *
 * {@code acquireAsync} is faulted as {@code ACQUIRE} (the same three faults, on its answer).
 * Everything else ({@code validity}, {@code linger},
 * {@code inspect}, {@code addGrantListener}, {@code guarantees}, {@code ping}, {@code close}, and
 * any SPI method added later) is forwarded unchanged by {@link ForwardingLockBackend}, so the core
 * sees the real backend's bounds. Thread-safe. Counts of what was
 * injected are kept for reports ({@link #injected}).
 *
 * <p>A fault-injected exception's message starts with {@value #MARK} and the fault's name
 * ({@code "[injected fault] DROP_REPLY of RENEW on backend 'redis' ..."}), so a test can tell
 * an injected failure from a real one, and which it was.
 */
public final class FaultInjectingBackend extends ForwardingLockBackend {

    /** Prefix of every injected exception's message. */
    public static final String MARK = "[injected fault]";

    /** The server operations faults can be injected into. */
    public enum Operation { TRY_ACQUIRE, ACQUIRE, RENEW, RENEW_ALL, RELEASE }

    // tryAcquireAll is not an operation of its own: it is TRY_ACQUIREs sent together, so each of its
    // requests consults the faults of TRY_ACQUIRE (see tryAcquireAll) and existing scripts and plans apply.

    /** What goes wrong with one call. */
    public enum Fault { FAIL, DELAY, DROP_REPLY }

    /**
     * One decision: a fault and, for {@link Fault#DELAY}, how long the reply is held back.
     *
     * @param fault what goes wrong
     * @param delay how long a delayed reply waits (ignored for the other faults)
     */
    public record Injection(Fault fault, Duration delay) {
        public Injection {
            Objects.requireNonNull(fault, "fault");
            delay = delay == null ? Duration.ZERO : delay;
        }

        public static Injection fail() {
            return new Injection(Fault.FAIL, Duration.ZERO);
        }

        public static Injection dropReply() {
            return new Injection(Fault.DROP_REPLY, Duration.ZERO);
        }

        public static Injection delay(Duration delay) {
            return new Injection(Fault.DELAY, delay);
        }
    }

    private record Scripted(Operation operation, Injection injection) {
    }

    private final ConcurrentLinkedQueue<Scripted> script = new ConcurrentLinkedQueue<>();
    private volatile BiFunction<Operation, String, Injection> plan = (operation, key) -> null;
    private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);

    public FaultInjectingBackend(LockBackend delegate) {
        super(Objects.requireNonNull(delegate, "delegate"));
        for (Fault fault : Fault.values()) {
            injected.put(fault, new AtomicLong());
        }
    }

    /**
     * Makes the next {@code times} calls of {@code operation} (after any faults scripted
     * before) go wrong as {@code injection} says.
     *
     * @return this backend
     */
    public FaultInjectingBackend script(Operation operation, Injection injection, int times) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(injection, "injection");
        for (int i = 0; i < times; i++) {
            script.add(new Scripted(operation, injection));
        }
        return this;
    }

    /**
     * Sets the plan asked for every call with no scripted fault: given the operation and
     * the key (the first key for {@code renewAll}, {@code null} if there is none), it returns
     * the injection, or {@code null} to let the call through. Replaces the earlier plan.
     *
     * @return this backend
     */
    public FaultInjectingBackend plan(BiFunction<Operation, String, Injection> plan) {
        this.plan = Objects.requireNonNull(plan, "plan");
        return this;
    }

    /** Drops every scripted fault and the plan: calls go through again. */
    public void heal() {
        script.clear();
        plan = (operation, key) -> null;
    }

    /** How many calls had {@code fault} injected so far. */
    public long injected(Fault fault) {
        return injected.get(fault).get();
    }

    private Injection decide(Operation operation, String key) {
        for (Scripted scripted : script) {
            if (scripted.operation() == operation && script.remove(scripted)) {
                return scripted.injection();
            }
        }
        return plan.apply(operation, key);
    }

    /** Runs {@code call} with the fault chosen for it, if any. */
    private <T> T inject(Operation operation, String key, ServerCall<T> call) throws InterruptedException {
        return inject(operation, key, call, decide(operation, key));
    }

    /** Runs {@code call} with {@code injection} (null: none). A null answer (a batch not sent) is never faulted but by FAIL. */
    private <T> T inject(Operation operation, String key, ServerCall<T> call, Injection injection)
            throws InterruptedException {
        if (injection == null) {
            return call.run();
        }
        injected.get(injection.fault()).incrementAndGet();
        switch (injection.fault()) {
            case FAIL -> throw failure(Fault.FAIL, operation, key, "the request was not sent");
            case DROP_REPLY -> {
                if (call.run() == null) {
                    return null;
                }
                throw failure(Fault.DROP_REPLY, operation, key, "the server applied the request but its reply was lost");
            }
            case DELAY -> {
                T result = call.run();
                if (result == null) {
                    return null;
                }
                sleepUninterruptibly(injection.delay());
                return result;
            }
            default -> throw new IllegalStateException("unknown fault " + injection.fault());
        }
    }

    private LockBackendException failure(Fault fault, Operation operation, String key, String what) {
        return new LockBackendException(MARK + " " + fault + " of " + operation + " on backend '" + delegate().name() + "'"
                + (key == null ? "" : " for lock '" + key + "'") + ": " + what
                + " (FaultInjectingBackend; expected in fault tests)", key, delegate().name(), null);
    }

    /** A delayed reply is a slow network, not a wait the caller can interrupt: keep the flag for later. */
    private static void sleepUninterruptibly(Duration delay) {
        long deadline = System.nanoTime() + delay.toNanos();
        boolean interrupted = false;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @FunctionalInterface
    private interface ServerCall<T> {
        T run() throws InterruptedException;
    }

    private <T> T injectNoInterrupt(Operation operation, String key, ServerCall<T> call) {
        try {
            return inject(operation, key, call);
        } catch (InterruptedException e) {
            // only acquire() can be interrupted, and it does not come here
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---- the injected operations --------------------------------------------------------

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return injectNoInterrupt(Operation.TRY_ACQUIRE, request.key(), () -> delegate().tryAcquire(request));
    }

    /**
     * Faults are decided per request, as for {@link Operation#TRY_ACQUIRE} (scripted faults are consumed
     * and the plan asked once per request, in request order), and the first one decided applies to the
     * whole batch: {@link Fault#FAIL} sends nothing and throws (whether or not the delegate batches
     * natively), {@link Fault#DROP_REPLY} lets the delegate take the keys and then loses the reply (as for
     * {@link #tryAcquire}, what it took is not cleaned up here: the core's handling of a failed attempt is
     * what is tested), {@link Fault#DELAY} holds the reply back. A delegate that answers {@code null} (no
     * native batch: nothing was sent) is passed through without a DROP_REPLY or DELAY.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        Injection first = null;
        String faulty = null;
        for (LockRequest request : requests) {
            Injection injection = decide(Operation.TRY_ACQUIRE, request.key());
            if (injection != null && first == null) {
                first = injection;
                faulty = request.key();
            }
        }
        try {
            return inject(Operation.TRY_ACQUIRE, faulty, () -> delegate().tryAcquireAll(requests), first);
        } catch (InterruptedException e) {
            // tryAcquireAll never waits for a lock: nothing here is interruptible
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return inject(Operation.ACQUIRE, request.key(), () -> delegate().acquire(request, wait));
    }

    /**
     * Faulted as an {@link Operation#ACQUIRE}, so the asynchronous path meets the faults the blocking
     * one does: {@link Fault#FAIL} sends nothing and fails the answer; {@link Fault#DROP_REPLY} lets
     * the delegate's wait run and then fails the answer instead of giving its grant (left on the
     * server, as for {@link #acquire}); {@link Fault#DELAY} holds the delegate's answer back (on
     * {@link AsyncWaits#scheduler()}, no thread held). Cancelling the answer cancels the delegate's
     * wait; a grant the delegate gave that no one takes any more (cancelled while it was held back) is
     * released.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        Injection injection = decide(Operation.ACQUIRE, request.key());
        if (injection == null) {
            return delegate().acquireAsync(request, wait);
        }
        injected.get(injection.fault()).incrementAndGet();
        CompletableFuture<Optional<Grant>> answer = new CompletableFuture<>();
        if (injection.fault() == Fault.FAIL) {
            AsyncWaits.executor().execute(() -> answer.completeExceptionally(
                    failure(Fault.FAIL, Operation.ACQUIRE, request.key(), "the request was not sent")));
            return answer;
        }
        CompletableFuture<Optional<Grant>> asked = delegate().acquireAsync(request, wait);
        answer.whenComplete((grant, failure) -> asked.cancel(false));
        asked.whenComplete((grant, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else if (injection.fault() == Fault.DROP_REPLY) {
                answer.completeExceptionally(failure(Fault.DROP_REPLY, Operation.ACQUIRE, request.key(),
                        "the server applied the request but its reply was lost"));
            } else {
                AsyncWaits.scheduler().schedule(() -> AsyncWaits.executor().execute(() -> {
                    if (!answer.complete(grant) && grant.isPresent()) {
                        releaseQuietly(grant.get());
                    }
                }), injection.delay().toNanos(), TimeUnit.NANOSECONDS);
            }
        });
        return answer;
    }

    private void releaseQuietly(Grant grant) {
        try {
            delegate().release(grant);
        } catch (RuntimeException ignored) {
            // it ends with its lease
        }
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return injectNoInterrupt(Operation.RENEW, grant.key(), () -> delegate().renew(grant, lease));
    }

    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        String first = grants.isEmpty() ? null : grants.iterator().next().key();
        return injectNoInterrupt(Operation.RENEW_ALL, first, () -> delegate().renewAll(grants, lease));
    }

    /**
     * Faulted as a {@link Operation#RENEW} (a linger is a renewal that is never followed by another),
     * then the delegate's own {@code linger}, which for a session-bound backend is not its renew.
     */
    @Override
    public boolean linger(Grant grant, Duration linger) {
        return injectNoInterrupt(Operation.RENEW, grant.key(), () -> delegate().linger(grant, linger));
    }

    @Override
    public boolean release(Grant grant) {
        return injectNoInterrupt(Operation.RELEASE, grant.key(), () -> delegate().release(grant));
    }

    @Override
    public String toString() {
        return "FaultInjecting[" + delegate() + "]";
    }
}
