package dev.mortise.lock.test;

import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension: one client per test, the same in {@code @BeforeEach} and the test, closed after it. */
@ExtendWith(MortiseLockExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MortiseLockExtensionTest {

    private static TestLockClient previous;
    private static LockLease previousLease;
    private TestLockClient fromBeforeEach;

    @BeforeEach
    void setUp(TestLockClient locks) {
        fromBeforeEach = locks;
    }

    @Test
    @Order(1)
    void theTestGetsTheClientOfItsBeforeEach(TestLockClient locks) {
        assertThat(locks).isSameAs(fromBeforeEach);
        previous = locks;
        previousLease = locks.acquire("left-open", Duration.ofSeconds(1));
    }

    @Test
    @Order(2)
    void eachTestGetsAFreshClientAndTheLastOneWasClosed(TestLockClient locks) {
        assertThat(locks).isNotSameAs(previous);
        assertThat(locks.ticker()).isNotSameAs(previous.ticker());
        assertThat(previousLease.isValid()).isFalse();
        assertThatThrownBy(() -> previous.acquire("k", Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        // A fresh server too: the key the last test left open is free here.
        locks.acquire("left-open", Duration.ofSeconds(1)).close();
    }
}
