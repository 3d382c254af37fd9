package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The holds of a MySQL/MariaDB renewal as one JSON parameter, read by {@code JSON_TABLE}: each key
 * as hex of its UTF-8 bytes (what the VARBINARY column holds, whatever the connection's character
 * set), each owner as a JSON string with every non-ASCII character escaped, so the parameter is ASCII.
 */
final class MySqlJson {

    private MySqlJson() {
    }

    /** {@code [["<key as hex>", "<owner>"], …]}, in order. */
    static String holds(List<LockSql.Held> holds) {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder(holds.size() * 64);
        out.append('[');
        for (LockSql.Held held : holds) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append("[\"").append(hex.formatHex(bytes(held.key()))).append("\",\"");
            appendJsonString(out, held.owner(), hex);
            out.append("\"]");
        }
        return out.append(']').toString();
    }

    /** {@code [["<key hex>", "<owners as a JSON array>"], …]}, grouped by key in first-seen order. */
    static String groupedByKey(List<LockSql.Held> holds) {
        Map<String, List<LockSql.Held>> byKey = new LinkedHashMap<>();
        for (LockSql.Held held : holds) {
            byKey.computeIfAbsent(held.key(), k -> new ArrayList<>()).add(held);
        }
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder(holds.size() * 64).append('[');
        for (Map.Entry<String, List<LockSql.Held>> entry : byKey.entrySet()) {
            if (out.length() > 1) {
                out.append(',');
            }
            // The owners as a JSON array, by the same escaping as the holds' list, then as a JSON string.
            StringBuilder ownerArray = new StringBuilder("[");
            for (LockSql.Held held : entry.getValue()) {
                if (ownerArray.length() > 1) {
                    ownerArray.append(',');
                }
                ownerArray.append('"');
                appendJsonString(ownerArray, held.owner(), hex);
                ownerArray.append('"');
            }
            ownerArray.append(']');
            out.append("[\"").append(hex.formatHex(bytes(entry.getKey()))).append("\",\"");
            appendJsonString(out, ownerArray.toString(), hex);
            out.append("\"]");
        }
        return out.append(']').toString();
    }

    /**
     * JSON string content in ASCII: other characters as {@code \\uXXXX} escapes, a lone
     * surrogate as {@code ?} (what the driver would send for it when the owner was stored).
     */
    static void appendJsonString(StringBuilder out, String text, HexFormat hex) {
        text.codePoints().forEach(cp -> {
            if (cp == '"' || cp == '\\') {
                out.append('\\').append((char) cp);
            } else if (cp >= 0x20 && cp < 0x7f) {
                out.append((char) cp);
            } else if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                out.append('?');
            } else {
                for (char c : Character.toChars(cp)) {
                    out.append("\\u").append(hex.toHexDigits((short) c));
                }
            }
        });
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
