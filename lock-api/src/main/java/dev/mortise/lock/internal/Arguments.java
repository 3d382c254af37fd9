package dev.mortise.lock.internal;

import java.time.Duration;

/** Argument checks whose messages name the key, the backend and the fix. */
final class Arguments {

    private final String backend;
    private final int maxKeyBytes;

    Arguments(String backend, int maxKeyBytes) {
        this.backend = backend;
        this.maxKeyBytes = maxKeyBytes;
    }

    String key(String key) {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null (backend '" + backend
                    + "'): pass the name of the resource to lock, such as \"order:42\"");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("Lock key must not be blank, was \"" + key + "\" (backend '" + backend
                    + "'): an empty key would make unrelated callers share one lock; pass a name such as \"order:42\"");
        }
        int broken = unpairedSurrogate(key);
        if (broken >= 0) {
            throw new IllegalArgumentException("Lock key '" + abbreviate(key) + "' has an unpaired UTF-16 surrogate at index "
                    + broken + " (backend '" + backend + "'): such a string has no UTF-8 form and would share a lock "
                    + "with another key; build keys from well-formed text");
        }
        int bytes = utf8Length(key);
        if (bytes > maxKeyBytes) {
            throw new IllegalArgumentException("Lock key '" + abbreviate(key) + "' is " + bytes + " UTF-8 bytes, over the limit of "
                    + maxKeyBytes + " (backend '" + backend + "'): use a shorter key (hash the long part) or raise "
                    + "LockClientBuilder.maxKeyBytes");
        }
        return key;
    }

    Duration waitTime(Duration wait, String key) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("Wait time for lock '" + abbreviate(key) + "' must be zero or positive, was "
                    + wait + " (backend '" + backend + "'): pass Duration.ZERO to try once");
        }
        return wait;
    }

    Duration lease(Duration lease, String key) {
        if (lease != null && (lease.isZero() || lease.isNegative())) {
            throw new IllegalArgumentException("Lease for lock '" + abbreviate(key) + "' must be positive, was " + lease
                    + " (backend '" + backend + "'): pass a lease longer than the work, or none to have it renewed");
        }
        return lease;
    }

    String owner(String owner, String key) {
        if (owner != null && owner.isBlank()) {
            throw new IllegalArgumentException("Owner id for lock '" + abbreviate(key) + "' must not be blank (backend '"
                    + backend + "'): pass a stable id of the caller, or none to use the calling thread");
        }
        return owner;
    }

    /** UTF-8 length of well-formed UTF-16 text, counted without encoding it (acquire is a hot path). */
    static int utf8Length(String text) {
        int bytes = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                // 2 bytes below U+0800, 3 for the rest of the BMP; a surrogate pair is 4 bytes for 2 chars
                bytes += c < 0x800 ? 1 : Character.isSurrogate(c) ? 1 : 2;
            }
        }
        return bytes;
    }

    /** Index of the first unpaired surrogate, or -1 if the string is well-formed UTF-16. */
    static int unpairedSurrogate(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    static String abbreviate(String key) {
        return key.length() <= 80 ? key : key.substring(0, 77) + "...";
    }
}
