package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.OnLost;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a call asks the lock client for: READ is shared, WRITE exclusive, for one key or many. */
class LockedCallSpecTests {

    @Test
    void readIsASharedRequestAndWriteAnExclusiveOne() throws Exception {
        assertThat(call(LockAccess.READ, false, "a").spec(Duration.ofSeconds(1), "o").lockMode())
                .isEqualTo(LockMode.SHARED);
        LockSpec write = call(LockAccess.WRITE, false, "a").spec(Duration.ofSeconds(1), "o");
        assertThat(write).isEqualTo(LockSpec.of("a").waitFor(Duration.ofSeconds(1)).lease(Duration.ofSeconds(9))
                .owner("o"));
    }

    @Test
    void everyKeyOfAMultiKeyCallHasTheCallsMode() throws Exception {
        MultiLockSpec read = call(LockAccess.READ, true, "b", "a").multiSpec(Duration.ofSeconds(1), null);
        assertThat(read.keys()).containsExactly("a", "b");
        assertThat(read.parts()).extracting(LockSpec::lockMode).containsOnly(LockMode.SHARED);
        assertThat(read.explicitLease()).isEqualTo(Duration.ofSeconds(9));
        MultiLockSpec write = call(LockAccess.WRITE, true, "b", "a").multiSpec(Duration.ofSeconds(1), null);
        assertThat(write.parts()).extracting(LockSpec::lockMode).containsOnly(LockMode.EXCLUSIVE);
    }

    private static LockedCall call(LockAccess mode, boolean multi, String... keys) throws Exception {
        LockOperation operation = new LockOperation(Object.class.getMethod("toString"), "#k", "n", Duration.ZERO,
                Duration.ofSeconds(9), OnBusy.WAIT, null, "", -1, OnLost.NOTIFY, null, mode);
        return new LockedCall(operation, null, new LockKeys(List.of(keys), multi), null, null, null);
    }
}
