package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's own provider suite ({@code shedlock-test-support}: its integration tests,
 * extension tests and fuzz tester), unmodified, on one Mortise backend against its real
 * server. The provider locks on one client; the suite's {@code assertLocked} and
 * {@code assertUnlocked} ask the server through a second client over a backend of its own,
 * as another process would: a hold is there if that client cannot take the name.
 */
abstract class ShedLockSuite extends AbstractExtensibleLockProviderIntegrationTest {

    // One provider per test class (the suite calls getLockProvider() many times per test).
    private static LockClient client;
    private static LockClient probe;
    private static MortiseLockProvider provider;

    /** A new backend on the class's server, as a separate process would build it. */
    protected abstract LockBackend newBackend();

    @BeforeEach
    void openClients() {
        if (provider == null) {
            client = LockClient.builder(newBackend()).build();
            probe = LockClient.builder(newBackend()).build();
            provider = new MortiseLockProvider(client);
        }
    }

    @AfterAll
    static void closeClients() {
        if (provider != null) {
            provider.close();
            client.close();
            probe.close();
            provider = null;
        }
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertLocked(String lockName) {
        Optional<LockLease> taken = probe.tryAcquire(lockName);
        taken.ifPresent(LockLease::close);
        assertThat(taken).describedAs("'%s' should be held on the server, but another client could take it", lockName)
                .isEmpty();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        Optional<LockLease> taken = probe.tryAcquire(lockName);
        taken.ifPresent(LockLease::close);
        assertThat(taken).describedAs("'%s' should be free on the server, but another client could not take it", lockName)
                .isPresent();
    }
}
