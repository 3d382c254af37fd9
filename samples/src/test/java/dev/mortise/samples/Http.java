package dev.mortise.samples;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A tiny JSON-over-HTTP client for the tests (the JDK's, so the tests need no extra module). */
final class Http {

    /** A response: status and body, parsed as JSON when it is JSON. */
    record Response(int status, String body) {
        JsonNode json() {
            return MAPPER.readTree(body);
        }
    }

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Response get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    Response post(String path, String json) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private Response send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.body());
    }
}
