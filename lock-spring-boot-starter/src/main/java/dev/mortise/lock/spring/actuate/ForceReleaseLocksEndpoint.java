package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spring.LockClients;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code locks} endpoint with its write operation (POST {@code /actuator/locks} over
 * HTTP): force-releasing a hold of this instance ({@link LockClient#forceRelease}), whose
 * leases become lost while the code under them may still run. Registered only with
 * {@code mortise.lock.actuator.force-release.enabled=true}; put it behind authorization.
 */
@Endpoint(id = "locks")
public class ForceReleaseLocksEndpoint extends LocksEndpoint {

    public ForceReleaseLocksEndpoint(LockClients clients) {
        super(clients);
    }

    /**
     * Force-releases {@code key} held by this instance on {@code backend} (the default if
     * omitted). Code still running under it finds its lease lost.
     */
    @WriteOperation
    public ReleaseDescriptor release(String key, @Nullable String backend) {
        String name = backend == null || backend.isEmpty() ? clients.defaultName() : backend;
        boolean released = clients.get(name).forceRelease(key);
        return new ReleaseDescriptor(key, name, released);
    }

}
