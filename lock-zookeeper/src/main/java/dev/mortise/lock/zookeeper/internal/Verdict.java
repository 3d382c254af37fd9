package dev.mortise.lock.zookeeper.internal;

import java.util.Set;

/**
 * What an {@link Admission} decides from one look at the queue, and so what the
 * {@link QueueLoop} does next: own the key (after any lingering hold has ended), look again at
 * once, or wait for the nodes it names to change.
 *
 * @param kind    which of these
 * @param watch   the nodes to wait for (full paths); empty unless waiting
 * @param handoff for {@link Kind#WAIT_FOR_DELETION}: whether the deletion of that one node
 *                alone admits ours (it is the only node ahead), so that the watch event itself
 *                is the evidence, with no listing after it
 */
record Verdict(Kind kind, Set<String> watch, boolean handoff) {

    enum Kind {
        /** Ours owns the key by the rule, once no lingering hold's marker is in force. */
        ADMITTED,
        /** What the listing showed went stale while deciding: list again at once. */
        LOOK_AGAIN,
        /**
         * Only the existence of one node ahead matters: the loop watches it right after the
         * listing (no node can appear ahead of ours, so a deletion after the watch fires), and
         * waits if it is still there.
         */
        WAIT_FOR_DELETION,
        /**
         * Any change of these nodes (data too: an admission signal, a new stored count) may
         * admit ours: their watches must be in force before the listing the decision rests
         * on, so the loop waits only if they were, and otherwise sets them and lists again.
         */
        WAIT_FOR_CHANGE
    }

    static final Verdict ADMITTED = new Verdict(Kind.ADMITTED, Set.of(), false);
    static final Verdict LOOK_AGAIN = new Verdict(Kind.LOOK_AGAIN, Set.of(), false);

    static Verdict waitForDeletion(String path, boolean handoff) {
        return new Verdict(Kind.WAIT_FOR_DELETION, Set.of(path), handoff);
    }

    static Verdict waitForChange(Set<String> paths) {
        return new Verdict(Kind.WAIT_FOR_CHANGE, paths, false);
    }
}
