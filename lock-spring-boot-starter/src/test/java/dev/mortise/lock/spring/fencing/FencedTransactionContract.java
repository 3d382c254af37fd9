package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockFencingAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock(fence = ...)} and {@link Fences} on a real database: two
 * application contexts ("instances") lock through one {@link LocalLockServer} and write one
 * database. A holder paused past its explicit lease (a pause hook in its transaction
 * manager, between taking the lock and beginning the transaction) is refused by the fence
 * check, its transaction rolls back and its method body never runs, while the newer holder's
 * committed write stands.
 */
abstract class FencedTransactionContract {

    /** The database both instances write; the fence table is created by the first context. */
    abstract DataSource dataSource();

    private final LocalLockServer locks = new LocalLockServer();
    private String account;
    /** A second account, named after the first so that its fence resource sorts after the first's. */
    private String account2;

    @BeforeEach
    void createAccount() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS fenced_accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
        account = "acct-" + UUID.randomUUID().toString().substring(0, 8);
        jdbc.update("INSERT INTO fenced_accounts (id, balance) VALUES (?, 0)", account);
        account2 = account + "-2";
        jdbc.update("INSERT INTO fenced_accounts (id, balance) VALUES (?, 0)", account2);
    }

    ApplicationContextRunner instance() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                        MortiseLockMetricsAutoConfiguration.class, MortiseLockFencingAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=local", "mortise.lock.fence.create-table=true")
                .withBean(LocalLockBackend.class, () -> new LocalLockBackend(locks))
                .withBean(DataSource.class, this::dataSource)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withUserConfiguration(Transactions.class, Accounts.class);
    }

    @Test
    void staleHolderRollsBackWithStaleFencingTokenAndTheNewerWriteStands() {
        instance().run(a -> instance().run(b -> {
            Accounts first = a.getBean(Accounts.class);
            Accounts second = b.getBean(Accounts.class);
            AtomicReference<Long> staleToken = new AtomicReference<>();
            // Instance A pauses after taking the lock and before its transaction begins, until its
            // 300 ms lease has run out; meanwhile instance B takes the lock and commits +10.
            a.getBean(PauseHook.class).once(() -> {
                LockLease lease = LockContext.current().orElseThrow();
                staleToken.set(lease.fencingToken());
                waitUntilInvalid(lease);
                CompletableFuture.runAsync(() -> second.add(account, 10)).join();
            });

            assertThatThrownBy(() -> first.add(account, 1))
                    .isInstanceOf(StaleFencingTokenException.class)
                    .satisfies(e -> {
                        StaleFencingTokenException stale = (StaleFencingTokenException) e;
                        assertThat(stale.resource()).isEqualTo("account:" + account);
                        assertThat(stale.staleToken()).isEqualTo(staleToken.get());
                        assertThat(stale.newerToken()).isGreaterThan(staleToken.get());
                    })
                    .hasMessageContaining("account:" + account)
                    .satisfies(e -> assertThat(e.getSuppressed()).hasAtLeastOneElementOfType(LockLostException.class));

            assertThat(balance()).as("B's write stands, A's never happened").isEqualTo(10);
            assertThat(first.bodies()).as("A's method body did not run").isZero();
            assertThat(second.bodies()).isEqualTo(1);
            assertThat(a.getBean(MeterRegistry.class).get(LockMetrics.FENCE_REJECTED)
                    .tag("backend", "local").tag("name", "'account:' + #id").counter().count()).isEqualTo(1.0);
            assertThat(b.getBean(MeterRegistry.class).find(LockMetrics.FENCE_REJECTED).counter()).isNull();
            assertThat(locks.isHeld("account:" + account)).isFalse();

            // A again, with a new lease (a new token): writes.
            first.add(account, 1);
            assertThat(balance()).isEqualTo(11);
        }));
    }

    @Test
    void freshHoldersWriteAndTheFenceRecordsTheirToken() {
        instance().run(a -> instance().run(b -> {
            a.getBean(Accounts.class).add(account, 5);
            b.getBean(Accounts.class).add(account, 7);
            a.getBean(Accounts.class).add(account, 1);
            assertThat(balance()).isEqualTo(13);
            Long fence = new JdbcTemplate(dataSource()).queryForObject(
                    "SELECT token FROM mortise_fences WHERE resource = ?", Long.class, "account:" + account);
            assertThat(fence).isPositive();
        }));
    }

    /**
     * A 2-key lock with {@code fence = "'balance:' + #lockKey"}: instance A pauses past its lease;
     * B takes one of the two keys (a single-key lock fencing the same resource through #lockKey)
     * and commits. A's transaction is refused on that key's resource and rolls back; B's stands.
     */
    @Test
    void staleHolderOfATwoKeyLockRollsBackOnThePartTakenOverAndTheNewerWriteStands() {
        instance().run(a -> instance().run(b -> {
            Accounts first = a.getBean(Accounts.class);
            Accounts second = b.getBean(Accounts.class);
            String taken = "account:" + account2;
            AtomicReference<Long> staleToken = new AtomicReference<>();
            a.getBean(PauseHook.class).once(() -> {
                LockLease part = LockContext.find(taken).orElseThrow();
                staleToken.set(part.fencingToken());
                waitUntilInvalid(part);
                CompletableFuture.runAsync(() -> second.addOne(account2, 10)).join();
            });

            assertThatThrownBy(() -> first.addAll(List.of(account2, account), 1))
                    .isInstanceOf(StaleFencingTokenException.class)
                    .satisfies(e -> {
                        StaleFencingTokenException stale = (StaleFencingTokenException) e;
                        assertThat(stale.resource()).isEqualTo("balance:" + taken);
                        assertThat(stale.staleToken()).isEqualTo(staleToken.get());
                        assertThat(stale.newerToken()).isEqualTo(fence("balance:" + taken));
                    })
                    .hasMessageContaining("balance:" + taken);

            assertThat(balance(account2)).as("B's write stands").isEqualTo(10);
            assertThat(balance()).as("A's write never happened").isZero();
            assertThat(first.bodies()).as("A's method body did not run").isZero();
            assertThat(fence("balance:account:" + account)).as("A's check of the other key rolled back").isNull();
            assertThat(a.getBean(MeterRegistry.class).get(LockMetrics.FENCE_REJECTED).tag("backend", "local")
                    .counter().count()).isEqualTo(1.0);
            assertThat(locks.isHeld("account:" + account)).isFalse();
            assertThat(locks.isHeld(taken)).isFalse();

            // A again, with a new lease (new tokens): writes both.
            first.addAll(List.of(account, account2), 1);
            assertThat(balance()).isEqualTo(1);
            assertThat(balance(account2)).isEqualTo(11);
        }));
    }

    /** A fresh 2-key lock fences both resources: two fence rows, each with its own part's token. */
    @Test
    void aFreshTwoKeyLockFencesBothResourcesWithTheirPartsTokens() {
        instance().run(a -> {
            Accounts accounts = a.getBean(Accounts.class);
            accounts.addAll(List.of(account, account2), 5);
            assertThat(balance()).isEqualTo(5);
            assertThat(balance(account2)).isEqualTo(5);
            for (String id : List.of(account, account2)) {
                String key = "account:" + id;
                assertThat(fence("balance:" + key)).as(key).isNotNull().isEqualTo(accounts.tokens().get(key));
            }
            assertThat(accounts.tokens()).hasSize(2);
            // Keys that all map to one resource cannot be fenced: refused before the method runs.
            assertThatThrownBy(() -> accounts.addAllOneFence(List.of(account, account2), 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'one-fence'").hasMessageContaining("#lockKey")
                    .hasMessageContaining("Accounts.addAllOneFence(List, long)");
            assertThat(accounts.bodies()).isEqualTo(1);
        });
    }

    @Test
    void fencesCheckInTheCurrentTransactionRefusesAStaleLease() {
        instance().run(a -> instance().run(b -> {
            Fences fences = a.getBean(Fences.class);
            TransactionTemplate transactions = new TransactionTemplate(a.getBean(DataSourceTransactionManager.class));
            LockClient clientA = a.getBean(LockClient.class);
            LockClient clientB = b.getBean(LockClient.class);
            String resource = "account:" + account;
            LockLease stale = clientA.acquire(LockSpec.of(resource).lease(Duration.ofMillis(200))
                    .waitFor(Duration.ofSeconds(5)));
            waitUntilInvalid(stale);
            try (LockLease newer = clientB.acquire(LockSpec.of(resource).waitFor(Duration.ofSeconds(5)))) {
                transactions.executeWithoutResult(status -> {
                    b.getBean(Fences.class).check(resource, newer);
                    new JdbcTemplate(dataSource()).update("UPDATE fenced_accounts SET balance = 3 WHERE id = ?",
                            account);
                });
            }
            assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
                new JdbcTemplate(dataSource()).update("UPDATE fenced_accounts SET balance = 99 WHERE id = ?",
                        account);
                fences.check(resource, stale);
            })).isInstanceOf(StaleFencingTokenException.class);
            assertThat(balance()).as("the write before the check rolled back too").isEqualTo(3);
            assertThat(a.getBean(MeterRegistry.class).get(LockMetrics.FENCE_REJECTED)
                    .tag("backend", "local").tag("name", "programmatic").counter().count()).isEqualTo(1.0);
            assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);
        }));
    }

    long balance() {
        return balance(account);
    }

    long balance(String id) {
        return new JdbcTemplate(dataSource()).queryForObject("SELECT balance FROM fenced_accounts WHERE id = ?",
                Long.class, id);
    }

    /** The committed fence of {@code resource}, or {@code null} if it has none. */
    Long fence(String resource) {
        List<Long> tokens = new JdbcTemplate(dataSource()).queryForList(
                "SELECT token FROM mortise_fences WHERE resource = ?", Long.class, resource);
        return tokens.isEmpty() ? null : tokens.get(0);
    }

    static void waitUntilInvalid(LockLease lease) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lease.isValid()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("lease of " + lease.key() + " still valid after 10 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** A controllable pause: runs once, on the next transaction begun on the thread that set it. */
    static final class PauseHook implements TransactionExecutionListener {
        private final ThreadLocal<Runnable> pending = new ThreadLocal<>();

        void once(Runnable pause) {
            pending.set(pause);
        }

        @Override
        public void beforeBegin(TransactionExecution transaction) {
            Runnable pause = pending.get();
            if (pause != null) {
                pending.remove();
                pause.run();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {
        @Bean
        PauseHook pauseHook() {
            return new PauseHook();
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource, PauseHook pause) {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
            manager.addListener(pause);
            return manager;
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }

    public static class Accounts {
        final AtomicInteger bodies = new AtomicInteger();
        private final JdbcTemplate jdbc;

        public Accounts(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** How many times the method body ran (a method: the bean is a class proxy). */
        public int bodies() {
            return bodies.get();
        }

        /** A read-modify-write under the account's lock, fenced, with an explicit 300 ms lease. */
        @Transactional
        @DistributedLock(key = "'account:' + #id", fence = "'account:' + #id", lease = "300ms", waitFor = "5s")
        public void add(String id, long amount) {
            bodies.incrementAndGet();
            write(id, amount);
        }

        private void write(String id, long amount) {
            long balance = jdbc.queryForObject("SELECT balance FROM fenced_accounts WHERE id = ?", Long.class, id);
            jdbc.update("UPDATE fenced_accounts SET balance = ? WHERE id = ?", balance + amount, id);
        }

        /** The fencing token of each key seen by the last run of a multi-key method. */
        final Map<String, Long> tokens = new ConcurrentHashMap<>();

        /** The tokens (a method: the bean is a class proxy). */
        public Map<String, Long> tokens() {
            return tokens;
        }

        /** A single-key lock fencing "balance:" + its key, through #lockKey. */
        @Transactional
        @DistributedLock(key = "'account:' + #id", fence = "'balance:' + #lockKey", lease = "300ms", waitFor = "5s")
        public void addOne(String id, long amount) {
            bodies.incrementAndGet();
            write(id, amount);
        }

        /** A 2-key lock: one fence per key, "balance:" + that key. */
        @Transactional
        @DistributedLock(key = "#ids.![ 'account:' + #this ]", fence = "'balance:' + #lockKey", lease = "300ms",
                waitFor = "5s")
        public void addAll(List<String> ids, long amount) {
            bodies.incrementAndGet();
            for (String id : ids) {
                tokens.put("account:" + id, LockContext.find("account:" + id).orElseThrow().fencingToken());
                write(id, amount);
            }
        }

        @Transactional
        @DistributedLock(key = "#ids.![ 'account:' + #this ]", fence = "'one-fence'", waitFor = "5s")
        public void addAllOneFence(List<String> ids, long amount) {
            bodies.incrementAndGet();
        }
    }

}
