package dev.mortise.lock.spring.autoconfigure;

/**
 * A check of one backend's set-up beyond reaching its server (a JDBC lock table that
 * exists, ...), run by the {@code locks} health indicator after its round trip.
 */
public interface LockBackendCheck {

    /** The name of the backend it checks, as in {@code LockClients}. */
    String backend();

    /**
     * @throws RuntimeException describing what is wrong and the property that fixes it
     */
    void check();
}
