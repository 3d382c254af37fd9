package dev.mortise.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LostReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A loss found by one of the client's own threads (the expiry timer, the watchdog) while the
 * client closes: the expiry timer can mark a hold lost just before {@code close()} does, and
 * then hand the notice to a notifier that close has shut down meanwhile. The notice must still
 * reach the hold's {@code onLost} callbacks and listeners, once, on a thread that is not one of
 * the client's own (the property suite saw a hold lost to expiry during a close never told).
 */
class NotifierTest {

    private static final LockLostEvent LOST = new LockLostEvent("k", "test", 7, LostReason.EXPIRED, Instant.now(),
            Duration.ofMillis(5), null);

    @Test
    void aLossFoundByAClientThreadAfterShutdownIsStillTold() throws Exception {
        CountDownLatch listenerTold = new CountDownLatch(1);
        LockListener listener = new LockListener() {
            @Override
            public void onEvent(LockEvent event) {
                if (event.type() == LockEvent.Type.LOST) {
                    listenerTold.countDown();
                }
            }
        };
        Notifier notifier = new Notifier("test", new Events("test", List.of(listener)));
        notifier.shutdown();
        CountDownLatch told = new CountDownLatch(1);
        AtomicReference<String> toldOn = new AtomicReference<>();
        Thread expiryThread = new Thread(() -> notifier.lost(LOST, LockMode.EXCLUSIVE, 5, List.of(event -> {
            toldOn.set(Thread.currentThread().getName());
            told.countDown();
        })), "mortise-expiry-test");
        expiryThread.start();
        expiryThread.join();

        assertThat(told.await(10, TimeUnit.SECONDS)).as("onLost told after the notifier shut down").isTrue();
        assertThat(toldOn.get()).as("not on the client's own expiry thread").isNotEqualTo("mortise-expiry-test");
        assertThat(listenerTold.await(10, TimeUnit.SECONDS)).as("the LOST event told too").isTrue();
    }
}
