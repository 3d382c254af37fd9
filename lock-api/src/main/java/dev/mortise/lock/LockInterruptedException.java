package dev.mortise.lock;

/**
 * The waiting thread was interrupted. The interrupt flag is set again before this is
 * thrown, and nothing the attempt created is left on the server.
 */
public class LockInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String message, String key, String backend, InterruptedException cause) {
        super(message, key, backend, cause);
    }
}
