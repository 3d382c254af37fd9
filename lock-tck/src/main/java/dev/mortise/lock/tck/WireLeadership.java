package dev.mortise.lock.tck;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipListener;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.tck.WireHolds.Held;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The leadership mode of the wire-level fault suite ({@link WireFaultContract}): client A campaigns
 * for a group whose leadership key is the test's key, and its first term, once elected, is A's hold:
 * valid while the election leads <em>in that term</em> (a later term is another hold), its epoch as
 * the token, told lost when that term is revoked as {@code LOST}, closed by closing the election.
 */
final class WireLeadership {

    private WireLeadership() {
    }

    /**
     * Starts a campaign on {@code client} for the leadership key {@code key} and returns its first
     * term: the first epoch seen leading or told elected (a term that already ended is returned, not
     * valid). Gives up after {@code wait}, closing the campaign, with a {@link LockTimeoutException}.
     */
    static Held lead(LockClient client, String key, Duration wait) {
        Terms terms = new Terms();
        LeaderElection election = client.leadership("wire").key(key).listener(terms)
                .retryPause(Duration.ofMillis(200)).stepDownPause(Duration.ofMillis(500)).start();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            OptionalLong leading = election.epoch();
            Long elected = terms.elected.isEmpty() ? null : terms.elected.get(0);
            if (leading.isPresent() || elected != null) {
                long epoch = elected != null && (leading.isEmpty() || elected < leading.getAsLong())
                        ? elected : leading.getAsLong();
                return term(election, terms, epoch);
            }
            if (System.nanoTime() - deadline > 0) {
                election.close();
                throw new LockTimeoutException("not elected leader within " + wait, key, client.backendName());
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                election.close();
                Thread.currentThread().interrupt();
                throw new LockInterruptedException("interrupted while campaigning", key, client.backendName(), e);
            }
        }
    }

    private static Held term(LeaderElection election, Terms terms, long epoch) {
        return new Held() {
            public boolean isValid() {
                return election.epoch().orElse(-1) == epoch;
            }

            public long token() {
                return epoch;
            }

            public void onLost(Runnable listener) {
                terms.onLost(epoch, listener);
            }

            public void close() {
                election.close();
            }
        };
    }

    /** What the campaign was told: the epochs elected, in order, and who to tell of a term lost. */
    private static final class Terms implements LeadershipListener {
        final List<Long> elected = new CopyOnWriteArrayList<>();
        private final List<Long> lost = new CopyOnWriteArrayList<>();
        private final List<LostListener> listeners = new CopyOnWriteArrayList<>();

        private record LostListener(long epoch, Runnable listener) {
        }

        @Override
        public void onElected(long epoch) {
            elected.add(epoch);
        }

        @Override
        public void onRevoked(LeadershipRevoked revoked) {
            if (revoked.reason() == LeadershipRevoked.Reason.LOST) {
                List<LostListener> told;
                synchronized (this) {
                    lost.add(revoked.epoch());
                    told = List.copyOf(listeners); // one added later sees the loss itself: told once
                }
                told.stream().filter(l -> l.epoch() == revoked.epoch()).forEach(l -> l.listener().run());
            }
        }

        /** Runs {@code listener} when the term of {@code epoch} is lost, or now if it already was. */
        void onLost(long epoch, Runnable listener) {
            boolean already;
            synchronized (this) {
                listeners.add(new LostListener(epoch, listener));
                already = lost.contains(epoch);
            }
            if (already) {
                listener.run();
            }
        }
    }
}
