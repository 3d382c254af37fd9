package dev.mortise.lock.spring;

import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Nested annotated calls on one key re-enter the lock, sharing its fencing token. */
class DistributedLockReentrancyTests {

    @Test
    void nestedAnnotatedCallOnTheSameKeyReentersTheLock() {
        LockTestSupport.localRunner().withBean(Inner.class).withBean(Outer.class).run(context -> {
            List<Long> seen = context.getBean(Outer.class).run("acct-1");
            assertThat(seen).hasSize(4);
            assertThat(seen.get(0)).isEqualTo(seen.get(2)).as("same token inside");
            assertThat(seen.get(1)).isEqualTo(1L).as("outer hold count");
            assertThat(seen.get(3)).isEqualTo(2L).as("nested hold count");
        });
    }

    @Test
    void nestedCallWithHoldAtLeastAndFailPolicyReentersToo() {
        LockTestSupport.localRunner().withBean(Inner.class).withBean(Outer.class).run(context -> {
            // The outer hold is owned by an id of its own (holdAtLeast outlives the call);
            // the nested FAIL call must find it is the same owner, not a busy lock.
            assertThat(context.getBean(Outer.class).runHeldAtLeast("acct-2")).isEqualTo(2);
        });
    }

    public static class Inner {
        @DistributedLock(key = "'account:' + #account", onBusy = OnBusy.FAIL)
        public List<Long> touch(String account) {
            LockLease lease = LockContext.current().orElseThrow();
            return List.of(lease.fencingToken(), (long) lease.holdCount());
        }
    }

    public static class Outer {
        private final Inner inner;

        public Outer(Inner inner) {
            this.inner = inner;
        }

        @DistributedLock(key = "'account:' + #account")
        public List<Long> run(String account) {
            LockLease lease = LockContext.current().orElseThrow();
            List<Long> outer = List.of(lease.fencingToken(), (long) lease.holdCount());
            List<Long> nested = inner.touch(account);
            return List.of(outer.get(0), outer.get(1), nested.get(0), nested.get(1));
        }

        @DistributedLock(key = "'account:' + #account", holdAtLeast = "50ms")
        public int runHeldAtLeast(String account) {
            return inner.touch(account).get(1).intValue();
        }
    }
}
