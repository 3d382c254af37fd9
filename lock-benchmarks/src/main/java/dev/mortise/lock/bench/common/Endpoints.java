package dev.mortise.lock.bench.common;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the servers of a run listen, as {@code name=value} pairs ({@code redis},
 * {@code etcd}, {@code zookeeper}, {@code postgres}, {@code mariadb}); passed as one
 * argument to the child JVMs of the handoff scenario so they reach the same servers.
 */
public final class Endpoints {

    private final Map<String, String> values = new LinkedHashMap<>();

    public Endpoints put(String name, String value) {
        values.put(name, value);
        return this;
    }

    /**
     * @throws IllegalStateException if the server was not started in this run
     */
    public String get(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalStateException("no '" + name + "' server in this run; started: " + values.keySet());
        }
        return value;
    }

    /** {@code redis=redis://127.0.0.1:1234|etcd=...}. */
    public String encode() {
        StringBuilder out = new StringBuilder();
        values.forEach((k, v) -> out.append(out.length() == 0 ? "" : "|").append(k).append('=').append(v));
        return out.toString();
    }

    public static Endpoints decode(String text) {
        Endpoints endpoints = new Endpoints();
        if (!text.isEmpty()) {
            for (String pair : text.split("\\|")) {
                int eq = pair.indexOf('=');
                endpoints.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return endpoints;
    }

    @Override
    public String toString() {
        return encode();
    }
}
