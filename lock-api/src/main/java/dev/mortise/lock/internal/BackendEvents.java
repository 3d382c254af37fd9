package dev.mortise.lock.internal;

import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;

/**
 * Routes a backend's session events to the hold of the grant or, while the grant is still on
 * its way back to the acquiring thread, to its gate, which hands them to the hold when it is
 * published (so an event in that instant is not lost). Runs on the backend's threads; it does
 * no I/O and runs no user code there (losses are told on the {@link Notifier}).
 */
final class BackendEvents implements GrantListener {

    private final KeyGates gates;
    private final HoldActions actions;

    BackendEvents(KeyGates gates, HoldActions actions) {
        this.gates = gates;
        this.actions = actions;
    }

    @Override
    public void suspended(Grant grant) {
        Hold hold = route(grant, KeyGates.EarlyState.SUSPENDED, null);
        if (hold != null) {
            hold.suspended(true);
        }
    }

    @Override
    public void restored(Grant grant) {
        Hold hold = route(grant, KeyGates.EarlyState.NONE, null);
        if (hold != null) {
            hold.suspended(false);
        }
    }

    @Override
    public void lost(Grant grant, Throwable cause) {
        Hold hold = route(grant, KeyGates.EarlyState.LOST, cause);
        if (hold != null) {
            actions.loseInBackground(hold, LostReason.SESSION_LOST, cause);
        }
    }

    @Override
    public void lost(Grant grant, LostReason reason, Throwable cause) {
        Hold hold = route(grant, KeyGates.EarlyState.LOST, cause);
        if (hold != null) {
            actions.loseInBackground(hold, reason == null ? LostReason.SESSION_LOST : reason, cause);
        }
    }

    private Hold route(Grant grant, KeyGates.EarlyState event, Throwable cause) {
        KeyGates.Gate gate = gates.get(grant.key());
        return gate == null ? null : gate.route(grant.owner(), event, cause);
    }
}
