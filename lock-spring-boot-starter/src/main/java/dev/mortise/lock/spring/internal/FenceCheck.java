package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.MultiLease;

import java.util.function.Function;

/**
 * Checks the fencing token of an annotated call's lease against the fence of a resource, in
 * the transaction running on this thread ({@code @DistributedLock(fence = ...)}). The
 * auto-configuration implements it over the application's {@code Fences} bean when
 * {@code lock-fencing} is on the classpath; this interface keeps the lock engine free of it,
 * and {@code Fences} free of the engine.
 */
public interface FenceCheck {

    /**
     * Raises {@code resource}'s fence to {@code lease}'s token in the current transaction, or
     * refuses with {@code StaleFencingTokenException} (the transaction must roll back).
     *
     * @throws IllegalStateException if no transaction on the guard's DataSource is active,
     *                               naming the method and the fix
     */
    void check(LockOperation operation, String resource, LockLease lease);

    /**
     * Raises the fence of each key's resource to the token of that key's part of {@code lease},
     * in the current transaction, or refuses with {@code StaleFencingTokenException} naming the
     * first stale resource (the transaction must roll back). As {@code JdbcFenceGuard.checkAll}.
     *
     * @throws IllegalStateException as {@link #check}
     */
    void checkAll(LockOperation operation, MultiLease lease, Function<String, String> resourceOfKey);

    /**
     * The failure of a fenced method whose check would protect nothing: {@code problem} says why
     * (no transaction is active, or the running one is not on the guard's DataSource).
     */
    static IllegalStateException outsideTransaction(LockOperation operation, String resource, String problem) {
        return new IllegalStateException("@DistributedLock(fence = \"" + operation.fenceExpression() + "\") on "
                + operation.describeMethod() + " checks the fence of '" + resource + "' inside the method's "
                + "transaction, but " + problem + ", so the check would protect nothing. Put @Transactional on "
                + "the method (the lock advice is ordered outside it by default, so the lock covers the commit) "
                + "with a transaction manager on the application's DataSource, or call it inside such a "
                + "transaction.");
    }

    /** The failure of a fenced method when the application has no fence guard. */
    static IllegalStateException missing(LockOperation operation) {
        return new IllegalStateException("@DistributedLock on " + operation.describeMethod() + " has fence = \""
                + operation.fenceExpression() + "\" but the application has no fence guard. Add the "
                + "dev.mortise:lock-fencing dependency and a DataSource (spring-boot-starter-jdbc), or define a "
                + "JdbcFenceGuard bean; or remove the fence attribute.");
    }
}
