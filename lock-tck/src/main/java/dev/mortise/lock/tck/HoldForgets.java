package dev.mortise.lock.tck;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The holds the property suite deleted on the server behind their holders' backs
 * ({@code breakHold}): exclusion (a) does not bind a hold that was, or may have been, deleted, as
 * the server handed the key out again on purpose while the old holder could not know yet.
 * Thread-safe.
 */
final class HoldForgets {

    /** A deletion of holds on the server by the test ({@code breakHold}). */
    private static final class Forget {
        final String key;
        final PropertyClient client;
        final boolean clientWide;
        volatile long endNanos;

        Forget(String key, PropertyClient client, boolean clientWide) {
            this.key = key;
            this.client = client;
            this.clientWide = clientWide;
        }

        boolean touches(TrackedHold hold) {
            return key.equals(hold.key) || (clientWide && client == hold.client);
        }
    }

    private final PropertyModel model;
    private final List<Forget> forgets = new CopyOnWriteArrayList<>();

    HoldForgets(PropertyModel model) {
        this.model = model;
    }

    /** Whether the test deleted this hold on the server (or may have): then exclusion does not bind it. */
    boolean exposed(TrackedHold hold) {
        if (hold.exposed) {
            return true;
        }
        for (Forget forget : forgets) {
            long end = forget.endNanos;
            if (forget.touches(hold) && (end == 0 || end - hold.acquireStartNanos > 0)) {
                hold.exposed = true;
                return true;
            }
        }
        return false;
    }

    /** The test is about to delete holds on the server; returns the token to pass to {@link #forgotten}. */
    Object forgetting(String key, PropertyClient client, boolean clientWide) {
        Forget forget = new Forget(key, client, clientWide);
        forgets.add(forget);
        for (TrackedHold hold : model.holdsOn(key)) {
            if (!hold.open().isEmpty()) {
                hold.note("server forget of the key at +" + model.millisSinceStart(System.nanoTime()) + " ms");
            }
        }
        return forget;
    }

    void forgotten(Object forget) {
        ((Forget) forget).endNanos = System.nanoTime();
    }
}
