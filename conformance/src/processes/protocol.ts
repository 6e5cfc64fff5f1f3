/**
 * The messages between a contract suite and the processes of its multi-process test. Every process opens the same
 * port (a store, a queue) and runs the same phases at the same time; the suite starts a phase only once every
 * process has finished the one before.
 */

/** How another process opens a port: a module, the function it exports and that function's options. */
export interface PortOpening {
  /** Absolute path or `file:` URL of an ES module; TypeScript modules run through tsx. */
  module: string;
  /** The name of the exported function that opens the port: `(options) => Port | Promise<Port>`. */
  export: string;
  /** Passed to that function, as JSON. The other process keeps time by its own system clock. */
  options?: unknown;
}

export type ToPortProcess<Phase extends string> =
  | { type: "open"; opening: PortOpening; worker: number }
  | { type: "phase"; phase: Phase }
  | { type: "close" };

export type FromPortProcess<Phase extends string> =
  | { type: "ready" }
  | { type: "done"; phase: Phase; result: unknown }
  | { type: "failed"; message: string }
  | { type: "closed" };
