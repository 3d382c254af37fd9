package dev.mortise.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * A lock request with all its options: key, how long to wait, an explicit lease, an
 * explicit owner. Immutable; each {@code with} method returns a copy.
 *
 * <pre>{@code
 * LockSpec spec = LockSpec.of("order:42").waitFor(Duration.ofSeconds(5)).lease(Duration.ofSeconds(10));
 * }</pre>
 *
 * <ul>
 *   <li>{@code waitFor}: how long to wait for a busy lock; zero (the default) tries once.</li>
 *   <li>{@code lease}: an explicit lease, not renewed, that simply expires; {@code null}
 *       (the default) means the client's default lease, renewed in the background while
 *       the lease is open.</li>
 *   <li>{@code owner}: the owner context for reentrancy. {@code null} (the default) means
 *       the calling thread. An explicit id lets reactive code or a remote client re-enter
 *       the lock from any thread: a request with the same owner id nests in this client's
 *       current hold of the key when that hold is valid (no server call, same fencing token).
 *       A request that arrives while the first request of that owner is still waiting for the
 *       server queues behind it as any other caller of this client does, and nests only if
 *       the hold is granted and still open when its turn comes. Owner ids are local to one
 *       client: the same id on two clients does not share a hold.</li>
 *   <li>{@code mode}: {@link LockMode#EXCLUSIVE} (the default) or {@link LockMode#SHARED}
 *       ({@link #shared()}): shared holds of a key coexist, an exclusive one excludes all. For
 *       one owner, a shared request nests in its shared or exclusive hold of the key; an
 *       exclusive request while it holds the key shared is an upgrade and throws
 *       {@link IllegalStateException}. A backend without shared mode refuses shared requests
 *       with {@link LockException}. Two shared requests of one explicit owner that race before
 *       either is granted may each get a hold of their own.</li>
 * </ul>
 */
public final class LockSpec {

    private final String key;
    private final Duration waitFor;
    private final Duration lease;
    private final String owner;
    private final LockMode mode;

    private LockSpec(String key, Duration waitFor, Duration lease, String owner, LockMode mode) {
        this.key = key;
        this.waitFor = waitFor;
        this.lease = lease;
        this.owner = owner;
        this.mode = mode;
    }

    /** A request for {@code key} that does not wait, with the default renewed lease. */
    public static LockSpec of(String key) {
        return new LockSpec(key, Duration.ZERO, null, null, LockMode.EXCLUSIVE);
    }

    /** A copy that waits up to {@code wait} (validated when used). */
    public LockSpec waitFor(Duration wait) {
        return new LockSpec(key, wait, lease, owner, mode);
    }

    /** A copy with an explicit lease that is not renewed (validated when used). */
    public LockSpec lease(Duration lease) {
        return new LockSpec(key, waitFor, lease, owner, mode);
    }

    /** A copy owned by {@code owner} instead of the calling thread. */
    public LockSpec owner(String owner) {
        return new LockSpec(key, waitFor, lease, owner, mode);
    }

    /** A copy in {@code mode}. */
    public LockSpec mode(LockMode mode) {
        return new LockSpec(key, waitFor, lease, owner, Objects.requireNonNull(mode, "mode"));
    }

    /** A copy asking for a shared (read) hold. */
    public LockSpec shared() {
        return mode(LockMode.SHARED);
    }

    /** A copy asking for an exclusive (write) hold, the default. */
    public LockSpec exclusive() {
        return mode(LockMode.EXCLUSIVE);
    }

    public LockMode lockMode() {
        return mode;
    }

    public String key() {
        return key;
    }

    public Duration waitTime() {
        return waitFor;
    }

    /** The explicit lease, or {@code null} for the default renewed lease. */
    public Duration explicitLease() {
        return lease;
    }

    /** The explicit owner id, or {@code null} for the calling thread. */
    public String explicitOwner() {
        return owner;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockSpec s && Objects.equals(key, s.key) && Objects.equals(waitFor, s.waitFor)
                && Objects.equals(lease, s.lease) && Objects.equals(owner, s.owner) && mode == s.mode;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, waitFor, lease, owner, mode);
    }

    @Override
    public String toString() {
        return "LockSpec[key=" + key + ", waitFor=" + waitFor + ", lease=" + (lease == null ? "renewed" : lease)
                + (owner == null ? "" : ", owner=" + owner) + (mode == LockMode.SHARED ? ", shared" : "") + "]";
    }
}
