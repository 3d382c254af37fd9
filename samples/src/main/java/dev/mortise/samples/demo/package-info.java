/**
 * The sample's demonstrations: contended withdrawals from several replicas and a stale write
 * refused by fencing, with their reports. Sample code, not API.
 */
package dev.mortise.samples.demo;
