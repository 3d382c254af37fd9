package dev.mortise.lock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} (or {@code Long}) parameter of a {@link DistributedLock} method that
 * receives the fencing token of the lock the call holds. Callers pass any placeholder
 * (say {@code 0L}); the interceptor replaces it before the method runs.
 *
 * <pre>{@code
 * @DistributedLock(key = "'ledger:' + #account")
 * public void post(String account, Entry entry, @FencingToken long token) {
 *     ledger.write(account, entry, token);   // the storage refuses tokens lower than it has seen
 * }
 * }</pre>
 *
 * The same token is available as {@code LockContext.current().orElseThrow().fencingToken()}.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencingToken {
}
