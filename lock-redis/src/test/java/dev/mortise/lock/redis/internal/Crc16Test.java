package dev.mortise.lock.redis.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Crc16#keySlot} against the answers of a real redis-server 7.0 ({@code CLUSTER KEYSLOT}). */
class Crc16Test {

    @Test
    void keySlotFollowsTheHashTagRulesOfRedisCluster() {
        assertThat(Crc16.keySlot("foo")).isEqualTo(12182);
        assertThat(Crc16.keySlot("{user1000}.following")).isEqualTo(3443);
        assertThat(Crc16.keySlot("foo{}{bar}")).as("empty tag: the whole key").isEqualTo(8363);
        assertThat(Crc16.keySlot("foo{{bar}}zap")).as("tag '{bar'").isEqualTo(4015);
        assertThat(Crc16.keySlot("foo{bar}{zap}")).as("first tag").isEqualTo(5061);
        assertThat(Crc16.keySlot("日本{語}")).as("UTF-8 tag").isEqualTo(6482);
        assertThat(Crc16.keySlot("{}")).isEqualTo(15257);
        assertThat(Crc16.keySlot("é")).as("UTF-8 key").isEqualTo(10180);
    }
}
