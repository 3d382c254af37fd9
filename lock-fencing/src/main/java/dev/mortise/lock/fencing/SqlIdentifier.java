package dev.mortise.lock.fencing;

import java.util.regex.Pattern;

/**
 * Names that go into SQL text: one identifier, or schema and table, each a letter or
 * underscore followed by letters, digits and underscores (at most 63). Nothing else is
 * ever concatenated into a statement; resources, tokens and values are parameters.
 */
final class SqlIdentifier {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private SqlIdentifier() {
    }

    /** @throws IllegalArgumentException naming the rule, if {@code name} is not a plain, optionally schema-qualified, identifier */
    static String table(String name) {
        if (name != null) {
            String[] parts = name.split("\\.", -1);
            boolean valid = parts.length <= 2;
            for (String part : parts) {
                valid &= IDENTIFIER.matcher(part).matches();
            }
            if (valid) {
                return name;
            }
        }
        throw new IllegalArgumentException("Table name '" + name + "' is not a plain SQL identifier (lock-fencing): use "
                + "letters, digits and '_', starting with a letter or '_', at most 63 characters, optionally "
                + "'schema.table'. Quoted identifiers are not supported, so nothing user-given reaches SQL text unchecked.");
    }

    /** @throws IllegalArgumentException naming the rule, if {@code name} is not one plain identifier */
    static String column(String name, String what) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " '" + name + "' is not a plain SQL identifier (lock-fencing): use "
                    + "letters, digits and '_', starting with a letter or '_', at most 63 characters.");
        }
        return name;
    }
}
