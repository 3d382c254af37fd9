/**
 * The Spring Boot starter. Exports its API packages ({@code dev.mortise.lock.spring} and
 * {@code actuate}, {@code aspectj}, {@code autoconfigure}, {@code fencing}, {@code metrics}); the
 * {@code @DistributedLock} engine ({@code internal}) is not exported.
 *
 * <p>Spring builds the auto-configuration, binds the properties and runs the engine's beans by
 * reflection, so those packages are open to Spring's modules (deep reflection at run time only:
 * opening gives no compile-time access). Everything a backend or feature needs beyond Spring's core
 * is optional ({@code requires static}, never {@code transitive}, which would make every
 * application compile against it): an application on the module path requires the backend and
 * feature modules it uses (a type of one shows in an API signature only where that feature is
 * used: the actuator endpoints, Micrometer meters, Reactor, AspectJ, fencing).
 *
 * <p>The ZooKeeper backend is the exception: ZooKeeper's jars cannot be modules (its two jars share
 * packages), so lock-zookeeper, Curator and ZooKeeper stay on the class path, which this module
 * reads ({@code --add-reads dev.mortise.lock.spring=ALL-UNNAMED}: in the build, and at run time for
 * an application that uses the ZooKeeper backend with the starter on the module path).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.spring {
    requires transitive dev.mortise.lock;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires transitive spring.beans;
    requires transitive spring.core;
    requires spring.aop;
    requires spring.expression;
    requires transitive java.sql;
    requires java.desktop; // java.beans (property and key checks)
    requires org.slf4j;
    requires static org.jspecify;

    // Backends and features, each used only when the application has it.
    requires static dev.mortise.lock.redis;
    requires static dev.mortise.lock.etcd;
    requires static dev.mortise.lock.jdbc;
    requires static dev.mortise.lock.fencing;
    requires static redisson;
    requires static lettuce.core;
    requires static spring.data.redis;
    requires static jetcd.core;
    requires static spring.jdbc;
    requires static spring.tx;
    requires static org.aspectj.weaver;
    requires static reactor.core;
    requires static org.reactivestreams;
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static micrometer.commons;
    requires static spring.boot.actuator;
    requires static spring.boot.actuator.autoconfigure;
    requires static spring.boot.health;
    requires static com.fasterxml.jackson.annotation;

    exports dev.mortise.lock.spring;
    exports dev.mortise.lock.spring.actuate;
    exports dev.mortise.lock.spring.aspectj;
    exports dev.mortise.lock.spring.autoconfigure;
    exports dev.mortise.lock.spring.fencing;
    exports dev.mortise.lock.spring.metrics;

    // Spring reads and builds the auto-configuration and binds its properties (without this, reading
    // the configuration classes fails); SpEL evaluates @DistributedLock keys over the engine's root
    // object (#root.args fails without it), and Spring builds and calls the engine's beans.
    opens dev.mortise.lock.spring.autoconfigure to spring.core, spring.beans, spring.context, spring.boot;
    opens dev.mortise.lock.spring.internal to spring.core, spring.beans, spring.context, spring.aop,
            spring.expression;
}
