package dev.mortise.lock.internal;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ArgumentsTest {

    @Test
    void countsUtf8BytesLikeTheEncoder() {
        for (String key : List.of("order:42", "é", "ߺ", "ࠀ", "Ā€中", "\uFFFF", "😀", "a😀b𝄞ü", "\u007f\u0080\u07ff\u0800")) {
            assertThat(Arguments.utf8Length(key)).as(key).isEqualTo(key.getBytes(StandardCharsets.UTF_8).length);
        }
    }
}
