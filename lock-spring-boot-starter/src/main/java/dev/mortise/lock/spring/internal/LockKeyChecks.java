package dev.mortise.lock.spring.internal;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

import java.beans.Introspector;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The checks that keep a key expression from silently making every call share one lock.
 *
 * <p>At start-up ({@link #checkReferences}): every {@code #name} must be a parameter of the
 * method (or {@code #p0}/{@code #a0}, {@code #root}, {@code #this}), and every bare
 * identifier read from the root must be one of its properties — {@code key = "billing-run"}
 * is the subtraction of two such identifiers, not the text.
 *
 * <p>At each call ({@link #checkValue}): a single key (or fence) must not be a collection, array
 * or map (a key that is a collection or array is a multi-key lock, whose elements
 * {@link #checkElements} checks one by one), nor an object whose text is its identity
 * ({@code Object.toString}); and no part of a concatenation ({@code 'item:' + #id}) may be
 * null. Those parts are only evaluated again when the key text could show the problem
 * ("null" or "@" in it), so the usual call pays one substring search.
 */
final class LockKeyChecks {

    /** Variables SpEL or the context always define. */
    private static final Set<String> BUILT_IN = Set.of("root", "this");
    private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");
    /** The properties of {@link LockExpressionRoot}, readable as bare identifiers. */
    private static final Set<String> ROOT_PROPERTIES = rootProperties();
    private static final Map<Class<?>, Boolean> IDENTITY_TEXT = new ConcurrentHashMap<>();

    private LockKeyChecks() {
    }

    /**
     * Fails if the expression refers to something that is not there.
     *
     * @param names the method's parameter names, or {@code null} if the class was compiled
     *              without {@code -parameters}
     * @throws IllegalStateException naming the method, the expression and the fix
     */
    static void checkReferences(LockOperation operation, Expression expression, String[] names) {
        checkReferences(operation, "key", operation.keyExpression(), expression, names, Set.of());
    }

    /**
     * As {@link #checkReferences(LockOperation, Expression, String[])} for the expression {@code text}
     * of {@code attribute}, which may also refer to the variables {@code bound} (defined at each call,
     * like {@code #lockKey} in a fence).
     */
    static void checkReferences(LockOperation operation, String attribute, String text, Expression expression,
                                String[] names, Set<String> bound) {
        if (!(expression instanceof SpelExpression spel)) {
            return;
        }
        int count = operation.method().getParameterCount();
        List<String> problems = new ArrayList<>();
        walk(spel.getAST(), true, false, node -> {
            if (node instanceof VariableReference) {
                String name = node.toStringAST().substring(1);
                if (BUILT_IN.contains(name) || bound.contains(name)) {
                    return;
                }
                var positional = POSITIONAL.matcher(name);
                if (positional.matches()) {
                    if (Integer.parseInt(positional.group(1)) >= count) {
                        throw failure(attribute, text, operation, "refers to #" + name + " but the method has " + count
                                + " parameter(s); use #p0 .. #p" + Math.max(0, count - 1));
                    }
                    return;
                }
                if (names == null) {
                    throw failure(attribute, text, operation, "refers to #" + name + ", but the parameter names of "
                            + operation.describeMethod() + " are not in its class file, so #" + name
                            + " would always be null and every call would share one lock. Compile with the "
                            + "-parameters flag (maven-compiler-plugin <parameters>true</parameters>, Gradle "
                            + "options.compilerArgs << '-parameters'; spring-boot-starter-parent and Boot's "
                            + "Gradle plugin set it, importing only the dependencies BOM does not), "
                            + "or refer to arguments by position: #p0, #p1");
                }
                if (!Arrays.asList(names).contains(name)) {
                    problems.add("#" + name);
                }
            }
        }, bare -> {
            String name = bare.toStringAST();
            if (!ROOT_PROPERTIES.contains(name)) {
                throw failure(attribute, text, operation, "reads '" + name + "', which is neither an argument "
                        + "(#name) nor a property of the expression root " + new TreeSet<>(ROOT_PROPERTIES)
                        + ", so every call would fail. For a fixed name, quote it: " + attribute + " = \"'"
                        + text.replace("'", "''") + "'\"");
            }
        });
        if (!problems.isEmpty()) {
            throw failure(attribute, text, operation, "refers to " + String.join(", ", problems) + ", which is not a parameter: "
                    + "the method's parameters are " + Arrays.toString(names) + ". Every call would lock on the "
                    + "same key (null in its place). Fix the name, or refer to an argument by position (#p0)");
        }
    }

    /**
     * Fails if {@code value}, the key (or fence) of one call given by {@code attribute}'s
     * expression {@code text}, would not exclude what it should.
     *
     * @param key the text of {@code value}
     */
    static void checkValue(LockOperation operation, String attribute, String text, Expression expression,
                           EvaluationContext context, Object value, String key) {
        if (value instanceof Map<?, ?>) {
            throw failure(attribute, text, operation, "evaluated to a " + value.getClass().getSimpleName()
                    + (attribute.equals("key") ? "; lock its keys or values as a multi-key lock (#map.keySet(), "
                    + "#map.values()), or key on one entry" : "; a " + attribute + " is one value"));
        }
        if (value instanceof Collection<?> || value.getClass().isArray()) {
            throw failure(attribute, text, operation, "evaluated to a " + (value.getClass().isArray() ? "array"
                    : value.getClass().getSimpleName()) + "; a " + attribute + " is one value (only the key of a "
                    + "lock may name several keys, as a multi-key lock). Use one element, or join them into one "
                    + "text in a fixed order");
        }
        if (identityText(value.getClass())) {
            throw failure(attribute, text, operation, "evaluated to a " + value.getClass().getName() + ", which has no toString of "
                    + "its own: its text (" + key + ") differs for every instance, so no two calls would "
                    + "exclude each other. Key on an identifying property (#order.id), or give the type a toString");
        }
        if ((key.contains("null") || key.contains("@")) && expression instanceof SpelExpression spel
                && spel.getAST() instanceof OpPlus) {
            checkParts(operation, attribute, text, spel.getAST(), context);
        }
    }

    /**
     * The keys of a multi-key lock: the elements of {@code value} (a {@code Collection} or an
     * array), each checked as a single key is.
     *
     * @throws IllegalStateException naming the method, the expression and the element, if the
     *                               collection is empty or an element is null, blank, itself a
     *                               collection, or has no {@code toString} of its own
     */
    static List<String> checkElements(LockOperation operation, String text, Object value) {
        List<Object> elements = new ArrayList<>();
        if (value instanceof Collection<?> collection) {
            elements.addAll(collection);
        } else {
            for (int i = 0; i < java.lang.reflect.Array.getLength(value); i++) {
                elements.add(java.lang.reflect.Array.get(value, i));
            }
        }
        String kind = value.getClass().isArray() ? "array" : value.getClass().getSimpleName();
        if (elements.isEmpty()) {
            throw failure("key", text, operation, "evaluated to an empty " + kind + ": a multi-key lock needs at least "
                    + "one key, and an empty one would exclude no one. Skip the call when there is nothing to lock, "
                    + "or lock on a fixed key");
        }
        List<String> keys = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            Object element = elements.get(i);
            String where = "element " + i + " of the " + kind;
            if (element == null) {
                throw failure("key", text, operation, "has a null " + where + ": every call with it would lock on "
                        + "\"null\" together. Pass keys that are not null, or filter them out");
            }
            if (element instanceof Collection<?> || element instanceof Map<?, ?> || element.getClass().isArray()) {
                throw failure("key", text, operation, "has a " + where + " that is itself a " + (element.getClass()
                        .isArray() ? "array" : element.getClass().getSimpleName()) + "; a multi-key lock takes a "
                        + "flat collection of keys");
            }
            if (identityText(element.getClass())) {
                throw failure("key", text, operation, "has a " + where + " of type " + element.getClass().getName()
                        + ", which has no toString of its own: its text differs for every instance, so no two calls "
                        + "would exclude each other. Project an identifying property (#orders.![id]), or give the "
                        + "type a toString");
            }
            String key = element.toString();
            if (key == null || key.isBlank()) {
                throw failure("key", text, operation, "has a " + where + " whose text is " + (key == null ? "null"
                        : "blank") + "; every call with it would share one lock. Pass keys with a name");
            }
            keys.add(key);
        }
        return keys;
    }

    private static void checkParts(LockOperation operation, String attribute, String text, SpelNode plus,
                                   EvaluationContext context) {
        List<SpelNode> parts = new ArrayList<>();
        flatten(plus, parts);
        ExpressionState state = new ExpressionState(context);
        for (SpelNode part : parts) {
            Object value = part.getValue(state);
            if (value == null) {
                throw failure(attribute, text, operation, "has a null part: " + part.toStringAST() + " is null, so the key would "
                        + "contain \"null\" and every such call would share one lock. Pass a value, or guard the "
                        + "call");
            }
            if (value.getClass().isArray() || identityText(value.getClass())) {
                throw failure(attribute, text, operation, "has a part without a toString of its own: " + part.toStringAST()
                        + " is a " + value.getClass().getName() + ", whose text differs for every instance, so no "
                        + "two calls would exclude each other. Key on an identifying property instead");
            }
        }
    }

    /** The operands of a chain of binary {@code +}. */
    private static void flatten(SpelNode node, List<SpelNode> parts) {
        if (node instanceof OpPlus && node.getChildCount() == 2) {
            flatten(node.getChild(0), parts);
            flatten(node.getChild(1), parts);
        } else {
            parts.add(node);
        }
    }

    private static boolean identityText(Class<?> type) {
        return IDENTITY_TEXT.computeIfAbsent(type, t -> {
            try {
                return t.getMethod("toString").getDeclaringClass() == Object.class;
            } catch (NoSuchMethodException e) {
                return false;
            }
        });
    }

    /**
     * Visits variable references anywhere, and identifiers read from the root object: those
     * not behind a dot, outside selections and projections (whose identifiers read the element).
     */
    private static void walk(SpelNode node, boolean readsRoot, boolean inFilter, Consumer<SpelNode> variables,
                             Consumer<SpelNode> rootIdentifiers) {
        if (node instanceof VariableReference) {
            variables.accept(node);
        } else if (node instanceof PropertyOrFieldReference && readsRoot && !inFilter) {
            rootIdentifiers.accept(node);
        }
        boolean filter = inFilter || node instanceof Selection || node instanceof Projection;
        if (node instanceof Indexer) {
            // map[name] reads the entry "name", not a property.
            return;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            // In a.b.c only a reads the root; method arguments are evaluated against the root again.
            boolean childReadsRoot = node instanceof CompoundExpression ? readsRoot && i == 0
                    : node instanceof MethodReference || readsRoot;
            walk(node.getChild(i), childReadsRoot, filter, variables, rootIdentifiers);
        }
    }

    private static Set<String> rootProperties() {
        Set<String> names = new TreeSet<>();
        for (Method method : LockExpressionRoot.class.getMethods()) {
            if (method.getName().startsWith("get") && method.getParameterCount() == 0
                    && method.getDeclaringClass() == LockExpressionRoot.class) {
                names.add(Introspector.decapitalize(method.getName().substring(3)));
            }
        }
        return Set.copyOf(names);
    }

    private static IllegalStateException failure(LockOperation operation, String problem) {
        return failure("key", operation.keyExpression(), operation, problem);
    }

    private static IllegalStateException failure(String attribute, String text, LockOperation operation,
                                                 String problem) {
        return new IllegalStateException("@DistributedLock " + attribute + " \"" + text + "\" on "
                + operation.describeMethod() + " " + problem + ".");
    }
}
