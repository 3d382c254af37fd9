package dev.mortise.lock.bench.run;

import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend that counts the requests deadlock detection sends through it: wait-record publishes,
 * removes and reads, and key inspections (the benchmark's workload inspects nothing itself, so
 * every inspection is the detector's). Counted at the SPI, so the figure is what reached the
 * backend, whatever the core's own bookkeeping says. Thread-safe.
 */
final class CountingBackend extends ForwardingLockBackend {

    private final AtomicLong publishes = new AtomicLong();
    private final AtomicLong others = new AtomicLong();

    CountingBackend(LockBackend delegate) {
        super(delegate);
    }

    /** Every detection request so far (publishes, removes, record reads, inspections). */
    long requests() {
        return publishes.get() + others.get();
    }

    /** Wait-record publishes so far: a wait that outlasted the threshold with other locks held, once per round. */
    long publishes() {
        return publishes.get();
    }

    @Override
    public KeyState inspect(String key) {
        others.incrementAndGet();
        return super.inspect(key);
    }

    @Override
    public Optional<WaitRecords> waitRecords() {
        return super.waitRecords().map(Counted::new);
    }

    /** The delegate's wait records, counted. */
    private final class Counted implements WaitRecords {
        private final WaitRecords records;

        Counted(WaitRecords records) {
            this.records = records;
        }

        @Override
        public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
            publishes.incrementAndGet();
            return records.publish(holderIds, nonce, text, ttl);
        }

        @Override
        public void remove(Collection<String> holderIds, String nonce) {
            others.incrementAndGet();
            records.remove(holderIds, nonce);
        }

        @Override
        public Map<String, String> read(Collection<String> holderIds) {
            others.incrementAndGet();
            return records.read(holderIds);
        }
    }
}
