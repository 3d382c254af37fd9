package dev.mortise.lock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;

import java.util.concurrent.TimeUnit;

/**
 * Shuts a test's Lettuce client down without risking a hung build: Lettuce's own
 * {@code shutdown()} waits without a limit and has been seen to wait forever (redis/lettuce#2278).
 */
final class LettuceShutdown {

    private LettuceShutdown() {
    }

    static void quietly(AbstractRedisClient client) {
        if (client == null) {
            return;
        }
        try {
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // its event loops end on their own
        }
    }

    /**
     * The client, then the resources it was created on: a client does not shut down resources it was
     * given ({@code ClientResources} passed to {@code create}), whose event loops and timer would
     * otherwise outlive it.
     */
    static void quietly(AbstractRedisClient client, ClientResources resources) {
        quietly(client);
        try {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // its event loops end on their own
        }
    }
}
