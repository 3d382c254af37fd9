package dev.mortise.lock.spring.internal;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.Optional;

/**
 * Locks methods returning Reactor's {@link Mono} or {@link Flux}: the lock is acquired on
 * subscription (on the bounded-elastic scheduler, since acquiring may block), the method
 * is invoked then — so all its work, assembly included, runs under the lock — and the
 * lock is released on complete, error or cancel. SKIP yields an empty publisher; failures
 * to acquire are signalled as errors. Each subscription acquires anew.
 */
public final class ReactorHandler implements ReturnTypeHandler {

    @Override
    public boolean supports(Class<?> returnType) {
        return returnType == Mono.class || returnType == Flux.class;
    }

    @Override
    public Object handle(LockedCall call) {
        Mono<LockedCall.Held> acquire = Mono.fromCallable(() -> {
            Optional<LockedCall.Held> held = call.acquire(call.owner(true));
            return held.orElse(null);
        }).subscribeOn(Schedulers.boundedElastic());
        if (call.returnType() == Mono.class) {
            return Mono.usingWhen(acquire, held -> Mono.from(invoke(call, held)),
                    held -> release(call, held), (held, error) -> release(call, held), held -> release(call, held));
        }
        return Flux.usingWhen(acquire, held -> invoke(call, held),
                held -> release(call, held), (held, error) -> release(call, held), held -> release(call, held));
    }

    private static Publisher<?> invoke(LockedCall call, LockedCall.Held held) {
        Object result;
        try {
            result = call.proceed(held);
        } catch (Throwable failure) {
            return Mono.error(failure);
        }
        return result == null ? Mono.empty() : (Publisher<?>) result;
    }

    private static Mono<Void> release(LockedCall call, LockedCall.Held held) {
        return Mono.fromRunnable(() -> call.release(held));
    }
}
