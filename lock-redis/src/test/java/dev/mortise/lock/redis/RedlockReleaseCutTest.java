package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock's release when the answer of <em>one</em> node of three is cut off with its connection
 * (the wire suite cuts every node's at once). The hold is on that node and one other only (the third
 * lost it, as a node restarted without its data), so one node says "had", one "not there", and the
 * cut one decides. Redisson does not send the release again: that node does not answer, the release
 * is unconfirmed, and no loss may be told (a majority never said "not there"). The Lettuce subclass
 * writes the unanswered release again on reconnecting and the resend finds nothing (the first send
 * took it): the release is had only if that node's "not there" counts as "had", node by node
 * ({@code MaybeResent}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockReleaseCutTest {

    private final List<RedisServer> servers = new ArrayList<>();
    private StallingProxy proxy;
    private LockClient client;
    /** The key's random suffix: in every request that names the key. */
    private final String marker = UUID.randomUUID().toString();
    private final String key = "release-cut:" + marker;

    @BeforeEach
    void start() throws Exception {
        for (int i = 0; i < 3; i++) {
            servers.add(new RedisServer());
            servers.get(i).start(); // one at a time: FreePorts could hand out a port twice meanwhile
        }
        proxy = new StallingProxy(servers.get(1).port());
        RedlockBackend backend = builder().nodes(servers.get(0).address(), proxy.redisAddress(), servers.get(2).address())
                .nodeTimeout(Duration.ofSeconds(3)).build();
        client = LockClient.builder(backend).build();
    }

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder();
    }

    /** Whether the driver sends a release again after its connection broke (then the release must be had). */
    boolean resends() {
        return false;
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        servers.forEach(RedisServer::close);
    }

    @Test
    void aReleaseCutOffOnOneNodeOfThreeIsNoLoss() throws Exception {
        client.acquire(LockSpec.of(key + ":warm").lease(Duration.ofSeconds(30))).close(); // connections open
        LockLease lease = client.acquire(LockSpec.of(key).lease(Duration.ofSeconds(30)));
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(event -> lost.incrementAndGet());
        String lock = RedisKeys.of("mortise", key).lock();
        assertThat(servers.get(2).command("DEL", lock)).as("the hold was on the third node").isEqualTo(":1");
        proxy.cutReply(marker);

        try {
            lease.close();
        } catch (LockLostException e) {
            throw new AssertionError("a release cut off on one node reported as a loss: " + e, e);
        } catch (LockBackendException e) {
            // Unconfirmed: the cut node did not answer in time (no resend); its lease ends the hold there.
            assertThat(resends()).as("a driver that resends gets the node's answer: the release is confirmed, "
                    + "not %s", e).isFalse();
        }

        assertThat(proxy.cuts()).as("the release's answer from the proxied node was cut off").isEqualTo(1);
        assertThat(lost.get()).as("onLost for a hold that was released, not lost").isZero();
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", lock)).as("released everywhere (the first send took it)")
                    .isEqualTo(":0");
        }
        try (LockLease next = client.acquire(LockSpec.of(key).lease(Duration.ofSeconds(30)))) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }
}
