/**
 * The HTTP lock-service API of the sample (acquire, renew, release over HTTP on any backend),
 * with its limits and error answers. Sample code, not API.
 */
package dev.mortise.samples.lockservice;
