package dev.mortise.lock.spring.internal;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.StringValueResolver;

import java.time.Duration;

/** Parses the duration attributes of {@code @DistributedLock}: "5s", "PT5S", "${...}". */
final class DurationAttribute {

    private DurationAttribute() {
    }

    /**
     * @return the duration, or {@code null} if the attribute is empty (after placeholders)
     * @throws IllegalStateException naming the method, the attribute and the fix
     */
    static Duration parse(String value, String attribute, String method, StringValueResolver resolver,
                          boolean zeroAllowed) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String resolved;
        try {
            resolved = resolver == null ? value : resolver.resolveStringValue(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@DistributedLock(" + attribute + " = \"" + value + "\") on " + method
                    + ": " + e.getMessage() + ". Define the property or give a default: \"${name:5s}\".", e);
        }
        if (resolved == null || resolved.isBlank()) {
            return null;
        }
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(resolved.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@DistributedLock(" + attribute + " = \"" + value + "\") on " + method
                    + " is not a duration" + (resolved.equals(value) ? "" : " (resolved to \"" + resolved + "\")")
                    + ". Write it as \"500ms\", \"5s\", \"2m\" or ISO-8601 \"PT5S\".", e);
        }
        if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
            throw new IllegalStateException("@DistributedLock(" + attribute + " = \"" + value + "\") on " + method
                    + " must be " + (zeroAllowed ? "zero or positive" : "positive") + ", was " + duration);
        }
        return duration;
    }
}
