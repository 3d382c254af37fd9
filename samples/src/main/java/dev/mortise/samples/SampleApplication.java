package dev.mortise.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The Mortise sample service: accounts whose withdrawals are guarded by
 * {@code @DistributedLock} and fencing tokens, a start-up demonstration of what the lock
 * prevents, and the lock-service HTTP API for clients written in other languages.
 */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
