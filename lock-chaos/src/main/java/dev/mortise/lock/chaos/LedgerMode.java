package dev.mortise.lock.chaos;

import java.util.Arrays;

/**
 * How the ledger refuses a stale write ({@code --ledger}).
 *
 * <p>Both modes fence the read and the write alike, so {@link LedgerChecker}'s columns mean the
 * same in both: a read raises the key's fence to the reader's token, and a write whose token is
 * below the fence is refused and logged as rejected.
 */
public enum LedgerMode {

    /** The ledger's own conditional statements ({@code GREATEST} on the read, {@code WHERE token <= ?} on the write). */
    BUILTIN("builtin"),

    /**
     * The {@code lock-fencing} module's {@link dev.mortise.lock.fencing.JdbcFenceGuard}: the read
     * and the write each run in a transaction whose first statement is the guard's check, and
     * the write itself carries no token condition. A refused check rolls the transaction back.
     */
    GUARD("guard");

    private final String label;

    LedgerMode(String label) {
        this.label = label;
    }

    /** The name on the command line and in the report. */
    public String label() {
        return label;
    }

    /** The mode named {@code label}. */
    public static LedgerMode of(String label) {
        return Arrays.stream(values()).filter(m -> m.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown ledger mode '" + label + "': use "
                        + Arrays.stream(values()).map(LedgerMode::label).toList()));
    }
}
