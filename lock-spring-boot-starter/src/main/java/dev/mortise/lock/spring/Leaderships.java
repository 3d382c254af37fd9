package dev.mortise.lock.spring;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured {@link Leadership} groups of this instance, by group name; what
 * {@link LeaderOnly}, the {@code locks} actuator endpoint, the health contributor and the metrics
 * read. Immutable and thread-safe.
 */
public final class Leaderships {

    private final Map<String, Leadership> groups;

    public Leaderships(List<Leadership> groups) {
        Map<String, Leadership> byName = new LinkedHashMap<>();
        for (Leadership leadership : groups) {
            if (byName.putIfAbsent(leadership.group(), leadership) != null) {
                throw new IllegalArgumentException("Two Leadership beans for group '" + leadership.group()
                        + "'; configure each group once, under mortise.lock.leadership." + leadership.group());
            }
        }
        this.groups = Collections.unmodifiableMap(byName);
    }

    /**
     * The group named {@code group}.
     *
     * @throws IllegalStateException if it is not configured, naming the property to set
     */
    public Leadership get(String group) {
        Leadership leadership = groups.get(group);
        if (leadership == null) {
            throw new IllegalStateException("Leadership group '" + group + "' is not configured; configured groups: "
                    + groups.keySet() + ". Add mortise.lock.leadership." + group + ".enabled=true (see "
                    + "docs/spring-boot.md, \"Leader election\").");
        }
        return leadership;
    }

    /** Whether {@code group} is configured. */
    public boolean contains(String group) {
        return groups.containsKey(group);
    }

    /** Every group, in configuration order. */
    public Collection<Leadership> all() {
        return groups.values();
    }

    @Override
    public String toString() {
        return "Leaderships" + groups.keySet();
    }
}
