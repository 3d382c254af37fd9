package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.FaultInjectingBackend.Fault;
import dev.mortise.lock.tck.FaultInjectingBackend.Injection;
import dev.mortise.lock.tck.FaultInjectingBackend.Operation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each fault does what its Javadoc says against the in-process server. */
class FaultInjectingBackendTest {

    private final LocalLockServer server = new LocalLockServer("faults");
    private final FaultInjectingBackend backend = new FaultInjectingBackend(new LocalLockBackend(server));

    private static LockRequest request(String key, String owner) {
        return new LockRequest(key, owner, Duration.ofSeconds(30), false);
    }

    @Test
    void failDoesNotReachTheServer() {
        backend.script(Operation.TRY_ACQUIRE, Injection.fail(), 1);
        assertThatThrownBy(() -> backend.tryAcquire(request("k", "o1"))).isInstanceOf(LockBackendException.class)
                .hasMessageContaining(FaultInjectingBackend.MARK + " FAIL").hasMessageContaining("'k'");
        assertThat(server.isHeld("k")).isFalse();
        assertThat(backend.tryAcquire(request("k", "o1")).isGranted()).as("scripted once only").isTrue();
        assertThat(backend.injected(Fault.FAIL)).isEqualTo(1);
    }

    @Test
    void aBatchTakesTheFaultsOfItsRequestsAsTryAcquires() {
        List<LockRequest> both = List.of(request("a", "o1"), request("b", "o2"));
        backend.plan((operation, key) -> operation == Operation.TRY_ACQUIRE && key.equals("b") ? Injection.fail() : null);
        assertThatThrownBy(() -> backend.tryAcquireAll(both)).isInstanceOf(LockBackendException.class)
                .hasMessageContaining(FaultInjectingBackend.MARK + " FAIL").hasMessageContaining("'b'");
        assertThat(server.isHeld("a") || server.isHeld("b")).as("nothing sent").isFalse();
        backend.heal();
        backend.script(Operation.TRY_ACQUIRE, Injection.dropReply(), 1);
        assertThatThrownBy(() -> backend.tryAcquireAll(both)).hasMessageContaining("DROP_REPLY");
        assertThat(server.isHeld("a") && server.isHeld("b")).as("applied, unknown to the caller").isTrue();
        assertThat(backend.tryAcquireAll(List.of(request("c", "o3"), request("d", "o4")))).as("scripted once only")
                .hasSize(2);
    }

    @Test
    void droppedReplyWasAppliedOnTheServer() throws Exception {
        backend.script(Operation.ACQUIRE, Injection.dropReply(), 1);
        assertThatThrownBy(() -> backend.acquire(request("k", "o1"), Duration.ofSeconds(1)))
                .isInstanceOf(LockBackendException.class).hasMessageContaining("DROP_REPLY");
        assertThat(server.isHeld("k")).as("granted on the server, unknown to the caller").isTrue();
        assertThat(backend.tryAcquire(request("k", "o2")).isGranted()).isFalse();
    }

    @Test
    void delayedReplyComesLateWithTheServersAnswer() {
        Grant grant = backend.tryAcquire(request("k", "o1")).grant().orElseThrow();
        backend.script(Operation.RELEASE, Injection.delay(Duration.ofMillis(300)), 1);
        long start = System.nanoTime();
        assertThat(backend.release(grant)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(290));
        assertThat(server.isHeld("k")).isFalse();
    }

    @Test
    void planDecidesRenewalsUntilHealed() {
        Grant grant = backend.tryAcquire(request("k", "o1")).grant().orElseThrow();
        backend.plan((operation, key) -> operation == Operation.RENEW_ALL ? Injection.fail() : null);
        assertThatThrownBy(() -> backend.renewAll(List.of(grant), Duration.ofSeconds(30)))
                .isInstanceOf(LockBackendException.class);
        assertThat(backend.renew(grant, Duration.ofSeconds(30))).as("only renewAll is planned to fail")
                .contains(Duration.ofSeconds(30));
        backend.heal();
        assertThat(backend.renewAll(List.of(grant), Duration.ofSeconds(30)).gone()).isEmpty();
    }

    @Test
    void boundsAreTheDelegatesOwn() {
        assertThat(backend.name()).isEqualTo("local");
        assertThat(backend.validity(Duration.ofSeconds(3))).isEqualTo(backend.delegate().validity(Duration.ofSeconds(3)));
        assertThat(backend.guarantees()).isEqualTo(backend.delegate().guarantees());
    }
}
