package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.OnLost;
import dev.mortise.lock.spring.ReactiveLockContext;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Locks methods returning Reactor's {@link Mono} or {@link Flux}, and Kotlin {@code suspend}
 * methods (Spring's AOP hands their invocation over as a {@code Mono}, or a {@code Flux} for a
 * {@code Flow}). Each subscription acquires anew, on {@code LockClient.acquireAsync}
 * ({@link PendingAcquire}): no thread waits for the lock, and the lease never shows in
 * {@link dev.mortise.lock.LockContext} of an application thread. Once granted, the method is
 * invoked on the bounded-elastic scheduler (never on Mortise's shared threads, which answer the
 * acquire) — all its work, assembly included, runs under the lock — and the lock is released on
 * complete or error (a loss while it ran becomes the {@code LockLostException} error).
 *
 * <p><b>Cancellation</b> at any point releases the lock: before the acquire (nothing is
 * taken), while it waits (the request is withdrawn from the client's queue or the server; a
 * grant already on its way is released when it arrives), between the grant and the method, and while the method's publisher
 * runs. {@link AsyncHold} makes these races release exactly once. The method and its
 * publisher are started only while the hold is still on: a cancellation that lands while the
 * method assembles its publisher, or between the grant and the method, keeps the publisher
 * from being subscribed (Reactor would otherwise subscribe it, then cancel it at once — and
 * work a publisher starts on subscription would run without the lock).
 *
 * <p><b>The Reactor Context</b> of the method's publisher carries the leases of the
 * locked calls it runs in ({@link ReactiveLockContext}) and the chain's owner id: a nested
 * locked call on the same key within the chain re-enters ({@code LockSpec.owner}), while
 * separate subscriptions stay separate owners.
 *
 * <p>SKIP yields an empty publisher; failures to acquire are signalled as errors.
 * {@link OnLost#CANCEL} and {@link OnLost#INTERRUPT} end the result with
 * {@code LockLostException} at the loss, cancelling the method's publisher.
 */
public final class ReactorHandler implements ReturnTypeHandler {

    /** The Reactor Context key of the owner id of the locked calls of one chain. */
    static final String OWNER = ReactorHandler.class.getName() + ".owner";

    @Override
    public boolean supports(Class<?> returnType) {
        return returnType == Mono.class || returnType == Flux.class;
    }

    @Override
    public Object handle(LockedCall call) {
        boolean mono = call.returnType() == Mono.class;
        // Nested in a synchronous locked call on this thread: re-enter only a hold of an explicit owner.
        String outerOwner = call.owner(true);
        if (mono) {
            return Mono.deferContextual(context -> {
                AsyncHold hold = new AsyncHold(call);
                String owner = owner(context, outerOwner);
                return acquire(call, hold, owner)
                        .flatMap(held -> Mono.from(whileHeld(call, hold, held))
                                .onErrorResume(error -> releaseAfter(hold, error))
                                .flatMap(value -> Mono.fromRunnable(hold::release).thenReturn(value))
                                .switchIfEmpty(Mono.fromRunnable(hold::release))
                                .contextWrite(inner -> withLease(inner, owner, held)))
                        .doFinally(signal -> hold.cancel())
                        // Outermost, so the call counts as ended before the cancel travels upstream
                        // and interrupts the method: a method that returns at the interrupt must find
                        // it ended, or its publisher would be subscribed after the cancel.
                        .doOnCancel(hold::cancelRequested);
            });
        }
        return Flux.deferContextual(context -> {
            AsyncHold hold = new AsyncHold(call);
            String owner = owner(context, outerOwner);
            return acquire(call, hold, owner)
                    .flatMapMany(held -> Flux.from(whileHeld(call, hold, held))
                            .onErrorResume(error -> releaseAfter(hold, error))
                            .concatWith(Mono.fromRunnable(hold::release))
                            .contextWrite(inner -> withLease(inner, owner, held)))
                    .doFinally(signal -> hold.cancel())
                    .doOnCancel(hold::cancelRequested); // outermost: ended before the method is interrupted
        });
    }

    /** Releases after the method's publisher failed; a loss wins over the failure, which is suppressed into it. */
    private static <T> Mono<T> releaseAfter(AsyncHold hold, Throwable error) {
        return Mono.<T>fromRunnable(() -> hold.releaseAfterFailure(error)).then(Mono.error(error));
    }

    /** The chain's owner if an enclosing locked call set one, else an outer synchronous call's, else a new one. */
    private static String owner(ContextView context, String outerOwner) {
        Optional<String> chain = context.getOrEmpty(OWNER);
        return chain.orElseGet(() -> outerOwner != null ? outerOwner : LockedCall.newOwner());
    }

    private static Context withLease(Context context, String owner, LockedCall.Held held) {
        List<LockLease> leases = new ArrayList<>(ReactiveLockContext.leases(context));
        leases.addAll(LockedCall.leases(held)); // a multi-key lock: each part, with its own token
        return context.put(OWNER, owner).put(ReactiveLockContext.CONTEXT_KEY, List.copyOf(leases));
    }

    /**
     * Acquires on {@code LockClient.acquireAsync}, no thread waiting; completes empty for SKIP.
     * Cancelling the returned Mono withdraws the request and makes a late grant be released.
     */
    private static Mono<LockedCall.Held> acquire(LockedCall call, AsyncHold hold, String owner) {
        Mono<LockedCall.Held> acquire = Mono.create(sink -> {
            if (hold.ended()) {
                return;
            }
            PendingAcquire pending = PendingAcquire.start(call, owner);
            sink.onCancel(() -> {
                hold.cancel();
                pending.cancel();
            });
            pending.answer().whenComplete((held, failure) -> {
                if (failure != null) {
                    if (hold.notGranted()) {
                        sink.error(PendingAcquire.unwrap(failure));
                    }
                } else if (held.isEmpty()) {
                    if (hold.notGranted()) {
                        sink.success();
                    }
                } else if (hold.granted(held.get())) {
                    sink.success(held.get());
                }
            });
        });
        // The answer comes on Mortise's shared threads, which must not block: the method runs on an
        // application scheduler.
        return acquire.publishOn(Schedulers.boundedElastic());
    }

    /**
     * The method's publisher, invoked and then subscribed only if the call was not cancelled
     * first (checked again after the method returned, since it may have taken a while).
     */
    private static Publisher<?> whileHeld(LockedCall call, AsyncHold hold, LockedCall.Held held) {
        return Flux.defer(() -> {
            if (hold.ended()) {
                return Flux.empty();
            }
            Publisher<?> publisher = body(call, held);
            return hold.ended() ? Flux.empty() : publisher;
        });
    }

    /** The method's publisher, ended with the loss when the policy says so. */
    private static Publisher<?> body(LockedCall call, LockedCall.Held held) {
        Object result;
        try {
            result = call.proceed(held);
        } catch (Throwable failure) {
            return Mono.error(failure);
        }
        Publisher<?> publisher = result == null ? Mono.empty() : (Publisher<?>) result;
        if (call.onLostPolicy() == OnLost.NOTIFY) {
            return publisher;
        }
        Sinks.Empty<Void> lost = Sinks.empty();
        call.onLost(held, lost::tryEmitError);
        return Flux.from(publisher).takeUntilOther(lost.asMono());
    }
}
