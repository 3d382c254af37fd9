package dev.mortise.lock.kotlin

import dev.mortise.lock.architecture.PackageRules
import org.junit.jupiter.api.Test

/**
 * The package rules of lock-kotlin, on its compiled classes ([PackageRules.assertStandard]): no
 * package cycle, no use of another module's internal packages.
 */
class LockKotlinArchitectureTest {

    @Test
    fun packages() {
        PackageRules.of(MortiseOwner::class.java).assertStandard()
    }
}
