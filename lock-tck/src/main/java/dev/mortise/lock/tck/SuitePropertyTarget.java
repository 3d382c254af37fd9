package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;

/** A {@link LockBackendContractSuite}'s hooks as the {@link ValidityPropertySuite.Target} of its randomized run. */
final class SuitePropertyTarget implements ValidityPropertySuite.Target {

    private final LockBackendContractSuite suite;

    SuitePropertyTarget(LockBackendContractSuite suite) {
        this.suite = suite;
    }

    @Override
    public LockBackend newBackend() throws Exception {
        return suite.newBackend();
    }

    @Override
    public void breakHold(LockLease lease) throws Exception {
        suite.breakHold(lease);
    }

    @Override
    public int residueOnServer(String key) throws Exception {
        return suite.residueOnServer(key);
    }

    @Override
    public Duration leaseFloor() {
        return suite.propertyLeaseFloor();
    }
}
