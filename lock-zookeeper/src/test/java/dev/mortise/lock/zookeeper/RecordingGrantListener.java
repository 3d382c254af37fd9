package dev.mortise.lock.zookeeper;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a backend reports about its holds, in order. */
final class RecordingGrantListener implements GrantListener {

    final List<Grant> suspended = new CopyOnWriteArrayList<>();
    final List<Grant> restored = new CopyOnWriteArrayList<>();
    final List<Grant> lost = new CopyOnWriteArrayList<>();

    @Override
    public void suspended(Grant grant) {
        suspended.add(grant);
    }

    @Override
    public void restored(Grant grant) {
        restored.add(grant);
    }

    @Override
    public void lost(Grant grant, Throwable cause) {
        lost.add(grant);
    }
}
