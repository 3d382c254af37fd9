package dev.mortise.lock.spring.autoconfigure;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fails start-up on any {@code mortise.lock.*} property Mortise does not read, naming the
 * closest one it does: a misspelled {@code mortise.lock.backnd=redis} would otherwise be
 * ignored and leave the application on whatever backend the rest selects. Runs before any
 * bean is created, so no backend is built from a configuration that is wrong.
 *
 * <p>The valid names are those of the properties classes ({@link MortiseLockProperties},
 * and the settings of each backend type, also under {@code mortise.lock.backends.<name>},
 * where the settings of every type are accepted so that profiles may change a declared
 * backend's type; and those of {@link LeadershipProperties} under
 * {@code mortise.lock.leadership.<group>}).
 */
final class MortiseLockPropertyCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    static final String PREFIX = "mortise.lock";

    /** The settings classes of the backend types, by type name. */
    static final Map<String, Class<?>> TYPES = types();

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        check(environment);
    }

    /** @throws IllegalStateException naming the first unknown property and the closest valid one */
    static void check(Environment environment) {
        ConfigurationPropertyName root = ConfigurationPropertyName.of(PREFIX);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().filter(root::isAncestorOf).forEach(name -> {
                Collection<String> valid = validNames(name);
                if (!known(name, valid)) {
                    ConfigurationProperty property = source.getConfigurationProperty(name);
                    String origin = property != null && property.getOrigin() != null
                            ? " (" + property.getOrigin() + ")" : "";
                    throw new IllegalStateException("Unknown property " + name + origin + ": Mortise would ignore "
                            + "it. Did you mean " + closest(name.toString(), valid) + "? Valid properties are listed "
                            + "in docs/spring-boot.md.");
                }
            });
        }
    }

    /** The valid names that could match {@code name}: the fixed ones, or those of one named backend. */
    private static Collection<String> validNames(ConfigurationPropertyName name) {
        List<String> valid = new ArrayList<>();
        collect(PREFIX, MortiseLockProperties.class, valid);
        TYPES.forEach((type, settings) -> collect(PREFIX + "." + type, settings, valid));
        if (name.getNumberOfElements() > 3 && name.getElement(2, ConfigurationPropertyName.Form.DASHED)
                .equals("backends")) {
            String backend = name.getElement(3, ConfigurationPropertyName.Form.ORIGINAL);
            String prefix = PREFIX + ".backends." + backend;
            collect(prefix, MortiseLockProperties.Backend.class, valid);
            // The settings of any type, not only the declared one: a profile that turns a backend declared
            // with jdbc settings into a redis one (mortise.lock.backends.b.type=redis) leaves create-table
            // behind, legitimately. What no type has is a typo.
            TYPES.values().forEach(settings -> {
                List<String> typed = new ArrayList<>();
                collect(prefix, settings, typed);
                typed.remove(prefix + ".enabled");
                valid.addAll(typed);
            });
        }
        if (name.getNumberOfElements() > 3 && name.getElement(2, ConfigurationPropertyName.Form.DASHED)
                .equals("leadership")) {
            collect(PREFIX + ".leadership." + name.getElement(3, ConfigurationPropertyName.Form.ORIGINAL),
                    LeadershipProperties.class, valid);
        }
        return valid;
    }

    private static boolean known(ConfigurationPropertyName name, Collection<String> valid) {
        for (String candidate : valid) {
            ConfigurationPropertyName known = ConfigurationPropertyName.of(candidate);
            // Lists: mortise.lock.redis.cluster-nodes[0].
            if (known.equals(name) || known.isAncestorOf(name)) {
                return true;
            }
        }
        return false;
    }

    /** The dashed names of {@code type}'s properties under {@code prefix}; nested settings classes recursed. */
    private static void collect(String prefix, Class<?> type, List<String> into) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")
                    || (type == MortiseLockProperties.class && (property.getName().equals("backends")
                    || property.getName().equals("leadership")))) {
                continue;
            }
            String name = prefix + "." + DataObjectPropertyName.toDashedForm(property.getName());
            Class<?> value = property.getPropertyType();
            if (value.getName().startsWith(MortiseLockProperties.class.getPackageName()) && !value.isEnum()) {
                collect(name, value, into);
            } else {
                into.add(name);
            }
        }
    }

    private static String closest(String name, Collection<String> valid) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : new TreeSet<>(valid)) {
            int distance = distance(name, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static Map<String, Class<?>> types() {
        Map<String, Class<?>> types = new LinkedHashMap<>();
        types.put("redis", RedisLockProperties.class);
        types.put("etcd", EtcdLockProperties.class);
        types.put("zookeeper", ZookeeperLockProperties.class);
        types.put("jdbc", JdbcLockProperties.class);
        return types;
    }

    /** The backend names {@code mortise.lock.backend} accepts besides declared ones. */
    static Set<String> builtInBackends() {
        Set<String> names = new java.util.LinkedHashSet<>(TYPES.keySet());
        names.add("local");
        return names;
    }
}
