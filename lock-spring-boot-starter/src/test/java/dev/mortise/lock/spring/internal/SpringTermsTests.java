package dev.mortise.lock.spring.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SpringTermsTests {

    @Test
    void builderMethodsBecomeSpringProperties() {
        assertThat(SpringTerms.translate("etcd did not answer within PT1S; raise EtcdLockBackendBuilder.operationTimeout"))
                .isEqualTo("etcd did not answer within PT1S; raise mortise.lock.etcd.operation-timeout");
        assertThat(SpringTerms.translate("lock table missing: createTableIfMissing(true) creates it"))
                .isEqualTo("lock table missing: mortise.lock.jdbc.create-table=true creates it");
        assertThat(SpringTerms.translate("use a shorter key or raise LockClientBuilder.maxKeyBytes"))
                .endsWith("raise mortise.lock.max-key-bytes");
        assertThat(SpringTerms.translate(null)).isNull();
    }
}
