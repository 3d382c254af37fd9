package dev.mortise.lock.jdbc.internal;

import java.util.regex.Pattern;

/**
 * A table name that is safe to put into SQL text: one identifier, or schema and table,
 * each a letter or underscore followed by letters, digits and underscores (at most 63).
 * Nothing else is ever concatenated into a statement; keys and owners are parameters.
 */
public final class TableName {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

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

    /** The LISTEN/NOTIFY channel for releases on this table: its name in lower case. */
    public String channel() {
        return sql.toLowerCase(java.util.Locale.ROOT) + "_released";
    }

    @Override
    public String toString() {
        return sql;
    }
}
