package dev.mortise.lock.redis;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisReadWriteTest} in fair mode (readers and writers in one server-side queue, hand-off
 * inside the release script), plus queue order: the consecutive readers at the head are handed their
 * shares together, a writer behind them waits for them, and a reader behind that writer waits for it.
 */
class RedisFairReadWriteTest extends RedisReadWriteTest {

    @Override
    LockBackend backend() {
        RedisLockBackend backend = RedisLockBackend.builder().address(server.address()).fair(true).build();
        closeables.add(backend);
        return backend;
    }

    @Override
    void awaitWriterWaiting() throws InterruptedException {
        await(SLACK, () -> queued() == 1, "the writer to queue");
    }

    long queued() {
        return number(redis("ZCARD", keys.queue()));
    }

    @Test
    void readersAtTheHeadAreHandedTheirSharesTogetherAndAWriterBetweenKeepsItsPlace() throws Exception {
        LockBackend holder = backend();
        Grant w1 = granted(holder.tryAcquire(exclusive(LONG)));
        List<LockBackend> backends = new ArrayList<>();
        List<Future<Optional<Grant>>> waiting = new ArrayList<>();
        List<LockRequest> requests = List.of(shared(LONG), shared(LONG), exclusive(LONG), shared(LONG));
        for (LockRequest request : requests) {
            LockBackend backend = backend();
            backends.add(backend);
            waiting.add(waitFor(backend, request, LONG));
            long position = waiting.size();
            await(SLACK, () -> queued() == position, "waiter " + position + " to queue");
        }
        assertThat(holder.release(w1)).isTrue();
        Grant r1 = waiting.get(0).get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        Grant r2 = waiting.get(1).get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(readers()).as("both leading readers hold at once").isEqualTo(2);
        assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken()).isPositive();
        assertThat(r1.fencingToken()).isGreaterThan(w1.fencingToken());
        Thread.sleep(300);
        assertThat(waiting.get(2).isDone()).as("the writer waits for the readers").isFalse();
        assertThat(waiting.get(3).isDone()).as("the reader behind the writer waits for it").isFalse();
        assertThat(backends.get(0).release(r1)).isTrue();
        Thread.sleep(200);
        assertThat(waiting.get(2).isDone()).as("one reader still holds").isFalse();
        assertThat(backends.get(1).release(r2)).isTrue();
        Grant w2 = waiting.get(2).get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(w2.fencingToken()).isGreaterThan(r2.fencingToken());
        assertThat(redis("GET", keys.lock())).as("handed over inside the last reader's release")
                .isEqualTo(w2.owner());
        assertThat(waiting.get(3).isDone()).isFalse();
        assertThat(backends.get(2).release(w2)).isTrue();
        Grant r3 = waiting.get(3).get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(r3.fencingToken()).isGreaterThan(w2.fencingToken());
        assertThat(backends.get(3).release(r3)).isTrue();
        assertThat(residue()).isZero();
    }

    @Test
    void aWriterLeavingTheQueueLetsTheReadersBehindItGo() throws Exception {
        LockBackend a = backend();
        Grant reader = granted(a.tryAcquire(shared(LONG)));
        LockBackend writerSide = backend();
        Future<Optional<Grant>> writer = waitFor(writerSide, exclusive(LONG), Duration.ofSeconds(2));
        await(SLACK, () -> queued() == 1, "the writer to queue");
        LockBackend readerSide = backend();
        Future<Optional<Grant>> behind = waitFor(readerSide, shared(LONG), LONG);
        await(SLACK, () -> queued() == 2, "the reader to queue behind the writer");
        assertThat(writer.get(SLACK.toSeconds(), TimeUnit.SECONDS)).as("the writer times out").isEmpty();
        Grant late = behind.get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(readers()).isEqualTo(2);
        assertThat(readerSide.release(late)).isTrue();
        assertThat(a.release(reader)).isTrue();
        assertThat(residue()).isZero();
    }

    /** Fair mode has no markers: a crashed writer is a queue entry that lapses. */
    @Override
    @Test
    void aCrashedWritersMarkerLapsesByItself() throws Exception {
        LockBackend a = backend();
        long now = Long.parseLong(RedisCli.run(server.port(), "TIME").split("\n")[0].trim()) * 1000;
        redis("ZADD", keys.queue(), "0", "ghost");
        redis("HSET", keys.waiters(), "ghost", (now + 1500) + ":60000");
        assertThat(a.tryAcquire(shared(LONG)).isGranted()).as("a live writer queued first").isFalse();
        Grant reader = a.acquire(shared(LONG), SLACK).orElseThrow();
        assertThat(queued()).as("the lapsed entry is purged").isZero();
        a.release(reader);
        assertThat(residue()).isZero();
    }
}
