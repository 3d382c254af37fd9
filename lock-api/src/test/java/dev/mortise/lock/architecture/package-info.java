/**
 * The architecture checks every module's tests run, shipped in lock-api's test jar: the package
 * rules ({@link dev.mortise.lock.architecture.PackageRules}: no cycle, no reaching into another
 * module's {@code internal}), no wait inside a monitor
 * ({@link dev.mortise.lock.architecture.MonitorWaits}), the module rules
 * ({@link dev.mortise.lock.architecture.ModuleRules}: a module exports its API and SPI packages
 * and no internal one, as a consumer module compiled against it sees), and application modules
 * run on a module path ({@link dev.mortise.lock.architecture.ModuleApplication}). Internal test
 * support: no compatibility promise.
 */
package dev.mortise.lock.architecture;
