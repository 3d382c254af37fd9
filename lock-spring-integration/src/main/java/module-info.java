/**
 * Spring Integration on Mortise. Exports both packages, which are API: the lock registry
 * ({@code dev.mortise.lock.integration}) and its Spring Boot auto-configuration
 * ({@code dev.mortise.lock.integration.autoconfigure}), which is open to Spring's modules that
 * build it and bind its properties. Spring Boot is optional ({@code requires static}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.integration {
    requires transitive dev.mortise.lock;
    requires transitive spring.integration.core;
    requires static spring.boot;
    requires static spring.boot.autoconfigure;
    requires static spring.context;
    requires static spring.beans;
    requires static spring.core;

    exports dev.mortise.lock.integration;
    exports dev.mortise.lock.integration.autoconfigure;

    opens dev.mortise.lock.integration.autoconfigure to spring.core, spring.beans, spring.context, spring.boot;
}
