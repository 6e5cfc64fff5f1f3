export type { LifecycleErrorCode, LifecycleErrorOptions } from "./errors.ts";
export { LifecycleError } from "./errors.ts";
export type { FollowMeta, FollowResult, ProviderJobStatus } from "./follow-provider.ts";
export { followProvider, PROVIDER_JOB_STATUSES, PROVIDER_PATHS } from "./follow-provider.ts";
export type { MachineStep, MachineStepEntry, MachineStepExtra } from "./machine-steps.ts";
export { MACHINE_STEPS, machineSteps } from "./machine-steps.ts";
export type { ProviderAnswer, ReconcileMeta, Reconciliation } from "./reconcile-submission.ts";
export { reconcileSubmission } from "./reconcile-submission.ts";
export type { OrderStatus } from "./statuses.ts";
export { isOrderStatus, isTerminal, ORDER_STATUSES, TERMINAL_STATUSES } from "./statuses.ts";
export type {
  EventIds,
  Lifecycle,
  TimelineEvent,
  TimelineEventType,
  TransitionMeta,
  TransitionSource,
} from "./timeline.ts";
export { eventTypeFor, TRANSITION_SOURCES } from "./timeline.ts";
export type { WithLifecycle } from "./transition.ts";
export { MAX_EVENT_ID_LENGTH, MAX_REASON_LENGTH, startLifecycle, transition } from "./transition.ts";
export { canTransition, RECONCILIATION_ONLY, TRANSITIONS } from "./transitions.ts";
