package dev.mortise.lock.redis;

import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.FreePorts;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DnsResolvers;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract, and the Cluster's own tests (one script per slot, renewals per slot), on a
 * real three-master Redis Cluster through the Lettuce driver: Lettuce routes each script by the
 * slot of its first key.
 */
class RedisLettuceClusterContractTest extends RedisClusterContractTest {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().clusterNodes(cluster.addresses()).driver(RedisDriver.LETTUCE).build();
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().clusterNodes("redis://127.0.0.1:" + FreePorts.next())
                .driver(RedisDriver.LETTUCE).operationTimeout(operationTimeout).build();
    }

    /**
     * Lettuce maps each address the nodes announce to the node's proxy by a socket address resolver,
     * on client resources of the backend's own. A supplied client is left open by its backend, and
     * resources given to a client outlive it: the backend returned shuts both down when it closes.
     */
    @Override
    protected LockBackend backendThrough(java.util.Map<Integer, Integer> proxyPortByNodePort) {
        ClientResources resources = ClientResources.builder()
                .socketAddressResolver(MappingSocketAddressResolver.create(DnsResolvers.UNRESOLVED,
                        address -> HostAndPort.of(address.getHostText(),
                                proxyPortByNodePort.getOrDefault(address.getPort(), address.getPort()))))
                .build();
        RedisClusterClient client = RedisClusterClient.create(resources, cluster.addresses()[0]);
        LockBackend backend;
        try {
            backend = RedisLockBackend.builder().lettuce(client).build();
        } catch (RuntimeException e) {
            LettuceShutdown.quietly(client, resources);
            throw e;
        }
        return new ForwardingLockBackend(backend) {
            @Override
            public void close() {
                try {
                    super.close();
                } finally {
                    LettuceShutdown.quietly(client, resources);
                }
            }
        };
    }

    @Test
    void suppliedClusterClientRoutesEveryKeyToItsSlotAndIsLeftOpen() throws Exception {
        RedisClusterClient lettuce = RedisClusterClient.create(cluster.addresses()[0]);
        try {
            List<Grant> grants = new ArrayList<>();
            Set<Integer> owners = new HashSet<>();
            try (LockBackend backend = RedisLockBackend.builder().lettuce(lettuce).build()) {
                for (int i = 0; i < 12; i++) {
                    String key = key("supplied-" + i);
                    grants.add(backend.tryAcquire(new LockRequest(key, "owner-" + i, Duration.ofSeconds(30), false))
                            .grant().orElseThrow());
                    owners.add(cluster.ownerOf(RedisKeys.of("mortise", key).lock()));
                    assertThat(residueOnServer(key)).as("held on the owner of its slot").isEqualTo(1);
                }
                assertThat(owners).as("keys spread over the masters").hasSizeGreaterThan(1);
                assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty();
                for (Grant grant : grants) {
                    assertThat(backend.release(grant)).isTrue();
                }
            }
            try (StatefulRedisClusterConnection<String, String> connection = lettuce.connect()) {
                assertThat(connection.sync().ping()).as("the application's client stays open").isEqualTo("PONG");
            }
        } finally {
            LettuceShutdown.quietly(lettuce);
        }
    }
}
