package dev.mortise.lock.spring.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.springframework.core.KotlinDetector;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The evaluation context of one annotated call: {@code #name}, {@code #p0} and {@code #a0} read
 * the call's arguments, as Spring's {@code MethodBasedEvaluationContext} binds them, but without
 * copying each argument into the context's variable map under three names per call (the map's
 * table was the largest allocation of an annotated call). The names are resolved through a table
 * built once per method ({@link Names}).
 *
 * <p>Same lookups as {@code MethodBasedEvaluationContext}: an argument wins over a variable set
 * with {@link #setVariable} under the same name (a parameter named {@code lockKey} wins over the
 * fence's {@code #lockKey}); an argument that is {@code null} reads as {@code null}; when there are
 * more arguments than parameters the last parameter reads the rest as an array (a Kotlin
 * {@code suspend} method's continuation is no argument here); a call without
 * arguments binds none. Not thread-safe: one per evaluation, as any {@code StandardEvaluationContext}.
 */
final class ArgumentsEvaluationContext extends StandardEvaluationContext {

    private final Names names;
    private final Object[] arguments;

    ArgumentsEvaluationContext(Object root, Names names, Object[] arguments) {
        super(root);
        this.names = names;
        this.arguments = arguments;
    }

    @Override
    public Object lookupVariable(String name) {
        if (arguments != null && arguments.length > 0) {
            Integer index = names.index.get(name);
            if (index != null) {
                return argument(index);
            }
        }
        return super.lookupVariable(name);
    }

    private Object argument(int i) {
        int parameters = names.count;
        int given = arguments.length - names.hidden;
        if (given > parameters && i == parameters - 1) {
            return Arrays.copyOfRange(arguments, i, given);
        }
        return given > i ? arguments[i] : null;
    }

    /**
     * The variable names of one method's arguments: {@code a<i>}, {@code p<i>} and the discovered
     * name of each parameter, a later binding of a name winning as it does when Spring binds them in
     * that order. Immutable; one per method.
     */
    static final class Names {
        private final Map<String, Integer> index;
        private final int count;
        /**
         * Trailing arguments that are no parameter of the source method: the {@code Continuation}
         * the Kotlin compiler adds to a {@code suspend} method (whose discovered names leave it out).
         */
        private final int hidden;

        /** @param parameterNames the discovered names, or {@code null} when unknown */
        Names(Method method, String[] parameterNames) {
            this.hidden = KotlinDetector.isSuspendingFunction(method) ? 1 : 0;
            this.count = parameterNames != null ? parameterNames.length : method.getParameterCount() - hidden;
            Map<String, Integer> map = new HashMap<>();
            for (int i = 0; i < count; i++) {
                map.put("a" + i, i);
                map.put("p" + i, i);
                if (parameterNames != null && parameterNames[i] != null) {
                    map.put(parameterNames[i], i);
                }
            }
            this.index = Map.copyOf(map);
        }
    }
}
