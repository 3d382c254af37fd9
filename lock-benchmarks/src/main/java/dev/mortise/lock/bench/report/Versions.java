package dev.mortise.lock.bench.report;

import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** Versions of the libraries on the classpath, read from their Maven metadata, for the report. */
public final class Versions {

    private static final String[][] LIBRARIES = {
            {"org.redisson", "redisson", "Redisson"},
            {"org.springframework.integration", "spring-integration-redis", "Spring Integration Redis"},
            {"org.springframework.integration", "spring-integration-zookeeper", "Spring Integration ZooKeeper"},
            {"org.springframework.integration", "spring-integration-jdbc", "Spring Integration JDBC"},
            {"org.springframework.integration", "spring-integration-core", "Spring Integration core"},
            {"org.springframework.data", "spring-data-redis", "Spring Data Redis"},
            {"io.lettuce", "lettuce-core", "Lettuce"},
            {"net.javacrumbs.shedlock", "shedlock-core", "ShedLock"},
            {"io.etcd", "jetcd-core", "jetcd"},
            {"org.apache.curator", "curator-recipes", "Curator"},
            {"org.apache.zookeeper", "zookeeper", "ZooKeeper client"},
            {"org.postgresql", "postgresql", "PostgreSQL JDBC"},
            {"org.mariadb.jdbc", "mariadb-java-client", "MariaDB Connector/J"},
            {"com.zaxxer", "HikariCP", "HikariCP"},
            {"io.netty", "netty-common", "Netty"},
            {"org.openjdk.jmh", "jmh-core", "JMH"},
    };

    private Versions() {
    }

    public static Map<String, String> libraries() {
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("Mortise", Versions.class.getPackage().getImplementationVersion() == null
                ? "0.1.0-SNAPSHOT (this checkout)" : Versions.class.getPackage().getImplementationVersion());
        for (String[] library : LIBRARIES) {
            versions.put(library[2], of(library[0], library[1]));
        }
        return versions;
    }

    /** Jars without Maven metadata: the version in the file name, {@code <artifact>-<version>.jar}. */
    private static String fromClasspath(String artifact) {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            String file = entry.substring(entry.lastIndexOf(java.io.File.separatorChar) + 1);
            if (file.startsWith(artifact + "-") && file.endsWith(".jar")
                    && Character.isDigit(file.charAt(artifact.length() + 1))) {
                return file.substring(artifact.length() + 1, file.length() - 4);
            }
        }
        return "?";
    }

    static String of(String group, String artifact) {
        String path = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Versions.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return fromClasspath(artifact);
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "?");
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
