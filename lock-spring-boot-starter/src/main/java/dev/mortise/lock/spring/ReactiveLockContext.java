package dev.mortise.lock.spring;

import dev.mortise.lock.LockLease;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import java.util.List;
import java.util.Optional;

/**
 * The leases of the {@code @DistributedLock} calls a reactive chain runs inside, read from
 * the Reactor {@code Context} — the reactive counterpart of
 * {@link dev.mortise.lock.LockContext}, which shows only what the current thread's own
 * synchronous call holds. Inside a locked {@code Mono}/{@code Flux} method:
 *
 * <pre>{@code
 * return ReactiveLockContext.current()
 *         .flatMap(lease -> repository.save(order, lease.fencingToken()));
 * }</pre>
 *
 * (Or declare a {@link FencingToken} parameter.) Outside a locked call the Monos are empty.
 */
public final class ReactiveLockContext {

    /** The Reactor Context key of the list of leases, outermost first (written by the starter only). */
    public static final String CONTEXT_KEY = ReactiveLockContext.class.getName() + ".leases";

    private ReactiveLockContext() {
    }

    /** The innermost lease of the locked calls this chain runs in, or empty. */
    public static Mono<LockLease> current() {
        return Mono.deferContextual(context -> Mono.justOrEmpty(leases(context).stream()
                .reduce((outer, inner) -> inner)));
    }

    /** The innermost lease on {@code key} of the locked calls this chain runs in, or empty. */
    public static Mono<LockLease> find(String key) {
        return Mono.deferContextual(context -> {
            List<LockLease> leases = leases(context);
            for (int i = leases.size() - 1; i >= 0; i--) {
                if (leases.get(i).key().equals(key)) {
                    return Mono.just(leases.get(i));
                }
            }
            return Mono.empty();
        });
    }

    /** All leases of the locked calls this chain runs in, outermost first. */
    public static Mono<List<LockLease>> all() {
        return Mono.deferContextual(context -> Mono.just(leases(context)));
    }

    /** The leases in {@code context}, outermost first (for code that already has a ContextView). */
    public static List<LockLease> leases(ContextView context) {
        Optional<List<LockLease>> leases = context.getOrEmpty(CONTEXT_KEY);
        return leases.orElse(List.of());
    }
}
