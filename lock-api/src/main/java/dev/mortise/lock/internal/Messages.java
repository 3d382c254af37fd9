package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LostReason;

import java.time.Duration;

/** The client's failure messages: each names the key, the backend and what to do. */
final class Messages {

    private final String backend;

    Messages(String backend) {
        this.backend = backend;
    }

    private String lock(String key) {
        return "Lock '" + Arguments.abbreviate(key) + "' on backend '" + backend + "'";
    }

    LockTimeoutException timeout(String key, Duration wait) {
        return new LockTimeoutException(lock(key) + " was not granted within " + wait + ": another owner holds it. "
                + "Wait longer, use tryAcquire to skip busy work, or see who holds it (LockClient.heldLocks() on each "
                + "instance).", key, backend);
    }

    /** The wait ran out in this client's own queue for the key, before this caller could ask the server. */
    LockTimeoutException queuedTimeout(String key, Duration wait) {
        return new LockTimeoutException(lock(key) + " was not granted within " + wait + ": another caller of this "
                + "client holds it or is still waiting for the server's answer for it (a server that does not answer "
                + "takes up to the backend's operation timeout), and this caller queued behind it. Wait longer than "
                + "that, use tryAcquire to skip busy work, or check that the server is reachable.", key, backend);
    }

    LockException sharedUnsupported(String key) {
        return new LockException(lock(key) + " cannot be taken shared: this backend does not support "
                + "shared (read) locks (its supportsSharedMode() is false). Take it exclusive (LockSpec.exclusive(), "
                + "LockClient.asLock) or use a backend that supports shared mode.", key, backend, null);
    }

    IllegalStateException upgradeRefused(String key, String owner) {
        return new IllegalStateException(lock(key) + " is held shared by " + owner + ", which now asks for it "
                + "exclusive: upgrading a read lock to a write lock is refused, because two readers that both upgrade "
                + "would each wait for the other to leave, forever. Close the shared lease first and then acquire the "
                + "key exclusive (re-checking what was read), or take it exclusive from the start.");
    }

    LockInterruptedException interrupted(String key, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new LockInterruptedException("Interrupted while waiting for lock '" + Arguments.abbreviate(key)
                + "' on backend '" + backend + "'; nothing is held. The interrupt flag is set again.", key, backend, e);
    }

    LockException clientClosed(String key, Throwable cause) {
        return new LockException(lock(key) + " was not acquired: the LockClient was closed while the request was "
                + "under way (anything the server granted has been released). Build a new client to lock again.",
                key, backend, cause);
    }

    IllegalStateException closedClient(String key) {
        return new IllegalStateException("LockClient for backend '" + backend + "' is closed; cannot lock '"
                + Arguments.abbreviate(key) + "'. Build a new client.");
    }

    LockBackendException grantedTooLate(String key, Duration lease, Duration worth) {
        return new LockBackendException(lock(key) + " was granted, but the answer came back after its lease of "
                + lease + (worth.equals(lease) ? "" : " (valid locally for " + worth + " on this backend)")
                + " had run out, so it was given up at once. Use a lease well above the server's round-trip time "
                + "(and the connection set-up of a lazily connecting client).", key, backend, null);
    }

    LockBackendException grantOnAnotherTicker(String key, dev.mortise.lock.spi.Ticker ticker) {
        return new LockBackendException(lock(key) + " was granted with a request time later than now on the client's "
                + "ticker (" + ticker + "): the backend stamps its grants on another clock than its ticker() says. "
                + "A backend that wraps another must return the wrapped one's ticker(); the grant was released.",
                key, backend, null);
    }

    LockBackendException sessionEndedBeforeGrant(String key, Throwable cause) {
        return new LockBackendException(lock(key) + " was granted, but the session it was bound to ended before the "
                + "answer arrived, so it was given up at once. Retry once the connection to the server is back.",
                key, backend, cause);
    }

    LockBackendException acquireFailed(String key, RuntimeException e) {
        return new LockBackendException("Acquiring lock '" + Arguments.abbreviate(key) + "' failed on backend '"
                + backend + "': " + e + ". Check that the server is reachable; nothing was granted.", key, backend, e);
    }

    /** A multi-key request sent as one batch ({@code LockBackend.tryAcquireAll}) failed. */
    LockBackendException acquireAllFailed(java.util.List<String> keys, RuntimeException e) {
        return new LockBackendException("Acquiring the locks " + keys + " together failed on backend '" + backend
                + "': " + e + ". Check that the server is reachable; nothing was granted.", keys.get(0), backend, e);
    }

    LockBackendException releaseFailed(String key, Duration lease, RuntimeException e) {
        return new LockBackendException("Releasing lock '" + Arguments.abbreviate(key) + "' on backend '" + backend
                + "' failed: " + e + ". The hold ends when its lease runs out (at most " + lease + ").", key, backend, e);
    }

    LockBackendException forceReleaseFailed(String key, Duration lease, RuntimeException e) {
        return new LockBackendException("Force-releasing lock '" + Arguments.abbreviate(key) + "' on backend '"
                + backend + "' failed: " + e + ". The hold ends when its lease runs out (at most " + lease + ").",
                key, backend, e);
    }

    LockBackendException extendFailed(String key, RuntimeException e) {
        return new LockBackendException("Extending lock '" + Arguments.abbreviate(key) + "' on backend '" + backend
                + "' failed: " + e + ". The server may or may not have applied it, so the lease now counts as the "
                + "shorter of the old and the requested one; retry before it runs out.", key, backend, e);
    }

    LockBackendException extendNotApplied(String key, Duration requested, Duration applied, Duration worth) {
        return new LockBackendException(lock(key) + " was asked to extend to " + requested + ", but the server keeps "
                + "only " + applied + " for this hold, so it is valid for " + worth + " from the request. Acquire it "
                + "with the longer lease instead (or leave the lease out to have it renewed).", key, backend, null);
    }

    LockLostException suspended(String key, long token) {
        return new LockLostException(lock(key) + " (token " + token + ") is not certainly ours: the connection to the "
                + "server is suspended. Do not make irreversible changes until it is valid again.", key, backend,
                LostReason.SESSION_LOST, null);
    }

    LockLostException closedLease(String key) {
        return new LockLostException("Lease of lock '" + Arguments.abbreviate(key) + "' on backend '" + backend
                + "' is closed; acquire the lock again", key, backend, null, null);
    }

    LockLostException lost(String key, long token, LockLostEvent lost) {
        return new LockLostException(lock(key) + " (token " + token + ") was lost after " + lost.heldFor().toMillis()
                + " ms: " + describe(lost) + ". Another owner may have held it since; writes fenced with "
                + "token " + token + " will be refused by fenced storage.", key, backend, lost.reason(), lost.cause());
    }

    private static String describe(LockLostEvent lost) {
        if (lost.reason() == LostReason.EXPIRED && lost.cause() != null) {
            return "its validity ran out while the watchdog's renewals were failing (last failure: " + lost.cause()
                    + "); check that the server is reachable";
        }
        return switch (lost.reason()) {
            case EXPIRED -> "its validity ran out before it was renewed or closed (the last request the server "
                    + "confirmed was worth no more; use a longer lease, or none to have it renewed)";
            case RENEWAL_REJECTED -> "the server no longer had it when the lease was renewed";
            case SESSION_LOST -> "the session it was bound to ended";
            case MISSING_AT_RELEASE -> "when it was released the server no longer had it (it expired or was removed "
                    + "while the work ran)";
            case CLIENT_CLOSED -> "the LockClient was closed while it was held";
            case FORCE_RELEASED -> "an operator force-released it (LockClient.forceRelease, the actuator endpoint)";
        };
    }
}
