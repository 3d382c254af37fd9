package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/**
 * The value of a permit key ({@link KeySpace#permitKey}): {@code <count>/<limit>/<owner>}. The
 * count is what the hold takes; the limit is the semaphore's stored permit count, carried by every
 * permit key of the lock so that it vanishes with the last of them (nothing is left behind) and
 * rewritten in all of them by {@code setPermits}. The stored count of a lock is the limit of its
 * oldest permit key. Immutable.
 *
 * @param count how many permits the hold takes
 * @param limit the semaphore's permit count
 * @param owner the hold's owner (what inspection reports)
 */
record PermitValue(int count, int limit, String owner) {

    ByteSequence bytes() {
        return ByteSequence.from(count + "/" + limit + "/" + owner, StandardCharsets.UTF_8);
    }

    PermitValue withLimit(int newLimit) {
        return new PermitValue(count, newLimit, owner);
    }

    /** Parses a permit key's value; owners may contain {@code /}, the two numbers never do. */
    static PermitValue parse(ByteSequence value) {
        String text = value.toString(StandardCharsets.UTF_8);
        int first = text.indexOf('/');
        int second = first < 0 ? -1 : text.indexOf('/', first + 1);
        if (second < 0) {
            throw new IllegalStateException("etcd permit key value '" + text + "' is not <count>/<limit>/<owner>: "
                    + "was the key written by something other than Mortise?");
        }
        return new PermitValue(Integer.parseInt(text.substring(0, first)),
                Integer.parseInt(text.substring(first + 1, second)), text.substring(second + 1));
    }
}
