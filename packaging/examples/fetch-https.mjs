// @mailpiece/fetch-https: which document URLs may be fetched, and which addresses are public.
import { checkDocumentUrl, classifyAddress, FetchError, parseHostAllowList } from "@mailpiece/fetch-https";

const allowList = parseHostAllowList(["docs.example.com", "*.files.example.org"]);
const target = checkDocumentUrl("https://docs.example.com/letter.pdf", allowList);
console.log(target.hostname, target.port); // → docs.example.com 443
for (const url of ["http://docs.example.com/letter.pdf", "https://elsewhere.example.net/letter.pdf"]) {
  try {
    checkDocumentUrl(url, allowList);
  } catch (error) {
    if (!FetchError.isInstance(error)) throw error;
    console.log(error.code);
  }
}
// → url_not_https
// → host_not_allowed
console.log(["93.184.216.34", "10.0.0.1", "::1", "169.254.169.254"].map(classifyAddress).join(" "));
// → public private loopback linkLocal
