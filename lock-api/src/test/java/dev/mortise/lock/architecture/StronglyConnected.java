package dev.mortise.lock.architecture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The strongly connected components of a directed graph (Tarjan's algorithm): sets of nodes that
 * all reach each other. A component of more than one node is a cycle. Stateless; thread-safe.
 */
final class StronglyConnected {

    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new TreeSet<>();
    private final List<Set<String>> components = new ArrayList<>();

    private StronglyConnected(Map<String, Set<String>> graph) {
        this.graph = graph;
    }

    /** The components of {@code graph} (node → the nodes it points to; every target is a key). */
    static List<Set<String>> components(Map<String, Set<String>> graph) {
        StronglyConnected tarjan = new StronglyConnected(graph);
        for (String node : graph.keySet()) {
            if (!tarjan.index.containsKey(node)) {
                tarjan.visit(node);
            }
        }
        return tarjan.components;
    }

    private void visit(String node) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                visit(next);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (onStack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(node));
            components.add(component);
        }
    }
}
