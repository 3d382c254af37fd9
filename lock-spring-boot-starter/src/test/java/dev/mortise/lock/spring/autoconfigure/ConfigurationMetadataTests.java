package dev.mortise.lock.spring.autoconfigure;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property the user documentation uses is in the configuration metadata the build
 * generates (what IDEs complete and check), and every documented property is one Mortise
 * accepts at start-up.
 */
class ConfigurationMetadataTests {

    /** Meter and tag names that share the prefix but are not properties (see the meter table). */
    private static final Set<String> NOT_PROPERTIES = Set.of("mortise.lock.acquire", "mortise.lock.held",
            "mortise.lock.renewals", "mortise.lock.lost", "mortise.lock.key", "mortise.lock.active",
            "mortise.lock.acquired", "mortise.lock.acquisition", "mortise.lock.fence.rejected",
            "mortise.lock.deadlocks",
            // the misspellings the "mistakes that fail start-up" table shows
            "mortise.lock.backnd", "mortise.lock.redis.adress");

    private static final Pattern PROPERTY = Pattern.compile(
            "(?<![\\w.])(mortise\\.lock(?:\\.[a-z0-9<>*\\-]+)+|management\\.[a-z.\\-]*locks[a-z.\\-]*)(?![\\w(])");

    @Test
    void everyDocumentedPropertyIsInTheGeneratedMetadata() throws IOException {
        String json = Files.readString(Path.of("target/classes/META-INF/spring-configuration-metadata.json"));
        List<String> names = JsonPath.read(json, "$.properties[*].name");
        List<Map<String, Object>> backends = JsonPath.read(json, "$.properties[?(@.name == 'mortise.lock.backends')]");
        assertThat(backends).as("mortise.lock.backends in the metadata").hasSize(1);
        Set<String> backendSettings = valueTypeProperties((String) backends.get(0).get("type"));
        List<Map<String, Object>> leadership = JsonPath.read(json,
                "$.properties[?(@.name == 'mortise.lock.leadership')]");
        assertThat(leadership).as("mortise.lock.leadership in the metadata").hasSize(1);
        Set<String> groupSettings = valueTypeProperties((String) leadership.get(0).get("type"));

        Set<String> documented = documented(Path.of("../docs/spring-boot.md"), Path.of("../README.md"));
        assertThat(documented).contains("management.health.locks.enabled", "mortise.lock.backends.<name>.type",
                "mortise.lock.actuator.force-release.enabled", "mortise.lock.leadership.<group>.enabled");
        List<String> missing = new ArrayList<>();
        for (String property : documented) {
            String name = property.replaceAll("\\.\\*$", "");
            if (name.startsWith("mortise.lock.leadership.<group>")) {
                String setting = name.substring("mortise.lock.leadership.<group>".length());
                if (!setting.isEmpty() && !groupSettings.contains(setting.substring(1))) {
                    missing.add(property);
                }
            } else if (!covered(name, names, backendSettings)) {
                missing.add(property);
            }
        }
        assertThat(missing).as("documented properties missing from the configuration metadata").isEmpty();
    }

    /** The property lines of the guide's examples are all accepted by the start-up check. */
    @Test
    void everyExamplePropertyOfTheGuideIsAcceptedAtStartup() throws IOException {
        org.springframework.mock.env.MockEnvironment environment = new org.springframework.mock.env.MockEnvironment();
        Matcher lines = Pattern.compile("(?m)^(mortise\\.lock\\.[\\w.\\-\\[\\]]+)=(\\S*)")
                .matcher(Files.readString(Path.of("../docs/spring-boot.md")));
        int count = 0;
        while (lines.find()) {
            environment.setProperty(lines.group(1), lines.group(2));
            count++;
        }
        assertThat(count).isGreaterThan(5);
        MortiseLockPropertyCheck.check(environment);
    }

    private static boolean covered(String property, List<String> names, Set<String> backendSettings) {
        if (property.startsWith("mortise.lock.backends.<name>")) {
            String setting = property.substring("mortise.lock.backends.<name>".length());
            return setting.isEmpty() || backendSettings.contains(setting.substring(1))
                    || names.stream().anyMatch(name -> name.matches("mortise\\.lock\\.[a-z]+\\."
                    + Pattern.quote(setting.substring(1))));
        }
        if (property.contains("<backend>")) {
            String regex = Pattern.quote(property).replace("<backend>", "\\E[a-z]+\\Q");
            return names.stream().anyMatch(name -> name.matches(regex + "(\\..*)?"));
        }
        return names.contains(property) || names.stream().anyMatch(name -> name.startsWith(property + "."));
    }

    /** The dashed property names of the map's value type. */
    private static Set<String> valueTypeProperties(String mapType) {
        String valueType = mapType.substring(mapType.indexOf(',') + 1, mapType.length() - 1).trim();
        Class<?> type;
        try {
            type = Class.forName(valueType.replaceFirst("\\.([A-Z][A-Za-z]*)\\.([A-Z])", ".$1\\$$2"));
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        Set<String> names = new LinkedHashSet<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (!descriptor.getName().equals("class")) {
                names.add(DataObjectPropertyName.toDashedForm(descriptor.getName()));
            }
        }
        return names;
    }

    private static Set<String> documented(Path... files) throws IOException {
        Set<String> found = new LinkedHashSet<>();
        for (Path file : files) {
            Matcher matcher = PROPERTY.matcher(Files.readString(file));
            while (matcher.find()) {
                String name = matcher.group(1).replaceAll("\\.$", "")
                        .replaceFirst("^mortise\\.lock\\.backends\\.[a-z0-9<>\\-]+", "mortise.lock.backends.<name>")
                        .replaceFirst("^mortise\\.lock\\.leadership\\.[a-z0-9<>\\-]+", "mortise.lock.leadership.<group>");
                if (!NOT_PROPERTIES.contains(name) && !name.equals("mortise.lock") && !name.equals("mortise.lock.*")) {
                    found.add(name);
                }
            }
        }
        return found;
    }
}
