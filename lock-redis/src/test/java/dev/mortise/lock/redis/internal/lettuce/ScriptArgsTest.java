package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.ExclusiveCommands;
import dev.mortise.lock.redis.internal.HoldCommands;
import dev.mortise.lock.redis.internal.Inspection;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptReturn;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ScriptArgs} writes exactly the bytes Lettuce's own {@link CommandArgs} writes for the same call. */
class ScriptArgsTest {

    private static String lettuce(ScriptCall call, boolean eval) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                .add(eval ? call.script().sourceBytes() : call.script().shaBytes()).add(call.keys().size());
        call.keys().forEach(k -> args.addKey((String) k));
        for (Object v : call.args()) {
            args.addValue(String.valueOf(v));
        }
        return encoded(args) + "#" + args.count();
    }

    private static String ours(ScriptCall call, boolean eval) {
        ScriptArgs args = new ScriptArgs(call, eval);
        return encoded(args) + "#" + args.count();
    }

    private static String encoded(CommandArgs<String, String> args) {
        ByteBuf buf = Unpooled.buffer(8);
        args.encode(buf);
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void sameBytesAsLettuceForEvalShaAndEval() {
        ScriptCall call = ScriptCall.of(ExclusiveCommands.ACQUIRE, ScriptReturn.LIST,
                List.of("m:lock:{k}", "m:fence:{k}", "m:cancelled:{k}:o", "m:readers:{k}", "m:writers:{k}"),
                "owner-1", "30000", "1", "0", "0");
        assertThat(ours(call, false)).isEqualTo(lettuce(call, false));
        assertThat(ours(call, true)).isEqualTo(lettuce(call, true));
    }

    @Test
    void sameBytesForMultiByteTextManyKeysAndNoKeys() {
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 123; i++) {
            keys.add("k" + i);
        }
        ScriptCall many = ScriptCall.of(HoldCommands.RENEW, ScriptReturn.LIST, keys, "é€😀", "", 42L, "x".repeat(1000));
        assertThat(ours(many, false)).isEqualTo(lettuce(many, false));
        ScriptCall none = ScriptCall.of(Inspection.PING, ScriptReturn.LONG, List.of());
        assertThat(ours(none, false)).isEqualTo(lettuce(none, false));
    }

    @Test
    void keyNamesWritePartByPartWhatTheirStringsWould() {
        RedisKeys names = RedisKeys.of("pré{fix}".replace("{", "").replace("}", ""), "k:{1}\n日 😀");
        ScriptCall asNames = ScriptCall.of(ExclusiveCommands.ACQUIRE, ScriptReturn.LIST,
                List.of(names.lock(), names.fenceName(), names.cancelledName("owner-é"), names.readersName(),
                        names.writersName(), names.handOffsName()), "owner-é", "30000", names.channelName());
        ScriptCall asStrings = ScriptCall.of(ExclusiveCommands.ACQUIRE, ScriptReturn.LIST,
                List.of(names.lock(), names.fence(), names.cancelled("owner-é"), names.readers(), names.writers(),
                        names.handOffs()), "owner-é", "30000", names.channel());
        assertThat(ours(asNames, false)).isEqualTo(lettuce(asStrings, false));
        assertThat(names.fenceName().toString()).isEqualTo(names.fence());
        assertThat(names.cancelledName("o").toString()).isEqualTo(names.cancelled("o"));
    }

    @Test
    void digitsOfEveryMagnitude() {
        for (int value : new int[] {0, 9, 10, 99, 100, 12345, Integer.MAX_VALUE}) {
            ByteBuf buf = Unpooled.buffer(1);
            ScriptArgs.digits(buf, value);
            assertThat(buf.toString(StandardCharsets.US_ASCII)).isEqualTo(Integer.toString(value));
        }
    }
}
