/** Every host the code under test dialled, in order (see dial-guard.setup.ts). */
export const dialled: string[] = [];

/** Records a dial and refuses anything but 127.0.0.1 before a packet is sent. */
export function guardDial(host: string): void {
  dialled.push(host);
  if (host !== "127.0.0.1") throw new Error(`test guard: refused to dial ${host}`);
}
