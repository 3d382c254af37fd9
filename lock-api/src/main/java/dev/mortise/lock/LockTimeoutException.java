package dev.mortise.lock;

/** The caller waited as long as it asked to and the lock was not granted. Nothing is held. */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockTimeoutException(String message, String key, String backend) {
        super(message, key, backend, null);
    }
}
