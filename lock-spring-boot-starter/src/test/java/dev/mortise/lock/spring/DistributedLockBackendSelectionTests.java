package dev.mortise.lock.spring;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Several backends at once: the annotation's {@code backend} picks one, else the default. */
class DistributedLockBackendSelectionTests {

    private static final LocalLockServer EAST = new LocalLockServer("east");
    private static final LocalLockServer WEST = new LocalLockServer("west");

    @Test
    void annotationChoosesTheBackend() {
        LockTestSupport.localRunner()
                .withPropertyValues("mortise.lock.backend=east")
                .withBean("east", LockBackend.class, () -> new LocalLockBackend(EAST))
                .withBean("west", LockBackend.class, () -> new LocalLockBackend(WEST))
                .withBean(Spread.class)
                .run(context -> {
                    Spread spread = context.getBean(Spread.class);
                    assertThat(spread.onDefault()).extracting(HeldLock::key).containsExactly("d");
                    assertThat(spread.onWest()).extracting(HeldLock::key).containsExactly("w");
                });
    }

    public static class Spread {
        private final LockClients clients;

        public Spread(LockClients clients) {
            this.clients = clients;
        }

        /** What the east backend holds while this runs. */
        @DistributedLock(key = "'d'")
        public List<HeldLock> onDefault() {
            assertThat(clients.get("west").heldLocks()).isEmpty();
            return clients.get("east").heldLocks();
        }

        /** What the west backend holds while this runs. */
        @DistributedLock(key = "'w'", backend = "west")
        public List<HeldLock> onWest() {
            assertThat(clients.get("east").heldLocks()).isEmpty();
            return clients.get("west").heldLocks();
        }
    }
}
