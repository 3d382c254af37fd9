package dev.mortise.lock;

/**
 * A semaphore acquisition asked with a permit count other than the one its server keeps while
 * permits are held: two clients (or two handles) disagree on how many permits the semaphore has.
 * Nothing was taken. Thrown by native semaphores ({@link LockSemaphore#isNative()}); the message
 * names the semaphore, both counts, the backend and the fix.
 */
public class PermitCountMismatchException extends LockException {

    private static final long serialVersionUID = 1L;

    private final int storedPermits;
    private final int requestedPermits;

    /**
     * @param key              the semaphore's lock key
     * @param backend          the backend's name
     * @param storedPermits    the count on the server
     * @param requestedPermits the count of the refused request
     */
    public PermitCountMismatchException(String key, String backend, int storedPermits, int requestedPermits) {
        super("Semaphore key '" + key + "' has " + storedPermits + " permits on backend '" + backend
                + "' while permits are held, but this acquisition expects " + requestedPermits
                + ". Nothing was taken. Every client must use one count: create the semaphore with "
                + storedPermits + ", or change the count for everyone with LockSemaphore.setPermits("
                + requestedPermits + ") and give this client's handle the same count.", key, backend, null);
        this.storedPermits = storedPermits;
        this.requestedPermits = requestedPermits;
    }

    /** The permit count the server keeps. */
    public int storedPermits() {
        return storedPermits;
    }

    /** The permit count the refused request was made with. */
    public int requestedPermits() {
        return requestedPermits;
    }
}
