package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockClientBuilderTest {

    @Test
    void rejectsNullBackend() {
        assertThatThrownBy(() -> LockClient.builder(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("backend");
    }

    @Test
    void rejectsTinyOrMissingDefaultLease() {
        LockClientBuilder builder = LockClient.builder(LocalLockBackend.create());
        assertThatThrownBy(() -> builder.defaultLease(Duration.ofMillis(5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10ms").hasMessageContaining("local");
        assertThatThrownBy(() -> builder.defaultLease(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsBadDriftAndKeyLimits() {
        LockClientBuilder builder = LockClient.builder(LocalLockBackend.create());
        assertThatThrownBy(() -> builder.clockDrift(0.5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.clockDrift(-0.1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.clockDrift(0.01, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.maxKeyBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.listener(null)).isInstanceOf(NullPointerException.class);
    }
}
