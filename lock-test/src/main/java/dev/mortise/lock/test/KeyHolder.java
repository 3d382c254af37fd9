package dev.mortise.lock.test;

import dev.mortise.lock.LockMode;

import java.time.Duration;

/**
 * One hold of a key as the in-process server of a {@link TestLockClient} records it.
 *
 * @param key          the key
 * @param owner        the owner id the hold was granted to (unique per hold)
 * @param fencingToken the token of its grant
 * @param mode         exclusive or shared
 * @param remaining    how long the server still honours it, on the test's ticker
 * @param stolen       true for a hold taken by {@link TestLockClient#steal}
 */
public record KeyHolder(String key, String owner, long fencingToken, LockMode mode, Duration remaining,
                        boolean stolen) {
}
