package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.OnLost;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.core.Ordered;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration of Mortise locks ({@code mortise.lock.*}).
 */
@ConfigurationProperties("mortise.lock")
public class MortiseLockProperties {

    /** Default advisor order: before (outside) {@code @Transactional}, whose advisor has the lowest precedence. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /**
     * Whether to auto-configure Mortise locks.
     */
    private boolean enabled = true;

    /**
     * Name of the default backend: "redis", "etcd", "zookeeper", "jdbc", "local", or any
     * configured backend name. May be omitted when exactly one backend is configured.
     * "local" locks within this JVM only (tests, single-instance services).
     */
    private String backend;

    /**
     * Lease of holds without an explicit lease. They are renewed every third of it while
     * held, so it bounds how long a crashed holder blocks others.
     */
    private Duration defaultLease = Duration.ofSeconds(30);

    /**
     * How long @DistributedLock methods with onBusy = WAIT wait for a busy lock when the
     * annotation gives no waitFor.
     */
    private Duration waitFor = Duration.ofSeconds(10);

    /**
     * What a @DistributedLock call is told when its lock is lost while the method runs,
     * for annotations that give no onLost: "notify" (the method runs on; the call ends with
     * LockLostException), "interrupt" (interrupt the thread running a synchronous method) or
     * "cancel" (a Mono/Flux signals LockLostException, a CompletionStage completes
     * exceptionally with it).
     */
    private OnLost onLost = OnLost.NOTIFY;

    /**
     * Longest lock key accepted, in UTF-8 bytes.
     */
    private int maxKeyBytes = 512;

    /**
     * Order of the @DistributedLock advice among other advice. The default puts the lock
     * outside @Transactional (taken before the transaction begins, released after it
     * completes); a value at or above the transaction advisor's order puts it inside.
     */
    private int order = DEFAULT_ORDER;

    /**
     * How @DistributedLock is applied: "proxy" (Spring AOP proxies; calls from a bean to
     * itself are not locked) or "aspectj" (the application weaves DistributedLockAspect).
     */
    private Mode mode = Mode.PROXY;

    /**
     * The in-process backend.
     */
    private final Local local = new Local();

    /**
     * The locks actuator endpoint.
     */
    private final Actuator actuator = new Actuator();

    /**
     * Client settings per backend name, overriding the global ones, or whole backends
     * declared by name and type (mortise.lock.backends.<name>.type).
     */
    private final Map<String, Backend> backends = new LinkedHashMap<>();

    /**
     * The dual-locking phase of a move from one lock store to another.
     */
    private final Migration migration = new Migration();

    /**
     * Deadlock detection across instances, for every lock client the starter builds.
     */
    @NestedConfigurationProperty
    private final DeadlockDetectionProperties deadlockDetection = new DeadlockDetectionProperties();

    /** The fence guard of lock-fencing ({@code @DistributedLock(fence = ...)}, {@code Fences}). */
    private final Fence fence = new Fence();

    /**
     * Leader election per group (mortise.lock.leadership.<group>.enabled, .key, .backend): this
     * instance contends for each configured group's leadership from start-up, and
     * @LeaderOnly("<group>") methods run only on the leader.
     */
    private final Map<String, LeadershipProperties> leadership = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public Duration getDefaultLease() {
        return defaultLease;
    }

    public void setDefaultLease(Duration defaultLease) {
        this.defaultLease = defaultLease;
    }

    public Duration getWaitFor() {
        return waitFor;
    }

    public void setWaitFor(Duration waitFor) {
        this.waitFor = waitFor;
    }

    public OnLost getOnLost() {
        return onLost;
    }

    public void setOnLost(OnLost onLost) {
        this.onLost = onLost;
    }

    public int getMaxKeyBytes() {
        return maxKeyBytes;
    }

    public void setMaxKeyBytes(int maxKeyBytes) {
        this.maxKeyBytes = maxKeyBytes;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public Local getLocal() {
        return local;
    }

    public Map<String, Backend> getBackends() {
        return backends;
    }

    public Actuator getActuator() {
        return actuator;
    }

    public DeadlockDetectionProperties getDeadlockDetection() {
        return deadlockDetection;
    }

    public Fence getFence() {
        return fence;
    }

    public Map<String, LeadershipProperties> getLeadership() {
        return leadership;
    }

    /** Settings of the auto-configured {@code JdbcFenceGuard} (when lock-fencing is on the classpath). */
    public static class Fence {

        /**
         * Create the fence table (mortise_fences) if it is missing, at the first fence check (so
         * the application starts while the database is down). Off by default: create it with
         * your schema tool (DDL in docs/fencing.md).
         */
        private boolean createTable;

        /** The fence table, a plain identifier, optionally schema.table. */
        private String tableName = "mortise_fences";

        /**
         * SQL dialect of the fence table's database: postgresql, mysql (also for MariaDB) or h2.
         * Defaults to the one the DataSource's JDBC URL names, else it is read from the database
         * at the first fence check.
         */
        private String dialect;

        public String getDialect() {
            return dialect;
        }

        public void setDialect(String dialect) {
            this.dialect = dialect;
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }
    }

    public Migration getMigration() {
        return migration;
    }

    /**
     * Moving locks from one store to another without a flag day: with both set, the default
     * client locks every key in {@code from}, then in {@code to} (see docs/spring-boot.md,
     * "Moving to another lock store").
     */
    public static class Migration {

        /**
         * The backend the locks are moving away from ("redis", "etcd", "zookeeper", "jdbc", or
         * a name under mortise.lock.backends): taken first, released last. Instances still on
         * the previous version lock only this one.
         */
        private String from;

        /**
         * The backend the locks are moving to: taken second, released first; its fencing
         * tokens are the ones reported.
         */
        private String to;

        public String getFrom() {
            return from;
        }

        public void setFrom(String from) {
            this.from = from;
        }

        public String getTo() {
            return to;
        }

        public void setTo(String to) {
            this.to = to;
        }

        boolean isConfigured() {
            return from != null && !from.isBlank() || to != null && !to.isBlank();
        }
    }

    /** The {@code locks} actuator endpoint. */
    public static class Actuator {

        /**
         * The force-release write operation of the endpoint.
         */
        private final ForceRelease forceRelease = new ForceRelease();

        public ForceRelease getForceRelease() {
            return forceRelease;
        }
    }

    /** The force-release write operation of the {@code locks} endpoint. */
    public static class ForceRelease {

        /**
         * Whether the locks endpoint offers its write operation (POST /actuator/locks), which
         * force-releases any lock this instance holds. Off: the endpoint is read-only. Turn it
         * on only behind authorization (see docs/spring-boot.md).
         */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** How the annotation is applied. */
    public enum Mode {
        /** Spring AOP proxies. */
        PROXY,
        /** AspectJ weaving of DistributedLockAspect, done by the application. */
        ASPECTJ
    }

    /** The in-process backend. */
    public static class Local {

        /**
         * Whether to register the in-process backend ("local") even when it is not the
         * default backend. It is registered anyway when mortise.lock.backend=local.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Client settings of one backend, or a whole backend declared by name. */
    public static class Backend {

        /**
         * Declares a backend of this name and type: "redis", "etcd", "zookeeper", "jdbc" or
         * "local", with the type's settings under the same prefix (for example
         * mortise.lock.backends.orders.address for a Redis backend named orders). Empty: these
         * settings apply to the backend of this name configured otherwise.
         */
        private String type;

        /**
         * Lease of holds without an explicit lease on this backend; defaults to
         * mortise.lock.default-lease.
         */
        private Duration defaultLease;

        /**
         * Longest key accepted on this backend, in UTF-8 bytes; defaults to
         * mortise.lock.max-key-bytes.
         */
        private Integer maxKeyBytes;

        public String getType() {
            return type;
        }

        public void setType(String type) {
            this.type = type;
        }

        public Duration getDefaultLease() {
            return defaultLease;
        }

        public void setDefaultLease(Duration defaultLease) {
            this.defaultLease = defaultLease;
        }

        public Integer getMaxKeyBytes() {
            return maxKeyBytes;
        }

        public void setMaxKeyBytes(Integer maxKeyBytes) {
            this.maxKeyBytes = maxKeyBytes;
        }
    }
}
