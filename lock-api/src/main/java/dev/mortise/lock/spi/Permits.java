package dev.mortise.lock.spi;

/**
 * The weight and the limit of a semaphore request ({@link LockRequest#permits()}): take
 * {@code count} permits of a semaphore that has {@code limit} permits in all. Sent only to a
 * backend whose {@link LockBackend#supportsPermits()} is true; see there for the rule.
 *
 * @param count how many permits this one hold takes, 1 to {@code limit}
 * @param limit the semaphore's permit count the caller expects the server to keep
 */
public record Permits(int count, int limit) {

    public Permits {
        if (limit < 1 || count < 1 || count > limit) {
            throw new IllegalArgumentException("Permits need 1 <= count <= limit, got count=" + count
                    + ", limit=" + limit);
        }
    }
}
