package dev.mortise.lock.spring.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rewrites the fixes that the core and the backends name in their messages (builder methods,
 * written for code that builds a client by hand) into the Spring properties that set them, for
 * messages a Spring application shows: health details and start-up failures.
 */
public final class SpringTerms {

    private static final Map<String, String> PROPERTIES = new LinkedHashMap<>();

    static {
        PROPERTIES.put("EtcdLockBackendBuilder.operationTimeout", "mortise.lock.etcd.operation-timeout");
        PROPERTIES.put("ZookeeperLockBackendBuilder.operationTimeout", "mortise.lock.zookeeper.operation-timeout");
        PROPERTIES.put("ZookeeperLockBackendBuilder.authorization", "the CuratorFramework bean's authorization");
        PROPERTIES.put("JdbcLockBackend.builder(dataSource).dialect(JdbcDialect.…)", "mortise.lock.jdbc.dialect");
        PROPERTIES.put("createTableIfMissing(true)", "mortise.lock.jdbc.create-table=true");
        PROPERTIES.put("LockClientBuilder.maxKeyBytes", "mortise.lock.max-key-bytes");
        PROPERTIES.put("LockClientBuilder.defaultLease", "mortise.lock.default-lease");
        PROPERTIES.put("set LockClientBuilder.defaultLease", "set mortise.lock.default-lease");
        PROPERTIES.put("LockClientBuilder.clockDrift", "a LockClientBuilderCustomizer bean calling clockDrift");
    }

    private SpringTerms() {
    }

    /** {@code message} with every builder-method fix named as its Spring property; null stays null. */
    public static String translate(String message) {
        if (message == null) {
            return null;
        }
        String result = message;
        for (Map.Entry<String, String> term : PROPERTIES.entrySet()) {
            result = result.replace(term.getKey(), term.getValue());
        }
        return result;
    }
}
