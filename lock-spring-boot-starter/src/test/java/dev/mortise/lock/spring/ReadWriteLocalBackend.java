package dev.mortise.lock.spring;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The in-process backend declaring shared-mode support (backend {@code "readwrite"}), so that
 * {@code mode = READ} calls are accepted whatever the core does with shared requests. It grants a
 * shared request as an exclusive one, which keeps the shared-lock contract for a single caller
 * (these tests never need two readers at once), and records the mode of every request.
 */
final class ReadWriteLocalBackend implements LockBackend {

    private final LocalLockBackend local = new LocalLockBackend(new LocalLockServer("readwrite"));
    final List<LockMode> modes = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
        return "readwrite";
    }

    @Override
    public BackendGuarantees guarantees() {
        return local.guarantees();
    }

    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        modes.add(request.mode());
        return local.tryAcquire(request);
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        modes.add(request.mode());
        return local.acquire(request, wait);
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        return local.renew(grant, lease);
    }

    @Override
    public boolean release(Grant grant) {
        return local.release(grant);
    }

    @Override
    public void ping() {
        local.ping();
    }

    @Override
    public void close() {
        local.close();
    }
}
