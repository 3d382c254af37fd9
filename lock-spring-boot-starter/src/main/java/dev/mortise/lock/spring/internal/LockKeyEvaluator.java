package dev.mortise.lock.spring.internal;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Evaluates lock key expressions. Parsed expressions are cached per (method, target
 * class) and expression text, never per evaluated key (keys are unbounded). Arguments
 * are bound lazily by name and as {@code #p0}/{@code #a0}.
 */
public final class LockKeyEvaluator extends CachedExpressionEvaluator {

    private final Map<ExpressionKey, Expression> cache = new ConcurrentHashMap<>(64);
    private final BeanFactoryResolver beanResolver;

    /** @param beanFactory resolves {@code @bean} references, or {@code null} for none */
    public LockKeyEvaluator(BeanFactory beanFactory) {
        this.beanResolver = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
    }

    /**
     * Parses (and caches) the key expression of {@code operation}, so syntax errors show
     * at start-up.
     *
     * @throws IllegalStateException naming the method and the expression
     */
    public void validate(LockOperation operation, Class<?> targetClass) {
        expression(operation, targetClass);
    }

    /**
     * The key for one call.
     *
     * @throws IllegalStateException if the expression fails or yields null or blank, naming
     *                               the method and the expression
     */
    public String key(LockOperation operation, Object[] args, Object target, Class<?> targetClass) {
        Expression expression = expression(operation, targetClass);
        LockExpressionRoot root = new LockExpressionRoot(operation.method(), args, target, targetClass);
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, operation.method(), args,
                getParameterNameDiscoverer());
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        Object value;
        try {
            value = expression.getValue(context);
        } catch (EvaluationException e) {
            throw new IllegalStateException("@DistributedLock key \"" + operation.keyExpression() + "\" on "
                    + operation.describeMethod() + " failed: " + e.getMessage()
                    + ". Refer to arguments by name (compile with -parameters) or as #p0, #a0.", e);
        }
        String key = value == null ? null : value.toString();
        if (key == null || key.isBlank()) {
            throw new IllegalStateException("@DistributedLock key \"" + operation.keyExpression() + "\" on "
                    + operation.describeMethod() + " evaluated to " + (key == null ? "null" : "a blank string")
                    + "; every call would share one lock. Check the argument is not null, that the code is compiled "
                    + "with -parameters (for #name), or quote a literal key: \"'billing-run'\".");
        }
        return key;
    }

    private Expression expression(LockOperation operation, Class<?> targetClass) {
        try {
            return getExpression(cache, new AnnotatedElementKey(operation.method(), targetClass),
                    operation.keyExpression());
        } catch (ParseException e) {
            throw new IllegalStateException("@DistributedLock key \"" + operation.keyExpression() + "\" on "
                    + operation.describeMethod() + " is not valid SpEL: " + e.getMessage()
                    + ". Quote literal text ('order:' + #id) and refer to arguments as #name or #p0.", e);
        }
    }

    /** Number of parsed expressions held (for tests: bounded by methods, not keys). */
    int cachedExpressions() {
        return cache.size();
    }
}
