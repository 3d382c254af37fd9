package dev.mortise.lock.spring.internal;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Evaluates lock key expressions. Parsed expressions are cached per (method, target
 * class) and expression text, never per evaluated key (keys are unbounded). Arguments
 * are bound lazily by name and as {@code #p0}/{@code #a0}.
 *
 * <p>Every call of an annotated method evaluates its key, so the per-call cost matters:
 * expressions are compiled to bytecode once they have run interpreted (SpEL's mixed mode,
 * which falls back to interpreting whenever compiled code cannot handle a call), and
 * parameter names are discovered once per method rather than by reflection per call.
 */
public final class LockKeyEvaluator extends CachedExpressionEvaluator {

    /**
     * The variable a {@code fence} expression reads the lock key from: the one key of a single-key
     * lock, or each key of a multi-key lock in turn (the fence is evaluated once per key). A
     * parameter of the same name wins over it.
     */
    public static final String LOCK_KEY = "lockKey";

    private final Map<ExpressionKey, Expression> cache = new ConcurrentHashMap<>(64);
    private final BeanFactoryResolver beanResolver;
    private final ParameterNameDiscoverer parameterNames = new CachingParameterNameDiscoverer();
    /** Argument variable names per method, bounded by the application's annotated methods. */
    private final Map<Method, ArgumentsEvaluationContext.Names> argumentNames = new ConcurrentHashMap<>(64);

    /** @param beanFactory resolves {@code @bean} references, or {@code null} for none */
    public LockKeyEvaluator(BeanFactory beanFactory) {
        super(new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED,
                LockKeyEvaluator.class.getClassLoader())));
        this.beanResolver = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
    }

    /**
     * Parses (and caches) the key expression of {@code operation}, so syntax errors show
     * at start-up.
     *
     * @throws IllegalStateException naming the method and the expression
     */
    public void validate(LockOperation operation, Class<?> targetClass) {
        LockKeyChecks.checkReferences(operation, expression(operation, targetClass),
                parameterNames.getParameterNames(operation.method()));
        if (operation.fenced()) {
            LockKeyChecks.checkReferences(operation, "fence", operation.fenceExpression(),
                    parse(operation, targetClass, "fence", operation.fenceExpression()),
                    parameterNames.getParameterNames(operation.method()), Set.of(LOCK_KEY));
        }
    }

    /**
     * The key for one call.
     *
     * @throws IllegalStateException if the expression fails or yields null or blank, a null
     *                               part, a collection or array, or an object without a
     *                               {@code toString} of its own, naming the method and the expression
     */
    public String key(LockOperation operation, Object[] args, Object target, Class<?> targetClass) {
        return evaluate(operation, "key", operation.keyExpression(), expression(operation, targetClass), args, target,
                targetClass, KEY_WHEN_BLANK);
    }

    /**
     * The keys of one call: one key, or, when the expression yields a {@code Collection} or an
     * array, each of its elements (a multi-key lock), checked one by one as a key is.
     *
     * @throws IllegalStateException as {@link #key}, or for an empty collection or a bad element,
     *                               naming the method and the expression
     */
    public LockKeys keys(LockOperation operation, Object[] args, Object target, Class<?> targetClass) {
        String text = operation.keyExpression();
        Expression expression = expression(operation, targetClass);
        StandardEvaluationContext context = context(operation, args, target, targetClass);
        Object value = value(operation, "key", text, expression, context);
        if (value instanceof java.util.Collection<?> || value != null && value.getClass().isArray()) {
            return new LockKeys(LockKeyChecks.checkElements(operation, text, value), true);
        }
        return new LockKeys(java.util.List.of(check(operation, "key", text, expression, context, value,
                KEY_WHEN_BLANK)), false);
    }

    private static final String KEY_WHEN_BLANK = "; every call would share one lock. Check the argument is not null, "
            + "that the code is compiled with -parameters (for #name), or quote a literal key: \"'billing-run'\".";

    /**
     * The fenced resources of one call ({@code @DistributedLock(fence = ...)}): the fence
     * expression evaluated once per key of {@code keys}, with {@code #lockKey} bound to that key,
     * and checked as keys are. Distinct keys must yield distinct resources: each key has its own
     * fencing token, and tokens of different keys are not comparable.
     *
     * @return the resource of each key, in the order of {@code keys}
     * @throws IllegalStateException as {@link #key}, or if two keys yield one resource, naming the
     *                               method and the fence expression
     */
    public Map<String, String> fences(LockOperation operation, LockKeys keys, Object[] args, Object target,
                                      Class<?> targetClass) {
        String text = operation.fenceExpression();
        Expression expression = parse(operation, targetClass, "fence", text);
        String[] names = parameterNames.getParameterNames(operation.method());
        boolean bind = names == null || !Arrays.asList(names).contains(LOCK_KEY);
        Map<String, String> resources = new LinkedHashMap<>();
        Map<String, String> keyOfResource = new LinkedHashMap<>();
        for (String key : keys.keys()) {
            StandardEvaluationContext context = context(operation, args, target, targetClass);
            if (bind) {
                context.setVariable(LOCK_KEY, key);
            }
            String resource = check(operation, "fence", text, expression, context,
                    value(operation, "fence", text, expression, context), FENCE_WHEN_BLANK);
            String other = keyOfResource.putIfAbsent(resource, key);
            if (other != null && !other.equals(key)) {
                throw new IllegalStateException("@DistributedLock fence \"" + text + "\" on "
                        + operation.describeMethod() + " evaluated to the same resource '" + resource + "' for keys '"
                        + other + "' and '" + key + "' of the multi-key lock " + keys.keys() + ": each key has its "
                        + "own fencing token and tokens of different keys are not comparable, so a resource can be "
                        + "fenced by one key only. Derive the fence from each key with #" + LOCK_KEY + " (fence = "
                        + "\"#" + LOCK_KEY + "\" or \"'balance:' + #" + LOCK_KEY + "\"). The method did not run.");
            }
            resources.put(key, resource);
        }
        return resources;
    }

    private static final String FENCE_WHEN_BLANK = "; every call would share one fence. Check the argument is not "
            + "null, or quote a literal resource: \"'billing-run'\".";

    /** Evaluates one attribute's expression for one call and checks the value as keys are checked. */
    private String evaluate(LockOperation operation, String attribute, String text, Expression expression,
                            Object[] args, Object target, Class<?> targetClass, String whenBlank) {
        StandardEvaluationContext context = context(operation, args, target, targetClass);
        return check(operation, attribute, text, expression, context,
                value(operation, attribute, text, expression, context), whenBlank);
    }

    private StandardEvaluationContext context(LockOperation operation, Object[] args, Object target,
                                              Class<?> targetClass) {
        LockExpressionRoot root = new LockExpressionRoot(operation.method(), args, target, targetClass);
        StandardEvaluationContext context = new ArgumentsEvaluationContext(root, names(operation.method()), args);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        return context;
    }

    private ArgumentsEvaluationContext.Names names(Method method) {
        ArgumentsEvaluationContext.Names names = argumentNames.get(method);
        if (names == null) {
            names = argumentNames.computeIfAbsent(method,
                    m -> new ArgumentsEvaluationContext.Names(m, parameterNames.getParameterNames(m)));
        }
        return names;
    }

    private static Object value(LockOperation operation, String attribute, String text, Expression expression,
                                StandardEvaluationContext context) {
        try {
            return expression.getValue(context);
        } catch (EvaluationException e) {
            throw new IllegalStateException("@DistributedLock " + attribute + " \"" + text + "\" on "
                    + operation.describeMethod() + " failed: " + e.getMessage()
                    + ". Refer to arguments by name (compile with -parameters) or as #p0, #a0.", e);
        }
    }

    /** Checks one evaluated single value (a key or a fence) as keys are checked. */
    private static String check(LockOperation operation, String attribute, String text, Expression expression,
                                StandardEvaluationContext context, Object value, String whenBlank) {
        String result = value == null ? null : value.toString();
        if (result == null || result.isBlank()) {
            throw new IllegalStateException("@DistributedLock " + attribute + " \"" + text + "\" on "
                    + operation.describeMethod() + " evaluated to " + (result == null ? "null" : "a blank string")
                    + whenBlank);
        }
        LockKeyChecks.checkValue(operation, attribute, text, expression, context, value, result);
        return result;
    }

    private Expression expression(LockOperation operation, Class<?> targetClass) {
        return parse(operation, targetClass, "key", operation.keyExpression());
    }

    private Expression parse(LockOperation operation, Class<?> targetClass, String attribute, String text) {
        try {
            return getExpression(cache, new AnnotatedElementKey(operation.method(), targetClass), text);
        } catch (ParseException e) {
            throw new IllegalStateException("@DistributedLock " + attribute + " \"" + text + "\" on "
                    + operation.describeMethod() + " is not valid SpEL: " + e.getMessage()
                    + ". Quote literal text ('order:' + #id) and refer to arguments as #name or #p0"
                    + (text.contains("'") || text.contains("#") ? "."
                    : "; for a fixed name: " + attribute + " = \"'" + text + "'\"."), e);
        }
    }

    /**
     * Parameter names per method, found once. Annotated methods are a fixed set, so the
     * map is bounded by the application's code, like the expression cache.
     */
    private static final class CachingParameterNameDiscoverer implements ParameterNameDiscoverer {
        private static final String[] NONE = new String[0];
        private final ParameterNameDiscoverer delegate = new DefaultParameterNameDiscoverer();
        private final Map<Method, String[]> names = new ConcurrentHashMap<>(64);

        @Override
        public String[] getParameterNames(Method method) {
            String[] found = names.computeIfAbsent(method, m -> {
                String[] discovered = delegate.getParameterNames(m);
                return discovered == null ? NONE : discovered;
            });
            // The argument names only read the array; null means "unknown", as the delegate says.
            return found == NONE ? null : found;
        }

        @Override
        public String[] getParameterNames(Constructor<?> ctor) {
            return delegate.getParameterNames(ctor);
        }
    }

    /** The parsed expression of {@code operation} (for tests). */
    Expression expressionFor(LockOperation operation, Class<?> targetClass) {
        return expression(operation, targetClass);
    }

    /** Number of parsed expressions held (for tests: bounded by methods, not keys). */
    int cachedExpressions() {
        return cache.size();
    }
}
