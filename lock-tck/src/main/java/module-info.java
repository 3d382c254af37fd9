/**
 * The lock contract test kit, for backend writers' tests. Exports both packages, whose public types
 * are the kit ({@code dev.mortise.lock.tck} and the server launchers {@code dev.mortise.lock.tck.server});
 * their package-private types are internal. Opens {@code dev.mortise.lock.tck} to JUnit, which
 * instantiates and runs the nested contract classes reflectively.
 */
module dev.mortise.lock.tck {
    requires transitive dev.mortise.lock;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;
    requires java.net.http;
    requires java.management;

    exports dev.mortise.lock.tck;
    exports dev.mortise.lock.tck.server;

    opens dev.mortise.lock.tck to org.junit.platform.commons;
}
