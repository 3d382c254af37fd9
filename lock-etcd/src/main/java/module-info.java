/**
 * The etcd backend. Exports {@code dev.mortise.lock.etcd} (API) only; {@code internal} is not
 * exported. jetcd's jars carry no module name, so {@code jetcd.core} and {@code jetcd.common} are the
 * names Java derives from the jars' file names ({@code jetcd-core-<version>.jar}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.etcd {
    requires transitive dev.mortise.lock;
    requires transitive jetcd.core;
    requires jetcd.common;
    requires transitive io.netty.handler;
    requires io.grpc;
    requires org.slf4j;

    exports dev.mortise.lock.etcd;
}
