package dev.mortise.lock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock on a key computed from its
 * arguments.
 *
 * <pre>{@code
 * @DistributedLock(key = "'order:' + #order.id", waitFor = "5s")
 * public Receipt pay(Order order) { ... }
 *
 * @Scheduled(cron = "0 0 * * * *")
 * @DistributedLock(key = "'billing-run'", onBusy = OnBusy.SKIP, holdAtLeast = "30s")
 * public void bill() { ... }
 * }</pre>
 *
 * <p>On a type, it applies to every public method of the type (a method's own annotation
 * wins). Works through Spring AOP proxies, so a call from one method of the bean to
 * another ({@code this.pay(order)}) is not intercepted; use AspectJ weaving or the
 * {@link dev.mortise.lock.LockClient} API there.
 *
 * <p>The lock is taken before the method runs and released when it returns or throws;
 * for methods returning {@code CompletionStage}, {@code Mono} or {@code Flux}, when the
 * result completes. Nested annotated calls on the same key from the same thread re-enter
 * the lock. Invalid attributes (a SpEL syntax error, an unparsable duration, an unknown
 * backend) fail application start-up.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

    /**
     * The lock key, a SpEL expression: arguments by name ({@code #order}, needs
     * {@code -parameters}) or position ({@code #p0}, {@code #a0}), {@code #root.method},
     * {@code #root.target}, {@code #root.args}, beans ({@code @clock}). A literal key is
     * quoted: {@code "'billing-run'"}. Evaluating to {@code null} or blank is an error.
     *
     * <p>An expression that evaluates to a {@code Collection} or an array locks every element
     * as one multi-key lock ({@link dev.mortise.lock.LockClient#acquireAll}): the method runs
     * only when all of them are held, they are taken in one canonical order (so overlapping sets
     * never deadlock) and released together. Each element is checked as a single key is (not
     * {@code null}, not blank, a {@code toString} of its own); an empty collection is an error.
     * A {@code @FencingToken} parameter needs a single key (each key of a multi-key lock has its
     * own token); a {@link #fence()} is evaluated once per key, with {@code #lockKey}.
     */
    String key();

    /**
     * {@link LockAccess#WRITE} (the default): an exclusive lock. {@link LockAccess#READ}: a
     * shared lock, held by any number of readers at once and by no writer meanwhile; the backend
     * must support shared locks. Applies to every key of a multi-key lock.
     */
    LockAccess mode() default LockAccess.WRITE;

    /**
     * A stable, low-cardinality name for metrics ({@code name} tag). Defaults to the key
     * expression (never to the evaluated key).
     */
    String name() default "";

    /**
     * How long to wait for a busy lock: {@code "5s"}, {@code "PT5S"},
     * {@code "${locks.pay.wait:5s}"}. Empty: {@code mortise.lock.wait-for} for
     * {@link OnBusy#WAIT}, no wait for {@link OnBusy#SKIP}. Not allowed with
     * {@link OnBusy#FAIL}.
     */
    String waitFor() default "";

    /**
     * An explicit lease that is not renewed: the lock expires this long after it is
     * granted even if the method still runs. Empty (the default): the lease is renewed in
     * the background for as long as the method runs.
     */
    String lease() default "";

    /** What to do when another owner holds the lock. */
    OnBusy onBusy() default OnBusy.WAIT;

    /**
     * Keep the lock at least this long after it was granted, even if the method finished
     * sooner (as ShedLock's {@code lockAtLeastFor}): stops other instances of a scheduled
     * job from running it again when their clocks fire a little later. The release is
     * scheduled, the caller does not wait. Empty: release on return.
     */
    String holdAtLeast() default "";

    /**
     * The configured backend to lock on ({@code "redis"}, {@code "etcd"}, a name under
     * {@code mortise.lock.backends}); empty: the default backend ({@code mortise.lock.backend}).
     */
    String backend() default "";

    /**
     * What happens to the call when its lock is lost while the method runs: see
     * {@link OnLost}. {@link OnLost#DEFAULT}: {@code mortise.lock.on-lost} (notify).
     */
    OnLost onLost() default OnLost.DEFAULT;

    /**
     * The fenced resource, a SpEL expression evaluated like {@link #key()}
     * ({@code "'account:' + #id"}); empty (the default): no fence. With a fence, the method
     * must run in a transaction on the application's {@code DataSource} ({@code @Transactional},
     * which the lock advice wraps by default): before the method body runs, the starter
     * checks the lease's fencing token against the fence table of {@code lock-fencing}'s
     * {@code JdbcFenceGuard}, as the transaction's first statement. A holder whose lease ran
     * out and whom a newer holder has overtaken gets {@code StaleFencingTokenException}, the
     * method does not run and its transaction rolls back. Needs {@code lock-fencing} on the
     * classpath and one {@code DataSource}; fence a resource only with one lock key's tokens.
     *
     * <p>The expression may read the lock key as {@code #lockKey} (unless a parameter has that
     * name). With a multi-key {@link #key()} it is evaluated once per key, {@code #lockKey} bound
     * to that key, and each resource is checked with the token of its own key's part (in
     * ascending order of the resources): {@code key = "#ids.!['account:' + #this]",
     * fence = "'balance:' + #lockKey"}. Two keys yielding one resource is an error at the call.
     */
    String fence() default "";
}
