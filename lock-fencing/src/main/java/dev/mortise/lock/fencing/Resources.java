package dev.mortise.lock.fencing;

import dev.mortise.lock.LockLease;

import java.nio.charset.StandardCharsets;

/** Argument checks shared by the guards: every message names the resource and the fix. */
final class Resources {

    private Resources() {
    }

    /** @throws IllegalArgumentException if {@code resource} is null, blank or over {@code maxBytes} UTF-8 bytes */
    static String check(String resource, int maxBytes, String guard) {
        if (resource == null) {
            throw new IllegalArgumentException("The fenced resource must not be null (" + guard + "): pass the name "
                    + "of what the lock protects, e.g. 'account:42', usually the lock key (lease.key()).");
        }
        if (resource.isBlank()) {
            throw new IllegalArgumentException("The fenced resource '" + resource + "' is blank (" + guard + "): pass "
                    + "the name of what the lock protects, e.g. 'account:42', usually the lock key (lease.key()).");
        }
        int bytes = resource.getBytes(StandardCharsets.UTF_8).length;
        if (maxBytes > 0 && bytes > maxBytes) {
            throw new IllegalArgumentException("The fenced resource '" + abbreviate(resource) + "' is " + bytes
                    + " UTF-8 bytes, over the " + maxBytes + " the fence table's resource column holds (" + guard
                    + "): use a shorter name, e.g. a hash of it, the same for every writer of the resource.");
        }
        return resource;
    }

    /** @throws IllegalArgumentException if {@code token} is negative (no backend issues one) */
    static long checkToken(String resource, long token, String guard) {
        if (token < 0) {
            throw new IllegalArgumentException("Fencing token " + token + " for resource '" + abbreviate(resource)
                    + "' is negative (" + guard + "): pass lease.fencingToken() of the lease that protects the "
                    + "write; Mortise tokens are never negative.");
        }
        return token;
    }

    /** @throws IllegalArgumentException if {@code lease} is null */
    static LockLease checkLease(String resource, LockLease lease, String guard) {
        if (lease == null) {
            throw new IllegalArgumentException("The lease for fenced resource '" + abbreviate(resource)
                    + "' is null (" + guard + "): pass the LockLease that protects the write (from "
                    + "LockClient.acquire), or its fencingToken() through the long overload.");
        }
        return lease;
    }

    static String abbreviate(String resource) {
        return resource == null || resource.length() <= 80 ? resource : resource.substring(0, 77) + "...";
    }
}
