package dev.mortise.lock.jdbc.internal;

import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * Cuts the holds of one renewal into runs, each sent as one statement: a run carries at most
 * {@link #CHARS} characters of keys and owners (and at least one hold). Used by the exclusive
 * renewals ({@link SqlTemplate#renewAll}) and the shared ones alike.
 */
public final class StatementRuns {

    /**
     * The most characters of keys and owners one renewal statement carries (about 20,000
     * holds with 15-character keys and the core's 35-character owners): more holds take
     * more statements. Keeps every statement far below the smallest default packet limit
     * of the servers (MariaDB's 16 MiB {@code max_allowed_packet}, where MySQL's hex-encoded
     * keys take at most six bytes per character) and its row locks short.
     */
    public static final int CHARS = 1_000_000;

    /** One statement for one run; answers the positions in {@code run} of the holds that are gone. */
    @FunctionalInterface
    public interface Run {
        BitSet renew(List<LockSql.Held> run) throws SQLException;
    }

    private StatementRuns() {
    }

    /** Renews {@code holds} run by run, in order; answers the positions in {@code holds} of those gone. */
    public static BitSet renew(List<LockSql.Held> holds, Run statement) throws SQLException {
        BitSet gone = new BitSet();
        int from = 0;
        while (from < holds.size()) {
            int to = from + 1;
            long chars = weight(holds.get(from));
            while (to < holds.size() && chars + weight(holds.get(to)) <= CHARS) {
                chars += weight(holds.get(to++));
            }
            BitSet run = statement.renew(holds.subList(from, to));
            for (int i = run.nextSetBit(0); i >= 0; i = run.nextSetBit(i + 1)) {
                gone.set(from + i);
            }
            from = to;
        }
        return gone;
    }

    private static long weight(LockSql.Held held) {
        return held.key().length() + held.owner().length();
    }
}
