package dev.mortise.lock.spring;

import dev.mortise.lock.LockTimeoutException;

/**
 * Thrown by a {@link DistributedLock} method with {@link OnBusy#FAIL} when another owner
 * holds the lock. The method did not run and nothing is held. A
 * {@link LockTimeoutException} with no wait, so handlers of timeouts catch it too.
 */
public class LockBusyException extends LockTimeoutException {

    private static final long serialVersionUID = 1L;

    public LockBusyException(String message, String key, String backend) {
        super(message, key, backend);
    }
}
