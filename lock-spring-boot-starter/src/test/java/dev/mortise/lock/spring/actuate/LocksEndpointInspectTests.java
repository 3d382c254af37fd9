package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockEndpointAutoConfiguration;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code GET /actuator/locks/{key}}: the endpoint's inspect operation, on the local backend (two
 * instances on one in-process server) and on a real redis-server, and its web mapping.
 */
class LocksEndpointInspectTests {

    private static final LocalLockServer SERVER = new LocalLockServer();
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = new RedisServer();
        redis.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /** An instance whose backend is a local backend on the shared {@link #SERVER}. */
    private final ApplicationContextRunner local = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=locks")
            .withBean(LockBackend.class, () -> new LocalLockBackend(SERVER));

    @Test
    void showsTheHolderOfAKeyToEveryInstanceWithoutItsOwner() {
        String key = "job:" + UUID.randomUUID();
        local.run(one -> local.run(two -> {
            LocksEndpoint mine = one.getBean(LocksEndpoint.class);
            LocksEndpoint theirs = two.getBean(LocksEndpoint.class);
            LocksEndpoint.InspectionDescriptor free = mine.inspect(new String[] {key}, null);
            assertThat(free.held()).isFalse();
            assertThat(free.mode()).isNull();
            assertThat(free.holders()).isEmpty();
            assertThat(free.waiters()).isZero();

            LockClient client = one.getBean(LockClient.class);
            try (LockLease lease = client.acquire(LockSpec.of(key).lease(Duration.ofSeconds(20)))) {
                LocksEndpoint.InspectionDescriptor seen = mine.inspect(new String[] {key}, null);
                assertThat(seen.key()).isEqualTo(key);
                assertThat(seen.backend()).isEqualTo("local");
                assertThat(seen.held()).isTrue();
                assertThat(seen.mode()).isEqualTo("write");
                assertThat(seen.holders()).singleElement().satisfies(h -> {
                    assertThat(h.holderId()).isEqualTo(lease.holderId());
                    assertThat(h.fencingToken()).isEqualTo(lease.fencingToken());
                    assertThat(h.remainingMillis()).isPositive().isLessThanOrEqualTo(20_000L);
                    assertThat(h.heldByThisClient()).isTrue();
                });
                assertThat(mine.locks().held()).as("this instance's list names the same holder id")
                        .singleElement().satisfies(h -> assertThat(h.holderId()).isEqualTo(lease.holderId()));
                assertThat(theirs.inspect(new String[] {key}, "")).satisfies(other -> {
                    assertThat(other.holders()).singleElement().satisfies(h -> {
                        assertThat(h.holderId()).isEqualTo(lease.holderId());
                        assertThat(h.heldByThisClient()).isFalse();
                    });
                });
            }
            assertThat(theirs.inspect(new String[] {key}, null).held()).isFalse();
        }));
    }

    @Test
    void aKeyWithSlashesComesAsPathSegments() {
        local.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            String key = "orders/" + UUID.randomUUID() + "/42";
            try (LockLease lease = client.acquire(key, Duration.ofSeconds(5))) {
                assertThat(context.getBean(LocksEndpoint.class).inspect(key.split("/"), null).holders())
                        .singleElement().satisfies(h -> assertThat(h.holderId()).isEqualTo(lease.holderId()));
            }
        });
    }

    @Test
    void aBadKeyOrBackendIsABadRequestThatSaysWhy() {
        local.run(context -> {
            LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
            assertThatThrownBy(() -> endpoint.inspect(new String[] {" "}, null))
                    .isInstanceOf(InvalidEndpointRequestException.class)
                    .hasMessageContaining("must not be blank").hasMessageContaining("'local'")
                    .satisfies(e -> assertThat(((InvalidEndpointRequestException) e).getReason())
                            .contains("must not be blank"));
            assertThatThrownBy(() -> endpoint.inspect(new String[] {"x".repeat(600)}, null))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("over the limit");
            assertThatThrownBy(() -> endpoint.inspect(new String[] {"k"}, "nope"))
                    .isInstanceOf(InvalidEndpointRequestException.class)
                    .hasMessageContaining("Lock backend 'nope' is not configured");
        });
    }

    /**
     * As the actuator's web layer discovers it: GET {@code locks/{*key}} beside {@code locks}, and a
     * bad key invoked through it is an {@link InvalidEndpointRequestException}, which the web layer
     * answers with 400 and the exception's reason.
     */
    @Test
    void theOperationIsMappedUnderTheLocksPathAndABadKeyIsABadRequest() {
        local.run(context -> {
            WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
                    new ConversionServiceParameterValueMapper(), new EndpointMediaTypes("application/json"),
                    List.of(), List.of(), List.of(), List.of(), List.of());
            List<WebOperation> operations = discoverer.getEndpoints().stream()
                    .filter(e -> e.getEndpointId().toString().equals("locks"))
                    .flatMap(e -> e.getOperations().stream()).toList();
            assertThat(operations).extracting(o -> o.getRequestPredicate().getPath())
                    .containsExactlyInAnyOrder("locks", "locks/{*key}");
            WebOperation inspect = operations.stream()
                    .filter(o -> o.getRequestPredicate().getPath().equals("locks/{*key}")).findFirst().orElseThrow();
            assertThat(inspect.getRequestPredicate().getHttpMethod().name()).isEqualTo("GET");
            assertThatThrownBy(() -> inspect.invoke(new InvocationContext(SecurityContext.NONE,
                    Map.of("key", new String[] {" "}))))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("must not be blank");
            Object free = inspect.invoke(new InvocationContext(SecurityContext.NONE,
                    Map.of("key", new String[] {"a", "b"})));
            assertThat(free).isInstanceOfSatisfying(LocksEndpoint.InspectionDescriptor.class,
                    d -> assertThat(d.key()).isEqualTo("a/b"));
        });
    }

    /**
     * Issue 29 item 6: the docs show {@code "mode": null} and {@code "waiters": null}; Boot's
     * actuator JSON mapper leaves nulls out by default, so the descriptors include them
     * explicitly. Serialized with the mapper the actuator auto-configures.
     */
    @Test
    void fieldsTheBackendDoesNotRecordAreNullInTheJsonNotMissing() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class, MortiseLockEndpointAutoConfiguration.class,
                        JacksonEndpointAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.address=" + redis.address(),
                        "management.endpoints.web.exposure.include=locks")
                .run(context -> {
                    String key = "json:" + UUID.randomUUID();
                    EndpointJsonMapper json = context.getBean(EndpointJsonMapper.class);
                    String free = json.get().writeValueAsString(
                            context.getBean(LocksEndpoint.class).inspect(new String[] {key}, null));
                    assertThat(free).contains("\"mode\":null").contains("\"waiters\":null")
                            .contains("\"holders\":[]").contains("\"held\":false");
                    try (LockLease lease = context.getBean(LockClient.class).acquire(key, Duration.ofSeconds(5))) {
                        String held = json.get().writeValueAsString(
                                context.getBean(LocksEndpoint.class).inspect(new String[] {key}, null));
                        assertThat(held).contains("\"mode\":\"write\"").contains("\"waiters\":null")
                                .contains("\"holderId\":\"" + lease.holderId() + "\"")
                                .contains("\"fencingToken\":" + lease.fencingToken());
                    }
                });
    }

    @Test
    void readsARealRedisServer() {
        ApplicationContextRunner onRedis = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class, MortiseLockEndpointAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.address=" + redis.address(),
                        "management.endpoints.web.exposure.include=locks");
        String key = "inspect:" + UUID.randomUUID();
        onRedis.run(one -> onRedis.run(two -> {
            LockClient client = one.getBean(LockClient.class);
            try (LockLease reader = client.acquire(LockSpec.of(key).shared().lease(Duration.ofSeconds(20)))) {
                LocksEndpoint.InspectionDescriptor seen = two.getBean(LocksEndpoint.class)
                        .inspect(new String[] {key}, "redis");
                assertThat(seen.backend()).isEqualTo("redis");
                assertThat(seen.mode()).isEqualTo("read");
                assertThat(seen.waiters()).as("the default Redis mode cannot count waiters").isNull();
                assertThat(seen.holders()).singleElement().satisfies(h -> {
                    assertThat(h.holderId()).isEqualTo(reader.holderId());
                    assertThat(h.fencingToken()).isEqualTo(reader.fencingToken());
                    assertThat(h.remainingMillis()).isPositive().isLessThanOrEqualTo(20_000L);
                    assertThat(h.heldByThisClient()).isFalse();
                });
                assertThat(one.getBean(LocksEndpoint.class).inspect(new String[] {key}, null).holders())
                        .singleElement().satisfies(h -> assertThat(h.heldByThisClient()).isTrue());
            }
            assertThat(two.getBean(LocksEndpoint.class).inspect(new String[] {key}, null).held()).isFalse();
        }));
    }
}
