package dev.mortise.lock.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The builders' argument checks and descriptions, free of any client library, so that a
 * builder loads and validates whichever driver is on the classpath (Redisson and Lettuce are
 * both optional). Each check throws {@link IllegalArgumentException} naming the fix.
 */
final class RedisSettings {

    private RedisSettings() {
    }

    /** {@code redis://host:port} or {@code rediss://host:port}, trimmed. */
    static String checkAddress(String address, String what) {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank: give redis://host:port (backend 'redis')");
        }
        try {
            URI uri = new URI(address.trim());
            if (!("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getPort() <= 0 || uri.getPort() > 65535) {
                throw new URISyntaxException(address, "not redis://host:port");
            }
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(what + " '" + address + "' is not a Redis address: write "
                    + "redis://host:port (or rediss://host:port for TLS) (backend 'redis')", e);
        }
        return address.trim();
    }

    static List<String> checkAddresses(String[] addresses, String what) {
        if (addresses == null || addresses.length == 0) {
            throw new IllegalArgumentException(what + " needs at least one redis://host:port address (backend 'redis')");
        }
        return Arrays.stream(addresses).map(a -> checkAddress(a, what)).toList();
    }

    static Duration checkPositive(Duration duration, String what) {
        if (duration == null || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration + " (backend 'redis')");
        }
        return duration;
    }

    /** Where the backend connects, for messages. */
    static String describe(String address, List<String> clusterNodes, String sentinelMaster, List<String> sentinels) {
        if (address != null) {
            return "Redis at " + address;
        }
        if (clusterNodes != null) {
            return "Redis Cluster via " + String.join(",", clusterNodes);
        }
        if (sentinelMaster != null) {
            return "Redis master '" + sentinelMaster + "' via Sentinels " + String.join(",", sentinels);
        }
        return "Redis from the supplied Redisson Config";
    }

    /**
     * Fails with the fix, rather than a {@link NoClassDefFoundError}, when the Redisson driver is
     * chosen without Redisson on the classpath.
     */
    static void requireRedisson(String backend) {
        try {
            Class.forName("org.redisson.api.RedissonClient", false, RedisSettings.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("The Redisson driver needs org.redisson:redisson on the classpath (an "
                    + "optional dependency of lock-redis): add it, or choose driver(RedisDriver.LETTUCE) with "
                    + "io.lettuce:lettuce-core (backend '" + backend + "')", e);
        }
    }
}
