/**
 * ShedLock on Mortise. Exports both packages, which are API: the provider
 * ({@code dev.mortise.lock.shedlock}) and its Spring Boot auto-configuration
 * ({@code dev.mortise.lock.shedlock.autoconfigure}), which is open to Spring's modules that build
 * it and bind its properties. Spring Boot is optional ({@code requires static}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.shedlock {
    requires transitive dev.mortise.lock;
    requires transitive net.javacrumbs.shedlock.core;
    requires org.slf4j;
    requires static spring.boot;
    requires static spring.boot.autoconfigure;
    requires static spring.context;
    requires static spring.beans;
    requires static spring.core;

    exports dev.mortise.lock.shedlock;
    exports dev.mortise.lock.shedlock.autoconfigure;

    opens dev.mortise.lock.shedlock.autoconfigure to spring.core, spring.beans, spring.context, spring.boot;
}
