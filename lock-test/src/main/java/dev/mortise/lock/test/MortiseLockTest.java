package dev.mortise.lock.test;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class (or method) whose tests take a {@link TestLockClient} parameter: a
 * {@code LockClient} with lease time under the test's control, closed after each test. Same
 * as {@code @ExtendWith(MortiseLockExtension.class)}.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(MortiseLockExtension.class)
public @interface MortiseLockTest {
}
