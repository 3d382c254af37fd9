package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.etcd.EtcdLockBackendBuilder;
import io.etcd.jetcd.Client;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;

/**
 * The etcd backend (lock-etcd): over the application's jetcd {@link Client} bean if it has
 * one and no {@code mortise.lock.etcd.endpoints} are set, else over a client of its own
 * (default endpoint {@code http://127.0.0.1:2379}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({EtcdLockBackend.class, Client.class})
@ConditionalOnLockBackend(value = "etcd", clientType = "io.etcd.jetcd.Client")
@EnableConfigurationProperties(EtcdLockProperties.class)
class EtcdBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    EtcdLockBackend etcdLockBackend(EtcdLockProperties properties, ObjectProvider<Client> clients) {
        Client shared = properties.getEndpoints().isEmpty() ? clients.getIfUnique() : null;
        return build(properties, shared, "mortise.lock.etcd");
    }

    /** Builds the backend from {@code properties} (bound at {@code prefix}), over {@code shared} if not null. */
    static EtcdLockBackend build(EtcdLockProperties properties, Client shared, String prefix) {
        try {
            EtcdLockBackendBuilder builder = EtcdLockBackend.builder();
            if (shared != null) {
                builder.client(shared);
            } else {
                builder.endpoints(properties.getEndpoints().isEmpty() ? List.of("http://127.0.0.1:2379")
                        : properties.getEndpoints());
                if (properties.getUser() != null) {
                    builder.user(properties.getUser());
                }
                if (properties.getPassword() != null) {
                    builder.password(properties.getPassword());
                }
            }
            if (properties.getNamespace() != null) {
                builder.namespace(properties.getNamespace());
            }
            if (properties.getOperationTimeout() != null) {
                builder.operationTimeout(properties.getOperationTimeout());
            }
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException("Cannot configure the 'etcd' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Check " + prefix + ".*, define a jetcd Client bean, or set "
                    + "mortise.lock.etcd.enabled=false.", e);
        }
    }
}
