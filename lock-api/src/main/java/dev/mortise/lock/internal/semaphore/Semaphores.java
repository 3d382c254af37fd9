package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockSemaphore;

/**
 * The two {@link LockSemaphore}s behind {@link LockClient#semaphore}: this package's entry point.
 * Stateless; thread-safe.
 */
public final class Semaphores {

    private Semaphores() {
    }

    /**
     * The semaphore of a backend that keeps permits itself: its acquisitions are permit holds of
     * {@code holds}.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank, or {@code permits} is not positive
     */
    public static LockSemaphore nativeSemaphore(PermitHolds holds, String name, int permits) {
        return new NativeSemaphore(holds, name, permits);
    }

    /**
     * The slot fallback over the public API of {@code client}: permit {@code i} is the exclusive
     * lock key {@code name + "#permit-" + i}.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank, or {@code permits} is not positive
     */
    public static LockSemaphore slotSemaphore(LockClient client, String name, int permits) {
        return new SlotSemaphore(client, name, permits);
    }
}
