/**
 * The JDBC backend's holds (internal: no compatibility promise). {@code Holds} is what
 * {@code JdbcLockBackend} talks to: one {@code HoldDriver} per kind of hold ({@code ExclusiveHolds},
 * {@code SharedHolds}, {@code PermitHolds}), each owning its attempts, what its waits leave and give
 * up, its renewal and its release, chosen once per request or grant; the multi-key path
 * ({@code BatchAcquire}) and the renewal of many grants ({@code Renewals}). Every acquire statement
 * goes through {@code Admission}, which stamps a grant with the earliest send its answer rests on.
 */
package dev.mortise.lock.jdbc.internal.hold;
