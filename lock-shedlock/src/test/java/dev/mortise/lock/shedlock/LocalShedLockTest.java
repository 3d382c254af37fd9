package dev.mortise.lock.shedlock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;

/** ShedLock's suite on the in-process backend: both clients share one {@link LocalLockServer}. */
class LocalShedLockTest extends ShedLockSuite {

    private static final LocalLockServer SERVER = new LocalLockServer();

    @Override
    protected LockBackend newBackend() {
        return new LocalLockBackend(SERVER);
    }
}
