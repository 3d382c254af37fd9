/**
 * The Redis backends. Exports {@code dev.mortise.lock.redis} (API) only; the implementation
 * ({@code internal} and the driver packages) is not exported. Redisson is required and appears in
 * the builders' signatures; Lettuce, which the builders' Lettuce methods show too, is optional
 * ({@code requires static}, not {@code transitive}, which would make every application compile
 * against it): an application on the module path that chooses the Lettuce driver requires
 * {@code lettuce.core} itself.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.redis {
    requires transitive dev.mortise.lock;
    requires transitive redisson;
    requires static lettuce.core;
    // Netty comes with Redisson (and Lettuce); the Lettuce driver uses it directly.
    requires io.netty.buffer;
    requires io.netty.common;

    exports dev.mortise.lock.redis;
}
