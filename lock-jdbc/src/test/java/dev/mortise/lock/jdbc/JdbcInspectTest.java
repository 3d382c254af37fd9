package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcLockBackend#inspect} on a real database: free keys (no row is created), an
 * exclusive hold with owner, token and time left by the database's clock, readers one holder
 * each, expired holds and reader entries reported free, a waiting writer (waiters unknown:
 * empty), keys of every shape (hashed ones too), and that inspecting writes nothing (the row
 * is unchanged and the next token is the one it would have been).
 */
abstract class JdbcInspectTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String[] KEY_FORMS = {"inspect:%s", "/%s", "#%s", " %s", "%%%s", "ü%s", "Ключ %s",
            "\uD83D\uDD12%s", "(shared)%s", "\u0000%s", "x".repeat(400) + "%s"};

    protected JdbcLockBackend one;
    protected JdbcLockBackend two;

    protected abstract DataSource dataSource();

    /** The DDL of the version before shared locks (as {@link JdbcSharedModeTest#previousDdl}). */
    protected abstract String previousDdl(String table);

    @BeforeEach
    void backends() {
        one = JdbcLockBackend.builder(dataSource()).createTableIfMissing(true).build();
        two = JdbcLockBackend.builder(dataSource()).build();
    }

    @AfterEach
    void close() {
        one.close();
        two.close();
    }

    private static String owner() {
        return UUID.randomUUID() + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Grant granted(Attempt attempt) {
        return attempt.grant().orElseThrow(() -> new AssertionError("expected a grant, the lock was busy"));
    }

    private static void assertHolder(KeyState.Holder holder, Grant grant, Duration lease, boolean tokenStored) {
        assertThat(holder.owner()).isEqualTo(grant.owner());
        if (tokenStored) {
            assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
        } else {
            assertThat(holder.fencingToken()).isEmpty();
        }
        assertThat(holder.remaining()).hasValueSatisfying(r -> assertThat(r).isPositive().isLessThanOrEqualTo(lease));
    }

    /** Every column of the key's row, as text; empty if there is no row. */
    private List<String> row(String key) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT * FROM " + one.tableName() + " WHERE lock_key = ?")) {
            String stored = StoredKey.of(key, 255).value();
            if (one.dialect() == JdbcDialect.MYSQL) {
                s.setBytes(1, stored.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else {
                s.setString(1, stored);
            }
            try (ResultSet rows = s.executeQuery()) {
                List<String> values = new ArrayList<>();
                ResultSetMetaData meta = rows.getMetaData();
                while (rows.next()) {
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        Object value = rows.getObject(i);
                        values.add(value instanceof byte[] bytes ? java.util.Arrays.toString(bytes)
                                : value instanceof java.sql.Array array ? java.util.Arrays.toString((Object[]) array.getArray())
                                : String.valueOf(value));
                    }
                }
                return values;
            }
        }
    }

    @Test
    void aFreeKeyIsFreeAndGetsNoRow() throws Exception {
        String key = "inspect-free:" + UUID.randomUUID();
        KeyState state = one.inspect(key);
        assertThat(state.held()).isFalse();
        assertThat(state).isEqualTo(KeyState.free(OptionalInt.empty()));
        assertThat(row(key)).as("no row created").isEmpty();
    }

    @Test
    void anExclusiveHoldShowsOwnerTokenAndTimeLeftAndInspectingWritesNothing() throws Exception {
        for (String form : KEY_FORMS) {
            String key = String.format(form, UUID.randomUUID());
            Grant grant = granted(one.tryAcquire(new LockRequest(key, owner(), LEASE, false)));
            List<String> before = row(key);
            KeyState state = two.inspect(key);
            assertThat(row(key)).as("the row is unchanged").isEqualTo(before);

            assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(state.holders()).hasSize(1);
            assertHolder(state.holders().get(0), grant, LEASE, true);
            assertThat(state.waiters()).isEmpty();

            assertThat(one.release(grant)).isTrue();
            assertThat(two.inspect(key)).as(key).isEqualTo(KeyState.free(OptionalInt.empty()));
            Grant next = granted(two.tryAcquire(new LockRequest(key, owner(), LEASE, true)));
            assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
            two.release(next);
        }
    }

    @Test
    void readersAreOneHolderEachWithTheirOwnTimeLeftAndAWaitingWriterIsNotCounted() throws Exception {
        String key = String.format(KEY_FORMS[6], UUID.randomUUID());
        Grant r1 = granted(one.tryAcquire(new LockRequest(key, owner(), LEASE, false, LockMode.SHARED)));
        Grant r2 = granted(two.tryAcquire(new LockRequest(key, owner(), Duration.ofSeconds(10), true,
                LockMode.SHARED)));
        Grant r3 = granted(one.tryAcquire(new LockRequest(key, owner(), LEASE, false, LockMode.SHARED)));

        KeyState readers = two.inspect(key);
        assertThat(readers.mode()).isEqualTo(LockMode.SHARED);
        assertThat(readers.holders()).extracting(KeyState.Holder::owner)
                .containsExactlyInAnyOrder(r1.owner(), r2.owner(), r3.owner());
        for (KeyState.Holder holder : readers.holders()) {
            Grant grant = holder.owner().equals(r2.owner()) ? r2 : holder.owner().equals(r1.owner()) ? r1 : r3;
            assertHolder(holder, grant, grant == r2 ? Duration.ofSeconds(10) : LEASE, false);
        }
        assertThat(readers.waiters()).isEmpty();

        CompletableFuture<Optional<Grant>> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return two.acquire(new LockRequest(key, owner(), LEASE, false), Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300); // let it leave its marker; nothing below depends on it having done so
        KeyState withWriter = one.inspect(key);
        assertThat(withWriter.mode()).isEqualTo(LockMode.SHARED);
        assertThat(withWriter.holders()).hasSize(3);
        assertThat(withWriter.waiters()).as("the row cannot count waiters").isEmpty();

        one.release(r1);
        two.release(r2);
        one.release(r3);
        Grant w = writer.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState writing = one.inspect(key);
        assertThat(writing.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertHolder(writing.holders().get(0), w, LEASE, true);
        two.release(w);
        assertThat(one.inspect(key).held()).isFalse();
    }

    @Test
    void expiredHoldsAndExpiredReadersAreNotReported() throws Exception {
        String key = String.format(KEY_FORMS[2], UUID.randomUUID());
        Duration shortLease = Duration.ofMillis(300);
        granted(one.tryAcquire(new LockRequest(key, owner(), shortLease, false)));
        awaitFree(key);
        assertThat(two.inspect(key)).isEqualTo(KeyState.free(OptionalInt.empty()));

        Grant longReader = granted(one.tryAcquire(new LockRequest(key, owner(), LEASE, false, LockMode.SHARED)));
        granted(two.tryAcquire(new LockRequest(key, owner(), shortLease, false, LockMode.SHARED)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (one.inspect(key).holders().size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        KeyState one_left = one.inspect(key);
        assertThat(one_left.mode()).isEqualTo(LockMode.SHARED);
        assertThat(one_left.holders()).hasSize(1);
        assertHolder(one_left.holders().get(0), longReader, LEASE, false);
        one.release(longReader);
        assertThat(two.inspect(key).held()).isFalse();
    }

    @Test
    void aTableOfThePreviousVersionIsInspectedWithoutItsReaderColumns() throws Exception {
        String table = "old_inspect_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = dataSource().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute(previousDdl(table));
        }
        try (JdbcLockBackend old = JdbcLockBackend.builder(dataSource()).tableName(table).build()) {
            String key = String.format(KEY_FORMS[7], UUID.randomUUID());
            assertThat(old.inspect(key)).isEqualTo(KeyState.free(OptionalInt.empty()));
            Grant grant = granted(old.tryAcquire(new LockRequest(key, owner(), LEASE, false)));
            KeyState state = old.inspect(key);
            assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertHolder(state.holders().get(0), grant, LEASE, true);
            old.release(grant);
            assertThat(old.inspect(key).held()).isFalse();
        }
    }

    private void awaitFree(String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (one.inspect(key).held()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the hold of '" + key + "' did not expire");
            }
            Thread.sleep(50);
        }
    }
}
