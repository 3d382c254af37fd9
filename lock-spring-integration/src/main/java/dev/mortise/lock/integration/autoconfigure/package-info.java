/**
 * Spring Boot auto-configuration of the {@code MortiseLockRegistry} over the starter's lock
 * client, and its properties.
 *
 * <p>API: users may depend on these types (to order against or exclude the auto-configuration,
 * or bind the properties).
 */
package dev.mortise.lock.integration.autoconfigure;
