// @mailpiece/rail-mpp: amounts as MPP states them.
import { centsToDecimal, PROBLEM_CONTENT_TYPE } from "@mailpiece/rail-mpp";

console.log(centsToDecimal(150), centsToDecimal(5)); // → 1.50 0.05
console.log(PROBLEM_CONTENT_TYPE); // → application/problem+json
