package dev.mortise.lock.redis.internal;

import java.nio.charset.StandardCharsets;

/** The CRC16 (XMODEM) that Redis Cluster uses to map a hash tag to one of 16384 slots. */
public final class Crc16 {

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xffff;
        }
    }

    private Crc16() {
    }

    /** The slot of a key whose hash tag is {@code tag} (the tag's UTF-8 bytes, mod 16384). */
    static int slot(String tag) {
        int crc = 0;
        for (int i = 0; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (c >= 0x80) {
                return slotOfBytes(tag); // our tags are ASCII (percent-encoded); others take the long way
            }
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ c) & 0xff]) & 0xffff;
        }
        return crc & 16383;
    }

    /**
     * The slot of a whole key, as Redis Cluster computes it: of the hash tag (the text between the
     * first {@code '{'} and the first {@code '}'} after it) when that is not empty, otherwise of
     * the whole key; UTF-8 bytes.
     */
    public static int keySlot(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return slot(key.substring(open + 1, close));
            }
        }
        return slot(key);
    }

    private static int slotOfBytes(String tag) {
        int crc = 0;
        for (byte b : tag.getBytes(StandardCharsets.UTF_8)) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xff]) & 0xffff;
        }
        return crc & 16383;
    }
}
