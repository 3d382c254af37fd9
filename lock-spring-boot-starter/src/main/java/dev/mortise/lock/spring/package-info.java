/**
 * The Spring Boot starter's API: {@link dev.mortise.lock.spring.DistributedLock} and
 * {@link dev.mortise.lock.spring.LeaderOnly} with their policies ({@code OnBusy}, {@code OnLost},
 * {@code LockAccess}), {@code @FencingToken}, the clients of every configured backend
 * ({@link dev.mortise.lock.spring.LockClients}), leadership groups and their events, and the
 * lock context of reactive calls.
 *
 * <p>API: users may depend on everything here. It uses none of the starter's internal packages.
 */
package dev.mortise.lock.spring;
