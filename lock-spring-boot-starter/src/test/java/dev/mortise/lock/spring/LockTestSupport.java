package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Shared set-up of the aspect tests: the starter on the in-process backend. */
final class LockTestSupport {

    private LockTestSupport() {
    }

    static ApplicationContextRunner localRunner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=local", "mortise.lock.wait-for=200ms");
    }

    /** The key of the innermost lease of this thread (inside a locked method). */
    static String currentKey() {
        return LockContext.current().map(LockLease::key).orElse(null);
    }

    /** Holds {@code key} as another owner than any thread, as another instance would. */
    static LockLease holdElsewhere(LockClient client, String key) {
        return client.acquire(LockSpec.of(key).owner("another-instance").waitFor(java.time.Duration.ofSeconds(5)));
    }
}
