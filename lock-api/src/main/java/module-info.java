/**
 * Mortise's user API and SPI. Exports the API ({@code dev.mortise.lock}, the in-process backend
 * {@code local}, the dual-write {@code migration} backend) and the SPI ({@code spi}); the core
 * ({@code internal} and its sub-packages) is not exported and is reached only as the
 * {@link dev.mortise.lock.CoreProvider} service.
 */
module dev.mortise.lock {
    requires org.slf4j;

    exports dev.mortise.lock;
    exports dev.mortise.lock.spi;
    exports dev.mortise.lock.local;
    exports dev.mortise.lock.migration;

    uses dev.mortise.lock.CoreProvider;
    provides dev.mortise.lock.CoreProvider with dev.mortise.lock.internal.DefaultCoreProvider;
}
