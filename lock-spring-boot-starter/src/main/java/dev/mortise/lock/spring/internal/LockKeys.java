package dev.mortise.lock.spring.internal;

import java.util.List;

/**
 * The evaluated keys of one call of an annotated method.
 *
 * @param keys  the key, or the elements of a key expression that yielded a collection or array,
 *              in the order given (the lock client sorts them)
 * @param multi whether the expression yielded a collection or array: a multi-key lock, even of
 *              one element
 */
public record LockKeys(List<String> keys, boolean multi) {

    public LockKeys {
        keys = List.copyOf(keys);
    }

    /** The single key, or the keys as text ({@code [a, b]}) for messages. */
    public String text() {
        return multi ? keys.toString() : keys.get(0);
    }
}
