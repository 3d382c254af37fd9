package dev.mortise.lock.spring.backends;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Deadlock detection through the starter on the in-process lock server, shared by both application
 * contexts as a lock server is shared by two instances (its wait records are the server's).
 */
class LocalServerDeadlockIntegrationTests extends DeadlockIntegrationTestSupport {

    private final LocalLockServer server = new LocalLockServer("deadlocks");

    @Override
    String backend() {
        return "local";
    }

    @Override
    ApplicationContextRunner onTheServer(ApplicationContextRunner runner) {
        return runner.withBean(LocalLockBackend.class, () -> new LocalLockBackend(server));
    }
}
