package dev.mortise.lock.internal.deadlock;

import dev.mortise.lock.LockMode;

/**
 * The text of a wait record, as every client writes and reads it: a version, the wait's nonce, its
 * mode, when it began (wall-clock milliseconds of its process) and the key it waits for, last
 * (keys may hold any character). A text that does not parse is not a wait (another version's).
 *
 * @param nonce       unique per wait: 32 characters of [0-9a-z]
 * @param mode        the mode waited for
 * @param sinceMillis when the wait began, by its process's wall clock
 * @param key         the key waited for
 */
record WaitRecordText(String nonce, LockMode mode, long sinceMillis, String key) {

    private static final String VERSION = "mortise-wait/1";

    String encode() {
        return VERSION + "\n" + nonce + "\n" + mode.name() + "\n" + sinceMillis + "\n" + key;
    }

    /** The record {@code text} encodes, or null if it is not one this version reads. */
    static WaitRecordText decode(String text) {
        String[] parts = text.split("\n", 5);
        if (parts.length != 5 || !parts[0].equals(VERSION)) {
            return null;
        }
        try {
            return new WaitRecordText(parts[1], LockMode.valueOf(parts[2]), Long.parseLong(parts[3]), parts[4]);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The order that picks a cycle's victim, the same in every process: the youngest wait (latest
     * start) is greatest, ties broken by nonce.
     */
    boolean youngerThan(WaitRecordText other) {
        if (sinceMillis != other.sinceMillis) {
            return sinceMillis > other.sinceMillis;
        }
        return nonce.compareTo(other.nonce) > 0;
    }
}
