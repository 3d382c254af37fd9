/**
 * Spring Boot auto-configuration of the ShedLock provider over the starter's lock client, and
 * its {@code mortise.lock.shedlock.*} properties.
 *
 * <p>API: users may depend on these types (to order against or exclude the auto-configuration,
 * or bind the properties).
 */
package dev.mortise.lock.shedlock.autoconfigure;
