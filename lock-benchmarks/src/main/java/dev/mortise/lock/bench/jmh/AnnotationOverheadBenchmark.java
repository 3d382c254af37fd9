package dev.mortise.lock.bench.jmh;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What {@code @DistributedLock} costs over a direct {@link LockClient} call: both lock and
 * release the same key on the in-process backend (no network), so the difference is the
 * proxy, the SpEL key and the interceptor. {@code unlocked} is the bare method through
 * the same proxy-less bean class, for scale.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnnotationOverheadBenchmark {

    private static final Duration WAIT = Duration.ofSeconds(1);

    private AnnotationConfigApplicationContext context;
    private LockedService service;
    private LockedService plain;
    private LockClient client;
    private LockClient bareClient;
    private String id;

    /** The application: the starter's auto-configuration on the local backend, and one annotated bean. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(MortiseLockAutoConfiguration.class)
    static class Application {
        @Bean
        LockedService lockedService() {
            return new LockedService();
        }
    }

    @Setup
    public void start() {
        context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark",
                Map.of("mortise.lock.backend", "local", "mortise.lock.wait-for", "1s")));
        context.register(Application.class);
        context.refresh();
        service = context.getBean(LockedService.class);
        client = context.getBean(LockClient.class);
        plain = new LockedService();
        bareClient = LockClient.builder(dev.mortise.lock.local.LocalLockBackend.create()).build();
        id = "42";
        if (service.getClass() == LockedService.class) {
            throw new IllegalStateException("the starter did not proxy the annotated bean");
        }
    }

    @TearDown
    public void stop() {
        bareClient.close();
        context.close();
    }

    @Benchmark
    public int annotated() {
        return service.locked(id);
    }

    @Benchmark
    public int direct() {
        try (LockLease lease = client.acquire("order:" + id, WAIT)) {
            return plain.unlocked(id);
        }
    }

    /** The core alone: a client built by hand, no Spring, no listeners. */
    @Benchmark
    public int core() {
        try (LockLease lease = bareClient.acquire("order:" + id, WAIT)) {
            return plain.unlocked(id);
        }
    }

    @Benchmark
    public int unlocked() {
        return plain.unlocked(id);
    }
}
