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

    @Test
    void theWaitTableIsBesideTheLockTableAndStaysAValidName() {
        assertThat(TableName.of("mortise_locks").waits().sql()).isEqualTo("mortise_locks_waits");
        assertThat(TableName.of("app.Locks").waits().sql()).isEqualTo("app.Locks_waits");
        assertThat(TableName.of("a".repeat(57)).waits().sql()).isEqualTo("a".repeat(57) + "_waits");
        String longest = "b".repeat(58) + "cdefg";
        assertThat(TableName.of("s." + longest).waits().sql()).isEqualTo("s." + "b".repeat(57) + "_waits");
        assertThat(TableName.of(TableName.of(longest).waits().sql()).sql()).hasSize(63);
    }
}
