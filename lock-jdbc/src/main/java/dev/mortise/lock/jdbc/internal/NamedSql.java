package dev.mortise.lock.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQL written with {@code :name} parameters (lower-case letters; a name may repeat), turned into
 * positional ones, so that long statements whose conditions repeat are bound by name, not by
 * counting question marks. Immutable and thread-safe.
 */
record NamedSql(String sql, List<String> names) {

    private static final Pattern NAME = Pattern.compile(":([a-z]+)");

    static NamedSql of(String text) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            names.add(m.group(1));
            m.appendReplacement(out, "?");
        }
        m.appendTail(out);
        return new NamedSql(out.toString(), List.copyOf(names));
    }

    /** Binds every parameter from {@code values} (a null value binds SQL NULL); a missing name is a bug. */
    void bind(PreparedStatement statement, Map<String, ?> values) throws SQLException {
        for (int i = 0; i < names.size(); i++) {
            if (!values.containsKey(names.get(i))) {
                throw new IllegalStateException("no value for :" + names.get(i));
            }
            Object value = values.get(names.get(i));
            if (value == null) {
                statement.setNull(i + 1, Types.VARCHAR);
            } else {
                statement.setObject(i + 1, value);
            }
        }
    }
}
