package dev.mortise.lock.jdbc.internal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TableNameTest {

    @Test
    void plainAndSchemaQualifiedIdentifiersAreAccepted() {
        for (String name : List.of("mortise_locks", "LOCKS", "_x1", "app.mortise_locks", "a".repeat(63))) {
            assertThat(TableName.of(name).sql()).isEqualTo(name);
        }
    }

    @Test
    void anythingElseIsRejectedBeforeItReachesSql() {
        for (String name : List.of("", "1locks", "locks; DROP TABLE x", "locks--", "\"locks\"", "a.b.c", "a.", ".a",
                "lo cks", "a".repeat(64), "löcks", "locks'")) {
            assertThatThrownBy(() -> TableName.of(name)).as(name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tableName").hasMessageContaining("jdbc");
        }
        assertThatThrownBy(() -> TableName.of(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
