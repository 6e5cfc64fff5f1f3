// @mailpiece/rail-x402: amounts and the USDC token of a network.
import { BASE_SEPOLIA, centsToUsdcUnits, resolveUsdc } from "@mailpiece/rail-x402";

console.log(centsToUsdcUnits(150)); // → 1500000
const usdc = resolveUsdc(BASE_SEPOLIA);
console.log(usdc.network, usdc.chainId, usdc.decimals, usdc.address); // → eip155:84532 84532 6 0x036CbD53842c5426634e7929541eC2318f3dCF7e
