package dev.mortise.lock.internal.leader;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipListener;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LostReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@link LeaderElection} built only on the public {@link LockClient} API: one candidate thread
 * ({@code mortise-candidate-<group>}) acquires the leadership lock with the client's renewed
 * default lease and an owner id of its own, holds it until it is lost, stepped down or closed,
 * and contends again. Callbacks go to a single thread of the election's own
 * ({@code mortise-leadership-<group>}), which keeps them in order. Thread-safe.
 *
 * <p>Leadership is the lease's validity and nothing else: {@link #isLeader()} reads
 * {@link LockLease#isValid()} of the current term's lease, so no state of this class can make a
 * candidate look like a leader after its lease ran out, whether or not the candidate thread has
 * noticed yet.
 */
public final class Candidate implements LeaderElection {

    private static final Logger log = LoggerFactory.getLogger(Candidate.class);
    /** How long one acquire waits before the loop looks at its flags again; close interrupts it anyway. */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(10);
    /** Longest sleep between looks at a held lease's validity (onLost normally wakes the thread first). */
    private static final long MAX_CHECK_MILLIS = 500;
    /** How long close waits for the candidate thread and the last callbacks. */
    private static final long CLOSE_WAIT_MILLIS = 30_000;

    private final LockClient client;
    private final String group;
    private final String key;
    private final List<LeadershipListener> listeners;
    private final Duration retryPause;
    private final Duration stepDownPause;
    /** Owner ids of this candidate's holds: never the id of anything the application locks. */
    private final String ownerPrefix = "leader:" + UUID.randomUUID() + ":";
    private final ExecutorService callbacks;
    private final Thread thread;
    /** Counted down when the candidate thread ends (what close waits for). */
    private final CountDownLatch finished = new CountDownLatch(1);

    private final Object monitor = new Object();
    /** The term being led, or null; read without the monitor by isLeader/epoch. */
    private volatile Term term;
    private volatile boolean stopping;
    private volatile boolean ended;
    /** Guarded by monitor: the candidate thread is inside client.acquire, where close may interrupt it. */
    private boolean acquiring;

    private Candidate(LockClient client, String group, String key, List<LeadershipListener> listeners,
                      Duration retryPause, Duration stepDownPause) {
        this.client = client;
        this.group = group;
        this.key = key;
        this.listeners = listeners;
        this.retryPause = retryPause;
        this.stepDownPause = stepDownPause;
        this.callbacks = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                runnable -> daemon(runnable, "mortise-leadership-" + group));
        this.thread = daemon(this::contend, "mortise-candidate-" + group);
    }

    /** Builds and starts a candidate; see {@link dev.mortise.lock.LeaderElectionBuilder}. */
    public static LeaderElection start(LockClient client, String group, String key, List<LeadershipListener> listeners,
                                       Duration retryPause, Duration stepDownPause) {
        Candidate candidate = new Candidate(client, group, key, listeners, retryPause, stepDownPause);
        candidate.thread.start();
        return candidate;
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    // ---- the candidate thread ---------------------------------------------------------------

    private void contend() {
        long terms = 0;
        try {
            while (!stopping) {
                LockLease lease = acquireOnce(++terms);
                if (lease != null) {
                    lead(lease);
                }
            }
        } catch (ClientClosed closed) {
            log.debug("Leadership of group '{}' on backend '{}' ends: the LockClient was closed or refused the key",
                    group, client.backendName());
        } finally {
            ended = true;
            callbacks.shutdown();
            finished.countDown();
        }
    }

    /** One acquire of at most a slice; null if not granted (timeout, interrupt by close, a failure retried later). */
    private LockLease acquireOnce(long termNumber) {
        synchronized (monitor) {
            if (stopping) {
                return null;
            }
            acquiring = true;
        }
        try {
            return client.acquire(LockSpec.of(key).waitFor(WAIT_SLICE).owner(ownerPrefix + termNumber));
        } catch (LockTimeoutException | LockInterruptedException e) {
            return null;
        } catch (IllegalStateException e) {
            // The client is closed: nothing will ever be granted again.
            throw new ClientClosed();
        } catch (IllegalArgumentException e) {
            // The key is one the client never accepts (too long, ...): retrying cannot help.
            log.error("Leadership of group '{}' cannot start on backend '{}': {}. Set a shorter or valid key.",
                    group, client.backendName(), e.getMessage());
            throw new ClientClosed();
        } catch (RuntimeException e) {
            if (!stopping) {
                log.warn("Leadership of group '{}' (lock '{}') on backend '{}': contending failed, retrying in {}: {}",
                        group, key, client.backendName(), retryPause, e.toString());
                pause(retryPause);
            }
            return null;
        } finally {
            synchronized (monitor) {
                acquiring = false;
                Thread.interrupted(); // an interrupt meant for the acquire must not hit the release
            }
        }
    }

    /** Leads for one term: from the grant until the lease is lost, stepped down or closed. */
    private void lead(LockLease lease) {
        Term current = new Term(lease);
        synchronized (monitor) {
            if (stopping) {
                release(lease);
                return;
            }
            term = current;
        }
        if (!lease.isValid()) {
            // Granted and lost before this thread looked: no term to announce.
            term = null;
            release(lease);
            return;
        }
        lease.onLost(current::lost);
        dispatch(listener -> listener.onElected(current.epoch));
        log.info("Leading group '{}' (lock '{}', backend '{}') with epoch {}", group, key, client.backendName(),
                current.epoch);

        boolean steppedDown;
        synchronized (monitor) {
            while (!stopping && !current.stepDown && current.lost == null && lease.isValid()) {
                long wait = Math.max(1, Math.min(MAX_CHECK_MILLIS, lease.remaining().toMillis()));
                try {
                    monitor.wait(wait);
                } catch (InterruptedException e) {
                    // Only close interrupts, and it sets stopping first: the loop ends.
                }
            }
            current.over = true;
            term = null;
            steppedDown = current.stepDown && !stopping;
        }
        LeadershipRevoked.Reason reason;
        LostReason lostReason = null;
        if (current.lost != null || !lease.isValid()) {
            reason = LeadershipRevoked.Reason.LOST;
            lostReason = current.lost != null ? current.lost.reason() : LostReason.EXPIRED;
            release(lease);
        } else {
            reason = steppedDown ? LeadershipRevoked.Reason.STEPPED_DOWN : LeadershipRevoked.Reason.CLOSED;
            LostReason failed = release(lease);
            if (failed != null) {
                reason = LeadershipRevoked.Reason.LOST;
                lostReason = failed;
            }
        }
        LeadershipRevoked revoked = new LeadershipRevoked(group, current.epoch, reason, lostReason,
                Duration.ofNanos(System.nanoTime() - current.startNanos));
        log.info("No longer leading group '{}' (epoch {}): {}{}", group, current.epoch, reason,
                lostReason == null ? "" : " (" + lostReason + ")");
        dispatch(listener -> listener.onRevoked(revoked));
        if (reason == LeadershipRevoked.Reason.STEPPED_DOWN) {
            pause(stepDownPause);
        }
    }

    /** Closes the lease; returns why it had been lost if it had, or null. Never throws. */
    private LostReason release(LockLease lease) {
        try {
            lease.close();
            return null;
        } catch (LockLostException e) {
            return e.reason();
        } catch (RuntimeException e) {
            // The release did not reach the server: the hold ends when its lease runs out.
            log.warn("Leadership of group '{}': releasing lock '{}' on backend '{}' failed; it expires with its "
                    + "lease: {}", group, key, client.backendName(), e.toString());
            return null;
        }
    }

    /** Sleeps up to {@code pause}, waking early when closed. */
    private void pause(Duration pause) {
        long deadline = System.nanoTime() + pause.toNanos();
        synchronized (monitor) {
            long left;
            while (!stopping && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    // close: stopping is set
                }
            }
        }
    }

    private void dispatch(Consumer<LeadershipListener> call) {
        try {
            callbacks.execute(() -> {
                for (LeadershipListener listener : listeners) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException | Error e) {
                        log.warn("A LeadershipListener of group '{}' threw; ignored", group, e);
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("Leadership of group '{}' is closed; a callback was dropped", group);
        }
    }

    // ---- the API ------------------------------------------------------------------------

    @Override
    public String group() {
        return group;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public boolean isLeader() {
        Term current = term;
        return current != null && current.leads();
    }

    @Override
    public OptionalLong epoch() {
        Term current = term;
        return current != null && current.leads() ? OptionalLong.of(current.epoch) : OptionalLong.empty();
    }

    @Override
    public boolean stepDown() {
        synchronized (monitor) {
            Term current = term;
            if (current == null || !current.leads()) {
                return false;
            }
            current.stepDown = true;
            monitor.notifyAll();
            return true;
        }
    }

    @Override
    public boolean isRunning() {
        return !stopping && !ended;
    }

    @Override
    public void close() {
        synchronized (monitor) {
            if (stopping) {
                return;
            }
            stopping = true;
            Term current = term;
            if (current != null) {
                current.stepDown = true; // isLeader is false from here on
            }
            if (acquiring) {
                thread.interrupt();
            }
            monitor.notifyAll();
        }
        boolean fromCallback = Thread.currentThread().getName().equals("mortise-leadership-" + group);
        try {
            if (Thread.currentThread() != thread) {
                // Not Thread.join: on JDK 21-23 it waits inside a monitor, pinning a virtual caller's carrier.
                finished.await(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
            callbacks.shutdown();
            if (!fromCallback) {
                callbacks.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        Term current = term;
        return "LeaderElection[group=" + group + ", key=" + key + ", backend=" + client.backendName()
                + (current != null && current.leads() ? ", leader, epoch=" + current.epoch : ", not leader")
                + (isRunning() ? "" : ", stopped") + "]";
    }

    /** One term of leadership: one grant of the leadership lock. */
    private final class Term {
        final LockLease lease;
        final long epoch;
        final long startNanos = System.nanoTime();
        /** Set under the monitor; isLeader turns false at once. */
        volatile boolean stepDown;
        volatile boolean over;
        volatile LockLostEvent lost;

        Term(LockLease lease) {
            this.lease = lease;
            this.epoch = lease.fencingToken();
        }

        boolean leads() {
            return !over && !stepDown && lost == null && lease.isValid();
        }

        /** onLost: runs on a client thread or the caller's; only wakes the candidate thread. */
        void lost(LockLostEvent event) {
            synchronized (monitor) {
                lost = event;
                monitor.notifyAll();
            }
        }
    }

    /** The client closed under the candidate: the election ends. */
    private static final class ClientClosed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClientClosed() {
            super(null, null, false, false);
        }
    }
}
