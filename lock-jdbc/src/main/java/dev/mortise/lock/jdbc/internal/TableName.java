package dev.mortise.lock.jdbc.internal;

import java.util.regex.Pattern;

/**
 * A table name that is safe to put into SQL text: one identifier, or schema and table,
 * each a letter or underscore followed by letters, digits and underscores (at most 63).
 * Nothing else is ever concatenated into a statement; keys and owners are parameters.
 */
public final class TableName {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private static final String WAITS_SUFFIX = "_waits";
    /** The longest last part that keeps its whole name in {@link #waits()}. */
    private static final int WAITS_BASE = 63 - WAITS_SUFFIX.length();

    private final String sql;

    private TableName(String sql) {
        this.sql = sql;
    }

    /**
     * @throws IllegalArgumentException naming the rule, if {@code name} is not a plain
     *                                  (optionally schema-qualified) identifier
     */
    public static TableName of(String name) {
        if (name == null) {
            throw new IllegalArgumentException("tableName must not be null (backend 'jdbc'); the default is 'mortise_locks'");
        }
        String[] parts = name.split("\\.", -1);
        boolean valid = parts.length <= 2;
        for (String part : parts) {
            valid &= IDENTIFIER.matcher(part).matches();
        }
        if (!valid) {
            throw new IllegalArgumentException("tableName '" + name + "' is not a plain SQL identifier (backend 'jdbc'): use "
                    + "letters, digits and '_', starting with a letter or '_', at most 63 characters, optionally "
                    + "'schema.table'. Quoted identifiers are not supported, so nothing user-given reaches SQL text unchecked.");
        }
        return new TableName(name);
    }

    /** The name as written into SQL text. */
    public String sql() {
        return sql;
    }

    /**
     * The table of wait records (deadlock detection) beside this one, in the same schema:
     * {@code <name>_waits}, a last part longer than {@value #WAITS_BASE} characters cut to that many
     * first, so the name stays within 63 characters (PostgreSQL's limit, under MySQL's 64).
     */
    public TableName waits() {
        int dot = sql.lastIndexOf('.');
        String last = sql.substring(dot + 1);
        String base = last.length() <= WAITS_BASE ? last : last.substring(0, WAITS_BASE);
        return new TableName(sql.substring(0, dot + 1) + base + WAITS_SUFFIX);
    }

    /** The LISTEN/NOTIFY channel for releases on this table: its name in lower case. */
    public String channel() {
        return sql.toLowerCase(java.util.Locale.ROOT) + "_released";
    }

    @Override
    public String toString() {
        return sql;
    }
}
