export { BatchedUnits, type BatchRow, type BatchSpec, type FlushReservation, type TenantGroup } from './batch';
export type { OutboxServices } from './context';
export {
  createDeliveries,
  DELIVERY_QUEUE,
  scheduleAttempts,
  subscribedTo,
  WEBHOOK_PLANS,
  type DeliveryJob,
  type NewDelivery,
  type ScheduledAttempt,
} from './deliveries';
export type { EmittedEvent } from './events';
export { OutboxHooks, type AfterCommit, type Committed, type CommittedEvent } from './hooks';
export { countExecutions, lockedCountersCte, type TenantTerms } from './quota';
export { afterCommit, Outbox, unitOfWork } from './unit';
