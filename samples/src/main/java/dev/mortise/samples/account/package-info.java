/**
 * Accounts whose withdrawals run under {@code @DistributedLock} with fenced writes, and the
 * scheduled jobs that run on one replica at a time. Sample code, not API.
 */
package dev.mortise.samples.account;
