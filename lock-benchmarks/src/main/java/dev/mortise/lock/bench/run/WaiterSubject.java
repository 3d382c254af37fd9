package dev.mortise.lock.bench.run;

import java.time.Duration;
import java.util.List;

/** A library measured by {@link WaitersWorker}: holds keys, starts waiters on them, is closed after. */
interface WaiterSubject extends AutoCloseable {

    /** Holds {@code prefix + 0 … keys-1} with a client of its own; each closeable lets one go. */
    List<AutoCloseable> hold(String prefix, int keys) throws Exception;

    /** Starts {@code n} waiters, waiter i on key {@code prefix + (i % keys)}, each letting go as soon as it has the key. */
    Waits startWaiting(String prefix, int keys, int n, Duration wait) throws Exception;

    @Override
    void close();

    /** The waiters of one round. */
    interface Waits {

        /** Waiters that have had their key and let it go (or failed) so far. */
        int done();

        /** Waits until every waiter is done; fails with the first waiter's failure, if any. */
        void awaitAll(Duration wait) throws Exception;
    }
}
