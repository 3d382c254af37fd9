/**
 * The starter's auto-configuration: the {@code mortise.lock.*} properties, the backends and the
 * clients built from them, the {@code @DistributedLock} engine applied through proxies or
 * AspectJ, fencing, metrics, observations, actuator support and leadership groups.
 *
 * <p>API: the public types here (the auto-configuration and properties classes,
 * {@code LockClientBuilderCustomizer}, {@code LockBackendFactory}, the conditions) may be used
 * by applications; the beans back off when the application defines its own. This
 * package is the starter's assembly point: it wires the internal engine, and its package-private
 * adapters let the engine call public beans ({@code Fences}, {@code LockObservations}) without
 * those types implementing internal ones.
 */
package dev.mortise.lock.spring.autoconfigure;
