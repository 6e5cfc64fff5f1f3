/** A whole, non-negative number with commas between thousands: 1234567 -> "1,234,567". */
export function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+$)/g, ",");
}
