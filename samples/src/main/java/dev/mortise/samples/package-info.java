/**
 * The sample service (not published): a Spring Boot application on the embedded H2 default, with
 * profiles per backend (docs/sample.md). Its packages show Mortise in use; nothing here is API.
 */
package dev.mortise.samples;
