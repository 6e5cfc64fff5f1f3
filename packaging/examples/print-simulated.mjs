// @mailpiece/print-simulated: what the simulated printer carries and how its jobs are tracked.
import {
  DEFAULT_PACE,
  SIMULATED_CAPABILITIES,
  TEST_ADDRESS_PHRASES,
  trackingNumberFor,
} from "@mailpiece/print-simulated";

console.log(trackingNumberFor("job_1")); // → SIM60229380517558957761
console.log(JSON.stringify(DEFAULT_PACE)); // → {"acceptAfterMs":2000,"inTransitAfterMs":10000,"deliverAfterMs":30000}
console.log(SIMULATED_CAPABILITIES.countries.length, SIMULATED_CAPABILITIES.registered.join()); // → 12 CA,BE,CH,ES,FR
console.log(TEST_ADDRESS_PHRASES.returnToSender); // → RETURN TO SENDER
