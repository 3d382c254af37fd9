package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Closing a client: its leases leave the thread's {@link dev.mortise.lock.LockContext}, and it refuses
 * to lock afterwards.
 * Run by every {@link LockBackendContractSuite} as its nested {@code ClientClose} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ClientCloseContract extends NestedContract {

    ClientCloseContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void leasesOfAClosedClientLeaveTheThreadsContext() throws Exception {
        LockClient client = newClient();
        LockLease lease = client.acquire(key(), Duration.ofSeconds(5));
        assertThat(LockContext.current()).containsSame(lease);
        client.close();
        assertThat(LockContext.current()).isEmpty();
        assertThat(LockContext.all()).doesNotContain(lease);
    }

    @Test
    void closedClientRefusesToLock() throws Exception {
        LockClient client = newClient();
        client.close();
        assertThatThrownBy(() -> client.tryAcquire(key())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
