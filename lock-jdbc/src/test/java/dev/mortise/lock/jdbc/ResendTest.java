package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A resend's grant counts from the first send, and a refused resend is no grant (issue 28 item 2), on every
 * dialect and in every mode.
 *
 * <p>After a broken connection (SQLState 08) the backend sends an acquire once more, and the first
 * send may have committed. Here it has: the first acquire statement runs for real, then its
 * connection "breaks" before the answer is read. The resend is then granted (the row, or the entry,
 * is the request's own), and that grant must count from before the first send: the database's
 * expiry of what the first send wrote counts from its statement, and the resend may keep it. The
 * fault is below the backend (a proxy over the real driver's statement); the databases are real. When
 * something happens between the first send and the resend that makes the resend refuse (a writer's
 * marker; the one permit is the first send's), the resend is busy: the entry its first send left is not
 * its grant.
 * Each dialect in its own subclass and table.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ResendTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** The acquire statements of the three dialects (and only those: renew, release and DDL are not upserts). */
    private static final List<String> ACQUIRES = List.of("ON CONFLICT (lock_key)", "ON DUPLICATE KEY UPDATE",
            "MERGE INTO");

    private final String table = "resend_" + UUID.randomUUID().toString().substring(0, 8);
    private final Random random = new Random();
    private final AtomicBoolean armed = new AtomicBoolean();
    /** {@link System#nanoTime()} after the first send ran on the server, before its connection broke. */
    private final AtomicLong firstSendDone = new AtomicLong();
    private final AtomicLong tokenAfterFirstSend = new AtomicLong();
    /** What happens on the server after the first send committed and before its connection breaks. */
    private volatile Runnable betweenCommitAndAnswer = () -> { };
    private String key;
    private JdbcLockBackend plain;
    private JdbcLockBackend faulty;

    protected abstract DataSource dataSource();

    @BeforeEach
    void createBackends() {
        plain = JdbcLockBackend.builder(dataSource()).tableName(table).createTableIfMissing(true).build();
        faulty = JdbcLockBackend.builder(faulty(dataSource())).tableName(table).build();
        // Varied keys: a Unicode or ASCII head, different lengths, no common test prefix.
        String head = random.nextBoolean() ? "ключ" : "k";
        key = head + "/" + UUID.randomUUID().toString().substring(0, 4 + random.nextInt(28));
    }

    @AfterEach
    void dropTable() throws SQLException {
        faulty.close();
        plain.close();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + plain.tableName());
        }
    }

    @Test
    void anExclusiveResendKeepsTheFirstSendsTokenAndCountsFromIt() {
        Grant grant = resent(() -> faulty.tryAcquire(request(LockMode.EXCLUSIVE, null)));
        assertThat(grant.fencingToken()).as("the token the first send wrote, which the resend keeps")
                .isEqualTo(tokenAfterFirstSend.get());
    }

    @Test
    void aWaitingExclusiveResendCountsFromTheFirstSend() {
        Grant grant = resent(() -> waited(request(LockMode.EXCLUSIVE, null)));
        assertThat(grant.fencingToken()).isEqualTo(tokenAfterFirstSend.get());
    }

    @Test
    void aSharedResendCountsFromTheFirstSend() {
        Grant grant = resent(() -> faulty.tryAcquire(request(LockMode.SHARED, null)));
        assertThat(grant.fencingToken()).as("the resend's own grant raised the key's token")
                .isGreaterThanOrEqualTo(tokenAfterFirstSend.get());
    }

    @Test
    void aWaitingSharedResendCountsFromTheFirstSend() {
        Grant grant = resent(() -> waited(request(LockMode.SHARED, null)));
        assertThat(grant.fencingToken()).isGreaterThanOrEqualTo(tokenAfterFirstSend.get());
    }

    @Test
    void aPermitResendCountsFromTheFirstSend() {
        Grant grant = resent(() -> waited(request(LockMode.SHARED, new Permits(1, 2))));
        assertThat(grant.fencingToken()).isGreaterThanOrEqualTo(tokenAfterFirstSend.get());
    }

    @Test
    void aBatchResendIsRefusedOrCountsFromTheFirstSend() {
        String second = key + "·2";
        LockRequest one = request(LockMode.EXCLUSIVE, null);
        LockRequest two = new LockRequest(second, "o:" + UUID.randomUUID(), LEASE, false);
        armed.set(true);
        long before = System.nanoTime();
        List<Grant> grants = faulty.tryAcquireAll(List.of(one, two));
        assertThat(armed).as("the fault was injected").isFalse();
        // PostgreSQL's batch takes the request's own rows again; MySQL's and H2's check refuses any held key
        // of the batch, its own first send's included, and the first send is then cleaned up.
        for (Grant grant : grants) {
            assertThat(grant.requestedAtNanos()).as("a resend's grant counts from the first send")
                    .isBetween(before, firstSendDone.get());
            assertThat(faulty.release(grant)).isTrue();
        }
    }

    @Test
    void aWaitingSharedResendThatIsRefusedIsNoGrant() throws Exception {
        String writerOwner = "w:" + UUID.randomUUID();
        CompletableFuture<Optional<Grant>> writer = new CompletableFuture<>();
        betweenCommitAndAnswer = () -> {
            // The reader's first send committed; now a writer waits (and marks the row) before the answer arrives.
            CompletableFuture.runAsync(() -> writer.complete(waitedFor(plain,
                    new LockRequest(key, writerOwner, LEASE, false), Duration.ofSeconds(20))));
            awaitMarker(writerOwner);
        };
        armed.set(true);
        Optional<Grant> reader = faulty.acquire(request(LockMode.SHARED, null), Duration.ofSeconds(3));
        assertThat(armed).as("the fault was injected").isFalse();
        assertThat(reader).as("the resend was refused (a writer's marker): its first send's entry is no grant, "
                + "and the writer, granted once that entry is cleaned up, holds the key to the end of the wait").isEmpty();
        Grant write = writer.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(plain.release(write)).isTrue();
    }

    @Test
    void aPermitResendThatIsRefusedIsNoGrant() throws Exception {
        armed.set(true);
        Attempt mine = faulty.tryAcquire(request(LockMode.SHARED, new Permits(1, 1)));
        assertThat(armed).as("the fault was injected").isFalse();
        assertThat(mine.isGranted()).as("the resend was refused (its first send's permit fills the one permit): "
                + "that permit is no grant of the resend").isFalse();
        // The first send's permit is cleaned up: the one permit comes free for somebody else.
        Grant other = waitedFor(plain, request(LockMode.SHARED, new Permits(1, 1)), Duration.ofSeconds(20))
                .orElseThrow();
        assertThat(plain.release(other)).isTrue();
    }

    private static Optional<Grant> waitedFor(JdbcLockBackend backend, LockRequest request, Duration wait) {
        try {
            return backend.acquire(request, wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Until the row of the key carries {@code owner}'s waiting-writer marker (polled: no push for it). */
    private void awaitMarker(String owner) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - until < 0) {
            try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
                    "SELECT COUNT(*) FROM " + plain.tableName() + " WHERE waiting_writer = ?")) {
                s.setString(1, owner);
                try (ResultSet rows = s.executeQuery()) {
                    if (rows.next() && rows.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("the writer never marked the row");
    }

    /** Runs {@code acquire} with the fault armed; the resend is granted, counting from the first send. */
    private Grant resent(java.util.function.Supplier<Attempt> acquire) {
        armed.set(true);
        long before = System.nanoTime();
        Attempt attempt = acquire.get();
        assertThat(armed).as("the fault was injected").isFalse();
        assertThat(attempt.isGranted()).as("the first send committed the request's own hold; the resend finds it")
                .isTrue();
        Grant grant = attempt.grant().orElseThrow();
        assertThat(grant.requestedAtNanos()).as("a resend's grant counts from the first send, not the resend")
                .isBetween(before, firstSendDone.get());
        assertThat(faulty.release(grant)).as("the hold is the server's").isTrue();
        return grant;
    }

    private Attempt waited(LockRequest request) {
        return waitedFor(faulty, request, Duration.ofSeconds(10)).map(Attempt::granted).orElse(Attempt.busy(null));
    }

    private LockRequest request(LockMode mode, Permits permits) {
        return new LockRequest(key, "o:" + UUID.randomUUID(), LEASE, false, mode, permits);
    }

    private long rowToken() {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT MAX(fencing_token) FROM " + plain.tableName())) {
            try (ResultSet rows = s.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first armed acquire statement runs for real; then its connection "breaks" before the answer is read. */
    private DataSource faulty(DataSource target) {
        return proxy(DataSource.class, target, (method, result, args) -> method.getName().equals("getConnection")
                ? proxy(Connection.class, result, (m, r, a) -> m.getName().equals("prepareStatement")
                        && ACQUIRES.stream().anyMatch(((String) a[0])::contains)
                        ? proxy(PreparedStatement.class, r, this::breakAfterRunning) : r)
                : result);
    }

    private Object breakAfterRunning(Method method, Object result, Object[] args) throws SQLException {
        if ((method.getName().equals("executeQuery") || method.getName().equals("executeUpdate"))
                && armed.compareAndSet(true, false)) {
            if (result instanceof ResultSet rows) {
                rows.close();
            }
            tokenAfterFirstSend.set(rowToken());
            betweenCommitAndAnswer.run();
            firstSendDone.set(System.nanoTime());
            throw new SQLException("injected: connection reset after the statement committed", "08006");
        }
        return result;
    }

    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object result, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, Object target, After after) {
        InvocationHandler handler = (p, method, args) -> {
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, result, args);
        };
        return type.cast(Proxy.newProxyInstance(ResendTest.class.getClassLoader(), new Class<?>[]{type}, handler));
    }
}
