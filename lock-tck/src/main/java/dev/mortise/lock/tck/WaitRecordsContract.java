package dev.mortise.lock.tck;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait-record store every bundled backend keeps for deadlock detection ({@link WaitRecords},
 * behind {@link LockBackend#waitRecords()}), checked against the real server through the
 * {@code @Nested} class {@code LockBackendContractSuite.WaitRecordStore}: written by one backend
 * and read by another (two processes), replaced, removed only by its own nonce, expired by the
 * server, and leaving nothing behind ({@code waitRecordsOnServer}).
 *
 * <p>Tagged {@code deadlock}, so it runs alone with {@code -Dgroups=deadlock -Dtest=<the contract test>}.
 */
@Tag("deadlock")
public abstract class WaitRecordsContract extends NestedContract {

    private final List<LockBackend> backends = new ArrayList<>();

    protected WaitRecordsContract(LockBackendContractSuite contract) {
        super(contract);
    }

    @AfterEach
    void closeBackends() {
        backends.forEach(LockBackend::close);
    }

    private WaitRecords store() throws Exception {
        LockBackend backend = contract.newBackend();
        backends.add(backend);
        assertThat(backend.waitRecords()).as("every bundled backend keeps wait records: %s", backend.name())
                .isPresent();
        return backend.waitRecords().orElseThrow();
    }

    /** A holder id as the core makes them: 16 lowercase hex digits. */
    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    private static String nonce() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void aRecordWrittenByOneProcessIsReadByAnotherUnderEachHolderId() throws Exception {
        WaitRecords writer = store();
        WaitRecords reader = store();
        List<String> ids = List.of(holderId(), holderId(), holderId());
        String text = "waits for 'order:1' since 42 ☃ \n\t\"quoted\" {braces} % _ \\";
        Duration applied = writer.publish(ids, nonce(), text, LONG);
        assertThat(applied).isGreaterThanOrEqualTo(LONG);
        String absent = holderId();
        List<String> asked = new ArrayList<>(ids);
        asked.add(absent);
        Map<String, String> read = reader.read(asked);
        assertThat(read).containsOnlyKeys(ids);
        assertThat(read.values()).containsOnly(text);
        writer.remove(ids, nonceOfNothing());
        assertThat(reader.read(ids)).as("a removal with another nonce deletes nothing").hasSize(3);
    }

    private static String nonceOfNothing() {
        return nonce();
    }

    @Test
    void aNewRecordReplacesTheOldAndOnlyItsOwnNonceRemovesIt() throws Exception {
        WaitRecords store = store();
        String id = holderId();
        String first = nonce();
        String second = nonce();
        store.publish(List.of(id), first, "first", LONG);
        store.publish(List.of(id), second, "second", LONG);
        assertThat(store.read(List.of(id))).containsExactly(Map.entry(id, "second"));
        store.remove(List.of(id), first);
        assertThat(store.read(List.of(id))).as("a late removal of the older record").containsExactly(Map.entry(id, "second"));
        store.remove(List.of(id), second);
        assertThat(store.read(List.of(id))).isEmpty();
        assertThat(contract.waitRecordsOnServer(List.of(id))).as("entries left on the server").isZero();
        store.remove(List.of(id), second);
    }

    /**
     * Two records written together with the same TTL: the one not rewritten is expired by the server
     * and leaves nothing; the one rewritten well within its TTL outlives it (one wait of a TTL or two
     * for both).
     */
    @Test
    void aRecordNotRewrittenIsExpiredByTheServerWhileARewrittenOneStays() throws Exception {
        WaitRecords writer = store();
        WaitRecords reader = store();
        List<String> expiring = List.of(holderId(), holderId());
        String kept = holderId();
        String keptNonce = nonce();
        Duration applied = writer.publish(expiring, nonce(), "expiring", Duration.ofSeconds(1));
        assertThat(applied).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(10));
        writer.publish(List.of(kept), keptNonce, "kept", Duration.ofSeconds(1));
        assertThat(reader.read(expiring)).hasSize(2);
        long deadline = System.nanoTime() + applied.plus(SLACK).toNanos();
        long pastFirstTtl = System.nanoTime() + applied.toNanos() * 3 / 2;
        while (!reader.read(expiring).isEmpty() || System.nanoTime() - pastFirstTtl < 0) {
            assertThat(System.nanoTime() - deadline).as("the server to expire both entries within %s", applied.plus(SLACK))
                    .isNegative();
            Thread.sleep(applied.toMillis() / 5);
            writer.publish(List.of(kept), keptNonce, "kept", Duration.ofSeconds(1));
            assertThat(reader.read(List.of(kept))).as("a record rewritten well within its TTL").containsKey(kept);
        }
        await(SLACK, () -> count(expiring) == 0, "nothing left of the expired entries on the server");
        writer.remove(List.of(kept), keptNonce);
        assertThat(reader.read(List.of(kept))).isEmpty();
        assertThat(contract.waitRecordsOnServer(List.of(kept))).isZero();
    }

    @Test
    void manyHolderIdsAndALongTextRoundTrip() throws Exception {
        WaitRecords store = store();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(holderId());
        }
        StringBuilder text = new StringBuilder();
        while (text.length() < 2700) {
            text.append("ключ-€-").append(text.length()).append(' ');
        }
        String nonce = nonce();
        store.publish(ids, nonce, text.toString(), LONG);
        Map<String, String> read = store().read(ids);
        assertThat(read).hasSize(64);
        assertThat(read.values()).containsOnly(text.toString());
        store.remove(ids, nonce);
        assertThat(store.read(ids)).isEmpty();
        assertThat(contract.waitRecordsOnServer(ids)).isZero();
        assertThat(store.read(List.of())).isEmpty();
    }

    private int count(List<String> ids) {
        try {
            return contract.waitRecordsOnServer(ids);
        } catch (Exception e) {
            throw new AssertionError("counting wait records on the server failed", e);
        }
    }
}
