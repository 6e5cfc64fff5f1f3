// @mailpiece/florist-simulated: the simulated florist's catalogue and calendar.
import { isFixedClosure, isPeakDay, SIMULATED_CATALOGUE } from "@mailpiece/florist-simulated";

console.log(isPeakDay("2026-02-14"), isFixedClosure("2026-12-25"), isFixedClosure("2026-12-24")); // → true true false
const roses = SIMULATED_CATALOGUE.find((product) => product.code === "red-roses-dozen");
console.log(roses.name, roses.currency); // → A dozen red roses usd
