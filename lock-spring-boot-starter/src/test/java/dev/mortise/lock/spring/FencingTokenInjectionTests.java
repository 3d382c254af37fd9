package dev.mortise.lock.spring;

import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A {@code @FencingToken} parameter receives the token of the lock the call holds. */
class FencingTokenInjectionTests {

    @Test
    void tokenReplacesThePlaceholderAndMatchesTheLockContext() {
        LockTestSupport.localRunner().withBean(Ledger.class).run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            long[] first = ledger.post("a", 0L);
            assertThat(first[0]).isPositive().isEqualTo(first[1]);
            long[] second = ledger.post("a", -99L);
            assertThat(second[0]).isGreaterThan(first[0]).isEqualTo(second[1]);
        });
    }

    @Test
    void boxedParameterWorksToo() {
        LockTestSupport.localRunner().withBean(Ledger.class).run(context ->
                assertThat(context.getBean(Ledger.class).boxed(null, "b")).isPositive());
    }

    public static class Ledger {
        @DistributedLock(key = "'ledger:' + #account")
        public long[] post(String account, @FencingToken long token) {
            return new long[] {token, LockContext.current().map(LockLease::fencingToken).orElse(-1L)};
        }

        @DistributedLock(key = "'ledger:' + #account")
        public Long boxed(@FencingToken Long token, String account) {
            return token;
        }
    }
}
