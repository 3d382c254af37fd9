package dev.mortise.lock.tck;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The contract every backend passes against its real server: each numbered point of
 * DESIGN.md "Semantics", as one nested contract class per concern (mutual exclusion,
 * reentrancy, leases, loss, fencing, waiting, ... read-write, multi-key, semaphores,
 * inspection, leadership) that this suite composes, plus the randomized property run. A
 * backend's test extends this class (and is named {@code *ContractTest}, so surefire runs it)
 * and supplies independent backends against one server, a way to break a hold, an unreachable
 * backend, and a look at what the server keeps for a key.
 *
 * <p>Timing assertions here are semantic bounds with wide slack (a wait must not end
 * before its deadline, must end within seconds of it), never speed targets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockBackendContractSuite extends ContractFixture {

    // ---- the contract, one nested class per concern -----------------------------------------

    /** The {@link MutualExclusionContract}. */
    @Nested
    class MutualExclusion extends MutualExclusionContract {
        MutualExclusion() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ReentrancyContract}. */
    @Nested
    class Reentrancy extends ReentrancyContract {
        Reentrancy() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link LeaseRenewalContract}. */
    @Nested
    class LeasesAndRenewal extends LeaseRenewalContract {
        LeasesAndRenewal() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link LossNotificationContract}. */
    @Nested
    class LossNotification extends LossNotificationContract {
        LossNotification() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link FencingContract}. */
    @Nested
    class Fencing extends FencingContract {
        Fencing() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link WaitingContract}. */
    @Nested
    class Waiting extends WaitingContract {
        Waiting() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link InterruptionContract}. */
    @Nested
    class InterruptionAndTimeouts extends InterruptionContract {
        InterruptionAndTimeouts() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ReleaseContract}. */
    @Nested
    class Release extends ReleaseContract {
        Release() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ArgumentErrorsContract}. */
    @Nested
    class ArgumentErrors extends ArgumentErrorsContract {
        ArgumentErrors() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ClientCloseContract}. */
    @Nested
    class ClientClose extends ClientCloseContract {
        ClientClose() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link BackendFailureContract}. */
    @Nested
    class BackendFailure extends BackendFailureContract {
        BackendFailure() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link AsyncAcquireContract}. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {
        AsyncAcquire() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ClientApiContract}. */
    @Nested
    class ClientApi extends ClientApiContract {
        ClientApi() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ListenerContract}. */
    @Nested
    class Listeners extends ListenerContract {
        Listeners() {
            super(LockBackendContractSuite.this);
        }
    }

    // ---- the randomized property run --------------------------------------------------------

    /**
     * Random sequences of every operation, over random keys, under injected faults, with the
     * invariants checked continuously: see {@link ValidityPropertySuite} and
     * docs/property-suite.md. The run caps its own time ({@code mortise.property.maxSeconds}) and
     * is stopped five minutes after that cap; the long JUnit timeout only lets long runs
     * ({@code -Dmortise.property.sequences=5000}) reach their own.
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void randomizedSequencesKeepTheContractInvariants() {
        ValidityPropertySuite.Settings settings = ValidityPropertySuite.Settings.fromSystemProperties();
        ValidityPropertySuite suite = new ValidityPropertySuite(new SuitePropertyTarget(this), settings);
        assertTimeoutPreemptively(settings.maxRun().plusMinutes(5), suite::run,
                () -> "the property run did not end within 5 minutes of its cap (re-run with " + settings.rerun() + ")");
    }

    /**
     * The read-write contract ({@link ReadWriteContract}) with this test's clients and hooks: all
     * of it on a backend that supports shared mode, the clear refusal of shared requests on one
     * that does not.
     */
    @Nested
    class ReadWrite extends ReadWriteContract {
        ReadWrite() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The waiting part of the read-write contract ({@link ReadWriteWaitingContract}). */
    @Nested
    class ReadWriteWaiting extends ReadWriteWaitingContract {
        ReadWriteWaiting() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The leader-election contract ({@link LeadershipContract}) against this backend's server. */
    @Nested
    class Leadership extends LeadershipContract {
        Leadership() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The multi-key contract ({@link MultiKeyContract}), on this test's clients and hooks. */
    @Nested
    class MultiKey extends MultiKeyContract {
        MultiKey() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The semaphore contract ({@link SemaphoreContract}), on this test's clients and hooks. */
    @Nested
    class Semaphore extends SemaphoreContract {
        Semaphore() {
            super(LockBackendContractSuite.this);
        }
    }

    /** Deadlock detection ({@link DeadlockContract}) on this backend's server. */
    @Nested
    class Deadlocks extends DeadlockContract {
        Deadlocks() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The wait-record store of deadlock detection ({@link WaitRecordsContract}) on this backend's server. */
    @Nested
    class WaitRecordStore extends WaitRecordsContract {
        WaitRecordStore() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The inspection contract ({@link InspectionContract}), on this test's clients and hooks. */
    @Nested
    class Inspection extends InspectionContract {
        Inspection() {
            super(LockBackendContractSuite.this);
        }
    }
}
