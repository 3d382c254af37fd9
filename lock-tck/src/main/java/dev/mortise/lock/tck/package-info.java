/**
 * The lock contract test kit (TCK) every backend passes against its real server.
 *
 * <p><b>API for backend writers (the kit):</b> the public types. A backend's test extends
 * {@link dev.mortise.lock.tck.LockBackendContractSuite} (named {@code *ContractTest}, so surefire
 * runs it), supplies its hooks ({@code newBackend}, {@code breakHold}, {@code residueOnServer},
 * ...) and gets the whole contract as nested classes: the mutex contract by concern, and the
 * read-write, multi-key, semaphore, inspection and leadership contracts, plus the randomized
 * {@link dev.mortise.lock.tck.ValidityPropertySuite}. A backend with a wire also nests
 * {@link dev.mortise.lock.tck.WireFaultContract}; {@link dev.mortise.lock.tck.FaultInjectingBackend}
 * and {@link dev.mortise.lock.tck.CountingBackend} wrap a backend for tests of one's own.
 *
 * <p><b>Internal</b> (no compatibility promise): the package-private types, that is the nested
 * contracts' shared base and the mutex contract's parts ({@code *Contract} classes that are not
 * public), the generated semaphore cases, and the property run's model, checks, clients and
 * workers ({@code Property*}, {@code Tracked*}, {@code *Checks}).
 */
package dev.mortise.lock.tck;
