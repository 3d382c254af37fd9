package dev.mortise.lock.internal.deadlock;

import java.util.function.UnaryOperator;

/**
 * The entry under which a key's waiting writers publish their records besides their holds: a reader
 * that waits while only readers hold the key waits behind such a writer (no writer starvation), so
 * through it for every holder of the key. A digest, like a holder id, of a name no owner string has.
 * Several writers of one key share it (each rewrites it every period; a removal takes only its own
 * nonce), so it can be missing for a moment, never present without a writer blocked in its acquire.
 */
final class WriterMarkers {

    private WriterMarkers() {
    }

    /** @param holderIds the holder-id digest of owner strings */
    static String of(String key, UnaryOperator<String> holderIds) {
        return holderIds.apply("mortise-writer-waits\u0000" + key);
    }
}
