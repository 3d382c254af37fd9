/** Test support for users of Mortise. Exports {@code dev.mortise.lock.test} (API). */
module dev.mortise.lock.test {
    requires transitive dev.mortise.lock;
    requires transitive org.junit.jupiter.api;

    exports dev.mortise.lock.test;
}
