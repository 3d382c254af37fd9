package dev.mortise.lock.redis.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The Redis names of a key are what the scripts and every earlier release use: a rename strands held locks. */
class RedisKeysTest {

    @Test
    void namesShareTheBracedTagAndKeepTheirLayout() {
        RedisKeys keys = RedisKeys.of("mortise", "orders:42");
        assertEquals("mortise:lock:{orders:42}", keys.lock());
        assertEquals("mortise:fence:{orders:42}", keys.fence());
        assertEquals("mortise:released:{orders:42}", keys.channel());
        assertEquals("mortise:readers:{orders:42}", keys.readers());
        assertEquals("mortise:writers:{orders:42}", keys.writers());
        assertEquals("mortise:queue:{orders:42}", keys.queue());
        assertEquals("mortise:waiters:{orders:42}", keys.waiters());
        assertEquals("mortise:cancelled:{orders:42}:owner-1", keys.cancelled("owner-1"));
        assertEquals("mortise:lock:{orders:42}", keys.toString());
        assertEquals(Crc16.slot("orders:42"), keys.slot());
    }

    @Test
    void keysNeedingEncodingAreEncodedInsideTheTag() {
        RedisKeys keys = RedisKeys.of("p", "a{b} c%");
        assertEquals("p:lock:{a%7Bb%7D%20c%25}", keys.lock());
        assertEquals(Crc16.slot("a%7Bb%7D%20c%25"), keys.slot());
    }

    @Test
    void equalityIsByPrefixAndKey() {
        assertEquals(RedisKeys.of("p", "k"), RedisKeys.of("p", "k"));
        assertEquals(RedisKeys.of("p", "k").hashCode(), RedisKeys.of("p", "k").hashCode());
        assertNotEquals(RedisKeys.of("p", "k"), RedisKeys.of("q", "k"));
        assertNotEquals(RedisKeys.of("p", "k"), RedisKeys.of("p", "j"));
    }
}
