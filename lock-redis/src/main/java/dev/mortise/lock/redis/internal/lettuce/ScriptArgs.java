package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.KeyName;
import dev.mortise.lock.redis.internal.ScriptCall;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The arguments of one {@code EVALSHA}/{@code EVAL} ({@link ScriptCall}) for Lettuce, written
 * straight from the call into the network buffer as RESP bulk strings: the script's SHA-1 (or
 * source) from its bytes encoded once per script, the key count, the KEYS and the ARGV in
 * UTF-8 (a {@link KeyName} part by part, never built as a string), every length prefix written as
 * digits. Lettuce's own {@link CommandArgs} wraps each
 * argument in an object, grows a list for them, and writes each length prefix through a
 * {@link Long#toString} string; per lock cycle that was a good part of the client's garbage.
 *
 * <p>Used on a single server or Sentinel group only: a Cluster connection routes a command by
 * its first key as Lettuce's own argument list holds it, so there the plain {@link CommandArgs}
 * is kept. Lettuce reads {@link #count()} and {@link #encode(ByteBuf)} to write the command and
 * {@link #getFirstEncodedKey()} to route it; the rest of {@link CommandArgs} (adding
 * arguments) is not used. Not thread-safe; one per command, never changed once built.
 */
final class ScriptArgs extends CommandArgs<String, String> {

    private static final byte[] CRLF = {'\r', '\n'};

    private final byte[] script;
    private final List<Object> keys;
    private final Object[] values;

    /** @param eval whether the script's source is sent ({@code EVAL}) rather than its SHA-1 */
    ScriptArgs(ScriptCall call, boolean eval) {
        super(StringCodec.UTF8);
        this.script = eval ? call.script().sourceBytes() : call.script().shaBytes();
        this.keys = call.keys();
        this.values = call.args();
    }

    @Override
    public int count() {
        return 2 + keys.size() + values.length;
    }

    @Override
    public void encode(ByteBuf buf) {
        bulk(buf, script);
        bulk(buf, keys.size());
        for (Object key : keys) {
            bulk(buf, key);
        }
        for (Object value : values) {
            bulk(buf, value);
        }
    }

    @Override
    public ByteBuffer getFirstEncodedKey() {
        return keys.isEmpty() ? null : StringCodec.UTF8.encodeKey(keys.get(0).toString());
    }

    private static void bulk(ByteBuf buf, byte[] bytes) {
        buf.writeByte('$');
        digits(buf, bytes.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(bytes);
        buf.writeBytes(CRLF);
    }

    /** A key or value: a {@link KeyName} part by part, anything else as its text. */
    private static void bulk(ByteBuf buf, Object argument) {
        if (argument instanceof KeyName name) {
            buf.writeByte('$');
            digits(buf, utf8Length(name));
            buf.writeBytes(CRLF);
            writeUtf8(buf, name);
            buf.writeBytes(CRLF);
        } else {
            bulk(buf, argument instanceof String s ? s : String.valueOf(argument));
        }
    }

    /** Bytes of {@code name} in UTF-8. */
    private static int utf8Length(KeyName name) {
        int length = ByteBufUtil.utf8Bytes(name.prefix()) + name.kind().length() + name.tag().length();
        return name.owner() == null ? length : length + 1 + ByteBufUtil.utf8Bytes(name.owner());
    }

    /** Writes {@code name} in UTF-8, part by part. */
    private static void writeUtf8(ByteBuf buf, KeyName name) {
        ByteBufUtil.writeUtf8(buf, name.prefix());
        ByteBufUtil.writeAscii(buf, name.kind());
        ByteBufUtil.writeAscii(buf, name.tag());
        if (name.owner() != null) {
            buf.writeByte(':');
            ByteBufUtil.writeUtf8(buf, name.owner());
        }
    }

    private static void bulk(ByteBuf buf, String text) {
        buf.writeByte('$');
        digits(buf, ByteBufUtil.utf8Bytes(text));
        buf.writeBytes(CRLF);
        ByteBufUtil.writeUtf8(buf, text);
        buf.writeBytes(CRLF);
    }

    /** A non-negative integer as a bulk string (the key count). */
    private static void bulk(ByteBuf buf, int value) {
        buf.writeByte('$');
        digits(buf, decimalLength(value));
        buf.writeBytes(CRLF);
        digits(buf, value);
        buf.writeBytes(CRLF);
    }

    /** Writes a non-negative {@code value} in decimal, without making a string of it. */
    static void digits(ByteBuf buf, int value) {
        int length = decimalLength(value);
        int at = buf.writerIndex();
        buf.ensureWritable(length);
        for (int i = length - 1; i >= 0; i--) {
            buf.setByte(at + i, '0' + value % 10);
            value /= 10;
        }
        buf.writerIndex(at + length);
    }

    static int decimalLength(int value) {
        int length = 1;
        while (value >= 10) {
            value /= 10;
            length++;
        }
        return length;
    }

    @Override
    public String toCommandString() {
        return new String(script, java.nio.charset.StandardCharsets.UTF_8) + " " + keys.size() + " " + keys + " "
                + Arrays.toString(values);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " [" + toCommandString() + "]";
    }
}
