package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.SharedSql;
import dev.mortise.lock.jdbc.internal.StatementRuns;
import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The renewal of many grants at once ({@link dev.mortise.lock.spi.LockBackend#renewAll}), parted
 * by the rows they live in: the exclusive ones in one statement per {@link StatementRuns run}, and
 * the shared and permit ones (reader entries) in one more per run (two on MySQL), all on one
 * connection. Thread-safe.
 */
final class Renewals {

    private final LockSql sql;
    private final SharedSql shared;
    private final TableVersion version;
    private final JdbcCalls calls;

    Renewals(LockSql sql, SharedSql shared, TableVersion version, JdbcCalls calls) {
        this.sql = sql;
        this.shared = shared;
        this.version = version;
        this.calls = calls;
    }

    /** Renews {@code grants}; answers those that are gone (expired, taken, deleted), empty when all were renewed. */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        List<Grant> exclusive = new ArrayList<>(grants.size());
        List<Grant> readers = new ArrayList<>();
        for (Grant grant : grants) {
            (grant.state() instanceof SharedKey ? readers : exclusive).add(grant);
        }
        List<LockSql.Held> exclusiveHolds = new ArrayList<>(exclusive.size());
        for (Grant grant : exclusive) {
            exclusiveHolds.add(new LockSql.Held(grant.state(), grant.owner()));
        }
        List<LockSql.Held> readerHolds = new ArrayList<>(readers.size());
        for (Grant grant : readers) {
            readerHolds.add(new LockSql.Held(((SharedKey) grant.state()).stored(), grant.owner()));
        }
        String first = grants.iterator().next().key();
        long millis = Leases.millis(lease);
        BitSet[] gone = calls.runIdempotent(grants.size() == 1 ? first : null, "renew " + grants.size()
                + " locks (the first is '" + first + "')", c -> new BitSet[]{
                exclusiveHolds.isEmpty() ? new BitSet() : sql.renewAll(c, exclusiveHolds, millis),
                readerHolds.isEmpty() ? new BitSet() : version.shared(() -> StatementRuns.renew(readerHolds,
                        run -> shared.renewAllShared(c, run, millis)))});
        if (gone[0].isEmpty() && gone[1].isEmpty()) {
            return Set.of();
        }
        Set<Grant> lost = new HashSet<>();
        for (int i = gone[0].nextSetBit(0); i >= 0; i = gone[0].nextSetBit(i + 1)) {
            lost.add(exclusive.get(i));
        }
        for (int i = gone[1].nextSetBit(0); i >= 0; i = gone[1].nextSetBit(i + 1)) {
            lost.add(readers.get(i));
        }
        return lost;
    }
}
