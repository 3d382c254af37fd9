package dev.mortise.lock;

/** Why a lease stopped being valid before its holder closed it. */
public enum LostReason {
    /** The lease ran out: an explicit lease reached its end, or renewals failed until it did. */
    EXPIRED,
    /** The server answered a renewal with "not yours any more": someone deleted or took the hold. */
    RENEWAL_REJECTED,
    /** At release the server no longer had the hold: it expired or was removed while the work ran. */
    MISSING_AT_RELEASE,
    /** The session the hold was bound to (ZooKeeper session, etcd lease) ended. */
    SESSION_LOST,
    /** An operator ended the hold through {@link LockClient#forceRelease} (the actuator endpoint). */
    FORCE_RELEASED,
    /** The client was closed while the lease was open. */
    CLIENT_CLOSED
}
