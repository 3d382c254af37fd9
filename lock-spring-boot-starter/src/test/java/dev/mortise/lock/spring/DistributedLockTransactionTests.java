package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock} with a real {@code @Transactional} on H2: the lock wraps the
 * transaction, and a lease lost before commit rolls the transaction back.
 */
class DistributedLockTransactionTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner().withBean(Payments.class);

    @Test
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits() {
        runner.withUserConfiguration(TransactionOutside.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            context.getBean(Journal.class).key = "pay:1";
            payments.pay("1", false);
            List<String> seen = context.getBean(Journal.class).entries;
            assertThat(seen).containsExactly("begin: locked=true", "method: transaction=true",
                    "committed: lock held=true");
            assertThat(context.getBean(LocalLockBackend.class).server().isHeld("pay:1")).isFalse();
            assertThat(payments.count("1")).isEqualTo(1);
        });
    }

    @Test
    void leaseLostBeforeCommitRollsTheTransactionBack() {
        runner.withUserConfiguration(TransactionOutside.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            context.getBean(Journal.class).key = "pay:2";
            assertThatThrownBy(() -> payments.pay("2", true)).isInstanceOf(LockLostException.class)
                    .satisfies(e -> assertThat(((LockLostException) e).reason()).isEqualTo(LostReason.FORCE_RELEASED))
                    .hasMessageContaining("pay:2");
            assertThat(context.getBean(Journal.class).entries).containsExactly("begin: locked=true",
                    "method: transaction=true", "rolled back");
            assertThat(payments.count("2")).isZero();
        });
    }

    @Test
    void lockInsideTheTransactionStillCoversTheCommit() {
        // The transaction advisor ordered first: the lock is taken inside the transaction,
        // so it is bound to it and released only after it completes.
        runner.withUserConfiguration(TransactionFirst.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            context.getBean(Journal.class).key = "pay:3";
            payments.pay("3", false);
            assertThat(context.getBean(Journal.class).entries).containsExactly("begin: locked=false",
                    "method: transaction=true", "committed: lock held=true");
            assertThat(context.getBean(LocalLockBackend.class).server().isHeld("pay:3")).isFalse();
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void leaseLostInsideTheTransactionRollsItBackToo() {
        runner.withUserConfiguration(TransactionFirst.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            context.getBean(Journal.class).key = "pay:4";
            assertThatThrownBy(() -> payments.pay("4", true)).isInstanceOf(LockLostException.class);
            assertThat(payments.count("4")).isZero();
        });
    }

    /** What the transaction saw, in order. */
    static final class Journal {
        final List<String> entries = new CopyOnWriteArrayList<>();
        volatile String key;
    }

    @Configuration(proxyBeanMethods = false)
    abstract static class Database {
        @Bean
        Journal journal() {
            return new Journal();
        }

        @Bean(destroyMethod = "shutdown")
        DataSource dataSource() {
            var db = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
            new JdbcTemplate(db).execute("create table payments (id varchar(20))");
            return db;
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource, Journal journal,
                                                        LocalLockBackend backend) {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
            manager.addListener(new TransactionExecutionListener() {
                @Override
                public void beforeBegin(TransactionExecution transaction) {
                    journal.entries.add("begin: locked=" + backend.server().isHeld(journal.key));
                }
            });
            return manager;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionOutside extends Database {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionFirst extends Database {
    }

    public static class Payments {
        private final JdbcTemplate jdbc;
        private final LockClient locks;
        private final LocalLockBackend backend;
        private final Journal journal;

        public Payments(JdbcTemplate jdbc, LockClient locks, LocalLockBackend backend, Journal journal) {
            this.jdbc = jdbc;
            this.locks = locks;
            this.backend = backend;
            this.journal = journal;
        }

        @Transactional
        @DistributedLock(key = "'pay:' + #id")
        public void pay(String id, boolean loseTheLease) {
            journal.entries.add("method: transaction=" + TransactionSynchronizationManager.isActualTransactionActive());
            jdbc.update("insert into payments (id) values (?)", id);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    journal.entries.add("committed: lock held=" + backend.server().isHeld("pay:" + id));
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == STATUS_ROLLED_BACK) {
                        journal.entries.add("rolled back");
                    }
                }
            });
            if (loseTheLease) {
                locks.forceRelease("pay:" + id);
            }
        }

        public int count(String id) {
            return jdbc.queryForObject("select count(*) from payments where id = ?", Integer.class, id);
        }
    }
}
